import SafeFiles
import FileErrors
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Test seams that exist only in debug builds (release builds compile them to nothing), for
/// tests that must act at an exact moment of a real `ycft` process.
enum TestHooks {
    /// After `migrate` read a file: with `YCFT_TEST_AFTER_READ_FIFO=PATH` (a named pipe), writes
    /// the file's path and a newline to the pipe, then waits until the test writes one byte back.
    /// The test changes the file in between, deterministically.
    static func afterRead(_ path: String) {
        #if DEBUG
        pause("YCFT_TEST_AFTER_READ_FIFO", path)
        #endif
    }

    /// Between the writer's last look at a file it replaces and its swap (``SafeFile``): with
    /// `YCFT_TEST_BEFORE_SWAP_FIFO=PATH`, the same handshake as ``afterRead(_:)``, so that a test
    /// can put another program's version in place at the worst moment. Nil (no hook) in release
    /// builds and when the variable is unset.
    static let beforeSwap: (@Sendable (String) -> Void)? = {
        #if DEBUG
        guard getenv("YCFT_TEST_BEFORE_SWAP_FIFO") != nil else { return nil }
        return { path in pause("YCFT_TEST_BEFORE_SWAP_FIFO", path) }
        #else
        return nil
        #endif
    }()

    #if DEBUG
    /// Writes `path` and a newline to the named pipe that `variable` names, then waits for one byte back.
    private static func pause(_ variable: String, _ path: String) {
        guard let fifo = getenv(variable).map({ PathBytes.decode(cString: $0) }) else { return }
        let out = open(PathBytes.cString(fifo), O_WRONLY | O_CLOEXEC)
        guard out >= 0 else { return }
        let line = PathBytes.encode(path) + [0x0A]
        _ = line.withUnsafeBytes { write(out, $0.baseAddress, $0.count) }
        close(out)
        let back = open(PathBytes.cString(fifo), O_RDONLY | O_CLOEXEC)
        guard back >= 0 else { return }
        var byte: UInt8 = 0
        _ = read(back, &byte, 1)
        close(back)
    }
    #endif
}
