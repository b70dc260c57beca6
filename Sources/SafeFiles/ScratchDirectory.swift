package import FileErrors
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A private directory for a file that another program (an editor) changes: `ycft edit`'s
/// scratch file. The directory is made with `mkdtemp(3)` (mode `0700`) and every operation goes
/// through a descriptor of it, so a name swapped inside never redirects ycft:
/// - ``create(_:_:)`` makes the file anew each time (`O_CREAT|O_EXCL|O_NOFOLLOW`, mode `0600`),
///   after removing whatever the editor left under its name (a file, a link, a pipe);
/// - ``read(_:limit:)`` reads it without following links, only when it is a regular file, and
///   never more than the limit (the size is checked before a byte is read);
/// - ``remove()`` removes the directory and everything in it; ``keep()`` leaves it in place.
package final class ScratchDirectory {
    /// The directory's path (`PARENT/PREFIXxxxxxx`).
    package let path: String
    /// `O_DIRECTORY|O_NOFOLLOW` descriptor of the directory; -1 once removed or kept.
    private var fd: Int32

    private init(path: String, fd: Int32) {
        self.path = path
        self.fd = fd
    }

    /// Makes a new private directory in `parent`: `mkdtemp(3)` of `PARENT/PREFIXXXXXXX`.
    /// - Throws: ``FileError`` (operation `.write`, path `parent`) from `mkdtemp` or `open`.
    package static func make(in parent: String, prefix: String) throws(FileError) -> ScratchDirectory {
        // Never in an iPhone backup (a TMPDIR inside one), even for a while.
        try BackupFolderGuard().refuse((parent.hasSuffix("/") ? parent : parent + "/") + prefix, .write)
        var base = parent
        while base.count > 1 && base.hasSuffix("/") { base.removeLast() }
        // Through PathBytes: a TMPDIR that is not UTF-8 keeps its own bytes.
        var template = PathBytes.cString("\(base == "/" ? "" : base)/\(prefix)XXXXXX")
        let made = template.withUnsafeMutableBufferPointer { buffer in buffer.baseAddress.flatMap { mkdtemp($0) } }
        guard made != nil else { throw FileError(.write, parent, .system(.current)) }
        // unreachable: the template is never empty, so its buffer has an address
        let path = template.withUnsafeBufferPointer { buffer in buffer.baseAddress.map { PathBytes.decode(cString: $0) } ?? "" }
        let fd = open(PathBytes.cString(path), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else {
            let failure = SystemError.current
            rmdir(PathBytes.cString(path))
            throw FileError(.write, parent, .system(failure))
        }
        return ScratchDirectory(path: path, fd: fd)
    }

    /// The path of the file `name` in the directory (what the editor is given).
    package func path(of name: String) -> String { "\(path)/\(name)" }

    /// Creates the file `name` anew holding `bytes`: whatever is at that name is removed first
    /// (a link is removed, never followed), then a new file is made exclusively
    /// (`O_CREAT|O_EXCL|O_NOFOLLOW`, mode `0600`).
    /// - Throws: ``FileError`` (operation `.write`) from `unlinkat`, `openat` or `write`.
    package func create(_ name: String, _ bytes: [UInt8]) throws(FileError) {
        let target = path(of: name)
        guard fd >= 0 else { throw FileError(.write, target, .system(SystemError(errno: EBADF))) }
        if unlinkat(fd, PathBytes.cString(name), 0) != 0 {
            let failure = SystemError.current
            switch failure.errno {
            case ENOENT: break
            case EISDIR, EPERM:
                // The editor left a directory under the name.
                ScratchDirectory.removeEntry(name, in: fd, depth: 0)
            default: throw FileError(.write, target, .system(failure))
            }
        }
        let file = openat(fd, PathBytes.cString(name), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard file >= 0 else { throw FileError(.write, target, .system(.current)) }
        defer { close(file) }
        // The umask may have taken bits away; 0600 exactly.
        _ = fchmod(file, 0o600)
        do { try writeAll(file, bytes) } catch { throw FileError(.write, target, .system(error)) }
    }

    /// Reads the file `name`, at most `limit` bytes: nil when it is larger (by its size before
    /// reading, or by what reading found). A symbolic link is not followed and anything but a
    /// regular file is refused, without blocking (a named pipe is not opened for a writer).
    /// - Throws: ``FileError`` (operation `.read`): ``FileError/Reason/unsupportedKind(_:)``
    ///   with the kind found (`.symbolicLink`, `.fifo`, `.directory`...), or `.system` from
    ///   `openat` or `read` (`ENOENT` when the editor removed the file).
    package func read(_ name: String, limit: Int) throws(FileError) -> [UInt8]? {
        let target = path(of: name)
        guard fd >= 0 else { throw FileError(.read, target, .system(SystemError(errno: EBADF))) }
        return try ReadOnlyFolder.read(name, in: fd, shownAs: target, limit: limit)
    }

    /// Removes the directory and everything in it (what the editor left too: swap and backup
    /// files, directories). Never follows a link. Safe to call more than once.
    package func remove() {
        guard fd >= 0 else { return }
        ScratchDirectory.removeContents(of: fd, depth: 0)
        keep()
        rmdir(PathBytes.cString(path))
    }

    /// Leaves the directory and its files in place (to hand a file to the user) and closes it.
    package func keep() {
        guard fd >= 0 else { return }
        close(fd)
        fd = -1
    }

    deinit { keep() }

    /// Deep enough for any editor's leftovers; deeper trees are left (and rmdir fails quietly).
    private static let maxDepth = 16

    private static func removeContents(of directory: Int32, depth: Int) {
        guard depth <= maxDepth else { return }
        for name in entries(of: directory) { removeEntry(name, in: directory, depth: depth) }
    }

    private static func removeEntry(_ name: String, in directory: Int32, depth: Int) {
        if unlinkat(directory, PathBytes.cString(name), 0) == 0 { return }
        let failure = errno
        guard failure == EISDIR || failure == EPERM else { return }
        let sub = openat(directory, PathBytes.cString(name), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard sub >= 0 else { return }
        removeContents(of: sub, depth: depth + 1)
        close(sub)
        _ = unlinkat(directory, PathBytes.cString(name), AT_REMOVEDIR)
    }

    /// The names in a directory (without `.` and `..`), read through a duplicate descriptor.
    private static func entries(of directory: Int32) -> [String] {
        let copy = dup(directory)
        return copy < 0 ? [] : (try? DirectoryHandle.names(of: copy).get()) ?? []
    }
}
