package import FileErrors
package import KeyedArchive
package import PlistCore
internal import SafeFiles

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
    /// No `Manifest.db`, but folders that are device backups (the folder of all backups,
    /// `MobileSync/Backup`, given for one of them): those backups, sorted by name.
    case folderOfBackups([PhoneBackup.DeviceBackup])
    /// No `Manifest.db`, and more entries than ycft looks through for device backups
    /// (``PhoneBackup/maxFolderEntries``): whether it is a folder of backups is not known.
    case tooManyEntries(limit: Int)
    /// `Manifest.plist`, `Info.plist` or `Status.plist` cannot be read.
    case file(name: String, FileError)
    /// One of the property lists is larger than the input limit.
    case tooLarge(name: String, limit: Int)
    /// One of the property lists is not a readable property list.
    case plist(name: String, PlistError)
    /// One of the property lists is not a dictionary, or `key` in it has the wrong type.
    case plistShape(name: String, key: String?)
    /// `Manifest.plist` says `IsEncrypted`, and no password was given (the tool asks for one
    /// only on a terminal).
    case encrypted
    /// `BackupKeyBag` in `Manifest.plist` cannot be read.
    case keyBag(KeyBagError)
    /// The password did not open the keybag (no class key's unwrap passed its integrity check).
    case wrongPassword
    /// `what` is encrypted with a key of this protection class, whose key the keybag wraps with
    /// the password but which did not unwrap while others did: the password is right, that
    /// class key was altered.
    case classKeyAltered(UInt32, of: String)
    /// `what` (`Manifest.db` or a file) is encrypted with a key of this protection class, which
    /// the keybag does not hold or the password does not open.
    case noClassKey(UInt32, of: String)
    /// `what`'s wrapped key (`ManifestKey`, or a file's `EncryptionKey`) is not a 4-byte class and
    /// 40 bytes of wrapped key, or does not unwrap with its class's key (altered).
    case wrappedKey(of: String, unwraps: Bool)
    /// A file's row in `Manifest.db` has a `file` record (an `MBFile` archive) that cannot be
    /// read (`archive`), or lacks `key` or holds it with the wrong type.
    case fileRecord(fileID: String, key: String?, ArchiveError?)
    /// `what` did not decrypt: not whole 16-byte blocks, wrong padding (cut short or altered), or
    /// a plain length other than the record's `Size`.
    case decryption(of: String, DecryptionProblem)
    /// A libcrypto call failed (out of memory, a missing cipher): not the backup's fault.
    case libcrypto(String)
    /// A system library loaded on first use (`dlopen`) is not installed, or lacks a call ycft makes.
    case missingLibrary(SystemLibrary)
    /// SQLite refused `Manifest.db` or a query on it (`sqlite3_errmsg`, with the result code):
    /// not a database, no `Files` table, a value too long, ...
    case database(code: Int32, message: String)
    /// `Manifest.db-wal` beside `Manifest.db` holds `bytes`: changes the database may not have
    /// yet, which ycft does not read (it reads `Manifest.db` alone, from memory).
    case writeAheadLog(bytes: Int)
    /// `Manifest.db-journal` beside `Manifest.db` holds `bytes` and starts with SQLite's journal
    /// header: a hot journal, left by a transaction that did not finish, whose changes
    /// `Manifest.db` may hold and which SQLite would roll back on its next open; ycft rolls
    /// nothing back (it reads `Manifest.db` alone, from memory).
    case hotJournal(bytes: Int)
    /// `Manifest.db-wal` or `Manifest.db-journal` (`name`) is not a regular file but a link, a
    /// pipe or a folder (`kind`): ycft follows no link in a backup, so cannot tell whether it
    /// holds changes `Manifest.db` lacks.
    case logNotRegular(name: String, FileKind)
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
        case let .folderOfBackups(backups):
            let count = backups.count == 1 ? "a device backup" : "\(backups.count) device backups"
            return "no Manifest.db: not a backup but a folder holding \(count); give \(backups.count == 1 ? "it" : "one of them") as BACKUP:"
                + backups.map { "\n  " + Self.line($0) }.joined()
        case let .tooManyEntries(limit):
            return "no Manifest.db, and more than \(limit) entries, more than ycft looks through for device backups: "
                + "give one backup's folder (named after the device's UDID) as BACKUP"
        case let .file(name, error): return "\(name): \(error)"
        case let .tooLarge(name, limit): return "\(name): input is larger than the limit of \(limit) bytes"
        case let .plist(name, error): return "\(name): \(error)"
        case let .plistShape(name, key?): return "\(name): \(UntrustedText.quoted(key)) has the wrong type"
        case let .plistShape(name, nil): return "\(name): not a dictionary"
        case .encrypted: return "an encrypted backup and no password: give --password-file FILE, or run ycft on a terminal to type it"
        case let .keyBag(problem): return "Manifest.plist: BackupKeyBag: \(problem)"
        case .wrongPassword: return "wrong password (the backup's keybag did not open)"
        case let .noClassKey(number, what): return "\(what): encrypted with protection class \(number), whose key the password does not open"
        case let .classKeyAltered(number, what):
            return "\(what): encrypted with protection class \(number), whose key in the keybag does not unwrap "
                + "although the password opened the other class keys (the keybag was altered)"
        case let .wrappedKey(what, false): return "\(what): its wrapped key is not a 4-byte class and 40 bytes of key"
        case let .wrappedKey(what, true): return "\(what): its wrapped key does not unwrap with its class's key (altered)"
        case let .fileRecord(fileID, nil, error?): return "Manifest.db: the file record of \(fileID): \(error)"
        case let .fileRecord(fileID, key?, _): return "Manifest.db: the file record of \(fileID) has no \(key) of the right type"
        case let .fileRecord(fileID, nil, nil): return "Manifest.db: the file record of \(fileID) is not an MBFile"
        case let .decryption(what, problem): return "\(what): \(problem)"
        case let .libcrypto(call): return "libcrypto's \(call) failed"
        case .missingLibrary(.libcrypto):
            return "OpenSSL's libcrypto (3 or 1.1) could not be loaded, which an encrypted backup needs (Debian and Ubuntu: libssl3)"
        case .missingLibrary(.sqlite):
            return "SQLite 3.36 or later could not be loaded, which reading Manifest.db needs (Debian and Ubuntu: libsqlite3-0)"
        case let .database(code, message): return "Manifest.db: \(UntrustedText.escaped(message)) (SQLite error \(code))"
        case let .writeAheadLog(bytes):
            return "Manifest.db-wal (\(bytes) bytes) beside Manifest.db may hold changes the database does not have yet, and ycft "
                + "reads no write-ahead log; fold it in on a copy of the backup ('sqlite3 COPY/Manifest.db \"PRAGMA "
                + "wal_checkpoint(TRUNCATE)\"') and read the copy"
        case let .hotJournal(bytes):
            return "Manifest.db-journal (\(bytes) bytes) beside Manifest.db is the journal of a transaction that did not finish: "
                + "Manifest.db may hold changes that were never committed, and ycft rolls no journal back; roll it back on a copy "
                + "of the backup (sqlite3 does when it opens the database: 'sqlite3 COPY/Manifest.db \"PRAGMA quick_check\"') "
                + "and read the copy"
        case let .logNotRegular(name, kind):
            return "\(name) beside Manifest.db is \(kind.phrase), not a regular file: ycft follows no link in a backup and "
                + "cannot tell whether it holds changes Manifest.db does not have; on a copy of the backup, put the file "
                + "itself in its place (or remove it if it is no \(name == "Manifest.db-wal" ? "log" : "journal")) and read the copy"
        case let .column(column, domain, path):
            return "Manifest.db: the \(column) of \(Self.named(domain, path)) has the wrong type"
        case let .notListed(domain, path, true): return "Manifest.db lists no \(Self.named(domain, path))"
        case let .notListed(domain, path, false):
            return "Manifest.db lists no \(Self.named(domain, path)) (no file of \(PhoneBackup.quoted(domain)) at all; "
                + "'ycft backup apps' lists the apps with state)"
        case let .appNotListed(app):
            return "Manifest.db lists no file of \(PhoneBackup.quoted("AppDomain-" + app)): the app is not in this backup"
        case let .listedTwice(domain, path): return "Manifest.db lists \(Self.named(domain, path)) more than once"
        case let .notAFile(domain, path, flags): return "Manifest.db lists \(Self.named(domain, path)) as flags \(flags), not a file"
        case let .badFileID(fileID, domain, path):
            return "Manifest.db gives \(Self.named(domain, path)) the fileID \(PhoneBackup.quoted(fileID)), "
                + "not 40 lowercase hex digits"
        case let .missingFile(fileID, domain, path, error):
            return "\(fileID.prefix(2))/\(fileID) (\(Self.named(domain, path))): \(error)"
        case let .notRegularFile(fileID, kind): return "\(fileID.prefix(2))/\(fileID): \(kind.phrase), not a regular file"
        }
    }

    /// A library of the system that ycft loads only when a backup needs it.
    package enum SystemLibrary: Sendable, Equatable {
        /// OpenSSL's `libcrypto` (`libcrypto.so.3` or `.so.1.1`), for an encrypted backup.
        case libcrypto
        /// SQLite (`libsqlite3.so.0`), for `Manifest.db`.
        case sqlite
    }

    /// Why encrypted bytes did not decrypt.
    package enum DecryptionProblem: Sendable, Equatable, CustomStringConvertible {
        /// The length is not a whole, non-zero number of 16-byte blocks.
        case notBlocks(Int)
        /// The padding after decryption is not PKCS#7: cut short or altered.
        case padding
        /// The plain length is not the one the file record's `Size` gives, the padding valid: a
        /// warning, the bytes are read (``PhoneBackup/FileContents/warning``).
        case size(Int, expected: Int64)

        package var description: String {
            switch self {
            case let .notBlocks(count): return "\(count) encrypted bytes are not whole 16-byte blocks (cut short?)"
            case .padding: return "does not decrypt (its padding is wrong: cut short or altered)"
            case let .size(count, expected):
                return "decrypts to \(count) bytes with a valid padding, but its record in Manifest.db says \(expected); read as decrypted"
            }
        }
    }

    /// One device backup as ``folderOfBackups(_:)`` lists it: its folder, the device, its
    /// iOS, the date and whether it is encrypted, each left out when not known.
    private static func line(_ backup: PhoneBackup.DeviceBackup) -> String {
        var parts = [PathBytes.displayed(backup.path, other: UntrustedText.escaped)]
        if let name = backup.deviceName { parts.append(UntrustedText.quoted(name)) }
        if let version = backup.productVersion { parts.append("iOS " + UntrustedText.escaped(version)) }
        if let date = backup.date, let text = ExactTime.utcString(secondsSince2001: date) { parts.append("made " + text) }
        switch backup.isEncrypted {
        case true?: parts.append("encrypted")
        case false?: parts.append("not encrypted")
        case nil: break
        }
        if backup.isOld { parts.append("iOS 9 or earlier, not supported") }
        return parts.joined(separator: ", ")
    }

    /// `"Library/Preferences/x.plist" of "AppDomain-x"`.
    private static func named(_ domain: String, _ path: String) -> String {
        "\(PhoneBackup.quoted(path)) of \(PhoneBackup.quoted(domain))"
    }
}
