internal import FileErrors
internal import KeyedArchive
internal import Plist
package import PlistCore
internal import SafeFiles

/// An iPhone backup folder (iOS 10 and later), read-only: what Finder, iTunes or
/// `idevicebackup2` write, one folder per device holding `Manifest.db`, `Manifest.plist`,
/// `Info.plist`, `Status.plist` and the files under their hashed names.
///
/// An encrypted backup is opened in two steps: the initialiser reads its keybag's structure
/// (``KeyBag``, bounded), ``unlock(_:)`` derives the key from the password, unwraps the class
/// keys and decrypts `Manifest.db` into memory (never onto the disk); ``decrypt(_:of:)``
/// decrypts a file's bytes with the key its record gives.
///
/// Nothing here writes: `Manifest.db` is opened read-only and immutable (``ManifestDatabase``),
/// the property lists and files are read through `SafeFile`'s bounded reads. A file is named
/// only by its row's fileID, checked to be 40 lowercase hex digits, as `FOLDER/<first two
/// digits>/<fileID>`; no path from the database is ever opened.
///
/// ```swift
/// let backup = try PhoneBackup("Backup/00008030-001A")
/// let file = try backup.preferences(of: .app("com.example.app"))
/// file.path   // "Backup/00008030-001A/3d/3d0d7e5f..."
/// ```
package struct PhoneBackup {
    /// The folder, as given (without trailing slashes).
    package let folder: String
    /// `Info.plist`'s `Device Name` and `Product Version`, when it has them.
    package let deviceName: String?
    package let productVersion: String?
    /// `Status.plist`'s `SnapshotState` (`finished` for a complete backup), when it has one.
    package let snapshotState: String?
    /// Whether `Manifest.plist` says `IsEncrypted` (then ``unlock(_:)`` comes before any query).
    package let isEncrypted: Bool
    /// The most bytes an encrypted `Manifest.db` may have: it is decrypted in memory.
    package static let maxEncryptedManifestSize = 1 << 29
    /// Nil until an encrypted backup is unlocked.
    private var database: ManifestDatabase?
    /// An encrypted backup's keybag and `ManifestKey`.
    private let keyBag: KeyBag?
    private let manifestKey: [UInt8]
    /// The class keys the password opened.
    private var classKeys: [(protectionClass: UInt32, key: [UInt8])] = []
    private let limits: PlistLimits

    /// Where an app keeps its standard preferences (what `UserDefaults.standard` persists), or an
    /// app group the suite it shares.
    package enum Container: Sendable, Equatable {
        case app(String)
        case group(String)

        /// The bundle id or group id.
        package var id: String {
            switch self {
            case let .app(id), let .group(id): return id
            }
        }

        /// `AppDomain-<id>` or `AppDomainGroup-<id>`.
        package var domain: String {
            switch self {
            case let .app(id): return "AppDomain-" + id
            case let .group(id): return "AppDomainGroup-" + id
            }
        }

        /// `Library/Preferences/<id>.plist`.
        package var preferencesPath: String { "Library/Preferences/\(id).plist" }
    }

    /// A preferences file of the backup: whose it is and where it lies in the folder.
    package struct Preferences: Sendable, Equatable {
        package let container: Container
        /// The row's fileID (checked: 40 lowercase hex digits).
        package let fileID: String
        /// `FOLDER/<fileID's first two digits>/<fileID>`, a regular file when it was looked at.
        package let path: String
        /// In an encrypted backup, the row's `file` record (an `MBFile` archive), which holds the
        /// file's key; nil in an unencrypted one.
        package var record: [UInt8]? = nil

        /// `xx/<fileID>`, as messages name the file.
        var shortName: String { "\(fileID.prefix(2))/\(fileID)" }
    }

    /// Opens the backup in `folder`: refuses an old one (`Manifest.mbdb`), reads the property lists
    /// (each at most `limits.maxInputSize` bytes) and opens `Manifest.db`; of an encrypted one,
    /// reads the keybag's structure instead (``unlock(_:)`` opens `Manifest.db`).
    /// - Throws: ``BackupError`` naming what is wrong.
    package init(_ folder: String, limits: PlistLimits = .default) throws(BackupError) {
        var trimmed = folder
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed.removeLast() }
        self.folder = trimmed
        switch FileStatus.of(trimmed) {
        case let .failure(error): throw .folder(error)
        case let .success(status) where status.kind != .directory: throw .folder(nil)
        case .success: break
        }
        let join = { (name: String) in trimmed == "/" ? "/" + name : trimmed + "/" + name }
        if case .failure = FileStatus.of(join("Manifest.db")) {
            if case .success = FileStatus.of(join("Manifest.mbdb")) { throw .oldFormat }
            throw .noManifest
        }
        // Every fixed name is looked at without following a link: a link could name a file outside
        // the folder, and a pipe would make the open wait forever.
        try Self.regularFile(join("Manifest.db"), name: "Manifest.db")
        let manifest = try Self.dictionary(join("Manifest.plist"), name: "Manifest.plist", limits: limits)
        switch manifest["IsEncrypted"] {
        case .bool(true)?: isEncrypted = true
        case .bool(false)?, nil: isEncrypted = false
        case _?: throw .plistShape(name: "Manifest.plist", key: "IsEncrypted")
        }
        self.limits = limits
        if isEncrypted {
            guard case let .data(keyBagBytes)? = manifest["BackupKeyBag"] else { throw .plistShape(name: "Manifest.plist", key: "BackupKeyBag") }
            do { keyBag = try KeyBag(keyBagBytes) } catch { throw .keyBag(error) }
            guard case let .data(manifestKey)? = manifest["ManifestKey"] else { throw .plistShape(name: "Manifest.plist", key: "ManifestKey") }
            self.manifestKey = manifestKey
        } else {
            (keyBag, manifestKey) = (nil, [])
        }
        let info = try Self.optionalDictionary(join("Info.plist"), name: "Info.plist", limits: limits)
        (deviceName, productVersion) = (info?["Device Name"]?.stringValue, info?["Product Version"]?.stringValue)
        snapshotState = try Self.optionalDictionary(join("Status.plist"), name: "Status.plist", limits: limits)?["SnapshotState"]?.stringValue
        guard !isEncrypted else { return }
        database = try Self.checked(ManifestDatabase(path: join("Manifest.db")))
    }

    /// A backup whose `Manifest.db` is `bytes` (as an encrypted one's is once decrypted, in
    /// memory) and whose files are in `folder`, with no property lists: the fuzz harness's way
    /// to the database reader.
    /// - Throws: ``BackupError/database(code:message:)`` when SQLite refuses the bytes.
    package init(folder: String, manifestDatabase bytes: [UInt8], limits: PlistLimits = .default) throws(BackupError) {
        (self.folder, deviceName, productVersion, snapshotState, isEncrypted) = (folder, nil, nil, nil, false)
        (keyBag, manifestKey, self.limits) = (nil, [], limits)
        database = try Self.checked(ManifestDatabase(inMemory: bytes))
    }

    /// `database`, once its `Files` is known to be a table, not a view: a view's query (a
    /// recursive one) could run without end.
    private static func checked(_ database: ManifestDatabase) throws(BackupError) -> ManifestDatabase {
        var kind: String?
        try database.rows("SELECT type FROM sqlite_master WHERE name = 'Files' LIMIT 1") { (row: ManifestDatabase.Row) throws(BackupError) in
            kind = row.text(0)
        }
        if let kind, kind != "table" { throw .database(code: 1, message: "Files is a \(kind), not a table") }
        return database
    }

    /// Opens an encrypted backup with `password` (its bytes, as typed): derives the key
    /// (``KeyBag/unlock(_:)``), unwraps `ManifestKey` with its class's key and decrypts
    /// `Manifest.db` (at most ``maxEncryptedManifestSize`` bytes) into memory. Nothing for an
    /// unencrypted one.
    /// - Throws: ``BackupError/wrongPassword``; what is wrong with `ManifestKey` or `Manifest.db`.
    package mutating func unlock(_ password: [UInt8]) throws(BackupError) {
        guard let keyBag, database == nil else { return }
        classKeys = try keyBag.unlock(password)
        let key = try unwrap(manifestKey, of: "Manifest.db")
        let path = (folder == "/" ? "" : folder) + "/Manifest.db"
        let input: InputFile
        do { input = try SafeFile.read(path, limit: Self.maxEncryptedManifestSize) } catch { throw .file(name: "Manifest.db", error) }
        guard input.bytes.count <= Self.maxEncryptedManifestSize else {
            throw .tooLarge(name: "Manifest.db", limit: Self.maxEncryptedManifestSize)
        }
        let plain = try Self.decrypt(input.bytes, key: key, of: "Manifest.db")
        database = try Self.checked(ManifestDatabase(inMemory: plain))
    }

    /// The bytes of an encrypted backup's file as they were on the device: decrypted with the key
    /// its record (`MBFile`'s `EncryptionKey`, unwrapped with its class's key) gives, checked
    /// against the record's `Size`. An unencrypted backup's bytes are returned as they are.
    /// - Throws: ``BackupError`` for a record without a usable key, bytes that do not decrypt
    ///   (cut short, altered) or a length other than `Size`.
    package func decrypt(_ bytes: [UInt8], of preferences: Preferences) throws(BackupError) -> [UInt8] {
        guard isEncrypted else { return bytes }
        let name = preferences.shortName
        guard let record = preferences.record else { throw .fileRecord(fileID: preferences.fileID, key: nil, nil) }
        let archive: KeyedArchive
        do { archive = try LibPlist.keyedArchive(record, limits: limits) } catch { throw .fileRecord(fileID: preferences.fileID, key: nil, error) }
        func object(_ value: PlistValue?) -> PlistValue? {
            guard let uid = value?.uidValue, let index = Int(exactly: uid), index < archive.objects.count else { return nil }
            return archive.objects[index]
        }
        guard let file = object(archive.top["root"])?.dictionaryValue else { throw .fileRecord(fileID: preferences.fileID, key: nil, nil) }
        let wrapped: [UInt8]
        switch object(file["EncryptionKey"]) {
        case let .data(bytes)?: wrapped = bytes
        case let .dictionary(data)?:
            guard case let .data(bytes)? = data["NS.data"] else { fallthrough }
            wrapped = bytes
        default: throw .fileRecord(fileID: preferences.fileID, key: "EncryptionKey", nil)
        }
        guard case let .integer(size)? = file["Size"], let expected = size.int64 else {
            throw .fileRecord(fileID: preferences.fileID, key: "Size", nil)
        }
        let plain = try Self.decrypt(bytes, key: try unwrap(wrapped, of: name), of: name)
        guard Int64(plain.count) == expected else { throw .decryption(of: name, .size(plain.count, expected: expected)) }
        return plain
    }

    /// A key as `ManifestKey` and `EncryptionKey` hold it, a 4-byte little-endian protection class
    /// and the wrapped key, unwrapped (RFC 3394) with that class's key.
    private func unwrap(_ stored: [UInt8], of what: String) throws(BackupError) -> [UInt8] {
        guard stored.count == 44 else { throw .wrappedKey(of: what, unwraps: false) }
        let protectionClass = stored[0..<4].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        guard let classKey = classKeys.first(where: { $0.protectionClass == protectionClass })?.key else {
            throw .noClassKey(protectionClass, of: what)
        }
        guard let key = try BackupCrypto.unwrapping(Array(stored[4...]), with: classKey) else { throw .wrappedKey(of: what, unwraps: true) }
        return key
    }

    /// AES-256-CBC decryption of `bytes` with `key` (zero IV, PKCS#7 padding removed).
    private static func decrypt(_ bytes: [UInt8], key: [UInt8], of what: String) throws(BackupError) -> [UInt8] {
        guard !bytes.isEmpty, bytes.count % 16 == 0 else { throw .decryption(of: what, .notBlocks(bytes.count)) }
        let plain: [UInt8]?
        do { plain = try BackupCrypto.decryptCBC(bytes, key: key) } catch { throw .libcrypto(error.call) }
        guard let plain else { throw .decryption(of: what, .padding) }
        return plain
    }

    /// How many PBKDF2 rounds ``unlock(_:)`` runs (`DPIC` and `ITER` together); nil for an
    /// unencrypted backup.
    package var keyDerivationRounds: Int? { keyBag.map { $0.dpic + $0.iterations } }

    /// The database, or ``BackupError/encrypted`` before an encrypted backup is unlocked.
    private func opened() throws(BackupError) -> ManifestDatabase {
        guard let database else { throw .encrypted }
        return database
    }

    /// Refuses `path` unless it is a regular file itself (not a link, a pipe or a folder).
    private static func regularFile(_ path: String, name: String) throws(BackupError) {
        switch FileStatus.of(path, followLinks: false) {
        case let .failure(error): throw .file(name: name, FileError(.read, path, .system(error)))
        case let .success(status) where status.kind != .regular: throw .file(name: name, FileError(.read, path, .unsupportedKind(status.kind)))
        case .success: return
        }
    }

    /// The preferences file of `container`.
    /// - Throws: ``BackupError``: no such row (``BackupError/notListed(domain:path:domainListed:)``),
    ///   two, a row that is not a file, a bad fileID, a missing file, or what SQLite says.
    package func preferences(of container: Container) throws(BackupError) -> Preferences {
        let (domain, path) = (container.domain, container.preferencesPath)
        var found: [(fileID: String, record: [UInt8]?)] = []
        try opened().rows("SELECT fileID, flags\(recordColumn) FROM Files WHERE domain = ?1 AND relativePath = ?2 LIMIT 2",
                          [domain, path]) { (row: ManifestDatabase.Row) throws(BackupError) in
            guard let fileID = row.text(0) else { throw .column("fileID", domain: domain, path: path) }
            guard let flags = row.integer(1) else { throw .column("flags", domain: domain, path: path) }
            guard flags == 1 else { throw .notAFile(domain: domain, path: path, flags: flags) }
            found.append((fileID, isEncrypted ? row.blob(2) : nil))
        }
        guard found.count < 2 else { throw .listedTwice(domain: domain, path: path) }
        guard let first = found.first else { throw .notListed(domain: domain, path: path, domainListed: try lists(container)) }
        return try checked(first.fileID, record: first.record, of: container)
    }

    /// Whether `Manifest.db` lists any file or folder of the container's domain (whether the
    /// app, or the app group, is in the backup at all).
    /// - Throws: what SQLite says.
    package func lists(_ container: Container) throws(BackupError) -> Bool {
        var listed = false
        try opened().rows("SELECT 1 FROM Files WHERE domain = ?1 LIMIT 1", [container.domain]) { _ throws(BackupError) in listed = true }
        return listed
    }

    /// Every app's and app group's preferences file the backup holds, apps first, each sorted
    /// by id (rows whose flags say they are not a file are passed over).
    /// - Throws: ``BackupError`` for the first row that is wrong, or what SQLite says.
    package func allPreferences() throws(BackupError) -> [Preferences] {
        var found: [Preferences] = []
        let sql = """
            SELECT fileID, domain\(recordColumn) FROM Files WHERE flags = 1 AND (
              (substr(domain, 1, 10) = 'AppDomain-' AND relativePath = 'Library/Preferences/' || substr(domain, 11) || '.plist')
              OR (substr(domain, 1, 15) = 'AppDomainGroup-' AND relativePath = 'Library/Preferences/' || substr(domain, 16) || '.plist'))
            ORDER BY domain
            """
        try opened().rows(sql) { (row: ManifestDatabase.Row) throws(BackupError) in
            guard let domain = row.text(1) else { throw .column("domain", domain: "?", path: "?") }
            let container: Container = domain.hasPrefix("AppDomainGroup-") ? .group(String(domain.dropFirst(15)))
                : .app(String(domain.dropFirst(10)))
            guard let fileID = row.text(0) else { throw .column("fileID", domain: domain, path: container.preferencesPath) }
            found.append(try checked(fileID, record: isEncrypted ? row.blob(2) : nil, of: container))
        }
        return found
    }

    /// `, file` in an encrypted backup, whose rows' records hold the files' keys.
    private var recordColumn: String { isEncrypted ? ", file" : "" }

    /// The file a row names: `fileID` checked, its file looked at (without following a link).
    private func checked(_ fileID: String, record: [UInt8]?, of container: Container) throws(BackupError) -> Preferences {
        let hex = Set("0123456789abcdef".utf8)
        guard fileID.utf8.count == 40, fileID.utf8.allSatisfy(hex.contains) else {
            throw .badFileID(fileID, domain: container.domain, path: container.preferencesPath)
        }
        let directory = (folder == "/" ? "" : folder) + "/" + fileID.prefix(2)
        let path = directory + "/" + fileID
        // The two-digit folder too must be the backup's own, not a link to another place.
        if case let .success(status) = FileStatus.of(directory, followLinks: false), status.kind != .directory {
            throw .notRegularFile(fileID: fileID, status.kind)
        }
        switch FileStatus.of(path, followLinks: false) {
        case let .failure(error): throw .missingFile(fileID: fileID, domain: container.domain, path: container.preferencesPath, error)
        case let .success(status) where status.kind != .regular: throw .notRegularFile(fileID: fileID, status.kind)
        case .success: return Preferences(container: container, fileID: fileID, path: path, record: record)
        }
    }

    /// The property list at `path`, which must be a dictionary.
    private static func dictionary(_ path: String, name: String, limits: PlistLimits) throws(BackupError) -> PlistDictionary {
        try regularFile(path, name: name)
        let input: InputFile
        do { input = try SafeFile.read(path, limit: limits.maxInputSize) } catch { throw .file(name: name, error) }
        guard input.bytes.count <= limits.maxInputSize else { throw .tooLarge(name: name, limit: limits.maxInputSize) }
        let value: PlistValue
        do { value = try LibPlist.read(input.bytes, limits: limits).value } catch { throw .plist(name: name, error) }
        guard case let .dictionary(dictionary) = value else { throw .plistShape(name: name, key: nil) }
        return dictionary
    }

    /// ``dictionary(_:name:limits:)``, or nil when there is no file at `path`.
    private static func optionalDictionary(_ path: String, name: String, limits: PlistLimits) throws(BackupError) -> PlistDictionary? {
        if case .failure = FileStatus.of(path, followLinks: false) { return nil }
        return try dictionary(path, name: name, limits: limits)
    }
}
