// The `manifest` harness: Manifest.db's rows, structured. SQLite is an uninstrumented system
// library, so fuzzing a database's raw bytes (`manifest-db`) mostly explores SQLite's own
// header checks. Here the input is decoded into a few rows of `Files` (fileID, domain,
// relativePath, flags, file: each a NULL, an integer, text or a blob), written by the same
// system SQLite into a valid database in memory, and what ycft decodes from the rows runs on
// it: `allPreferences()`, `preferences(of:)` of every app and group the rows name,
// `ids(like:)`, and each listed file's `MBFile` record (`decrypt(_:of:)` of an encrypted
// backup, up to the key it would unwrap).

import CSQLite
import PhoneBackup
import Plist
import PlistCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An empty folder only this process uses (`mkdtemp`: mode 0700), made on first use and removed
/// when the process exits: the backup folder of the `manifest` harnesses, whose files are never
/// there (a harness that reads a file gets `missingFile`, as for a row naming none).
enum FuzzFolder {
    static let path: String = make()

    private static func make() -> String {
        let base = getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array("\(base)/ycft-fuzz-backup-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer in buffer.baseAddress.flatMap { mkdtemp($0) } }
        guard let made else { fatalError("ycft-fuzz: cannot make a private folder in \(base): errno \(errno)") }
        let path = String(cString: made)
        atexit { _ = rmdir(FuzzFolder.path) }
        return path
    }
}

/// The rows a `manifest` input stands for, and the database they make.
///
/// The input: one byte of options (bit 0: the `Files` table declares no column types, so every
/// value keeps the storage class the input gives it; otherwise iOS's schema, `fileID TEXT PRIMARY
/// KEY, domain TEXT, relativePath TEXT, flags INTEGER, file BLOB`, whose affinities convert
/// some), then rows of five cells (fileID, domain, relativePath, flags, file), each a tag byte
/// whose low two bits say what follows: 0 NULL; 1 an integer, 8 bytes little-endian; 2 text and
/// 3 a blob, each a 2-byte little-endian length and that many bytes. What the input cuts short
/// is kept as far as it goes (a missing cell is NULL); at most ``maxRows`` rows.
struct ManifestRows: Equatable {
    /// One value of a row, as SQLite stores it.
    enum Cell: Equatable {
        case null
        case integer(Int64)
        case text([UInt8])
        case blob([UInt8])
    }

    /// fileID, domain, relativePath, flags, file.
    typealias Row = [Cell]

    static let maxRows = 32
    var untyped: Bool
    var rows: [Row]

    init(untyped: Bool, rows: [Row]) {
        (self.untyped, self.rows) = (untyped, rows)
    }

    /// Decodes a fuzz input (see the type).
    init(_ bytes: [UInt8]) {
        var at = 1
        func take(_ count: Int) -> ArraySlice<UInt8> {
            let end = min(bytes.count, at + count)
            defer { at = end }
            return bytes[at..<end]
        }
        func cell() -> Cell {
            guard at < bytes.count else { return .null }
            let tag = bytes[at] & 3
            at += 1
            switch tag {
            case 1: return .integer(Int64(bitPattern: take(8).reversed().reduce(0) { $0 << 8 | UInt64($1) }))
            case 2, 3:
                let length = take(2).reversed().reduce(0) { $0 << 8 | Int($1) }
                let payload = Array(take(length))
                return tag == 2 ? .text(payload) : .blob(payload)
            default: return .null
            }
        }
        untyped = bytes.first.map { $0 & 1 == 1 } ?? false
        rows = []
        while at < bytes.count, rows.count < Self.maxRows { rows.append((0..<5).map { _ in cell() }) }
    }

    /// The fuzz input that decodes to these rows.
    var encoded: [UInt8] {
        var out: [UInt8] = [untyped ? 1 : 0]
        func length(_ count: Int) -> [UInt8] { [UInt8(truncatingIfNeeded: count), UInt8(truncatingIfNeeded: count >> 8)] }
        for cell in rows.flatMap({ $0 }) {
            switch cell {
            case .null: out.append(0)
            case let .integer(value): out += [1] + (0..<8).map { UInt8(truncatingIfNeeded: UInt64(bitPattern: value) >> (8 * $0)) }
            case let .text(bytes): out += [2] + length(bytes.count) + bytes
            case let .blob(bytes): out += [3] + length(bytes.count) + bytes
            }
        }
        return out
    }

