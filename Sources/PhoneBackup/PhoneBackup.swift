internal import FileErrors
internal import KeyedArchive
internal import Plist
package import PlistCore
internal import SafeFiles
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An iPhone backup folder (iOS 10 and later), read-only: what Finder, iTunes or
/// `idevicebackup2` write, one folder per device holding `Manifest.db`, `Manifest.plist`,
/// `Info.plist`, `Status.plist` and the files under their hashed names.
///
/// An encrypted backup is opened in two steps: the initialiser reads its keybag's structure
/// (``KeyBag``, bounded), ``unlock(_:)`` derives the key from the password, unwraps the class
/// keys and decrypts `Manifest.db` into memory (never onto the disk); ``decrypt(_:of:)``
/// decrypts a file's bytes with the key its record gives.
///
/// Nothing here writes, and nothing is read from outside the folder: the folder is opened once
/// and every file is read through its descriptor (`SafeFiles`' ``ReadOnlyFolder``: no link
/// followed, no pipe waited on, only regular files, bounded), whatever is swapped in meanwhile.
/// `Manifest.db` is read so into memory and SQLite queries that copy (``ManifestDatabase``): it
/// opens no file of the backup. A file is named only by its row's fileID, checked to be 40
/// lowercase hex digits, as `FOLDER/<first two digits>/<fileID>`; no path from the database is
/// ever opened.
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
    /// The most bytes `Manifest.db` may have: it is read (and decrypted) into memory.
    package static let maxManifestSize = 1 << 29
    /// The folder, open: every read goes through it.
    private let root: ReadOnlyFolder
    /// Nil until an encrypted backup is unlocked.
    private var database: ManifestDatabase?
    /// An encrypted backup's keybag, `ManifestKey` and `Manifest.db` as stored (encrypted).
    private let keyBag: KeyBag?
    private let manifestKey: [UInt8]
    private let encryptedManifest: [UInt8]
    /// The class keys the password opened.
    private var classKeys: [(protectionClass: UInt32, key: [UInt8])] = []
    private let limits: PlistLimits

    /// Where an app keeps its standard preferences (what `UserDefaults.standard` persists), or an
    /// app group the suite it shares.
    ///
    /// Two containers are the same when their ids are the same bytes, as `Manifest.db` (SQLite's
    /// `=`) and the phone's file system tell them apart: `com.café.app` composed (NFC) and
    /// decomposed (NFD) are two apps, although Swift's `==` takes the two strings as equal.
    package enum Container: Sendable, Equatable {
        case app(String)
        case group(String)

        package static func == (a: Container, b: Container) -> Bool {
            switch (a, b) {
            case let (.app(x), .app(y)), let (.group(x), .group(y)): return exactlyEqual(x, y)
            default: return false
            }
        }

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

    /// Text from `Manifest.db` (an id, a domain, a relative path) as a person sees it: escaped
    /// like any untrusted text, each byte that is not UTF-8 as `\xNN` (as paths are shown), so
    /// `com.x\xff` and `com.x\xfe` read as two ids and can be typed back (`--app $'com.x\xff'`).
    package static func shown(_ text: String) -> String { PathBytes.displayed(text, other: UntrustedText.escaped) }

    /// ``shown(_:)`` in double quotes, a quote in it as `\"`.
    package static func quoted(_ text: String) -> String {
        "\"" + PathBytes.displayed(text) { String(UntrustedText.quoted($0).dropFirst().dropLast()) } + "\""
    }

    /// ``quoted(_:)`` with every character beyond ASCII as `\u{HEX}` (``UntrustedText/spelledOut(_:)``),
    /// for ids that look alike; a byte that is not UTF-8 is still `\xNN`.
    package static func spelledOut(_ text: String) -> String {
        "\"" + PathBytes.displayed(text) { String(UntrustedText.spelledOut($0).dropFirst().dropLast()) } + "\""
    }

    /// A preferences file of the backup: whose it is and where it lies in the folder.
    package struct Preferences: Sendable, Equatable {
        package let container: Container
        /// The row's fileID (checked: 40 lowercase hex digits).
        package let fileID: String
        /// `FOLDER/<fileID's first two digits>/<fileID>`, as messages name it (read only through
        /// ``PhoneBackup/contents(of:limit:)``).
        package let path: String
        /// In an encrypted backup, the row's `file` record (an `MBFile` archive), which holds the
        /// file's key; nil in an unencrypted one.
        package let record: [UInt8]?

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
        do { root = try ReadOnlyFolder(trimmed) } catch {
            guard case let .system(failure) = error.reason, failure.errno != ENOTDIR else { throw .folder(nil) }
            throw .folder(failure)
        }
        let stored: [UInt8]?
        do { stored = try root.read("Manifest.db", limit: Self.maxManifestSize) } catch {
            guard case let .system(failure) = error.reason, failure.errno == ENOENT else { throw .file(name: "Manifest.db", error) }
            if Self.exists(root, "Manifest.mbdb") { throw .oldFormat }
            // The folder of all backups (MobileSync/Backup) given for one of them.
            let inside = try Self.deviceBackups(in: root, limits: limits)
            throw inside.isEmpty ? BackupError.noManifest : .folderOfBackups(inside)
        }
        guard let stored else { throw .tooLarge(name: "Manifest.db", limit: Self.maxManifestSize) }
        try Self.refuseUnfinishedChanges(root)
        // unreachable: dictionary(_:_:limits:required:) with `required` throws rather than answer nil
        guard let manifest = try Self.dictionary(root, "Manifest.plist", limits: limits, required: true) else { throw .noManifest }
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
        let info = try Self.dictionary(root, "Info.plist", limits: limits, required: false)
        (deviceName, productVersion) = (info?["Device Name"]?.stringValue, info?["Product Version"]?.stringValue)
        snapshotState = try Self.dictionary(root, "Status.plist", limits: limits, required: false)?["SnapshotState"]?.stringValue
        if isEncrypted {
            encryptedManifest = stored
        } else {
            (encryptedManifest, database) = ([], try Self.checked(ManifestDatabase(inMemory: stored)))
        }
    }

    /// A backup whose `Manifest.db` is `bytes` (as an encrypted one's is once decrypted, in
    /// memory) and whose files are in `folder`, with no property lists: the fuzz harnesses' way
    /// to the database reader and the row decoding.
    ///
    /// With `encrypted`, the queries read each row's `file` record as an encrypted backup's do,
    /// and ``decrypt(_:of:)`` decodes it (the `MBFile` archive, its `EncryptionKey` and `Size`)
    /// as after an unlock; there is no keybag, so no class key: it then stops with
    /// ``BackupError/noClassKey(_:of:)`` (or ``BackupError/wrappedKey(of:unwraps:)`` for a key
    /// of the wrong length) before any decryption. No password, no libcrypto.
    /// - Throws: ``BackupError/folder(_:)`` when `folder` cannot be opened,
    ///   ``BackupError/database(code:message:)`` when SQLite refuses the bytes.
    package init(folder: String, manifestDatabase bytes: [UInt8], encrypted: Bool = false,
                 limits: PlistLimits = .default) throws(BackupError) {
        (self.folder, deviceName, productVersion, snapshotState, isEncrypted) = (folder, nil, nil, nil, encrypted)
        (keyBag, manifestKey, encryptedManifest, self.limits) = (nil, [], [], limits)
        do { root = try ReadOnlyFolder(folder) } catch { throw .folder(nil) }
        database = try Self.checked(ManifestDatabase(inMemory: bytes))
    }

    /// `database`, once its `Files` is known to be a table, not a view: a view's query (a
    /// recursive one) could run without end.
    private static func checked(_ database: ManifestDatabase) throws(BackupError) -> ManifestDatabase {
        var kind: String?
        // SQLite's names are case-insensitive: `FROM Files` reads a view named `FILES` too.
        try database.rows("SELECT type FROM sqlite_master WHERE name = 'Files' COLLATE NOCASE AND type IN ('table', 'view') LIMIT 1") {
            (row: ManifestDatabase.Row) throws(BackupError) in kind = row.text(0)
        }
        if let kind, kind != "table" { throw .database(code: 1, message: "Files is a \(kind), not a table") }
        // Nor may a column of it be computed on every read (a generated column's expression can
        // take minutes and gigabytes a row): Files' columns are stored values.
        var generated: String?
        try database.rows("SELECT name FROM pragma_table_xinfo('Files') WHERE hidden != 0 LIMIT 1") {
            // unreachable: pragma_table_xinfo's name column is never NULL
            (row: ManifestDatabase.Row) throws(BackupError) in generated = row.text(0) ?? ""
        }
        if let generated {
            throw .database(code: 1, message: "Files' column \"\(generated)\" is generated or hidden, not a stored value")
        }
        return database
    }

    /// Opens an encrypted backup with `password` (its bytes, as typed): derives the key
    /// (``KeyBag/unlock(_:)``), unwraps `ManifestKey` with its class's key and decrypts
    /// `Manifest.db` (read when the backup was opened) in memory. Nothing for an
    /// unencrypted one.
    /// - Throws: ``BackupError/wrongPassword``; what is wrong with `ManifestKey` or `Manifest.db`.
    package mutating func unlock(_ password: [UInt8]) throws(BackupError) {
        guard let keyBag, database == nil else { return }
        classKeys = try keyBag.unlock(password)
        let key = try unwrap(manifestKey, of: "Manifest.db")
        let plain = try Self.decrypt(encryptedManifest, key: key, of: "Manifest.db")
        database = try Self.checked(ManifestDatabase(inMemory: plain))
    }

    /// A file's bytes as they were on the device, and what about them is off but does not stop
    /// them being read.
    package struct FileContents: Sendable, Equatable {
        /// The bytes (of an encrypted backup, decrypted).
        package let bytes: [UInt8]
        /// A decrypted length other than the record's `Size`
        /// (``BackupError/decryption(of:_:)`` with ``BackupError/DecryptionProblem/size(_:expected:)``),
        /// whose padding was valid: Manifest.db's sizes are known to be off now and then, and
        /// the bytes are what the file holds. Nil when nothing is off.
        package let warning: BackupError?
    }

    /// The bytes of an encrypted backup's file as they were on the device: decrypted with the key
    /// its record (`MBFile`'s `EncryptionKey`, unwrapped with its class's key) gives, and
    /// compared with the record's `Size` (a difference is a warning: the padding proved the
    /// bytes whole). An unencrypted backup's bytes are returned as they are.
    /// - Throws: ``BackupError`` for a record without a usable key, or bytes that do not decrypt
    ///   (not whole blocks, a wrong padding: cut short, altered).
    package func decrypt(_ bytes: [UInt8], of preferences: Preferences) throws(BackupError) -> FileContents {
        guard isEncrypted else { return FileContents(bytes: bytes, warning: nil) }
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
        let off = Int64(plain.count) == expected ? nil : BackupError.decryption(of: name, .size(plain.count, expected: expected))
        return FileContents(bytes: plain, warning: off)
    }

    /// A key as `ManifestKey` and `EncryptionKey` hold it, a 4-byte little-endian protection class
    /// and the wrapped key, unwrapped (RFC 3394) with that class's key.
    private func unwrap(_ stored: [UInt8], of what: String) throws(BackupError) -> [UInt8] {
        guard stored.count == 44 else { throw .wrappedKey(of: what, unwraps: false) }
        let protectionClass = stored[0..<4].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        guard let classKey = classKeys.first(where: { $0.protectionClass == protectionClass })?.key else {
            // Wrapped with the password, and left out by the unlock: it did not unwrap.
            if keyBag?.wrapsWithPassword(protectionClass) == true { throw .classKeyAltered(protectionClass, of: what) }
            throw .noClassKey(protectionClass, of: what)
        }
        guard let key = try BackupCrypto.unwrapping(Array(stored[4...]), with: classKey) else { throw .wrappedKey(of: what, unwraps: true) }
        return key
    }

    /// AES-256-CBC decryption of `bytes` with `key` (zero IV, PKCS#7 padding removed).
    private static func decrypt(_ bytes: [UInt8], key: [UInt8], of what: String) throws(BackupError) -> [UInt8] {
        guard !bytes.isEmpty, bytes.count % 16 == 0 else { throw .decryption(of: what, .notBlocks(bytes.count)) }
        let plain: [UInt8]?
        do { plain = try BackupCrypto.decryptCBC(bytes, key: key) } catch { throw error.backupError }
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

    /// One device's backup in a folder of backups (what Finder keeps in
    /// `~/Library/Application Support/MobileSync/Backup`): its folder's name and what its
    /// `Info.plist` and `Manifest.plist` say of it, when they say it.
    package struct DeviceBackup: Sendable, Equatable {
        /// The backup's folder: the folder of backups as given, and its name there (the
        /// device's UDID).
        package let path: String
        /// `Info.plist`'s `Device Name` and `Product Version`.
        package let deviceName: String?
        package let productVersion: String?
        /// `Info.plist`'s `Last Backup Date`, in seconds since 2001.
        package let date: Double?
        /// `Manifest.plist`'s `IsEncrypted`; nil when it cannot be read.
        package let isEncrypted: Bool?
        /// Whether it is of iOS 9 or earlier (`Manifest.mbdb`), which ycft does not read.
        package let isOld: Bool
    }

    /// The most entries of a folder looked at for device backups.
    package static let maxFolderEntries = 10_000

    /// The device backups in `folder` (its folders holding `Manifest.db` or `Manifest.mbdb`, and
    /// its symbolic links to such folders: a backup moved to another disk and linked back is
    /// one, and its link's path opens it as BACKUP), sorted by name; what cannot be read of one
    /// is left nil.
    /// - Throws: ``BackupError/tooManyEntries(limit:)`` when the folder holds more than
    ///   ``maxFolderEntries`` entries (none is looked at: a count of some would be wrong).
    private static func deviceBackups(in folder: ReadOnlyFolder, limits: PlistLimits) throws(BackupError) -> [DeviceBackup] {
        guard let names = try? folder.names(limit: maxFolderEntries + 1) else { return [] }
        if names.count > maxFolderEntries { throw .tooManyEntries(limit: maxFolderEntries) }
        return names.sorted().compactMap { name in
            let kind = folder.kind(of: name)
            guard kind == .directory || kind == .symbolicLink,
                  let inside = try? folder.folder(name, followingLink: kind == .symbolicLink) else { return nil }
            let isOld = inside.kind(of: "Manifest.db") == nil && inside.kind(of: "Manifest.mbdb") == .regular
            guard inside.kind(of: "Manifest.db") == .regular || isOld else { return nil }
            let info = try? dictionary(inside, "Info.plist", limits: limits, required: false)
            let manifest = try? dictionary(inside, "Manifest.plist", limits: limits, required: false)
            let encrypted: Bool? = if case let .bool(flag)? = manifest?["IsEncrypted"] { flag } else { manifest.map { _ in false } }
            let date: Double? = if case let .date(seconds)? = info?["Last Backup Date"] { seconds } else { nil }
            return DeviceBackup(path: folder.path(of: name), deviceName: info?["Device Name"]?.stringValue,
                                productVersion: info?["Product Version"]?.stringValue, date: date, isEncrypted: encrypted, isOld: isOld)
        }
    }

    /// The first bytes of a rollback journal that SQLite plays back (its header's magic): a
    /// journal without them (zeroed by `journal_mode=PERSIST`, cut short) is no transaction to roll back.
    static let journalMagic: [UInt8] = [0xD9, 0xD5, 0x05, 0xF9, 0x20, 0xA1, 0x63, 0xD7]

    /// Refuses a `Manifest.db` whose content is not all in it, which ycft (reading the file
    /// alone, from memory) would read wrong: a non-empty write-ahead log beside it
    /// (`Manifest.db-wal`: rows the database does not have yet), or a hot rollback journal
    /// (`Manifest.db-journal`, non-empty and starting with SQLite's journal header: a
    /// transaction that did not finish, whose changes may be in the database and are to be
    /// rolled back). Either name holding a link, a pipe or a folder is refused too: ycft
    /// follows no link in a backup, and cannot tell what it holds. Looked at through the
    /// folder's descriptor; only a journal's header is read.
    /// - Throws: ``BackupError/writeAheadLog(bytes:)``, ``BackupError/hotJournal(bytes:)``,
    ///   ``BackupError/logNotRegular(name:_:)``, or ``BackupError/file(name:_:)`` when one
    ///   cannot be looked at.
    private static func refuseUnfinishedChanges(_ root: ReadOnlyFolder) throws(BackupError) {
        for name in ["Manifest.db-wal", "Manifest.db-journal"] {
            let (size, head): (Int64, [UInt8])
            do { (size, head) = try root.head(name, count: journalMagic.count) } catch {
                switch error.reason {
                case let .system(failure) where failure.errno == ENOENT: continue
                case let .unsupportedKind(kind): throw .logNotRegular(name: name, kind)
                default: throw .file(name: name, error)
                }
            }
            guard size > 0 else { continue }
            if name == "Manifest.db-wal" { throw .writeAheadLog(bytes: Int(clamping: size)) }
            if head == journalMagic { throw .hotJournal(bytes: Int(clamping: size)) }
        }
    }

    /// Whether `folder` holds anything under `name` (a link included).
    private static func exists(_ folder: ReadOnlyFolder, _ name: String) -> Bool {
        if case .success = FileStatus.of(folder.path(of: name), followLinks: false) { true } else { false }
    }

    /// The bytes of a preferences file of the backup, read through the folder's descriptor (at
    /// most `limit` bytes, else nil) and, in an encrypted backup, decrypted (``decrypt(_:of:)``).
    /// - Throws: ``BackupError``: the file is missing or not a regular file, or does not decrypt.
    package func contents(of preferences: Preferences, limit: Int) throws(BackupError) -> FileContents? {
        let bytes: [UInt8]?
        do { bytes = try root.folder(String(preferences.fileID.prefix(2))).read(preferences.fileID, limit: limit) } catch {
            switch error.reason {
            case let .unsupportedKind(kind): throw .notRegularFile(fileID: preferences.fileID, kind)
            case let .system(failure): throw .missingFile(fileID: preferences.fileID, domain: preferences.container.domain,
                                                          path: preferences.container.preferencesPath, failure)
            // unreachable: ReadOnlyFolder's read and folder throw only .unsupportedKind or .system
            default: throw .file(name: preferences.shortName, error)
            }
        }
        return try bytes.map { bytes throws(BackupError) in try decrypt(bytes, of: preferences) }
    }

    /// The preferences file of `container`, judged by ``judged(_:of:)`` as ``allPreferences()``
    /// judges each container's rows.
    /// - Throws: ``BackupError``: no such row (``BackupError/notListed(domain:path:domainListed:)``),
    ///   two, a row that is not a file, a bad fileID, or what SQLite says.
    package func preferences(of container: Container) throws(BackupError) -> Preferences {
        let (domain, path) = (container.domain, container.preferencesPath)
        var rows: [Row] = []
        try opened().rows("SELECT fileID, flags\(recordColumn) FROM Files WHERE domain = ?1 AND relativePath = ?2 LIMIT 2",
                          [domain, path]) { (row: ManifestDatabase.Row) throws(BackupError) in
            rows.append(Row(fileID: row.text(0), flags: row.integer(1), record: isEncrypted ? row.blob(2) : nil))
        }
        if rows.isEmpty { throw .notListed(domain: domain, path: path, domainListed: try lists(container)) }
        return try judged(rows, of: container).get()
    }

    /// One row of `Files` for a preferences path, as read: a fileID or flags of the wrong type is nil.
    private struct Row {
        let fileID: String?
        let flags: Int64?
        let record: [UInt8]?
    }

    /// The one judge of a container's rows for its preferences path (at least one), asked by
    /// ``preferences(of:)`` and ``allPreferences()`` alike: exactly one row, a file (flags 1),
    /// whose fileID names a file of the folder.
    private func judged(_ rows: [Row], of container: Container) -> Result<Preferences, BackupError> {
        let (domain, path) = (container.domain, container.preferencesPath)
        guard rows.count == 1 else { return .failure(.listedTwice(domain: domain, path: path)) }
        guard let fileID = rows[0].fileID else { return .failure(.column("fileID", domain: domain, path: path)) }
        guard let flags = rows[0].flags else { return .failure(.column("flags", domain: domain, path: path)) }
        guard flags == 1 else { return .failure(.notAFile(domain: domain, path: path, flags: flags)) }
        return Result { () throws(BackupError) in try checked(fileID, record: rows[0].record, of: container) }
    }

    /// Whether `Manifest.db` lists any file or folder of the container's domain (whether the
    /// app, or the app group, is in the backup at all).
    /// - Throws: what SQLite says.
    package func lists(_ container: Container) throws(BackupError) -> Bool {
        var listed = false
        try opened().rows("SELECT 1 FROM Files WHERE domain = ?1 LIMIT 1", [container.domain]) { _ throws(BackupError) in listed = true }
        return listed
    }

    /// The ids of every app (for an `.app`) or every app group (for a `.group`) of which
    /// `Manifest.db` lists anything, sorted: what a mistyped id may have meant.
    /// - Throws: what SQLite says.
    package func ids(like container: Container) throws(BackupError) -> [String] {
        let prefix: String = if case .app = container { Container.app("").domain } else { Container.group("").domain }
        var ids: [String] = []
        try opened().rows("SELECT DISTINCT domain FROM Files WHERE substr(domain, 1, length(?1)) = ?1 ORDER BY domain",
                          [prefix]) { (row: ManifestDatabase.Row) throws(BackupError) in
            // By code points, as SQLite's substr and length count them.
            if let domain = row.text(0) { ids.append(String(domain.unicodeScalars.dropFirst(prefix.unicodeScalars.count))) }
        }
        return ids
    }

    /// Every app's and app group's preferences file the backup holds, apps first, each sorted
    /// by id, each judged as ``preferences(of:)`` judges it (``judged(_:of:)``): a container
    /// whose rows are wrong (two, not a file, a bad fileID) is its own failure, and the others
    /// are still found.
    /// - Throws: ``BackupError`` for a row whose domain is not text, or what SQLite says.
    package func allPreferences() throws(BackupError) -> [(container: Container, preferences: Result<Preferences, BackupError>)] {
        var found: [(container: Container, rows: [Row])] = []
        let sql = """
            SELECT fileID, domain, flags\(recordColumn) FROM Files WHERE (
              (substr(domain, 1, 10) = 'AppDomain-' AND relativePath = 'Library/Preferences/' || substr(domain, 11) || '.plist')
              OR (substr(domain, 1, 15) = 'AppDomainGroup-' AND relativePath = 'Library/Preferences/' || substr(domain, 16) || '.plist'))
            ORDER BY domain
            """
        try opened().rows(sql) { (row: ManifestDatabase.Row) throws(BackupError) in
            // unreachable: the WHERE clause compares substr(domain, ...) with text, which a NULL, number or blob domain
            // never equals
            guard let domain = row.text(1) else { throw .column("domain", domain: "?", path: "?") }
            // By code points, as SQLite's substr counts them (a mark after the dash is part of
            // the id, not of the prefix's last character).
            let container: Container = domain.unicodeScalars.starts(with: "AppDomainGroup-".unicodeScalars)
                ? .group(String(domain.unicodeScalars.dropFirst(15)))
                : .app(String(domain.unicodeScalars.dropFirst(10)))
            let read = Row(fileID: row.text(0), flags: row.integer(2), record: isEncrypted ? row.blob(3) : nil)
            // Sorted by domain: a container's rows are next to each other.
            if found.last?.container == container { found[found.count - 1].rows.append(read) } else { found.append((container, [read])) }
        }
        return found.map { ($0.container, judged($0.rows, of: $0.container)) }
    }

    /// `, file` in an encrypted backup, whose rows' records hold the files' keys.
    private var recordColumn: String { isEncrypted ? ", file" : "" }

    /// The file a row names, its `fileID` checked. The file itself is not looked at here: it is
    /// read through the folder's descriptor (``contents(of:limit:)``), which refuses a missing
    /// file, a link or a pipe, in the two-digit folder or for the file, when it is read.
    private func checked(_ fileID: String, record: [UInt8]?, of container: Container) throws(BackupError) -> Preferences {
        let hex = Set("0123456789abcdef".utf8)
        guard fileID.utf8.count == 40, fileID.utf8.allSatisfy(hex.contains) else {
            throw .badFileID(fileID, domain: container.domain, path: container.preferencesPath)
        }
        // untested: a backup at `/` needs Manifest.db in the test machine's root folder
        let path = (folder == "/" ? "" : folder) + "/" + fileID.prefix(2) + "/" + fileID
        return Preferences(container: container, fileID: fileID, path: path, record: record)
    }

    /// The property list `name` of `folder`, read through its descriptor, which must be a
    /// dictionary; nil when there is no such file and it is not `required`.
    private static func dictionary(_ folder: ReadOnlyFolder, _ name: String, limits: PlistLimits,
                                   required: Bool) throws(BackupError) -> PlistDictionary? {
        let bytes: [UInt8]?
        do { bytes = try folder.read(name, limit: limits.maxInputSize) } catch {
            if !required, case let .system(failure) = error.reason, failure.errno == ENOENT { return nil }
            throw .file(name: name, error)
        }
        guard let bytes else { throw .tooLarge(name: name, limit: limits.maxInputSize) }
        let value: PlistValue
        do { value = try LibPlist.read(bytes, limits: limits).value } catch { throw .plist(name: name, error) }
        guard case let .dictionary(dictionary) = value else { throw .plistShape(name: name, key: nil) }
        return dictionary
    }
}
