import FileErrors
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The password of an encrypted backup, typed on the terminal: the prompt on standard error,
/// the line read from standard input with echo off (termios), the terminal's settings put back on
/// every way out. SIGINT, SIGQUIT, SIGTERM and SIGHUP interrupt the read: the settings are put
/// back, then ycft ends by that signal, as it would have without the prompt. Every other signal
/// that would end ycft (SIGUSR1, SIGALRM, ...) puts them back in its handler, then ends it
/// (``ForegroundEditor/catchEndings(restoring:)``). Ctrl-Z (and the
/// other job-control stops) puts the settings back and stops ycft; once continued, echo is
/// turned off again and the prompt asked again (the terminal dropped the line typed so far).
package enum PasswordPrompt {
    /// The longest line read; a longer one is refused rather than kept growing.
    static let maxLength = 4096

    /// What was typed at the prompt.
    package enum Answer: Equatable, Sendable {
        /// The line (Enter alone: empty), without its line end.
        case line([UInt8])
        /// End of input (Ctrl-D) with nothing typed: the person gives no password, as sudo reads it.
        case endOfInput
    }

    /// Asks once. Returns nil when standard input is not a terminal.
    /// - Throws: ``SystemError`` when the terminal cannot be set or read, or the line is longer
    ///   than ``maxLength`` (`E2BIG`).
    static func ask(_ prompt: String, streams: StandardStreams) throws(SystemError) -> Answer? {
        guard isatty(0) != 0, let saved = TerminalSettings.save(), saved.fd == 0 else { return nil }
        var quiet = saved.settings
        quiet.c_lflag &= ~tcflag_t(ECHO)
        var handlers = ForegroundEditor.catchSignals(restart: false)
        defer { handlers.restore() }
        // Any other signal that ends ycft (SIGUSR1, SIGALRM, ...) puts the terminal back first.
        var endings = ForegroundEditor.catchEndings(restoring: saved)
        defer { endings.restore() }
        guard tcsetattr(0, TCSAFLUSH, &quiet) == 0 else { throw SystemError.current }
        // Caught only once echo is off: a ycft started in the background stops at the first
        // tcsetattr as before, by SIGTTOU's default action.
        var stops = ForegroundEditor.catchStops()
        defer { stops.restore() }
        // The prompt goes where the person typing sees it: standard error when that is the
        // terminal, else the terminal itself (`2>err.txt` must not hide it), as sudo does.
        let tty = isatty(2) != 0 ? -1 : open("/dev/tty", O_WRONLY | O_NOCTTY | O_CLOEXEC)
        defer { if tty >= 0 { close(tty) } }
        func say(_ text: String) {
            guard tty >= 0 else { return streams.standardError.write(Array(text.utf8)) }
            _ = Array(text.utf8).withUnsafeBytes { write(tty, $0.baseAddress, $0.count) }
        }
        say(prompt)
        var line: [UInt8] = []
        var failure: SystemError?
        var byte: UInt8 = 0
        var ended = false
        reading: while true {
            let count = read(0, &byte, 1)
            if count == 1 {
                if byte == UInt8(ascii: "\n") { break }
                guard line.count < maxLength else { failure = SystemError(errno: E2BIG); break }
                line.append(byte)
            } else if count == 0 {
                ended = line.isEmpty
                break
            } else if errno == EINTR {
                if ForegroundEditor.stopSignal != nil { break }
                guard let stop = ForegroundEditor.suspendSignal else { continue }
                // Stopped: the terminal as it was, then as the signal would have stopped ycft.
                saved.restore()
                say("\n")
                ForegroundEditor.suspend(by: stop)
                // Continued: echo off again (from the background, SIGTTOU stops ycft again).
                while tcsetattr(0, TCSAFLUSH, &quiet) != 0 {
                    guard errno == EINTR else { failure = SystemError.current; break reading }
                    if ForegroundEditor.stopSignal != nil { break reading }
                    if let again = ForegroundEditor.suspendSignal { ForegroundEditor.suspend(by: again) }
                }
                line = []
                say(prompt)
            } else {
                failure = SystemError.current
                break
            }
        }
        stops.restore()
        saved.restore()
        // The Return typed was not echoed either: end the prompt's line.
        say("\n")
        if let signal = ForegroundEditor.stopSignal {
            handlers.restore()
            ForegroundEditor.raiseByDefault(signal)
        }
        if let failure { throw failure }
        if ended { return .endOfInput }
        if line.last == UInt8(ascii: "\r") { line.removeLast() }
        return .line(line)
    }
}
