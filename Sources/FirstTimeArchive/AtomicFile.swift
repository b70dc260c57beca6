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
    public static func replace(_ path: String, with bytes: [UInt8], modeOf: String? = nil) throws {
        let directory: String
        if let slash = path.lastIndex(of: "/") {
            directory = slash == path.startIndex ? "/" : String(path[..<slash])
        } else {
            directory = "."
        }
        let name = path.split(separator: "/").last.map(String.init) ?? path
        removeStaleTemporaries(directory: directory, name: name)
        var template = Array("\(directory)/.\(name).ycft-XXXXXX".utf8CString)
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
        let dirFD = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dirFD >= 0 {
            _ = fsync(dirFD)
            close(dirFD)
        }
    }

    /// The prefix of temporary files for `name`: `.NAME.ycft-`.
    static func temporaryPrefix(_ name: String) -> String { ".\(name).ycft-" }

    /// Removes `.NAME.ycft-XXXXXX` files left in `directory` by a run that was killed.
    static func removeStaleTemporaries(directory: String, name: String) {
        let prefix = temporaryPrefix(name)
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        for entry in entries where entry.hasPrefix(prefix) && entry.count == prefix.count + 6 {
            unlink("\(directory)/\(entry)")
        }
    }
}
