import SafeFiles
import FileErrors
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Running the user's editor in the foreground, as `git commit` and `crontab -e` do, and the
/// signals that end `ycft edit` meanwhile.
///
/// The editor runs through `/bin/sh -c` in ycft's own process group, so on a terminal it is in
/// the foreground group and may read and draw (Foundation's `Process` starts a new session,
/// where a terminal editor stops at once). While it runs, SIGINT and SIGQUIT are left to it, as
/// with `system(3)`; SIGTERM and SIGHUP are passed on to it and remembered (``stopSignal``), so
/// the caller can clean up and end by the same signal once the editor has gone. The terminal's
/// settings are put back afterwards in case the editor died without restoring them.
enum ForegroundEditor {
    /// How an editor run ended.
    enum Outcome: Equatable {
        case exited(Int32)
        /// A signal ended it.
        case signaled(Int32)
        /// It could not be started (`posix_spawn` failed).
        case notStarted(SystemError)
        /// Waiting for it failed (`waitpid`).
        case lost(SystemError)
    }

    /// The signals that stop `ycft edit` (and whose handlers ``catchSignals()`` installs).
    static let handled: [Int32] = [SIGINT, SIGQUIT, SIGTERM, SIGHUP]

    /// The job-control stops: Ctrl-Z, and reading or setting the terminal from the background.
    static let jobControl: [Int32] = [SIGTSTP, SIGTTIN, SIGTTOU]

    /// Handlers that remember a job-control stop (``suspendSignal``) instead of stopping, until
    /// ``Handlers/restore()``, and let it interrupt a blocking `read` (`EINTR`): the password
    /// prompt puts the terminal's settings back before it stops (``suspend(by:)``).
    static func catchStops() -> Handlers {
        SignalState.suspended.store(0, ordering: .sequentiallyConsistent)
        return install(onStop, for: jobControl)
    }

    /// The job-control stop received since ``catchStops()`` or the last ``suspend(by:)``, or nil.
    static var suspendSignal: Int32? {
        let signal = SignalState.suspended.load(ordering: .sequentiallyConsistent)
        return signal == 0 ? nil : signal
    }

    /// Stops the process by `signal` as it would have stopped without the handler, and returns
    /// once it is continued (SIGCONT), the handler back in place.
    static func suspend(by signal: Int32) {
        SignalState.suspended.store(0, ordering: .sequentiallyConsistent)
        raiseByDefault(signal)
        setHandler(signal, onStop)
    }

    /// The signals whose default action is not to end the process (or that no handler can
    /// catch): the job-control stops, SIGCONT, and those ignored by default.
    static let notEnding: Set<Int32> = [SIGKILL, SIGSTOP, SIGTSTP, SIGTTIN, SIGTTOU, SIGCONT, SIGCHLD, SIGURG, SIGWINCH]

    /// Handlers, until ``Handlers/restore()``, for every other signal that would end the
    /// process by its default action (SIGUSR1, SIGALRM, SIGPIPE, SIGXCPU, the real-time
    /// signals, ...; ``handled`` left to ``catchSignals(restart:)``, and a signal with a handler
    /// or ignored left alone): each puts `terminal`'s settings back, then ends the process by
    /// the signal's default action, as it would have ended without the handler. The password
    /// prompt's echo is so never left off by a signal.
    static func catchEndings(restoring terminal: TerminalSettings) -> Handlers {
        // Set before any handler can read it, never while one may run.
        endingTerminal = terminal
        let ending = (1..<Int32(NSIG)).filter { signal in
            // Only a signal whose action is the default: an ignored one must stay ignored.
            var current = sigaction()
            return !handled.contains(signal) && !notEnding.contains(signal) && sigaction(signal, nil, &current) == 0 && isDefault(current)
        }
        return install(onEnding, for: ending)
    }

    /// Whether `action` is `SIG_DFL` (a null handler: no handler, not ignored).
    private static func isDefault(_ action: sigaction) -> Bool {
        #if canImport(Glibc)
        return action.__sigaction_handler.sa_handler == nil
        #else
        return action.__sigaction_u.__sa_handler == nil
        #endif
    }

    /// The first stopping signal received since ``catchSignals()``, or nil.
    static var stopSignal: Int32? {
        let signal = SignalState.pending.load(ordering: .sequentiallyConsistent)
        return signal == 0 ? nil : signal
    }

