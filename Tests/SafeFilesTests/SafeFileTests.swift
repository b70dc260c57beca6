import Foundation
import Testing
@testable import SafeFiles
import FileErrors
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The one writer's policy, case by case, on real files.
@Suite struct SafeFileWriter {
    func status(_ path: String, follow: Bool = false) throws -> FileStatus {
        try FileStatus.of(path, followLinks: follow).get()
    }

    func entries(_ dir: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
    }

    @Test func replacesAtomicallyKeepingPermissionsAndLeavesNoTemporary() throws {
        let dir = try TestPaths.temporaryDirectory()
        let file = dir.appendingPathComponent("a.plist").path
        try writeBytes([1, 2, 3], to: URL(fileURLWithPath: file))
        chmod(file, 0o640)
        let before = try status(file)
        let outcome = try SafeFile.write([4, 5], to: file)
        #expect(outcome == .replaced(file))
        let after = try status(file)
        #expect(after.permissions == 0o640)
        #expect(after.owner == before.owner && after.group == before.group)
        #expect(after.identity.inode != before.identity.inode)
        #expect(try readBytes(URL(fileURLWithPath: file)) == [4, 5])
        #expect(try entries(dir) == ["a.plist"])
    }

    /// Secret bytes (`confidential`): a new file is made 0600 whatever mode was asked; a file
    /// whose mode lets its group or others in, a pipe and a device are refused where the writer
    /// decides, nothing written; a file only its owner may use is replaced, its mode kept.
    @Test func confidentialBytesGoOnlyWhereNoOneElseCanReadThem() throws {
        let dir = try TestPaths.temporaryDirectory()
        let options = SafeFile.WriteOptions(newFilePermissions: 0o644, confidential: true)
        let new = dir.appendingPathComponent("new.plist").path
        #expect(try SafeFile.write([1], to: new, options: options) == .created(new))
        #expect(try status(new).permissions == 0o600)
        chmod(new, 0o620)
        #expect(throws: FileError(.write, new, .notPrivate(.regular, permissions: 0o620))) {
            try SafeFile.write([2], to: new, options: options)
        }
        #expect(try readBytes(URL(fileURLWithPath: new)) == [1])
        #expect(FileError(.write, new, .notPrivate(.regular, permissions: 0o620)).description
                == "not replaced: its mode 0620 lets its group write it, and the replacement would keep that mode")
        chmod(new, 0o400)
        #expect(try SafeFile.write([3], to: new, options: SafeFile.WriteOptions(replaceReadOnly: true, confidential: true)) == .replaced(new))
        #expect(try status(new).permissions == 0o400)
        let fifo = dir.appendingPathComponent("fifo").path
        #expect(mkfifo(fifo, 0o600) == 0)
        #expect(throws: FileError(.write, fifo, .notPrivate(.fifo, permissions: 0o600))) {
            try SafeFile.write([4], to: fifo, options: options)
        }
        #expect(throws: FileError(.write, "/dev/null", .notPrivate(.characterDevice, permissions: 0o666))) {
            try SafeFile.write([4], to: "/dev/null", options: options)
        }
    }

    @Test func newFileTakesGivenPermissionsWithoutSetuidAndNeverClobbers() throws {
        let dir = try TestPaths.temporaryDirectory()
        let file = dir.appendingPathComponent("new").path
        let outcome = try SafeFile.write([9], to: file, options: .init(newFilePermissions: 0o4755))
        #expect(outcome == .created(file))
        #expect(try status(file).permissions == 0o755)
        // mayReplace false: an existing file is never replaced.
        #expect(throws: FileError(.write, file, .appeared)) {
            try SafeFile.write([1], to: file, options: .init(mayReplace: false))
        }
        #expect(try readBytes(URL(fileURLWithPath: file)) == [9])
    }

    @Test func aNewFileWithoutGivenPermissionsGetsTheUmasksDefault() throws {
        let dir = try TestPaths.temporaryDirectory()
        let file = dir.appendingPathComponent("fresh").path
        // The writer reads the umask from /proc/self/status once per process; compare with that.
        try SafeFile.write([1], to: file)
        let expected = 0o666 & ~UInt32(processUmask())
        #expect(try status(file).permissions == expected)
        #expect(expected & 0o600 == 0o600)
    }

    @Test func setuidBitsAreNotKeptOnReplace() throws {
        let dir = try TestPaths.temporaryDirectory()
        let file = dir.appendingPathComponent("s").path
        try writeBytes([1], to: URL(fileURLWithPath: file))
        chmod(file, 0o6755)
        try SafeFile.write([2], to: file)
        #expect(try status(file).permissions == 0o755)
    }

    @Test func followsASymlinkAndKeepsTheLink() throws {
        let dir = try TestPaths.temporaryDirectory()
        let real = dir.appendingPathComponent("real").path, link = dir.appendingPathComponent("link").path
        try writeBytes([1], to: URL(fileURLWithPath: real))
        symlink("real", link)
        let outcome = try SafeFile.write([7, 7], to: link)
        #expect(outcome == .replaced(try #require(realpathString(real))))
        #expect(try status(link).kind == .symbolicLink)
        #expect(try readBytes(URL(fileURLWithPath: real)) == [7, 7])
    }

    @Test func refusesADanglingLinkADirectoryAndASocket() throws {
        let dir = try TestPaths.temporaryDirectory()
        let link = dir.appendingPathComponent("dangling").path
        symlink("missing-target", link)
        #expect(throws: FileError(.write, link, .danglingLink(target: "missing-target"))) {
            try SafeFile.write([1], to: link)
        }
        #expect(try status(link).kind == .symbolicLink)
        #expect(throws: FileError(.write, dir.path, .isDirectory)) { try SafeFile.write([1], to: dir.path) }
    }

    @Test func streamsToAFifoAndToDevices() throws {
        let dir = try TestPaths.temporaryDirectory()
        let fifo = dir.appendingPathComponent("pipe").path
        #expect(mkfifo(fifo, 0o600) == 0)
        nonisolated(unsafe) var received: [UInt8] = []
        let reader = Thread { received = readFIFO(fifo) }
        reader.start()
        #expect(try SafeFile.write([1, 2, 3], to: fifo) == .streamed(fifo))
        while !reader.isFinished { usleep(1000) }
        #expect(received == [1, 2, 3])
        #expect(try status(fifo).kind == .fifo)
        #expect(try SafeFile.write([1], to: "/dev/null") == .streamed("/dev/null"))
        #expect(throws: FileError(.write, "/dev/full", .system(SystemError(errno: ENOSPC)))) {
            try SafeFile.write([1], to: "/dev/full")
        }
        #expect(try status("/dev/full").kind == .characterDevice)
    }

    @Test func readOnlyIsRefusedUnlessAsked() throws {
        let dir = try TestPaths.temporaryDirectory()
        let file = dir.appendingPathComponent("ro").path
        try writeBytes([1], to: URL(fileURLWithPath: file))
        chmod(file, 0o444)
        #expect(throws: FileError(.write, file, .readOnly(permissions: 0o444))) { try SafeFile.write([2], to: file) }
        #expect("\(FileError(.write, file, .readOnly(permissions: 0o444)))" == "not replaced: it is read-only (mode 0444)")
        try SafeFile.write([2], to: file, options: .init(replaceReadOnly: true))
        #expect(try readBytes(URL(fileURLWithPath: file)) == [2])
        #expect(try status(file).permissions == 0o444)
    }

    @Test func aFileChangedSinceItWasReadIsNotReplaced() throws {
        let dir = try TestPaths.temporaryDirectory()
        let file = dir.appendingPathComponent("f").path
        try writeBytes([1, 1], to: URL(fileURLWithPath: file))
        let input = try SafeFile.read(file, limit: 100)
        #expect(input.bytes == [1, 1])
        // Another program rewrites it (same size, new content, a later modification time).
        usleep(10_000)
        try writeBytes([2, 2], to: URL(fileURLWithPath: file))
        #expect(throws: FileError(.write, file, .changedSinceRead)) {
            try SafeFile.write([3], to: file, options: .init(expected: input.status?.identity))
        }
        #expect(try readBytes(URL(fileURLWithPath: file)) == [2, 2])
        // Replaced by rename (a new inode) counts as changed too.
        let again = try SafeFile.read(file, limit: 100)
        try SafeFile.write([4], to: file)
        #expect(throws: FileError(.write, file, .changedSinceRead)) {
            try SafeFile.write([5], to: file, options: .init(expected: again.status?.identity))
        }
        #expect(try entries(dir) == ["f"])
    }

    /// A file read, then removed or replaced by a pipe before the write: the write that was to
    /// replace it creates nothing and opens nothing (an edit session once waited on the pipe
    /// forever, then wrote the file's new content into it; a removed file came back).
    @Test func aFileRemovedOrTurnedIntoAPipeSinceItWasReadIsNotWritten() throws {
        let dir = try TestPaths.temporaryDirectory()
        let file = dir.appendingPathComponent("f").path
        try writeBytes([1], to: URL(fileURLWithPath: file))
        let input = try SafeFile.read(file, limit: 100)
        try FileManager.default.removeItem(atPath: file)
        #expect(throws: FileError(.write, file, .changedSinceRead)) {
            try SafeFile.write([2], to: file, options: .init(expected: input.status?.identity))
        }
        #expect(try entries(dir) == [])
        #expect(mkfifo(file, 0o600) == 0)
        // Held open for reading and writing, so that a writer opening it would not block here.
        let held = open(file, O_RDWR | O_NONBLOCK)
        #expect(held >= 0)
        defer { close(held) }
        #expect(throws: FileError(.write, file, .changedSinceRead)) {
            try SafeFile.write([3], to: file, options: .init(expected: input.status?.identity))
        }
        var byte: UInt8 = 0
        #expect(read(held, &byte, 1) == -1 && errno == EAGAIN, "nothing was written into the pipe")
        #expect(throws: FileError(.write, "/dev/stdout", .changedSinceRead)) {
            try SafeFile.write([4], to: "/dev/stdout", options: .init(expected: input.status?.identity))
        }
    }

    @Test func aLockedFileIsNotReadTwice() throws {
        let dir = try TestPaths.temporaryDirectory()
        let file = dir.appendingPathComponent("l").path
        try writeBytes([1], to: URL(fileURLWithPath: file))
        let first = try SafeFile.read(file, limit: 10, lock: true)
        #expect(throws: FileError(.read, file, .locked)) { try SafeFile.read(file, limit: 10, lock: true) }
        #expect("\(FileError(.read, file, .locked))"
            == "cannot read: another process (another ycft, or an open 'ycft edit') is working on it; try again when it is done")
        first.release()
        // Other tests in this process spawn children: between fork and exec a child holds a copy
        // of every descriptor, ours included, and with it the lock (flock locks belong to the
        // open file, not the descriptor). So a busy run may see the lock a moment longer; a
        // release that does not work still fails after 5 s.
        var third: Result<InputFile, FileError>
        let deadline = Date().addingTimeInterval(5)
        repeat {
            third = Result { () throws(FileError) in try SafeFile.read(file, limit: 10, lock: true) }
            guard case .failure(FileError(.read, file, .locked)) = third, Date() < deadline else { break }
            usleep(10_000)
        } while true
        #expect(try third.get().bytes == [1])
    }

    @Test func backupsAreHardLinksNeverReplacedAndNeverMadeTwice() throws {
        let dir = try TestPaths.temporaryDirectory()
        let file = dir.appendingPathComponent("x.plist").path
        try writeBytes([1], to: URL(fileURLWithPath: file))
        try writeBytes([0xEE], to: URL(fileURLWithPath: file + ".bak"))
        let input = try SafeFile.read(file, limit: 10)
        let status = try #require(input.status)
        let backup = try SafeFile.keepBackup(of: file, expected: status, suffix: ".bak", bytes: input.bytes).path
        #expect(backup == file + ".bak.1")
        #expect(try readBytes(URL(fileURLWithPath: file + ".bak")) == [0xEE])
        #expect(try self.status(backup).identity == status.identity)
        // Asked again for the same file (a rerun after a kill), the backup it has is reused.
        let second = try SafeFile.keepBackup(of: file, expected: status, suffix: ".bak", bytes: input.bytes)
        #expect(second == SafeFile.Backup(path: file + ".bak.1", reused: true))
        #expect(try SafeFile.keepBackup(of: file, expected: status, suffix: ".bak", bytes: input.bytes).path == file + ".bak.1")
        #expect(!FileManager.default.fileExists(atPath: file + ".bak.2"))
    }

    @Test func longNamesWork() throws {
        let dir = try TestPaths.temporaryDirectory()
        let name = String(repeating: "n", count: 249) + ".plist"   // 255 bytes: NAME_MAX
        let file = dir.appendingPathComponent(name).path
        try SafeFile.write([1], to: file)
        try SafeFile.write([2], to: file)
        #expect(try readBytes(URL(fileURLWithPath: file)) == [2])
        #expect(try entries(dir) == [name])
    }

    @Test func nothingElseInTheDirectoryIsEverDeleted() throws {
        let dir = try TestPaths.temporaryDirectory()
        let lookalikes = [".thesis.ycft-4000000-backup", ".out.archive.ycft-4000000-abcdef", ".out.archive.ycft-000000000000"]
        for name in lookalikes { try writeBytes([42], to: dir.appendingPathComponent(name)) }
        try SafeFile.write([1], to: dir.appendingPathComponent("out.archive").path)
        try SafeFile.write([2], to: dir.appendingPathComponent("out.archive").path)
        #expect(try entries(dir) == (lookalikes + ["out.archive"]).sorted())
    }

    @Test func aMissingDirectoryIsAClearError() throws {
        let dir = try TestPaths.temporaryDirectory()
        let file = dir.appendingPathComponent("no/such/f").path
        #expect(throws: FileError(.write, file, .system(SystemError(errno: ENOENT)))) { try SafeFile.write([1], to: file) }
    }

    @Test func aGroupCommitFlushesOnceAndStillRefusesAChangedFile() throws {
        let dir = try TestPaths.temporaryDirectory()
        let fresh = dir.appendingPathComponent("fresh").path
        let kept = dir.appendingPathComponent("kept").path
        let changed = dir.appendingPathComponent("changed").path
        try writeBytes([1], to: URL(fileURLWithPath: kept))
        try writeBytes([1], to: URL(fileURLWithPath: changed))
        let read = try SafeFile.read(changed, limit: 10)
        var pending: [PendingWrite] = []
        for (path, options) in [(fresh, SafeFile.WriteOptions()), (kept, SafeFile.WriteOptions()),
                                (changed, SafeFile.WriteOptions(expected: read.status?.identity))] {
            guard case let .pending(write) = try SafeFile.stage([7, 7], to: SafeFile.Output(path), options: options) else {
                Issue.record("\(path) was not staged")
                return
            }
            pending.append(write)
        }
        // Nothing is in place before the commit.
        #expect(!FileManager.default.fileExists(atPath: fresh))
        #expect(try readBytes(URL(fileURLWithPath: kept)) == [1])
        // Another program rewrites one file between staging and commit.
        usleep(10_000)
        try writeBytes([9, 9, 9], to: URL(fileURLWithPath: changed))
        let results = SafeFile.commit(pending)
        #expect(results.count == 3)
        #expect(try results[0].get() == .created(fresh))
        #expect(try results[1].get() == .replaced(kept))
        #expect(throws: FileError(.write, changed, .changedSinceRead)) { try results[2].get() }
        #expect(try readBytes(URL(fileURLWithPath: changed)) == [9, 9, 9])
        #expect(try entries(dir) == ["changed", "fresh", "kept"])
        // A staged write dropped without a commit leaves nothing.
        do { _ = try SafeFile.stage([5], to: SafeFile.Output(dir.appendingPathComponent("dropped").path)) }
        #expect(try entries(dir) == ["changed", "fresh", "kept"])
    }

    static func device(_ path: String) -> UInt64? {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR ? UInt64(info.st_dev) : nil
    }

    static let shmIsAnotherFileSystem: Bool = {
        guard let shm = device("/dev/shm"), let scratch = try? TestPaths.temporaryDirectory() else { return false }
        return device(scratch.path) != shm
    }()

    /// A group whose files are on two file systems (`/tmp` and the tmpfs `/dev/shm`) flushes
    /// each file system once; one whose flush fails has its files flushed one by one, and every
    /// file is still put in place. Skipped where `/dev/shm` is missing or on the same device.
    @Test(.enabled(if: shmIsAnotherFileSystem, "/dev/shm is missing or on the same file system as the scratch folder"))
    func aGroupOnTwoFileSystemsFlushesEachOnce() throws {
        let shm = "/dev/shm"
        let first = try TestPaths.temporaryDirectory()
        let second = URL(fileURLWithPath: shm).appendingPathComponent("ycft-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: second, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: second) }
        #expect(Self.device(first.path) != Self.device(second.path))
        for failing in [false, true] {
            let paths = [first.appendingPathComponent("a-\(failing)").path, second.appendingPathComponent("b-\(failing)").path,
                         first.appendingPathComponent("c-\(failing)").path, second.appendingPathComponent("d-\(failing)").path]
            var pending: [PendingWrite] = []
            for path in paths {
                guard case let .pending(write) = try SafeFile.stage([4, 2], to: SafeFile.Output(path)) else { Issue.record("not staged"); return }
                pending.append(write)
            }
            let flushedDevices = Locked<[UInt64]>([])
            var hooks = SafeFile.WriteHooks()
            hooks.flushFileSystem = { fd in
                var info = stat()
                #expect(fstat(fd, &info) == 0)
                flushedDevices.change { $0.append(UInt64(info.st_dev)) }
                return !failing
            }
            let results = SafeFile.commit(pending, hooks: hooks)
            #expect(flushedDevices.value == [Self.device(first.path), Self.device(second.path)].compactMap { $0 },
                    "failing flush: \(failing)")
            for (path, result) in zip(paths, results) {
                #expect(try result.get() == .created(path))
                #expect(try readBytes(URL(fileURLWithPath: path)) == [4, 2])
            }
        }
    }

    @Test func descriptorPathsWriteToTheDescriptor() throws {
        #expect(SafeFile.descriptorPath("/dev/stdout") == 1)
        #expect(SafeFile.descriptorPath("/dev/fd/7") == 7)
        #expect(SafeFile.descriptorPath("/proc/self/fd/3") == 3)
        #expect(SafeFile.descriptorPath("/dev/fd/x") == nil)
        #expect(SafeFile.descriptorPath("/tmp/out") == nil)
    }
}

