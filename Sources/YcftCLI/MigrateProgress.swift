import Dispatch
import Synchronization

/// Progress on standard error: a bar on a terminal while the files are migrated, a plain line
/// every two seconds otherwise.
final class MigrateProgress: Sendable {
    private struct Counter {
        var done = 0
        var last = DispatchTime.now()
        var drew = false
    }

    private let counter = Mutex(Counter())
    private let total: Int
    private let io: CommandIO
    private let terminal: Bool
    /// `--quiet`: no bar and no progress lines (messages still pass).
    private let quiet: Bool

    init(total: Int, quiet: Bool, io: CommandIO) {
        (self.total, self.io, self.quiet, terminal) = (total, io, quiet, io.stderrIsTerminal())
    }

    func tick() {
        if quiet { return }
        counter.withLock { c in
            c.done += 1
            let now = DispatchTime.now()
            let interval: UInt64 = terminal ? 100_000_000 : 2_000_000_000
            guard now.uptimeNanoseconds - c.last.uptimeNanoseconds >= interval || (terminal && c.done == total) else { return }
            c.last = now
            if terminal {
                // The whole line fits on one screen line, short of the last column (a line that
                // wraps is not cleared by clearLine): a narrower bar, or the count alone.
                let count = " \(c.done)/\(total)"
                let width = min(30, io.stderrWidth() - 1 - count.count - 2)
                io.writeStderr(Ycft.TerminalControl.lineStart)
                if width >= 10 {
                    let filled = total == 0 ? width : width * c.done / total
                    io.writeStderr("[\(String(repeating: "#", count: filled))\(String(repeating: " ", count: width - filled))]\(count)")
                } else {
                    io.writeStderr(String(count.dropFirst()))
                }
                c.drew = true
            } else {
                io.writeStderr("ycft migrate: \(c.done)/\(total) files\n")
            }
        }
    }

    /// Prints a message on its own line, first clearing the bar (it is redrawn on the next tick).
    func message(_ text: String) {
        counter.withLock { c in
            if c.drew {
                io.writeStderr(Ycft.TerminalControl.clearLine)
                c.drew = false
            }
            io.writeStderr(text)
        }
    }

    /// Takes the bar away: the summary that follows says what it said.
    func finish() {
        counter.withLock { c in if c.drew { io.writeStderr(Ycft.TerminalControl.clearLine) } }
    }
}
