package import FileErrors
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A folder opened once and read only through its descriptor: evidence another program may
/// still be changing (an iPhone backup). A name inside never redirects a read, whatever is
/// swapped in between a look and an open: ``folder(_:)`` and ``read(_:limit:)`` open the name
/// relative to the folder's descriptor without following a link (`O_NOFOLLOW`), without
/// waiting on a pipe (`O_NONBLOCK`), and read only a regular file, never more than the limit.
///
/// ```swift
/// let backup = try ReadOnlyFolder("Backup/00008030-001A")
/// let manifest = try backup.read("Manifest.plist", limit: 1 << 20)   // nil when larger
/// let file = try backup.folder("3d").read("3d0d7e5f...", limit: 1 << 20)
/// ```
package final class ReadOnlyFolder {
    /// The folder's path, as given.
    package let path: String
    private let fd: Int32

    /// Opens the folder at `path` (`O_DIRECTORY`; links in `path` itself are followed: the
    /// folder is the one the user named).
    /// - Throws: ``FileError`` (operation `.read`): `ENOTDIR` for what is not a folder, or what
    ///   `open` says.
    package init(_ path: String) throws(FileError) {
        let fd = open(PathBytes.cString(path), O_RDONLY | O_DIRECTORY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else { throw FileError(.read, path, .system(.current)) }
        (self.path, self.fd) = (path, fd)
    }

    private init(path: String, fd: Int32) { (self.path, self.fd) = (path, fd) }

    deinit { close(fd) }

    /// The path of `name` in the folder, as messages show it.
    package func path(of name: String) -> String { path == "/" ? "/" + name : path + "/" + name }

    /// The folder `name` in this one, itself a folder and not a link to one; with
    /// `followingLink`, a link to a folder too (the folder it leads to, wherever it is: for
    /// what a user named by linking it there, never for a file a backup lists).
    /// - Throws: ``FileError`` (operation `.read`): ``FileError/Reason/unsupportedKind(_:)``
    ///   with the kind found, or what `openat` says (`ENOENT`).
    package func folder(_ name: String, followingLink: Bool = false) throws(FileError) -> ReadOnlyFolder {
        let flags = O_RDONLY | O_DIRECTORY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | (followingLink ? 0 : O_NOFOLLOW)
        let sub = openat(fd, PathBytes.cString(name), flags)
        guard sub >= 0 else { throw Self.openFailure(name, .current, in: fd, shownAs: path(of: name), expected: .directory) }
        return ReadOnlyFolder(path: path(of: name), fd: sub)
    }

    /// The names in the folder (`.` and `..` left out), in the order the file system gives,
    /// at most `limit` of them (the rest are not looked at).
    /// - Throws: ``FileError`` (operation `.read`) with what `fdopendir` or `readdir` says.
    package func names(limit: Int) throws(FileError) -> [String] {
        let copy = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_NOCTTY | O_CLOEXEC)
        guard copy >= 0 else { throw FileError(.read, path, .system(.current)) }
        do { return try DirectoryHandle.names(of: copy, limit: limit).get() } catch { throw FileError(.read, path, .system(error)) }
    }

    /// What `name` in the folder is, without following a link (`fstatat`); nil when there is
    /// nothing of that name (or it cannot be looked at).
    package func kind(of name: String) -> FileKind? {
        var info = stat()
        guard fstatat(fd, PathBytes.cString(name), &info, AT_SYMLINK_NOFOLLOW) == 0 else { return nil }
        return FileKind(mode: info.st_mode)
    }

    /// Reads the regular file `name`, at most `limit` bytes: nil when it is larger.
    /// - Throws: ``FileError`` (operation `.read`): ``FileError/Reason/unsupportedKind(_:)``
    ///   with the kind found (`.symbolicLink`, `.fifo`, `.directory`...), or what `openat` or
    ///   `read` says (`ENOENT` for a missing file).
    package func read(_ name: String, limit: Int) throws(FileError) -> [UInt8]? {
        try Self.read(name, in: fd, shownAs: path(of: name), limit: limit)
    }

    /// The size of the regular file `name` and its first `count` bytes (all of them when it is
    /// shorter): a file's header, read without reading the rest (a journal as large as its
    /// database).
    /// - Throws: ``FileError`` as ``read(_:limit:)`` throws it.
    package func head(_ name: String, count: Int) throws(FileError) -> (size: Int64, bytes: [UInt8]) {
        let (file, size) = try Self.openRegular(name, in: fd, shownAs: path(of: name))
        defer { close(file) }
        do {
            let bytes = try readAll(file, limit: max(count, 0), expectedSize: Int(clamping: min(size, Int64(max(count, 0)))))
            return (size, Array(bytes.prefix(count)))
        } catch {
            throw FileError(.read, path(of: name), .system(error))
        }
    }

    /// Reads the regular file `name` in the folder open as `directory` (see ``read(_:limit:)``);
    /// `target` is its path in messages.
    static func read(_ name: String, in directory: Int32, shownAs target: String, limit: Int) throws(FileError) -> [UInt8]? {
        let (file, size) = try openRegular(name, in: directory, shownAs: target)
        defer { close(file) }
        guard size >= 0, UInt64(size) <= UInt64(max(limit, 0)) else { return nil }
        let bytes: [UInt8]
        do { bytes = try readAll(file, limit: limit, expectedSize: Int(clamping: size)) } catch { throw FileError(.read, target, .system(error)) }
        return bytes.count > limit ? nil : bytes
    }

    /// Opens the regular file `name` in the folder open as `directory`, no link followed and no
    /// pipe waited on.
    /// - Returns: the descriptor (the caller closes it) and the file's size.
    /// - Throws: ``FileError`` (operation `.read`): ``FileError/Reason/unsupportedKind(_:)`` for
    ///   what is not a regular file, or what `openat` or `fstat` says.
    private static func openRegular(_ name: String, in directory: Int32, shownAs target: String) throws(FileError) -> (Int32, Int64) {
        let (file, status): (Int32, FileStatus)
        switch FileStatus.open(name, in: directory, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC) {
        case let .success(opened): (file, status) = opened
        case let .failure(error): throw openFailure(name, error, in: directory, shownAs: target, expected: .regular)
        }
        guard status.kind == .regular else {
            close(file)
            throw FileError(.read, target, .unsupportedKind(status.kind))
        }
        return (file, status.identity.size)
    }

    /// Why `name` did not open (`failure`): its kind when it is there but not the `expected` kind
    /// (a link refused by `O_NOFOLLOW`, a socket, a file where a folder was asked), else `failure`.
    private static func openFailure(_ name: String, _ failure: SystemError, in directory: Int32, shownAs target: String,
                                    expected: FileKind) -> FileError {
        // A regular file where a folder was asked for says so as `open` does (ENOTDIR).
        if case let .success(seen) = FileStatus.of(name, in: directory, followLinks: false), seen.kind != expected, seen.kind != .regular {
            return FileError(.read, target, .unsupportedKind(seen.kind))
        }
        return FileError(.read, target, .system(failure))
    }
}
