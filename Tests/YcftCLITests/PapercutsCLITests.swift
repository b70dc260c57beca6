import Foundation
import Testing
import TestSupport

/// Issue 26, papercuts 11-17, on the built binary: exact output and exit status.
@Suite(.serialized) struct PapercutsCLI {
    let ycft = TestPaths.executable("ycft")

    /// A scratch copy of `Examples/exported/` (two files to migrate, one already migrated).
    func exported() throws -> URL {
        let dir = try TestPaths.temporaryDirectory()
        let copy = dir.appendingPathComponent("exported")
        try FileManager.default.copyItem(at: TestPaths.examples.appendingPathComponent("exported"), to: copy)
        return copy
    }

    /// Every file below `dir`, by relative path, with its bytes.
    func snapshot(_ dir: URL) throws -> [String: [UInt8]] {
        var files: [String: [UInt8]] = [:]
        for case let path as String in FileManager.default.enumerator(atPath: dir.path) ?? FileManager.DirectoryEnumerator() {
            let url = dir.appendingPathComponent(path)
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue {
                files[path] = try readBytes(url)
            }
        }
        return files
    }

    // MARK: 11. The report on standard output takes it alone.

    @Test(arguments: ["-", "/dev/stdout", "/dev/fd/1"])
    func dryRunListingMovesToStandardErrorWhenTheReportTakesStandardOutput(report: String) throws {
        let dir = try exported()
        let result = try runProcess(ycft, ["migrate", "--dry-run", "--compact", "--report", report, "-j", "1", dir.path])
        #expect(result.status == 0)
        let p = dir.path
        #expect(result.stderr == """
        \(p)/com.example.notes.plist: would migrate 3 records: +"YCFirstTime.records" -"YCFirstTime"
        \(p)/com.example.weather.plist: would migrate 2 records: +"YCFirstTime.records" -"YCFirstTime"
        \(p)/team-b/com.example.game.plist: unchanged
        ycft migrate: 3 files: 2 would migrate, 1 unchanged, 0 skipped, 0 failed (dry run: nothing written)

        """)
        // Standard output is the report and nothing else: `| jq .summary` reads it.
        let report = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout)) as? [String: Any])
        #expect(report["summary"] as? [String: Int] == ["migrated": 2, "unchanged": 1, "skipped": 0, "failed": 0])
        #expect(result.stdoutText.hasPrefix(#"{"formatVersion":1,"target":"records","dryRun":true,"#))
        #expect(result.stdoutText.hasSuffix("}\n"))
    }

    @Test func aMigratedFileAndTheReportCannotShareStandardOutput() throws {
        let dir = try exported()
        let result = try runProcess(ycft, ["migrate", "-o", "-", "--report", "-", dir.appendingPathComponent("com.example.notes.plist").path])
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("Error: '-o -' and '--report -' cannot both write standard output\nUsage: ycft migrate "))
        #expect(result.stdout.isEmpty)
    }

    // MARK: 12. A report that cannot be written is refused before anything is migrated.

    @Test(arguments: ["/nonexistent/r.json", "DIR", "FILE/r.json"])
    func anUnwritableReportIsRefusedBeforeAnyWrite(report: String) throws {
        let dir = try exported()
        let file = dir.appendingPathComponent("com.example.notes.plist").path
        let path = report.replacingOccurrences(of: "DIR", with: dir.path).replacingOccurrences(of: "FILE", with: file)
        let before = try snapshot(dir)
        let result = try runProcess(ycft, ["migrate", "--in-place", "--report", path, dir.path])
        #expect(result.status == 2)
        let reason = report == "DIR" ? "Is a directory" : report == "FILE/r.json" ? "Not a directory" : "No such file or directory"
        #expect(result.stderr == "ycft: --report \(path): cannot write: \(reason); nothing was migrated\n")
        #expect(result.stdout.isEmpty)
        #expect(try snapshot(dir) == before, "nothing migrated, no backup made")
    }

    /// A report at a link to nothing, which the writer refuses to write through: refused before
    /// anything is migrated. Before, the check passed it (the link's folder exists), the files
    /// were migrated with their backups made, and the report failed at the end.
    @Test func aReportAtADanglingLinkIsRefusedBeforeAnyWrite() throws {
        let dir = try exported()
        let report = dir.deletingLastPathComponent().appendingPathComponent("report.json")
        #expect(symlink("/nonexistent-ycft-dir/r.json", report.path) == 0)
        let before = try snapshot(dir)
        let result = try runProcess(ycft, ["migrate", "--in-place", "--report", report.path, dir.path])
        #expect(result.status == 2)
        #expect(result.stderr == "ycft: --report \(report.path): cannot write: it is a symbolic link to \"/nonexistent-ycft-dir/r.json\", "
                + "which does not exist; nothing was migrated\n", "\(result.stderr)")
        #expect(try snapshot(dir) == before)
    }

    @Test func aReadOnlyReportIsRefusedBeforeAnyWrite() throws {
        let dir = try exported()
        let report = dir.deletingLastPathComponent().appendingPathComponent("report.json")
        try writeBytes(Array("{}".utf8), to: report)
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: report.path)
        let before = try snapshot(dir)
        let result = try runProcess(ycft, ["migrate", "--in-place", "--report", report.path, dir.path])
        #expect(result.status == 2)
        #expect(result.stderr == "ycft: --report \(report.path): not replaced: it is read-only (mode 0444); nothing was migrated\n")
        #expect(try snapshot(dir) == before)
        #expect(try readBytes(report) == Array("{}".utf8))
    }

    @Test func aWritableReportIsStillWritten() throws {
        let dir = try exported()
        let report = dir.deletingLastPathComponent().appendingPathComponent("report.json")
        let result = try runProcess(ycft, ["migrate", "--in-place", "--no-backup", "-q", "--report", report.path, dir.path])
        #expect(result.status == 0)
        #expect(result.stderr == "")
        #expect(try readBytes(dir.deletingLastPathComponent().appendingPathComponent("report.json")).count > 0)
    }

    // MARK: 13. One rule for binary on a terminal.

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: PapercutsCLI.script.path), "needs util-linux's script"))
    func migrateToATerminalRefusesBinaryAsPackDoes() throws {
        let file = TestPaths.fixtures.appendingPathComponent("valid/defaults/export.binary.plist").path
        let refusal = "ycft: refusing to write a binary property list to a terminal; use -o FILE, --plist-format xml, or redirect\n"
        let migrate = try runOnTerminal(["migrate", "-o", "-", file])
        #expect(migrate.status == 2)
        #expect(migrate.terminal.isEmpty)
        #expect(migrate.stderr == refusal + "ycft migrate: 1 file: 0 migrated, 0 unchanged, 0 skipped, 1 failed\n")

        let json = try TestPaths.temporaryDirectory().appendingPathComponent("r.json")
        try writeBytes(runProcess(ycft, ["dump", file]).stdout, to: json)
        let pack = try runOnTerminal(["pack", json.path])
        #expect(pack.status == 2)
        #expect(pack.terminal.isEmpty)
        #expect(pack.stderr == refusal)

        // XML is text: it reaches the terminal.
        let xmlFile = TestPaths.fixtures.appendingPathComponent("valid/defaults/export.xml.plist").path
        let xml = try runOnTerminal(["migrate", "-q", "-o", "-", xmlFile])
        #expect(xml.status == 0)
        #expect(String(decoding: xml.terminal, as: UTF8.self).hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\r\n"))
        #expect(xml.stderr == "")
    }

    /// `script` (util-linux) gives a command a pseudo-terminal.
    static let script = URL(fileURLWithPath: "/usr/bin/script")

    /// Runs ycft with standard output on a pseudo-terminal (through `script`), standard error to a file.
    func runOnTerminal(_ arguments: [String]) throws -> (status: Int32, terminal: [UInt8], stderr: String) {
        let errors = try TestPaths.temporaryDirectory().appendingPathComponent("stderr")
        func quoted(_ s: String) -> String { "'" + s.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        let command = ([ycft.path] + arguments).map(quoted).joined(separator: " ") + " 2>" + quoted(errors.path)
        let result = try runProcess(Self.script, ["-qec", command, "/dev/null"])
        return (result.status, result.stdout, String(decoding: try readBytes(errors), as: UTF8.self))
    }

    // MARK: 15. Usage errors that say what is wrong; one vocabulary for instants and zones.

    @Test func aGateWithoutKeyAsksForKeyEqualsRule() throws {
        let result = try runProcess(ycft, ["status", "--gate", "once", "x.plist"])
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("Error: The value 'once' is invalid for '--gate <key=rule>': expected KEY=RULE, like onboarding.v1=once\nUsage: "))
        // A key alone is not offered back as a rule.
        let keyOnly = try runProcess(ycft, ["status", "--gate", "rate.prompt", "x.plist"])
        #expect(keyOnly.stderr.hasPrefix("Error: The value 'rate.prompt' is invalid for '--gate <key=rule>': expected KEY=RULE, like onboarding.v1=once\nUsage: "))
        let ruleOnly = try runProcess(ycft, ["status", "--gate", "daily", "x.plist"])
        #expect(ruleOnly.stderr.hasPrefix("Error: The value 'daily' is invalid for '--gate <key=rule>': expected KEY=RULE, like onboarding.v1=daily\nUsage: "))
    }

    @Test(arguments: [(["set", "f.plist"], "KEY"), (["set"], "FILE"), (["unset", "f.plist"], "KEY..."), (["unset"], "FILE")])
    func theMissingArgumentIsNamed(arguments: [String], missing: String) throws {
        let result = try runProcess(ycft, arguments)
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("Error: Missing expected argument '\(missing)'\nUsage: ycft \(arguments[0]) "))
    }

    @Test func statusTakesNowAndTheLocalZone() throws {
        let file = TestPaths.fixtures.appendingPathComponent("valid/ycft/three-records.plist").path
        let before = Date().timeIntervalSinceReferenceDate
        let result = try runProcess(ycft, ["status", "--format", "json", "--compact", "--now", "now", "--time-zone", "local", file],
                                    environment: ["TZ": "Europe/Paris"])
        let after = Date().timeIntervalSinceReferenceDate
        #expect(result.status == 0)
        #expect(result.stderr == "")
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout)) as? [String: Any])
        #expect(doc["timeZone"] as? String == "Europe/Paris")
        let records = try #require(doc["records"] as? [[String: Any]])
        let age = try #require(records.first { $0["key"] as? String == "onboarding.v1" }?["ageSeconds"] as? Double)
        let lastTime = 757_414_800.123456
        #expect(age >= before - lastTime - 1 && age <= after - lastTime + 1, "--now now is the current time")

        // The text form names the zone and shows the local column in it.
        let text = try runProcess(ycft, ["status", "--now", "2025-01-01T09:00:00Z", "--time-zone", "local", file],
                                  environment: ["TZ": "Europe/Paris"])
        #expect(text.status == 0)
        #expect(text.stdoutText.hasPrefix("""
        now 2025-01-01T09:00:00.000000Z = 2025-01-01T10:00:00.000000+01:00 (Europe/Paris), app version none

        KEY            LAST VERSION  LAST TIME (UTC)              LAST TIME (Europe/Paris)          AGE
        onboarding.v1  2.1.0         2025-01-01T09:00:00.123456Z  2025-01-01T10:00:00.123456+01:00  in the future by 0h 0m 0s

        """))
    }

    @Test func instantsAreRefusedInOneWording() throws {
        let now = try runProcess(ycft, ["status", "--now", "yesterday", "x.plist"])
        #expect(now.status == 2)
        #expect(now.stderr.hasPrefix("Error: The value 'yesterday' is invalid for '--now <time>': expected a time like "
                                     + "2025-01-01T09:00:00Z, 2025-01-01T10:00+01:00, 2025-01-01 10:00 or 2025-01-01 (without Z or "
                                     + "an offset: in --time-zone, UTC by default), or 'now'\n"), "\(now.stderr)")
        let set = try runProcess(ycft, ["set", "f.plist", "k", "--last-time", "yesterday"])
        #expect(set.status == 2)
        #expect(set.stderr.hasPrefix("Error: The value 'yesterday' is invalid for '--last-time <time>': expected a time like "
                                     + "2025-01-01T09:00:00Z, 2025-01-01T10:00+01:00, 2025-01-01 10:00 or 2025-01-01 (without Z or "
                                     + "an offset: UTC), 'now', or seconds since 2001 with --seconds\n"), "\(set.stderr)")
        let zone = try runProcess(ycft, ["status", "--time-zone", "Mars/Olympus", "x.plist"])
        #expect(zone.stderr.hasPrefix("Error: The value 'Mars/Olympus' is invalid for '--time-zone <zone>': expected an IANA name like Europe/Paris, or 'local'\n"))
    }

    // MARK: 16. The other command was probably meant.

    @Test func dumpOfRecordsJSONPointsAtPackAndPackOfAPlistAtDump() throws {
        let plist = TestPaths.fixtures.appendingPathComponent("valid/ycft/three-records.plist").path
        let json = try TestPaths.temporaryDirectory().appendingPathComponent("state.json")
        try writeBytes(runProcess(ycft, ["dump", plist]).stdout, to: json)
        let dump = try runProcess(ycft, ["dump", json.path])
        #expect(dump.status == 1)
        #expect(dump.stderr == "ycft: \(json.path): not a property list (neither binary 'bplist00' nor XML); "
                + "it holds records JSON: did you mean 'ycft pack \(json.path)'?\n")
        let raw = try runProcess(ycft, ["dump", "--raw", json.path])
        #expect(raw.stderr == dump.stderr)
        let pack = try runProcess(ycft, ["pack", plist])
        #expect(pack.status == 1)
        #expect(pack.stderr == "ycft: \(plist): invalid JSON: unexpected character (at line 1, column 1); "
                + "it is a property list: did you mean 'ycft dump \(plist)'?\n")
        // Other input gets no hint.
        let other = json.deletingLastPathComponent().appendingPathComponent("other.json")
        try writeBytes(Array("{\"format\": \"something-else\"}".utf8), to: other)
        #expect(try runProcess(ycft, ["dump", other.path]).stderr
                == "ycft: \(other.path): not a property list (neither binary 'bplist00' nor XML)\n")
    }

    // MARK: 17. verify says how it went; --quiet silences summaries; a dry run would migrate.

    @Test func verifyEndsWithASummaryThatQuietSilences() throws {
        let dir = try exported()
        let pass = try runProcess(ycft, ["verify", dir.path])
        #expect(pass.status == 0)
        #expect(pass.stderr == "ycft verify: 3 files: 3 passed, 0 failed, 0 unreadable (0 errors, 0 warnings)\n")
        #expect(pass.stdout.isEmpty)

        let warning = TestPaths.fixtures.appendingPathComponent("valid/apple-order/no-shared-group.plist").path
        let strict = try runProcess(ycft, ["verify", "--strict", warning, dir.appendingPathComponent("missing.plist").path])
        #expect(strict.status == 2)
        #expect(strict.stderr == """
        ycft: \(dir.path)/missing.plist: cannot read: No such file or directory
        \(warning): warning: [group-missing] $objects[1]: no "sharedGroup": the archive records nothing
        ycft verify: 2 files: 0 passed, 1 failed, 1 unreadable (0 errors, 1 warning)

        """)

        for flag in ["-q", "--quiet"] {
            let quiet = try runProcess(ycft, ["verify", flag, dir.path])
            #expect(quiet.status == 0)
            #expect(quiet.stderr == "")
            let findings = try runProcess(ycft, ["verify", flag, warning])
            #expect(findings.stderr == "\(warning): warning: [group-missing] $objects[1]: no \"sharedGroup\": the archive records nothing\n")
        }
    }

    @Test func migrateQuietPrintsNoSummaryAndADryRunWouldMigrate() throws {
        let dir = try exported()
        let dry = try runProcess(ycft, ["migrate", "--dry-run", "-j", "1", dir.path])
        #expect(dry.status == 0)
        #expect(dry.stderr == "ycft migrate: 3 files: 2 would migrate, 1 unchanged, 0 skipped, 0 failed (dry run: nothing written)\n")
        let quietDry = try runProcess(ycft, ["migrate", "--dry-run", "--quiet", "-j", "1", dir.path])
        #expect(quietDry.stderr == "")
        #expect(quietDry.stdout == dry.stdout, "the listing is the product: --quiet keeps it")
        let quiet = try runProcess(ycft, ["migrate", "--in-place", "-q", dir.path])
        #expect(quiet.status == 0)
        #expect(quiet.stderr == "")
        let again = try runProcess(ycft, ["migrate", "--in-place", dir.path])
        #expect(again.stderr == "ycft migrate: 3 files: 0 migrated, 3 unchanged, 0 skipped, 0 failed\n")
    }
}
