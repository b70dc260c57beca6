#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a path names, from `lstat(2)` or `fstat(2)`.
public enum FileKind: Sendable, Equatable {
    /// A regular file.
    case regular
    /// A directory.
    case directory
    /// A symbolic link (only from a status that does not follow links).
    case symbolicLink
    /// A named pipe.
    case fifo
    /// A character device (a terminal, `/dev/null`, `/dev/full`).
    case characterDevice
    /// A block device.
    case blockDevice
    /// A socket.
    case socket
    /// Anything else.
    case other

    /// The kind that the file-type bits of a `stat` mode name.
    package init(mode: mode_t) {
        switch mode & S_IFMT {
        case S_IFREG: self = .regular
        case S_IFDIR: self = .directory
        case S_IFLNK: self = .symbolicLink
        case S_IFIFO: self = .fifo
        case S_IFCHR: self = .characterDevice
        case S_IFBLK: self = .blockDevice
        case S_IFSOCK: self = .socket
        default: self = .other
        }
    }

    /// `a regular file`, `a directory`, ... for messages.
    public var phrase: String {
        switch self {
        case .regular: return "a regular file"
        case .directory: return "a directory"
        case .symbolicLink: return "a symbolic link"
        case .fifo: return "a named pipe"
        case .characterDevice: return "a character device"
        case .blockDevice: return "a block device"
        case .socket: return "a socket"
        case .other: return "a special file"
        }
    }
}
