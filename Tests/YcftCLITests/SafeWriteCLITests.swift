import Foundation
import Testing
import FirstTimeArchive
import FirstTimeCore
import Plist
import PlistCore
import SafeFiles
import FileErrors
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

// Extended attributes through the system calls themselves (Glibc's Swift module leaves out <sys/xattr.h>).
@_silgen_name("lsetxattr") private func sysSetxattr(_ path: UnsafePointer<CChar>, _ name: UnsafePointer<CChar>,
                                                   _ value: UnsafeRawPointer?, _ size: Int, _ flags: Int32) -> Int32
@_silgen_name("lgetxattr") private func sysGetxattr(_ path: UnsafePointer<CChar>, _ name: UnsafePointer<CChar>,
                                                   _ value: UnsafeMutableRawPointer?, _ size: Int) -> Int
@_silgen_name("llistxattr") private func sysListxattr(_ path: UnsafePointer<CChar>, _ list: UnsafeMutablePointer<CChar>?,
                                                     _ size: Int) -> Int

private func setAttribute(_ path: String, _ name: String, _ value: [UInt8]) -> Int32 {
    value.withUnsafeBytes { sysSetxattr(path, name, $0.baseAddress, $0.count, 0) } == 0 ? 0 : errno
}

/// Every attribute of a path with its value, as the kernel lists them.
private func attributes(_ path: String) -> [String: [UInt8]] {
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

/// `system.posix_acl_access` as Linux stores it: owner rw, user `uid` rw, group r, mask rw, others r.
private func aclGrantingWrite(to uid: UInt32) -> [UInt8] {
    func entry(_ tag: UInt16, _ perm: UInt16, _ id: UInt32) -> [UInt8] {
        [UInt8(tag & 0xFF), UInt8(tag >> 8), UInt8(perm & 0xFF), UInt8(perm >> 8),
         UInt8(id & 0xFF), UInt8((id >> 8) & 0xFF), UInt8((id >> 16) & 0xFF), UInt8(id >> 24)]
    }
    return [2, 0, 0, 0] + entry(0x01, 6, .max) + entry(0x02, 6, uid) + entry(0x04, 4, .max) + entry(0x10, 6, .max) + entry(0x20, 4, .max)
}

/// Whether the test scratch directory's file system takes `user.*` attributes and ACLs (probed once).
private let attributesWork: Bool = {
    guard let dir = try? TestPaths.temporaryDirectory() else { return false }
    let probe = dir.appendingPathComponent("probe").path
    guard FileManager.default.createFile(atPath: probe, contents: Data([1])) else { return false }
    return setAttribute(probe, "user.probe", [1]) == 0 && setAttribute(probe, "system.posix_acl_access", aclGrantingWrite(to: 65534)) == 0
}()

/// "Never lose, clobber or crash on a user's file": every case through the built binary.
@Suite(.serialized) struct SafeWritesThroughTheTool {
    let ycft = TestPaths.executable("ycft")
    let defaults = TestPaths.fixtures.appendingPathComponent("valid/defaults/export.binary.plist")
    let archive = TestPaths.fixtures.appendingPathComponent("valid/ycft/three-records.plist")
    let isRoot = geteuid() == 0

    func tree(_ names: [String]) throws -> URL {
        let dir = try TestPaths.temporaryDirectory()
        for name in names {
            let url = dir.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: defaults, to: url)
        }
        return dir
    }

    func isMigrated(_ url: URL) throws -> Bool {
        try LibPlist.read(readBytes(url)).value.dictionaryValue?["YCFirstTime.records"] != nil
    }

    func status(_ url: URL) throws -> FileStatus { try FileStatus.of(url.path, followLinks: false).get() }

    func files(_ dir: URL) throws -> [String] {
        (FileManager.default.enumerator(atPath: dir.path)?.allObjects as? [String] ?? []).sorted()
    }

    /// Runs ycft in `dir` (relative paths as a user types them).
    func ycft(in dir: URL, _ arguments: [String]) throws -> ProcessResult {
        try runProcess(URL(fileURLWithPath: "/usr/bin/env"), ["-C", dir.path, ycft.path] + arguments)
    }

    // 1. migrate -o: nothing lost

    @Test func equalNamesFromTwoFileOperandsLandInMirroredPaths() throws {
        let dir = try tree(["a/x.plist", "b/x.plist"])
        let result = try ycft(in: dir, ["migrate", "-o", "OUT", "a/x.plist", "b/x.plist"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try files(dir.appendingPathComponent("OUT")) == ["a", "a/x.plist", "b", "b/x.plist"])
        #expect(try isMigrated(dir.appendingPathComponent("OUT/a/x.plist")))
        #expect(try isMigrated(dir.appendingPathComponent("OUT/b/x.plist")))
    }

    @Test func aTreeWithEqualNamesInDifferentFoldersKeepsEveryResult() throws {
        let dir = try tree(["in/a/x.plist", "in/b/x.plist", "in/x.plist"])
        let result = try ycft(in: dir, ["migrate", "-o", "OUT", "in"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try files(dir.appendingPathComponent("OUT")).filter { $0.hasSuffix(".plist") } == ["a/x.plist", "b/x.plist", "x.plist"])
    }

    @Test func outputsThatMeetAreRefusedBeforeAnythingIsWritten() throws {
        let dir = try tree(["a/x.plist", "b/x.plist"])
        let result = try ycft(in: dir, ["migrate", "-o", "OUT", "a", "b"])
        #expect(result.status == 2)
        #expect(result.stderr == "ycft: OUT/x.plist: 2 inputs would be written here: a/x.plist, b/x.plist\nycft: nothing was written\n")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("OUT").path))
    }

    /// The kernel names files by bytes: `é` (U+00E9) and `e` + U+0301 are two files, and two
    /// outputs, though Swift's `==` calls the two strings equal.
    @Test func outputsThatDifferOnlyInNormalizationAreTwoOutputs() throws {
        let composed = "a/caf\u{E9}.plist", decomposed = "b/cafe\u{301}.plist"
        let dir = try tree([composed, decomposed])
        let result = try ycft(in: dir, ["migrate", "-o", "OUT", "a", "b"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try isMigrated(dir.appendingPathComponent("OUT/caf\u{E9}.plist")))
        #expect(try isMigrated(dir.appendingPathComponent("OUT/cafe\u{301}.plist")))
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("OUT").path)
        #expect(Set(names.map { Array($0.utf8) }) == [Array("caf\u{E9}.plist".utf8), Array("cafe\u{301}.plist".utf8)])
    }

    // 2. links and special files

    @Test func packToAFullDeviceFailsAndLeavesTheDevice() throws {
        let dir = try TestPaths.temporaryDirectory()
        let json = dir.appendingPathComponent("state.json")
        try writeBytes(try runProcess(ycft, ["dump", archive.path]).stdout, to: json)
        let result = try runProcess(ycft, ["pack", "-o", "/dev/full", json.path])
        #expect(result.status == 2)
        #expect(result.stderr == "ycft: /dev/full: cannot write: No space left on device\n")
        #expect(try FileStatus.of("/dev/full", followLinks: false).get().kind == .characterDevice)
    }

    @Test func packThroughASymlinkReplacesItsTargetAndKeepsTheLink() throws {
        let dir = try TestPaths.temporaryDirectory()
        let json = dir.appendingPathComponent("state.json")
        try writeBytes(try runProcess(ycft, ["dump", archive.path]).stdout, to: json)
        try writeBytes(Array("old".utf8), to: dir.appendingPathComponent("real.archive"))
        symlink("real.archive", dir.appendingPathComponent("link.archive").path)
        let result = try runProcess(ycft, ["pack", "-o", dir.appendingPathComponent("link.archive").path, json.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try status(dir.appendingPathComponent("link.archive")).kind == .symbolicLink)
        #expect(try readBytes(dir.appendingPathComponent("real.archive")) == readBytes(archive))
    }

    @Test func migrateInPlaceThroughASymlinkMigratesTheRealFile() throws {
        let dir = try tree(["real.plist"])
        symlink("real.plist", dir.appendingPathComponent("link.plist").path)
        let result = try runProcess(ycft, ["migrate", "--in-place", dir.appendingPathComponent("link.plist").path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try status(dir.appendingPathComponent("link.plist")).kind == .symbolicLink)
        #expect(try isMigrated(dir.appendingPathComponent("real.plist")))
        #expect(try readBytes(dir.appendingPathComponent("link.plist.bak")) == readBytes(defaults))
    }

    /// A file with other names (hard links) is replaced under the one name, as `sed -i` does
    /// (docs/safety.md): the others keep the old content, and the command says so (it said
    /// nothing; a tester named both links to migrate and found one left as it was). The backup
    /// migrate makes as a hard link is not counted.
    @Test func aReplacedFileWithOtherNamesSaysTheyKeepTheOldContent() throws {
        let dir = try tree(["a.plist", "s.plist"])
        #expect(link(dir.appendingPathComponent("a.plist").path, dir.appendingPathComponent("h.plist").path) == 0)
        for other in ["s2.plist", "s3.plist"] {
            #expect(link(dir.appendingPathComponent("s.plist").path, dir.appendingPathComponent(other).path) == 0)
        }
        let migrate = try ycft(in: dir, ["migrate", "--in-place", "-q", "a.plist", "h.plist"])
        #expect(migrate.status == 0)
        #expect(migrate.stderr == "ycft: a.plist: warning: the file had 1 other name (hard link), which keeps the old content: "
            + "the new content is a new file under this name only\n")
        #expect(try isMigrated(dir.appendingPathComponent("a.plist")))
        #expect(try readBytes(dir.appendingPathComponent("h.plist")) == readBytes(defaults))
        let set = try ycft(in: dir, ["set", "s.plist", "onboarding.v1", "--last-version", "9"])
        #expect(set.status == 0)
        #expect(set.stderr == "ycft: s.plist: warning: the file had 2 other names (hard links), which keep the old content: "
            + "the new content is a new file under this name only\n")
        // One name: nothing to say, the backup link included.
        let single = try tree(["one.plist"])
        let alone = try ycft(in: single, ["migrate", "--in-place", "-q", "one.plist"])
        #expect(alone.status == 0 && alone.stderr == "", "\(alone.stderr)")
    }

    @Test func packToAFifoStreamsAndToDevStdoutPrints() throws {
        let dir = try TestPaths.temporaryDirectory()
        let json = dir.appendingPathComponent("state.json")
        try writeBytes(try runProcess(ycft, ["dump", archive.path]).stdout, to: json)
        let fifo = dir.appendingPathComponent("pipe").path
        #expect(mkfifo(fifo, 0o600) == 0)
        nonisolated(unsafe) var received: [UInt8] = []
        let reader = Thread { received = readFIFO(fifo) }
        reader.start()
        let result = try runProcess(ycft, ["pack", "-o", fifo, json.path])
        while !reader.isFinished { usleep(1000) }
        #expect(result.status == 0, "\(result.stderr)")
        #expect(received == (try readBytes(archive)))
        #expect(try FileStatus.of(fifo, followLinks: false).get().kind == .fifo)
        let viaStdout = try runProcess(ycft, ["pack", "-o", "/dev/stdout", json.path])
        #expect(viaStdout.status == 0)
        #expect(viaStdout.stdout == (try readBytes(archive)))
    }

    @Test func migrateToStandardOutputAndAReportOnStandardOutput() throws {
        let dir = try tree(["a/x.plist", "b/x.plist"])
        let one = try ycft(in: dir, ["migrate", "-o", "-", "a/x.plist"])
        #expect(one.status == 0)
        #expect(try LibPlist.read(one.stdout).value.dictionaryValue?["YCFirstTime.records"] != nil)
        let two = try ycft(in: dir, ["migrate", "-o", "-", "a/x.plist", "b/x.plist"])
        #expect(two.status == 2)
        #expect(two.stderr == "ycft: /dev/stdout: standard output and other descriptors take one input file; give a directory for several\n")
        // An existing file as OUT for several inputs, or for a directory operand: one refusal
        // before any work (before, one "cannot create the directory: Not a directory" a file),
        // the file untouched; one input file still replaces it.
        try Data("keep".utf8).write(to: dir.appendingPathComponent("out.plist"))
        for operands in [["a/x.plist", "b/x.plist"], ["a"]] {
            let intoFile = try ycft(in: dir, ["migrate", "-o", "out.plist"] + operands)
            #expect(intoFile.status == 2, "\(operands)")
            #expect(intoFile.stderr == "ycft: out.plist: not a directory; several inputs, or a directory operand, go into -o DIRECTORY\n", "\(operands)")
        }
        #expect(try Data(contentsOf: dir.appendingPathComponent("out.plist")) == Data("keep".utf8))
        #expect(try ycft(in: dir, ["migrate", "-o", "out.plist", "a/x.plist"]).status == 0)
        // One input that is no file (a pipe): said as such, not as "several inputs".
        let piped = try runProcess(URL(fileURLWithPath: "/bin/sh"), ["-c", "cd \"$1\" && cat a/x.plist | \"$0\" migrate -o - /dev/stdin",
                                                                      ycft.path, dir.path])
        #expect(piped.status == 2)
        #expect(piped.stderr == "ycft: /dev/stdin: not a regular file or directory\n"
            + "ycft migrate: 1 file: 0 migrated, 0 unchanged, 0 skipped, 1 failed\n")
        let report = try ycft(in: dir, ["migrate", "--dry-run", "--report", "-", "a"])
        #expect(report.status == 0)
        // The report takes standard output alone; the listing goes to standard error.
        #expect(report.stderr.hasPrefix("a/x.plist: would migrate 3 records"))
        #expect(report.stdoutText.hasPrefix("{\n  \"formatVersion\" : 1"))
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("-").path))
    }

    // 3. standard output and error

    @Test func aFullOrClosedStandardOutputIsAnErrorNotACrash() throws {
        let full = try runSpawned(ycft, ["dump", archive.path], stdout: .path("/dev/full"))
        #expect(full.status == 2)
        #expect(full.stderr == "ycft: cannot write standard output: No space left on device\n")
        let closed = try runSpawned(ycft, ["dump", archive.path], stdout: .closed)
        #expect(closed.status == 2)
        #expect(closed.stderr == "ycft: cannot write standard output: Bad file descriptor\n")
        let version = try runSpawned(ycft, ["--version"], stdout: .path("/dev/full"))
        #expect(version.status == 2)
        #expect(version.stderr == "ycft: cannot write standard output: No space left on device\n")
        let dir = try TestPaths.temporaryDirectory()
        let empty = dir.appendingPathComponent("empty.bin")
        try writeBytes([], to: empty)
        let noStderr = try runSpawned(ycft, ["dump", empty.path], stderr: .closed)
        #expect(noStderr.status == 2)
        #expect(noStderr.stdout.isEmpty)
    }

    @Test func aClosedStandardOutputNeverBecomesAFile() throws {
        // With fd 1 closed, the first file ycft opens would get descriptor 1; the streams are
        // reserved first, so pack's output file holds the archive and nothing else.
        let dir = try TestPaths.temporaryDirectory()
        let json = dir.appendingPathComponent("state.json")
        try writeBytes(try runProcess(ycft, ["dump", archive.path]).stdout, to: json)
        let out = dir.appendingPathComponent("out.archive")
        let result = try runSpawned(ycft, ["pack", "-o", out.path, json.path], stdout: .closed)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try readBytes(out) == readBytes(archive))
    }

    @Test func aClosedPipeEndsQuietly() throws {
        let big = try TestPaths.temporaryDirectory().appendingPathComponent("big.plist")
        var records = FirstTimeRecords()
        for i in 0..<5_000 { records["gate.\(i)"] = FirstTimeRecord(lastVersion: "1.0", lastTime: Double(i)) }
        try writeBytes(try LegacyArchive.encode(records, format: .binary), to: big)
        let result = try runProcess(URL(fileURLWithPath: "/bin/bash"),
                                    ["-c", "'\(ycft.path)' dump '\(big.path)' | head -c 10 >/dev/null; echo \"${PIPESTATUS[0]}\""])
        #expect(result.stdoutText == "0\n")
        #expect(result.stderr == "")
    }

    @Test func aBatchGoesOnWithoutStandardErrorAndWritesItsReport() throws {
        var names: [String] = []
        for i in 0..<150 { names.append("t/good\(i).plist") }
        let dir = try tree(names)
        for i in 0..<151 { try writeBytes(Array("garbage".utf8), to: dir.appendingPathComponent("t/bad\(i).plist")) }
        let report = dir.appendingPathComponent("report.json")
        let result = try runSpawned(ycft, ["migrate", "--in-place", "--jobs", "1", "--report", report.path,
                                           dir.appendingPathComponent("t").path], stderr: .closed)
        #expect(result.status == 2)
        for i in 0..<150 { #expect(try isMigrated(dir.appendingPathComponent("t/good\(i).plist"))) }
        let json = try JSONSerialization.jsonObject(with: Data(readBytes(report))) as? [String: Any]
        let summary = json?["summary"] as? [String: Int]
        #expect(summary?["migrated"] == 150)
        #expect(summary?["failed"] == 151)
    }

    // 4. large times

    @Test func statusPrintsHugeTimesAsSuchAndNeverTraps() throws {
        let dir = try TestPaths.temporaryDirectory()
        let file = dir.appendingPathComponent("huge.plist")
        var records = FirstTimeRecords()
        records["k"] = FirstTimeRecord(lastVersion: "1", lastTime: 1e19)
        records["m"] = FirstTimeRecord(lastVersion: "1", lastTime: -1e19)
        try writeBytes(try LegacyArchive.encode(records, format: .binary), to: file)
        let result = try runProcess(ycft, ["status", "--now", "2025-01-01T00:00:00Z", "--gate", "k=daily", "--gate", "m=every:2147483648year",
                                           file.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdoutText == """
        now 2025-01-01T00:00:00.000000Z (UTC), app version none

        KEY  LAST VERSION  LAST TIME (UTC)   AGE
        k    1             beyond year 9999  in the future by more than 104249991374d
        m    1             before year 1     more than 104249991374d

        GATE  RULE                  RUNS NOW  NEXT ELIGIBLE (UTC)
        k     daily                 no        beyond year 9999
        m     every:2147483648year  no        beyond year 9999

        """)
    }

    // 5. lost update

    /// With backups too: the file another program changed keeps no backup of ycft's (nothing
    /// was replaced), the other is migrated beside its backup.
    @Test(arguments: [true, false])
    func aFileChangedDuringTheBatchIsNotOverwritten(backups: Bool) throws {
        let dir = try tree(["t/a.plist", "t/b.plist"])
        let fifo = dir.appendingPathComponent("hook").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let process = Process()
        process.executableURL = ycft
        process.arguments = ["migrate", "--in-place"] + (backups ? [] : ["--no-backup"]) + ["--jobs", "1", dir.appendingPathComponent("t").path]
        process.environment = ProcessInfo.processInfo.environment.merging(["YCFT_TEST_AFTER_READ_FIFO": fifo]) { $1 }
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let appWrote = Array("the app wrote this".utf8)
        for expected in ["a.plist", "b.plist"] {
            let line = String(decoding: readFIFO(fifo), as: UTF8.self)
            #expect(line.hasSuffix("/t/\(expected)\n"))
            // The app rewrites a.plist while ycft works on it.
            if expected == "a.plist" { try writeBytes(appWrote, to: dir.appendingPathComponent("t/a.plist")) }
            let go = open(fifo, O_WRONLY | O_CLOEXEC)
            _ = write(go, "g", 1)
            close(go)
        }
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 2)
        #expect(stderr.contains("t/a.plist: not replaced: it changed after ycft read it (another program wrote it)\n"))
        #expect(try readBytes(dir.appendingPathComponent("t/a.plist")) == appWrote)
        #expect(try isMigrated(dir.appendingPathComponent("t/b.plist")))
        #expect(try files(dir.appendingPathComponent("t")) == (backups ? ["a.plist", "b.plist", "b.plist.bak"] : ["a.plist", "b.plist"]))
    }

    // 6. ownership

    @Test(.enabled(if: geteuid() == 0, "giving files to other owners needs root"))
    func ownershipAndModeAreKeptWhenRunAsRoot() throws {
        let dir = try tree(["t/x.plist", "t/s.plist"])
        let file = dir.appendingPathComponent("t/x.plist")
        #expect(chown(file.path, 12345, 12346) == 0)
        chmod(file.path, 0o640)
        let result = try runProcess(ycft, ["migrate", "--in-place", file.path])
        #expect(result.status == 0, "\(result.stderr)")
        for url in [file, dir.appendingPathComponent("t/x.plist.bak")] {
            let s = try status(url)
            #expect(s.owner == 12345 && s.group == 12346 && s.permissions == 0o640, "\(url.lastPathComponent)")
        }
        #expect(try isMigrated(file))
        // -o from a setuid input: the output is the runner's, without setuid.
        let setuid = dir.appendingPathComponent("t/s.plist")
        #expect(chown(setuid.path, 12345, 12346) == 0)
        chmod(setuid.path, 0o4755)
        let out = dir.appendingPathComponent("out.plist")
        #expect(try runProcess(ycft, ["migrate", "-o", out.path, setuid.path]).status == 0)
        let made = try status(out)
        #expect(made.permissions == 0o755)
        #expect(made.owner == geteuid())
    }

    // 7. nothing ycft did not create is deleted

    @Test func packNeverDeletesFilesThatLookLikeTemporaries() throws {
        let dir = try TestPaths.temporaryDirectory()
        let json = dir.appendingPathComponent("state.json")
        try writeBytes(try runProcess(ycft, ["dump", archive.path]).stdout, to: json)
        let thesis = dir.appendingPathComponent(".thesis.ycft-4000000-backup")
        let lookalike = dir.appendingPathComponent(".out.archive.ycft-4000000-abcdef")
        try writeBytes(Array("chapter one".utf8), to: thesis)
        try writeBytes(Array("mine".utf8), to: lookalike)
        #expect(try runProcess(ycft, ["pack", "-o", dir.appendingPathComponent("out.archive").path, json.path]).status == 0)
        #expect(try readBytes(thesis) == Array("chapter one".utf8))
        #expect(try readBytes(lookalike) == Array("mine".utf8))
    }

    // 8. easy mistakes

    @Test func aSecondInPlaceRunNeverReplacesTheFirstBackup() throws {
        let dir = try tree(["x.plist"])
        let file = dir.appendingPathComponent("x.plist")
        #expect(try runProcess(ycft, ["migrate", "--in-place", file.path]).status == 0)
        // The user restores an older state and migrates again: x.plist.bak holds the first original.
        try writeBytes(try readBytes(defaults), to: file)
        try writeBytes(Array("first backup".utf8), to: dir.appendingPathComponent("x.plist.bak"))
        let report = dir.appendingPathComponent("r.json")
        let result = try runProcess(ycft, ["migrate", "--in-place", "--report", report.path, file.path])
        #expect(result.status == 0)
        #expect(result.stderr.contains("ycft: \(file.path): \(file.path).bak exists; the backup is \(file.path).bak.1\n"))
        #expect(try readBytes(dir.appendingPathComponent("x.plist.bak")) == Array("first backup".utf8))
        #expect(try readBytes(dir.appendingPathComponent("x.plist.bak.1")) == readBytes(defaults))
        let json = try JSONSerialization.jsonObject(with: Data(readBytes(report))) as? [String: Any]
        let entry = (json?["files"] as? [[String: Any]])?.first
        #expect(entry?["backup"] as? String == file.path + ".bak.1")
    }

    @Test func anOutputThatIsTheInputIsRefused() throws {
        let dir = try tree(["f.plist"])
        let file = dir.appendingPathComponent("f.plist")
        let result = try runProcess(ycft, ["migrate", "-o", file.path, file.path])
        #expect(result.status == 2)
        #expect(result.stderr == "ycft: \(file.path): the output is an input; use --in-place to rewrite a file\nycft: nothing was written\n")
        #expect(try readBytes(file) == readBytes(defaults))
    }

    @Test func backupsAreNotTakenAsInputsByTheNextDirectoryRun() throws {
        let dir = try tree(["t/x.plist"])
        let t = dir.appendingPathComponent("t")
        #expect(try runProcess(ycft, ["migrate", "--in-place", "--backup", ".orig.plist", t.path]).status == 0)
        #expect(try files(t) == ["x.plist", "x.plist.orig.plist"])
        let again = try runProcess(ycft, ["migrate", "--in-place", "--to", "interval", t.path])
        #expect(again.stderr.hasSuffix("ycft migrate: 1 file: 1 migrated, 0 unchanged, 0 skipped, 0 failed\n"))
        #expect(try readBytes(t.appendingPathComponent("x.plist.orig.plist")) == readBytes(defaults))
    }

    @Test func readOnlyFilesAreRefusedUnlessForced() throws {
        let dir = try tree(["ro.plist"])
        let file = dir.appendingPathComponent("ro.plist")
        chmod(file.path, 0o444)
        let result = try runProcess(ycft, ["migrate", "--in-place", file.path])
        #expect(result.status == 2)
        #expect(result.stderr.contains("ycft: \(file.path): not replaced: it is read-only (mode 0444); use --force to replace it anyway\n"))
        #expect(try readBytes(file) == readBytes(defaults))
        #expect(try files(dir) == ["ro.plist"])
        let forced = try runProcess(ycft, ["migrate", "--in-place", "--force", file.path])
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(try isMigrated(file))
        #expect(try status(file).permissions == 0o444)
    }

    @Test func longFileNamesWork() throws {
        let name = String(repeating: "p", count: 240) + ".plist"
        let dir = try tree([name])
        let result = try runProcess(ycft, ["migrate", "--in-place", "--no-backup", dir.appendingPathComponent(name).path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try isMigrated(dir.appendingPathComponent(name)))
    }

    /// As root (who writes anywhere) the check runs as nobody, which needs `setpriv` and a
    /// binary nobody can reach.
    @Test(.enabled(if: Unprivileged.prefix != nil, "as root, needs setpriv and a ycft binary that nobody (uid 65534) can reach"))
    func aReadOnlyDirectoryFailsCleanly() throws {
        let prefix = try #require(Unprivileged.prefix)
        let dir = try tree(["ro/x.plist"])
        let ro = dir.appendingPathComponent("ro")
        chmod(ro.path, 0o555)
        defer { chmod(ro.path, 0o755) }
        if isRoot {
            for path in [dir.path, ro.path, ro.appendingPathComponent("x.plist").path] { chown(path, 65534, 65534) }
            chmod(dir.path, 0o755)
            chmod(dir.deletingLastPathComponent().path, 0o755)
        }
        let command = prefix.isEmpty ? ycft : URL(fileURLWithPath: prefix[0])
        let result = try runProcess(command, Array(prefix.dropFirst()) + (prefix.isEmpty ? [] : [ycft.path])
                                        + ["migrate", "--in-place", "--no-backup", ro.appendingPathComponent("x.plist").path])
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.contains("x.plist: cannot write: Permission denied\n"))
        #expect(try readBytes(ro.appendingPathComponent("x.plist")) == readBytes(defaults))
        #expect(try files(ro) == ["x.plist"])
    }

    // Concurrency and crashes

    @Test func twoInPlaceRunsOverOneTreeMigrateEachFileOnce() throws {
        var names: [String] = []
        for i in 0..<200 { names.append("t/f\(i).plist") }
        let dir = try tree(names)
        let t = dir.appendingPathComponent("t")
        let processes = (0..<2).map { _ -> Process in
            let p = Process()
            p.executableURL = ycft
            p.arguments = ["migrate", "--in-place", "--jobs", "2", t.path]
            p.standardError = FileHandle.nullDevice
            return p
        }
        for p in processes { try p.run() }
        for p in processes { p.waitUntilExit() }
        let original = try readBytes(defaults)
        for i in 0..<200 {
            let file = t.appendingPathComponent("f\(i).plist")
            #expect(try isMigrated(file))
            // Exactly one backup, the original.
            #expect(try readBytes(t.appendingPathComponent("f\(i).plist.bak")) == original)
            #expect(!FileManager.default.fileExists(atPath: t.path + "/f\(i).plist.bak.1"))
        }
        #expect(try files(t).count == 400)
    }

    // 9. extended attributes and ACLs, special files in place, backups of a killed run

    @Test(.enabled(if: attributesWork, "the file system of the test directory refuses user.* attributes or ACLs"))
    func everyInPlaceCommandKeepsUserAttributesAndTheACL() throws {
        let dir = try tree(["set.plist", "unset.plist", "reset.plist", "into.plist", "migrate.plist"])
        try writeBytes(Array(#"{"format":"ycfirsttime-records","formatVersion":1,"records":{"new.gate":{"lastVersion":"1.0","lastTime":null}}}"#.utf8),
                       to: dir.appendingPathComponent("state.json"))
        let acl = aclGrantingWrite(to: 65534)
        let origin = Array("exported from device 7".utf8)
        for name in ["set", "unset", "reset", "into", "migrate"] {
            let path = dir.appendingPathComponent("\(name).plist").path
            chmod(path, 0o600)
            #expect(setAttribute(path, "user.origin", origin) == 0)
            #expect(setAttribute(path, "system.posix_acl_access", acl) == 0)
        }
        let expected: [String: [UInt8]] = ["user.origin": origin, "system.posix_acl_access": acl]
        #expect(attributes(dir.appendingPathComponent("set.plist").path) == expected)
        let runs: [(String, [String])] = [
            ("set", ["set", "set.plist", "rate.prompt", "--last-version", "9.9"]),
            ("unset", ["unset", "unset.plist", "rate.prompt"]),
            ("reset", ["reset", "reset.plist"]),
            ("into", ["pack", "--into", "into.plist", "state.json"]),
            ("migrate", ["migrate", "--in-place", "migrate.plist"]),
        ]
        let original = try readBytes(defaults)
        for (name, arguments) in runs {
            let file = dir.appendingPathComponent("\(name).plist")
            let before = try status(file)
            let result = try ycft(in: dir, arguments)
            #expect(result.status == 0, "\(name): \(result.stderr)")
            if name == "migrate" {
                #expect(result.stderr == "ycft migrate: 1 file: 1 migrated, 0 unchanged, 0 skipped, 0 failed\n")
            } else {
                #expect(result.stderr == "", "\(name)")
            }
            #expect(try readBytes(file) != original, "\(name) changed the file")
            #expect(try status(file).identity.inode != before.identity.inode, "\(name) replaced the file")
            #expect(attributes(file.path) == expected, "\(name)")
            #expect(try status(file).permissions == 0o664, "\(name): the mode the ACL gave")
        }
        // The backup is the original itself, attributes and all.
        #expect(attributes(dir.appendingPathComponent("migrate.plist.bak").path) == expected)
    }

    @Test(.enabled(if: attributesWork && geteuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"),
                   "needs root (to set security.* and run ycft as another user), setpriv, and a file system with attributes"))
    func anAttributeTheUserMayNotSetIsNamedInAWarning() throws {
        let dir = try tree(["t/prefs.plist", "t/batch.plist"])
        let t = dir.appendingPathComponent("t")
        #expect(chown(t.path, 65534, 65534) == 0)
        for name in ["prefs.plist", "batch.plist"] {
            let path = t.appendingPathComponent(name).path
            #expect(chown(path, 65534, 65534) == 0)
            #expect(setAttribute(path, "user.origin", [1, 2]) == 0)
            #expect(setAttribute(path, "security.ycft-test", Array("label".utf8)) == 0)
        }
        let asNobody = ["--reuid=65534", "--regid=65534", "--clear-groups", ycft.path]
        let set = try runProcess(URL(fileURLWithPath: "/usr/bin/setpriv"),
                                 asNobody + ["set", t.appendingPathComponent("prefs.plist").path, "rate.prompt", "--last-version", "3"])
        #expect(set.status == 0)
        #expect(set.stderr == "ycft: \(t.path)/prefs.plist: warning: the replacement could not keep this extended attribute: "
                + "security.ycft-test (Operation not permitted)\n")
        #expect(attributes(t.appendingPathComponent("prefs.plist").path) == ["user.origin": [1, 2]])
        let migrate = try runProcess(URL(fileURLWithPath: "/usr/bin/setpriv"),
                                     asNobody + ["migrate", "--in-place", "--no-backup", t.appendingPathComponent("batch.plist").path])
        #expect(migrate.status == 0)
        #expect(migrate.stderr == "ycft: \(t.path)/batch.plist: warning: the replacement could not keep this extended attribute: "
                + "security.ycft-test (Operation not permitted)\n"
                + "ycft migrate: 1 file: 1 migrated, 0 unchanged, 0 skipped, 0 failed\n")
        #expect(try isMigrated(t.appendingPathComponent("batch.plist")))
        #expect(attributes(t.appendingPathComponent("batch.plist").path) == ["user.origin": [1, 2]])
    }

    /// Runs a bash script in `dir` with `$YCFT` set, timed; every ycft in it runs under `timeout 10`.
    func shell(_ script: String, in dir: URL, environment: [String: String] = [:]) throws -> (result: ProcessResult, seconds: Double) {
        let start = Date()
        var env = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        env["YCFT"] = ycft.path
        let result = try runProcess(URL(fileURLWithPath: "/bin/bash"), ["-c", "cd \"$1\" && set -o pipefail && " + script, "bash", dir.path],
                                    environment: env)
        return (result, Date().timeIntervalSince(start))
    }

    @Test func inPlaceCommandsRefuseAPipeADeviceAndDescriptorNamesAtOnce() throws {
        let dir = try tree(["prefs.plist"])
        let json = dir.appendingPathComponent("state.json")
        try writeBytes(try runProcess(ycft, ["dump", archive.path]).stdout, to: json)
        #expect(mkfifo(dir.appendingPathComponent("fifo").path, 0o600) == 0)
        let pipe = "not changed in place: it is a named pipe; only a regular file is changed in place"
        let device = "not changed in place: it is a character device; only a regular file is changed in place"
        let descriptor = "not changed in place: it names an open descriptor (standard input or output), not a file; give the file's own path"
        let commands: [String] = ["set TARGET rate.prompt --last-version 1", "unset TARGET rate.prompt", "reset TARGET",
                                  "pack --into TARGET state.json", "edit TARGET"]
        let cases: [(target: String, redirect: String, message: String)] = [
            ("fifo", "", pipe),
            ("/dev/null", "", device),
            ("/dev/stdin", " < prefs.plist", descriptor),
            ("/dev/fd/0", " < prefs.plist", descriptor),
            ("/proc/self/fd/0", " < prefs.plist", descriptor),
            ("/dev/stdout", " | cat", descriptor),
        ]
        for command in commands {
            for (target, redirect, message) in cases {
                let line = "timeout -k 1 10 \"$YCFT\" \(command.replacingOccurrences(of: "TARGET", with: target))\(redirect)"
                let (result, seconds) = try shell(line, in: dir, environment: ["EDITOR": "true", "VISUAL": ""])
                #expect(result.status == 2, "\(line)")
                #expect(seconds < 5, "\(line) took \(seconds) s")
                #expect(result.stderr == "ycft: \(target): \(message)\n", "\(line)")
                #expect(result.stdout.isEmpty, "\(line)")
            }
        }
        // migrate --in-place: the same refusal from the writer's read; a pipe operand is not even planned.
        let summary = "ycft migrate: 1 file: 0 migrated, 0 unchanged, 0 skipped, 1 failed\n"
        let viaStdin = try shell("timeout -k 1 10 \"$YCFT\" migrate --in-place /dev/stdin < prefs.plist", in: dir)
        #expect(viaStdin.result.status == 2)
        #expect(viaStdin.seconds < 5)
        #expect(viaStdin.result.stderr == "ycft: /dev/stdin: \(descriptor)\n" + summary)
        let viaFifo = try shell("timeout -k 1 10 \"$YCFT\" migrate --in-place fifo", in: dir)
        #expect(viaFifo.result.status == 2)
        #expect(viaFifo.seconds < 5)
        #expect(viaFifo.result.stderr.hasPrefix("ycft: fifo: ") && viaFifo.result.stderr.hasSuffix(summary))
        // Nothing was written anywhere.
        #expect(try readBytes(dir.appendingPathComponent("prefs.plist")) == readBytes(defaults))
        #expect(try files(dir) == ["fifo", "prefs.plist", "state.json"])
        #expect(try FileStatus.of(dir.appendingPathComponent("fifo").path, followLinks: false).get().kind == .fifo)
        // Reading is not changing: dump reads a pipe and /dev/stdin as before.
        let dumped = try runProcess(ycft, ["dump", defaults.path]).stdout
        let fromStdin = try shell("timeout -k 1 10 \"$YCFT\" dump /dev/stdin < prefs.plist", in: dir)
        #expect(fromStdin.result.status == 0)
        #expect(fromStdin.result.stdout == dumped)
        let fromFifo = try shell("(cat prefs.plist > fifo &) ; timeout -k 1 10 \"$YCFT\" dump fifo", in: dir)
        #expect(fromFifo.result.status == 0)
        #expect(fromFifo.result.stdout == dumped)
    }

    @Test func aRerunAfterAKilledInPlaceRunReusesItsBackups() throws {
        // What a kill between the backup and the rename leaves: FILE.bak, and FILE not yet migrated.
        let dir = try tree(["t/linked.plist", "t/copied.plist", "t/older.plist", "t/done.plist"])
        let t = dir.appendingPathComponent("t")
        let original = try readBytes(defaults)
        #expect(link(t.path + "/linked.plist", t.path + "/linked.plist.bak") == 0)   // the backup ycft links
        try writeBytes(original, to: t.appendingPathComponent("copied.plist.bak"))     // the copy it makes without hard links
        let older = Array("an older original".utf8)
        try writeBytes(older, to: t.appendingPathComponent("older.plist.bak"))         // not this file's: kept apart
        let report = dir.appendingPathComponent("report.json")
        let rerun = try runProcess(ycft, ["migrate", "--in-place", "--report", report.path, t.path])
        #expect(rerun.status == 0, "\(rerun.stderr)")
        #expect(rerun.stderr == "ycft: \(t.path)/older.plist: \(t.path)/older.plist.bak exists; the backup is \(t.path)/older.plist.bak.1\n"
                + "ycft migrate: 4 files: 4 migrated, 0 unchanged, 0 skipped, 0 failed\n")
        #expect(try files(t) == ["copied.plist", "copied.plist.bak", "done.plist", "done.plist.bak", "linked.plist", "linked.plist.bak",
                                 "older.plist", "older.plist.bak", "older.plist.bak.1"])
        for name in ["copied", "done", "linked"] {
            #expect(try readBytes(t.appendingPathComponent("\(name).plist.bak")) == original, "\(name)")
            #expect(try isMigrated(t.appendingPathComponent("\(name).plist")), "\(name)")
        }
        #expect(try readBytes(t.appendingPathComponent("older.plist.bak")) == older)
        #expect(try readBytes(t.appendingPathComponent("older.plist.bak.1")) == original)
        let json = try JSONSerialization.jsonObject(with: Data(readBytes(report))) as? [String: Any]
        var backups: [String: String] = [:]
        var reused: [String: Bool] = [:]
        for entry in json?["files"] as? [[String: Any]] ?? [] {
            let name = URL(fileURLWithPath: entry["path"] as? String ?? "").lastPathComponent
            backups[name] = (entry["backup"] as? String).map { URL(fileURLWithPath: $0).lastPathComponent }
            reused[name] = entry["backupReused"] as? Bool
        }
        #expect(backups == ["copied.plist": "copied.plist.bak", "done.plist": "done.plist.bak", "linked.plist": "linked.plist.bak",
                            "older.plist": "older.plist.bak.1"])
        #expect(reused == ["copied.plist": true, "done.plist": false, "linked.plist": true, "older.plist": false])
    }

    /// SIGKILL at several moments of a batch with group commit (2 jobs, 2,000 files in 10
    /// directories): every file is the original or completely migrated, nothing else is left
    /// in the tree, and the next run migrates the rest.
    @Test func sigkillDuringABatchLeavesEveryFileWhole() throws {
        var names: [String] = []
        for i in 0..<2_000 { names.append("t/d\(i % 10)/f\(i).plist") }
        let original = try readBytes(defaults)
        for moment in [50_000, 150_000, 300_000, 450_000, 700_000] as [UInt32] {
            let dir = try tree(names)
            let t = dir.appendingPathComponent("t")
            let process = Process()
            process.executableURL = ycft
            process.arguments = ["migrate", "--in-place", "--no-backup", "--jobs", "2", t.path]
            process.standardError = FileHandle.nullDevice
            try process.run()
            usleep(moment)
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            for name in names {
                let url = dir.appendingPathComponent(name)
                if try readBytes(url) != original {
                    #expect(try isMigrated(url), "\(name) after a kill at \(moment / 1000) ms")
                }
            }
            // Only the 2,000 inputs are there (an unnamed O_TMPFILE leaves nothing behind).
            #expect(try files(t).filter { $0.hasSuffix(".plist") }.count == 2_000)
            #expect(try files(t).filter { !$0.hasSuffix(".plist") && !$0.hasPrefix("d") }.isEmpty)
            // The next run finishes the batch.
            let rerun = try runProcess(ycft, ["migrate", "--in-place", "--no-backup", "--jobs", "2", t.path])
            #expect(rerun.status == 0, "\(rerun.stderr)")
            for name in names { #expect(try isMigrated(dir.appendingPathComponent(name)), "\(name) after the rerun") }
        }
    }
}
