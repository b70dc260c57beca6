internal import CSQLite
internal import SafeFiles

/// A backup's `Manifest.db`, queried through the system SQLite from a copy in memory: SQLite opens
/// no file of the backup, so it takes no lock, reads no journal or write-ahead log and creates no
/// file beside it (a database in WAL mode is read as the pages it holds; ``PhoneBackup`` refuses
/// one whose `Manifest.db-wal` holds anything). SQLite is loaded on the first use (`ycft_sqlite`, `dlopen`), not linked.
final class ManifestDatabase {
    /// The longest text or blob SQLite will hand over (`SQLITE_LIMIT_LENGTH`): a longer value
    /// in a hostile database is an error (`string or blob too big`), not an allocation.
    static let maxValueLength: Int32 = 1 << 20

    /// The first 16 bytes of every SQLite 3 database: `SQLite format 3` and a NUL.
    static let magic = Array("SQLite format 3\0".utf8)

    private let handle: OpaquePointer
    private let sqlite: UnsafePointer<ycft_sqlite_api>

    /// Opens a `Manifest.db` held in memory (as read, or decrypted): an empty `:memory:` connection
    /// (`sqlite3_open_v2`, read-only) is given a copy of `bytes` in SQLite's own memory by
    /// `sqlite3_deserialize` with `SQLITE_DESERIALIZE_READONLY | SQLITE_DESERIALIZE_FREEONCLOSE`.
    /// No file is opened or written: a decrypted database never touches the disk.
    /// - Throws: ``BackupError/database(code:message:)`` when SQLite refuses it,
    ///   ``BackupError/missingLibrary(_:)`` when no SQLite can be loaded.
    init(inMemory bytes: [UInt8]) throws(BackupError) {
        guard let sqlite = ycft_sqlite() else { throw .missingLibrary(.sqlite) }
        let api = sqlite.pointee
        var opened: OpaquePointer?
        let rc = api.open_v2(":memory:", &opened, YCFT_SQLITE_OPEN_READONLY, nil)
        /// The error of a failed call (SQLite's message for the connection, when there is one,
        /// unless `message` is given), the connection closed.
        func failed(_ code: Int32, message: String? = nil) -> BackupError {
            // untested: (the errmsg of a failed open) SQLite fails to open ":memory:" with a handle only out of
            // memory; a stand-in open (Faults) sets none
            let message = message ?? opened.map { String(cString: api.errmsg($0)) } ?? String(cString: api.errstr(code))
            _ = api.close(opened)
            return .database(code: code, message: message)
        }
        guard rc == YCFT_SQLITE_OK, let db = opened else { throw failed(rc) }
        ycft_sqlite_distrust_schema(sqlite, db)
        // A sort or temporary index stays in memory: decrypted rows never spill to /var/tmp.
        let inMemory = api.exec(db, "PRAGMA temp_store = MEMORY", nil, nil, nil)
        guard inMemory == YCFT_SQLITE_OK else { throw failed(inMemory) }
        guard let copy = api.malloc64(UInt64(max(bytes.count, 1)))?.assumingMemoryBound(to: UInt8.self) else {
            throw failed(YCFT_SQLITE_NOMEM, message: String(cString: api.errstr(YCFT_SQLITE_NOMEM)))
        }
        bytes.withUnsafeBufferPointer { source in
            if let base = source.baseAddress { copy.update(from: base, count: source.count) }
        }
        // A database last written in WAL mode says so in its header (bytes 18 and 19, the file
        // format's read and write versions, are 2), and SQLite will not open it from memory
        // (there is no shared memory for a log: SQLITE_CANTOPEN). Without its log (the caller
        // refuses a log that holds anything) the file is the whole database: the copy says
        // rollback journal (1), which reads the same pages.
        if bytes.count >= 100, bytes.starts(with: Self.magic), bytes[18] == 2, bytes[19] == 2 { (copy[18], copy[19]) = (1, 1) }
        let flags = UInt32(YCFT_SQLITE_DESERIALIZE_READONLY | YCFT_SQLITE_DESERIALIZE_FREEONCLOSE)
        // On failure SQLite frees `copy` itself (FREEONCLOSE).
        let loaded = api.deserialize(db, "main", copy, Int64(bytes.count), Int64(max(bytes.count, 1)), flags)
        guard loaded == YCFT_SQLITE_OK else { throw failed(loaded) }
        handle = db
        self.sqlite = sqlite
        _ = api.limit(db, YCFT_SQLITE_LIMIT_LENGTH, Self.maxValueLength)
        _ = api.extended_result_codes(db, 1)
    }

