import Foundation
import PhoneBackup
import PlistCore
import Testing
import TestSupport
@testable import ycft_fuzz

/// The libFuzzer harnesses (Fuzz/), run in the ordinary build (without libFuzzer) on a valid
/// seed each: every harness must reach its subject and find there what the seed holds. A
/// harness that returns before its subject for every input fuzzes nothing while libFuzzer
/// reports millions of runs (`manifest` opened a folder that did not exist: 28.6 million runs,
/// 79 features, the corpus reduced to one byte).
@Suite struct FuzzHarnessTests {
    static func fixture(_ path: String) throws -> [UInt8] {
        Array(try Data(contentsOf: TestPaths.fixtures.appendingPathComponent(path)))
    }

    /// A generated backup's file, by name (`Scripts/make-backup.py`).
    static func backupFile(_ name: String, password: String? = nil) throws -> [UInt8] {
        Array(try Data(contentsOf: try Backups.make(password: password).appendingPathComponent(name)))
    }

    /// Each harness's valid seed (as Scripts/fuzz.sh seeds it) and what its subject finds there.
    static func seed(_ harness: Harness) throws -> (bytes: [UInt8], found: [String: Int]) {
        let threeRecords = try fixture("valid/linux-foundation/three-records.plist")
        switch harness {
        case .plist: return (threeRecords, ["values": 91, "roundTrips": 1])
        case .archive: return (threeRecords, ["objects": 18])
        case .records: return (threeRecords, ["records": 3])
        case .verify: return (threeRecords, ["findings": 0])
        case .packJSON: return (try fixture("valid/linux-foundation/three-records.json"), ["records": 3, "encodes": 1])
        // Three records; migrated to records and to interval keys (already an archive).
        case .defaults: return (try fixture("valid/defaults/export.xml.plist"), ["records": 3, "migrated": 2])
        case .dumpRaw: return (threeRecords, ["rawDumps": 2, "objectDumps": 1])
        case .xmlGuard: return (try fixture("valid/xml/one-record.xml.plist"), ["values": 56, "depth": 5, "rewritten": 1])
        case .pureRead: return (threeRecords, ["records": 3])
        case .inPlace: return (try fixture("valid/defaults/export.binary.plist"), ["done": 6, "refused": 0])
        // Protection classes 1 to 11; DPIC 1000 and ITER 100, so the harness tries a password.
        case .keybag: return (try keyBag(), ["classKeys": 11, "unlocks": 1])
        // make-backup.py's 12 rows: 5 apps' and 2 groups' preferences files, each record with its key.
        case .manifest: return (try manifestSeed(), ["rows": 12, "preferences": 7, "records": 7, "lookups": 7, "ids": 7])
        case .manifestDB: return (try backupFile("Manifest.db"), ["preferences": 7, "ids": 7])
        }
    }

