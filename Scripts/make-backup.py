#!/usr/bin/env python3
"""Builds an unencrypted iPhone backup (iOS 10 and later layout) from ycft's own fixtures.

    Scripts/make-backup.py OUT                     # the demo backup (Examples/make.sh writes Examples/Backup)
    Scripts/make-backup.py OUT --variant NAME      # the same, spoilt in one way, for the tests

The layout is a real backup's: OUT/Manifest.db (SQLite: Files(fileID, domain, relativePath,
flags, file) and Properties(key, value)), Manifest.plist, Info.plist, Status.plist, and each
file at OUT/<fileID[0:2]>/<fileID>, fileID = SHA-1 of "<domain>-<relativePath>" in lowercase
hex. Each Files row's `file` is an NSKeyedArchiver archive of an MBFile, as in a real backup.
Facts and sources: /work/shared/reference/backup-format.md (iphone_backup_decrypt, iOSbackup).

The apps: com.example.notes, com.example.weather (an XML preferences file) and com.example.game
(migrated: YCFirstTime.records) hold YCFirstTime state; com.example.habits only IntervalClient
keys; com.example.calculator none. The app groups: group.com.example.shared holds state,
group.com.example.settings none. Python's standard library only; the same bytes on every run.
"""
import argparse
import hashlib
import os
import plistlib
import shutil
import sqlite3
import sys
from datetime import datetime, timezone

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WHEN = datetime(2026, 11, 30, 9, 0, 0, tzinfo=timezone.utc).replace(tzinfo=None)
SECONDS_1970 = 1796029200  # WHEN, in seconds since 1970
UDID = "00008030-001A2B3C4D5E802E"

VARIANTS = {
    "encrypted": "Manifest.plist says IsEncrypted",
    "mbdb": "an iOS 9 backup: Manifest.mbdb instead of Manifest.db",
    "no-manifest": "neither Manifest.db nor Manifest.mbdb",
    "fileid-dotdot": "com.example.notes's fileID is ../../../../etc/passwd padded to 40 characters",
    "fileid-short": "com.example.notes's fileID is 39 hex digits",
    "fileid-upper": "com.example.notes's fileID in uppercase hex",
    "fileid-number": "com.example.notes's fileID stored as an integer",
    "missing-file": "com.example.notes's file is not in the folder",
    "link-file": "com.example.notes's file is a symbolic link to /etc/passwd",
    "no-files-table": "Manifest.db has no Files table",
    "wrong-schema": "Files has no relativePath column",
    "huge-row": "a row whose relativePath is 2 MiB long",
    "not-a-database": "Manifest.db is not an SQLite database",
    "twice": "com.example.notes's preferences listed twice",
    "directory": "com.example.notes's preferences listed as a directory (flags 2)",
    "not-a-plist": "com.example.weather's preferences are not a property list",
    "unfinished": "Status.plist says the backup did not finish (SnapshotState uploading)",
}


def plist_bytes(value, fmt=plistlib.FMT_BINARY):
    return plistlib.dumps(value, fmt=fmt, sort_keys=True)


def source(path):
    with open(os.path.join(ROOT, path), "rb") as f:
        return f.read()


