/// Why reading or writing a file failed, with the path it concerns. Library messages say what
/// happened; the command layer adds the flags that would change it.
///
/// ```swift
/// do { try SafeFile.write(bytes, to: "state.plist") } catch {
///     print("\(error.path): \(error)")    // "state.plist: not replaced: it is read-only (mode 0444)"
/// }
/// ```
public struct FileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong.
    public enum Reason: Sendable, Equatable {
        /// A system call failed.
        case system(SystemError)
        /// The path names a directory.
        case isDirectory
        /// The path names a file ycft neither replaces nor streams to (a socket, a block device).
        case unsupportedKind(FileKind)
        /// The path is a symbolic link whose target does not exist.
        case danglingLink(target: String)
        /// The file's permission bits allow no one to write it, or the process may not.
        case readOnly(permissions: UInt32)
        /// The file is not the one that was read (another inode, size or modification time).
        case changedSinceRead
        /// The file changed while it was being read.
        case changedWhileReading
        /// Another process holds the file's lock (another ycft working on it).
        case locked
        /// A file appeared at the path while a new one was being written there.
        case appeared
        /// Every backup name (`FILE.bak`, `FILE.bak.1` ... `FILE.bak.99`) is taken.
        case noFreeBackupName
        /// A file to be changed in place is not a regular file (a named pipe, a device, a socket):
        /// refused before it is opened, so nothing waits on it.
        case notRegularFile(FileKind)
        /// A file to be changed in place is named through an open descriptor (`/dev/stdin`,
        /// `/dev/stdout`, `/dev/fd/N`, `/proc/self/fd/N`, or a link to one), not by its own path;
        /// or an output is a descriptor name other than standard output and standard error
        /// (`SafeFile/standardStream(forOutput:)`).
        case descriptorName
        /// The file to write lies inside an iPhone backup folder (`folder`: the folder that
        /// holds `Manifest.db`, `Manifest.mbdb`, or two of `Manifest.plist`, `Status.plist` and
        /// `Info.plist`; SafeFiles' `BackupFolderGuard` decides), which is evidence ycft only reads.
        case insideBackup(folder: String)
        /// Whether the file lies inside an iPhone backup folder could not be told: a folder
        /// above it could not be looked at (`error`: a path longer than `PATH_MAX`, a folder
        /// that cannot be searched). Refused: ycft writes nowhere it cannot check.
        case backupUnknown(SystemError)
        /// Secret bytes (a decrypted backup's file) and a target others could read them from: a
        /// named pipe or a device (`kind`), or a regular file whose `permissions` give its group
        /// or others any access, which its replacement would keep.
        case notPrivate(FileKind, permissions: UInt32)
        /// Secret bytes and a regular file that another user (`owner`) owns, not the process's
        /// effective user (`user`): the replacement would keep its owner (root gives it back),
        /// who could then read them whatever the mode.
        case notOwned(owner: UInt32, user: UInt32)
        /// Secret bytes and an output named through an open descriptor (`/dev/stderr`,
        /// `/dev/fd/N`, `/proc/self/fd/N`, or a link to one): whatever it is open on (a terminal,
        /// a pipe into a logger, a log file) was opened before ycft ran, for others to read.
        case descriptorNotPrivate
    }

    /// The operation that failed.
    public enum Operation: String, Sendable {
        /// Reading an input.
        case read = "cannot read"
        /// Writing or replacing a file.
        case write = "cannot write"
        /// Making a backup.
        case backup = "cannot back up"
        /// Reading a file to change it in place (`set`, `migrate --in-place`, ...).
        case inPlace = "not changed in place"
    }

    /// The path the error concerns (the file a symbolic link points to, when it was followed).
    public let path: String
    /// The operation.
    public let operation: Operation
    /// Why.
    public let reason: Reason

    /// Creates an error.
    public init(_ operation: Operation, _ path: String, _ reason: Reason) {
        self.operation = operation
        self.path = path
        self.reason = reason
    }

    /// `cannot write: No space left on device`, `not replaced: it is read-only (mode 0444)`, ...
    public var description: String {
        switch reason {
        case let .system(error): return "\(operation.rawValue): \(error)"
        case .isDirectory: return "\(operation.rawValue): Is a directory"
        case let .unsupportedKind(kind) where operation == .read: return "\(operation.rawValue): it is \(kind.phrase)"
        case let .unsupportedKind(kind): return "\(operation.rawValue): it is \(kind.phrase), which ycft neither replaces nor writes to"
        case let .danglingLink(target): return "\(operation.rawValue): it is a symbolic link to \"\(target)\", which does not exist"
        case let .readOnly(permissions):
            return "not replaced: it is read-only (mode \(Self.octal(permissions)))"
        case .changedSinceRead: return "not replaced: it changed after ycft read it (another program wrote it)"
        case .changedWhileReading: return "\(operation.rawValue): it changed while ycft was reading it"
        case .locked: return "\(operation.rawValue): another process (another ycft, or an open 'ycft edit') is working on it; try again when it is done"
        case .appeared: return "not written: a file appeared at this path while ycft was writing it"
        case .noFreeBackupName: return "\(operation.rawValue): every backup name up to .99 is taken"
        case let .notRegularFile(kind): return "\(operation.rawValue): it is \(kind.phrase); only a regular file is changed in place"
        case .descriptorName where operation == .write:
            return "\(operation.rawValue): it names an open descriptor, not a file; ycft writes to standard output "
                + "(- or /dev/stdout), standard error (/dev/stderr) or a file by its own path"
        case .descriptorName:
            return "\(operation.rawValue): it names an open descriptor (standard input or output), not a file; give the file's own path"
        case let .insideBackup(folder):
            return "\(operation.rawValue): it is inside the iPhone backup \"\(folder)\", which ycft never writes into"
        case let .backupUnknown(error):
            return "\(operation.rawValue): cannot tell whether it is inside an iPhone backup, which ycft never writes into "
                + "(a folder above it cannot be looked at: \(error))"
        case let .notPrivate(kind, _) where kind != .regular:
            return "\(operation.rawValue): it is \(kind.phrase), which anyone who may open it would read decrypted bytes from"
        case let .notPrivate(_, permissions):
            return "not replaced: its mode \(Self.octal(permissions)) lets \(Self.others(permissions)), and the replacement would keep that mode"
        case let .notOwned(owner, user):
            return "not replaced: it belongs to uid \(owner), not to uid \(user) that ycft runs as, and the replacement would keep that owner"
        case .descriptorNotPrivate:
            return "\(operation.rawValue): it names an open descriptor (a terminal, a pipe or a log file others may read), "
                + "not a file by its own path"
        }
    }

    /// `permissions` as four octal digits: `0644`.
    static func octal(_ permissions: UInt32) -> String {
        let digits = String(permissions & 0o7777, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    /// Who besides the owner `permissions` let in, and how: `its group read it`, `others read
    /// and write it`, `its group write it and others read it`.
    static func others(_ permissions: UInt32) -> String {
        func access(_ bits: UInt32) -> String? {
            let words = [(UInt32(0o4), "read"), (0o2, "write"), (0o1, "execute")].filter { bits & $0.0 != 0 }.map(\.1)
            switch words.count {
            case 0: return nil
            case 1: return words[0] + " it"
            default: return words.dropLast().joined(separator: ", ") + " and " + words[words.count - 1] + " it"
            }
        }
        let parts = [access((permissions >> 3) & 7).map { "its group " + $0 }, access(permissions & 7).map { "others " + $0 }]
        return parts.compactMap { $0 }.joined(separator: " and ")
    }
}
