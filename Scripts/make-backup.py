#!/usr/bin/env python3
"""Builds an iPhone backup (iOS 10 and later layout) from ycft's own fixtures, unencrypted or encrypted.

    Scripts/make-backup.py OUT                     # the demo backup (Examples/make.sh writes Examples/Backup)
    Scripts/make-backup.py OUT --variant NAME      # the same, spoilt in one way, for the tests
    Scripts/make-backup.py OUT --password PW       # the same backup, encrypted with the password PW

The layout is a real backup's: OUT/Manifest.db (SQLite: Files(fileID, domain, relativePath,
flags, file) and Properties(key, value)), Manifest.plist, Info.plist, Status.plist, and each
file at OUT/<fileID[0:2]>/<fileID>, fileID = SHA-1 of "<domain>-<relativePath>" in lowercase
hex. Each Files row's `file` is an NSKeyedArchiver archive of an MBFile, as in a real backup.
The format as ycft reads it: docs/commands.md ("ycft backup"), and Sources/PhoneBackup, which
reads what this writes; independent readers of the same format: iphone_backup_decrypt, iOSbackup.

The apps: com.example.notes, com.example.weather (an XML preferences file) and com.example.game
(migrated: YCFirstTime.records) hold YCFirstTime state; com.example.habits only IntervalClient
keys; com.example.calculator none. The app groups: group.com.example.shared holds state,
group.com.example.settings none. Python's standard library only for an unencrypted backup; the
same bytes on every run.

Encrypted (--password), as iOS 10.2 and later write it, with `cryptography` (PyPI): the keybag
(Manifest.plist's BackupKeyBag: TLV items, a header with SALT, ITER, DPSL, DPIC and one group per
protection class 1 to 11 whose WPKY is the class key wrapped (RFC 3394) with
PBKDF2-SHA1(PBKDF2-SHA256(password, DPSL, DPIC), SALT, ITER)); ManifestKey (class 4, 4 bytes
little-endian, and the database key wrapped with class 4's key) encrypting Manifest.db; each file
encrypted with its own key, given in its MBFile's EncryptionKey (class 3 and the wrapped key, an
NSMutableData), AES-256-CBC with a zero IV and PKCS#7 padding. The iteration counts are small
(DPIC 1000, ITER 100) so the tests run quickly; every key and salt comes from SHA-256 of a fixed
label, so the bytes are the same on every run.
"""
import argparse
import hashlib
import os
import plistlib
import shutil
import sqlite3
import sys
import tempfile
from datetime import datetime, timezone

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WHEN = datetime(2026, 11, 30, 9, 0, 0, tzinfo=timezone.utc).replace(tzinfo=None)
SECONDS_1970 = 1796029200  # WHEN, in seconds since 1970
UDID = "00008030-001A2B3C4D5E802E"

VARIANTS = {
    "encrypted": "Manifest.plist says IsEncrypted, with an empty keybag and no ManifestKey",
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
    "hostile-id": "one more app, whose bundle id holds a line feed and an escape, listed without its file",
    "wal": "Manifest.db in WAL mode (its header's bytes 18 and 19 are 2), its log folded in and gone",
    "wal-log": "Manifest.db in WAL mode with its Manifest.db-wal beside it, holding one more row not yet folded in",
    "unicode-twins": "two more apps whose bundle ids differ only in Unicode normalisation: com.caf\u00e9.app composed "
                     "(NFC, com.example.notes's preferences) and decomposed (NFD, com.example.game's)",
    "unicode-nfd": "one more app, com.caf\u00e9.app decomposed (NFD, com.example.game's preferences)",
    "wal-link": "as wal-log, but Manifest.db-wal is a symbolic link to the log, kept beside the backup folder",
    "journal": "a transaction interrupted after some of its pages reached Manifest.db: a hot Manifest.db-journal beside it "
               "(its header intact), holding the pages as they were",
    "journal-link": "as journal, but Manifest.db-journal is a symbolic link to the journal, kept beside the backup folder",
    "journal-cold": "a Manifest.db-journal whose header is zeroed, as journal_mode=PERSIST leaves one after a commit: "
                    "nothing to roll back",
}

