import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The lost update of the attacker review (issue 25 writer item 1) on the real binary: another
/// program renames its version over the file after ycft's last look and before its swap (the
/// debug build's `YCFT_TEST_BEFORE_SWAP_FIFO` hook stops ycft exactly there). The other
/// program's bytes stay in place, the file is refused, exit status 2; before, ycft renamed over
/// them and exited 0.
@Suite(.serialized) struct SwapRaceThroughTheTool {
    let ycft = TestPaths.executable("ycft")
    let defaults = TestPaths.fixtures.appendingPathComponent("valid/defaults/export.binary.plist")
    let changed = "not replaced: it changed after ycft read it (another program wrote it)"

    /// Runs ycft in `dir` with the hook; at each stop (one per replaced file, in order) calls
    /// `atStop` with the path ycft is about to replace, then lets it go on.
    func run(_ arguments: [String], in dir: URL, atStop: (String) throws -> Void) throws -> (status: Int32, stdout: String, stderr: String) {
        let fifo = dir.appendingPathComponent("hook").path
        #expect(mkfifo(fifo, 0o600) == 0)
        defer { unlink(fifo) }
        let process = Process()
        process.executableURL = ycft
        process.arguments = arguments
        process.currentDirectoryURL = dir
        process.environment = ProcessInfo.processInfo.environment.merging(["YCFT_TEST_BEFORE_SWAP_FIFO": fifo]) { $1 }
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // One stop per file the tool replaces; the last stop is followed by the tool's exit.
        var stops = arguments.filter { $0.hasSuffix(".plist") && !$0.hasPrefix("-") }.count
        while stops > 0 {
            stops -= 1
            let line = String(decoding: readFIFO(fifo), as: UTF8.self)
            #expect(line.hasSuffix("\n"))
            try atStop(String(line.dropLast()))
            let go = open(fifo, O_WRONLY | O_CLOEXEC)
            _ = write(go, "g", 1)
            close(go)
        }
        let out = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let err = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, out, err)
    }

    /// What another program does: its version under a side name, renamed over the file.
    func otherProgramWrites(_ bytes: [UInt8], over path: String) throws {
        let side = path + ".app-tmp"
        try writeBytes(bytes, to: URL(fileURLWithPath: side))
        #expect(rename(side, path) == 0)
    }

    @Test func setKeepsTheOtherProgramsVersionAndFails() throws {
        let dir = try TestPaths.temporaryDirectory()
        let file = dir.appendingPathComponent("prefs.plist")
        try writeBytes(try readBytes(defaults), to: file)
        let appWrote = Array("the app wrote this".utf8)
        var stopped: [String] = []
        let result = try run(["set", "prefs.plist", "k", "--last-version", "9"], in: dir) { path in
            stopped.append(path)
            try otherProgramWrites(appWrote, over: file.path)
        }
        #expect(stopped == ["prefs.plist"])
        #expect(result.status == 2)
        #expect(result.stderr == "ycft: prefs.plist: \(changed)\n")
        #expect(result.stdout == "")
        #expect(try readBytes(file) == appWrote)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["prefs.plist"])
    }

    @Test func setWithoutARaceStillReplaces() throws {
        let dir = try TestPaths.temporaryDirectory()
        let file = dir.appendingPathComponent("prefs.plist")
        try writeBytes(try readBytes(defaults), to: file)
        let result = try run(["set", "prefs.plist", "k", "--last-version", "9"], in: dir) { _ in }
        #expect(result.status == 0)
        #expect(result.stderr == "ycft: prefs.plist: warning: created record \"k\": no record had that key; it has no lastTime, as none was given ('--last-time now' records a run now)\n")
        #expect(try readBytes(file) != readBytes(defaults))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["prefs.plist"])
    }

    /// The group commit: the raced file fails alone and keeps the other program's bytes; the
    /// other file of the batch is migrated.
    @Test func migrateKeepsTheRacedFileAndMigratesTheOther() throws {
        let dir = try TestPaths.temporaryDirectory()
        let a = dir.appendingPathComponent("a.plist")
        let b = dir.appendingPathComponent("b.plist")
        try writeBytes(try readBytes(defaults), to: a)
        try writeBytes(try readBytes(defaults), to: b)
        let appWrote = Array("the app wrote this".utf8)
        var stopped: [String] = []
        let result = try run(["migrate", "--in-place", "--no-backup", "--jobs", "1", "a.plist", "b.plist"], in: dir) { path in
            stopped.append(path)
            if path.hasSuffix("a.plist") { try otherProgramWrites(appWrote, over: a.path) }
        }
        #expect(stopped.count == 2 && stopped[0].hasSuffix("a.plist") && stopped[1].hasSuffix("b.plist"), "\(stopped)")
        #expect(result.status == 2)
        #expect(result.stderr == "ycft: a.plist: \(changed)\nycft migrate: 2 files: 1 migrated, 0 unchanged, 0 skipped, 1 failed\n")
        #expect(try readBytes(a) == appWrote)
        #expect(try readBytes(b) != readBytes(defaults))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["a.plist", "b.plist"])
    }
}
