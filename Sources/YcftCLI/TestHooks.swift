import SafeFiles
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The moments of a run at which a test acts, as a value the run is given (``CommandIO/hooks``;
/// none by default): after `migrate` read a file, and the writer's (`SafeFile.WriteHooks`).
struct TestHooks: Sendable {
    /// Called with the path of a file `migrate` read, before it migrates it: a test changes the
    /// file in between, as another program would.
    var afterRead: (@Sendable (String) -> Void)?
    /// The writer's moments: before a replacement is swapped in.
    var write = SafeFile.WriteHooks()

    /// The adapter for tests of a real `ycft` process, which cannot be given a value: in a debug
    /// build, `YCFT_TEST_AFTER_READ_FIFO` (``afterRead``) and `YCFT_TEST_BEFORE_SWAP_FIFO` (the
    /// writer's `beforeSwap`) each name a named pipe. At its moment ycft writes the path and a
    /// newline to the pipe, then waits until the test writes one byte back. No hooks in a release
    /// build, nor for a variable that is unset.
    static let environment = TestHooks(afterRead: pause("YCFT_TEST_AFTER_READ_FIFO"),
                                       write: SafeFile.WriteHooks(beforeSwap: pause("YCFT_TEST_BEFORE_SWAP_FIFO")))

    /// The handshake over the pipe that `variable` names; nil when there is none.
    private static func pause(_ variable: String) -> (@Sendable (String) -> Void)? {
        #if DEBUG
        guard let fifo = getenv(variable).map({ PathBytes.decode(cString: $0) }) else { return nil }
        return { path in
            let out = open(PathBytes.cString(fifo), O_WRONLY | O_CLOEXEC)
            guard out >= 0 else { return }
            try? writeAll(out, PathBytes.encode(path) + [0x0A])
            close(out)
            let back = open(PathBytes.cString(fifo), O_RDONLY | O_CLOEXEC)
            guard back >= 0 else { return }
            var byte: UInt8 = 0
            _ = read(back, &byte, 1)
            close(back)
        }
        #else
        return nil
        #endif
    }
}
