import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Everything a command touches outside the process, as closures, so every command runs
/// in-process under test with captured streams and a fake file system.
public struct CommandIO: Sendable {
    /// Writes bytes to standard output.
    public var writeStdout: @Sendable ([UInt8]) -> Void
    /// Writes text to standard error.
    public var writeStderr: @Sendable (String) -> Void
    /// Reads standard input to its end, or at most `limit + 1` bytes.
    public var readStdin: @Sendable (_ limit: Int) throws -> [UInt8]
    /// Reads a file, or at most `limit + 1` bytes of it.
    public var readFile: @Sendable (_ path: String, _ limit: Int) throws -> [UInt8]
    /// Replaces a file atomically with the bytes; a new file takes the permissions of
    /// `modeOf` when given (an existing file keeps its own).
    public var writeFileAtomically: @Sendable (_ path: String, _ bytes: [UInt8], _ modeOf: String?) throws -> Void
    /// Whether standard output is a terminal.
    public var stdoutIsTerminal: @Sendable () -> Bool
    /// Whether standard error is a terminal.
    public var stderrIsTerminal: @Sendable () -> Bool = { false }
    /// What a path is.
    public var fileKind: @Sendable (_ path: String) -> FileKind = { _ in .missing }
    /// Every regular file below a directory, as paths relative to it, sorted.
    public var listFiles: @Sendable (_ directory: String) throws -> [String] = { _ in [] }
    /// Creates a directory and its parents.
    public var makeDirectory: @Sendable (_ path: String) throws -> Void = { _ in }

    /// Creates an IO from closures.
    public init(writeStdout: @escaping @Sendable ([UInt8]) -> Void,
                writeStderr: @escaping @Sendable (String) -> Void,
                readStdin: @escaping @Sendable (Int) throws -> [UInt8],
                readFile: @escaping @Sendable (String, Int) throws -> [UInt8],
                writeFileAtomically: @escaping @Sendable (String, [UInt8], String?) throws -> Void,
                stdoutIsTerminal: @escaping @Sendable () -> Bool) {
        self.writeStdout = writeStdout
        self.writeStderr = writeStderr
        self.readStdin = readStdin
        self.readFile = readFile
        self.writeFileAtomically = writeFileAtomically
        self.stdoutIsTerminal = stdoutIsTerminal
    }

    /// The real process streams and file system.
    public static let live = CommandIO(
        writeStdout: { bytes in FileHandle.standardOutput.write(Data(bytes)) },
        writeStderr: { text in FileHandle.standardError.write(Data(text.utf8)) },
        readStdin: { limit in try readAll(fd: 0, limit: limit) },
        readFile: { path, limit in try liveReadFile(path, limit) },
        writeFileAtomically: { path, bytes, modeOf in try AtomicFile.replace(path, with: bytes, modeOf: modeOf) },
        stdoutIsTerminal: { isatty(1) != 0 }
    ).withLiveFileSystem()

    /// This IO with the real file system for directories, kinds and listings (streams unchanged).
    public func withLiveFileSystem() -> CommandIO {
        var io = self
        io.stderrIsTerminal = { isatty(2) != 0 }
        io.fileKind = { path in
            var info = stat()
            guard stat(path, &info) == 0 else { return .missing }
            switch info.st_mode & S_IFMT {
            case S_IFDIR: return .directory
            case S_IFREG: return .file
            default: return .other
            }
        }
        io.listFiles = { directory in
            guard let enumerator = FileManager.default.enumerator(atPath: directory) else {
                throw SystemError(errno: ENOENT)
            }
            var files: [String] = []
            while let relative = enumerator.nextObject() as? String {
                var info = stat()
                if stat("\(directory)/\(relative)", &info) == 0, info.st_mode & S_IFMT == S_IFREG { files.append(relative) }
            }
            return files.sorted()
        }
        io.makeDirectory = { path in try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
        io.readFile = CommandIO.liveReadFile
        io.writeFileAtomically = { path, bytes, modeOf in try AtomicFile.replace(path, with: bytes, modeOf: modeOf) }
        return io
    }

    static let liveReadFile: @Sendable (String, Int) throws -> [UInt8] = { path, limit in
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw SystemError(errno: errno) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw SystemError(errno: errno) }
        if (info.st_mode & S_IFMT) == S_IFDIR { throw SystemError(errno: EISDIR) }
        return try readAll(fd: fd, limit: limit)
    }
}

/// What a path names.
public enum FileKind: Sendable, Equatable {
    /// A regular file.
    case file
    /// A directory.
    case directory
    /// Something else (a device, a socket).
    case other
    /// Nothing.
    case missing
}

/// An operating-system error with its `errno`, described the way `strerror` does.
public struct SystemError: Error, Sendable, CustomStringConvertible {
    /// The `errno` value.
    public let errno: Int32
    /// `strerror(errno)`.
    public var description: String { String(cString: strerror(errno)) }
}

private func readAll(fd: Int32, limit: Int) throws -> [UInt8] {
    var out: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while out.count <= limit {
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n < 0 {
            if errno == EINTR { continue }
            throw SystemError(errno: errno)
        }
        if n == 0 { break }
        out.append(contentsOf: chunk[..<n])
    }
    return out
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
