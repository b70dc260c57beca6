package import FileErrors
package import PlistCore

/// Why a backup folder, or the file asked of it, cannot be read. Each case carries its cause;
/// ``description`` is one line about the backup (the tool prefixes the folder:
/// `ycft: BACKUP: what is wrong`). Text from `Manifest.db` is quoted and escaped.
package enum BackupError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The folder itself cannot be read (`stat` failed), or it is not a folder.
    case folder(SystemError?)
    /// An iOS 9 or earlier backup: `Manifest.mbdb` and no `Manifest.db`.
    case oldFormat
    /// Neither `Manifest.db` nor `Manifest.mbdb`: not an iPhone backup folder.
    case noManifest
    /// `Manifest.plist`, `Info.plist` or `Status.plist` cannot be read.
    case file(name: String, FileError)
    /// One of the property lists is larger than the input limit.
    case tooLarge(name: String, limit: Int)
    /// One of the property lists is not a readable property list.
    case plist(name: String, PlistError)
    /// One of the property lists is not a dictionary, or `key` in it has the wrong type.
    case plistShape(name: String, key: String?)
    /// `Manifest.plist` says `IsEncrypted`: not supported yet.
    case encrypted
    /// SQLite refused `Manifest.db` or a query on it (`sqlite3_errmsg`, with the result code):
    /// not a database, no `Files` table, a value too long, ...
    case database(code: Int32, message: String)
    /// A `Files` column holds a value of the wrong type (a number where the fileID belongs).
    case column(String, domain: String, path: String)
    /// No row for the file; `domainListed` says whether the domain has any rows at all.
    case notListed(domain: String, path: String, domainListed: Bool)
    /// `--group` with an `--app` of which the backup holds nothing.
    case appNotListed(String)
    /// More than one row for the same domain and path.
    case listedTwice(domain: String, path: String)
    /// The row's `flags` say it is not a regular file (2: directory, 4: symbolic link).
    case notAFile(domain: String, path: String, flags: Int64)
    /// The row's fileID is not 40 lowercase hex digits, so it names no file of the backup.
    case badFileID(String, domain: String, path: String)
    /// The row's file is not in the folder (or cannot be looked at).
    case missingFile(fileID: String, domain: String, path: String, SystemError)
    /// The row's file is there but is not a regular file (a link, a folder, a device).
    case notRegularFile(fileID: String, FileKind)

    package var description: String {
        switch self {
        case let .folder(error?): return "cannot read: \(error)"
        case .folder(nil): return "not a folder (a backup is the folder holding Manifest.db)"
        case .oldFormat:
            return "an iOS 9 or earlier backup (Manifest.mbdb) is not supported; ycft reads backups of iOS 10 and later (Manifest.db)"
        case .noManifest: return "no Manifest.db: not an iPhone backup folder (the folder named after the device's UDID)"
        case let .file(name, error): return "\(name): \(error)"
        case let .tooLarge(name, limit): return "\(name): input is larger than the limit of \(limit) bytes"
        case let .plist(name, error): return "\(name): \(error)"
        case let .plistShape(name, key?): return "\(name): \(UntrustedText.quoted(key)) has the wrong type"
        case let .plistShape(name, nil): return "\(name): not a dictionary"
        case .encrypted: return "an encrypted backup: encrypted backups are not supported yet (make one without encryption)"
        case let .database(code, message): return "Manifest.db: \(UntrustedText.escaped(message)) (SQLite error \(code))"
        case let .column(column, domain, path):
            return "Manifest.db: the \(column) of \(Self.named(domain, path)) has the wrong type"
        case let .notListed(domain, path, true): return "Manifest.db lists no \(Self.named(domain, path))"
        case let .notListed(domain, path, false):
            return "Manifest.db lists no \(Self.named(domain, path)) (no file of \(UntrustedText.quoted(domain)) at all; "
                + "'ycft backup apps' lists the apps with state)"
        case let .appNotListed(app):
            return "Manifest.db lists no file of \(UntrustedText.quoted("AppDomain-" + app)): the app is not in this backup"
        case let .listedTwice(domain, path): return "Manifest.db lists \(Self.named(domain, path)) more than once"
        case let .notAFile(domain, path, flags): return "Manifest.db lists \(Self.named(domain, path)) as flags \(flags), not a file"
        case let .badFileID(fileID, domain, path):
            return "Manifest.db gives \(Self.named(domain, path)) the fileID \(UntrustedText.quoted(fileID)), "
                + "not 40 lowercase hex digits"
        case let .missingFile(fileID, domain, path, error):
            return "\(fileID.prefix(2))/\(fileID) (\(Self.named(domain, path))): \(error)"
        case let .notRegularFile(fileID, kind): return "\(fileID.prefix(2))/\(fileID): \(kind.phrase), not a regular file"
        }
    }

    /// `"Library/Preferences/x.plist" of "AppDomain-x"`.
    private static func named(_ domain: String, _ path: String) -> String {
        "\(UntrustedText.quoted(path)) of \(UntrustedText.quoted(domain))"
    }
}
