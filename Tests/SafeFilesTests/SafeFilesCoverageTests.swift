import Foundation
import Testing
@testable import SafeFiles
import FileErrors
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// SafeFiles' answers for what the writer and the readers meet rarely: a lock held elsewhere,
/// a read that fails, link loops, descriptor names, a closed scratch directory, signals in the
/// middle of a read or a write, a folder's odd corners. Each on a real file, in this process.
@Suite struct SafeFilesCoverage {
    func scratch() throws -> String { try TestPaths.temporaryDirectory().path }

    func put(_ text: String, _ path: String) throws { try writeBytes(Array(text.utf8), to: URL(fileURLWithPath: path)) }

    func status(_ path: String) throws -> FileStatus { try FileStatus.of(path, followLinks: false).get() }

    /// The error's path and message, or nil when `body` does not throw.
    func message<T>(_ body: () throws -> T) -> String? {
        do { _ = try body() } catch let error as FileError { return "\(error.path): \(error)" } catch { return "\(error)" }
        return nil
    }

    // MARK: Reading

    /// Another holder of the file's lock (here another open of it in this process: `flock`
    /// locks belong to the open file) makes a locked read wait a tenth of a second, then refuse.
    @Test func aLockHeldElsewhereIsRefusedAfterABriefWait() throws {
        let path = try scratch() + "/prefs.plist"
        try put("text", path)
        let holder = open(path, O_RDONLY | O_CLOEXEC)
        #expect(holder >= 0)
        defer { close(holder) }
        #expect(flock(holder, LOCK_EX | LOCK_NB) == 0)
        let start = ContinuousClock.now
        #expect(message { try SafeFile.read(path, limit: 100, lock: true) }
                == "\(path): cannot read: another process (another ycft, or an open 'ycft edit') is working on it; try again when it is done")
        #expect(ContinuousClock.now - start >= .milliseconds(90))
        flock(holder, LOCK_UN)
        #expect(try SafeFile.read(path, limit: 100, lock: true).bytes == Array("text".utf8))
    }

    /// `/proc/self/mem` is a regular file whose first page cannot be read (EIO): the error is
    /// the read's. `/proc/self/status` says it has no size and holds more than a small limit.
    @Test func aReadThatFailsAndAFileLargerThanItsSize() throws {
        #expect(message { try SafeFile.read("/proc/self/mem", limit: 100) } == "/proc/self/mem: cannot read: Input/output error")
        let folder = try ReadOnlyFolder("/proc/self")
        #expect(message { try folder.read("mem", limit: 100) } == "/proc/self/mem: cannot read: Input/output error")
        #expect(try folder.read("status", limit: 10) == nil)
        #expect(try ReadOnlyFolder("/").path(of: "etc") == "/etc")
    }

    /// A descriptor that is not a regular file: `read(2)` of a directory fails with EISDIR,
    /// whichever way it is read (by a size known in advance, or in pieces).
    @Test func readingADirectoryDescriptorFails() throws {
        let fd = open(try scratch(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        #expect(fd >= 0)
        defer { close(fd) }
        #expect(throws: SystemError(errno: EISDIR)) { try readAll(fd, limit: 100, expectedSize: 10) }
        #expect(throws: SystemError(errno: EISDIR)) { try readAll(fd, limit: 100) }
        #expect(throws: SystemError(errno: EBADF)) { try writeAll(fd, [1]) }
    }

    // MARK: Names

    /// The descriptor-name rule on paths of every shape, by their text, by where the kernel has
    /// their folder (a link to `/proc/self` or `/dev/fd` on the way, a real folder named `fd`),
    /// and along a link.
    @Test func descriptorNamesByTextFolderAndLink() throws {
        let dir = try scratch()
        let odd = dir + "/" + PathBytes.decode([0xFF, 0x2E])
        // A folder whose name is not UTF-8: made by its bytes (PathBytes), as ycft reaches it.
        #expect(mkdir(dir + "/fd", 0o755) == 0 && mkdir(PathBytes.cString(odd), 0o755) == 0)
        #expect(symlink("/proc/self", dir + "/self") == 0 && symlink("/dev/fd", dir + "/fds") == 0 && symlink("/dev/stdout", dir + "/out") == 0)
        let cases: [(path: String, descriptor: Bool)] = [
            (dir + "/new.plist", false), (dir + "//new.plist", false), (odd + "/new.plist", false), ("/ycft-nonexistent.plist", false),
            ("new.plist", false), (dir + "/fd/x", false), (dir + "/fd/../x", false), (dir + "/./x", false), (dir + "/missing/x", false),
            (dir + "/self/fd/1", true), (dir + "/fds/1", true), (dir + "/out", true), ("/dev/stdout", true), ("/./dev//stdout", true),
            ("/proc/self/fd/1", true), ("proc/self/fd/1", true),
        ]
        for (path, descriptor) in cases { #expect(SafeFile.namesDescriptor(path) == descriptor, "\(path)") }
    }

    /// A loop of links names no descriptor (it is not followed forever); a relative link is
    /// followed from its own directory.
    @Test func linkLoopsAndRelativeLinks() throws {
        let dir = try scratch()
        #expect(symlink("b", dir + "/a") == 0 && symlink("a", dir + "/b") == 0)
        #expect(!SafeFile.namesDescriptor(dir + "/a"))
        #expect(message { try SafeFile.write([1], to: dir + "/a") } == "\(dir)/a: cannot write: Too many levels of symbolic links")
        #expect(symlink("/dev/stdin", dir + "/in") == 0 && symlink("in", dir + "/relative") == 0)
        #expect(SafeFile.namesDescriptor(dir + "/relative"))
        #expect(SafeFile.linkText(dir + "/relative") == "in")
        #expect(SafeFile.linkText(dir + "/none") == nil)
        // A text longer than the first try's 1 KiB (and one of exactly 1 KiB) is read whole.
        for length in [1024, 1500] {
            let long = "/" + String(repeating: "x/", count: (length - 2) / 2) + String(repeating: "y", count: length % 2 + 1)
            #expect(long.utf8.count == length && symlink(long, dir + "/long\(length)") == 0)
            #expect(SafeFile.linkText(dir + "/long\(length)") == long)
        }
    }

    @Test func descriptorPathsByName() {
        #expect(SafeFile.descriptorPath("/proc/self/fd/3") == 3)
        #expect(SafeFile.descriptorPath("/dev/fd/-1") == nil)
        #expect(SafeFile.descriptorPath("/dev/fd/x") == nil)
        #expect(SafeFile.baseName("/") == "/")
    }

    /// A replacement of the file read refuses a stream in its place, before writing anything.
    @Test func aStreamWhereTheFileReadWasIsRefused() throws {
        let path = try scratch() + "/prefs.plist"
        try put("text", path)
        let options = SafeFile.WriteOptions(expected: try status(path).identity)
        #expect(message { try SafeFile.write([1], to: "/dev/stdout", options: options) }
                == "/dev/stdout: not replaced: it changed after ycft read it (another program wrote it)")
    }

    /// A socket is neither replaced nor written to.
    @Test func aSocketIsRefused() throws {
        let path = try scratch() + "/s"
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in path.utf8.enumerated() { raw[i] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        #expect(bound == 0)
        #expect(message { try SafeFile.write([1], to: path) } == "\(path): cannot write: it is a socket, which ycft neither replaces nor writes to")
    }

    // MARK: New files and backups

    /// A batch's folders are flushed with one flush of their file system, not one each; where
    /// that flush fails (or there is none), each folder is flushed; a folder that is not there
    /// is left.
    @Test func foldersAreFlushedOncePerFileSystem() throws {
        let dir = try scratch()
        for name in ["a", "b", "c"] { #expect(mkdir(dir + "/" + name, 0o755) == 0) }
        let folders = ["a", "b", "missing", "c"].map { dir + "/" + $0 }
        for whole in [true, false] {
            var (systems, alone) = (0, 0)
            SafeFile.syncDirectories(folders, flushFileSystem: { _ in
                systems += 1
                return whole
            }, flushDirectory: { _ in alone += 1 })
            #expect(systems == 1 && alone == (whole ? 0 : 3), "whole: \(whole)")
        }
        SafeFile.syncDirectories(folders)
    }

    /// A new file given an owner gets the mode asked for, or 0600 when it is confidential, or
    /// 0666 less the umask.
    @Test func aNewFileWithAnOwnerTakesTheModeAsked() throws {
        let dir = try scratch()
        let me = (owner: UInt32(geteuid()), group: UInt32(getegid()))
        try SafeFile.write([1], to: dir + "/secret", options: SafeFile.WriteOptions(newFilePermissions: 0o644, newFileOwner: me, confidential: true))
        #expect(try status(dir + "/secret").permissions == 0o600)
        try SafeFile.write([1], to: dir + "/default", options: SafeFile.WriteOptions(newFileOwner: me))
        #expect(try status(dir + "/default").permissions == 0o666 & ~SafeFilesCoverage.umaskNow())
    }

    static func umaskNow() -> UInt32 {
        let text = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = text.split(separator: "\n").first { $0.hasPrefix("Umask:") } ?? "Umask: 022"
        return UInt32(line.dropFirst("Umask:".count).trimmingCharacters(in: .whitespaces), radix: 8) ?? 0o022
    }

    /// A backup of a path that does not resolve fails with the link's error, and nothing is kept.
    @Test func aBackupOfNothingFails() throws {
        let dir = try scratch()
        try put("text", dir + "/real")
        let status = try status(dir + "/real")
        #expect(message { try SafeFile.keepBackup(of: dir + "/gone", expected: status, suffix: ".bak", bytes: [1]) }
                == "\(dir)/gone: cannot back up: No such file or directory")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["real"])
    }

    /// A backup is discarded only while its name holds the very file it linked.
    @Test func aBackupThatIsAnotherFileIsNotDiscarded() throws {
        let dir = try scratch()
        try put("old", dir + "/prefs.plist")
        let read = try status(dir + "/prefs.plist")
        let backup = try SafeFile.keepBackup(of: dir + "/prefs.plist", expected: read, suffix: ".bak", bytes: Array("old".utf8))
        #expect(backup == SafeFile.Backup(path: dir + "/prefs.plist.bak", reused: false))
        #expect(unlink(dir + "/prefs.plist.bak") == 0)
        try put("someone else's", dir + "/prefs.plist.bak")
        SafeFile.discardBackup(backup, expected: read)
        #expect(try readBytes(URL(fileURLWithPath: dir + "/prefs.plist.bak")) == Array("someone else's".utf8))
    }

    /// Every backup name up to `.99` taken by other files: no backup, and nothing written.
    @Test func everyBackupNameTaken() throws {
        let dir = try scratch()
        try put("old", dir + "/prefs.plist")
        try put("other", dir + "/prefs.plist.bak")
        for n in 1..<100 { try put("other", dir + "/prefs.plist.bak.\(n)") }
        #expect(message { try SafeFile.keepBackup(of: dir + "/prefs.plist", expected: try status(dir + "/prefs.plist"), suffix: ".bak",
                                                  bytes: Array("old".utf8)) }
                == "\(dir)/prefs.plist: cannot back up: every backup name up to .99 is taken")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).count == 101)
    }

    /// Standard error by its descriptor name is a stream: written to, never replaced.
    @Test func standardErrorIsAStream() throws {
        #expect(try SafeFile.write([], to: "/dev/stderr") == .streamed("/dev/stderr"))
    }

    /// A backup made in this run goes when the replace it guarded failed, while its name still
    /// holds the very file it linked.
    @Test func aBackupOfTheFileReadIsDiscarded() throws {
        let dir = try scratch()
        try put("old", dir + "/prefs.plist")
        let read = try status(dir + "/prefs.plist")
        let backup = try SafeFile.keepBackup(of: dir + "/prefs.plist", expected: read, suffix: ".bak", bytes: Array("old".utf8))
        SafeFile.discardBackup(backup, expected: read)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["prefs.plist"])
    }

    /// A file reached through a link to another file system (here tmpfs) cannot be linked
    /// beside the link (EXDEV): the backup is a copy, with the original's bytes and mode. An
    /// earlier copy with those bytes is reused; one with others, or a link, is kept, and the next
    /// name is taken.
    @Test(.enabled(if: SafeFilesCoverage.otherFileSystem != nil, "no tmpfs at /dev/shm beside the test directory's file system"))
    func aBackupAcrossFileSystemsIsACopy() throws {
        let shm = try #require(Self.otherFileSystem)
        let remote = shm + "/ycft-coverage-\(getpid())-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: remote, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: remote) }
        let dir = try scratch()
        try put("original", remote + "/prefs.plist")
        #expect(chmod(remote + "/prefs.plist", 0o640) == 0)
        let read = try FileStatus.of(remote + "/prefs.plist").get()
        let bytes = Array("original".utf8)
        #expect(symlink(remote + "/prefs.plist", dir + "/prefs.plist") == 0)
        let copy = try SafeFile.keepBackup(of: dir + "/prefs.plist", expected: read, suffix: ".bak", bytes: bytes)
        #expect(copy == SafeFile.Backup(path: dir + "/prefs.plist.bak", reused: false))
        #expect(try readBytes(URL(fileURLWithPath: copy.path)) == bytes)
        #expect(try status(copy.path).permissions == 0o640)
        #expect(try SafeFile.keepBackup(of: dir + "/prefs.plist", expected: read, suffix: ".bak", bytes: bytes)
                == SafeFile.Backup(path: dir + "/prefs.plist.bak", reused: true))
        try put("another", dir + "/prefs.plist.old")
        #expect(try SafeFile.keepBackup(of: dir + "/prefs.plist", expected: read, suffix: ".old", bytes: bytes)
                == SafeFile.Backup(path: dir + "/prefs.plist.old.1", reused: false))
        #expect(symlink(dir + "/nowhere", dir + "/prefs.plist.dangling") == 0)
        #expect(try SafeFile.keepBackup(of: dir + "/prefs.plist", expected: read, suffix: ".dangling", bytes: bytes)
                == SafeFile.Backup(path: dir + "/prefs.plist.dangling.1", reused: false))
        #expect(SafeFile.linkText(dir + "/prefs.plist.dangling") == dir + "/nowhere")
    }

    /// `/dev/shm` when it is a file system other than the test directory's.
    static let otherFileSystem: String? = {
        guard let scratch = try? TestPaths.temporaryDirectory().path, case let .success(here) = FileStatus.of(scratch),
              case let .success(shm) = FileStatus.of("/dev/shm"), shm.kind == .directory, access("/dev/shm", W_OK) == 0,
              shm.identity.device != here.identity.device else { return nil }
        return "/dev/shm"
    }()

    /// An output name that is a relative link, through another, to standard input is refused
    /// as a descriptor name.
    @Test func anOutputLinkedToStandardInputIsRefused() throws {
        let dir = try scratch()
        #expect(symlink("/dev/stdin", dir + "/in") == 0 && symlink("in", dir + "/out") == 0)
        #expect(message { try SafeFile.standardStream(forOutput: dir + "/out") }
                == "\(dir)/out: cannot write: it names an open descriptor, not a file; ycft writes to standard output "
                + "(- or /dev/stdout), standard error (/dev/stderr) or a file by its own path")
    }

    // MARK: The editor's scratch directory

    @Test func aClosedScratchDirectoryRefusesAndNamesAreChecked() throws {
        let parent = try scratch()
        let scratch = try ScratchDirectory.make(in: parent + "//", prefix: "edit-")
        #expect(scratch.path.hasPrefix(parent + "/edit-"))
        try put("x", scratch.path(of: "file"))
        // A name under a file: unlinkat says ENOTDIR; under a missing folder, openat says ENOENT.
        #expect(message { try scratch.create("file/inner", [1]) } == "\(scratch.path)/file/inner: cannot write: Not a directory")
        #expect(message { try scratch.create("missing/inner", [1]) } == "\(scratch.path)/missing/inner: cannot write: No such file or directory")
        scratch.keep()
        #expect(message { try scratch.create("file", [1]) } == "\(scratch.path)/file: cannot write: Bad file descriptor")
        #expect(message { try scratch.read("file", limit: 10) } == "\(scratch.path)/file: cannot read: Bad file descriptor")
        scratch.remove()
        #expect(FileManager.default.fileExists(atPath: scratch.path))
    }

    /// Removing the scratch directory removes what an editor left 16 levels deep; deeper than
    /// that is left (and the directory with it).
    @Test func removalStopsBelowSixteenLevels() throws {
        let scratch = try ScratchDirectory.make(in: try self.scratch(), prefix: "edit-")
        let deep = (0..<18).map { "d\($0)" }.joined(separator: "/")
        try FileManager.default.createDirectory(atPath: scratch.path(of: deep), withIntermediateDirectories: true)
        try put("x", scratch.path(of: "shallow"))
        scratch.remove()
        #expect(!FileManager.default.fileExists(atPath: scratch.path(of: "shallow")))
        #expect(FileManager.default.fileExists(atPath: scratch.path(of: (0..<17).map { "d\($0)" }.joined(separator: "/"))))
    }

    // MARK: Extended attributes

    /// Attributes are read by path when the original cannot be opened as the file read; a
    /// value the destination already holds is not set again; a path that is gone is named `*`.
    @Test(.enabled(if: userAttributesWork, "the scratch folder takes no user extended attributes"))
    func attributesByPathAndAlreadyKept() throws {
        let dir = try scratch()
        try put("a", dir + "/original")
        #expect(setAttribute(dir + "/original", "user.origin", [0x31]) == 0)
        try put("b", dir + "/copy")
        #expect(setAttribute(dir + "/copy", "user.origin", [0x31]) == 0)
        let destination = open(dir + "/copy", O_RDWR | O_CLOEXEC)
        defer { close(destination) }
        // The status of another file: the original's descriptor is not the file read, so its path is used.
        let other = try status(dir + "/copy")
        #expect(FileAttributes.copy(from: dir + "/original", status: other, to: destination) == [])
        #expect(FileAttributes.copy(from: dir + "/gone", status: other, to: destination)
                == [AttributeNotKept(name: "*", error: SystemError(errno: ENOENT))])
    }

    // MARK: Listings

    /// A byte that is not UTF-8 is shown as `\\xNN`; a four-byte sequence led by F1 is text.
    @Test func namesShowBytesAndKeepFourByteText() {
        #expect(PathBytes.displayed(PathBytes.decode([0x61, 0x80, 0x62])) == #"a\x80b"#)
        #expect(PathBytes.decode([0xF1, 0x80, 0x80, 0x80]) == "\u{40000}")
    }
}

