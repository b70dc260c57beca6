import Foundation
import Testing
import SafeFiles
import FileErrors
import TestSupport
@testable import YcftCLI
#if canImport(Glibc)
import Glibc
#endif

/// Issue 25, items 14-16 and 19: file names are bytes, a tree that cannot be read whole or
/// holds nothing is trouble, and arguments that are not paths must be UTF-8. Run on the real
/// binary with raw byte arguments (``runSpawned`` passes ``rawPath`` strings as their bytes).
@Suite struct PathsAreBytes {
    let ycft = TestPaths.executable("ycft")
    let archive = TestPaths.fixtures.appendingPathComponent("valid/ycft/three-records.plist")
    let defaults = TestPaths.fixtures.appendingPathComponent("valid/defaults/export.binary.plist")

    /// A file at `dir/name` (a ``PathBytes`` name) with `bytes`.
    func put(_ bytes: [UInt8], _ dir: String, _ name: String) throws {
        let path = "\(dir)/\(name)"
        let parent = SafeFile.directory(of: path)
        try SafeFile.makeFolders(parent, backupGuard: BackupFolderGuard())
        try SafeFile.write(bytes, to: path)
    }

    @Test func theSpawnHelperPassesRawBytes() throws {
        // od shows what the child received: FF FE, not EF BF BD (U+FFFD) and not F4 8F BF BF.
        let result = try runSpawned(URL(fileURLWithPath: "/bin/sh"), ["-c", "printf %s \"$1\" | od -An -tx1", "sh", rawPath([0xFF, 0xFE], "x")])
        #expect(result.stdoutText.split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) } == ["ff", "fe", "78"])
    }

    @Test func dumpReadsAFileNamedByBytesThatAreNotUTF8() throws {
        let dir = try TestPaths.temporaryDirectory().path
        let name = rawPath([0xFF, 0xFE], ".plist")
        try put(try readBytes(archive), dir, name)
        let byBytes = try runSpawned(ycft, ["dump", "\(dir)/\(name)"])
        let plain = try runSpawned(ycft, ["dump", archive.path])
        #expect(byBytes.status == 0, "\(byBytes.stderr)")
        #expect(byBytes.stdout == plain.stdout)
        // A missing one is named with its bytes escaped.
        let missing = try runSpawned(ycft, ["dump", "\(dir)/" + rawPath([0xFE], "\n.plist")])
        #expect(missing.status == 2)
        #expect(missing.stderr == "ycft: \(dir)/\\xfe\\n.plist: cannot read: No such file or directory\n")
    }

