import Foundation
import Testing
@testable import SafeFiles
import FileErrors
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

// The system calls themselves (Glibc's Swift module leaves out <sys/xattr.h>): the tests set and
// read attributes without the code under test.
@_silgen_name("lsetxattr") private func sysSetxattr(_ path: UnsafePointer<CChar>, _ name: UnsafePointer<CChar>,
                                                   _ value: UnsafeRawPointer?, _ size: Int, _ flags: Int32) -> Int32
@_silgen_name("lgetxattr") private func sysGetxattr(_ path: UnsafePointer<CChar>, _ name: UnsafePointer<CChar>,
                                                   _ value: UnsafeMutableRawPointer?, _ size: Int) -> Int
@_silgen_name("llistxattr") private func sysListxattr(_ path: UnsafePointer<CChar>, _ list: UnsafeMutablePointer<CChar>?,
                                                     _ size: Int) -> Int
@_silgen_name("lremovexattr") private func sysRemovexattr(_ path: UnsafePointer<CChar>, _ name: UnsafePointer<CChar>) -> Int32

/// Sets an attribute; the `errno` on failure.
@discardableResult
func setAttribute(_ path: String, _ name: String, _ value: [UInt8]) -> Int32 {
    value.withUnsafeBytes { sysSetxattr(path, name, $0.baseAddress, $0.count, 0) } == 0 ? 0 : errno
}

