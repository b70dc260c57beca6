import Foundation
import Testing
import TestSupport

/// `migrate --report FILE` is an output like any other: it is refused (exit 2, nothing
/// migrated, every file byte for byte as it was) when FILE is one of the inputs, one of the
/// outputs, or a preferences file the report would replace; a report over an earlier report is
/// written. It used to replace an input with the JSON, in a dry run too.
@Suite struct ReportDestination {
    let ycft = TestPaths.executable("ycft")

    func tree() throws -> URL {
        let dir = try TestPaths.temporaryDirectory()
        let defaults = try readBytes(TestPaths.fixtures.appendingPathComponent("valid/defaults/export.binary.plist"))
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("ex"), withIntermediateDirectories: true)
        for name in ["ex/a.plist", "ex/b.plist", "other.plist"] { try writeBytes(defaults, to: dir.appendingPathComponent(name)) }
        return dir
    }

    func contents(_ dir: URL) throws -> [String: [UInt8]] {
        var all: [String: [UInt8]] = [:]
        for name in ["ex/a.plist", "ex/b.plist", "other.plist"] { all[name] = try readBytes(dir.appendingPathComponent(name)) }
        return all
    }

    @Test func aReportThatWouldReplaceAnInputAnOutputOrPreferencesIsRefused() throws {
        let cases: [([String], String)] = [
            (["--dry-run", "--report", "ex/a.plist", "ex"], "ycft: --report ex/a.plist: it is one of the inputs; nothing was migrated\n"),
            (["--in-place", "--report", "ex/b.plist", "ex/a.plist", "ex/b.plist"],
             "ycft: --report ex/b.plist: it is one of the inputs; nothing was migrated\n"),
            (["-o", "out.plist", "--report", "out.plist", "ex/a.plist"], "ycft: --report out.plist: it is one of the outputs; nothing was migrated\n"),
            (["--dry-run", "--report", "other.plist", "ex"],
             "ycft: --report other.plist: not replaced: it holds preferences the output would lose or change (\"AppleLanguages\", "
             + "\"LaunchCount\", \"NegativeOffset\", \"HugeCounter\", \"Ratio\" and 6 more); nothing was written. "
             + "Give the report a path of its own; nothing was migrated\n"),
        ]
        for (arguments, stderr) in cases {
            let dir = try tree()
            let before = try contents(dir)
            let result = try runProcess(URL(fileURLWithPath: "/bin/sh"), ["-c", "cd \"$1\" && shift && exec \"$@\"", "sh", dir.path, ycft.path, "migrate"] + arguments)
            #expect(result.status == 2, "\(arguments)")
            #expect(result.stderr == stderr, "\(arguments)")
            #expect(try contents(dir) == before, "\(arguments)")
            #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("out.plist").path))
        }
    }

    /// The report once replaced the backup `--in-place` had just made of the original, the
    /// only copy of it left, and the run exited 0.
    @Test func aReportNeverReplacesABackupOfTheRun() throws {
        let dir = try tree()
        let original = try readBytes(dir.appendingPathComponent("ex/a.plist"))
        func run(_ arguments: [String]) throws -> ProcessResult {
            try runProcess(URL(fileURLWithPath: "/bin/sh"), ["-c", "cd \"$1\" && shift && exec \"$@\"", "sh", dir.path, ycft.path, "migrate"] + arguments)
        }
        // Where the backup goes: refused before anything is migrated.
        let refused = try run(["--in-place", "--report", "ex/a.plist.bak", "ex/a.plist"])
        #expect(refused.status == 2)
        #expect(refused.stderr == "ycft: --report ex/a.plist.bak: it is where the backup of ex/a.plist goes; nothing was migrated\n")
        #expect(try readBytes(dir.appendingPathComponent("ex/a.plist")) == original)
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("ex/a.plist.bak").path))
        // Where the backup goes because .bak is taken: migrated, the backup kept, no report.
        try writeBytes(Array("taken\n".utf8), to: dir.appendingPathComponent("ex/a.plist.bak"))
        let kept = try run(["--in-place", "-q", "--report", "ex/a.plist.bak.1", "ex/a.plist"])
        #expect(kept.status == 2)
        #expect(kept.stderr == "ycft: ex/a.plist: ex/a.plist.bak exists; the backup is ex/a.plist.bak.1\n"
            + "ycft: ex/a.plist.bak.1: cannot write the report: a file appeared at this path during the run "
            + "(a backup the run made?) and was not replaced\n")
        #expect(try readBytes(dir.appendingPathComponent("ex/a.plist.bak.1")) == original)
        #expect(try readBytes(dir.appendingPathComponent("ex/a.plist.bak")) == Array("taken\n".utf8))
    }

    @Test func aReportOverAnEarlierReportIsWritten() throws {
        let dir = try tree()
        let report = dir.appendingPathComponent("r.json").path
        for _ in 0..<2 {
            let result = try runProcess(ycft, ["migrate", "--dry-run", "-q", "--report", report, dir.appendingPathComponent("ex").path])
            #expect(result.status == 0, "\(result.stderr)")
        }
        let text = String(decoding: try readBytes(URL(fileURLWithPath: report)), as: UTF8.self)
        #expect(text.hasPrefix("{\n  \"formatVersion\" : 1,"), "\(text.prefix(60))")
    }
}