def preferences():
    """(domain, relativePath, bytes) of every file in the backup, in the order they are listed."""
    habits = plist_bytes({
        "Streak": 12,
        # IntervalClient: interval.<key> = seconds since 1970.
        "interval.daily.reminder": 1_735_722_000.5,
        "interval.weekly.summary": 1_736_000_000.0,
    })
    calculator = plist_bytes({"AngleUnit": "degrees", "Precision": 4})
    settings = plist_bytes({"SyncEnabled": True})
    springboard = plist_bytes({"SBHomeScreenIconColumns": 4})
    return [
        ("AppDomain-com.example.notes", "Library/Preferences/com.example.notes.plist",
         source("Examples/exported/com.example.notes.plist")),
        ("AppDomain-com.example.notes", "Library/Caches/notes.cache", b"cached\n"),
        ("AppDomain-com.example.weather", "Library/Preferences/com.example.weather.plist",
         source("Examples/exported/com.example.weather.plist")),
        ("AppDomain-com.example.game", "Library/Preferences/com.example.game.plist",
         source("Examples/exported/team-b/com.example.game.plist")),
        ("AppDomain-com.example.habits", "Library/Preferences/com.example.habits.plist", habits),
        ("AppDomain-com.example.calculator", "Library/Preferences/com.example.calculator.plist", calculator),
        ("AppDomainGroup-group.com.example.shared", "Library/Preferences/group.com.example.shared.plist",
         source("Fixtures/valid/defaults/export.xml.plist")),
        ("AppDomainGroup-group.com.example.settings", "Library/Preferences/group.com.example.settings.plist", settings),
        ("HomeDomain", "Library/Preferences/com.apple.springboard.plist", springboard),
    ]


def directories():
    """(domain, relativePath) of the directory rows (flags 2): no file in the folder."""
    return [("AppDomain-com.example.notes", "Library"), ("AppDomain-com.example.notes", "Library/Preferences"),
            ("HomeDomain", "Library/Preferences")]


def file_id(domain, relative_path):
    return hashlib.sha1(f"{domain}-{relative_path}".encode()).hexdigest()


def mbfile(relative_path, size, mode):
    """The `file` column: an NSKeyedArchiver archive whose root is an MBFile."""
    objects = [
        "$null",
        {"$class": plistlib.UID(3), "RelativePath": plistlib.UID(2), "Size": size, "Mode": mode, "Flags": 0,
         "ProtectionClass": 3, "UserID": 501, "GroupID": 501, "InodeNumber": 0,
         "Birth": SECONDS_1970, "LastModified": SECONDS_1970, "LastStatusChange": SECONDS_1970},
        relative_path,
        {"$classname": "MBFile", "$classes": ["MBFile", "NSObject"]},
    ]
    return plist_bytes({"$archiver": "NSKeyedArchiver", "$version": 100000,
                        "$top": {"root": plistlib.UID(1)}, "$objects": objects})


def write_database(path, rows, variant):
    db = sqlite3.connect(path)
    if variant == "no-files-table":
        db.execute("CREATE TABLE Properties (key TEXT PRIMARY KEY, value BLOB)")
    elif variant == "wrong-schema":
        db.execute("CREATE TABLE Files (fileID TEXT PRIMARY KEY, domain TEXT, flags INTEGER, file BLOB)")
        db.executemany("INSERT INTO Files VALUES (?, ?, ?, ?)", [(r[0], r[1], r[3], r[4]) for r in rows])
    else:
        db.execute("CREATE TABLE Files (fileID TEXT PRIMARY KEY, domain TEXT, relativePath TEXT, flags INTEGER, file BLOB)")
        db.execute("CREATE INDEX FilesDomainIdx ON Files(domain)")
        db.execute("CREATE INDEX FilesRelativePathIdx ON Files(relativePath)")
        db.execute("CREATE INDEX FilesFlagsIdx ON Files(flags)")
        db.execute("CREATE TABLE Properties (key TEXT PRIMARY KEY, value BLOB)")
        db.executemany("INSERT INTO Files VALUES (?, ?, ?, ?, ?)", rows)
    db.commit()
    db.execute("VACUUM")
    db.close()


