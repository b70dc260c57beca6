import Plist
import PlistCore
import SafeFiles
import FileErrors
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Everything a command touches outside the process, as closures, so every command runs
/// in-process under test with captured streams and a fake file system. The live instance sends
/// every file write through `SafeFile` and every byte of output through ``StandardStreams``.
package struct CommandIO: Sendable {
    /// Writes bytes to standard output (never traps; a failure is reported by `streamFailures`).
    package var writeStdout: @Sendable ([UInt8]) -> Void
    /// Writes text to standard error (never traps; a failure is reported by `streamFailures`).
    package var writeStderr: @Sendable (String) -> Void
    /// Reads standard input to its end, or at most `limit + 1` bytes; with `line`, only until a
    /// line feed has come (`SafeFiles.readAll(_:limit:untilLineFeed:)`).
    package var readStdin: @Sendable (_ limit: Int, _ line: Bool) throws(FileError) -> [UInt8]
    /// Reads a file (at most `limit + 1` bytes) with its status; `lock` (the file is to be changed
    /// in place) holds its advisory lock and refuses at once what is not a regular file
    /// (`SafeFile/read(_:limit:lock:)`).
    package var readFile: @Sendable (_ path: String, _ limit: Int, _ lock: Bool) throws(FileError) -> InputFile
    /// Reads a regular file (at most `limit + 1` bytes) with its status, refusing anything else
    /// by its kind before opening it (`SafeFile/read(_:limit:lock:regularOnly:)`): a named pipe
    /// is never waited on. In memory, ``readFile`` (every file there is regular).
    package var readRegularFile: @Sendable (_ path: String, _ limit: Int) throws(FileError) -> InputFile
    /// The one file writer (`SafeFile/write(_:to:options:hooks:)`). The live one prints a warning on
    /// standard error for extended attributes a replacement could not keep.
    package var writeFile: @Sendable (_ path: String, _ bytes: [UInt8], _ options: SafeFile.WriteOptions)
        throws(FileError) -> SafeFile.WriteOutcome
    /// Looks at an output path once (`SafeFile/Output`), for the checks before its write and the
    /// writer; in memory, nothing is there.
    package var lookAtOutput: @Sendable (_ path: String) -> SafeFile.Output = { SafeFile.Output(unlooked: $0) }
    /// Stages a write to an output looked at, for a group commit (`SafeFile/stage(_:to:options:)`);
    /// in memory, writes at once.
    package var stageFile: @Sendable (_ output: SafeFile.Output, _ bytes: [UInt8], _ options: SafeFile.WriteOptions)
        throws(FileError) -> SafeFile.Staged
    /// Flushes staged writes together and puts each in place (`SafeFile/commit(_:hooks:)`).
    package var commitFiles: @Sendable (_ pending: [PendingWrite]) -> [Result<SafeFile.WriteOutcome, FileError>] = { _ in [] }
    /// Keeps a file under a backup name, reusing one that already holds it
    /// (`SafeFile/keepBackup(of:expected:suffix:bytes:backupGuard:hooks:)`).
    package var keepBackup: @Sendable (_ path: String, _ read: FileStatus, _ suffix: String, _ bytes: [UInt8])
        throws(FileError) -> SafeFile.Backup
    /// Whether a file read to be changed may be replaced (`SafeFile/checkReplaceable(_:status:options:)`),
    /// asked before work the user would lose; in memory, always.
    package var checkReplaceable: @Sendable (_ path: String, _ read: FileStatus, _ options: SafeFile.WriteOptions)
        throws(FileError) -> Void = { _, _, _ throws(FileError) in }
    /// Flushes directories' entries to disk (the end of a batch).
    package var syncDirectories: @Sendable (_ directories: [String]) -> Void = { _ in }
    package var stdoutIsTerminal: @Sendable () -> Bool
    /// The width help wraps to: `COLUMNS`, else the terminal's on standard output, else 80
    /// (as swift-argument-parser measures it).
    package var terminalWidth: @Sendable () -> Int = { 80 }
    /// The width of the terminal on standard error (`migrate`'s progress bar fits in it), else 80.
    package var stderrWidth: @Sendable () -> Int = { 80 }
    package var stderrIsTerminal: @Sendable () -> Bool = { false }
    /// Whether a path that is not a descriptor name is a terminal device (`/dev/tty`,
    /// `/dev/pts/3`, a link to one: `SafeFile/isTerminalDevice(_:)`); in memory, never.
    package var isTerminalDevice: @Sendable (_ path: String) -> Bool = { _ in false }
    /// The status of a path, following links; nil when it does not exist.
    package var fileStatus: @Sendable (_ path: String) -> FileStatus? = { _ in nil }
    /// Every regular file below a directory, as paths relative to it, sorted, and the
    /// subdirectories that could not be read (`DirectoryListing/regularFiles(below:)`).
    /// Throws when the directory itself cannot be read.
    package var listFiles: @Sendable (_ directory: String) throws(SystemError) -> DirectoryListing = { _ in DirectoryListing(files: []) }
    /// Whether `path` can be written by ``writeFile`` with its default options, checked before
    /// any work whose record it is (`migrate --report`): its directory exists and may be written,
    /// and it is not a directory, a read-only file or a kind the writer refuses. Nothing is written.
    package var checkWritable: @Sendable (_ path: String) throws(FileError) -> Void = { _ in }
    /// Creates a directory and its parents.
    package var makeDirectory: @Sendable (_ path: String) throws -> Void = { _ in }
    /// The writer's "inside an iPhone backup?" rule for the run (``BackupFolderGuard``), asked
    /// before work that must not start (`backup extract` refuses before a password is asked
    /// for), and told of each backup the run reads.
    package var backupGuard = BackupFolderGuard()
    /// Asks for a password on the terminal, `prompt` first, the typed line not echoed (or end
    /// of input with nothing typed); nil when standard input is not a terminal (in memory, never).
    package var askPassword: @Sendable (_ prompt: String) throws(SystemError) -> PasswordPrompt.Answer? = { _ in nil }
    /// What went wrong with standard output and standard error so far (checked at the end of a run).
    package var streamFailures: @Sendable () -> StreamFailures = { StreamFailures() }
    /// An environment variable's value; nil when it is unset (in memory, every one is).
    package var environment: @Sendable (_ name: String) -> String? = { _ in nil }
    /// Which streams are coloured (``Colour``): set by a command that has `--color`, read by
    /// the writers of styled text (``Ycft/writeText(_:to:)-(StyledText,_)``,
    /// ``Ycft/writeStderr(_:io:)``, ``Ycft/writeJSON(_:io:)``); off for every other command.
    var colour = Colour.off
    /// The moments of the run at which a test acts (none by default). The live IO's are
    /// ``TestHooks/environment``, which its writer closures were made with.
    var hooks = TestHooks()

    /// Creates an IO from closures (files in memory: `writeFile` and `keepBackup` as given).
    package init(writeStdout: @escaping @Sendable ([UInt8]) -> Void,
                writeStderr: @escaping @Sendable (String) -> Void,
                readStdin: @escaping @Sendable (Int, Bool) throws(FileError) -> [UInt8],
                readFile: @escaping @Sendable (String, Int, Bool) throws(FileError) -> InputFile,
                writeFile: @escaping @Sendable (String, [UInt8], SafeFile.WriteOptions) throws(FileError) -> SafeFile.WriteOutcome,
                keepBackup: @escaping @Sendable (String, FileStatus, String, [UInt8]) throws(FileError) -> SafeFile.Backup,
                stdoutIsTerminal: @escaping @Sendable () -> Bool) {
        (self.writeStdout, self.writeStderr, self.readStdin, self.readFile) = (writeStdout, writeStderr, readStdin, readFile)
        (self.writeFile, self.keepBackup, self.stdoutIsTerminal) = (writeFile, keepBackup, stdoutIsTerminal)
        self.stageFile = { output, bytes, options throws(FileError) in .done(try writeFile(output.path, bytes, options)) }
        self.readRegularFile = { path, limit throws(FileError) in try readFile(path, limit, false) }
    }

    /// The real process: its standard streams (``StandardStreams/shared``) and file system.
    package static var live: CommandIO { live(StandardStreams.shared) }

    /// The real file system with the given streams.
    package static func live(_ streams: StandardStreams) -> CommandIO {
        // The writer refuses every path inside an iPhone backup; one guard for the run, so each
        // folder is asked about once however many files go into it.
        let backups = BackupFolderGuard()
        let hooks = TestHooks.environment
        // Standard output and error stay on their one output path, whichever name reaches them;
        // any other descriptor name (/dev/stdin, /dev/fd/3), and any at all for secret bytes, is
        // refused here, at once.
        @Sendable func stage(_ output: SafeFile.Output, _ bytes: [UInt8], _ options: SafeFile.WriteOptions) throws(FileError) -> SafeFile.Staged {
            switch try output.standardStream(confidential: options.confidential) {
            case 1?: streams.standardOutput.write(bytes)
            case 2?: streams.standardError.write(bytes)
            default:
                var options = options
                options.backupGuard = backups
                return try SafeFile.stage(bytes, to: output, options: options)
            }
            return .done(.streamed(output.path))
        }
        var io = CommandIO(
            writeStdout: { bytes in streams.standardOutput.write(bytes) },
            writeStderr: { text in streams.standardError.write(Array(text.utf8)) },
            readStdin: { limit, line throws(FileError) in
                if streams.standardInputWasClosed { throw FileError(.read, "<stdin>", .system(SystemError(errno: EBADF))) }
                do throws(SystemError) { return try readAll(0, limit: limit, untilLineFeed: line) } catch {
                    throw FileError(.read, "<stdin>", .system(error))
                }
            },
            readFile: { path, limit, lock throws(FileError) in try SafeFile.read(path, limit: limit, lock: lock) },
            writeFile: { path, bytes, options throws(FileError) in
                switch try stage(SafeFile.Output(path), bytes, options) {
                case let .done(outcome): return outcome
                case let .pending(write):
                    let outcome = try write.finish(hooks: hooks.write)
                    if let warning = CommandIO.replacementWarnings(outcome) { streams.standardError.write(Array(warning.utf8)) }
                    return outcome
                }
            },
            keepBackup: { path, read, suffix, bytes throws(FileError) in
                try SafeFile.keepBackup(of: path, expected: read, suffix: suffix, bytes: bytes, backupGuard: backups)
            },
            stdoutIsTerminal: { isatty(1) != 0 && !streams.standardOutput.wasClosed }
        )
        io.lookAtOutput = { path in SafeFile.Output(path) }
        io.stageFile = stage
        // Warnings of a group commit are the caller's to print (migrate prints them through its progress display).
        io.commitFiles = { pending in SafeFile.commit(pending, hooks: hooks.write) }
        io.stderrIsTerminal = { isatty(2) != 0 && !streams.standardError.wasClosed }
        io.isTerminalDevice = { path in SafeFile.isTerminalDevice(path) }
        io.terminalWidth = { CommandIO.terminalWidth(columns: getenv("COLUMNS").map { String(cString: $0) }) }
        io.stderrWidth = {
            var size = winsize()
            return ioctl(2, UInt(TIOCGWINSZ), &size) == 0 && size.ws_col > 0 ? Int(size.ws_col) : 80
        }
        io.fileStatus = { path in try? FileStatus.of(path).get() }
        io.readRegularFile = { path, limit throws(FileError) in try SafeFile.read(path, limit: limit, regularOnly: true) }
        io.listFiles = { directory throws(SystemError) in try DirectoryListing.regularFiles(below: directory) }
        // No folder is made inside a backup either (`migrate -o BACKUP/new`).
        io.makeDirectory = { path in try SafeFile.makeFolders(path, backupGuard: backups) }
        io.checkReplaceable = { path, read, options throws(FileError) in
            // What the writer refuses, asked before the work: a file of a backup too.
            var options = options
            options.backupGuard = backups
            try SafeFile.checkReplaceable(path, status: read, options: options)
        }
        io.checkWritable = { path throws(FileError) in try SafeFile.checkWritable(path, backupGuard: backups) }
        io.syncDirectories = { (directories: [String]) in SafeFile.syncDirectories(directories) }
        io.streamFailures = { StreamFailures(standardOutput: streams.standardOutput.failure, standardError: streams.standardError.failure) }
        io.askPassword = { prompt throws(SystemError) in try PasswordPrompt.ask(prompt, streams: streams) }
        io.environment = { name in getenv(name).map { String(cString: $0) } }
        io.hooks = hooks
        io.backupGuard = backups
        return io
    }

    /// `COLUMNS` when it is a positive number, else the width of the terminal on standard
    /// output (`TIOCGWINSZ`), else 80.
    static func terminalWidth(columns: String?) -> Int {
        if let columns, let width = Int(columns), width > 0 { return width }
        var size = winsize()
        guard isatty(1) != 0, ioctl(1, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
        return Int(size.ws_col)
    }

    /// The warnings for a replacement, or nil when there is none: extended attributes or ACLs
    /// of the original it could not keep (`ycft: PATH: warning: the replacement could not keep
    /// ...`), and other names (hard links) of the original, which keep the old content, as
    /// after `sed -i`. `ownNames`: those of them the command made itself (a backup that is a
    /// hard link to the original), which are not warned of.
    static func replacementWarnings(_ outcome: SafeFile.WriteOutcome, ownNames: Int = 0) -> String? {
        var text = ""
        let notKept = outcome.attributesNotKept
        if !notKept.isEmpty {
            let listed = notKept.map { UntrustedText.escaped($0.description) }.joined(separator: ", ")
            text += "ycft: \(Ycft.shown(outcome.path)): warning: the replacement could not keep "
                + "\(notKept.count == 1 ? "this extended attribute" : "these extended attributes"): \(listed)\n"
        }
        let others = outcome.otherNames - ownNames
        if others > 0 {
            text += "ycft: \(Ycft.shown(outcome.path)): warning: the file had \(others) other name\(others == 1 ? "" : "s") "
                + "(hard link\(others == 1 ? "" : "s")), which \(others == 1 ? "keeps" : "keep") the old content: the new content "
                + "is a new file under this name only\n"
        }
        return text.isEmpty ? nil : text
    }
}

/// Failed writes to the standard streams during a run.
package struct StreamFailures: Sendable, Equatable {
    package var standardOutput: SystemError?
    package var standardError: SystemError?
}

/// The process's standard streams: the only path by which ycft prints. A write never traps: the
/// first failure (`EPIPE`, `ENOSPC`, `EBADF`, `EIO`) is remembered, later writes to that stream
/// are dropped, and ``Ycft/run(_:io:)`` turns it into a message and exit status 2 at the end
/// (a reader that went away, `| head`, ends the run quietly).
package final class StandardStreams: Sendable {
    package let standardOutput: OutputChannel
    package let standardError: OutputChannel
    package let standardInputWasClosed: Bool

    /// The process's streams, prepared once: descriptors 0-2 that were closed at start are held
    /// open on `/dev/null` (so no file ycft opens can become "standard output") and report
    /// `EBADF` when used; `SIGPIPE` is ignored so a closed pipe is an error value, not a kill.
    package static let shared = StandardStreams()

    private init() {
        signal(SIGPIPE, SIG_IGN)
        var closed = [false, false, false]
        for fd in 0...2 where fcntl(Int32(fd), F_GETFD) == -1 {
            closed[fd] = true
            let null = open("/dev/null", O_RDWR)
            if null >= 0 && null != Int32(fd) {
                dup2(null, Int32(fd))
                close(null)
            }
        }
        standardInputWasClosed = closed[0]
        standardOutput = OutputChannel(descriptor: 1, closed: closed[1])
        standardError = OutputChannel(descriptor: 2, closed: closed[2])
    }
}

/// One output stream: writes in full or remembers why it could not.
package final class OutputChannel: Sendable {
    private let descriptor: Int32
    package let wasClosed: Bool
    private let state = Mutex<SystemError?>(nil)

    init(descriptor: Int32, closed: Bool) {
        (self.descriptor, wasClosed) = (descriptor, closed)
    }

    /// Writes all bytes, or records the failure (and drops this and every later write).
    package func write(_ bytes: [UInt8]) {
        state.withLock { failure in
            guard failure == nil, !bytes.isEmpty else { return }
            if wasClosed {
                failure = SystemError(errno: EBADF)
                return
            }
            do throws(SystemError) { try writeAll(descriptor, bytes) } catch { failure = error }
        }
    }

    package var failure: SystemError? { state.withLock { $0 } }
}