    /// A `Manifest.db` holding the rows in `Files`, made by the system SQLite in memory
    /// (`sqlite3_serialize`); nil when SQLite cannot be loaded or refuses a row (with iOS's
    /// schema, a second row with the same fileID is left out: `INSERT OR IGNORE`).
    func database() -> [UInt8]? {
        guard let sqlite = ycft_sqlite(), let build = ycft_sqlite_build() else { return nil }
        let api = sqlite.pointee
        var opened: OpaquePointer?
        guard api.open_v2(":memory:", &opened, YCFT_SQLITE_OPEN_READWRITE | YCFT_SQLITE_OPEN_CREATE, nil) == YCFT_SQLITE_OK,
              let db = opened else {
            _ = api.close(opened)
            return nil
        }
        defer { _ = api.close(db) }
        let columns = untyped ? "fileID, domain, relativePath, flags, file"
            : "fileID TEXT PRIMARY KEY, domain TEXT, relativePath TEXT, flags INTEGER, file BLOB"
        guard api.exec(db, "CREATE TABLE Files (\(columns))", nil, nil, nil) == YCFT_SQLITE_OK else { return nil }
        var prepared: OpaquePointer?
        guard api.prepare_v2(db, "INSERT OR IGNORE INTO Files VALUES (?1, ?2, ?3, ?4, ?5)", -1, &prepared, nil) == YCFT_SQLITE_OK,
              let statement = prepared else { return nil }
        defer { _ = api.finalize(statement) }
        for row in rows {
            for (index, cell) in row.enumerated() {
                let column = Int32(index + 1)
                let bound: Int32
                switch cell {
                case .null: bound = build.pointee.bind_null(statement, column)
                case let .integer(value): bound = build.pointee.bind_int64(statement, column, value)
                case let .text(bytes), let .blob(bytes):
                    // Never a nil pointer, which SQLite binds as NULL: empty text and an empty
                    // blob are values of their own.
                    let storage = bytes.isEmpty ? [0] : bytes
                    let isText = if case .text = cell { true } else { false }
                    bound = storage.withUnsafeBufferPointer { buffer in
                        buffer.withMemoryRebound(to: CChar.self) { raw in
                            guard let base = raw.baseAddress else { return YCFT_SQLITE_NOMEM }
                            return isText ? ycft_sqlite_bind_text_copied(sqlite, statement, column, base, Int32(bytes.count))
                                : ycft_sqlite_bind_blob_copied(build, statement, column, base, Int32(bytes.count))
                        }
                    }
                }
                guard bound == YCFT_SQLITE_OK else { return nil }
            }
            guard api.step(statement) == YCFT_SQLITE_DONE, build.pointee.reset(statement) == YCFT_SQLITE_OK else { return nil }
        }
        var size: Int64 = 0
        guard let serialized = build.pointee.serialize(db, "main", &size, 0) else { return nil }
        defer { build.pointee.free(serialized) }
        return Array(UnsafeBufferPointer(start: serialized, count: Int(size)))
    }
}

enum ManifestHarness {
    /// The containers whose preferences the harness looks up: those the rows' domains name, at most this many.
    static let maxLookups = 8

    /// Whether `preferences` names a file as ycft promises: by a fileID of 40 lowercase hex
    /// digits, in the folder's two-digit subfolder, never by a path from the database.
    static func isChecked(_ preferences: PhoneBackup.Preferences) -> Bool {
        let hex = Set("0123456789abcdef".utf8)
        return preferences.fileID.utf8.count == 40 && preferences.fileID.utf8.allSatisfy(hex.contains)
            && preferences.path == "\(FuzzFolder.path)/\(preferences.fileID.prefix(2))/\(preferences.fileID)"
    }

    /// Decodes `preferences`' record (`MBFile`: its `EncryptionKey` and `Size`): true when it
    /// decoded, false when ycft refused it. Without a class key nothing decrypts: any other
    /// outcome is a bug.
    static func decodesRecord(_ preferences: PhoneBackup.Preferences, of backup: PhoneBackup) -> Bool {
        do {
            _ = try backup.decrypt(Array(repeating: 0, count: 16), of: preferences)
            fatalError("decrypted \(preferences.fileID)'s file with no class key")
        } catch {
            switch error {
            case .fileRecord: return false
            case .noClassKey, .wrappedKey(of: _, unwraps: false): return true
            default: fatalError("decrypting \(preferences.fileID)'s file with no class key failed as \(error)")
            }
        }
    }

