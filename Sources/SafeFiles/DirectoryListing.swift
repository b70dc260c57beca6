package import FileErrors
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The regular files below a directory, and the directories below it that could not be read.
package struct DirectoryListing: Sendable, Equatable {
    /// A directory that `opendir(3)` or `readdir(3)` refused.
    package struct Unreadable: Sendable, Equatable {
        /// Its path relative to the listed directory.
        package var path: String
        /// Why (`EACCES` for a directory without read or search permission).
        package var error: SystemError

        package init(path: String, error: SystemError) { (self.path, self.error) = (path, error) }
    }

    /// Every regular file below the directory, as paths relative to it (``PathBytes`` strings), sorted.
    package var files: [String]
    /// The directories below it that could not be read, sorted by path.
    package var unreadable: [Unreadable]

    package init(files: [String], unreadable: [Unreadable] = []) { (self.files, self.unreadable) = (files, unreadable) }

    /// Walks `directory` with `opendir`/`readdir`/`lstat`: names are read as bytes
    /// (``PathBytes/decode(_:)``), so no name is lost; symbolic links are neither followed nor
    /// listed; a subdirectory that cannot be read is reported in ``unreadable`` and the rest of
    /// the tree is still walked.
    /// - Throws: ``SystemError`` when `directory` itself cannot be opened.
    package static func regularFiles(below directory: String) throws(SystemError) -> DirectoryListing {
        guard let top = opendir(PathBytes.cString(directory)) else { throw .current }
        var listing = DirectoryListing(files: [])
        var pending: [(handle: DirectoryHandle, relative: String)] = [(DirectoryHandle(top), "")]
        // Depth-first, one open directory per level (a tree deeper than the descriptor limit
        // reports its deepest directories as unreadable, with EMFILE).
        while let current = pending.last {
            guard let name = current.handle.next() else {
                if let error = current.handle.error {
                    listing.unreadable.append(Unreadable(path: current.relative.isEmpty ? "." : current.relative, error: error))
                }
                pending.removeLast()
                continue
            }
            let relative = current.relative.isEmpty ? name : current.relative + "/" + name
            let status: FileStatus
            // Looked at in the directory being read, by its descriptor (no path rebuilt and resolved again).
            switch FileStatus.of(name, in: current.handle.fd, followLinks: false) {
            case let .success(found): status = found
            case let .failure(error) where error.errno == ENOENT: continue  // removed meanwhile
            case let .failure(error):
                // A directory that may be read but not searched (mode r--): its names are
                // there, its files cannot be reached. Reported once, as the directory.
                listing.unreadable.append(Unreadable(path: current.relative.isEmpty ? "." : current.relative, error: error))
                pending.removeLast()
                continue
            }
            switch status.kind {
            case .regular: listing.files.append(relative)
            case .directory:
                let fd = openat(current.handle.fd, PathBytes.cString(name), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
                if fd >= 0, let handle = fdopendir(fd) {
                    pending.append((DirectoryHandle(handle), relative))
                } else {
                    listing.unreadable.append(Unreadable(path: relative, error: .current))
                    if fd >= 0 { close(fd) }
                }
            default: continue
            }
        }
        listing.files.sort()
        listing.unreadable.sort { $0.path < $1.path }
        return listing
    }
}

/// One open directory stream, closed when dropped.
package final class DirectoryHandle {
    #if canImport(Darwin)
    typealias Stream = UnsafeMutablePointer<DIR>
    #else
    typealias Stream = OpaquePointer
    #endif
    private let stream: Stream
    /// The `readdir` failure that ended the listing early, if one did.
    private(set) var error: SystemError?

    init(_ stream: Stream) { self.stream = stream }

    /// The directory's descriptor (`dirfd(3)`), for calls on names in it.
    var fd: Int32 { dirfd(stream) }

    deinit { closedir(stream) }

    /// The name in an entry `readdir(3)` returned, read where it lies, up to its NUL. An entry
    /// is only as long as its name needs (`d_reclen`): copying the whole `d_name` field (256
    /// bytes), as `entry.pointee.d_name` does, read past the last entry of the stream's buffer
    /// (AddressSanitizer: heap-buffer-overflow, in a folder of 10,001 entries).
    package static func name(of entry: UnsafePointer<dirent>) -> String {
        // unreachable: nil only for a computed property; `d_name` is a stored field of a C struct
        guard let offset = MemoryLayout<dirent>.offset(of: \dirent.d_name) else { return "" }
        return PathBytes.decode(cString: (UnsafeRawPointer(entry) + offset).assumingMemoryBound(to: CChar.self))
    }

    /// The names in the directory open as `fd` (`.` and `..` left out, in the order the file
    /// system gives, at most `limit`), read from its start through a stream that takes `fd` and
    /// closes it; or what `fdopendir` or `readdir` says.
    static func names(of fd: Int32, limit: Int = .max) -> Result<[String], SystemError> {
        guard let stream = fdopendir(fd) else {
            let failure = SystemError.current
            close(fd)
            return .failure(failure)
        }
        rewinddir(stream)
        let handle = DirectoryHandle(stream)
        var names: [String] = []
        while names.count < limit, let name = handle.next() { names.append(name) }
        return handle.error.map { .failure($0) } ?? .success(names)
    }

    /// The next entry's name (`.` and `..` skipped), or nil at the end or on an error.
    func next() -> String? {
        while true {
            errno = 0
            guard let entry = readdir(stream) else {
                if errno != 0 { error = .current }
                return nil
            }
            let name = Self.name(of: entry)
            if name == "." || name == ".." { continue }
            return name
        // unreachable: the end of `while true`, which only returns
        }
    }
}