    /// The generated encrypted backup's `BackupKeyBag`.
    static func keyBag() throws -> [UInt8] {
        let plist = try PropertyListSerialization.propertyList(from: Data(try backupFile("Manifest.plist", password: "fuzz")), format: nil)
        return Array(try #require((plist as? [String: Any])?["BackupKeyBag"] as? Data))
    }

    /// The `manifest` seed Scripts/fuzz.sh makes: the generated backup's rows, with keys.
    static func manifestSeed() throws -> [UInt8] {
        let database = try Backups.make().appendingPathComponent("Manifest.db").path
        return try #require(ManifestSeeds.all(fromDatabaseAt: database).first { $0.0 == "backup.rows" }).1
    }

    @Test(arguments: Harness.allCases)
    func everyHarnessReachesItsSubjectOnAValidSeed(_ harness: Harness) throws {
        let (bytes, found) = try Self.seed(harness)
        #expect(harness.run(bytes) == .subject(found))
    }

    /// The number of preferences the `manifest` harness finds in its seed is the number the
    /// backup itself lists, through `PhoneBackup` as `ycft backup` opens it; each row of the
    /// database is in the seed, and with iOS's schema and without column types alike.
    @Test func theManifestSeedHoldsTheBackupsRows() throws {
        let folder = try Backups.make()
        let database = folder.appendingPathComponent("Manifest.db").path
        let seeds = Dictionary(uniqueKeysWithValues: ManifestSeeds.all(fromDatabaseAt: database))
        let listed = try PhoneBackup(folder.path).allPreferences()
        #expect(listed.count == 7)
        for name in ["backup.rows", "backup-untyped.rows"] {
            let seed = try #require(seeds[name])
            #expect(Harness.manifest.run(seed).found?["preferences"] == listed.count)
            #expect(ManifestRows(seed).rows.count == 12)
        }
        // The plain backup's records have no EncryptionKey: the rows are listed, no record decodes.
        #expect(Harness.manifest.run(try #require(seeds["backup-plain.rows"]))
                == .subject(["rows": 12, "preferences": 7, "records": 0, "lookups": 7, "ids": 7]))
        // The spoilt seed: the first row's fileID is a number (that app alone is refused, as a
        // read of it is: one judge), a record cut short.
        let spoilt = Harness.manifest.run(try #require(seeds["spoilt.rows"]))
        #expect(spoilt == .subject(["rows": 13, "preferences": 6, "records": 5, "lookups": 6, "ids": 7]), "\(spoilt)")
    }

    /// The input format: rows encode and decode to themselves; what is cut short is kept as far
    /// as it goes; empty text and an empty blob stay values of their own in the database.
    @Test func manifestInputsDecodeAsDocumented() throws {
        let rows = ManifestRows(untyped: true, rows: [
            [.text([]), .blob([]), .null, .integer(-2), .text(Array("é".utf8))],
            [.integer(.min), .integer(.max), .blob([0, 1, 2]), .null, .null],
        ])
        #expect(ManifestRows(rows.encoded) == rows)
        // A text of 5 bytes with 2 there; the rest of the row NULL.
        #expect(ManifestRows([0, 2, 5, 0, 0x61, 0x62]) == ManifestRows(untyped: false, rows: [[.text([0x61, 0x62]), .null, .null, .null, .null]]))
        #expect(ManifestRows([]) == ManifestRows(untyped: false, rows: []))
        let many = [UInt8](repeating: 0, count: 1 + 5 * (ManifestRows.maxRows + 3))
        #expect(ManifestRows(many).rows.count == ManifestRows.maxRows)
        // Empty text and an empty blob reach ycft as such, not as NULL: an empty fileID is a
        // bad fileID (NULL: a wrong column), an empty record no archive (NULL: no record).
        let (domain, path) = (Array("AppDomain-a".utf8), Array("Library/Preferences/a.plist".utf8))
        let empty = ManifestRows(untyped: false, rows: [[.text([]), .text(domain), .text(path), .integer(1), .null]])
        let emptyBackup = try PhoneBackup(folder: FuzzFolder.path, manifestDatabase: try #require(empty.database()), encrypted: true)
        #expect(throws: BackupError.badFileID("", domain: "AppDomain-a", path: "Library/Preferences/a.plist")) {
            try emptyBackup.preferences(of: .app("a"))
        }
        let fileID = Array(String(repeating: "ab", count: 20).utf8)
        for (record, error) in [(ManifestRows.Cell.blob([]), BackupError.fileRecord(fileID: String(decoding: fileID, as: UTF8.self), key: nil, .plist(.empty))),
                                (.null, .fileRecord(fileID: String(decoding: fileID, as: UTF8.self), key: nil, nil))] {
            let rows = ManifestRows(untyped: false, rows: [[.text(fileID), .text(domain), .text(path), .integer(1), record]])
            let backup = try PhoneBackup(folder: FuzzFolder.path, manifestDatabase: try #require(rows.database()), encrypted: true)
            let preferences = try backup.preferences(of: .app("a"))
            #expect(throws: error) { try backup.decrypt([0], of: preferences) }
        }
    }

    /// The `in-place` harness's first finding of issue 46 was its own: it took a defaults file
    /// without state for one no edit may succeed on, though `set` creates the state there as
    /// YCFirstTime's first save does (`unset` of a record it does not hold is refused, the file
    /// untouched).
    @Test func inPlaceExpectsSetToCreateTheStateOfADefaultsFileWithoutIt() throws {
        let defaults = try PropertyList.write(.dictionary(PlistDictionary([("Theme", .string("dark")), ("Count", .integer(.signed(3)))])),
                                              format: .binary)
        #expect(Harness.inPlace.run(defaults) == .subject(["done": 5, "refused": 1]))
    }

    /// The harnesses' backup folder is a real, empty, private folder.
    @Test func theFuzzFolderIsEmptyAndPrivate() throws {
        let attributes = try FileManager.default.attributesOfItem(atPath: FuzzFolder.path)
        #expect(attributes[.type] as? FileAttributeType == .typeDirectory)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o700)
        #expect(try FileManager.default.contentsOfDirectory(atPath: FuzzFolder.path) == [])
    }
}
