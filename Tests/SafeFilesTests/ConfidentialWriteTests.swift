import Foundation
import Testing
@testable import SafeFiles
import FileErrors
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

// <stdlib.h>'s pseudo-terminal calls, which Glibc's Swift module leaves out (they need _XOPEN_SOURCE).
@_silgen_name("posix_openpt") private func sysPosixOpenpt(_ flags: Int32) -> Int32
@_silgen_name("unlockpt") private func sysUnlockpt(_ fd: Int32) -> Int32
@_silgen_name("ptsname_r") private func sysPtsnameR(_ fd: Int32, _ buffer: UnsafeMutablePointer<CChar>, _ size: Int) -> Int32

/// A POSIX ACL as Linux stores it in `system.posix_acl_access` that grants nothing beyond the
/// mode 0600: owner rw, user `uid` rw, group none, mask none (so `uid`'s entry is masked off),
/// others none.
func aclMaskedOff(user uid: UInt32) -> [UInt8] {
    func entry(_ tag: UInt16, _ perm: UInt16, _ id: UInt32) -> [UInt8] {
        [UInt8(tag & 0xFF), UInt8(tag >> 8), UInt8(perm & 0xFF), UInt8(perm >> 8),
         UInt8(id & 0xFF), UInt8((id >> 8) & 0xFF), UInt8((id >> 16) & 0xFF), UInt8(id >> 24)]
    }
    let undefined = UInt32.max
    return [2, 0, 0, 0] + entry(0x01, 6, undefined) + entry(0x02, 6, uid) + entry(0x04, 0, undefined)
        + entry(0x10, 0, undefined) + entry(0x20, 0, undefined)
}

/// Secret bytes (`WriteOptions.confidential`) against what an attacker found: another user's
/// file kept its owner, an ACL read after the privacy check was copied, and a descriptor name
/// (`/dev/stderr`) reached whatever the descriptor was open on.
@Suite struct ConfidentialWrites {
    let secret = SafeFile.WriteOptions(confidential: true)

    /// Run as root, a replacement gets the old file's owner back: over a file another user owns
    /// (mode 0600), that user would own the secret. Refused whatever the mode, `replaceReadOnly`
    /// (`--force`) included; the file untouched. Bytes that are not secret still keep the owner.
    @Test(.enabled(if: geteuid() == 0, "needs root, to give a file to another user"))
    func aFileAnotherUserOwnsIsRefused() throws {
        let dir = try TestPaths.temporaryDirectory()
        let file = dir.appendingPathComponent("theirs.plist").path
        try writeBytes([1, 2, 3], to: URL(fileURLWithPath: file))
        #expect(chmod(file, 0o600) == 0 && chown(file, 1002, 1002) == 0)
        let before = try FileStatus.of(file).get()
        let refusal = FileError(.write, file, .notOwned(owner: 1002, user: 0))
        #expect(refusal.description == "not replaced: it belongs to uid 1002, not to uid 0 that ycft runs as, and the replacement would keep that owner")
        for options in [secret, SafeFile.WriteOptions(replaceReadOnly: true, confidential: true)] {
            #expect(throws: refusal) { try SafeFile.write([4], to: file, options: options) }
            #expect(try readBytes(URL(fileURLWithPath: file)) == [1, 2, 3])
            #expect(try FileStatus.of(file).get() == before)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["theirs.plist"])
        #expect(try SafeFile.write([5], to: file) == .replaced(file))
        #expect(try FileStatus.of(file).get().owner == 1002)
    }

    /// The privacy check reads the target's status once; its ACL used to be copied later, by
    /// path, so one set in between (`setfacl -m u:1002:r`) reached the new file unchecked. A
    /// secret replacement takes no ACL from the target: here one that passes the check (mode
    /// 0600, its other user's entry masked off) and is still not copied. Other attributes are.
    @Test(.enabled(if: attributesWorkForTests, "the file system of the test directory refuses user.* attributes or ACLs"))
    func aReplacementTakesNoACLFromTheTarget() throws {
        let dir = try TestPaths.temporaryDirectory()
        let file = dir.appendingPathComponent("secret.plist").path
        try writeBytes([1], to: URL(fileURLWithPath: file))
        #expect(chmod(file, 0o600) == 0)
        #expect(setAttribute(file, "system.posix_acl_access", aclMaskedOff(user: 65534)) == 0)
        #expect(setAttribute(file, "user.origin", [7]) == 0)
        #expect(try FileStatus.of(file).get().permissions == 0o600)
        #expect(try SafeFile.write([2], to: file, options: secret) == .replaced(file))
        #expect(try readBytes(URL(fileURLWithPath: file)) == [2])
        #expect(attributes(file) == ["user.origin": [7]])
        #expect(try FileStatus.of(file).get().permissions == 0o600)
    }

    /// Nor the ACL a new file would inherit from its directory's default ACL, created or
    /// replacing: a secret file is its mode alone.
    @Test(.enabled(if: attributesWorkForTests, "the file system of the test directory refuses user.* attributes or ACLs"))
    func aSecretFileInheritsNoACLFromItsDirectory() throws {
        let dir = try TestPaths.temporaryDirectory()
        let file = dir.appendingPathComponent("old.plist").path
        try writeBytes([1], to: URL(fileURLWithPath: file))
        #expect(chmod(file, 0o600) == 0)
        #expect(setAttribute(dir.path, "system.posix_acl_default", aclGrantingWrite(to: 65534)) == 0)
        let new = dir.appendingPathComponent("new.plist").path
        #expect(try SafeFile.write([2], to: new, options: secret) == .created(new))
        #expect(try SafeFile.write([3], to: file, options: secret) == .replaced(file))
        for path in [new, file] {
            #expect(attributes(path) == [:], "\(path)")
            #expect(try FileStatus.of(path).get().permissions == 0o600, "\(path)")
        }
    }

    /// `/dev/stderr` is a link to `/proc/self/fd/2`, which the kernel resolves to whatever the
    /// descriptor is open on (a terminal, `pipe:[N]`, a log file): secret bytes go to no
    /// descriptor name, standard output's included, nothing written. Other bytes still stream.
    /// The check made before the work (`checkPrivate(_:)`) leaves a folder to the writer,
    /// which refuses it as a folder; a file only its owner can use passes, one others may read
    /// does not, and a path that does not exist yet passes (the writer makes it 0600).
    @Test func theCheckBeforeTheWorkLeavesAFolderToTheWriter() throws {
        let dir = try TestPaths.temporaryDirectory().path
        try SafeFile.checkPrivate(dir)
        #expect(throws: FileError(.write, dir, .isDirectory)) {
            try SafeFile.write([1], to: dir, options: SafeFile.WriteOptions(confidential: true))
        }
        let own = dir + "/own.plist", open = dir + "/open.plist"
        try writeBytes([1], to: URL(fileURLWithPath: own))
        try writeBytes([1], to: URL(fileURLWithPath: open))
        _ = chmod(own, 0o600)
        _ = chmod(open, 0o644)
        try SafeFile.checkPrivate(own)
        #expect(throws: FileError(.write, open, .notPrivate(.regular, permissions: 0o644))) { try SafeFile.checkPrivate(open) }
        try SafeFile.checkPrivate(dir + "/new.plist")
    }