# With --password: spoilt in one way.
ENCRYPTED_VARIANTS = {
    "absurd-iterations": "the keybag asks for DPIC 4,000,000,000 PBKDF2-SHA256 rounds",
    "truncated-file": "com.example.notes's encrypted file lacks its last 7 bytes",
    "tampered-file": "com.example.notes's encrypted file has one byte of its last block changed",
    "truncated-manifest": "the encrypted Manifest.db lacks its last 16 bytes",
    "tampered-manifest": "the encrypted Manifest.db has one byte of its first block changed",
    "no-file-key": "com.example.notes's MBFile has no EncryptionKey",
    "duplicate-class": "the keybag lists protection class 3 twice",
    "altered-unused-class": "the keybag's wrapped key of protection class 7, which no file uses, has one byte changed",
    "altered-file-class": "the keybag's wrapped key of protection class 3 (the files') has one byte changed",
    "size-off": "com.example.notes's MBFile says Size is one byte more than the file (Manifest.db's sizes are off now and then)",
    "ios10-keybag": "the keybag as iOS 10.0 and 10.1 wrote it: SALT and ITER only (no DPWT, DPIC, DPSL), "
                    "the key PBKDF2-SHA1(password, SALT, ITER) alone",
}


def plist_bytes(value, fmt=plistlib.FMT_BINARY):
    return plistlib.dumps(value, fmt=fmt, sort_keys=True)


def source(path):
    # The tests point EXAMPLES_COPY at a copy of Examples/ as committed, so a clone whose
    # Examples/ was tried (README's "Try it" rewrites files there) still makes the same backup.
    if path.startswith("Examples/") and os.environ.get("EXAMPLES_COPY"):
        path = os.path.join(os.environ["EXAMPLES_COPY"], path[len("Examples/"):])
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


def mbfile(relative_path, size, mode, encryption_key=None):
    """The `file` column: an NSKeyedArchiver archive whose root is an MBFile; in an encrypted
    backup, its EncryptionKey (an NSMutableData: 4-byte little-endian class, wrapped key)."""
    objects = [
        "$null",
        {"$class": plistlib.UID(3), "RelativePath": plistlib.UID(2), "Size": size, "Mode": mode, "Flags": 0,
         "ProtectionClass": FILE_CLASS, "UserID": 501, "GroupID": 501, "InodeNumber": 0,
         "Birth": SECONDS_1970, "LastModified": SECONDS_1970, "LastStatusChange": SECONDS_1970},
        relative_path,
        {"$classname": "MBFile", "$classes": ["MBFile", "NSObject"]},
    ]
    if encryption_key is not None:
        objects[1]["EncryptionKey"] = plistlib.UID(4)
        objects.append({"$class": plistlib.UID(5), "NS.data": encryption_key})
        objects.append({"$classname": "NSMutableData", "$classes": ["NSMutableData", "NSData", "NSObject"]})
    return plist_bytes({"$archiver": "NSKeyedArchiver", "$version": 100000,
                        "$top": {"root": plistlib.UID(1)}, "$objects": objects})


FILE_CLASS = 3      # NSFileProtectionCompleteUntilFirstUserAuthentication
MANIFEST_CLASS = 4  # NSFileProtectionNone


def fixed(label, count=32):
    """`count` bytes that look random and are the same on every run."""
    return hashlib.sha256(f"ycft make-backup {label}".encode()).digest()[:count]


