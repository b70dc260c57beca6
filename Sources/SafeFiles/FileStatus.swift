package import FileErrors
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Which file a path named when it was read, and its content's version: the inode, the size and
/// the modification time. Two equal identities mean "the same file, unchanged" as far as the
/// operating system can tell (the check GNU tools and editors make before replacing a file).
package struct FileIdentity: Sendable, Hashable {
    /// `st_dev`.
    package var device: UInt64
    /// `st_ino`.
    package var inode: UInt64
    /// `st_size`.
    package var size: Int64
    /// `st_mtim.tv_sec`.
    package var modifiedSeconds: Int64
    /// `st_mtim.tv_nsec`.
    package var modifiedNanoseconds: Int64

    package init(device: UInt64, inode: UInt64, size: Int64, modifiedSeconds: Int64, modifiedNanoseconds: Int64) {
        (self.device, self.inode, self.size) = (device, inode, size)
        (self.modifiedSeconds, self.modifiedNanoseconds) = (modifiedSeconds, modifiedNanoseconds)
    }

    /// The file alone (device and inode), whatever its content: for "is this the same file?".
    package struct Inode: Sendable, Hashable {
        /// `st_dev`.
        package var device: UInt64
        /// `st_ino`.
        package var inode: UInt64

        /// The inode of an identity.
        package init(_ identity: FileIdentity) {
            device = identity.device
            inode = identity.inode
        }
    }

    /// Whether both name the same inode (whatever its content).
    package func sameFile(as other: FileIdentity) -> Bool { device == other.device && inode == other.inode }
}

/// A file's kind, identity, permissions and owner.
package struct FileStatus: Sendable, Equatable {
    /// What the path names.
    package var kind: FileKind
    /// The inode and content version.
    package var identity: FileIdentity
    /// The permission bits, `st_mode & 0o7777` (setuid, setgid and sticky included).
    package var permissions: UInt32
    /// `st_uid`.
    package var owner: UInt32
    /// `st_gid`.
    package var group: UInt32
    /// `st_nlink`: the file's names (hard links); a replacement by rename takes only one.
    package var links: Int

    /// Creates a status from its parts (for tests and in-memory file systems).
    package init(kind: FileKind, identity: FileIdentity, permissions: UInt32, owner: UInt32, group: UInt32, links: Int = 1) {
        (self.kind, self.identity, self.permissions) = (kind, identity, permissions)
        (self.owner, self.group, self.links) = (owner, group, links)
    }

    init(_ info: stat) {
        kind = FileKind(mode: info.st_mode)
        #if canImport(Darwin)
        let mtime = info.st_mtimespec
        #else
        let mtime = info.st_mtim
        #endif
        identity = FileIdentity(device: UInt64(truncatingIfNeeded: info.st_dev), inode: UInt64(truncatingIfNeeded: info.st_ino),
                                size: Int64(truncatingIfNeeded: info.st_size),
                                modifiedSeconds: Int64(truncatingIfNeeded: mtime.tv_sec),
                                modifiedNanoseconds: Int64(truncatingIfNeeded: mtime.tv_nsec))
        permissions = UInt32(truncatingIfNeeded: info.st_mode) & 0o7777
        owner = UInt32(truncatingIfNeeded: info.st_uid)
        group = UInt32(truncatingIfNeeded: info.st_gid)
        links = Int(truncatingIfNeeded: info.st_nlink)
    }

    /// The status of `path` (`lstat` when `followLinks` is false), relative to the folder open
    /// as `folder` (`fstatat(2)`), or the `errno` of the failure.
    package static func of(_ path: String, in folder: Int32 = AT_FDCWD, followLinks: Bool = true) -> Result<FileStatus, SystemError> {
        var info = stat()
        let rc = PathBytes.withCString(path) { fstatat(folder, $0, &info, followLinks ? 0 : AT_SYMLINK_NOFOLLOW) }
        return rc == 0 ? .success(FileStatus(info)) : .failure(.current)
    }

    /// The status of an open descriptor.
    static func of(descriptor fd: Int32) -> Result<FileStatus, SystemError> {
        var info = stat()
        return fstat(fd, &info) == 0 ? .success(FileStatus(info)) : .failure(.current)
    }

    /// Opens `path` (relative to the folder open as `folder`) with `flags`, and the status of
    /// what it opened: the descriptor, which the caller closes, or the failure, nothing left open.
    static func open(_ path: String, in folder: Int32 = AT_FDCWD, _ flags: Int32) -> Result<(fd: Int32, status: FileStatus), SystemError> {
        let fd = PathBytes.withCString(path) { openat(folder, $0, flags) }
        guard fd >= 0 else { return .failure(.current) }
        return of(descriptor: fd).map { (fd, $0) }.mapError { error in
            close(fd)
            return error
        }
    }

    /// True when no one may write the file by its permission bits (`0444`, `0555`): the owner
    /// meant it read-only, which ycft respects also when it runs as root.
    package var isReadOnly: Bool { permissions & 0o222 == 0 }
}
