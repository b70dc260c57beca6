internal import FileErrors
internal import Plist
package import PlistCore
internal import SafeFiles

/// An iPhone backup folder (iOS 10 and later, unencrypted), read-only: what Finder, iTunes or
/// `idevicebackup2` write, one folder per device holding `Manifest.db`, `Manifest.plist`,
/// `Info.plist`, `Status.plist` and the files under their hashed names.
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
    private let database: ManifestDatabase

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
    }

    /// Opens the backup in `folder`: refuses an old (`Manifest.mbdb`) or encrypted one, reads the
    /// property lists (each at most `limits.maxInputSize` bytes) and opens `Manifest.db`.
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
        case .bool(true)?: throw .encrypted
        case .bool(false)?, nil: break
        case _?: throw .plistShape(name: "Manifest.plist", key: "IsEncrypted")
        }
        let info = try Self.optionalDictionary(join("Info.plist"), name: "Info.plist", limits: limits)
        (deviceName, productVersion) = (info?["Device Name"]?.stringValue, info?["Product Version"]?.stringValue)
        snapshotState = try Self.optionalDictionary(join("Status.plist"), name: "Status.plist", limits: limits)?["SnapshotState"]?.stringValue
        database = try ManifestDatabase(path: join("Manifest.db"))
        // A table, not a view: a view's query (a recursive one) could run without end.
        var kind: String?
        try database.rows("SELECT type FROM sqlite_master WHERE name = 'Files' LIMIT 1") { (row: ManifestDatabase.Row) throws(BackupError) in
            kind = row.text(0)
        }
        if let kind, kind != "table" { throw .database(code: 1, message: "Files is a \(kind), not a table") }
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
        var found: [String] = []
        try database.rows("SELECT fileID, flags FROM Files WHERE domain = ?1 AND relativePath = ?2 LIMIT 2",
                          [domain, path]) { (row: ManifestDatabase.Row) throws(BackupError) in
            guard let fileID = row.text(0) else { throw .column("fileID", domain: domain, path: path) }
            guard let flags = row.integer(1) else { throw .column("flags", domain: domain, path: path) }
            guard flags == 1 else { throw .notAFile(domain: domain, path: path, flags: flags) }
            found.append(fileID)
        }
        guard found.count < 2 else { throw .listedTwice(domain: domain, path: path) }
        guard let fileID = found.first else { throw .notListed(domain: domain, path: path, domainListed: try lists(container)) }
        return try checked(fileID, of: container)
    }

    /// Whether `Manifest.db` lists any file or folder of the container's domain (whether the
    /// app, or the app group, is in the backup at all).
    /// - Throws: what SQLite says.
    package func lists(_ container: Container) throws(BackupError) -> Bool {
        var listed = false
        try database.rows("SELECT 1 FROM Files WHERE domain = ?1 LIMIT 1", [container.domain]) { _ throws(BackupError) in listed = true }
        return listed
    }

    /// Every app's and app group's preferences file the backup holds, apps first, each sorted
    /// by id (rows whose flags say they are not a file are passed over).
    /// - Throws: ``BackupError`` for the first row that is wrong, or what SQLite says.
    package func allPreferences() throws(BackupError) -> [Preferences] {
        var found: [Preferences] = []
        let sql = """
            SELECT fileID, domain FROM Files WHERE flags = 1 AND (
              (substr(domain, 1, 10) = 'AppDomain-' AND relativePath = 'Library/Preferences/' || substr(domain, 11) || '.plist')
              OR (substr(domain, 1, 15) = 'AppDomainGroup-' AND relativePath = 'Library/Preferences/' || substr(domain, 16) || '.plist'))
            ORDER BY domain
            """
        try database.rows(sql) { (row: ManifestDatabase.Row) throws(BackupError) in
            guard let domain = row.text(1) else { throw .column("domain", domain: "?", path: "?") }
            let container: Container = domain.hasPrefix("AppDomainGroup-") ? .group(String(domain.dropFirst(15)))
                : .app(String(domain.dropFirst(10)))
            guard let fileID = row.text(0) else { throw .column("fileID", domain: domain, path: container.preferencesPath) }
            found.append(try checked(fileID, of: container))
        }
        return found
    }

    /// The file a row names: `fileID` checked, its file looked at (without following a link).
    private func checked(_ fileID: String, of container: Container) throws(BackupError) -> Preferences {
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
        case .success: return Preferences(container: container, fileID: fileID, path: path)
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
