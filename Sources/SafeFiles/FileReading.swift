package import FileErrors
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Reading: a file read whole with its status, to be changed in place under its lock, or refused by
// its kind before it is opened; descriptors read and written in full.
extension SafeFile {
    /// `flock(LOCK_EX | LOCK_NB)`, tried twenty times a few milliseconds apart (a tenth of a
    /// second in all) while it is held: a lock is also held, for an instant, by a child another
    /// thread of this process is starting (its copy of a descriptor lives until its `exec`,
    /// close-on-exec or not), and by another ycft finishing a write. False with `errno` set
    /// when it stays held (or cannot be taken).
    static func lockBriefly(_ fd: Int32) -> Bool {
        for attempt in 0..<20 {
            if flock(fd, LOCK_EX | LOCK_NB) == 0 { return true }
            guard errno == EWOULDBLOCK, attempt < 19 else { return false }
            usleep(5_000)
        // unreachable: the loop returns at its 20th attempt (attempt < 19 fails)
        }
        return false
    }

    /// Reads a file (at most `limit + 1` bytes, so the caller can tell that it is larger),
    /// with its status.
    ///
    /// With `lock`, the file is read to be changed in place under an exclusive `flock`, held
    /// until ``InputFile/release()`` or the value's end: two ycft processes never work on one
    /// file at once; only a regular file (a link followed, as the writer follows it), refused
    /// before it is opened when it is not: a descriptor name, then whatever `stat(2)` does not
    /// call regular (as `openRegular(_:refusing:)` refuses it). With `regularOnly`,
    /// only a regular file is read, and anything else is refused by its kind before it is
    /// opened (`openRegular(_:refusing:)`: a named pipe is never waited on, a device never
    /// read). Without either, pipes, devices and `/dev/stdin` are read as streams.
    /// - Throws: ``FileError`` (``FileError/Reason/locked`` when another process holds the lock;
    ///   with `lock`, ``FileError/Reason/notRegularFile(_:)`` and
    ///   ``FileError/Reason/descriptorName`` for what is not changed in place; with
    ///   `regularOnly`, ``FileError/Reason/unsupportedKind(_:)`` or
    ///   ``FileError/Reason/isDirectory`` for what is not a regular file).
    package static func read(_ path: String, limit: Int, lock: Bool = false, regularOnly: Bool = false) throws(FileError) -> InputFile {
        let fd: Int32
        let before: FileStatus
        if lock {
            if namesDescriptor(path) { throw FileError(.inPlace, path, .descriptorName) }
            (fd, before) = try openRegular(path) { FileError(.inPlace, path, .notRegularFile($0)) }
        } else if regularOnly {
            (fd, before) = try openRegular(path) { FileError(.read, path, .unsupportedKind($0)) }
        } else {
            do { (fd, before) = try FileStatus.open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY).get() } catch { throw FileError(.read, path, .system(error)) }
        }
        let handle = FileLock(fd)
        if before.kind == .directory { throw FileError(.read, path, .isDirectory) }
        if lock && !lockBriefly(fd) {
            let failure = SystemError.current
            // Only a held lock is an answer; a file system without locks is read unlocked.
            if failure.errno == EWOULDBLOCK { throw FileError(.read, path, .locked) }
        }
        let bytes: [UInt8]
        let size = before.kind == .regular ? Int(clamping: before.identity.size) : 0
        // The size is checked again below (fstat): the read ends when it has the bytes the size says.
        do { bytes = try readAll(fd, limit: limit, expectedSize: size, sizeChecked: true) } catch { throw FileError(.read, path, .system(error)) }
        guard before.kind == .regular else { return InputFile(path: path, bytes: bytes, status: nil, lock: nil) }
        guard case let .success(after) = FileStatus.of(descriptor: fd), after.identity == before.identity else {
            throw FileError(.read, path, .changedWhileReading)
        }
        return InputFile(path: path, bytes: bytes, status: before, lock: lock ? handle : nil)
    }

    /// Opens a regular file for reading, refusing anything else before opening it: a directory
    /// (``FileError/Reason/isDirectory``), else `refusal` of the kind `stat(2)` gives. The open
    /// is non-blocking and `fstat(2)` checks it got the file `stat` saw, so a pipe put in its
    /// place meanwhile is refused, not waited on. Links are followed.
    /// - Returns: the open descriptor (the caller closes it) and its status.
    /// - Throws: ``FileError``: `refusal`'s, ``FileError/Reason/isDirectory``, the system error of
    ///   `stat` or `open`, or ``FileError/Reason/changedWhileReading``.
    static func openRegular(_ path: String, refusing refusal: (FileKind) -> FileError) throws(FileError) -> (Int32, FileStatus) {
        let seen: FileStatus
        do { seen = try FileStatus.of(path).get() } catch { throw FileError(.read, path, .system(error)) }
        if seen.kind == .directory { throw FileError(.read, path, .isDirectory) }
        guard seen.kind == .regular else { throw refusal(seen.kind) }
        let (fd, opened): (Int32, FileStatus)
        do { (fd, opened) = try FileStatus.open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK).get() } catch {
            throw FileError(.read, path, .system(error))
        }
        // untested: a race, the name replaced by a file of another kind between the stat and the open
        guard opened.kind == .regular else {
            close(fd)
            throw refusal(opened.kind)
        }
        // untested: a race, the name replaced by another regular file between the stat and the open
        guard opened.identity.sameFile(as: seen.identity) else {
            close(fd)
            throw FileError(.read, path, .changedWhileReading)
        }
        // Reads of a regular file never wait; the flag is cleared all the same.
        let flags = fcntl(fd, F_GETFL)
        if flags >= 0 { _ = fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) }
        return (fd, opened)
    }
}