class Encryption:
    """The keys of an encrypted backup made with `password`, and what encrypts with them."""

    def __init__(self, password, variant):
        from cryptography.hazmat.primitives import hashes
        from cryptography.hazmat.primitives.kdf.pbkdf2 import PBKDF2HMAC
        self.variant = variant
        self.salt, self.dpsl = fixed("SALT", 20), fixed("DPSL", 20)
        self.iterations, self.dpic = 100, 1000
        first = PBKDF2HMAC(algorithm=hashes.SHA256(), length=32, salt=self.dpsl, iterations=self.dpic).derive(password.encode())
        if variant == "ios10-keybag":
            first = password.encode()
        self.password_key = PBKDF2HMAC(algorithm=hashes.SHA1(), length=32, salt=self.salt, iterations=self.iterations).derive(first)
        self.class_keys = {number: fixed(f"class {number}") for number in range(1, 12)}

    @staticmethod
    def wrap(kek, key):
        from cryptography.hazmat.primitives.keywrap import aes_key_wrap
        return aes_key_wrap(kek, key)

    def keybag(self):
        def item(tag, value):
            if isinstance(value, int):
                value = value.to_bytes(4, "big")
            return tag.encode() + len(value).to_bytes(4, "big") + value
        dpic = 4_000_000_000 if self.variant == "absurd-iterations" else self.dpic
        out = item("VERS", 4) + item("TYPE", 1) + item("UUID", fixed("keybag uuid", 16)) + item("HMCK", fixed("HMCK", 40))
        out += item("WRAP", 0) + item("SALT", self.salt) + item("ITER", self.iterations)
        if self.variant != "ios10-keybag":
            out += item("DPWT", 1) + item("DPIC", dpic) + item("DPSL", self.dpsl)
        classes = list(self.class_keys.items())
        if self.variant == "duplicate-class":
            classes.append((FILE_CLASS, self.class_keys[FILE_CLASS]))
        altered = {"altered-unused-class": 7, "altered-file-class": FILE_CLASS}.get(self.variant)
        for number, key in classes:
            wrapped = self.wrap(self.password_key, key)
            if number == altered:
                wrapped = wrapped[:20] + bytes([wrapped[20] ^ 0x01]) + wrapped[21:]
            out += item("UUID", fixed(f"class uuid {number}", 16)) + item("CLAS", number) + item("WRAP", 2)
            out += item("KTYP", 0) + item("WPKY", wrapped)
        return out

    def stored_key(self, protection_class, key):
        """A key as ManifestKey and EncryptionKey hold it: the class, then the wrapped key."""
        return protection_class.to_bytes(4, "little") + self.wrap(self.class_keys[protection_class], key)

    @staticmethod
    def encrypt(key, data):
        from cryptography.hazmat.primitives import padding
        from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
        padder = padding.PKCS7(128).padder()
        padded = padder.update(data) + padder.finalize()
        encryptor = Cipher(algorithms.AES(key), modes.CBC(b"\0" * 16)).encryptor()
        return encryptor.update(padded) + encryptor.finalize()


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
    if variant in ("wal", "wal-log", "wal-link"):
        db.execute("PRAGMA journal_mode=WAL")
    if variant == "journal-cold":
        # journal_mode=PERSIST keeps the journal after a commit and zeroes its header: the pages
        # it holds are no transaction to roll back (the update changes no value).
        db.execute("PRAGMA journal_mode=PERSIST")
        db.execute("UPDATE Files SET flags = flags")
        db.commit()
        db.close()
        return
    if variant in ("journal", "journal-link"):
        # A writer stopped mid-transaction: with a one-page cache, SQLite writes the journal (the
        # pages as they were, its header first) and then spills changed pages into the database
        # itself. The two files are copied while the transaction is open.
        db.isolation_level = None
        db.execute("PRAGMA cache_size=1")
        db.execute("BEGIN")
        db.execute("UPDATE Files SET relativePath = relativePath || '.uncommitted'")
        scratch = tempfile.mkdtemp()
        try:
            for suffix in ("", "-journal"):
                shutil.copyfile(path + suffix, os.path.join(scratch, "copy" + suffix))
            db.execute("ROLLBACK")
            db.close()
            for suffix in ("", "-journal"):
                shutil.copyfile(os.path.join(scratch, "copy" + suffix), path + suffix)
        finally:
            shutil.rmtree(scratch)
        if variant == "journal-link":
            link_from_beside(path + "-journal")
        return
    if variant in ("wal-log", "wal-link"):
        # A writer that has not checkpointed yet: the row is in the log only. The two files are
        # copied while it is open (closing would fold the log in and remove it).
        db.execute("PRAGMA wal_autocheckpoint=0")
        db.execute("INSERT INTO Files VALUES (?, ?, ?, ?, ?)",
                   ("e" * 40, "AppDomain-com.example.late", "Library/Preferences/com.example.late.plist", 1, b""))
        db.commit()
        scratch = tempfile.mkdtemp()
        try:
            for suffix in ("", "-wal"):
                shutil.copyfile(path + suffix, os.path.join(scratch, "copy" + suffix))
            db.close()
            for suffix in ("", "-wal"):
                shutil.copyfile(os.path.join(scratch, "copy" + suffix), path + suffix)
            if os.path.exists(path + "-shm"):
                os.remove(path + "-shm")
        finally:
            shutil.rmtree(scratch)
        if variant == "wal-link":
            link_from_beside(path + "-wal")
        return
    db.close()