    /// The app or group a domain names, or nil.
    static func container(_ domain: [UInt8]) -> PhoneBackup.Container? {
        let text = String(decoding: domain, as: UTF8.self)
        if text.hasPrefix("AppDomainGroup-") { return .group(String(text.dropFirst(15))) }
        if text.hasPrefix("AppDomain-") { return .app(String(text.dropFirst(10))) }
        return nil
    }

    static func run(_ bytes: [UInt8]) -> Reach {
        let input = ManifestRows(bytes)
        guard let database = input.database() else { return .early }
        // Every database SQLite makes from rows is one ycft opens: its Files is a table.
        let backup: PhoneBackup
        do { backup = try PhoneBackup(folder: FuzzFolder.path, manifestDatabase: database, encrypted: true) } catch {
            fatalError("a Manifest.db SQLite made from \(input.rows.count) rows did not open: \(error)")
        }
        var found = ["rows": input.rows.count, "preferences": 0, "records": 0, "lookups": 0, "ids": 0]
        if let all = try? backup.allPreferences() {
            let listed = all.compactMap { try? $0.preferences.get() }
            guard listed.allSatisfy(isChecked) else { fatalError("allPreferences named a file by an unchecked fileID") }
            // One judge: a lookup of a listed container answers as the listing did.
            for entry in all.prefix(maxLookups) {
                let lookup = Result { () throws(BackupError) in try backup.preferences(of: entry.container) }
                guard lookup == entry.preferences else {
                    fatalError("backup apps and a read disagree about \(entry.container): \(entry.preferences) vs \(lookup)")
                }
            }
            found["preferences"] = listed.count
            found["records"] = listed.filter { decodesRecord($0, of: backup) }.count
        } else {
            found["listingRefused"] = 1
        }
        var asked: [PhoneBackup.Container] = []
        for row in input.rows {
            guard case let .text(domain) = row[1], let container = container(domain), !asked.contains(container) else { continue }
            asked.append(container)
            guard asked.count <= maxLookups else { break }
            guard let preferences = try? backup.preferences(of: container) else { continue }
            guard preferences.container == container, isChecked(preferences) else {
                fatalError("preferences(of: \(container)) named another container's file or an unchecked fileID")
            }
            _ = decodesRecord(preferences, of: backup)
            found["lookups", default: 0] += 1
        }
        for kind in [PhoneBackup.Container.app(""), .group("")] {
            if let ids = try? backup.ids(like: kind) { found["ids", default: 0] += ids.count }
        }
        return .subject(found)
    }
}

/// The `manifest` harness's seeds, from the rows of a `Manifest.db` (`Scripts/make-backup.py`'s:
/// its apps, groups, files and folders): as they are, each file's `MBFile` record given an
/// `EncryptionKey` as the generator's encrypted backup has it (its plain backup's records have
/// none, and its encrypted backup's `Manifest.db` is encrypted); in iOS's schema and without
/// column types; and spoilt in a few ways. `ycft-fuzz manifest-seeds DIR MANIFEST.DB` writes
/// them; Scripts/fuzz.sh calls it.
enum ManifestSeeds {
    /// The rows of `Files` in the database at `path` (read-only), in their order; nil when
    /// SQLite cannot read it.
    static func rows(ofDatabaseAt path: String) -> ManifestRows? {
        guard let sqlite = ycft_sqlite() else { return nil }
        let api = sqlite.pointee
        var opened: OpaquePointer?
        guard api.open_v2(path, &opened, YCFT_SQLITE_OPEN_READONLY, nil) == YCFT_SQLITE_OK, let db = opened else {
            _ = api.close(opened)
            return nil
        }
        defer { _ = api.close(db) }
        var prepared: OpaquePointer?
        guard api.prepare_v2(db, "SELECT fileID, domain, relativePath, flags, file FROM Files ORDER BY rowid", -1, &prepared, nil)
                == YCFT_SQLITE_OK, let statement = prepared else { return nil }
        defer { _ = api.finalize(statement) }
        var rows: [ManifestRows.Row] = []
        while api.step(statement) == YCFT_SQLITE_ROW {
            rows.append((0..<5).map { (column: Int32) -> ManifestRows.Cell in
                let count = Int(api.column_bytes(statement, column))
                switch api.column_type(statement, column) {
                case YCFT_SQLITE_INTEGER: return .integer(api.column_int64(statement, column))
                case YCFT_SQLITE_TEXT:
                    guard let text = api.column_text(statement, column) else { return .text([]) }
                    return .text(Array(UnsafeBufferPointer(start: text, count: count)))
                case YCFT_SQLITE_BLOB:
                    guard let blob = api.column_blob(statement, column) else { return .blob([]) }
                    return .blob(Array(UnsafeRawBufferPointer(start: blob, count: count)))
                default: return .null
                }
            })
        }
        return ManifestRows(untyped: false, rows: rows)
    }

