#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An operating-system error with its `errno`, described the way `strerror` does.
///
/// ```swift
/// SystemError(errno: ENOSPC).description   // "No space left on device"
/// ```
public struct SystemError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The `errno` value.
    public let errno: Int32
    /// `strerror(errno)`.
    public var description: String { String(cString: strerror(errno)) }

    /// Wraps an `errno` value.
    public init(errno: Int32) { self.errno = errno }

    /// The calling thread's current `errno`.
    public static var current: SystemError { SystemError(errno: currentErrno()) }
}

private func currentErrno() -> Int32 { errno }