    @Test func noDescriptorNameTakesSecretBytes() throws {
        let dir = try TestPaths.temporaryDirectory()
        let link = dir.appendingPathComponent("err-link").path
        #expect(symlink("/proc/self/fd/2", link) == 0)
        #expect(FileError(.write, "/dev/stderr", .descriptorNotPrivate).description
                == "cannot write: it names an open descriptor (a terminal, a pipe or a log file others may read), not a file by its own path")
        for name in ["/dev/stderr", "/dev/fd/2", "/proc/self/fd/2", "/proc/thread-self/fd/2", link, "/dev/stdout", "/dev/fd/1",
                     "/proc/self/fd/1", "/dev/stdin", "/dev/fd/3"] {
            #expect(throws: FileError(.write, name, .descriptorNotPrivate)) {
                try SafeFile.standardStream(forOutput: name, confidential: true)
            }
            #expect(throws: FileError(.write, name, .descriptorNotPrivate)) { try SafeFile.write([1], to: name, options: secret) }
            #expect(throws: FileError(.write, name, .descriptorNotPrivate)) { try SafeFile.stage([1], to: SafeFile.Output(name), options: secret) }
        }
        #expect(try SafeFile.standardStream(forOutput: "/dev/stderr") == 2)
        #expect(try SafeFile.standardStream(forOutput: dir.appendingPathComponent("file").path, confidential: true) == nil)
    }

    /// A terminal is told by asking its driver; a device that is not one, a file, a missing path
    /// and a descriptor name (the stream decides) are not asked as devices.
    @Test func aTerminalDeviceIsToldByItsDriver() throws {
        let dir = try TestPaths.temporaryDirectory()
        for path in ["/dev/null", "/dev/zero", dir.path, dir.appendingPathComponent("missing").path, "/dev/stderr", "/proc/self/fd/0"] {
            #expect(!SafeFile.isTerminalDevice(path), "\(path)")
        }
        // A pseudo-terminal of this process's own: its other end is a terminal.
        let master = sysPosixOpenpt(O_RDWR | O_NOCTTY)
        try #require(master >= 0)
        defer { close(master) }
        try #require(sysUnlockpt(master) == 0)
        var buffer = [CChar](repeating: 0, count: 64)
        try #require(sysPtsnameR(master, &buffer, buffer.count) == 0)
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        #expect(SafeFile.isTerminalDevice(name), "\(name)")
        let link = dir.appendingPathComponent("tty-link").path
        #expect(symlink(name, link) == 0)
        #expect(SafeFile.isTerminalDevice(link))
    }
}