    /// An `MBFile` record with an `EncryptionKey`, as make-backup.py's `mbfile()` adds it to an
    /// encrypted backup's: a UID in the root object naming an `NSMutableData` whose `NS.data` is
    /// the protection class (3, little-endian) and 40 bytes of wrapped key. The record as it was
    /// when it is no archive of that shape.
    static func withEncryptionKey(_ record: [UInt8]) -> [UInt8] {
        guard case var .dictionary(archive)? = try? LibPlist.read(record).value,
              case var .array(objects)? = archive["$objects"],
              case let .dictionary(top)? = archive["$top"], let root = top["root"]?.uidValue.flatMap({ Int(exactly: $0) }),
              root < objects.count, case var .dictionary(file) = objects[root] else { return record }
        let key: [UInt8] = [3, 0, 0, 0] + (0..<40).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        file["EncryptionKey"] = .uid(UInt64(objects.count))
        objects[root] = .dictionary(file)
        objects.append(.dictionary(PlistDictionary([("$class", .uid(UInt64(objects.count + 1))), ("NS.data", .data(key))])))
        objects.append(.dictionary(PlistDictionary([("$classes", .array(["NSMutableData", "NSData", "NSObject"].map { .string($0) })),
                                                    ("$classname", .string("NSMutableData"))])))
        archive["$objects"] = .array(objects)
        return (try? PropertyList.write(.dictionary(archive), format: .binary)) ?? record
    }

    /// `rows` as an encrypted backup holds them: every blob in `file` given its key.
    static func encrypted(_ rows: ManifestRows) -> ManifestRows {
        var rows = rows
        for index in rows.rows.indices {
            if case let .blob(record) = rows.rows[index][4] { rows.rows[index][4] = .blob(withEncryptionKey(record)) }
        }
        return rows
    }

    /// The seed files made from the database at `path`: name and bytes (none when it cannot be read).
    static func all(fromDatabaseAt path: String) -> [(String, [UInt8])] {
        guard let plain = rows(ofDatabaseAt: path) else { return [] }
        let backup = encrypted(plain)
        var untyped = backup
        untyped.untyped = true
        var spoilt = backup
        if spoilt.rows.count > 4 {
            spoilt.rows[0][0] = .integer(7)                                         // a fileID stored as a number
            if case let .blob(record) = spoilt.rows[2][4] { spoilt.rows[2][4] = .blob(Array(record.prefix(60))) }  // a record cut short
            spoilt.rows[3][3] = .text(Array("1".utf8))                              // flags as text
            spoilt.rows.append(spoilt.rows[4])                                      // listed twice
        }
        return [("backup.rows", backup.encoded), ("backup-untyped.rows", untyped.encoded), ("backup-plain.rows", plain.encoded),
                ("spoilt.rows", spoilt.encoded)]
    }

    /// Writes the seeds made from the database at `database` into `directory`; returns how many.
    static func write(to directory: String, fromDatabaseAt database: String) -> Int {
        var written = 0
        for (name, bytes) in all(fromDatabaseAt: database) {
            guard let file = fopen("\(directory)/\(name)", "wb") else { continue }
            if fwrite(bytes, 1, bytes.count, file) == bytes.count { written += 1 }
            fclose(file)
        }
        return written
    }
}
