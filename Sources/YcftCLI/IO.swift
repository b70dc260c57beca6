import FirstTimeArchive
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
    /// Like `writeFileAtomically`, but leaves the directory flush to `syncDirectories` (batches).
    public var writeFileAtomicallyDeferringSync: (@Sendable (_ path: String, _ bytes: [UInt8], _ modeOf: String?) throws -> Void)?
    /// Flushes directories' entries to disk (the end of a batch).
    public var syncDirectories: @Sendable (_ directories: [String]) -> Void = { _ in }
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
        io.writeFileAtomicallyDeferringSync = { path, bytes, modeOf in
            try AtomicFile.replace(path, with: bytes, modeOf: modeOf, syncDirectory: false)
        }
        io.syncDirectories = { directories in directories.forEach(AtomicFile.syncDirectory) }
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