    /// Handlers for ``handled`` (as the type's comment says) until ``Handlers/restore()``.
    /// `restart: false` lets a signal interrupt a blocking `read` (`EINTR`), as the password
    /// prompt needs to stop at once.
    static func catchSignals(restart: Bool = true) -> Handlers {
        // Initialised here, never for the first time inside the handler.
        SignalState.pending.store(0, ordering: .sequentiallyConsistent)
        SignalState.editor.store(0, ordering: .sequentiallyConsistent)
        let caught = install(onSignal, for: handled, flags: restart ? SA_RESTART : 0)
        // A parent that left SIGCHLD ignored would have the editor reaped unseen, its status lost.
        return Handlers(previous: caught.previous + install(SIG_DFL, for: [SIGCHLD]).previous)
    }

    /// Installs `handler` for each of `signals` (``setHandler(_:_:flags:)``), the actions it
    /// replaced kept for ``Handlers/restore()`` (a signal whose `sigaction` failed left out).
    private static func install(_ handler: (@convention(c) (Int32) -> Void)?, for signals: [Int32], flags: Int32 = 0) -> Handlers {
        Handlers(previous: signals.compactMap { signal in setHandler(signal, handler, flags: flags).map { (signal, $0) } })
    }

    /// Installs `handler` for `signal` (no signals masked while it runs): the one call of this
    /// file that sets a handler (async-signal-safe: `sigaction` only). Returns the action it
    /// replaced, nil when `sigaction` failed.
    @discardableResult
    fileprivate static func setHandler(_ signal: Int32, _ handler: (@convention(c) (Int32) -> Void)?, flags: Int32 = 0) -> sigaction? {
        var action = sigaction()
        #if canImport(Glibc)
        action.__sigaction_handler.sa_handler = handler
        #else
        action.__sigaction_u.__sa_handler = handler
        #endif
        sigemptyset(&action.sa_mask)
        action.sa_flags = flags
        var old = sigaction()
        return sigaction(signal, &action, &old) == 0 ? old : nil
    }

    /// The handlers that were in place before ``catchSignals()``.
    struct Handlers {
        fileprivate var previous: [(Int32, sigaction)]

        /// Puts the earlier handlers back (once).
        mutating func restore() {
            for (signal, old) in previous {
                var action = old
                sigaction(signal, &action, nil)
            }
            previous = []
        }
    }

    /// Raises `signal` with its default action, unblocked, once the caller has cleaned up: the
    /// process ends (the shell sees 128 + `signal`) or stops (``suspend(by:)``) as it would have
    /// without ycft's handler; returns only when the signal does not end it (continued after a
    /// stop). Async-signal-safe: `onEnding(_:)` calls it.
    static func raiseByDefault(_ signal: Int32) {
        setHandler(signal, SIG_DFL)
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, signal)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
        raise(signal)
    }

    /// Runs `editor` on `file` through `/bin/sh -c` in the foreground and waits for it.
    ///
    /// An editor given as plain words (`vi`, `code --wait`, `/usr/bin/vim -u NONE`) is run as
    /// `exec EDITOR "$1"`, so the process ycft waits for and signals is the editor itself, not a
    /// shell above it; anything else (quotes, `$`, `;`, `=`...) is given to the shell as written,
    /// `EDITOR "$1"`. The editor starts with the default handling of every signal ycft catches
    /// or ignores (SIGPIPE too) and nothing blocked.
    static func run(_ editor: String, file: String) -> Outcome {
        let terminal = TerminalSettings.save()
        defer { terminal?.restore() }

        let script = isPlainWords(editor) ? "exec \(editor) \"$1\"" : "\(editor) \"$1\""
        let arguments = ["/bin/sh", "-c", script, "sh", file]
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in handled + [SIGPIPE, SIGTSTP, SIGTTIN, SIGTTOU, SIGCHLD] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setflags(&attributes, Int16(truncatingIfNeeded: POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        // Through PathBytes: an EDITOR or scratch path that is not UTF-8 keeps its own bytes.
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { argument in
            PathBytes.cString(argument).withUnsafeBufferPointer { $0.baseAddress.flatMap { strdup($0) } }
        } + [nil]
        defer { for pointer in argv { free(pointer) } }

        // The editor's pid is published to the handler with the stopping signals blocked, so a
        // signal that comes during the spawn is passed on as soon as it can be.
        var stopping = sigset_t(), before = sigset_t()
        sigemptyset(&stopping)
        for signal in handled { sigaddset(&stopping, signal) }
        pthread_sigmask(SIG_BLOCK, &stopping, &before)
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/bin/sh", nil, &attributes, argv, environ)
        if spawned == 0 {
            SignalState.editor.store(pid, ordering: .sequentiallyConsistent)
            // A signal that came before the editor existed (after the caller's last look) is its too.
            if let signal = stopSignal { kill(pid, signal) }
        }
        pthread_sigmask(SIG_SETMASK, &before, nil)
        guard spawned == 0 else { return .notStarted(SystemError(errno: spawned)) }

        // Wait without reaping, so the pid cannot be reused while the handler may still signal
        // it; then unpublish it and reap.
        var info = siginfo_t()
        while waitid(P_PID, id_t(bitPattern: pid), &info, WEXITED | WNOWAIT) != 0 && errno == EINTR {}
        pthread_sigmask(SIG_BLOCK, &stopping, &before)
        SignalState.editor.store(0, ordering: .sequentiallyConsistent)
        pthread_sigmask(SIG_SETMASK, &before, nil)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            let failure = SystemError.current
            guard failure.errno == EINTR else { return .lost(failure) }
        }
        return status & 0x7F == 0 ? .exited((status >> 8) & 0xFF) : .signaled(status & 0x7F)
    }

    /// Whether `editor` is words of characters the shell takes literally, the first not an
    /// option or an assignment, so `exec` before it means the same command.
    static func isPlainWords(_ editor: String) -> Bool {
        let literal = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_./+,:@%^ \t".unicodeScalars)
        guard let first = editor.unicodeScalars.first(where: { $0 != " " && $0 != "\t" }), first != "-" else { return false }
        return editor.unicodeScalars.allSatisfy { literal.contains($0) }
    }

    /// A signal's name for messages (`SIGTERM`), or `signal N`.
    static func name(of signal: Int32) -> String {
        let names = [SIGHUP: "SIGHUP", SIGINT: "SIGINT", SIGQUIT: "SIGQUIT", SIGKILL: "SIGKILL",
                     SIGSEGV: "SIGSEGV", SIGABRT: "SIGABRT", SIGPIPE: "SIGPIPE", SIGTERM: "SIGTERM"]
        return names[signal] ?? "signal \(signal)"
    }
}

