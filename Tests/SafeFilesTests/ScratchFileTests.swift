import Foundation
import Testing
@testable import SafeFiles
import FileErrors
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// `ycft edit`'s scratch directory on real files: made private, its file made anew, read back
/// without following what an editor put in its place, removed with whatever was left in it.
@Suite struct ScratchDirectoryOnDisk {
    func entries(_ path: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: path).sorted()
    }

    @Test func aPrivateDirectoryAndAFileOnlyTheOwnerMayRead() throws {
        let parent = try TestPaths.temporaryDirectory()
        let old = umask(0)
        defer { umask(old) }
        let scratch = try ScratchDirectory.make(in: parent.path + "/", prefix: "ycft-edit-")
        defer { scratch.remove() }
        #expect(scratch.path.hasPrefix(parent.path + "/ycft-edit-"))
        #expect(scratch.path.count == parent.path.count + "/ycft-edit-XXXXXX".count)
        #expect(try FileStatus.of(scratch.path, followLinks: false).get().kind == .directory)
        #expect(try FileStatus.of(scratch.path).get().permissions == 0o700)
        try scratch.create("records.json", Array("{}\n".utf8))
        let file = try FileStatus.of(scratch.path(of: "records.json"), followLinks: false).get()
        #expect(file.kind == .regular && file.permissions == 0o600)
        #expect(try scratch.read("records.json", limit: 3) == Array("{}\n".utf8))
    }

    /// What an editor leaves under the name is removed, never written through: a link to
    /// another file leaves that file as it was.
    @Test func createMakesANewFileWhateverWasLeftUnderTheName() throws {
        let parent = try TestPaths.temporaryDirectory()
        let victim = parent.appendingPathComponent("victim")
        try writeBytes([1, 2, 3], to: victim)
        let scratch = try ScratchDirectory.make(in: parent.path, prefix: "s-")
        defer { scratch.remove() }
        let path = scratch.path(of: "f")
        try scratch.create("f", [9])
        chmod(path, 0o666)
        try scratch.create("f", [8])
        let second = try FileStatus.of(path, followLinks: false).get()
        #expect(second.permissions == 0o600)
        #expect(try scratch.read("f", limit: 10) == [8])
        unlink(path)
        #expect(symlink(victim.path, path) == 0)
        try scratch.create("f", [7])
        #expect(try readBytes(victim) == [1, 2, 3])
        #expect(try FileStatus.of(path, followLinks: false).get().kind == .regular)
        unlink(path)
        #expect(mkdir(path, 0o700) == 0)
        try writeBytes([5], to: URL(fileURLWithPath: path + "/inner"))
        try scratch.create("f", [6])
        #expect(try scratch.read("f", limit: 10) == [6])
    }

    @Test func readRefusesWhatIsNotARegularFileWithoutFollowingOrBlocking() throws {
        let parent = try TestPaths.temporaryDirectory()
        let target = parent.appendingPathComponent("target")
        try writeBytes(Array("secret".utf8), to: target)
        let scratch = try ScratchDirectory.make(in: parent.path, prefix: "s-")
        defer { scratch.remove() }
        let path = scratch.path(of: "f")
        func kind(_ make: () -> Int32) -> FileError.Reason? {
            unlink(path)
            rmdir(path)
            #expect(make() == 0)
            do {
                _ = try scratch.read("f", limit: 100)
                return nil
            } catch {
                #expect(error.operation == .read && error.path == path)
                return error.reason
            }
        }
        #expect(kind { symlink(target.path, path) } == .unsupportedKind(.symbolicLink))
        #expect(kind { mkfifo(path, 0o600) } == .unsupportedKind(.fifo))
        #expect(kind { mkdir(path, 0o700) } == .unsupportedKind(.directory))
        #expect(kind { symlink("/nonexistent/x", path) } == .unsupportedKind(.symbolicLink))
        unlink(path)
        #expect(throws: FileError(.read, path, .system(SystemError(errno: ENOENT)))) { try scratch.read("f", limit: 100) }
    }

    /// The limit is checked against the size before reading: a 4 GiB sparse file is refused
    /// without reading a byte (before, it was read whole, into gigabytes of memory).
    @Test func readStopsAtTheLimit() throws {
        let parent = try TestPaths.temporaryDirectory()
        let scratch = try ScratchDirectory.make(in: parent.path, prefix: "s-")
        defer { scratch.remove() }
        try scratch.create("f", [UInt8](repeating: 0x41, count: 1000))
        #expect(try scratch.read("f", limit: 1000)?.count == 1000)
        #expect(try scratch.read("f", limit: 999) == nil)
        #expect(truncate(scratch.path(of: "f"), 4 << 30) == 0)
        let clock = ContinuousClock()
        let start = clock.now
        #expect(try scratch.read("f", limit: 32 << 20) == nil)
        if ProcessInfo.processInfo.environment["YCFT_SANITIZER"] == nil { #expect(clock.now - start < .seconds(1)) }
    }

    @Test func removeTakesEverythingTheEditorLeftAndKeepLeavesIt() throws {
        let parent = try TestPaths.temporaryDirectory()
        let outside = parent.appendingPathComponent("outside")
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        try writeBytes([1], to: outside.appendingPathComponent("keep-me"))
        let scratch = try ScratchDirectory.make(in: parent.path, prefix: "s-")
        try scratch.create("records.json", [1])
        try writeBytes([2], to: URL(fileURLWithPath: scratch.path(of: ".records.json.swp")))
        try FileManager.default.createDirectory(atPath: scratch.path(of: "a/b"), withIntermediateDirectories: true)
        try writeBytes([3], to: URL(fileURLWithPath: scratch.path(of: "a/b/c")))
        #expect(symlink(outside.path, scratch.path(of: "link")) == 0)
        scratch.remove()
        scratch.remove()
        #expect(try entries(parent.path) == ["outside"])
        #expect(try entries(outside.path) == ["keep-me"])

        let kept = try ScratchDirectory.make(in: parent.path, prefix: "s-")
        try kept.create("records.json", [4])
        kept.keep()
        kept.remove()
        #expect(try readBytes(URL(fileURLWithPath: kept.path(of: "records.json"))) == [4])
    }

    @Test func aParentThatCannotHoldItIsAnError() throws {
        let parent = try TestPaths.temporaryDirectory()
        let file = parent.appendingPathComponent("file")
        try writeBytes([1], to: file)
        #expect(throws: FileError(.write, file.path, .system(SystemError(errno: ENOTDIR)))) {
            try ScratchDirectory.make(in: file.path, prefix: "s-")
        }
        #expect(throws: FileError(.write, "/nonexistent-ycft", .system(SystemError(errno: ENOENT)))) {
            try ScratchDirectory.make(in: "/nonexistent-ycft", prefix: "s-")
        }
    }
}
