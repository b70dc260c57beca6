import Foundation
import PhoneBackup
import Testing
import TestSupport
@testable import YcftCLI

/// Reading YCFirstTime state straight from an iPhone backup (`Scripts/make-backup.py` writes
/// them): `--backup` prints what the command prints for the preferences file itself, `backup
/// apps` lists exactly the apps with state, every spoilt backup gets its one clear line, and
/// no run changes a byte of the backup or leaves a journal beside Manifest.db.
@Suite struct BackupThroughTheTool {
    let ycft = TestPaths.executable("ycft")

    /// One preferences file of the generated backup: how it is asked for, its fileID
    /// (SHA-1 of "<domain>-<relativePath>"), and the fixture the generator copied (nil: made
    /// by the generator).
    struct Preferences: Sendable, CustomStringConvertible {
        let app: String
        let group: String?
        let fileID: String
        let source: String?
        var description: String { group ?? app }
        var selection: [String] { ["--app", app] + (group.map { ["--group", $0] } ?? []) }
        func path(in backup: URL) -> String { backup.appendingPathComponent("\(fileID.prefix(2))/\(fileID)").path }
    }

    static let preferences = [
        Preferences(app: "com.example.notes", group: nil, fileID: "3fec9de91317d194d5629328de2dbf76f86012ba",
                    source: "Examples/exported/com.example.notes.plist"),
        Preferences(app: "com.example.weather", group: nil, fileID: "730a1b13433b87945f516afd876733b4ec1a92ca",
                    source: "Examples/exported/com.example.weather.plist"),
        Preferences(app: "com.example.game", group: nil, fileID: "3ce34a1dc970de85494142e786fa6633ab11cf3a",
                    source: "Examples/exported/team-b/com.example.game.plist"),
        Preferences(app: "com.example.habits", group: nil, fileID: "0b68eaf45b744b750a8a79e05e7b1084b6454b76", source: nil),
        Preferences(app: "com.example.calculator", group: nil, fileID: "32bdfa3b6d3e72eb0355de66488918f97e22ca06", source: nil),
        Preferences(app: "com.example.notes", group: "group.com.example.shared", fileID: "01cc1be689d0920f04ca3f73878d59e10fd9e193",
                    source: "Fixtures/valid/defaults/export.xml.plist"),
        Preferences(app: "com.example.notes", group: "group.com.example.settings", fileID: "ed6640b67bd83620136d35145d3b20ae5b4c7c9c",
                    source: nil),
    ]

    /// The reading commands, with fixed moments so two runs agree.
    static let commands: [[String]] = [
        ["dump"], ["dump", "--raw"], ["dump", "--objects", "--key", "YCFirstTime"],
        ["status", "--now", "2026-01-01T00:00:00Z", "--app-version", "2.1.0", "--gate", "onboarding.v1=per-version",
         "--gate", "daily.reminder=daily"],
        ["status", "--now", "2026-01-01T00:00:00Z", "--format", "json"],
        ["verify"], ["verify", "--format", "json"], ["verify", "--format", "github", "--strict"],
    ]

    func run(_ arguments: [String]) throws -> ProcessResult { try runProcess(ycft, arguments) }

    @Test(arguments: preferences)
    func readsAsTheFileItself(_ preferences: Preferences) throws {
        let backup = try Backups.make()
        let before = try Backups.snapshot(backup)
        let file = preferences.path(in: backup)
        for command in Self.commands {
            let fromBackup = try run(command + ["--backup", backup.path] + preferences.selection)
            let direct = try run(command + [file])
            #expect(fromBackup.status == direct.status, "\(command)")
            #expect(fromBackup.stdout == direct.stdout, "\(command): \(firstDifference(fromBackup.stdout, direct.stdout))")
            #expect(fromBackup.stderr == direct.stderr, "\(command)")
        }
        if let source = preferences.source {
            // The copy in the backup is the fixture: dump prints the same records for both.
            let original = try run(["dump", TestPaths.committed(source).path])
            #expect(try run(["dump", "--backup", backup.path] + preferences.selection).stdout == original.stdout)
            #expect(original.status == 0)
        }
        #expect(try Backups.snapshot(backup) == before)
    }