/// What the signal handler shares with the rest of the process: lock-free atomics only.
private enum SignalState {
    /// The first stopping signal received (0: none).
    static let pending = Atomic<Int32>(0)
    /// The running editor's pid (0: none).
    static let editor = Atomic<Int32>(0)
    /// The last job-control stop received while ``ForegroundEditor/catchStops()``'s handlers are
    /// in place (0: none).
    static let suspended = Atomic<Int32>(0)
}

/// The job-control handler: async-signal-safe (an atomic store only).
private func onStop(_ signal: Int32) {
    SignalState.suspended.store(signal, ordering: .sequentiallyConsistent)
}

/// The terminal ``onEnding(_:)`` puts back: set by ``ForegroundEditor/catchEndings(restoring:)``
/// before the handlers are installed, only read by them.
nonisolated(unsafe) private var endingTerminal: TerminalSettings?

/// The handler of ``ForegroundEditor/catchEndings(restoring:)``: async-signal-safe
/// (`tcgetpgrp`, `getpgrp`, `tcsetattr`, `sigaction`, `pthread_sigmask` and `raise` only). Puts
/// the terminal back, then raises the signal again with its default action, unblocked: the
/// process ends by it (``ForegroundEditor/raiseByDefault(_:)``).
private func onEnding(_ signal: Int32) {
    if let terminal = endingTerminal, tcgetpgrp(terminal.fd) == getpgrp() {
        var settings = terminal.settings
        _ = tcsetattr(terminal.fd, TCSANOW, &settings)
    }
    ForegroundEditor.raiseByDefault(signal)
}

/// The handler: async-signal-safe (atomics and `kill` only).
private func onSignal(_ signal: Int32) {
    let editor = SignalState.editor.load(ordering: .sequentiallyConsistent)
    if editor > 0 {
        // Typed at the terminal, SIGINT and SIGQUIT reached the editor too: it decides.
        if signal == SIGINT || signal == SIGQUIT { return }
        kill(editor, signal)
    }
    _ = SignalState.pending.compareExchange(expected: 0, desired: signal, ordering: .sequentiallyConsistent)
}

/// The terminal's settings before the editor ran, put back after it (only while ycft's process
/// group is the terminal's foreground group: a background ycft leaves the terminal alone).
struct TerminalSettings {
    let fd: Int32
    let settings: termios

    static func save() -> TerminalSettings? {
        for fd: Int32 in [0, 1, 2] where isatty(fd) != 0 {
            var settings = termios()
            if tcgetattr(fd, &settings) == 0 { return TerminalSettings(fd: fd, settings: settings) }
        }
        return nil
    }

    func restore() {
        guard tcgetpgrp(fd) == getpgrp() else { return }
        var settings = self.settings
        _ = tcsetattr(fd, TCSADRAIN, &settings)
    }
}