/// Signals that interrupt a blocked read or write (`EINTR`): the call is made again, and every
/// byte arrives. The handler does nothing and is installed without `SA_RESTART`.
@Suite(.serialized) struct InterruptedCalls {
    static func installHandler() {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in }
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0
        sigaction(SIGUSR1, &action, nil)
    }

    /// Runs `body` on a thread of its own, signalling it every 5 ms for 100 ms, then calls
    /// `release` (which unblocks it) and waits for it.
    static func interrupted(_ body: @escaping @Sendable () -> Void, release: () -> Void) {
        installHandler()
        let started = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var thread = pthread_self()
        let worker = Thread {
            thread = pthread_self()
            // Threads start with the signal blocked (the test runner's mask): let it in.
            var set = sigset_t()
            sigemptyset(&set)
            sigaddset(&set, SIGUSR1)
            pthread_sigmask(SIG_UNBLOCK, &set, nil)
            started.signal()
            body()
            done.signal()
        }
        worker.start()
        started.wait()
        for _ in 0..<20 {
            pthread_kill(thread, SIGUSR1)
            usleep(5_000)
        }
        release()
        done.wait()
    }

    @Test(arguments: [0, 5])
    func aReadIsResumed(expectedSize: Int) throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]) }
        nonisolated(unsafe) var result: Result<[UInt8], SystemError> = .success([])
        let reader = fds[0]
        Self.interrupted({
            do throws(SystemError) { result = .success(try readAll(reader, limit: 100, expectedSize: expectedSize)) } catch { result = .failure(error) }
        }, release: {
            _ = write(fds[1], "hello", 5)
            close(fds[1])
        })
        #expect(try result.get() == Array("hello".utf8))
    }

    @Test func aWriteIsResumed() throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]) }
        // Fill the pipe, so the next write blocks before it writes anything.
        let flags = fcntl(fds[1], F_GETFL)
        _ = fcntl(fds[1], F_SETFL, flags | O_NONBLOCK)
        var filled = 0
        let chunk = [UInt8](repeating: 7, count: 4096)
        while true {
            let n = write(fds[1], chunk, chunk.count)
            if n <= 0 { break }
            filled += n
        }
        _ = fcntl(fds[1], F_SETFL, flags)
        let writer = fds[1]
        nonisolated(unsafe) var failure: SystemError?
        let bytes = [UInt8](repeating: 9, count: 10)
        nonisolated(unsafe) var drained: [UInt8] = []
        Self.interrupted({
            do throws(SystemError) { try writeAll(writer, bytes) } catch { failure = error }
            close(writer)
        }, release: {
            drained = (try? readAll(fds[0], limit: filled + 100)) ?? []
        })
        #expect(failure == nil)
        #expect(drained.count == filled + 10 && Array(drained.suffix(10)) == bytes)
    }
}
