import Foundation
import Testing
import FirstTimeArchive
import FirstTimeCore
import Plist
import PlistCore
import TestSupport
@testable import YcftCLI

/// `ycft migrate` end to end, on real files.
@Suite(.serialized) struct MigrateCLI {
    let ycft = TestPaths.executable("ycft")
    let fixture = TestPaths.fixtures.appendingPathComponent("valid/defaults/export.binary.plist")

    func fresh(_ names: [String] = ["a.plist"]) throws -> URL {
        let dir = try TestPaths.temporaryDirectory()
        for name in names {
            let url = dir.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: fixture, to: url)
        }
        return dir
    }

    func mode(_ url: URL) throws -> Int {
        try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as! Int
    }

    @Test func refusesWithoutADestination() throws {
        let dir = try fresh()
        let result = try runProcess(ycft, ["migrate", dir.appendingPathComponent("a.plist").path])
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("Error: Say where results go: '-o OUT', '--in-place' or '--dry-run'\n"))
    }

    @Test func inPlaceKeepsPermissionsAndWritesABackup() throws {
        let dir = try fresh()
        let file = dir.appendingPathComponent("a.plist")
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
        let original = try readBytes(file)
        let result = try runProcess(ycft, ["migrate", "--in-place", file.path])
        #expect(result.status == 0)
        #expect(result.stderr == "ycft migrate: 1 file: 1 migrated, 0 unchanged, 0 skipped, 0 failed\n")
        #expect(try mode(file) == 0o600)
        #expect(try readBytes(dir.appendingPathComponent("a.plist.bak")) == original)
        #expect(try mode(dir.appendingPathComponent("a.plist.bak")) == 0o600)
        #expect(try dictionary(readBytes(file))["YCFirstTime.records"] != nil)
        // Again: unchanged, not rewritten.
        let before = try FileManager.default.attributesOfItem(atPath: file.path)[.modificationDate] as! Date
        usleep(20_000)
        let again = try runProcess(ycft, ["migrate", "--in-place", "--backup", ".orig", file.path])
        #expect(again.status == 0)
        #expect(again.stderr == "ycft migrate: 1 file: 0 migrated, 1 unchanged, 0 skipped, 0 failed\n")
        #expect(try FileManager.default.attributesOfItem(atPath: file.path)[.modificationDate] as! Date == before)
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("a.plist.orig").path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["a.plist", "a.plist.bak"])
    }

    @Test func dryRunWritesNothing() throws {
        let dir = try fresh()
        let file = dir.appendingPathComponent("a.plist")
        let original = try readBytes(file)
        let result = try runProcess(ycft, ["migrate", "--dry-run", "--to", "interval", file.path])
        #expect(result.status == 0)
        #expect(result.stdoutText == "\(file.path): would migrate 3 records: +\"YCFirstTime.records\" +\"interval.onboarding.v1\" +\"interval.rate.prompt\" -\"YCFirstTime\"\n")
        #expect(try readBytes(file) == original)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["a.plist"])
    }

    @Test func outputDirectoryMirrorsInputsAndReportIsWritten() throws {
        let dir = try fresh(["in/x.plist", "in/sub/y.plist"])
        try writeBytes(Array("not a plist".utf8), to: dir.appendingPathComponent("in/sub/broken.plist"))
        try writeBytes(Array("ignored".utf8), to: dir.appendingPathComponent("in/notes.txt"))
        let out = dir.appendingPathComponent("out")
        let report = dir.appendingPathComponent("report.json")
        let result = try runProcess(ycft, ["migrate", "-o", out.path, "--report", report.path, "--jobs", "2",
                                           dir.appendingPathComponent("in").path])
        #expect(result.status == 1)
        #expect(result.stderr.contains("ycft: \(dir.path)/in/sub/broken.plist: not a property list (neither binary 'bplist00' nor XML)\n"))
        #expect(result.stderr.hasSuffix("ycft migrate: 3 files: 2 migrated, 0 unchanged, 0 skipped, 1 failed\n"))
        #expect(try dictionary(readBytes(out.appendingPathComponent("x.plist")))["YCFirstTime.records"] != nil)
        #expect(try dictionary(readBytes(out.appendingPathComponent("sub/y.plist")))["YCFirstTime.records"] != nil)
        #expect(try readBytes(dir.appendingPathComponent("in/x.plist")) == readBytes(fixture))
        let text = String(decoding: try readBytes(report), as: UTF8.self)
        #expect(text.contains(#""summary" : {\#n    "migrated" : 2,\#n    "unchanged" : 0,\#n    "skipped" : 0,\#n    "failed" : 1\#n  }"#))
        #expect(text.contains(#""path" : "\#(dir.path)/in/sub/broken.plist",\#n      "status" : "failed""#))
    }

    /// An OUT ending in "/" is a directory, also for one input file, and is made when missing
    /// (it was taken for the output file, made as a directory, and then failed as one).
    @Test func oneFileIntoANewDirectoryNamedWithASlash() throws {
        let dir = try fresh()
        let file = dir.appendingPathComponent("a.plist")
        let out = dir.appendingPathComponent("new").path + "/"
        let result = try runProcess(ycft, ["migrate", "-q", "-o", out, file.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try dictionary(readBytes(URL(fileURLWithPath: out + String(file.path.dropFirst()))))["YCFirstTime.records"] != nil)
    }

    /// A file whose replacement fails after its migration is reported failed with the keys the
    /// migration had decided (the outcome stays in the report), and the backup made for it is gone.
    @Test(.enabled(if: Faults.available, Comment(rawValue: Faults.unavailable)))
    func aFailedReplacementKeepsTheOutcomeInTheReport() throws {
        let dir = try fresh()
        let file = dir.appendingPathComponent("a.plist")
        let result = try runProcess(ycft, ["migrate", "--in-place", "--report", "-", file.path],
                                    environment: Faults.environment("renameat2=5@\(dir.path)"))
        #expect(result.status == 2)
        #expect(result.stderr == "ycft: \(file.path): cannot write: Input/output error\nycft migrate: 1 file: 0 migrated, 0 unchanged, 0 skipped, 1 failed\n")
        #expect(result.stdoutText == """
            {
              "formatVersion" : 1,
              "target" : "records",
              "dryRun" : false,
              "summary" : {
                "migrated" : 0,
                "unchanged" : 0,
                "skipped" : 0,
                "failed" : 1
              },
              "files" : [
                {
                  "path" : "\(file.path)",
                  "status" : "failed",
                  "added" : [
                    "YCFirstTime.records"
                  ],
                  "removed" : [
                    "YCFirstTime"
                  ],
                  "changed" : [],
                  "records" : 3,
                  "error" : "cannot write: Input/output error",
                  "backup" : null,
                  "backupReused" : false
                }
              ]
            }

            """)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["a.plist"])
        #expect(try readBytes(file) == readBytes(fixture))
    }

    @Test func conflictFailsAndForceWins() throws {
        let dir = try fresh()
        let file = dir.appendingPathComponent("a.plist")
        var dict = try dictionary(readBytes(file))
        dict["YCFirstTime.records"] = RecordsFormat.plist(records([("x", nil, 1)]))
        try writeBytes(try PropertyList.write(.dictionary(dict), format: .binary), to: file)
        let failed = try runProcess(ycft, ["migrate", "--in-place", "--no-backup", file.path])
        #expect(failed.status == 1)
        #expect(failed.stderr.hasPrefix("ycft: \(file.path): \"YCFirstTime.records\" already exists with different content; use --force to let the source win\n"))
        let forced = try runProcess(ycft, ["migrate", "--in-place", "--no-backup", "--force", file.path])
        #expect(forced.status == 0)
    }

    @Test func missingPathIsTrouble() throws {
        let dir = try fresh()
        let result = try runProcess(ycft, ["migrate", "--dry-run", dir.appendingPathComponent("nope.plist").path,
                                           dir.appendingPathComponent("a.plist").path])
        #expect(result.status == 2)
        #expect(result.stderr.contains("nope.plist: cannot read: No such file or directory"))
        #expect(result.stdoutText.contains("a.plist: would migrate 3 records"))
    }

    /// 2,000 generated files, a few of them corrupt, two jobs.
    @Test func batchOfTwoThousandWithCorruptFiles() throws {
        let dir = try TestPaths.temporaryDirectory()
        let good = try readBytes(fixture)
        var corrupt: Set<Int> = [7, 500, 1999]
        for i in 0..<2000 {
            var bytes = good
            if corrupt.contains(i) { bytes = Array(bytes.prefix(100)) }
            try writeBytes(bytes, to: dir.appendingPathComponent(String(format: "d%02d/f%04d.plist", i % 10, i), isDirectory: false)
                .ensuringDirectory())
        }
        let report = dir.appendingPathComponent("report.json")
        let result = try runProcess(ycft, ["migrate", "--in-place", "--no-backup", "--jobs", "2", "--report", report.path, dir.path])
        #expect(result.status == 1)
        #expect(result.stderr.hasSuffix("ycft migrate: 2000 files: 1997 migrated, 0 unchanged, 0 skipped, 3 failed\n"))
        for i in [0, 1, 999, 1998] {
            let file = dir.appendingPathComponent(String(format: "d%02d/f%04d.plist", i % 10, i))
            #expect(try dictionary(readBytes(file))["YCFirstTime.records"] != nil)
        }
        for i in corrupt {
            #expect(try readBytes(dir.appendingPathComponent(String(format: "d%02d/f%04d.plist", i % 10, i))) == Array(good.prefix(100)))
        }
        let text = String(decoding: try readBytes(report), as: UTF8.self)
        #expect(text.components(separatedBy: #""status" : "migrated""#).count - 1 == 1997)
        #expect(text.components(separatedBy: #""status" : "failed""#).count - 1 == 3)
        corrupt.removeAll()
    }

    /// Found by running it on a terminal: with two jobs, one worker could write into an output
    /// directory the other was still creating.
    @Test func outputDirectoriesAreCreatedBeforeAnyWorkerWritesIntoThem() throws {
        let dir = try TestPaths.temporaryDirectory()
        let good = try readBytes(fixture)
        for i in 0..<400 {
            try writeBytes(good, to: dir.appendingPathComponent("in/d\(i % 40)/f\(i).plist", isDirectory: false).ensuringDirectory())
        }
        for attempt in 0..<3 {
            let out = dir.appendingPathComponent("out\(attempt)")
            let result = try runProcess(ycft, ["migrate", "-o", out.path, "--jobs", "2", dir.appendingPathComponent("in").path])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.hasSuffix("ycft migrate: 400 files: 400 migrated, 0 unchanged, 0 skipped, 0 failed\n"))
        }
    }

    /// SIGKILL at many moments: the path always holds the old bytes or the complete new file
    /// (byte for byte what an uninterrupted run writes), the kills span the write (the first,
    /// at once, finds the old file; a later one finds the new), and the next successful run
    /// leaves no temporary file behind.
    @Test func crashSafetyUnderSIGKILL() throws {
        let dir = try TestPaths.temporaryDirectory()
        var big = FirstTimeRecords()
        for i in 0..<20_000 { big["gate.\(i)"] = FirstTimeRecord(lastVersion: "\(i % 9).0", lastTime: Double(i) * 1.5) }
        let archive = try LegacyArchive.encode(big, format: .binary)
        let original = try PropertyList.write(.dictionary(PlistDictionary([
            ("Filler", .data(Array(repeating: 0xAB, count: 4_000_000))), ("YCFirstTime", .data(archive)),
        ])), format: .binary)
        // The new file: what an uninterrupted run writes, in a directory of its own.
        let reference = try TestPaths.temporaryDirectory().appendingPathComponent("big.plist")
        try writeBytes(original, to: reference)
        #expect(try runProcess(ycft, ["migrate", "--in-place", "--no-backup", reference.path]).status == 0)
        let migrated = try readBytes(reference)
        #expect(migrated != original)
        #expect(try RecordsFormat.records(fromPlist: dictionary(migrated)["YCFirstTime.records"]!) == big)

        let file = dir.appendingPathComponent("big.plist")
        // Whether each kill found the new file (false: the old bytes).
        var foundNew: [Bool] = []
        // Sixteen kills, a fortieth of a second apart, the first at once; then, should none of
        // them have come after the write (a slow or loaded machine), kills ever later until one
        // does, so that the kills are known to span the write.
        var delay: UInt32 = 0
        while foundNew.count < 16 || (!foundNew.contains(true) && foundNew.count < 24) {
            try writeBytes(original, to: file)
            let process = Process()
            process.executableURL = ycft
            process.arguments = ["migrate", "--in-place", "--no-backup", file.path]
            process.standardError = FileHandle.nullDevice
            try process.run()
            usleep(delay)
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let now = try readBytes(file)
            #expect(now == original || now == migrated, "kill \(foundNew.count): neither the old file nor the new, \(firstDifference(now, migrated))")
            foundNew.append(now == migrated)
            delay = foundNew.count < 16 ? delay + 25_000 : delay * 3 / 2
        }
        #expect(foundNew.first == false, "a kill at once found the file already rewritten")
        #expect(foundNew.contains(true), "no kill came after the write: \(foundNew)")
        try writeBytes(original, to: file)
        let result = try runProcess(ycft, ["migrate", "--in-place", "--no-backup", file.path])
        #expect(result.status == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["big.plist"])
    }

    /// A file whose name starts with a combining mark lands in its mirrored folder below OUT,
    /// which is made for it (its folder was cut at the last `/` character, which the mark
    /// hides: no folder was made and the write failed).
    @Test func aNameStartingWithACombiningMarkIsMirrored() throws {
        let dir = try fresh(["in/sub/\u{301}x.plist"])
        let out = dir.appendingPathComponent("out")
        let result = try runProcess(ycft, ["migrate", "-o", out.path, dir.appendingPathComponent("in").path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try dictionary(readBytes(out.appendingPathComponent("sub/\u{301}x.plist")))["YCFirstTime.records"] != nil)
    }

    /// Outputs are compared as the kernel reads paths, split at each `/` byte: `a/./\u{301}x`
    /// (a name that starts with a combining mark, which makes one character with the slash
    /// before it) is `a/\u{301}x`, and `..` climbs as it does elsewhere.
    @Test func outputsAreComparedByTheirBytes() {
        func normalized(_ path: String) -> [UInt8] { Array(MigrateCommand.Batch.normalized(path).utf8) }
        #expect(normalized("O/a/./\u{301}x.plist") == Array("O/a/\u{301}x.plist".utf8))
        #expect(normalized("O//a/b/../c/") == Array("O/a/c".utf8))
        #expect(normalized("/O/./a") == Array("/O/a".utf8))
        #expect(normalized("../../a/..") == Array("../..".utf8))
        #expect(normalized("") == [])
        // Spellings that are one already come back as they are, byte for byte.
        #expect(normalized("O/a/cafe\u{301}.plist") == Array("O/a/cafe\u{301}.plist".utf8))
        #expect(normalized("/O/.a/..b/...") == Array("/O/.a/..b/...".utf8))
        #expect(normalized("./a") == Array("a".utf8))
        #expect(normalized("a/") == Array("a".utf8))
        #expect(normalized("/") == Array("/".utf8))
        #expect(normalized("a/.") == Array("a".utf8))
    }
}

func dictionary(_ bytes: [UInt8]) throws -> PlistDictionary {
    try LibPlist.read(bytes).value.dictionaryValue!
}

extension URL {
    /// Creates the parent directory and returns self.
    func ensuringDirectory() throws -> URL {
        try FileManager.default.createDirectory(at: deletingLastPathComponent(), withIntermediateDirectories: true)
        return self
    }
}
