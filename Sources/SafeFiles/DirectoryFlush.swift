#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension SafeFile {
    /// Flushes the entries (new names, renames) of `directories` to disk: with one `syncfs` per
    /// file system they are on, which commits every directory there at once, where an `fsync` of
    /// each waited for a commit of its own (a batch writes into many folders; docs/performance.md).
    /// A directory on a file system without `syncfs`, or where it fails, gets its `fsync`; one
    /// that cannot be opened is left.
    package static func syncDirectories(_ directories: [String], hooks: WriteHooks = .init()) {
        syncDirectories(directories, flushFileSystem: hooks.flushFileSystem) { _ = fsync($0) }
    }

    /// ``syncDirectories(_:hooks:)`` with the flushes given: `flushFileSystem` for the file system
    /// holding an open directory (whether it flushed), `flushDirectory` for the directory alone.
    static func syncDirectories(_ directories: [String], flushFileSystem: (Int32) -> Bool, flushDirectory: (Int32) -> Void) {
        // Whether each file system (by device) was flushed whole.
        var flushed: [UInt64: Bool] = [:]
        for directory in directories {
            if case let .success(seen) = FileStatus.of(directory), flushed[seen.identity.device] == true { continue }
            let fd = open(PathBytes.cString(directory), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            guard fd >= 0 else { continue }
            defer { close(fd) }
            if case let .success(opened) = FileStatus.of(descriptor: fd) {
                let device = opened.identity.device
                let whole = flushed[device] ?? flushFileSystem(fd)
                flushed[device] = whole
                if whole { continue }
            }
            flushDirectory(fd)
        }
    }
}