def link_from_beside(path):
    """Moves the file at path out of the backup folder, beside it (FOLDER-NAME), and leaves a
    symbolic link to it in its place."""
    folder = os.path.dirname(path)
    beside = folder + "-" + os.path.basename(path)
    os.replace(path, beside)
    os.symlink(beside, path)


def make(out, variant=None, password=None):
    if os.path.exists(out):
        shutil.rmtree(out)
    os.makedirs(out)
    crypt = Encryption(password, variant) if password is not None else None
    rows = []
    notes = ("AppDomain-com.example.notes", "Library/Preferences/com.example.notes.plist")
    for domain, relative_path, data in preferences():
        fid = file_id(domain, relative_path)
        os.makedirs(os.path.join(out, fid[:2]), exist_ok=True)
        stored, encryption_key = data, None
        if crypt:
            file_key = fixed(f"file {fid}")
            stored = crypt.encrypt(file_key, data)
            if (domain, relative_path) == notes and variant == "truncated-file":
                stored = stored[:-7]
            elif (domain, relative_path) == notes and variant == "tampered-file":
                stored = stored[:-3] + bytes([stored[-3] ^ 0x5A]) + stored[-2:]
            if not ((domain, relative_path) == notes and variant == "no-file-key"):
                encryption_key = crypt.stored_key(FILE_CLASS, file_key)
        with open(os.path.join(out, fid[:2], fid), "wb") as f:
            f.write(stored)
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
        size = len(data) + 1 if variant == "size-off" and (domain, relative_path) == notes else len(data)
        rows.append((listed, domain, relative_path, flags, mbfile(relative_path, size, 0o100644, encryption_key)))
        if variant == "twice" and (domain, relative_path) == notes:
            rows.append(("0" * 40, domain, relative_path, 1, mbfile(relative_path, len(data), 0o100644)))
    for domain, relative_path in directories():
        rows.append((file_id(domain, relative_path), domain, relative_path, 2, mbfile(relative_path, 0, 0o40755)))
    if variant == "hostile-id":
        evil = "com.example.evil\nycft: all clear\x1b[2J"
        domain, relative_path = "AppDomain-" + evil, "Library/Preferences/" + evil + ".plist"
        rows.append((file_id(domain, relative_path), domain, relative_path, 1, mbfile(relative_path, 0, 0o100644)))
    if variant in ("unicode-twins", "unicode-nfd"):
        twins = [("com.cafe\u0301.app", "Examples/exported/team-b/com.example.game.plist")]
        if variant == "unicode-twins":
            twins.insert(0, ("com.caf\u00e9.app", "Examples/exported/com.example.notes.plist"))
        for app, path in twins:
            domain, relative_path, data = "AppDomain-" + app, "Library/Preferences/" + app + ".plist", source(path)
            fid = file_id(domain, relative_path)
            stored, encryption_key = data, None
            if crypt:
                file_key = fixed(f"file {fid}")
                stored, encryption_key = crypt.encrypt(file_key, data), crypt.stored_key(FILE_CLASS, file_key)
            os.makedirs(os.path.join(out, fid[:2]), exist_ok=True)
            with open(os.path.join(out, fid[:2], fid), "wb") as f:
                f.write(stored)
            rows.append((fid, domain, relative_path, 1, mbfile(relative_path, len(data), 0o100644, encryption_key)))
    if variant == "huge-row":
        rows.append(("f" * 40, "AppDomain-com.example.huge", "L" * (2 << 20), 1, b""))
    rows.sort(key=lambda row: str(row[0]))

    if variant == "not-a-database":
        with open(os.path.join(out, "Manifest.db"), "wb") as f:
            f.write(b"This is not an SQLite database.\n" * 64)
    elif variant == "mbdb":
        with open(os.path.join(out, "Manifest.mbdb"), "wb") as f:
            f.write(b"mbdb\x05\x00")
    elif variant != "no-manifest" and crypt:
        # Written in plain to a scratch folder outside the backup, then encrypted into it.
        scratch = tempfile.mkdtemp()
        try:
            write_database(os.path.join(scratch, "Manifest.db"), rows, variant)
            with open(os.path.join(scratch, "Manifest.db"), "rb") as f:
                plain = f.read()
        finally:
            shutil.rmtree(scratch)
        manifest_key = fixed("Manifest.db key")
        encrypted = crypt.encrypt(manifest_key, plain)
        if variant == "truncated-manifest":
            encrypted = encrypted[:-16]
        elif variant == "tampered-manifest":
            encrypted = encrypted[:5] + bytes([encrypted[5] ^ 0x5A]) + encrypted[6:]
        with open(os.path.join(out, "Manifest.db"), "wb") as f:
            f.write(encrypted)
    elif variant != "no-manifest":
        write_database(os.path.join(out, "Manifest.db"), rows, variant)

    apps = ["com.example.calculator", "com.example.game", "com.example.habits", "com.example.notes", "com.example.weather"]
    lockdown = {"BuildVersion": "21F90", "DeviceName": "Support iPhone", "ProductType": "iPhone15,2",
                "ProductVersion": "17.5.1", "SerialNumber": "F2LXXXXXXXXX", "UniqueDeviceID": UDID}
    manifest = {
        "Applications": {app: {"CFBundleIdentifier": app, "CFBundleVersion": "1", "ContainerContentClass": "Data/Application"}
                         for app in apps},
        "BackupKeyBag": crypt.keybag() if crypt else b"",
        "Date": WHEN,
        "IsEncrypted": variant == "encrypted" or crypt is not None,
        "Lockdown": lockdown,
        "SystemDomainsVersion": "24.0",
        "Version": "10.0",
        "WasPasscodeSet": False,
    }
    if crypt:
        manifest["ManifestKey"] = crypt.stored_key(MANIFEST_CLASS, fixed("Manifest.db key"))
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
    parser.add_argument("--variant", choices=sorted(VARIANTS) + sorted(ENCRYPTED_VARIANTS),
                        help="spoil the backup in one way (for the tests; the second kind needs --password)")
    parser.add_argument("--password", help="encrypt the backup with this password (needs the PyPI package cryptography)")
    args = parser.parse_args()
    if args.variant in ENCRYPTED_VARIANTS and args.password is None:
        parser.error(f"--variant {args.variant} needs --password")
    make(args.out, args.variant, args.password)
    return 0


if __name__ == "__main__":
    sys.exit(main())