def make(out, variant=None):
    if os.path.exists(out):
        shutil.rmtree(out)
    os.makedirs(out)
    rows = []
    notes = ("AppDomain-com.example.notes", "Library/Preferences/com.example.notes.plist")
    for domain, relative_path, data in preferences():
        fid = file_id(domain, relative_path)
        os.makedirs(os.path.join(out, fid[:2]), exist_ok=True)
        with open(os.path.join(out, fid[:2], fid), "wb") as f:
            f.write(data)
        if variant == "not-a-plist" and domain == "AppDomain-com.example.weather":
            with open(os.path.join(out, fid[:2], fid), "wb") as f:
                f.write(b"not a property list\n")
        listed = fid
        if (domain, relative_path) == notes:
            if variant == "fileid-dotdot":
                listed = "../../../../../../../../../../etc/passwd"
            elif variant == "fileid-short":
                listed = fid[:39]
            elif variant == "fileid-upper":
                listed = fid.upper()
            elif variant == "fileid-number":
                listed = 1234
            elif variant == "missing-file":
                os.remove(os.path.join(out, fid[:2], fid))
            elif variant == "link-file":
                os.remove(os.path.join(out, fid[:2], fid))
                os.symlink("/etc/passwd", os.path.join(out, fid[:2], fid))
        flags = 2 if variant == "directory" and (domain, relative_path) == notes else 1
        rows.append((listed, domain, relative_path, flags, mbfile(relative_path, len(data), 0o100644)))
        if variant == "twice" and (domain, relative_path) == notes:
            rows.append(("0" * 40, domain, relative_path, 1, mbfile(relative_path, len(data), 0o100644)))
    for domain, relative_path in directories():
        rows.append((file_id(domain, relative_path), domain, relative_path, 2, mbfile(relative_path, 0, 0o40755)))
    if variant == "huge-row":
        rows.append(("f" * 40, "AppDomain-com.example.huge", "L" * (2 << 20), 1, b""))
    rows.sort(key=lambda row: str(row[0]))

    if variant == "not-a-database":
        with open(os.path.join(out, "Manifest.db"), "wb") as f:
            f.write(b"This is not an SQLite database.\n" * 64)
    elif variant == "mbdb":
        with open(os.path.join(out, "Manifest.mbdb"), "wb") as f:
            f.write(b"mbdb\x05\x00")
    elif variant != "no-manifest":
        write_database(os.path.join(out, "Manifest.db"), rows, variant)

    apps = ["com.example.calculator", "com.example.game", "com.example.habits", "com.example.notes", "com.example.weather"]
    lockdown = {"BuildVersion": "21F90", "DeviceName": "Support iPhone", "ProductType": "iPhone15,2",
                "ProductVersion": "17.5.1", "SerialNumber": "F2LXXXXXXXXX", "UniqueDeviceID": UDID}
    manifest = {
        "Applications": {app: {"CFBundleIdentifier": app, "CFBundleVersion": "1", "ContainerContentClass": "Data/Application"}
                         for app in apps},
        "BackupKeyBag": b"",
        "Date": WHEN,
        "IsEncrypted": variant == "encrypted",
        "Lockdown": lockdown,
        "SystemDomainsVersion": "24.0",
        "Version": "10.0",
        "WasPasscodeSet": False,
    }
    info = {"Build Version": "21F90", "Device Name": "Support iPhone", "Display Name": "Support iPhone",
            "GUID": "0123456789ABCDEF0123456789ABCDEF", "Installed Applications": apps,
            "Last Backup Date": WHEN, "Product Name": "iPhone 14 Pro", "Product Type": "iPhone15,2",
            "Product Version": "17.5.1", "Serial Number": "F2LXXXXXXXXX", "Target Identifier": UDID,
            "Target Type": "Device", "Unique Identifier": UDID}
    status = {"BackupState": "new", "Date": WHEN, "IsFullBackup": False,
              "SnapshotState": "uploading" if variant == "unfinished" else "finished",
              "UUID": "01234567-89AB-CDEF-0123-456789ABCDEF", "Version": "3.3"}
    for name, value, fmt in [("Manifest.plist", manifest, plistlib.FMT_BINARY), ("Info.plist", info, plistlib.FMT_XML),
                             ("Status.plist", status, plistlib.FMT_BINARY)]:
        with open(os.path.join(out, name), "wb") as f:
            f.write(plist_bytes(value, fmt))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", help="the backup folder to write (replaced)")
    parser.add_argument("--variant", choices=sorted(VARIANTS), help="spoil the backup in one way (for the tests)")
    args = parser.parse_args()
    make(args.out, args.variant)
    return 0


if __name__ == "__main__":
    sys.exit(main())