/// A file's bytes and status as ``SafeFile/read(_:limit:lock:)`` found them, holding the file's
/// lock (when asked for) until ``release()`` or until the last copy is gone.
package struct InputFile: Sendable {
    package let path: String
    /// The bytes read (at most the limit plus one).
    package let bytes: [UInt8]
    /// The status of a regular file when it was read; nil for standard input, pipes and devices.
    package let status: FileStatus?
    let lock: FileLock?

    /// An input with no file behind it (standard input, a test's bytes).
    package init(path: String, bytes: [UInt8], status: FileStatus? = nil) {
        self.init(path: path, bytes: bytes, status: status, lock: nil)
    }

    init(path: String, bytes: [UInt8], status: FileStatus?, lock: FileLock?) {
        (self.path, self.bytes, self.status, self.lock) = (path, bytes, status, lock)
    }

    /// Releases the file's lock now (it is released anyway when the last copy is gone).
    package func release() { lock?.release() }
}

/// An open descriptor, closed (and so unlocked) once, whichever thread releases it.
///
/// `@unchecked Sendable` because the descriptor sits behind a pthread mutex rather than a
/// `Synchronization.Mutex`: the package's products build for iOS 15 (SafeFiles among them),
/// and `Mutex` needs iOS 18 / macOS 15.
final class FileLock: @unchecked Sendable {
    private var fd: Int32
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    init(_ fd: Int32) {
        self.fd = fd
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    func release() {
        pthread_mutex_lock(mutex)
        if fd >= 0 {
            close(fd)
            fd = -1
        }
        pthread_mutex_unlock(mutex)
    }

    deinit {
        release()
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }
}

/// Writes all of `bytes` to a descriptor, retrying short writes and `EINTR`.
/// - Throws: ``SystemError`` from `write(2)` (`EPIPE`, `ENOSPC`, `EBADF`, `EIO`...).
package func writeAll(_ fd: Int32, _ bytes: [UInt8]) throws(SystemError) {
    var offset = 0
    while offset < bytes.count {
        let n = bytes.withUnsafeBytes { raw in write(fd, raw.baseAddress.map { $0 + offset }, raw.count - offset) }
        if n < 0 {
            if errno == EINTR { continue }
            throw .current
        }
        offset += n
    }
}

/// Reads a descriptor to its end, or until `limit` bytes and one more were read, or (with
/// `untilLineFeed`) until a read brought a line feed: a first line is all there is to read from
/// a writer that may keep its end open (a password manager's pipe).
///
/// `expectedSize`, a regular file's size from `fstat(2)`, lets the bytes be read straight into
/// an array of that size and one byte more (to see the end, or that the file grew): no growing
/// copies, and the memory of the file once (an 18 MB file read in 64 KiB pieces went through
/// arrays of 1 to 32 MB, each copied and faulted in anew). A file that turns out longer
/// goes on being read in pieces; 0 (pipes, devices, files whose size says nothing, as in
/// `/proc`) reads in pieces from the start. `sizeChecked`: the caller checks the size again
/// afterwards (a file that grew is its error), so the read ends at `expectedSize` bytes without
/// a last read to see the end.
/// - Throws: ``SystemError`` from `read(2)`.
package func readAll(_ fd: Int32, limit: Int, untilLineFeed: Bool = false, expectedSize: Int = 0,
                     sizeChecked: Bool = false) throws(SystemError) -> [UInt8] {
    var out: [UInt8] = []
    if expectedSize > 0, !untilLineFeed, limit >= 0 {
        let capacity = min(expectedSize, limit, Int.max - 1) + 1
        var failure: SystemError?
        out = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
            count = 0
            // unreachable: the capacity is at least 1, so the buffer has an address
            guard let base = buffer.baseAddress else { return }
            while count < buffer.count {
                let n = read(fd, base + count, buffer.count - count)
                if n < 0 {
                    if errno == EINTR { continue }
                    failure = .current
                    return
                }
                if n == 0 { return }
                count += n
                if sizeChecked && count == expectedSize { return }
            }
        }
        if let failure { throw failure }
        // Short of the capacity: the end was reached. Full: more than the limit, or the file grew.
        if out.count < capacity || out.count > limit { return out }
    }
    let chunk = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 1 << 16)
    defer { chunk.deallocate() }
    while out.count <= limit {
        // Never more than one byte over the limit.
        let n = read(fd, chunk.baseAddress, min(chunk.count - 1, limit - out.count) + 1)
        if n < 0 {
            if errno == EINTR { continue }
            throw .current
        }
        if n == 0 { break }
        let piece = UnsafeBufferPointer(rebasing: chunk[..<n])
        out.append(contentsOf: piece)
        if untilLineFeed, piece.contains(0x0A) { break }
    }
    return out
}
