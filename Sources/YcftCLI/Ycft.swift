import FirstTimeCore
import OrderedJSON
import Plist
import PlistCore
import SafeFiles
import FileErrors
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The `ycft` command line: argument handling, help text and exit status around the library.
package enum Ycft {
    package static let version = "0.1.0"
    /// The date of this version (the manual page's date).
    static let versionDate = "2026-11-30"

    /// Exit statuses, like `diff` and `grep`.
    package enum Exit: Int32, Sendable {
        case success = 0
        /// A negative answer: the input is not a valid archive or records file.
        case content = 1
        /// Trouble: usage, I/O.
        case trouble = 2
    }

    /// The process's entry point: prepares the standard streams (``StandardStreams/shared``)
    /// before anything opens a file, leaves the last property-list tree it reads to the
    /// process's exit (`PlistTrees.leaveLastToExit()`), then runs the tool.
    /// - Parameter arguments: the raw `argv` (without the program name) as `PathBytes`
    ///   strings (`main.swift` says why).
    package static func main(_ arguments: [String]) -> Int32 {
        PlistTrees.leaveLastToExit()
        return run(arguments, io: .live(StandardStreams.shared))
    }

    /// Runs the tool with `arguments` (without the program name).
    ///
    /// A failed write to standard output ends in `ycft: cannot write standard output: REASON`
    /// and exit status 2, except a reader that went away (`EPIPE`, `| head`), which ends quietly
    /// with the command's own status. When standard error cannot be written, the status is at
    /// least 2 (the run's messages were lost). Standard error is ``terminalSafe(_:)``.
    package static func run(_ arguments: [String], io: CommandIO = .live) -> Int32 {
        let io = terminalSafe(io)
        let status = dispatch(arguments, io: io)
        let failures = io.streamFailures()
        if let output = failures.standardOutput, output.errno != EPIPE {
            io.writeStderr("ycft: cannot write standard output: \(output)\n")
            return Exit.trouble.rawValue
        }
        if failures.standardError != nil { return max(status, Exit.trouble.rawValue) }
        return status
    }

    /// The tool's own terminal control sequences (migrate's progress bar): the only writes to
    /// standard error that ``terminalSafe(_:)`` passes with a control character in them, and
    /// only as whole writes, which no message is.
    enum TerminalControl {
        /// Back to the start of the line, to redraw the progress bar.
        static let lineStart = "\r"
        /// Back to the start of the line and clear it.
        static let clearLine = "\r\u{1B}[K"
    }

    /// `io` with a standard error writer that cannot put a control character on the terminal:
    /// every write goes through ``UntrustedText/sanitized(_:)``, except the whole-write
    /// sequences of ``TerminalControl`` and of the colour palette (``Colour/isSequence(_:)``).
    static func terminalSafe(_ io: CommandIO) -> CommandIO {
        var safe = io
        let write = io.writeStderr
        safe.writeStderr = { text in
            let own = text == TerminalControl.lineStart || text == TerminalControl.clearLine || Colour.isSequence(text)
            write(own ? text : UntrustedText.sanitized(text))
        }
        return safe
    }

    /// Writes terminal-facing text to standard output (`status`'s table, `verify`'s GitHub and
    /// JUnit reports, `migrate`'s listing) through ``UntrustedText/sanitized(_:)``. Never in
    /// colour: styled text is ``writeText(_:to:)-(StyledText,_)``'s.
    static func writeText(_ text: String, to io: CommandIO) {
        io.writeStdout(Array(UntrustedText.sanitized(text).utf8))
    }

    /// Writes styled text to standard output as ``writeText(_:to:)-(String,_)`` writes its
    /// plain text; in colour when standard output is (``CommandIO/colour``), each piece
    /// sanitized before its style's sequences are put around it.
    static func writeText(_ text: StyledText, to io: CommandIO) {
        guard io.colour.stdout else { return writeText(text.plain, to: io) }
        io.writeStdout(Array(text.painted(UntrustedText.sanitized).utf8))
    }

    /// Writes styled text to standard error: its plain text in one write, or in colour when
    /// standard error is (``CommandIO/colour``), piece by piece with each style's sequences
    /// as writes of their own (which ``terminalSafe(_:)`` passes; every other write it sanitizes).
    static func writeStderr(_ text: StyledText, io: CommandIO) {
        guard io.colour.stderr else { return io.writeStderr(text.plain) }
        for piece in text.pieces {
            guard let style = piece.style else {
                io.writeStderr(piece.text)
                continue
            }
            io.writeStderr(style.sequence)
            io.writeStderr(piece.text)
            io.writeStderr(Colour.reset)
        }
    }

    /// Writes JSON text to standard output, in jq's colours when standard output is coloured
    /// (``Colour/json(_:)``).
    static func writeJSON(_ json: [UInt8], io: CommandIO) {
        io.writeStdout(io.colour.stdout ? Colour.json(json) : json)
    }

    private static func dispatch(_ arguments: [String], io: CommandIO) -> Int32 {
        guard let first = arguments.first, !first.hasPrefix("-") else {
            // An option of ``TopLevel``, standing alone; no arguments: the main help.
            let option: (name: CommandSpec.Option.Name, value: String?)
            do { option = try TopLevel.parse(arguments) } catch { return usage(error, command: nil, io: io) }
            switch option.name {
            case .version: return output("ycft \(version)\n", io: io)
            // The parser took only a shell of the option's choices, which are the scripts'.
            case .generateCompletionScript: return output(Completions.script(for: option.value ?? "") ?? "", io: io)
            case .generateManual: return output(Manual.page(date: versionDate), io: io)
            default: return output(Help.main(width: io.terminalWidth()), io: io)
            }
        }
        let rest = Array(arguments.dropFirst())
        if first == TopLevel.HelpCommand.name {
            // `help`, `help help` (and `help --help`) is the top-level help, which says what help
            // does, as swift-argument-parser answers it.
            let name = rest.first ?? first
            let command = CommandSpec.named(name)
            guard command != nil || name == first || TopLevel.option(name)?.name == .help else {
                return usage(.unknown("subcommand", name, among: subcommandNames), command: nil, io: io)
            }
            // `help backup apps`: an action of the command is help for the command (one page has both).
            let taken = rest.count > 1 && command?.action(rest[1]) != nil ? 2 : 1
            guard rest.count <= taken else {
                return usage(UsageError("Unexpected argument '\(rest[taken])'"), command: nil, usageLine: TopLevel.HelpCommand.usage, io: io)
            }
            return output(command.map { Help.text($0, width: io.terminalWidth()) } ?? Help.main(width: io.terminalWidth()), io: io)
        }
        guard let command = CommandSpec.named(first) else {
            // `ycft version` is a spelling of `--version` (which `verify` is closer to).
            let error: UsageError = first == CommandSpec.Option.Name.version.rawValue
                ? UsageError("Unknown subcommand '\(first)'. Did you mean '\(CommandSpec.Option.Name.version.long)'?")
                : .unknown("subcommand", first, among: subcommandNames + [TopLevel.HelpCommand.name])
            return usage(error, command: nil, io: io)
        }
        if rest.prefix(while: { $0 != "--" }).contains(where: { CommandSpec.help.names.contains($0) }) {
            return output(Help.text(command, width: io.terminalWidth()), io: io)
        }
        do { return try command.run(rest, io).rawValue } catch { return usage(error, command: command, io: io) }
    }

    /// Writes `text` to standard output: the answer of help, `--version` and the generators.
    private static func output(_ text: String, io: CommandIO) -> Int32 {
        io.writeStdout(Array(text.utf8))
        return Exit.success.rawValue
    }

    static let subcommandNames = CommandSpec.all.map(\.name)

    private static func usage(_ error: UsageError, command: CommandSpec?, usageLine: String? = nil, io: CommandIO) -> Int32 {
        // The command's usage wrapped to the terminal as help wraps it (status's is 300 columns long).
        let usage = usageLine.map { "Usage: " + $0 }
            ?? command.map { Help.usage($0, label: "Usage: ", width: io.terminalWidth()) }
            ?? "Usage: " + TopLevel.usage
        let helpHint = (command.map { "ycft \($0.name) " } ?? "ycft ") + CommandSpec.Option.Name.help.long
        // An argument in the message that is not UTF-8 shows its bytes as \xNN.
        io.writeStderr("Error: \(PathBytes.displayed(error.message))\n\(usage)\n  See '\(helpHint)' for more information.\n")
        return Exit.trouble.rawValue
    }

    /// Reads an input operand ('-' is standard input), bounded by the input-size limit.
    static func readInput(_ path: String, io: CommandIO, limit: Int = PlistLimits.default.maxInputSize) throws(Failure) -> [UInt8] {
        let bytes: [UInt8]
        do {
            bytes = path == "-" ? try io.readStdin(limit, false) : try io.readFile(path, limit, false).bytes
        } catch {
            // A backup folder given as a file: how its files are read.
            if path != "-", BackupFolderGuard.isBackupFolder(path) {
                throw Failure(.trouble, path, error.description + ": " + BackupCommand.backupFolderHint(path))
            }
            throw Failure(.trouble, path, error.description)
        }
        guard bytes.count <= limit else { throw tooLarge(path, limit: limit) }
        return bytes
    }

    /// An input over `--max-input-size`: `ycft: FILE: input is ` and ``overLimit(_:)``, exit 1.
    static func tooLarge(_ path: String, limit: Int) -> Failure { Failure(.content, path, "input is " + overLimit(limit)) }

    /// `larger than the limit of N bytes (raise it with --max-input-size)`.
    static func overLimit(_ limit: Int) -> String { "larger than the limit of \(limit) bytes (raise it with --max-input-size)" }

    /// A file error as a command failure: `ycft: PATH: what happened`, with the flag that would
    /// change the answer where there is one (the library never names flags).
    static func failure(_ error: FileError) -> Failure {
        var message = error.description
        if case .readOnly = error.reason { message += "; use --force to replace it anyway" }
        if case .insideBackup = error.reason { message += " (copy the file out with 'ycft backup extract' and work on the copy)" }
        switch error.reason {
        case .notPrivate(.regular, _):
            message += "; decrypted preferences go only to a new file (made 0600), over one only its owner may read "
                + "or write (chmod 600 it first), or to standard output (-o -)"
        case .notOwned:
            message += "; decrypted preferences go only to a new file (made 0600), over one of your own that only you may "
                + "read or write, or to standard output (-o -)"
        case .notPrivate, .descriptorNotPrivate:
            message += "; decrypted preferences go only to standard output (-o -) or to a regular file only its owner may read"
        default: break
        }
        return Failure(.trouble, error.path, message)
    }

    /// The one rule for binary output on a terminal (`pack`, `migrate -o`, `backup extract`): a
    /// binary property list is not written to a terminal, whatever the output resolves to
    /// (``outputIsTerminal(_:io:)``); to a pipe or a file it is.
    /// - Throws: trouble (exit 2) when `bytes` are a binary plist bound for a terminal.
    static func refuseBinaryOnTerminal(_ bytes: [UInt8], to output: String, io: CommandIO, plistFormatHint: String = ", --plist-format xml") throws(Failure) {
        guard PropertyList.detectFormat(bytes) == .binary, outputIsTerminal(output, io: io) else { return }
        throw Failure(.trouble, nil, "refusing to write a binary property list to a terminal; use -o FILE\(plistFormatHint), or redirect")
    }

    /// Whether the output `-o OUTPUT` is a terminal: `-` is standard output; a descriptor name
    /// (`/dev/stderr`, `/dev/fd/1`, `/proc/self/fd/2`, a link to one) is the stream the writer
    /// sends it to (``SafeFile/standardStream(forOutput:confidential:)``); any other path is a
    /// terminal when it names a terminal device (`/dev/tty`, `/dev/pts/3`, a link to one).
    static func outputIsTerminal(_ output: String, io: CommandIO) -> Bool {
        if output == "-" { return io.stdoutIsTerminal() }
        guard SafeFile.namesDescriptor(output) else { return io.isTerminalDevice(output) }
        switch try? SafeFile.standardStream(forOutput: output) {
        case 1?: return io.stdoutIsTerminal()
        case 2?: return io.stderrIsTerminal()
        // The writer refuses it (/dev/stdin, /dev/fd/3): not opened here, its refusal follows.
        default: return false
        }
    }

    /// A time as the records format writes it, exactly (`757414800.123456`; JSON's compact
    /// text ends with a newline, left out).
    static func exactTime(_ value: Double) -> String {
        String(RecordsFormat.timeJSON(value).text(style: .compact).prefix { $0 != "\n" })
    }

    static func isStandardOutput(_ path: String) -> Bool { path == "-" || path == "/dev/stdout" }

    /// How a path from the command line or a directory walk appears in human-readable output:
    /// ``display(_:)``, escaped so that no control character reaches the terminal, and each
    /// byte that is not UTF-8 as `\xNN` (``PathBytes``; a backslash in the name is `\\`).
    static func shown(_ path: String) -> String { PathBytes.displayed(display(path), other: UntrustedText.escaped) }

    /// How a path appears in JSON, JUnit and GitHub output, which keep exact strings in their own
    /// escaping: ``display(_:)`` with each byte that is not UTF-8 as `\xNN` (they take only text).
    static func reported(_ path: String) -> String { PathBytes.displayed(display(path)) }

    /// The findings a reading command reports on stderr (``ContractFinding/isNotable``):
    /// `ycft: FILE: warning: [rule] path: message`.
    static func warn(_ findings: [ContractFinding], path: String, io: CommandIO) {
        for text in warnings(findings) { warn(text, path: path, io: io) }
    }

    /// The text of each finding a reading command warns of (``ContractFinding/isNotable``),
    /// `[rule] path: message`: the lines of ``warn(_:path:io:)`` after `warning: `, and the
    /// `warnings` of `status --format json`.
    static func warnings(_ findings: [ContractFinding]) -> [String] {
        findings.filter(\.isNotable).map { "[\($0.rule.rawValue)] \($0.located)" }
    }

    /// A finding in ycft's JSON reports, their one shape: `rule`, `severity` (left out where the
    /// member says what the finding is: status's `deviceResetsAll`), `path`, `message`.
    static func json(_ finding: ContractFinding, severity: Bool = true) -> JSON {
        .object([.init("rule", .string(finding.rule.rawValue))] + (severity ? [.init("severity", .string(finding.severity.rawValue))] : [])
                + [.init("path", .string(finding.path.description)), .init("message", .string(finding.message))])
    }

    /// What a write dropped that the records cannot carry (``FirstTimeState/dropped``,
    /// ``Migration/Outcome/dropped``), one line each: `ycft: FILE: warning: dropped [rule]
    /// path: message` (`would drop` for a dry run); `replaced` for a value the app reads no
    /// state from, which a forced write replaces, and `converted` for a value written in
    /// YCFirstTime's own form (``ContractRule/Rewrite``).
    static func warnDropped(_ dropped: [ContractFinding], path: String, io: CommandIO, dryRun: Bool = false) {
        for finding in dropped {
            let verb = switch finding.rule.spec.rewrite {
            case .replacesOnlyForced: dryRun ? "would replace" : "replaced"
            case .converts: dryRun ? "would convert" : "converted"
            default: dryRun ? "would drop" : "dropped"
            }
            warn("\(verb) [\(finding.rule.rawValue)] \(finding.located)", path: path, io: io)
        }
    }

    /// What a defaults file without YCFirstTime state lacks, for `reset` and `status`:
    /// `no "YCFirstTime", "YCFirstTime.records" or "interval.*" key`.
    /// (`--key YCFirstTime.records` is named once.)
    static func noStateKeys(_ key: String) -> String {
        let archive = exactlyEqual(key, RecordsFormat.defaultsKey) ? "" : "\(UntrustedText.quoted(key)), "
        return "no \(archive)\"\(RecordsFormat.defaultsKey)\" or \"\(IntervalKey.prefix)*\" key"
    }

    /// One warning line on stderr, `ycft: FILE: warning: TEXT`. TEXT is a message, whose values
    /// from the file were escaped where it was built (escaping it again would show `\\u{1B}`):
    /// it passes ``UntrustedText/sanitized(_:)`` only. `warning` is in its colour when standard
    /// error is coloured.
    static func warn(_ text: String, path: String, io: CommandIO) {
        var line = StyledText("ycft: \(shown(path)): ")
        line.append("warning", .warning)
        line += ": \(UntrustedText.sanitized(text))\n"
        writeStderr(line, io: io)
    }

    /// How a path appears in messages and reports (`-` is `<stdin>`).
    static func display(_ path: String) -> String { path == "-" ? "<stdin>" : path }

    /// A command's failure: its exit status and the `ycft: FILE: message` line.
    struct Failure: Error {
        let exit: Exit
        let file: String?
        let message: String
        init(_ exit: Exit, _ file: String?, _ message: String) {
            (self.exit, self.file, self.message) = (exit, file, message)
        }

        func report(_ io: CommandIO) -> Exit {
            io.writeStderr("ycft: \(file.map { "\(shown($0)): " } ?? "")\(message)\n")
            return exit
        }
    }
}