func realpathString(_ path: String) -> String? {
    guard let resolved = realpath(path, nil) else { return nil }
    defer { free(resolved) }
    return String(cString: resolved)
}


/// The umask as /proc/self/status shows it (what the writer uses), or umask(2)'s.
func processUmask() -> mode_t {
    if let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
       let line = text.split(separator: "\n").first(where: { $0.hasPrefix("Umask:") }),
       let value = mode_t(line.dropFirst(6).trimmingCharacters(in: .whitespaces), radix: 8) {
        return value
    }
    let mask = umask(0o022)
    umask(mask)
    return mask
}

/// Reading a whole file: straight into an array of the size `fstat` gave, and on in pieces
/// when the size was wrong, so what is read never depends on the size seen.
@Suite struct ReadingWholeFiles {
    func file(_ count: Int) throws -> (path: String, bytes: [UInt8]) {
        let bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 8) }
        let path = try TestPaths.temporaryDirectory().appendingPathComponent("f").path
        try writeBytes(bytes, to: URL(fileURLWithPath: path))
        return (path, bytes)
    }

    func readAll(_ path: String, limit: Int, expectedSize: Int) throws -> [UInt8] {
        let fd = open(path, O_RDONLY)
        #expect(fd >= 0)
        defer { close(fd) }
        return try SafeFiles.readAll(fd, limit: limit, expectedSize: expectedSize)
    }

    @Test(arguments: [0, 1, 65_535, 65_536, 65_537, 200_000])
    func whateverSizeWasExpectedTheWholeFileIsRead(count: Int) throws {
        let (path, bytes) = try file(count)
        for expected in [0, 1, max(count - 1, 0), count, count + 1, 2 * count + 70_000] {
            #expect(try readAll(path, limit: 1 << 20, expectedSize: expected) == bytes, "expected size \(expected)")
        }
    }

    @Test func aFileOverTheLimitGivesTheLimitAndOneByteMore() throws {
        let (path, bytes) = try file(100_000)
        for expected in [0, 10, 1_000, 1_001, 100_000] {
            #expect(try readAll(path, limit: 1_000, expectedSize: expected) == Array(bytes[..<1_001]), "expected size \(expected)")
        }
        #expect(try readAll(path, limit: 0, expectedSize: 100_000) == [bytes[0]])
        let read = try SafeFile.read(path, limit: 99_999)
        #expect(read.bytes == Array(bytes[..<100_000]))
        #expect(try SafeFile.read(path, limit: 100_000).bytes == bytes)
    }
}