    @Test func listsExactlyTheAppsWithState() throws {
        let backup = try Backups.make()
        let before = try Backups.snapshot(backup)
        let text = try run(["backup", "apps", backup.path])
        #expect(text.status == 0 && text.stderr.isEmpty, "\(text.stderr)")
        #expect(String(decoding: text.stdout, as: UTF8.self) == """
            Support iPhone, iOS 17.5.1
            KIND   ID                        FORM              RECORDS
            app    com.example.game          plain-records     2
            app    com.example.habits        interval-keys     2
            app    com.example.notes         defaults-archive  3
            app    com.example.weather       defaults-archive  2
            group  group.com.example.shared  defaults-archive  3

            """)
        let json = try run(["backup", "apps", "--format", "json", "--compact", backup.path])
        #expect(json.status == 0 && json.stderr.isEmpty)
        func app(_ kind: String, _ id: String, _ fileID: String, _ form: String, _ records: Int) -> String {
            let domain = kind == "app" ? "AppDomain-" + id : "AppDomainGroup-" + id
            return #"{"kind":"\#(kind)","id":"\#(id)","domain":"\#(domain)","path":"\#(backup.path)/\#(fileID.prefix(2))/\#(fileID)","#
                + #""form":"\#(form)","records":\#(records)}"#
        }
        let apps = [
            app("app", "com.example.game", "3ce34a1dc970de85494142e786fa6633ab11cf3a", "plain-records", 2),
            app("app", "com.example.habits", "0b68eaf45b744b750a8a79e05e7b1084b6454b76", "interval-keys", 2),
            app("app", "com.example.notes", "3fec9de91317d194d5629328de2dbf76f86012ba", "defaults-archive", 3),
            app("app", "com.example.weather", "730a1b13433b87945f516afd876733b4ec1a92ca", "defaults-archive", 2),
            app("group", "group.com.example.shared", "01cc1be689d0920f04ca3f73878d59e10fd9e193", "defaults-archive", 3),
        ]
        #expect(String(decoding: json.stdout, as: UTF8.self) == #"{"formatVersion":1,"backup":"\#(backup.path)","#
                + #""deviceName":"Support iPhone","productVersion":"17.5.1","apps":[\#(apps.joined(separator: ","))]}"# + "\n")
        #expect(try Backups.snapshot(backup) == before)
    }

    /// Each spoilt backup: the exact line (`BACKUP` stands for the folder) and exit status 2,
    /// from a read of the notes app's preferences and from `backup apps` (nil: apps lists the
    /// others, exit 0, as it does when the notes app's row is not one it looks at; "": the same
    /// line; "notes": the read's line named after the app, whose rows `apps` judges as the read
    /// does, and the others listed, exit 2; a file of one app that cannot be read is named after
    /// the app, and the others are listed, exit 2).
    @Test(arguments: [
        ("encrypted", "Manifest.plist: BackupKeyBag: no ITER", ""),
        ("mbdb", "an iOS 9 or earlier backup (Manifest.mbdb) is not supported; ycft reads backups of iOS 10 and later (Manifest.db)", ""),
        ("no-manifest", "no Manifest.db: not an iPhone backup folder (the folder named after the device's UDID)", ""),
        ("fileid-dotdot", #"Manifest.db gives "Library/Preferences/com.example.notes.plist" of "AppDomain-com.example.notes" the fileID "#
            + #""../../../../../../../../../../etc/passwd", not 40 lowercase hex digits"#, "notes"),
        ("fileid-short", #"Manifest.db gives "Library/Preferences/com.example.notes.plist" of "AppDomain-com.example.notes" the fileID "#
            + #""3fec9de91317d194d5629328de2dbf76f86012b", not 40 lowercase hex digits"#, "notes"),
        ("fileid-upper", #"Manifest.db gives "Library/Preferences/com.example.notes.plist" of "AppDomain-com.example.notes" the fileID "#
            + #""3FEC9DE91317D194D5629328DE2DBF76F86012BA", not 40 lowercase hex digits"#, "notes"),
        ("fileid-number", #"Manifest.db gives "Library/Preferences/com.example.notes.plist" of "AppDomain-com.example.notes" the fileID "#
            + #""1234", not 40 lowercase hex digits"#, "notes"),
        ("missing-file", #"3f/3fec9de91317d194d5629328de2dbf76f86012ba ("Library/Preferences/com.example.notes.plist" of "#
            + #""AppDomain-com.example.notes"): No such file or directory"#,
         #"com.example.notes: 3f/3fec9de91317d194d5629328de2dbf76f86012ba ("Library/Preferences/com.example.notes.plist" of "#
            + #""AppDomain-com.example.notes"): No such file or directory"#),
        ("link-file", "3f/3fec9de91317d194d5629328de2dbf76f86012ba: a symbolic link, not a regular file",
         "com.example.notes: 3f/3fec9de91317d194d5629328de2dbf76f86012ba: a symbolic link, not a regular file"),
        ("no-files-table", "Manifest.db: no such table: Files (SQLite error 1)", ""),
        ("wrong-schema", "Manifest.db: no such column: relativePath (SQLite error 1)", ""),
        ("not-a-database", "Manifest.db: file is not a database (SQLite error 26)", ""),
        // The same judge for a read and for the list: two rows, or a row that is no file.
        ("twice", #"Manifest.db lists "Library/Preferences/com.example.notes.plist" of "AppDomain-com.example.notes" more than once"#,
         "notes"),
        ("directory", #"Manifest.db lists "Library/Preferences/com.example.notes.plist" of "AppDomain-com.example.notes" as flags 2, "#
            + "not a file", "notes"),
        ("huge-row", nil, "Manifest.db: string or blob too big (SQLite error 18)"),
        ("wal-log", "Manifest.db-wal (20632 bytes) beside Manifest.db may hold changes the database does not have yet, and ycft reads "
            + #"no write-ahead log; fold it in on a copy of the backup ('sqlite3 COPY/Manifest.db "PRAGMA wal_checkpoint(TRUNCATE)"') "#
            + "and read the copy", ""),
        // A log or journal behind a link is never ignored: ycft cannot tell what it holds.
        ("wal-link", "Manifest.db-wal beside Manifest.db is a symbolic link, not a regular file: ycft follows no link in a backup "
            + "and cannot tell whether it holds changes Manifest.db does not have; on a copy of the backup, put the file itself in "
            + "its place (or remove it if it is no log) and read the copy", ""),
        // A transaction cut short: some of its pages are in Manifest.db, the journal holds them as they were.
        ("journal", "Manifest.db-journal (13832 bytes) beside Manifest.db is the journal of a transaction that did not finish: "
            + "Manifest.db may hold changes that were never committed, and ycft rolls no journal back; roll it back on a copy of "
            + #"the backup (sqlite3 does when it opens the database: 'sqlite3 COPY/Manifest.db "PRAGMA quick_check"') and read the copy"#,
         ""),
        ("journal-link", "Manifest.db-journal beside Manifest.db is a symbolic link, not a regular file: ycft follows no link in a "
            + "backup and cannot tell whether it holds changes Manifest.db does not have; on a copy of the backup, put the file "
            + "itself in its place (or remove it if it is no journal) and read the copy", ""),
        // An app id from Manifest.db is escaped where it names the app, as in the quotes: no
        // line of its own, no control sequence.
        ("hostile-id", nil, #"com.example.evil\nycft: all clear\u{1B}[2J: b3/b3af861be3522c9292e965d2f407d8ca65c41245 ("#
            + #""Library/Preferences/com.example.evil\nycft: all clear\u{1B}[2J.plist" of "#
            + #""AppDomain-com.example.evil\nycft: all clear\u{1B}[2J"): No such file or directory"#),
    ] as [(String, String?, String?)])
    func spoiltBackupsAreOneClearLine(_ variant: String, _ reading: String?, _ listing: String?) throws {
        let backup = try Backups.make(variant)
        let before = try Backups.snapshot(backup)
        for command in [["dump"], ["status"], ["verify"]] {
            let result = try run(command + ["--backup", backup.path, "--app", "com.example.notes"])
            if let reading {
                #expect(result.status == 2, "\(variant) \(command)")
                #expect(result.stderr == "ycft: \(backup.path): \(reading)\n", "\(variant) \(command)")
                #expect(result.stdout.isEmpty)
            } else {
                #expect(result.status == 0, "\(variant) \(command): \(result.stderr)")
            }
        }
        let apps = try run(["backup", "apps", backup.path])
        let listed = listing.map { $0.isEmpty ? reading ?? "" : $0 == "notes" ? "com.example.notes: " + (reading ?? "") : $0 }
        if let listed {
            #expect(apps.status == 2, "\(variant)")
            #expect(apps.stderr == "ycft: \(backup.path): \(listed)\n", "\(variant)")
            // One app's rows hide no other app.
            if listing == "notes" {
                #expect(String(decoding: apps.stdout, as: UTF8.self).contains("app    com.example.game "), "\(variant)")
            }
        } else {
            #expect(apps.status == 0 && !String(decoding: apps.stdout, as: UTF8.self).contains("com.example.notes"), "\(variant)")
        }
        #expect(try Backups.snapshot(backup) == before, "\(variant)")
    }

    /// A `Manifest.db` last written in WAL mode (its header says so), with no log beside it (or
    /// an empty one), is the whole database: read as the same backup in rollback mode is.
    @Test func aDatabaseInWALModeWithoutItsLogReads() throws {
        let (wal, plain) = (try Backups.make("wal"), try Backups.make())
        let header = try readBytes(wal.appendingPathComponent("Manifest.db"))
        #expect(header[18] == 2 && header[19] == 2)
        let before = try Backups.snapshot(wal)
        let swap = { (text: String) in text.replacingOccurrences(of: wal.path, with: plain.path) }
        for command in [["backup", "apps", "--format", "json", wal.path], ["dump", "--backup", wal.path, "--app", "com.example.notes"]] {
            let read = try run(command)
            let direct = try run(command.map { $0 == wal.path ? plain.path : $0 })
            #expect(read.status == 0 && read.stderr.isEmpty, "\(command): \(read.stderr)")
            #expect(swap(read.stdoutText) == direct.stdoutText, "\(command)")
        }
        try writeBytes([], to: wal.appendingPathComponent("Manifest.db-wal"))
        let emptyLog = try run(["backup", "apps", wal.path])
        #expect(emptyLog.status == 0 && emptyLog.stderr.isEmpty, "\(emptyLog.stderr)")
        try FileManager.default.removeItem(at: wal.appendingPathComponent("Manifest.db-wal"))
        #expect(try Backups.snapshot(wal) == before)
    }

    /// A hot journal's advice works: a copy of the backup opened once by sqlite3 has its
    /// transaction rolled back, and reads as the backup did before it began. A journal whose
    /// header is zeroed (what `journal_mode=PERSIST` leaves after a commit) holds no
    /// transaction: the backup reads as it is, the journal left in place.
    @Test func aJournalIsRolledBackOnACopyAndAColdOneIsNone() throws {
        let (hot, cold, plain) = (try Backups.make("journal"), try Backups.make("journal-cold"), try Backups.make())
        let before = try Backups.snapshot(cold)
        #expect(try readBytes(cold.appendingPathComponent("Manifest.db-journal")).prefix(28).allSatisfy { $0 == 0 })
        let rolledBack = try runProcess(URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c",
            "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); print(c.execute('PRAGMA quick_check').fetchone()[0])",
            hot.appendingPathComponent("Manifest.db").path])
        #expect(rolledBack.stdoutText == "ok\n", "\(rolledBack.stderr)")
        #expect(!FileManager.default.fileExists(atPath: hot.appendingPathComponent("Manifest.db-journal").path))
        for backup in [hot, cold] {
            let swap = { (text: String) in text.replacingOccurrences(of: backup.path, with: plain.path) }
            for command in [["backup", "apps", "--format", "json", backup.path],
                            ["dump", "--backup", backup.path, "--app", "com.example.notes"]] {
                let read = try run(command)
                let direct = try run(command.map { $0 == backup.path ? plain.path : $0 })
                #expect(read.status == 0 && read.stderr.isEmpty, "\(command): \(read.stderr)")
                #expect(swap(read.stdoutText) == direct.stdoutText, "\(command)")
            }
        }
        #expect(try Backups.snapshot(cold) == before)
    }

    /// `--group` alone finds the app group's container by its id: every reading command prints
    /// what it prints with an `--app` of the backup beside it; a mistyped group is suggested.
    @Test func aGroupIsFoundByItsIDAlone() throws {
        let backup = try Backups.make()
        for command in [["dump"], ["status", "--now", "2025-02-01T00:00:00Z"], ["verify"]] {
            let alone = try run(command + ["--backup", backup.path, "--group", "group.com.example.shared"])
            let withApp = try run(command + ["--backup", backup.path, "--app", "com.example.notes", "--group", "group.com.example.shared"])
            #expect(alone.status == 0 && !(alone.stdout + Array(alone.stderr.utf8)).isEmpty, "\(command): \(alone.stderr)")
            #expect(alone.stdout == withApp.stdout && alone.stderr == withApp.stderr && alone.status == withApp.status, "\(command)")
        }
        let mistyped = try run(["dump", "--backup", backup.path, "--group", "group.com.example.shred"])
        #expect(mistyped.status == 2 && mistyped.stderr.hasSuffix("Did you mean '--group group.com.example.shared'?\n"), "\(mistyped.stderr)")
    }

    /// The folder of all backups (`MobileSync/Backup`) given for one: the backups inside are
    /// listed, with what each is, and how to pick one; other folders and files are passed over.
    @Test func aFolderOfBackupsListsThem() throws {
        let all = try TestPaths.temporaryDirectory().appendingPathComponent("MobileSync Backup")
        try FileManager.default.createDirectory(at: all, withIntermediateDirectories: true)
        try FileManager.default.moveItem(at: try Backups.make(), to: all.appendingPathComponent("00008030-001A2B3C4D5E802E"))
        try FileManager.default.moveItem(at: try Backups.make(password: Backups.password), to: all.appendingPathComponent("00008101-000A"))
        try FileManager.default.moveItem(at: try Backups.make("mbdb"), to: all.appendingPathComponent("0a1b2c"))
        try FileManager.default.createDirectory(at: all.appendingPathComponent("not-a-backup"), withIntermediateDirectories: true)
        try writeBytes(Array("x".utf8), to: all.appendingPathComponent(".DS_Store"))
        let message = "ycft: \(all.path): no Manifest.db: not a backup but a folder holding 3 device backups; give one of them as BACKUP:\n"
            + "  \(all.path)/00008030-001A2B3C4D5E802E, \"Support iPhone\", iOS 17.5.1, made 2026-11-30T09:00:00.000000Z, not encrypted\n"
            + "  \(all.path)/00008101-000A, \"Support iPhone\", iOS 17.5.1, made 2026-11-30T09:00:00.000000Z, encrypted\n"
            + "  \(all.path)/0a1b2c, \"Support iPhone\", iOS 17.5.1, made 2026-11-30T09:00:00.000000Z, not encrypted, "
            + "iOS 9 or earlier, not supported\n"
        for command in [["backup", "apps", all.path], ["dump", "--backup", all.path, "--app", "com.example.notes"]] {
            let result = try run(command)
            #expect(result.status == 2 && result.stdout.isEmpty && result.stderr == message, "\(command): \(result.stderr)")
        }
        let empty = try run(["backup", "apps", all.appendingPathComponent("not-a-backup").path])
        #expect(empty.status == 2 && empty.stderr.hasSuffix(": no Manifest.db: not an iPhone backup folder (the folder named after the device's UDID)\n"))
    }

    /// A symbolic link in the folder of backups to a backup folder elsewhere (one moved to
    /// another disk and linked back) is a device backup: listed by its link's path, which opens
    /// it as BACKUP. A link to anything else (a file, nothing) is passed over as other entries
    /// are. Before, a linked backup was not listed: alone, the folder was "not an iPhone backup".
    @Test func aLinkedBackupInAFolderOfBackupsIsListed() throws {
        let all = try TestPaths.temporaryDirectory().appendingPathComponent("MobileSync Backup")
        try FileManager.default.createDirectory(at: all, withIntermediateDirectories: true)
        let linked = all.appendingPathComponent("00008101-000A")
        try FileManager.default.createSymbolicLink(at: linked, withDestinationURL: try Backups.make())
        try FileManager.default.createSymbolicLink(atPath: all.appendingPathComponent("dangling").path, withDestinationPath: "/nonexistent")
        try writeBytes(Array("x".utf8), to: all.appendingPathComponent(".DS_Store"))
        try FileManager.default.createSymbolicLink(atPath: all.appendingPathComponent("to-a-file").path, withDestinationPath: ".DS_Store")
        let line = "  \(linked.path), \"Support iPhone\", iOS 17.5.1, made 2026-11-30T09:00:00.000000Z, not encrypted\n"
        let alone = try run(["backup", "apps", all.path])
        #expect(alone.status == 2 && alone.stdout.isEmpty
                && alone.stderr == "ycft: \(all.path): no Manifest.db: not a backup but a folder holding a device backup; give it as BACKUP:\n"
                + line, "\(alone.stderr)")
        try FileManager.default.moveItem(at: try Backups.make(), to: all.appendingPathComponent("00008030-001A2B3C4D5E802E"))
        let both = try run(["dump", "--backup", all.path, "--app", "com.example.notes"])
        #expect(both.status == 2 && both.stderr == "ycft: \(all.path): no Manifest.db: not a backup but a folder holding 2 device backups; "
                + "give one of them as BACKUP:\n  \(all.path)/00008030-001A2B3C4D5E802E, \"Support iPhone\", iOS 17.5.1, "
                + "made 2026-11-30T09:00:00.000000Z, not encrypted\n" + line, "\(both.stderr)")
        let listed = try run(["backup", "apps", linked.path])
        #expect(listed.status == 0 && listed.stdoutText.contains("group  group.com.example.shared  defaults-archive  3\n"), "\(listed.stderr)")
    }

    /// A folder of more entries than ycft looks through for device backups
    /// (`PhoneBackup.maxFolderEntries`) says so, naming the limit; at the limit, its backups
    /// are listed. Before, the entries past the limit were not looked at, and the answer
    /// depended on the order the file system gave them in: a backup listed or not.
    @Test func aFolderOverTheEntryLimitSaysSo() throws {
        let all = try TestPaths.temporaryDirectory().appendingPathComponent("many")
        try FileManager.default.createDirectory(at: all, withIntermediateDirectories: true)
        try FileManager.default.moveItem(at: try Backups.make(), to: all.appendingPathComponent("00008030-001A2B3C4D5E802E"))
        for i in 1..<PhoneBackup.maxFolderEntries {
            #expect(FileManager.default.createFile(atPath: all.appendingPathComponent("f\(i)").path, contents: nil))
        }
        let atTheLimit = try run(["backup", "apps", all.path])
        #expect(atTheLimit.status == 2 && atTheLimit.stderr == "ycft: \(all.path): no Manifest.db: not a backup but a folder holding a device "
                + "backup; give it as BACKUP:\n  \(all.path)/00008030-001A2B3C4D5E802E, \"Support iPhone\", iOS 17.5.1, "
                + "made 2026-11-30T09:00:00.000000Z, not encrypted\n", "\(atTheLimit.stderr)")
        #expect(FileManager.default.createFile(atPath: all.appendingPathComponent("one-more").path, contents: nil))
        for command in [["backup", "apps", all.path], ["dump", "--backup", all.path, "--app", "com.example.notes"]] {
            let over = try run(command)
            #expect(over.status == 2 && over.stdout.isEmpty
                    && over.stderr == "ycft: \(all.path): no Manifest.db, and more than 10000 entries, more than ycft looks through for "
                    + "device backups: give one backup's folder (named after the device's UDID) as BACKUP\n", "\(command): \(over.stderr)")
        }
    }

    /// Two bundle ids that differ only in Unicode normalisation (`com.café.app` composed and
    /// decomposed) are two apps, as Manifest.db (SQLite's `=`) and the phone's file system tell
    /// them apart: `backup apps` lists both, written out so that the rows differ, and `dump
    /// --backup --app` reads each by its bytes. Before, `backup apps` took the two as one app
    /// "listed more than once" while `dump` read each.
    @Test func idsThatDifferOnlyInNormalisationAreTwoApps() throws {
        let (composed, decomposed) = ("com.caf\u{E9}.app", "com.cafe\u{301}.app")
        let backup = try Backups.make("unicode-twins")
        let apps = try run(["backup", "apps", backup.path])
        #expect(apps.status == 0 && apps.stderr.isEmpty, "\(apps.stderr)")
        #expect(apps.stdoutText == """
            Support iPhone, iOS 17.5.1
            KIND   ID                        FORM              RECORDS
            app    "com.cafe\\u{301}.app"     plain-records     2
            app    "com.caf\\u{E9}.app"       defaults-archive  3
            app    com.example.game          plain-records     2
            app    com.example.habits        interval-keys     2
            app    com.example.notes         defaults-archive  3
            app    com.example.weather       defaults-archive  2
            group  group.com.example.shared  defaults-archive  3
            (ids in quotes look like another id but are other characters: written out beyond ASCII)

            """, "\(apps.stdoutText)")
        let json = try run(["backup", "apps", "--format", "json", "--compact", backup.path])
        let ids = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout)) as? [String: Any])["apps"] as? [[String: Any]]
        #expect(ids?.prefix(2).compactMap { ($0["id"] as? String).map { Array($0.utf8) } } == [Array(decomposed.utf8), Array(composed.utf8)])
        // Each id reads its own app's preferences, as the list says.
        let notes = try run(["dump", "--compact", "--backup", backup.path, "--app", "com.example.notes"])
        let game = try run(["dump", "--compact", "--backup", backup.path, "--app", "com.example.game"])
        let first = try run(["dump", "--compact", "--backup", backup.path, "--app", composed])
        let second = try run(["dump", "--compact", "--backup", backup.path, "--app", decomposed])
        #expect(first.status == 0 && first.stdout == notes.stdout && first.stderr.isEmpty, "\(first.stderr)")
        #expect(second.status == 0 && second.stdout == game.stdout && second.stderr.isEmpty, "\(second.stderr)")
        // Typed in the other form, an id is not the app: the message says what the backup has.
        let one = try Backups.make("unicode-nfd")
        let other = try run(["dump", "--backup", one.path, "--app", composed])
        #expect(other.status == 2 && other.stderr == "ycft: \(one.path): Manifest.db lists no \"Library/Preferences/\(composed).plist\" of "
                + "\"AppDomain-\(composed)\" (no file of \"AppDomain-\(composed)\" at all; 'ycft backup apps' lists the apps with state). "
                + "The backup has \"com.cafe\\u{301}.app\", which looks the same but is other characters (this is \"com.caf\\u{E9}.app\"): "
                + "ids are matched byte for byte, as on the phone\n", "\(other.stderr)")
    }

    /// A folder name with the characters a `file:` URI gives meaning to (`?`, `#`, `%`, a
    /// space) is still the folder: Manifest.db is found, and no parameter is added.
    @Test func folderNamesAreNotURIs() throws {
        let made = try Backups.make()
        let odd = made.deletingLastPathComponent().appendingPathComponent("a?mode=rwc&x=1#b %41")
        try FileManager.default.moveItem(at: made, to: odd)
        let before = try Backups.snapshot(odd)
        let dump = try run(["dump", "--backup", odd.path, "--app", "com.example.game"])
        #expect(dump.status == 0 && dump.stderr.isEmpty, "\(dump.stderr)")
        #expect(try Backups.snapshot(odd) == before)
    }

    /// Preferences that are not a property list: `backup apps` names them on standard error,
    /// lists the others and exits 1; a read through `--backup` says what it says of the file.
    @Test func unreadablePreferencesAreNamed() throws {
        let backup = try Backups.make("not-a-plist")
        let file = backup.appendingPathComponent("73/730a1b13433b87945f516afd876733b4ec1a92ca").path
        let apps = try run(["backup", "apps", backup.path])
        #expect(apps.status == 1)
        #expect(apps.stderr == "ycft: \(file): com.example.weather: not a property list (neither binary 'bplist00' nor XML)\n")
        let listed = String(decoding: apps.stdout, as: UTF8.self)
        #expect(listed.contains("com.example.notes") && !listed.contains("com.example.weather"))
        let dump = try run(["dump", "--backup", backup.path, "--app", "com.example.weather"])
        #expect(dump.status == 1 && dump.stderr == "ycft: \(file): not a property list (neither binary 'bplist00' nor XML)\n")
    }

    /// A preferences file missing from the folder (a backup cut short) is named on its own line;
    /// the other apps are still listed.
    @Test func aMissingFileHidesNoOtherApp() throws {
        let backup = try Backups.make()
        let weather = Self.preferences[1]
        try FileManager.default.removeItem(atPath: weather.path(in: backup))
        let apps = try run(["backup", "apps", backup.path])
        #expect(apps.status == 2)
        #expect(apps.stderr.hasPrefix("ycft: \(backup.path): com.example.weather: "), "\(apps.stderr)")
        let listed = String(decoding: apps.stdout, as: UTF8.self)
        #expect(listed.contains("com.example.notes") && !listed.contains("com.example.weather"))
    }

    /// A backup Finder did not finish is read, with a warning (its Manifest.db may lack files).
    @Test func anUnfinishedBackupIsReadWithAWarning() throws {
        let backup = try Backups.make("unfinished")
        let warning = "ycft: \(backup.path): warning: the backup did not finish (Status.plist's SnapshotState is \"uploading\"); "
            + "Manifest.db may not list every file\n"
        let dump = try run(["dump", "--backup", backup.path, "--app", "com.example.notes"])
        #expect(dump.status == 0 && dump.stderr == warning && !dump.stdout.isEmpty, "\(dump.stderr)")
        let apps = try run(["backup", "apps", backup.path])
        #expect(apps.status == 0 && apps.stderr == warning)
    }

    @Test func appsAndGroupsNotThereAreNamed() throws {
        let backup = try Backups.make()
        let cases: [([String], String)] = [
            (["--app", "com.example.nothere"], #"Manifest.db lists no "Library/Preferences/com.example.nothere.plist" of "#
                + #""AppDomain-com.example.nothere" (no file of "AppDomain-com.example.nothere" at all; 'ycft backup apps' lists the apps with state)"#),
            (["--app", "com.example.nothere", "--group", "group.com.example.shared"],
             #"Manifest.db lists no file of "AppDomain-com.example.nothere": the app is not in this backup"#),
            (["--app", "com.example.notes", "--group", "group.nothere"], #"Manifest.db lists no "Library/Preferences/group.nothere.plist" of "#
                + #""AppDomainGroup-group.nothere" (no file of "AppDomainGroup-group.nothere" at all; 'ycft backup apps' lists the apps with state)"#),
        ]
        for (selection, said) in cases {
            let result = try run(["dump", "--backup", backup.path] + selection)
            #expect(result.status == 2 && result.stderr == "ycft: \(backup.path): \(said)\n", "\(selection): \(result.stderr)")
        }
        // A typo away from an id the backup holds (two edits at most): that id, as the option to give.
        let typos: [([String], String)] = [
            (["dump", "--app", "com.example.note"], "com.example.note\" at all; 'ycft backup apps' lists the apps with state). "
                + "Did you mean '--app com.example.notes'?"),
            (["status", "--app", "com.exmple.weathr"], "com.exmple.weathr\" at all; 'ycft backup apps' lists the apps with state). "
                + "Did you mean '--app com.example.weather'?"),
            (["dump", "--app", "com.example.notes", "--group", "group.com.example.shred"], "group.com.example.shred\" at all; "
                + "'ycft backup apps' lists the apps with state). Did you mean '--group group.com.example.shared'?"),
            (["verify", "--app", "com.example.nots", "--group", "group.com.example.shared"],
             "the app is not in this backup. Did you mean '--app com.example.notes'?"),
        ]
        for (command, ending) in typos {
            let result = try run([command[0], "--backup", backup.path] + command.dropFirst())
            #expect(result.status == 2 && result.stdout.isEmpty && result.stderr.hasPrefix("ycft: \(backup.path): Manifest.db lists no ")
                    && result.stderr.hasSuffix(ending + "\n") && result.stderr.split(separator: "\n").count == 1, "\(command): \(result.stderr)")
        }
        let out = try TestPaths.temporaryDirectory().appendingPathComponent("out.plist")
        let extract = try run(["backup", "extract", "--app", "com.example.gme", "-o", out.path, backup.path])
        #expect(extract.status == 2 && extract.stderr.hasSuffix(". Did you mean '--app com.example.game'?\n"), "\(extract.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out.path))
        let notThere = try run(["backup", "apps", backup.path + "/nothere"])
        #expect(notThere.status == 2 && notThere.stderr == "ycft: \(backup.path)/nothere: cannot read: No such file or directory\n")
        let small = try run(["dump", "--max-input-size", "100", "--backup", backup.path, "--app", "com.example.notes"])
        #expect(small.status == 2)
        #expect(small.stderr == "ycft: \(backup.path): Manifest.plist: input is larger than the limit of 100 bytes (raise it with --max-input-size)\n")
    }

    @Test func extractCopiesThePreferencesOutForTheEditingCommands() throws {
        let backup = try Backups.make()
        let before = try Backups.snapshot(backup)
        let out = try TestPaths.temporaryDirectory().appendingPathComponent("notes.plist")
        let extract = try run(["backup", "extract", backup.path, "--app", "com.example.notes", "-o", out.path])
        #expect(extract.status == 0 && extract.stderr.isEmpty && extract.stdout.isEmpty, "\(extract.stderr)")
        #expect(try readBytes(out) == readBytes(TestPaths.examples.appendingPathComponent("exported/com.example.notes.plist")))
        let set = try run(["set", "--last-version", "9.0", out.path, "onboarding.v1"])
        #expect(set.status == 0, "\(set.stderr)")
        #expect(String(decoding: try run(["dump", out.path]).stdout, as: UTF8.self).contains(#""lastVersion" : "9.0""#))
        // Over a copy holding other preferences (another app's): refused, the copy intact; with
        // --force, replaced. The same app's copy again, over the edited copy: refused too (the
        // edit is the user's work), until --force; over an unedited copy, nothing is lost.
        let notesCopy = try readBytes(out)
        let game = try run(["backup", "extract", backup.path, "--app", "com.example.game", "-o", out.path])
        #expect(game.status == 2 && game.stdout.isEmpty)
        #expect(game.stderr == "ycft: \(out.path): not replaced: it holds preferences the output would lose or change "
                + "(\"AppleLanguages\", \"LaunchCount\", \"SoundEnabled\", \"Theme\"); nothing was written. Use another FILE, or --force to replace it\n")
        #expect(try readBytes(out) == notesCopy)
        let again = try run(["backup", "extract", backup.path, "--app", "com.example.notes", "-o", out.path])
        #expect(again.status == 2 && again.stdout.isEmpty)
        #expect(again.stderr == "ycft: \(out.path): not replaced: it differs from the backup's file (edited since it was extracted?); "
                + "nothing was written. Use another FILE, or --force to replace it\n")
        #expect(try readBytes(out) == notesCopy)
        let overEdit = try run(["backup", "extract", backup.path, "--app", "com.example.notes", "--force", "-o", out.path])
        #expect(overEdit.status == 0 && overEdit.stderr.isEmpty, "\(overEdit.stderr)")
        let unchanged = try run(["backup", "extract", backup.path, "--app", "com.example.notes", "-o", out.path])
        #expect(unchanged.status == 0 && unchanged.stderr.isEmpty, "\(unchanged.stderr)")
        #expect(try readBytes(out) == readBytes(TestPaths.examples.appendingPathComponent("exported/com.example.notes.plist")))
        let forced = try run(["backup", "extract", backup.path, "--app", "com.example.game", "--force", "-o", out.path])
        #expect(forced.status == 0 && forced.stderr.isEmpty, "\(forced.stderr)")
        #expect(try readBytes(out) == run(["backup", "extract", backup.path, "--app", "com.example.game", "-o", "-"]).stdout)
        // The group's, to standard output, with the app or by the group's id alone.
        let group = try run(["backup", "extract", "--app", "com.example.notes", "--group", "group.com.example.shared", "-o", "-", backup.path])
        #expect(group.status == 0)
        #expect(group.stdout == (try readBytes(TestPaths.fixtures.appendingPathComponent("valid/defaults/export.xml.plist"))))
        let groupAlone = try run(["backup", "extract", "--group", "group.com.example.shared", "-o", "-", backup.path])
        #expect(groupAlone.status == 0 && groupAlone.stderr.isEmpty && groupAlone.stdout == group.stdout, "\(groupAlone.stderr)")
        // Never into the backup.
        let inside = backup.appendingPathComponent("3f/copy.plist").path
        let refused = try run(["backup", "extract", backup.path, "--app", "com.example.notes", "-o", inside])
        #expect(refused.status == 2)
        #expect(refused.stderr == "ycft: \(inside): cannot write: it is inside the iPhone backup \"\(backup.path)\", which ycft never writes into\n")
        // Nor does any command that writes, on a file of the backup (the paths ycft shows).
        let file = Self.preferences[0].path(in: backup)
        for arguments in [["set", "--last-version", "9", file, "onboarding.v1"], ["reset", file], ["migrate", "--in-place", file],
                          ["pack", "-o", backup.appendingPathComponent("new.plist").path,
                           TestPaths.fixtures.appendingPathComponent("valid/ycft/unicode-keys.json").path]] {
            let tried = try runProcess(ycft, arguments)
            #expect(tried.status == 2, "\(arguments)")
            #expect(tried.stderr.contains("it is inside the iPhone backup \"\(backup.path)\", which ycft never writes into"), "\(arguments): \(tried.stderr)")
        }
        #expect(try Backups.snapshot(backup) == before)
    }

    /// What an attacker found: an extract through a link into the backup, a two-digit folder or
    /// a fixed name that is a link or a pipe, a Files view that never ends, a device name with a
    /// line feed. Each is refused (or escaped) and the folder stays byte for byte.
    @Test func linksPipesAndViewsKeepTheBackupReadOnly() throws {
        let backup = try Backups.make()
        let before = try Backups.snapshot(backup)
        let notes = Self.preferences[0]
        let outside = backup.deletingLastPathComponent()
        // An output that is a link to a file of the backup.
        let link = outside.appendingPathComponent("into-backup").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: backup.appendingPathComponent("Manifest.db").path)
        let extract = try run(["backup", "extract", backup.path, "--app", notes.app, "-o", link])
        #expect(extract.status == 2, "\(extract.stderr)")
        #expect(try Backups.snapshot(backup) == before)
        // A two-digit folder that is a link to a folder outside.
        let moved = outside.appendingPathComponent("elsewhere")
        let two = backup.appendingPathComponent(String(notes.fileID.prefix(2)))
        try FileManager.default.moveItem(at: two, to: moved)
        try FileManager.default.createSymbolicLink(atPath: two.path, withDestinationPath: moved.path)
        let linked = try run(["dump", "--backup", backup.path, "--app", notes.app])
        #expect(linked.status == 2)
        #expect(linked.stderr.contains("symbolic link"), "\(linked.stderr)")
        try FileManager.default.removeItem(at: two)
        try FileManager.default.moveItem(at: moved, to: two)
        // Fixed names as pipes: refused at once, never opened.
        for name in ["Manifest.db", "Manifest.plist", "Info.plist"] {
            let spoilt = try Backups.make()
            let file = spoilt.appendingPathComponent(name)
            try FileManager.default.removeItem(at: file)
            #expect(mkfifo(file.path, 0o600) == 0)
            let piped = try run(["backup", "apps", spoilt.path])
            #expect(piped.status == 2)
            #expect(piped.stderr.hasPrefix("ycft: \(spoilt.path): \(name): "), "\(piped.stderr)")
        }
        // Files as a view (a recursive one would never end).
        let viewed = try Backups.make()
        let sql = "ALTER TABLE Files RENAME TO F; CREATE VIEW Files AS SELECT * FROM F;"
        let altered = try runProcess(URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c",
            "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.executescript(sys.argv[2]); c.commit()",
            viewed.appendingPathComponent("Manifest.db").path, sql])
        #expect(altered.status == 0, "\(altered.stderr)")
        let view = try run(["backup", "apps", viewed.path])
        #expect(view.status == 2)
        #expect(view.stderr == "ycft: \(viewed.path): Manifest.db: Files is a view, not a table (SQLite error 1)\n")
        // The same view spelled FILES: SQLite's names are case-insensitive, so `FROM Files` reads it.
        let shouted = try Backups.make()
        let renamed = try runProcess(URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c",
            "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.executescript(sys.argv[2]); c.commit()",
            shouted.appendingPathComponent("Manifest.db").path, "ALTER TABLE Files RENAME TO F; CREATE VIEW FILES AS SELECT * FROM F;"])
        #expect(renamed.status == 0, "\(renamed.stderr)")
        let upper = try run(["dump", "--backup", shouted.path, "--app", notes.app])
        #expect(upper.status == 2)
        #expect(upper.stderr == "ycft: \(shouted.path): Manifest.db: Files is a view, not a table (SQLite error 1)\n")
        // A table whose column is computed on every read (minutes and gigabytes a row).
        let computed = try Backups.make()
        let generatedColumn = try runProcess(URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c",
            "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.executescript(sys.argv[2]); c.commit()",
            computed.appendingPathComponent("Manifest.db").path,
            "ALTER TABLE Files RENAME TO F; CREATE TABLE Files (fileID TEXT, domain TEXT, relativePath TEXT, "
                + "flags INTEGER GENERATED ALWAYS AS (length(hex(zeroblob(10))) - 19) VIRTUAL, file BLOB); "
                + "INSERT INTO Files (fileID, domain, relativePath, file) SELECT fileID, domain, relativePath, file FROM F; DROP TABLE F;"])
        #expect(generatedColumn.status == 0, "\(generatedColumn.stderr)")
        let generated = try run(["backup", "apps", computed.path])
        #expect(generated.status == 2)
        #expect(generated.stderr == "ycft: \(computed.path): Manifest.db: Files' column \"flags\" is generated or hidden, not a stored value (SQLite error 1)\n")
        #expect(try Backups.snapshot(backup) == before)
    }

    @Test(arguments: [
        (["dump", "--app", "x", "a.plist"], "'--app' goes with '--backup'"),
        (["status", "--group", "g", "a.plist"], "'--group' goes with '--backup'"),
        (["verify", "--backup", "B"], "'--backup' needs '--app <bundle_id>' (the app whose preferences to read) or '--group <group_id>' (an app group's)"),
        (["dump", "--backup", "B", "--app", "x", "a.plist"],
         "Unexpected argument 'a.plist' (with '--backup', the app's preferences in the backup are read)"),
        (["backup", "apps"], "Missing expected argument 'BACKUP'"),
        (["backup", "list", "B"], "The value 'list' is invalid for '<apps|extract>': expected 'apps' or 'extract', then BACKUP"),
        (["backup", "extrct", "B"], "The value 'extrct' is invalid for '<apps|extract>': expected 'apps' or 'extract'. Did you mean 'extract'?"),
        // The action left out: the backup is taken for it, and the message says what comes first.
        (["backup", "Backup"], "The value 'Backup' is invalid for '<apps|extract>': expected 'apps' or 'extract', then BACKUP"),
        (["backup", "--app", "x", "/tmp/Backup"],
         "The value '/tmp/Backup' is invalid for '<apps|extract>': expected 'apps' or 'extract', then BACKUP"),
        (["backup", "apps", "--app", "x", "B"], "'--app' goes with 'extract'"),
        (["backup", "apps", "-o", "x", "B"], "'--output' goes with 'extract'"),
        (["backup", "extract", "--format", "json", "--app", "x", "-o", "y", "B"], "'--format' goes with 'apps'"),
        (["backup", "extract", "-o", "y", "B"], "'extract' needs '--app <bundle_id>' (the app whose preferences to copy) or '--group <group_id>' (an app group's)"),
        (["backup", "extract", "--app", "x", "B"], "'extract' needs '-o <file|->', where to copy the preferences"),
        (["dump", "--backup", "B", "--app", ""], "The value for '--app <bundle_id>' is empty: give the app's bundle id"),
        (["status", "--backup", "B", "--app", "x", "--group", ""], "The value for '--group <group_id>' is empty: give the app group's id"),
        (["backup", "extract", "--app", "", "-o", "y", "B"], "The value for '--app <bundle_id>' is empty: give the app's bundle id"),
    ])
    func usageMistakes(_ arguments: [String], _ said: String) {
        let fake = FakeIO()
        #expect(fake.run(arguments) == 2)
        #expect(fake.stderr.hasPrefix("Error: \(said)\nUsage: ycft \(arguments[0]) "), "\(fake.stderr)")
    }

    /// A backup met in a directory walk is passed over with a warning, as `verify`'s and
    /// `migrate`'s walks pass over a `.git`: its Info.plist, Manifest.plist and Status.plist are
    /// no state (before, `verify .` failed each as state-missing). The files beside it are read.
    @Test func aBackupInAWalkIsPassedOverAndSaid() throws {
        let backup = try Backups.make()
        let folder = backup.deletingLastPathComponent()
        try FileManager.default.copyItem(atPath: TestPaths.packageRoot.appendingPathComponent("Examples/exported/com.example.notes.plist").path,
                                         toPath: folder.appendingPathComponent("state.plist").path)
        let before = try Backups.snapshot(backup)
        let said = "ycft: \(backup.path): warning: passed over: an iPhone backup, whose files have hashed names: "
            + "'ycft backup apps \(backup.path)' lists the apps with state, '--backup \(backup.path) --app ID' reads one, "
            + "'ycft backup extract' copies one out\n"
        let verified = try run(["verify", folder.path])
        #expect(verified.status == 0)
        #expect(verified.stderr == said + "ycft verify: 1 file: 1 passed, 0 failed, 0 unreadable (0 errors, 0 warnings)\n")
        let out = try TestPaths.temporaryDirectory().appendingPathComponent("out")
        let migrated = try run(["migrate", "-q", "-o", out.path, folder.path])
        #expect(migrated.status == 0, "\(migrated.stderr)")
        #expect(migrated.stderr == said)
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path) == ["state.plist"])
        #expect(try Backups.snapshot(backup) == before)
    }

    /// What marks a backup folder is one answer for every command: a link named `Manifest.db`,
    /// even to nothing, marks it for what `dump` says of the folder given as its input as it does
    /// for the writer's refusal (before, `dump` followed the link and said nothing of a backup).
    @Test func aFolderMarkedByALinkIsABackupToEveryCommand() throws {
        let folder = try TestPaths.temporaryDirectory().appendingPathComponent("B")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(atPath: folder.appendingPathComponent("Manifest.db").path, withDestinationPath: "nowhere")
        let dumped = try run(["dump", folder.path])
        #expect(dumped.status == 2)
        #expect(dumped.stderr == "ycft: \(folder.path): cannot read: Is a directory: an iPhone backup, whose files have hashed names: "
            + "'ycft backup apps \(folder.path)' lists the apps with state, '--backup \(folder.path) --app ID' reads one, "
            + "'ycft backup extract' copies one out\n")
        let packed = try run(["pack", TestPaths.fixtures.appendingPathComponent("valid/ycft/unicode-keys.json").path, "-o", folder.path + "/x.plist"])
        #expect(packed.status == 2)
        #expect(packed.stderr == "ycft: \(folder.path)/x.plist: cannot write: it is inside the iPhone backup \"\(folder.path)\", which ycft never writes into "
            + "(copy the file out with 'ycft backup extract' and work on the copy)\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["Manifest.db"])
    }

    /// `Manifest.db` keeps a domain's bytes as the phone's disk has them, UTF-8 or not: two ids
    /// that differ in a byte that is not UTF-8 are two apps, each shown with that byte as `\xNN`,
    /// each read with `--app` given those bytes (as a shell's `$'\xff'` gives them).
    @Test func idsThatAreNotUTF8StayTwoAndCanBeRead() throws {
        let backup = try Backups.make()
        let renamed = try runProcess(URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", """
            import sqlite3,sys
            c = sqlite3.connect(sys.argv[1])
            for old, byte in (("com.example.weather", "FF"), ("com.example.habits", "FE")):
                new = "636F6D2E6578616D706C652E77" + byte  # com.example.w + the byte
                hexed = lambda text: text.encode().hex()
                c.execute("UPDATE Files SET domain = CAST(X'%s%s' AS TEXT), relativePath = CAST(X'%s%s%s' AS TEXT) "
                          "WHERE domain = ? AND flags = 1" % (hexed("AppDomain-"), new, hexed("Library/Preferences/"), new, hexed(".plist")),
                          ("AppDomain-" + old,))
            c.commit()
            """, backup.appendingPathComponent("Manifest.db").path])
        #expect(renamed.status == 0, "\(renamed.stderr)")
        let listed = try run(["backup", "apps", backup.path])
        #expect(listed.status == 0 && listed.stderr.isEmpty, "\(listed.stderr)")
        #expect(listed.stdoutText.components(separatedBy: "\n").filter { $0.hasPrefix("app ") } == [
            "app    com.example.game          plain-records     2",
            "app    com.example.notes         defaults-archive  3",
            #"app    com.example.w\xfe         interval-keys     2"#,
            #"app    com.example.w\xff         defaults-archive  2"#,
        ])
        let json = try run(["backup", "apps", "--format", "json", backup.path])
        #expect(json.stdoutText.contains(#""id" : "com.example.w\\xff""#), "\(json.stdoutText)")
        #expect(json.stdoutText.contains(#""domain" : "AppDomain-com.example.w\\xfe""#))
        let plain = try Backups.make()
        for (byte, app) in [(0xFF as UInt8, "com.example.weather"), (0xFE, "com.example.habits")] {
            let read = try runSpawned(ycft, ["dump", "--backup", backup.path, "--app", rawPath(Array("com.example.w".utf8) + [byte])])
            let expected = try run(["dump", "--backup", plain.path, "--app", app])
            #expect(read.status == 0 && read.stderr.isEmpty, "\(read.stderr)")
            #expect(read.stdout == expected.stdout && !read.stdout.isEmpty)
        }
        // An id with another byte is not in the backup; the message shows the bytes as given.
        let missing = try runSpawned(ycft, ["dump", "--backup", backup.path, "--app", rawPath(Array("com.example.w".utf8) + [0xFD])])
        #expect(missing.status == 2)
        #expect(missing.stderr.hasPrefix(#"ycft: \#(backup.path): Manifest.db lists no "Library/Preferences/com.example.w\xfd.plist" of "#
                                         + #""AppDomain-com.example.w\xfd" (no file of "AppDomain-com.example.w\xfd" at all; "#),
                "\(missing.stderr)")
    }
}

/// What a backup folder holds may change while ycft reads it (it is evidence someone else may
/// hold): a file looked at and then swapped for a link or a pipe is refused at the read itself,
/// never followed out of the folder or waited on.
@Suite struct BackupReadsStayInTheFolder {
    @Test func aFileSwappedAfterTheLookIsNotFollowed() throws {
        let backup = try Backups.make()
        let notes = BackupThroughTheTool.preferences[0]
        let opened = try PhoneBackup(backup.path)
        let preferences = try opened.preferences(of: .app(notes.app))
        let original = try Data(contentsOf: URL(fileURLWithPath: notes.path(in: backup)))
        #expect(try opened.contents(of: preferences, limit: 1 << 20)?.bytes == Array(original))
        // After the look: the file becomes a link to a property list outside the backup.
        let outside = backup.deletingLastPathComponent().appendingPathComponent("outside.plist")
        try Data(#"<plist version="1.0"><dict><key>leaked</key><true/></dict></plist>"#.utf8).write(to: outside)
        let file = notes.path(in: backup)
        try FileManager.default.removeItem(atPath: file)
        try FileManager.default.createSymbolicLink(atPath: file, withDestinationPath: outside.path)
        #expect(throws: BackupError.notRegularFile(fileID: notes.fileID, .symbolicLink)) { try opened.contents(of: preferences, limit: 1 << 20) }
        // A pipe: refused at once (not opened for a writer that never comes).
        try FileManager.default.removeItem(atPath: file)
        #expect(mkfifo(file, 0o600) == 0)
        #expect(throws: BackupError.notRegularFile(fileID: notes.fileID, .fifo)) { try opened.contents(of: preferences, limit: 1 << 20) }
        // The two-digit folder swapped for a link to a folder outside holding the same name.
        try FileManager.default.removeItem(atPath: file)
        let two = backup.appendingPathComponent(String(notes.fileID.prefix(2)))
        let elsewhere = backup.deletingLastPathComponent().appendingPathComponent("elsewhere")
        try FileManager.default.moveItem(at: two, to: elsewhere)
        try FileManager.default.copyItem(at: outside, to: elsewhere.appendingPathComponent(notes.fileID))
        try FileManager.default.createSymbolicLink(atPath: two.path, withDestinationPath: elsewhere.path)
        #expect(throws: BackupError.notRegularFile(fileID: notes.fileID, .symbolicLink)) { try opened.contents(of: preferences, limit: 1 << 20) }
    }

    /// `backup extract -o` into a bind mount of the backup (the same folder under another path)
    /// is refused: the folders above the output are compared with the backup by device and inode.
    @Test func anOutputInABindMountOfTheBackupIsRefused() throws {
        guard (try? runProcess(URL(fileURLWithPath: "/usr/bin/unshare"), ["-m", "true"]))?.status == 0 else {
            // No mount namespace here (not root, or no unshare): nothing to bind.
            return
        }
        let backup = try Backups.make()
        let before = try Backups.snapshot(backup)
        let mountPoint = backup.deletingLastPathComponent().appendingPathComponent("bound")
        try FileManager.default.createDirectory(at: mountPoint, withIntermediateDirectories: false)
        let ycft = TestPaths.executable("ycft").path
        let script = #"mount --bind "$1" "$2" && exec "$3" backup extract "$4" --app com.example.notes -o "$2/copy.plist""#
        let result = try runProcess(URL(fileURLWithPath: "/usr/bin/unshare"),
                                    ["-m", "sh", "-c", script, "sh", backup.path, mountPoint.path, ycft, backup.path])
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr == "ycft: \(mountPoint.path)/copy.plist: cannot write: it is inside the iPhone backup \"\(mountPoint.path)\", which ycft never writes into\n")
        // A bind mount of one of its two-digit folders (no Manifest.db of its own there).
        let sub = try runProcess(URL(fileURLWithPath: "/usr/bin/unshare"),
                                 ["-m", "sh", "-c", script, "sh", backup.appendingPathComponent("3f").path, mountPoint.path, ycft, backup.path])
        #expect(sub.status == 2, "\(sub.stderr)")
        #expect(sub.stderr.hasSuffix("copy.plist: cannot write: it is inside the iPhone backup \"\(backup.path)\", which ycft never writes into\n"),
                "\(sub.stderr)")
        #expect(try Backups.snapshot(backup) == before)
    }
}

/// Every command that writes refuses a path inside any iPhone backup folder, not only one of
/// iOS 10 and later (the rule is the writer's, `BackupFolderGuard`): exit 2, the one line, and
/// not a byte of the folder changed; a folder with only an Info.plist (an Xcode project's) is
/// written into as any other.
@Suite struct WritesStayOutOfEveryBackup {
    let ycft = TestPaths.executable("ycft")

    /// An iOS 9 backup (`Manifest.mbdb`), and one with only `Manifest.plist` and `Status.plist`
    /// (a backup being written: no manifest database yet).
    @Test(arguments: ["mbdb", "plists-only"])
    func everyWriteIsRefused(_ kind: String) throws {
        let backup = try Backups.make(kind == "mbdb" ? "mbdb" : "no-manifest")
        if kind == "plists-only" { try FileManager.default.removeItem(at: backup.appendingPathComponent("Info.plist")) }
        let before = try Backups.snapshot(backup)
        let readable = try Backups.make()
        let file = BackupThroughTheTool.preferences[0].path(in: backup)
        let input = try TestPaths.temporaryDirectory().appendingPathComponent("in.plist")
        try FileManager.default.copyItem(at: TestPaths.packageRoot.appendingPathComponent("Examples/exported/com.example.notes.plist"),
                                         to: input)
        let json = TestPaths.fixtures.appendingPathComponent("valid/ycft/unicode-keys.json").path
        func refusal(_ path: String, _ operation: String = "cannot write", hint: Bool = true) -> String {
            "ycft: \(path): \(operation): it is inside the iPhone backup \"\(backup.path)\", which ycft never writes into"
                + (hint ? " (copy the file out with 'ycft backup extract' and work on the copy)" : "") + "\n"
        }
        let failed = "ycft migrate: 1 file: 0 migrated, 0 unchanged, 0 skipped, 1 failed\n"
        // migrate -o mirrors an absolute input's folders below OUT: the first folder it would make is refused.
        let mirrored = input.deletingLastPathComponent().path
        let cases: [([String], String)] = [
            (["set", "--last-version", "9", file, "onboarding.v1"], refusal(file)),
            (["edit", file], refusal(file)),
            (["migrate", "--in-place", file], refusal(file, "cannot back up") + failed),
            (["migrate", "--in-place", "--no-backup", file], refusal(file) + failed),
            (["migrate", "-o", backup.path, input.path], refusal(backup.path + mirrored) + failed),
            (["migrate", "-o", backup.path + "/new", input.path], refusal(backup.path + "/new") + failed),
            (["migrate", "-o", backup.path + "/new/", input.path], refusal(backup.path + "/new" + mirrored) + failed),
            (["pack", "-o", backup.path + "/new.plist", json], refusal(backup.path + "/new.plist")),
            // The report, refused before any work.
            (["migrate", "--dry-run", "--report", backup.path + "/report.json", input.path],
             "ycft: --report \(backup.path)/report.json: cannot write: it is inside the iPhone backup \"\(backup.path)\", "
                + "which ycft never writes into; nothing was migrated\n"),
            (["backup", "extract", readable.path, "--app", "com.example.notes", "-o", backup.path + "/copy.plist"],
             refusal(backup.path + "/copy.plist", hint: false)),
        ]
        // An editor that would change the file, were it opened.
        let environment = ProcessInfo.processInfo.environment.merging(["EDITOR": "sh -c 'echo >> \"$1\"' sh", "VISUAL": ""]) { $1 }
        for (arguments, said) in cases {
            let result = try runProcess(ycft, arguments, environment: environment)
            #expect(result.status == 2, "\(kind) \(arguments)")
            #expect(result.stderr == said, "\(kind) \(arguments)")
            #expect(result.stdout.isEmpty, "\(kind) \(arguments)")
        }
        #expect(try Backups.snapshot(backup) == before)
    }

    @Test func aFolderWithAnInfoPlistIsNoBackup() throws {
        let project = try TestPaths.temporaryDirectory().appendingPathComponent("App")
        try FileManager.default.createDirectory(at: project, withIntermediateDirectories: false)
        try Data(#"<plist version="1.0"><dict><key>CFBundleIdentifier</key><string>com.example.app</string></dict></plist>"#.utf8)
            .write(to: project.appendingPathComponent("Info.plist"))
        let packed = project.appendingPathComponent("packed.plist")
        let pack = try runProcess(ycft, ["pack", "-o", packed.path, TestPaths.fixtures.appendingPathComponent("valid/ycft/unicode-keys.json").path])
        #expect(pack.status == 0 && pack.stderr.isEmpty, "\(pack.stderr)")
        #expect(FileManager.default.fileExists(atPath: packed.path))
        let out = project.appendingPathComponent("state.plist")
        try FileManager.default.copyItem(at: TestPaths.packageRoot.appendingPathComponent("Examples/exported/com.example.notes.plist"), to: out)
        let set = try runProcess(ycft, ["set", "--last-version", "2.0", out.path, "onboarding.v1"])
        #expect(set.status == 0 && set.stderr.isEmpty, "\(set.stderr)")
        #expect(String(decoding: try runProcess(ycft, ["dump", out.path]).stdout, as: UTF8.self).contains(#""lastVersion" : "2.0""#))
    }
}