/// Every attribute of a path with its value, as the kernel lists them (names sorted).
func attributes(_ path: String) -> [String: [UInt8]] {
    let size = sysListxattr(path, nil, 0)
    guard size > 0 else { return [:] }
    var list = [CChar](repeating: 0, count: size)
    let n = sysListxattr(path, &list, size)
    guard n > 0 else { return [:] }
    var out: [String: [UInt8]] = [:]
    for raw in list[..<n].split(separator: 0) {
        let name = String(decoding: raw.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let length = sysGetxattr(path, name, nil, 0)
        guard length >= 0 else { continue }
        var value = [UInt8](repeating: 0, count: length)
        let got = value.withUnsafeMutableBytes { sysGetxattr(path, name, $0.baseAddress, $0.count) }
        out[name] = got >= 0 ? Array(value[..<got]) : nil
    }
    return out
}

func removeAttribute(_ path: String, _ name: String) { _ = sysRemovexattr(path, name) }

/// A POSIX ACL as Linux stores it in `system.posix_acl_access` (version 2, then entries of tag,
/// permissions, id; little-endian): owner rw, user `uid` rw, group r, mask rw, others r.
func aclGrantingWrite(to uid: UInt32) -> [UInt8] {
    func entry(_ tag: UInt16, _ perm: UInt16, _ id: UInt32) -> [UInt8] {
        [UInt8(tag & 0xFF), UInt8(tag >> 8), UInt8(perm & 0xFF), UInt8(perm >> 8),
         UInt8(id & 0xFF), UInt8((id >> 8) & 0xFF), UInt8((id >> 16) & 0xFF), UInt8(id >> 24)]
    }
    let undefined = UInt32.max
    return [2, 0, 0, 0] + entry(0x01, 6, undefined) + entry(0x02, 6, uid) + entry(0x04, 4, undefined)
        + entry(0x10, 6, undefined) + entry(0x20, 4, undefined)
}

/// Whether the file system holding `dir` takes `user.*` attributes and ACLs (ext4, xfs, btrfs,
/// tmpfs since 6.6 do; some tmpfs and overlay mounts do not).
func attributesWork(in dir: URL) -> Bool {
    let probe = dir.appendingPathComponent("probe").path
    guard FileManager.default.createFile(atPath: probe, contents: Data([1])) else { return false }
    defer { unlink(probe) }
    return setAttribute(probe, "user.probe", [1]) == 0 && setAttribute(probe, "system.posix_acl_access", aclGrantingWrite(to: 65534)) == 0
}

/// Whether the test scratch directory's file system takes attributes (probed once).
let attributesWorkForTests: Bool = (try? TestPaths.temporaryDirectory()).map(attributesWork(in:)) ?? false

/// Extended attributes and ACLs on replace, the in-place refusal of what is not a regular file,
/// and backups reused rather than made twice.
@Suite struct KeepingAttributesRefusingSpecialFilesReusingBackups {
    // MARK: item 6: extended attributes and ACLs

    @Test(.enabled(if: attributesWorkForTests, "the file system of the test directory refuses user.* attributes or ACLs"))
    func aReplacementKeepsUserAttributesAndTheACL() throws {
        let dir = try TestPaths.temporaryDirectory()
        let file = dir.appendingPathComponent("prefs.plist").path
        try writeBytes([1, 2, 3], to: URL(fileURLWithPath: file))
        chmod(file, 0o640)
        let acl = aclGrantingWrite(to: 65534)
        #expect(setAttribute(file, "user.origin", Array("exported by Xcode".utf8)) == 0)
        #expect(setAttribute(file, "user.empty", []) == 0)
        #expect(setAttribute(file, "system.posix_acl_access", acl) == 0)
        let before = attributes(file)
        let mode = try FileStatus.of(file).get().permissions
        #expect(mode == 0o664)  // the ACL sets the mode: owner rw, group (its mask) rw, others r
        let input = try SafeFile.read(file, limit: 100, lock: true)
        let outcome = try SafeFile.write([4, 5], to: file, options: .init(expected: input.status?.identity))
        input.release()
        #expect(outcome == .replaced(file, notKept: []))
        #expect(try readBytes(URL(fileURLWithPath: file)) == [4, 5])
        let after = attributes(file)
        #expect(after == before)
        #expect(after["user.origin"] == Array("exported by Xcode".utf8))
        #expect(after["user.empty"] == [])
        #expect(after["system.posix_acl_access"] == acl)
        #expect(try FileStatus.of(file).get().permissions == 0o664)
        #expect(try FileStatus.of(file).get().identity.inode != input.status?.identity.inode)
    }

    @Test(.enabled(if: attributesWorkForTests, "the file system of the test directory refuses user.* attributes or ACLs"))
    func aDefaultACLOfTheDirectoryIsNotAddedToAReplacement() throws {
        let dir = try TestPaths.temporaryDirectory()
        let file = dir.appendingPathComponent("plain").path
        try writeBytes([1], to: URL(fileURLWithPath: file))
        chmod(file, 0o644)
        // Set after the file was made, so the file has no ACL; a new file in dir would inherit one.
        #expect(setAttribute(dir.path, "system.posix_acl_default", aclGrantingWrite(to: 65534)) == 0)
        let fresh = dir.appendingPathComponent("fresh").path
        try SafeFile.write([9], to: fresh, options: .init(newFilePermissions: 0o644))
        #expect(attributes(fresh)["system.posix_acl_access"] != nil, "the directory's default ACL is inherited by a new file")
        try SafeFile.write([2], to: file)
        #expect(attributes(file) == [:])
        #expect(try FileStatus.of(file).get().permissions == 0o644)
    }

    @Test(.enabled(if: attributesWorkForTests, "the file system of the test directory refuses user.* attributes or ACLs"))
    func aBackupMadeAsACopyKeepsThemToo() throws {
        // Where link(2) fails (no hard links, another file system), the backup is a new file.
        let dir = try TestPaths.temporaryDirectory()
        let file = dir.appendingPathComponent("x.plist").path
        try writeBytes([1, 2], to: URL(fileURLWithPath: file))
        let acl = aclGrantingWrite(to: 65534)
        #expect(setAttribute(file, "user.origin", [3]) == 0)
        #expect(setAttribute(file, "system.posix_acl_access", acl) == 0)
        let status = try FileStatus.of(file).get()
        var options = SafeFile.WriteOptions(newFilePermissions: status.permissions, newFileOwner: (status.owner, status.group),
                                            mayReplace: false)
        options.attributesFrom = (file, status)
        let copy = file + ".bak"
        #expect(try SafeFile.write([1, 2], to: copy, options: options) == .created(copy))
        #expect(attributes(copy) == ["user.origin": [3], "system.posix_acl_access": acl])
        #expect(try FileStatus.of(copy).get().permissions == status.permissions)
        #expect(try FileStatus.of(copy).get().identity.inode != status.identity.inode)
    }

    // MARK: item 9: in place, only regular files

    /// Runs `body` on a thread and gives it 5 s: a read that blocks on `fifo` is unblocked (a
    /// writer opens and closes the pipe) and recorded, so the suite never hangs.
    func promptly<T: Sendable>(_ fifo: String, _ body: @escaping @Sendable () -> T) -> T? {
        nonisolated(unsafe) var result: T?
        let worker = Thread { result = body() }
        worker.start()
        let deadline = Date().addingTimeInterval(5)
        while !worker.isFinished && Date() < deadline { usleep(1000) }
        if !worker.isFinished {
            Issue.record("blocked on \(fifo) for 5 s")
            let fd = open(fifo, O_WRONLY | O_NONBLOCK)
            if fd >= 0 { close(fd) }
            while !worker.isFinished { usleep(1000) }
            return nil
        }
        return result
    }

    @Test func aLockedReadRefusesAFifoAtOnceAndAPlainReadStillReadsIt() throws {
        let dir = try TestPaths.temporaryDirectory()
        let fifo = dir.appendingPathComponent("pipe").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let refused = promptly(fifo) { Result { () throws(FileError) in try SafeFile.read(fifo, limit: 10, lock: true) }.map(\.bytes) }
        #expect(refused == .failure(FileError(.inPlace, fifo, .notRegularFile(.fifo))))
        #expect("\(FileError(.inPlace, fifo, .notRegularFile(.fifo)))"
                == "not changed in place: it is a named pipe; only a regular file is changed in place")
        // Reading (dump, verify) a pipe works as before.
        let writer = Thread {
            let fd = open(fifo, O_WRONLY)
            if fd >= 0 {
                _ = [UInt8]([7, 8, 9]).withUnsafeBytes { write(fd, $0.baseAddress, 3) }
                close(fd)
            }
        }
        writer.start()
        let read = promptly(fifo) { Result { () throws(FileError) in try SafeFile.read(fifo, limit: 10) }.map(\.bytes) }
        #expect(read == .success([7, 8, 9]))
        while !writer.isFinished { usleep(1000) }
    }

    @Test func aLockedReadRefusesDevicesDirectoriesAndSockets() throws {
        #expect(throws: FileError(.inPlace, "/dev/null", .notRegularFile(.characterDevice))) {
            try SafeFile.read("/dev/null", limit: 10, lock: true)
        }
        let dir = try TestPaths.temporaryDirectory()
        #expect(throws: FileError(.read, dir.path, .isDirectory)) { try SafeFile.read(dir.path, limit: 10, lock: true) }
        let socketPath = dir.appendingPathComponent("s").path
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in socketPath.utf8.prefix(raw.count - 1).enumerated() { raw[i] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        #expect(bound == 0)
        #expect(throws: FileError(.inPlace, socketPath, .notRegularFile(.socket))) { try SafeFile.read(socketPath, limit: 10, lock: true) }
    }

    @Test func descriptorNamesAreRefusedInPlaceEvenWhenTheyReachARegularFile() throws {
        let dir = try TestPaths.temporaryDirectory()
        let file = dir.appendingPathComponent("prefs.plist").path
        try writeBytes([1, 2], to: URL(fileURLWithPath: file))
        let fd = open(file, O_RDONLY)
        #expect(fd >= 3)
        defer { close(fd) }
        for name in ["/dev/fd/\(fd)", "/proc/self/fd/\(fd)", "/proc/thread-self/fd/\(fd)", "/proc/\(getpid())/fd/\(fd)",
                     "/dev//fd/\(fd)", "/dev/./fd/\(fd)"] {
            #expect(SafeFile.namesDescriptor(name), "\(name)")
            #expect(throws: FileError(.inPlace, name, .descriptorName)) { try SafeFile.read(name, limit: 10, lock: true) }
            // A plain read goes on reading through the descriptor.
            #expect(try SafeFile.read(name, limit: 10).bytes == [1, 2], "\(name)")
        }
        for name in ["/dev/stdin", "/dev/stdout", "/dev/stderr", "/dev/fd/0", "/proc/self/fd/1"] {
            #expect(SafeFile.namesDescriptor(name), "\(name)")
        }
        // Links to descriptor names, a chain of them, and a directory link to /dev/fd.
        let link = dir.appendingPathComponent("link").path
        #expect(symlink("/dev/fd/\(fd)", link) == 0)
        let chain = dir.appendingPathComponent("chain").path
        #expect(symlink("link", chain) == 0)
        let fds = dir.appendingPathComponent("fds").path
        #expect(symlink("/dev/fd", fds) == 0)
        for name in [link, chain, "\(fds)/\(fd)"] {
            #expect(SafeFile.namesDescriptor(name), "\(name)")
            #expect(throws: FileError(.inPlace, name, .descriptorName)) { try SafeFile.read(name, limit: 10, lock: true) }
        }
        // The file's own name, and a link to it, are what in-place work is for.
        let own = dir.appendingPathComponent("own").path
        #expect(symlink("prefs.plist", own) == 0)
        for name in [file, own, "/dev/null", "/proc/self/status", "/tmp"] { #expect(!SafeFile.namesDescriptor(name), "\(name)") }
        #expect(try SafeFile.read(own, limit: 10, lock: true).bytes == [1, 2])
        #expect("\(FileError(.inPlace, "/dev/stdin", .descriptorName))"
                == "not changed in place: it names an open descriptor (standard input or output), not a file; give the file's own path")
    }

    // MARK: item 13: a backup that is already there is reused

    @Test func aBackupHoldingTheSameBytesIsReusedAndADifferentOneIsNot() throws {
        let dir = try TestPaths.temporaryDirectory()
        let file = dir.appendingPathComponent("x.plist").path
        try writeBytes([1, 2, 3], to: URL(fileURLWithPath: file))
        // A killed run's copy (another inode, same bytes).
        try writeBytes([1, 2, 3], to: URL(fileURLWithPath: file + ".bak"))
        let input = try SafeFile.read(file, limit: 10)
        let status = try #require(input.status)
        let kept = try SafeFile.keepBackup(of: file, expected: status, suffix: ".bak", bytes: input.bytes)
        #expect(kept == SafeFile.Backup(path: file + ".bak", reused: true))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["x.plist", "x.plist.bak"])
        // Different bytes (an older original, same size): kept, and the next name is the backup.
        try writeBytes([9, 9, 9], to: URL(fileURLWithPath: file + ".bak"))
        let fresh = try SafeFile.keepBackup(of: file, expected: status, suffix: ".bak", bytes: input.bytes)
        #expect(fresh == SafeFile.Backup(path: file + ".bak.1", reused: false))
        #expect(try readBytes(URL(fileURLWithPath: file + ".bak")) == [9, 9, 9])
        #expect(try FileStatus.of(file + ".bak.1").get().identity == status.identity)
        // A link named like the backup is never taken for it, whatever it points to.
        let other = dir.appendingPathComponent("y.plist").path
        try writeBytes([5], to: URL(fileURLWithPath: other))
        #expect(symlink("y.plist", other + ".bak") == 0)
        let otherStatus = try FileStatus.of(other).get()
        let notALink = try SafeFile.keepBackup(of: other, expected: otherStatus, suffix: ".bak", bytes: [5])
        #expect(notALink == SafeFile.Backup(path: other + ".bak.1", reused: false))
    }
}
