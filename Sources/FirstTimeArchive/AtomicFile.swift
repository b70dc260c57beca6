import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An operating-system error with its `errno`, described the way `strerror` does.
public struct SystemError: Error, Sendable, CustomStringConvertible {
    /// The `errno` value.
    public let errno: Int32
    /// `strerror(errno)`.
    public var description: String { String(cString: strerror(errno)) }

    /// Wraps an `errno` value.
    public init(errno: Int32) { self.errno = errno }
}

/// Replaces files atomically: a temporary file in the same directory, flushed to disk, then
/// renamed over the target, keeping the target's permissions. On any failure the target is
/// untouched and the temporary file is removed.
public enum AtomicFile {
    /// Replaces `path` with `bytes` atomically. An existing file keeps its permissions; a new
    /// one takes those of `modeOf` when given, else the umask's default. Temporary files that
    /// an earlier, killed run left for the same path are removed first.
    /// - Throws: ``SystemError`` from the failing call.
    /// - Parameter syncDirectory: flush the directory after the rename, so the new file survives
    ///   a power loss once this returns. A batch may pass false and call ``syncDirectory(_:)``
    ///   once per directory at the end: the rename is atomic either way (a crash leaves the old
    ///   or the new file), only its durability waits for the batch's final flush.
    public static func replace(_ path: String, with bytes: [UInt8], modeOf: String? = nil, syncDirectory: Bool = true) throws(SystemError) {
        let directory: String
        if let slash = path.lastIndex(of: "/") {
            directory = slash == path.startIndex ? "/" : String(path[..<slash])
        } else {
            directory = "."
        }
        let name = path.split(separator: "/").last.map(String.init) ?? path
        removeStaleTemporaries(directory: directory, name: name)
        var template = Array("\(directory)/.\(name).ycft-\(getpid())-XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw SystemError(errno: errno) }
        let temporary = String(cString: template.withUnsafeBufferPointer { $0.baseAddress! })
        var committed = false
        defer {
            if !committed { unlink(temporary) }
        }
        do {
            defer { close(fd) }
            var existing = stat()
            let mode: mode_t
            if stat(path, &existing) == 0 {
                mode = existing.st_mode & 0o7777
            } else if let modeOf, stat(modeOf, &existing) == 0 {
                mode = existing.st_mode & 0o7777
            } else {
                let mask = umask(0)
                umask(mask)
                mode = 0o666 & ~mask
            }
            guard fchmod(fd, mode) == 0 else { throw SystemError(errno: errno) }
            var offset = 0
            while offset < bytes.count {
                let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, bytes.count - offset) }
                if n < 0 {
                    if errno == EINTR { continue }
                    throw SystemError(errno: errno)
                }
                offset += n
            }
            guard fsync(fd) == 0 else { throw SystemError(errno: errno) }
        }
        guard rename(temporary, path) == 0 else { throw SystemError(errno: errno) }
        committed = true
        if syncDirectory { Self.syncDirectory(directory) }
    }

    /// Flushes a directory's entries (renames) to disk.
    public static func syncDirectory(_ directory: String) {
        let dirFD = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dirFD >= 0 {
            _ = fsync(dirFD)
            close(dirFD)
        }
    }

    /// The directory part of a path (`.` when there is none).
    public static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// The prefix of temporary files for `name`: `.NAME.ycft-`.
    static func temporaryPrefix(_ name: String) -> String { ".\(name).ycft-" }

    /// Removes temporary files (`.NAME.ycft-PID-XXXXXX`) that a run which is no longer alive
    /// left in `directory`. A file whose process still runs (this one, or another ycft writing
    /// into the same directory) is never touched. Each directory is listed once per process.
    static func removeStaleTemporaries(directory: String, name: String) {
        guard cleaned.insertIfAbsent(directory) else { return }
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        for entry in entries {
            guard let pid = temporaryOwner(entry), pid != getpid() else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH { unlink("\(directory)/\(entry)") }
        }
    }

    /// The process id in a temporary file's name `.NAME.ycft-PID-XXXXXX`, or nil for any other name.
    static func temporaryOwner(_ entry: String) -> pid_t? {
        guard entry.hasPrefix("."), let marker = entry.range(of: ".ycft-", options: .backwards),
              marker.lowerBound > entry.index(after: entry.startIndex) else { return nil }
        let rest = entry[marker.upperBound...]
        guard let dash = rest.lastIndex(of: "-"), rest.distance(from: dash, to: rest.endIndex) == 7,
              let pid = pid_t(rest[..<dash]), pid > 0 else { return nil }
        return pid
    }

    private static let cleaned = DirectorySet()
}

/// Directories already cleaned of stale temporary files, shared by the batch's workers.
private final class DirectorySet: @unchecked Sendable {
    private let lock = NSLock()
    private var seen = Set<String>()

    /// Inserts the path; false when it was already there.
    func insertIfAbsent(_ path: String) -> Bool { lock.withLock { seen.insert(path).inserted } }
}
