import Foundation
import Testing
import KeyedArchive
import Plist
import PlistCore
@testable import PhoneBackup
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Backups spoilt in ways `make-backup.py`'s variants do not spoil them, read in this process:
/// each is refused with its exact error, or read as it should be.
@Suite struct PhoneBackupCoverage {
    static let notes = PhoneBackup.Container.app("com.example.notes")

    /// Runs Python on `backup` (its path in `sys.argv[1]`), with `sqlite3` and `plistlib` imported.
    func python(_ code: String, _ backup: URL) throws {
        let result = try runProcess(URL(fileURLWithPath: "/usr/bin/env"),
                                    ["python3", "-c", "import plistlib, sqlite3, sys, os\nb = sys.argv[1]\n" + code, backup.path])
        #expect(result.status == 0, "\(result.stderr)")
    }

    func message(_ body: () throws -> Void) -> String? {
        do { try body() } catch { return "\(error)" }
        return nil
    }

    @Test func aFolderNameWithTrailingSlashesAndAFileThatIsNoFolder() throws {
        let backup = try Backups.make()
        #expect(try PhoneBackup(backup.path + "///").folder == backup.path)
        #expect(message { _ = try PhoneBackup(backup.path + "/Manifest.db") } == "not a folder (a backup is the folder holding Manifest.db)")
        #expect(message { _ = try PhoneBackup(folder: backup.path + "/Manifest.db", manifestDatabase: []) }
                == "not a folder (a backup is the folder holding Manifest.db)")
    }

    /// The fuzz harness's way in: a database given as bytes, files read from the folder.
    @Test func aDatabaseGivenAsBytes() throws {
        let backup = try Backups.make()
        let opened = try PhoneBackup(folder: backup.path, manifestDatabase: readBytes(backup.appendingPathComponent("Manifest.db")))
        #expect(try opened.preferences(of: Self.notes).fileID == "3fec9de91317d194d5629328de2dbf76f86012ba")
        #expect(message { _ = try PhoneBackup(folder: backup.path, manifestDatabase: Array("no database".utf8)) }
                == "Manifest.db: file is not a database (SQLite error 26)")
    }

    @Test func aManifestDatabaseOverTheLimitIsNotRead() throws {
        let backup = try Backups.make()
        #expect(truncate(backup.appendingPathComponent("Manifest.db").path, off_t(PhoneBackup.maxManifestSize + 1)) == 0)
        #expect(message { _ = try PhoneBackup(backup.path) } == "Manifest.db: input is larger than the limit of 536870912 bytes")
    }

    @Test(arguments: [
        ("m['IsEncrypted'] = 'yes'", #"Manifest.plist: "IsEncrypted" has the wrong type"#),
        ("m['IsEncrypted'] = True; m.pop('BackupKeyBag', None)", #"Manifest.plist: "BackupKeyBag" has the wrong type"#),
    ])
    func manifestPlistEntriesOfTheWrongType(_ change: String, _ expected: String) throws {
        let backup = try Backups.make()
        try python("p = b + '/Manifest.plist'\nm = plistlib.load(open(p, 'rb'))\n\(change)\nplistlib.dump(m, open(p, 'wb'))", backup)
        #expect(message { _ = try PhoneBackup(backup.path) } == expected)
    }

    @Test func anEncryptedBackupWithoutItsManifestKey() throws {
        let backup = try Backups.make(password: Backups.password)
        try python("p = b + '/Manifest.plist'\nm = plistlib.load(open(p, 'rb'))\ndel m['ManifestKey']\nplistlib.dump(m, open(p, 'wb'))", backup)
        #expect(message { _ = try PhoneBackup(backup.path) } == #"Manifest.plist: "ManifestKey" has the wrong type"#)
    }

    /// `Info.plist` may be missing; when it is there, it must be a property list holding a dictionary.
    @Test func infoPlistMissingUnreadableOrNoDictionary() throws {
        let backup = try Backups.make()
        let info = backup.appendingPathComponent("Info.plist")
        let original = try readBytes(info)
        try FileManager.default.removeItem(at: info)
        let opened = try PhoneBackup(backup.path)
        #expect(opened.deviceName == nil && opened.productVersion == nil)
        try writeBytes(Array("garbage".utf8), to: info)
        #expect(message { _ = try PhoneBackup(backup.path) } == "Info.plist: not a property list (neither binary 'bplist00' nor XML)")
        try writeBytes(try PropertyList.write(.array([]), format: .xml), to: info)
        #expect(message { _ = try PhoneBackup(backup.path) } == "Info.plist: not a dictionary")
        try writeBytes(original, to: info)
        #expect(try PhoneBackup(backup.path).deviceName == "Support iPhone")
    }

    /// A folder of backups given for one: each backup listed, with what its property lists say
    /// (a Manifest.plist without `IsEncrypted` is an unencrypted backup's; one that cannot be
    /// read says nothing of it).
    @Test func aFolderOfBackupsNamesEach() throws {
        let first = try Backups.make()
        let all = first.deletingLastPathComponent()
        try FileManager.default.moveItem(at: first, to: all.appendingPathComponent("a"))
        try python("p = b + '/a/Manifest.plist'\nm = plistlib.load(open(p, 'rb'))\ndel m['IsEncrypted']\nplistlib.dump(m, open(p, 'wb'))", all)
        #expect(message { _ = try PhoneBackup(all.path) } == "no Manifest.db: not a backup but a folder holding a device backup; give it as BACKUP:\n"
                + "  \(all.path)/a, \"Support iPhone\", iOS 17.5.1, made 2026-11-30T09:00:00.000000Z, not encrypted")
        try FileManager.default.createDirectory(at: all.appendingPathComponent("b"), withIntermediateDirectories: true)
        try writeBytes([], to: all.appendingPathComponent("b/Manifest.db"))
        try writeBytes(Array("garbage".utf8), to: all.appendingPathComponent("b/Manifest.plist"))
        #expect(message { _ = try PhoneBackup(all.path) } == "no Manifest.db: not a backup but a folder holding 2 device backups; give one of them as BACKUP:\n"
                + "  \(all.path)/a, \"Support iPhone\", iOS 17.5.1, made 2026-11-30T09:00:00.000000Z, not encrypted\n  \(all.path)/b")
    }

    /// A `Files` row whose fileID or flags are not of their type, and a domain listed without
    /// its preferences path.
    @Test func rowsOfTheWrongTypeOrMissing() throws {
        let backup = try Backups.make()
        let path = "Library/Preferences/com.example.notes.plist"
        try python("c = sqlite3.connect(b + '/Manifest.db')\nc.execute(\"UPDATE Files SET fileID = NULL WHERE relativePath = '\(path)'\")\nc.commit()", backup)
        #expect(message { _ = try PhoneBackup(backup.path).preferences(of: Self.notes) }
                == #"Manifest.db: the fileID of "\#(path)" of "AppDomain-com.example.notes" has the wrong type"#)
        let flags = try Backups.make()
        try python("c = sqlite3.connect(b + '/Manifest.db')\nc.execute(\"UPDATE Files SET flags = 'one' WHERE relativePath = '\(path)'\")\nc.commit()", flags)
        #expect(message { _ = try PhoneBackup(flags.path).preferences(of: Self.notes) }
                == #"Manifest.db: the flags of "\#(path)" of "AppDomain-com.example.notes" has the wrong type"#)
        let missing = try Backups.make()
        try python("c = sqlite3.connect(b + '/Manifest.db')\nc.execute(\"DELETE FROM Files WHERE relativePath = '\(path)'\")\nc.commit()", missing)
        #expect(message { _ = try PhoneBackup(missing.path).preferences(of: Self.notes) }
                == #"Manifest.db lists no "\#(path)" of "AppDomain-com.example.notes""#)
    }

    /// `unlock` opens an encrypted backup once; an unencrypted one has nothing to open. Before
    /// it, an encrypted backup's database cannot be asked.
    @Test func unlockingTwiceOrNothing() throws {
        var plain = try PhoneBackup(try Backups.make().path)
        try plain.unlock(Array("anything".utf8))
        #expect(try plain.preferences(of: Self.notes).record == nil)
        var encrypted = try PhoneBackup(try Backups.make(password: Backups.password).path)
        #expect(message { _ = try encrypted.preferences(of: Self.notes) }
                == "an encrypted backup and no password: give --password-file FILE, or run ycft on a terminal to type it")
        try encrypted.unlock(Array(Backups.password.utf8))
        try encrypted.unlock(Array("wrong".utf8))
        #expect(try encrypted.preferences(of: Self.notes).record != nil)
    }

    /// A file record (`MBFile`) in every shape that holds no usable key, and the key as plain
    /// data rather than an `NSData` object (read the same).
    @Test func fileRecordsWithoutAUsableKey() throws {
        let backup = try Backups.make(password: Backups.password)
        var opened = try PhoneBackup(backup.path)
        try opened.unlock(Array(Backups.password.utf8))
        let real = try opened.preferences(of: Self.notes)
        let stored = try readBytes(URL(fileURLWithPath: real.path))
        let expected = try opened.decrypt(stored, of: real)
        // The wrapped key and the size, from the real record.
        let archive = try LibPlist.keyedArchive(try #require(real.record))
        func object(_ value: PlistValue?) -> PlistValue? { value?.uidValue.map { archive.objects[Int($0)] } }
        let root = try #require(object(archive.top["root"])?.dictionaryValue)
        let wrapped = try #require(object(root["EncryptionKey"])?.dictionaryValue?["NS.data"])
        guard case let .data(key) = wrapped else { Issue.record("no key"); return }
        let size = try #require(root["Size"])

        func record(_ fields: [(String, PlistValue)], extra: [PlistValue] = []) throws -> [UInt8] {
            let objects: [PlistValue] = [.string("$null"), .dictionary(PlistDictionary(fields.map { (key: $0.0, value: $0.1) }))] + extra
            return try PropertyList.write(archiveValue(objects), format: .binary)
        }
        func decrypt(_ record: [UInt8]?) -> String? {
            let preferences = PhoneBackup.Preferences(container: real.container, fileID: real.fileID, path: real.path, record: record)
            do { _ = try opened.decrypt(stored, of: preferences) } catch { return error.description }
            return nil
        }
        let id = real.fileID
        let plainKey = PhoneBackup.Preferences(container: real.container, fileID: id, path: real.path,
                                               record: try record([("EncryptionKey", .uid(2)), ("Size", size)], extra: [wrapped]))
        #expect(try opened.decrypt(stored, of: plainKey) == expected)
        #expect(decrypt(nil) == "Manifest.db: the file record of \(id) is not an MBFile")
        #expect(decrypt(Array("garbage".utf8))
                == "Manifest.db: the file record of \(id): not a property list (neither binary 'bplist00' nor XML)")
        #expect(decrypt(try PropertyList.write(archiveValue([.string("$null"), .string("x")]), format: .binary))
                == "Manifest.db: the file record of \(id) is not an MBFile")
        #expect(decrypt(try record([("EncryptionKey", .uid(2)), ("Size", size)], extra: [.dictionary(PlistDictionary())]))
                == "Manifest.db: the file record of \(id) has no EncryptionKey of the right type")
        #expect(decrypt(try record([("EncryptionKey", .uid(2))], extra: [wrapped]))
                == "Manifest.db: the file record of \(id) has no Size of the right type")
        let short: PlistValue = .data(Array(key.prefix(10)))
        #expect(decrypt(try record([("EncryptionKey", .uid(2)), ("Size", size)], extra: [short]))
                == "\(id.prefix(2))/\(id): its wrapped key is not a 4-byte class and 40 bytes of key")
        var altered = key
        altered[20] ^= 0xFF
        #expect(decrypt(try record([("EncryptionKey", .uid(2)), ("Size", size)], extra: [.data(altered)]))
                == "\(id.prefix(2))/\(id): its wrapped key does not unwrap with its class's key (altered)")
        let otherClass = [99, 0, 0, 0] + key.dropFirst(4)
        #expect(decrypt(try record([("EncryptionKey", .uid(2)), ("Size", size)], extra: [.data(Array(otherClass))]))
                == "\(id.prefix(2))/\(id): encrypted with protection class 99, whose key the password does not open")
    }

    /// The cryptography's own refusals of what it is not given: no rounds, keys of the wrong size.
    @Test func cryptographyRefusesWrongSizes() throws {
        #expect(throws: (any Error).self) { try BackupCrypto.pbkdf2([1], salt: [2], iterations: 0, digest: .sha256) }
        #expect(try BackupCrypto.unwrap([UInt8](repeating: 0, count: 40), with: [1]) == nil)
        #expect(try BackupCrypto.decryptCBC([UInt8](repeating: 0, count: 15), key: [UInt8](repeating: 0, count: 32)) == nil)
    }
}