    deinit { _ = sqlite.pointee.close(handle) }

    /// Runs `sql` with `parameters` bound as text and hands `row` each result row.
    /// - Throws: ``BackupError/database(code:message:)`` for a statement SQLite refuses (no
    ///   such table or column, not a database, a value over ``maxValueLength``), or what `row` throws.
    func rows(_ sql: String, _ parameters: [String] = [], _ row: (Row) throws(BackupError) -> Void) throws(BackupError) {
        var prepared: OpaquePointer?
        let rc = sqlite.pointee.prepare_v2(handle, sql, -1, &prepared, nil)
        guard rc == YCFT_SQLITE_OK, let statement = prepared else { throw failure(rc) }
        defer { _ = sqlite.pointee.finalize(statement) }
        for (index, parameter) in parameters.enumerated() {
            // Bytes as ``PathBytes`` carries them: an id read from a row binds as the bytes it had.
            let bytes = PathBytes.encode(parameter)
            let bound = bytes.withUnsafeBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) { text in
                    ycft_sqlite_bind_text_copied(sqlite, statement, Int32(index + 1), text.baseAddress, Int32(clamping: text.count))
                }
            }
            guard bound == YCFT_SQLITE_OK else { throw failure(bound) }
        }
        while true {
            let step = sqlite.pointee.step(statement)
            if step == YCFT_SQLITE_DONE { return }
            guard step == YCFT_SQLITE_ROW else { throw failure(step) }
            try row(Row(sqlite: sqlite, statement: statement))
        // unreachable: the end of `while true`, which only returns or throws
        }
    }

    /// The database's own message for a failed call (`sqlite3_errmsg`).
    private func failure(_ rc: Int32) -> BackupError {
        .database(code: rc, message: String(cString: sqlite.pointee.errmsg(handle)))
    }

    /// One result row, valid only inside the closure it is given to.
    struct Row {
        let sqlite: UnsafePointer<ycft_sqlite_api>
        let statement: OpaquePointer

        /// Column `index` as text when SQLite stores it as text (`sqlite3_column_type`,
        /// `sqlite3_column_text`), else nil: a number or a blob where text belongs. SQLite keeps
        /// the bytes it was given, UTF-8 or not (a domain is a name on the phone's disk): they are
        /// decoded as ``PathBytes`` decodes a path, so two ids that differ only in bytes that are
        /// not UTF-8 stay two, and each binds back as its own bytes.
        func text(_ index: Int32) -> String? {
            guard sqlite.pointee.column_type(statement, index) == YCFT_SQLITE_TEXT,
                  let text = sqlite.pointee.column_text(statement, index) else { return nil }
            let count = Int(sqlite.pointee.column_bytes(statement, index))
            return PathBytes.decode(UnsafeBufferPointer(start: text, count: count))
        }

        /// Column `index` as bytes when SQLite stores it as a blob (`sqlite3_column_blob`), else nil.
        func blob(_ index: Int32) -> [UInt8]? {
            guard sqlite.pointee.column_type(statement, index) == YCFT_SQLITE_BLOB else { return nil }
            let count = Int(sqlite.pointee.column_bytes(statement, index))
            guard count > 0, let bytes = sqlite.pointee.column_blob(statement, index) else { return [] }
            return Array(UnsafeRawBufferPointer(start: bytes, count: count))
        }

        /// Column `index` as an integer when SQLite stores it as one (`sqlite3_column_int64`), else nil.
        func integer(_ index: Int32) -> Int64? {
            sqlite.pointee.column_type(statement, index) == YCFT_SQLITE_INTEGER ? sqlite.pointee.column_int64(statement, index) : nil
        }
    }
}
