import Foundation
import Testing
import FirstTimeArchive
import FirstTimeCore
import SafeFiles
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

@_silgen_name("lsetxattr") private func faultSetxattr(_ path: UnsafePointer<CChar>, _ name: UnsafePointer<CChar>,
                                                     _ value: UnsafeRawPointer?, _ size: Int, _ flags: Int32) -> Int32
@_silgen_name("lgetxattr") private func faultGetxattr(_ path: UnsafePointer<CChar>, _ name: UnsafePointer<CChar>,
                                                     _ value: UnsafeMutableRawPointer?, _ size: Int) -> Int

/// The writer and the readers when a system call fails (``Faults``): a full disk, a file system
/// without `O_TMPFILE`, hard links or `RENAME_EXCHANGE`, a descriptor that cannot be looked at,
/// a directory that cannot be listed. Every failure is one line naming the file and the
/// system's reason, the file is as it was, and nothing is left behind; a fallback writes the
/// file all the same.
@Suite(.enabled(if: Faults.available, Comment(rawValue: Faults.unavailable)))
struct SafeFilesUnderFaults {
    let ycft = TestPaths.executable("ycft")
    let defaults = TestPaths.fixtures.appendingPathComponent("valid/defaults/export.binary.plist")

    /// A scratch folder holding `prefs.plist` (a copy of the defaults fixture).
    func folder() throws -> String {
        let dir = try TestPaths.temporaryDirectory().path
        try FileManager.default.copyItem(atPath: defaults.path, toPath: dir + "/prefs.plist")
        return dir
    }

    /// `ycft` with `arguments` under `spec`, `{D}` standing for `dir` in both.
    func run(_ spec: String, _ arguments: [String], in dir: String, _ extra: [String: String] = [:]) throws -> ProcessResult {
        let fill = { (text: String) in text.replacingOccurrences(of: "{D}", with: dir) }
        return try runProcess(ycft, arguments.map(fill), environment: Faults.environment(fill(spec), extra))
    }