/// SQLite and libcrypto calls that fail, and a backup folder that cannot be looked at (``Faults``):
/// one line naming the backup and what failed.
@Suite(.enabled(if: Faults.available, Comment(rawValue: Faults.unavailable)))
struct PhoneBackupUnderFaults {
    let ycft = TestPaths.executable("ycft")

    func run(_ spec: String, _ arguments: [String]) throws -> ProcessResult {
        try runProcess(ycft, arguments, environment: Faults.environment(spec))
    }

    @Test(arguments: [
        ("dlsym:sqlite3_open_v2=1", "Manifest.db: SQL logic error (SQLite error 1)"),
        ("dlsym:sqlite3_exec=1", "Manifest.db: not an error (SQLite error 1)"),
        ("dlsym:sqlite3_malloc64=0", "Manifest.db: out of memory (SQLite error 7)"),
        ("dlsym:sqlite3_deserialize=1", "Manifest.db: not an error (SQLite error 1)"),
        ("fstat=5@Manifest.db", "Manifest.db: cannot read: Input/output error"),
    ])
    func theDatabaseCannotBeOpened(_ spec: String, _ message: String) throws {
        let backup = try Backups.make()
        let result = try run(spec, ["backup", "apps", backup.path])
        #expect(result.status == 2 && result.stdout.isEmpty)
        #expect(result.stderr == "ycft: \(backup.path): \(message)\n")
    }