    @Test func verifyChecksAndNamesEveryFileInATreeWhateverItsName() throws {
        let dir = try TestPaths.temporaryDirectory().path
        try put(try readBytes(archive), dir, "t/a.plist")
        try put(Array("garbage".utf8), dir, "t/" + rawPath([0xC3, 0x28], ".plist"))
        try put(Array("garbage".utf8), dir, "t/" + rawPath([0xFF]) + "/b.plist")
        let result = try runSpawned(ycft, ["verify", "\(dir)/t"])
        #expect(result.status == 1)
        #expect(result.stderr == """
            \(dir)/t/\\xc3(.plist: error: [plist-unreadable] file: not a property list (neither binary 'bplist00' nor XML)
            \(dir)/t/\\xff/b.plist: error: [plist-unreadable] file: not a property list (neither binary 'bplist00' nor XML)
            ycft verify: 3 files: 1 passed, 0 failed, 2 unreadable (2 errors, 0 warnings)

            """)
        let json = try runSpawned(ycft, ["verify", "--format", "json", "--compact", "\(dir)/t"])
        #expect(json.stdoutText.contains(#""file":"\#(dir)/t/\\xc3(.plist","status":"unreadable""#), "\(json.stdoutText)")
    }

    @Test func migrateRewritesAFileUnderItsOwnBytesAndMirrorsThemUnderOut() throws {
        let dir = try TestPaths.temporaryDirectory().path
        let input = try readBytes(defaults)
        let name = rawPath([0xFF, 0xFE], ".plist")
        try put(input, dir, "plain/x.plist")
        try put(input, dir, "odd/" + rawPath([0x81]) + "/" + name)
        // The expected bytes: the same file migrated under a UTF-8 name.
        let reference = try runSpawned(ycft, ["migrate", "-o", "\(dir)/ref.plist", "\(dir)/plain/x.plist"])
        #expect(reference.status == 0, "\(reference.stderr)")
        let expected = try readBytes(URL(fileURLWithPath: "\(dir)/ref.plist"))
        #expect(expected != input)

        let out = try runSpawned(ycft, ["migrate", "-o", "\(dir)/out", "\(dir)/odd"])
        #expect(out.status == 0, "\(out.stderr)")
        #expect(try SafeFile.read("\(dir)/out/" + rawPath([0x81]) + "/" + name, limit: 1 << 20).bytes == expected)

        let inPlace = try runSpawned(ycft, ["migrate", "--in-place", "\(dir)/odd"])
        #expect(inPlace.status == 0, "\(inPlace.stderr)")
        let file = "\(dir)/odd/" + rawPath([0x81]) + "/" + name
        #expect(try SafeFile.read(file, limit: 1 << 20).bytes == expected)
        #expect(try SafeFile.read(file + ".bak", limit: 1 << 20).bytes == input)
        // Listed with the bytes escaped.
        let dry = try runSpawned(ycft, ["migrate", "--dry-run", "\(dir)/odd"])
        #expect(dry.stdoutText == "\(dir)/odd/\\x81/\\xff\\xfe.plist: unchanged\n")
    }

    // MARK: Item 19: arguments that are not paths must be UTF-8

    @Test func aKeyOrValueThatIsNotUTF8IsAUsageErrorAndNothingIsWritten() throws {
        let dir = try TestPaths.temporaryDirectory().path
        let file = "\(dir)/" + rawPath([0xFF, 0xFE], ".plist")
        let before = try readBytes(archive)
        try SafeFile.write(before, to: file)
        let usage = """
            Usage: ycft set [--last-version VERSION | --no-last-version]
                            [--last-time TIME [--seconds] | --no-last-time] [--key NAME]
                            [--force] [--max-input-size SIZE] FILE KEY
              See 'ycft set --help' for more information.

            """
        let key = try runSpawned(ycft, ["set", file, rawPath([0xFF, 0xFE]), "--last-version", "1"])
        #expect(key.status == 2)
        #expect(key.stderr == "Error: The value '\\xff\\xfe' is invalid for '<KEY>': it is not valid UTF-8 (only paths may hold other bytes)\n" + usage)
        let version = try runSpawned(ycft, ["set", file, "k", "--last-version", rawPath([0xC3, 0x28])])
        #expect(version.status == 2)
        #expect(version.stderr == "Error: The value '\\xc3(' is invalid for '--last-version <version>': it is not valid UTF-8 (only paths may hold other bytes)\n" + usage)
        let inline = try runSpawned(ycft, ["set", file, "k", "--last-time=" + rawPath([0x80])])
        #expect(inline.stderr.hasPrefix("Error: The value '\\x80' is invalid for '--last-time <time>': it is not valid UTF-8"))
        #expect(try SafeFile.read(file, limit: 1 << 20).bytes == before)
        // The file operand itself may be any bytes: a valid key and version are written.
        let good = try runSpawned(ycft, ["set", file, "k", "--last-version", "1"])
        #expect(good.status == 0, "\(good.stderr)")
        #expect(try SafeFile.read(file, limit: 1 << 20).bytes != before)
    }

    @Test(arguments: [
        (["verify", "--key", "\u{0}K"], "'--key <name>'"),
        (["status", "--time-zone", "\u{0}Z", "f"], "'--time-zone <zone>'"),
        (["status", "--gate", "\u{0}k=once", "f"], "'--gate <key=rule>'"),
        (["status", "--now", "\u{0}", "f"], "'--now <time>'"),
        (["migrate", "--dry-run", "--to", "\u{0}", "d"], "'--to <target>'"),
        (["unset", "f", "k", "\u{0}"], "'<KEY>'"),
        (["dump", "--key", "\u{0}", "f"], "'--key <name>'"),
    ])
    func everyTextArgumentIsChecked(_ template: [String], _ named: String) {
        // "\0" in the template stands for the byte FF.
        let arguments = template.map { $0.replacingOccurrences(of: "\u{0}", with: rawPath([0xFF])) }
        let fake = FakeIO(files: [:])
        #expect(fake.run(arguments) == 2)
        #expect(fake.stderr.hasPrefix("Error: The value '"), "\(fake.stderr)")
        #expect(fake.stderr.contains("' is invalid for \(named): it is not valid UTF-8"), "\(fake.stderr)")
    }

    @Test func pathValuesMayBeAnyBytes() throws {
        let bytes = try readBytes(archive)
        let name = rawPath([0xFF], ".plist")
        // FILE operands, -o, --report, --backup and --include take any bytes.
        let pack = FakeIO(files: [:], stdin: Array(sampleJSON.utf8))
        #expect(pack.run(["pack", "-o", rawPath([0xFE], ".out"), "-"]) == 0, "\(pack.stderr)")
        #expect(pack.file(rawPath([0xFE], ".out")) != nil)
        let report = FakeIO(files: [name: try readBytes(defaults)])
        #expect(report.run(["migrate", "--dry-run", "--report", rawPath([0xFC]), name]) == 0, "\(report.stderr)")
        #expect(report.file(rawPath([0xFC])) != nil)
        // (In memory a file has no status, so in place it fails to write; what matters is that
        // the suffix was taken: no usage error.)
        let backup = FakeIO(files: [name: try readBytes(defaults)])
        _ = backup.run(["migrate", "--in-place", "--backup", rawPath([0xFD]), name])
        #expect(backup.stderr.hasPrefix("ycft: \\xff.plist: cannot write"), "\(backup.stderr)")
        let include = FakeIO(files: [name: bytes])
        #expect(include.run(["verify", "--include", rawPath([0xFF], "*"), name]) == 0, "\(include.stderr)")
        let dump = FakeIO(files: [name: bytes])
        #expect(dump.run(["dump", name]) == 0, "\(dump.stderr)")
        // A valid key that holds U+10FF41 (PathBytes reserves that range for bytes) is itself.
        let reserved = FakeIO(files: [name: bytes])
        #expect(reserved.run(["set", name, PathBytes.decode([0xF4, 0x8F, 0xBD, 0x81]), "--last-version", "1"]) == 0, "\(reserved.stderr)")
        let after = FakeIO(files: [name: reserved.file(name) ?? []])
        #expect(after.run(["dump", name]) == 0)
        #expect(after.stdoutText.contains("\"\u{10FF41}\" : {"), "\(after.stdoutText)")
    }

    // MARK: Item 14: a directory that cannot be read is trouble

    /// An in-process IO whose file system has one directory `t` with `a.plist` and an
    /// unreadable `t/locked` (the seam: ``CommandIO/listFiles``).
    func lockedTree(_ bytes: [UInt8]) -> (FakeIO, CommandIO) {
        let fake = FakeIO(files: ["t/a.plist": bytes])
        var io = fake.io
        let directory = FileStatus(kind: .directory, identity: FileIdentity(device: 1, inode: 1, size: 0, modifiedSeconds: 0,
                                                                          modifiedNanoseconds: 0), permissions: 0o755, owner: 0, group: 0)
        io.fileStatus = { path in path == "t" ? directory : nil }
        io.listFiles = { _ throws(SystemError) in
            DirectoryListing(files: ["a.plist"], unreadable: [.init(path: "locked", error: SystemError(errno: EACCES))])
        }
        return (fake, io)
    }

    @Test func anUnreadableSubdirectoryIsNamedAndFailsVerifyInProcess() throws {
        let (fake, io) = lockedTree(try readBytes(archive))
        #expect(Ycft.run(["verify", "t"], io: io) == 2)
        #expect(fake.stderr == "ycft: t/locked: cannot open the directory: Permission denied\n"
                + "ycft verify: 2 files: 1 passed, 0 failed, 1 unreadable (0 errors, 0 warnings)\n")
        let (json, jsonIO) = lockedTree(try readBytes(archive))
        #expect(Ycft.run(["verify", "--format", "github", "t"], io: jsonIO) == 2)
        #expect(json.stdoutText == "::error file=t/locked,title=unreadable::cannot open the directory: Permission denied\n")
    }

    @Test func anUnreadableSubdirectoryIsNamedAndFailsMigrateInProcess() throws {
        let (fake, io) = lockedTree(try readBytes(defaults))
        #expect(Ycft.run(["migrate", "--dry-run", "t"], io: io) == 2)
        #expect(fake.stderr == """
            ycft: t/locked: cannot open the directory: Permission denied
            ycft migrate: 2 files: 1 would migrate, 0 unchanged, 0 skipped, 1 failed (dry run: nothing written)

            """)
        #expect(fake.stdoutText == "t/a.plist: would migrate 3 records: +\"YCFirstTime.records\" -\"YCFirstTime\"\n")
    }

    @Test(.enabled(if: Unprivileged.prefix != nil, "as root, needs setpriv and a ycft binary that nobody (uid 65534) can reach"))
    func anUnreadableSubdirectoryOnDiskIsNamedAndTheRestIsChecked() throws {
        let prefix = try #require(Unprivileged.prefix)
        let dir = try TestPaths.temporaryDirectory().path
        // nobody must reach the scratch directory and the binary.
        _ = chmod(dir, 0o755)
        _ = chmod(SafeFile.directory(of: dir), 0o755)
        try put(try readBytes(archive), dir, "t/a.plist")
        try put(Array("garbage".utf8), dir, "t/bad.plist")
        try put(Array("garbage".utf8), dir, "t/locked/hidden.plist")
        try put(Array("garbage".utf8), dir, "t/" + rawPath([0xFF]) + "/hidden.plist")
        #expect(chmod("\(dir)/t/locked", 0o000) == 0)
        #expect(chmod(PathBytes.cString("\(dir)/t/" + rawPath([0xFF])), 0o444) == 0)  // names readable, files not reachable
        defer {
            _ = chmod("\(dir)/t/locked", 0o755)
            _ = chmod(PathBytes.cString("\(dir)/t/" + rawPath([0xFF])), 0o755)
        }
        let command = prefix.isEmpty ? ycft : URL(fileURLWithPath: prefix[0])
        let lead = prefix.isEmpty ? [] : Array(prefix.dropFirst()) + [ycft.path]
        let verify = try runSpawned(command, lead + ["verify", "\(dir)/t"])
        #expect(verify.status == 2)
        #expect(verify.stderr == """
            ycft: \(dir)/t/locked: cannot open the directory: Permission denied
            ycft: \(dir)/t/\\xff: cannot open the directory: Permission denied
            \(dir)/t/bad.plist: error: [plist-unreadable] file: not a property list (neither binary 'bplist00' nor XML)
            ycft verify: 4 files: 1 passed, 0 failed, 3 unreadable (1 error, 0 warnings)

            """)
        let migrate = try runSpawned(command, lead + ["migrate", "--dry-run", "\(dir)/t"])
        #expect(migrate.status == 2)
        #expect(migrate.stderr.hasPrefix("ycft: \(dir)/t/locked: cannot open the directory: Permission denied\n"
                                         + "ycft: \(dir)/t/\\xff: cannot open the directory: Permission denied\n"), "\(migrate.stderr)")
    }

    // MARK: Item 16: nothing to check is trouble unless --allow-empty

    @Test func aDirectoryWithNothingToCheckFailsUnlessAllowed() throws {
        let dir = try TestPaths.temporaryDirectory().path
        try SafeFile.makeFolders("\(dir)/empty", backupGuard: BackupFolderGuard())
        try put(try readBytes(archive), dir, "misnamed/a.plst")
        try put(try readBytes(archive), dir, "real/a.plist")
        try SafeFile.makeFolders("\(dir)/links", backupGuard: BackupFolderGuard())
        #expect(symlink("\(dir)/real/a.plist", "\(dir)/links/a.plist") == 0)

        let empty = try runSpawned(ycft, ["verify", "\(dir)/empty"])
        #expect(empty.status == 2)
        #expect(empty.stderr == "ycft: \(dir)/empty: nothing to check: no regular file below it (links are not followed); pass --allow-empty to accept that\n"
                + "ycft verify: 0 files: 0 passed, 0 failed, 0 unreadable (0 errors, 0 warnings)\n")
        let links = try runSpawned(ycft, ["verify", "\(dir)/links"])
        #expect(links.status == 2)
        #expect(links.stderr == "ycft: \(dir)/links: nothing to check: no regular file below it (links are not followed); pass --allow-empty to accept that\n"
                + "ycft verify: 0 files: 0 passed, 0 failed, 0 unreadable (0 errors, 0 warnings)\n")
        let misnamed = try runSpawned(ycft, ["verify", "\(dir)/misnamed", "\(dir)/real"])
        #expect(misnamed.status == 2)
        #expect(misnamed.stderr == "ycft: \(dir)/misnamed: nothing to check: no file matches *.plist (1 other file); choose them with --include GLOB, or pass --allow-empty\n"
                + "ycft verify: 1 file: 1 passed, 0 failed, 0 unreadable (0 errors, 0 warnings)\n")
        let github = try runSpawned(ycft, ["verify", "--format", "github", "\(dir)/empty"])
        #expect(github.status == 2)
        #expect(github.stdoutText == "::error file=\(dir)/empty,title=nothing to check::nothing to check: no regular file below it (links are not followed); pass --allow-empty to accept that\n")
        let junit = try runSpawned(ycft, ["verify", "--format", "junit", "\(dir)/empty"])
        #expect(junit.stdoutText.contains(#"type="empty"/>"#))

        let allowed = try runSpawned(ycft, ["verify", "--allow-empty", "\(dir)/empty", "\(dir)/links"])
        #expect(allowed.status == 0)
        #expect(allowed.stderr == "ycft verify: 0 files: 0 passed, 0 failed, 0 unreadable (0 errors, 0 warnings)\n")
        let allowedMisnamed = try runSpawned(ycft, ["verify", "--allow-empty", "\(dir)/misnamed"])
        #expect(allowedMisnamed.status == 0)
        #expect(allowedMisnamed.stderr == "ycft: \(dir)/misnamed: no file matches *.plist (1 other file); choose them with --include GLOB\n"
                + "ycft verify: 0 files: 0 passed, 0 failed, 0 unreadable (0 errors, 0 warnings)\n")
    }

    @Test func migrateOfATreeWithNothingToMigrateFailsUnlessAllowed() throws {
        let dir = try TestPaths.temporaryDirectory().path
        try SafeFile.makeFolders("\(dir)/empty", backupGuard: BackupFolderGuard())
        let failed = try runSpawned(ycft, ["migrate", "--in-place", "\(dir)/empty"])
        #expect(failed.status == 2)
        #expect(failed.stderr == """
            ycft: \(dir)/empty: nothing to migrate: no regular file below it (links are not followed); pass --allow-empty to accept that
            ycft migrate: 0 files: 0 migrated, 0 unchanged, 0 skipped, 0 failed

            """)
        let allowed = try runSpawned(ycft, ["migrate", "--in-place", "--allow-empty", "\(dir)/empty"])
        #expect(allowed.status == 0)
        #expect(allowed.stderr == "ycft migrate: 0 files: 0 migrated, 0 unchanged, 0 skipped, 0 failed\n")
    }
}