    func names(_ dir: String) throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: dir).sorted() }

    func lastVersion(_ path: String, _ key: String = "rate.prompt") throws -> String? {
        try StateFile(contentsOf: path).state().records[key]?.lastVersion
    }

    static let set = ["set", "{D}/prefs.plist", "rate.prompt", "--last-version", "3"]

    /// Replacing a file: each failure before the swap leaves the file and the folder as they were.
    @Test(arguments: [
        ("write=28@ (deleted)", "cannot write: No space left on device"),
        ("fsync=5@ (deleted)", "cannot write: Input/output error"),
        ("fchmod=1@ (deleted)", "cannot write: Operation not permitted"),
        ("open-tmpfile=95@{D};open=13@.ycft-", "cannot write: Permission denied"),
        ("open-tmpfile=95@{D};open=17@.ycft-", "cannot write: File exists"),
        ("renameat2=5@{D}", "cannot write: Input/output error"),
        ("renameat2=22@{D};rename=5@{D}", "cannot write: Input/output error"),
        ("renameat2=2@{D}", "not replaced: it changed after ycft read it (another program wrote it)"),
        ("linkat=17@/proc/self/fd", "cannot write: File exists"),
        ("linkat=2", "cannot write: No such file or directory"),
        ("open=13@prefs.plist*1", "cannot read: Permission denied"),
        ("fstat=5@prefs.plist*1", "cannot read: Input/output error"),
    ])
    func aFailedReplaceChangesNothing(_ spec: String, _ reason: String) throws {
        let dir = try folder()
        let before = try readBytes(URL(fileURLWithPath: dir + "/prefs.plist"))
        let result = try run(spec, Self.set, in: dir)
        #expect(result.status == 2 && result.stdout.isEmpty)
        #expect(result.stderr == "ycft: \(dir)/prefs.plist: \(reason)\n")
        #expect(try readBytes(URL(fileURLWithPath: dir + "/prefs.plist")) == before)
        #expect(try names(dir) == ["prefs.plist"])
    }

    /// What the writer falls back to: a named temporary where there is no `O_TMPFILE`, a plain
    /// `rename` where there is no `RENAME_EXCHANGE`, a link by `AT_EMPTY_PATH` where `/proc` does
    /// not serve, an unlocked read where the file system has no locks. The file is written.
    @Test(arguments: ["open-tmpfile=95@{D}", "renameat2=22@{D}", "flock=37@prefs.plist"])
    func aFallbackWritesTheFile(_ spec: String) throws {
        let dir = try folder()
        let result = try run(spec, Self.set, in: dir)
        #expect(result.status == 0 && result.stderr == "")
        #expect(try lastVersion(dir + "/prefs.plist") == "3")
        #expect(try names(dir) == ["prefs.plist"])
    }

    /// `AT_EMPTY_PATH` needs `CAP_DAC_READ_SEARCH`: root links the file that way, anyone else
    /// gets the first call's error.
    @Test func withoutProcTheFileIsLinkedByItsDescriptor() throws {
        let dir = try folder()
        let result = try run("linkat=2@/proc/self/fd", Self.set, in: dir)
        if geteuid() == 0 {
            #expect(result.status == 0 && result.stderr == "")
            #expect(try lastVersion(dir + "/prefs.plist") == "3")
        } else {
            #expect(result.status == 2 && result.stderr == "ycft: \(dir)/prefs.plist: cannot write: No such file or directory\n")
        }
        #expect(try names(dir) == ["prefs.plist"])
    }

    /// A file given away keeps at least its group; when neither may be given, the replacement
    /// is the writer's own (as root here the calls are refused on purpose).
    @Test(.enabled(if: geteuid() == 0, "needs root to give the file away"))
    func anOwnerThatCannotBeKeptIsLeft() throws {
        let dir = try folder()
        #expect(chown(dir + "/prefs.plist", 65534, 65534) == 0)
        let result = try run("fchown=1@ (deleted)", Self.set, in: dir)
        #expect(result.status == 0 && result.stderr == "")
        let status = try FileStatus.of(dir + "/prefs.plist").get()
        #expect(status.owner == 0 && status.group == 0)
        #expect(try lastVersion(dir + "/prefs.plist") == "3")
    }

    static let migrate = ["migrate", "-o", "{D}/new.plist", "{D}/prefs.plist"]

    /// A new file from a named temporary: linked into place (`link(2)`), never over a file that
    /// appeared; its temporary name is gone either way.
    @Test(arguments: [
        ("open-tmpfile=95@{D}", 0, ""),
        ("open-tmpfile=95@{D};linkat=5@.ycft-", 2, "ycft: {D}/new.plist: cannot write: Input/output error\n"),
        ("open-tmpfile=95@{D};linkat=17@.ycft-", 2, "ycft: {D}/new.plist: not written: a file appeared at this path while ycft was writing it\n"),
    ])
    func aNewFileFromANamedTemporary(_ spec: String, _ status: Int32, _ message: String) throws {
        let dir = try folder()
        let result = try run(spec, Self.migrate, in: dir)
        #expect(result.status == status)
        let migrated = status == 0 ? "1 migrated, 0 unchanged, 0 skipped, 0 failed" : "0 migrated, 0 unchanged, 0 skipped, 1 failed"
        #expect(result.stderr == message.replacingOccurrences(of: "{D}", with: dir) + "ycft migrate: 1 file: \(migrated)\n")
        #expect(try names(dir) == (status == 0 ? ["new.plist", "prefs.plist"] : ["prefs.plist"]))
    }

    /// A device that cannot be opened is the output's failure.
    @Test func aDeviceThatCannotBeOpened() throws {
        let dir = try folder()
        let null = try run("open=13@/dev/null", ["migrate", "-o", "/dev/null", "{D}/prefs.plist"], in: dir)
        #expect(null.status == 2)
        #expect(null.stderr == "ycft: /dev/null: cannot write: Permission denied\nycft migrate: 1 file: 0 migrated, 0 unchanged, 0 skipped, 1 failed\n")
    }

    /// An earlier backup that cannot be opened, read or looked at is not taken for this one:
    /// the backup is the next name.
    @Test(arguments: ["open=13@prefs.plist.bak", "read=5@prefs.plist.bak", "fstat=5@prefs.plist.bak"])
    func anEarlierBackupThatCannotBeReadIsNotReused(_ spec: String) throws {
        let dir = try folder()
        try FileManager.default.copyItem(atPath: defaults.path, toPath: dir + "/prefs.plist.bak")
        let result = try run(spec, ["migrate", "--in-place", "{D}/prefs.plist"], in: dir)
        #expect(result.status == 0)
        #expect(result.stderr == "ycft: \(dir)/prefs.plist: \(dir)/prefs.plist.bak exists; the backup is \(dir)/prefs.plist.bak.1\n"
                + "ycft migrate: 1 file: 1 migrated, 0 unchanged, 0 skipped, 0 failed\n")
        #expect(try names(dir) == ["prefs.plist", "prefs.plist.bak", "prefs.plist.bak.1"])
        #expect(try readBytes(URL(fileURLWithPath: dir + "/prefs.plist.bak.1")) == readBytes(defaults))
    }

    /// Where the file cannot be linked under the backup's name (EXDEV: no hard links there),
    /// the backup is a copy: an earlier copy of the same bytes is reused, another file under the
    /// name is kept (the next name is taken), and a copy that cannot be written stops the run
    /// with the file as it was.
    @Test func backupsWhereLinksFail() throws {
        let same = try folder()
        try FileManager.default.copyItem(atPath: defaults.path, toPath: same + "/prefs.plist.bak")
        let reused = try run("linkat=18@prefs.plist", ["migrate", "--in-place", "{D}/prefs.plist"], in: same)
        #expect(reused.status == 0 && reused.stderr == "ycft migrate: 1 file: 1 migrated, 0 unchanged, 0 skipped, 0 failed\n")
        #expect(try names(same) == ["prefs.plist", "prefs.plist.bak"])
        let other = try folder()
        try writeBytes(Array("other".utf8), to: URL(fileURLWithPath: other + "/prefs.plist.bak"))
        let next = try run("linkat=18@prefs.plist", ["migrate", "--in-place", "{D}/prefs.plist"], in: other)
        #expect(next.status == 0)
        #expect(next.stderr == "ycft: \(other)/prefs.plist: \(other)/prefs.plist.bak exists; the backup is \(other)/prefs.plist.bak.1\n"
                + "ycft migrate: 1 file: 1 migrated, 0 unchanged, 0 skipped, 0 failed\n")
        #expect(try readBytes(URL(fileURLWithPath: other + "/prefs.plist.bak.1")) == readBytes(defaults))
        let full = try folder()
        let failed = try run("linkat=18@prefs.plist;write=28@ (deleted)", ["migrate", "--in-place", "{D}/prefs.plist"], in: full)
        #expect(failed.status == 2)
        #expect(failed.stderr == "ycft: \(full)/prefs.plist: cannot back up: No space left on device\n"
                + "ycft migrate: 1 file: 0 migrated, 0 unchanged, 0 skipped, 1 failed\n")
        #expect(try names(full) == ["prefs.plist"] && readBytes(URL(fileURLWithPath: full + "/prefs.plist")) == readBytes(defaults))
    }

    /// A file read to be shown: its descriptor that cannot be looked at, before or after the
    /// read (then it may have changed while it was read).
    @Test(arguments: [("fstat=5@prefs.plist*1", "cannot read: Input/output error"),
                      ("fstat=5@prefs.plist#1*1", "cannot read: it changed while ycft was reading it")])
    func aFileReadWhoseStatusFails(_ spec: String, _ reason: String) throws {
        let dir = try folder()
        let result = try run(spec, ["dump", "{D}/prefs.plist"], in: dir)
        #expect(result.status == 2 && result.stdout.isEmpty)
        #expect(result.stderr == "ycft: \(dir)/prefs.plist: \(reason)\n")
    }

    /// A relative output from a working folder the user may not search: the backup guard cannot
    /// look at "." and refuses (it writes nowhere it cannot check), before the write's own
    /// "Permission denied"; nothing is made.
    @Test(.enabled(if: geteuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"),
                   "needs root and setpriv to run ycft as another user"))
    func aRelativeOutputFromAFolderTheUserMayNotSearch() throws {
        let dir = try TestPaths.temporaryDirectory().path
        _ = chmod(dir, 0o700)
        let json = TestPaths.fixtures.appendingPathComponent("valid/ycft/unicode-keys.json").path
        let result = try runProcess(URL(fileURLWithPath: "/bin/sh"), [
            "-c", #"cd "$1" && exec /usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups "$2" pack -o out.plist "$3""#,
            "sh", dir, ycft.path, json,
        ])
        #expect(result.status == 2 && result.stdout.isEmpty)
        #expect(result.stderr == "ycft: out.plist: cannot write: cannot tell whether it is inside an iPhone backup, which ycft never "
                + "writes into (a folder above it cannot be looked at: Permission denied)\n", "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0 != "stdin" } == [])
    }

    /// A file whose mode lets only its owner write is read-only to anyone else (`access(2)`
    /// says no), even with a write bit set.
    @Test(.enabled(if: geteuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"),
                   "needs root and setpriv to run ycft as another user"))
    func aFileOnlyItsOwnerMayWriteIsReadOnlyToOthers() throws {
        let dir = try folder()
        _ = chmod(dir, 0o755)
        _ = chmod((dir as NSString).deletingLastPathComponent, 0o755)
        let result = try runProcess(URL(fileURLWithPath: "/usr/bin/setpriv"),
                                    ["--reuid=65534", "--regid=65534", "--clear-groups", ycft.path, "set", dir + "/prefs.plist", "rate.prompt",
                                     "--last-version", "3"])
        #expect(result.status == 2)
        #expect(result.stderr == "ycft: \(dir)/prefs.plist: not replaced: it is read-only (mode 0644); use --force to replace it anyway\n")
    }

    /// Extended attributes the original's descriptor will not give: a failure is named in a
    /// warning; one removed meanwhile (ENODATA) is skipped; a file system without attributes
    /// (ENOTSUP) has none to keep; a value that grows between the two calls (ERANGE) is asked
    /// for again, eight times at most.
    @Test(.enabled(if: userAttributesWork, "the scratch folder takes no user extended attributes"), arguments: [
        ("fgetxattr=5@prefs.plist", "user.origin (Input/output error)", false),
        ("fgetxattr=5@prefs.plist#1*1", "user.origin (Input/output error)", false),
        ("fgetxattr=34@prefs.plist", "user.origin (Numerical result out of range)", false),
        ("fgetxattr=61@prefs.plist", nil, false),
        ("flistxattr=95@prefs.plist", nil, false),
        ("fgetxattr=34@prefs.plist#1*1", nil, true),
        // Every second call (each asks for the value at the size the first gave) grows: given up after eight.
        ((1...8).map { "fgetxattr=34@prefs.plist#\($0)*1" }.joined(separator: ";"), "user.origin (Numerical result out of range)", false),
    ] as [(String, String?, Bool)])
    func attributesThatCannotBeRead(_ spec: String, _ notKept: String?, _ kept: Bool) throws {
        let dir = try folder()
        let path = dir + "/prefs.plist"
        let origin: [UInt8] = [0x31, 0x32]
        #expect(faultSetxattr(path, "user.origin", origin, origin.count, 0) == 0)
        let result = try run(spec, Self.set, in: dir)
        #expect(result.status == 0)
        #expect(result.stderr == (notKept.map { "ycft: \(path): warning: the replacement could not keep this extended attribute: \($0)\n" } ?? ""))
        #expect(try lastVersion(path) == "3")
        var value = [UInt8](repeating: 0, count: 8)
        let n = faultGetxattr(path, "user.origin", &value, value.count)
        #expect(kept ? Array(value[..<max(n, 0)]) == origin : n < 0)
    }

    /// `verify` of a folder whose subfolder cannot be listed names it and checks the rest; a
    /// file gone between the listing and its look is skipped; one that cannot be looked at
    /// makes its folder unreadable.
    @Test func aFolderWalkWhenCallsFail() throws {
        let dir = try TestPaths.temporaryDirectory().path
        try FileManager.default.createDirectory(atPath: dir + "/t/sub", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: defaults.path, toPath: dir + "/t/a.plist")
        try FileManager.default.copyItem(atPath: defaults.path, toPath: dir + "/t/sub/b.plist")
        let listing = try run("readdir=5@{D}/t/sub", ["verify", "{D}/t"], in: dir)
        #expect(listing.status == 2 && listing.stdout.isEmpty)
        #expect(listing.stderr == "ycft: \(dir)/t/sub: cannot open the directory: Input/output error\n"
                + "ycft verify: 2 files: 1 passed, 0 failed, 1 unreadable (0 errors, 0 warnings)\n")
        let gone = try run("lstat=2@{D}/t/a.plist", ["verify", "{D}/t"], in: dir)
        #expect(gone.status == 0 && gone.stdout.isEmpty)
        #expect(gone.stderr == "ycft verify: 1 file: 1 passed, 0 failed, 0 unreadable (0 errors, 0 warnings)\n")
        let top = try run("readdir=5@{D}/t*1", ["verify", "{D}/t"], in: dir)
        #expect(top.status == 2)
        #expect(top.stderr == "ycft: \(dir)/t: cannot open the directory: Input/output error\n"
                + "ycft verify: 1 file: 0 passed, 0 failed, 1 unreadable (0 errors, 0 warnings)\n")
        let refused = try run("lstat=13@{D}/t/a.plist", ["verify", "{D}/t"], in: dir)
        #expect(refused.status == 2)
        #expect(refused.stderr == "ycft: \(dir)/t: cannot open the directory: Permission denied\n"
                + "ycft verify: 1 file: 0 passed, 0 failed, 1 unreadable (0 errors, 0 warnings)\n")
        // A subfolder opened (in the folder being read) that no stream can be made on.
        let unstreamed = try run("fdopendir=24@{D}/t/sub", ["verify", "{D}/t"], in: dir)
        #expect(unstreamed.status == 2)
        #expect(unstreamed.stderr == "ycft: \(dir)/t/sub: cannot open the directory: Too many open files\n"
                + "ycft verify: 2 files: 1 passed, 0 failed, 1 unreadable (0 errors, 0 warnings)\n")
    }

    /// `ycft edit`'s scratch directory: one that cannot be opened or filled stops the edit
    /// before the editor; one that cannot be listed, or holds what cannot be removed, is left.
    @Test func theEditorsScratchDirectoryWhenCallsFail() throws {
        let dir = try folder()
        let temporary = dir + "/tmp"
        try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)
        // The editor itself runs without faults.
        let editor = dir + "/editor.sh"
        try writeBytes(Array("unset YCFT_TEST_FAULTS\nmkdir \"$(dirname \"$1\")/sub\"; touch \"$(dirname \"$1\")/sub/x\" \"$(dirname \"$1\")/keep\"\n".utf8),
                       to: URL(fileURLWithPath: editor))
        let environment = ["TMPDIR": temporary, "EDITOR": "sh " + editor, "VISUAL": ""]
        let edit = ["edit", "{D}/prefs.plist"]
        let unopened = try run("open=13@ycft-edit-", edit, in: dir, environment)
        #expect(unopened.status == 2)
        #expect(unopened.stderr == "ycft: \(dir)/prefs.plist: cannot make a scratch directory in \"\(temporary)\": Permission denied; nothing was written\n")
        #expect(try names(temporary) == [])
        let unfilled = try run("write=28@ycft-edit-", edit, in: dir, environment)
        #expect(unfilled.status == 2 && unfilled.stderr.hasSuffix("/records.json\": No space left on device; nothing was written\n"))
        for spec in ["dup=24@ycft-edit-", "fdopendir=24@ycft-edit-", "open=13@/sub", "unlinkat=16@/keep"] {
            for name in try names(temporary) { try FileManager.default.removeItem(atPath: temporary + "/" + name) }
            let left = try run(spec, edit, in: dir, environment)
            #expect(left.status == 0 && left.stderr == "ycft: \(dir)/prefs.plist: no change; nothing was written\n", "\(spec)")
            #expect(try names(temporary).count == 1, "\(spec)")
        }
    }
}