    @Test func aParameterThatCannotBeBound() throws {
        let backup = try Backups.make()
        let result = try run("dlsym:sqlite3_bind_text=1", ["dump", "--backup", backup.path, "--app", "com.example.notes"])
        #expect(result.status == 2 && result.stdout.isEmpty)
        #expect(result.stderr == "ycft: \(backup.path): Manifest.db: not an error (SQLite error 1)\n")
    }

    /// libcrypto refusing a call (the key derivation, a context, the cipher's set-up): named.
    @Test(arguments: [
        ("dlsym:PKCS5_PBKDF2_HMAC=0", "PKCS5_PBKDF2_HMAC"), ("dlsym:EVP_CIPHER_CTX_new=0", "EVP_CIPHER_CTX_new"),
        ("dlsym:EVP_DecryptInit_ex=0", "EVP_DecryptInit_ex"), ("dlsym:EVP_aes_256_cbc=0", "EVP_DecryptInit_ex"),
    ])
    func libcryptoRefuses(_ spec: String, _ call: String) throws {
        let (backup, password) = (try Backups.make(password: Backups.password), try Backups.passwordFile())
        let result = try run(spec, ["backup", "apps", "--password-file", password.path, backup.path])
        #expect(result.status == 2 && result.stdout.isEmpty)
        #expect(result.stderr == "ycft: \(backup.path): libcrypto's \(call) failed\n")
    }

    /// A rollback journal beside Manifest.db that cannot be read is named: ycft cannot tell
    /// whether it holds a transaction to roll back.
    @Test func aJournalThatCannotBeRead() throws {
        let backup = try Backups.make("journal")
        let result = try run("read=5@Manifest.db-journal", ["backup", "apps", backup.path])
        #expect(result.status == 2 && result.stdout.isEmpty)
        #expect(result.stderr == "ycft: \(backup.path): Manifest.db-journal: cannot read: Input/output error\n")
    }

    /// Decrypted preferences are written without the attributes that grant access: a file
    /// system without extended attributes has none (the copy is written), one whose listing
    /// fails leaves no copy and names the file.
    @Test func extractingWhenTheAttributesCannotBeListed() throws {
        let (backup, password) = (try Backups.make(password: Backups.password), try Backups.passwordFile())
        let dir = try TestPaths.temporaryDirectory()
        let out = dir.appendingPathComponent("notes.plist").path
        let arguments = ["backup", "extract", "--password-file", password.path, backup.path, "--app", "com.example.notes", "-o", out]
        let failed = try run("flistxattr=5@\(dir.path)", arguments)
        #expect(failed.status == 2 && failed.stdout.isEmpty)
        #expect(failed.stderr == "ycft: \(out): cannot write: Input/output error\n")
        #expect(!FileManager.default.fileExists(atPath: out))
        let unsupported = try run("flistxattr=95@\(dir.path)", arguments)
        #expect(unsupported.status == 0, "\(unsupported.stderr)")
        #expect(unsupported.stderr.isEmpty)
        #expect(FileManager.default.fileExists(atPath: out))
    }

    /// A folder of backups that cannot be listed is taken for a folder without one.
    @Test(arguments: ["openat=13@{F}/.", "fdopendir=24@{F}", "readdir=5@{F}"])
    func aFolderOfBackupsThatCannotBeListed(_ spec: String) throws {
        let all = try Backups.make().deletingLastPathComponent()
        let result = try run(spec.replacingOccurrences(of: "{F}", with: all.path), ["backup", "apps", all.path])
        #expect(result.status == 2)
        #expect(result.stderr == "ycft: \(all.path): no Manifest.db: not an iPhone backup folder (the folder named after the device's UDID)\n")
    }
}
