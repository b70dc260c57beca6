import Foundation
import Testing
import FirstTimeArchive
import FirstTimeCore
import Plist
import PlistCore
import TestSupport

/// One directory walk for migrate and verify: trees, --include, and a word when nothing matched.
@Suite struct DirectoryWalks {
    let ycft = TestPaths.executable("ycft")
    let archive = TestPaths.fixtures.appendingPathComponent("valid/ycft/three-records.plist")
    let defaults = TestPaths.fixtures.appendingPathComponent("valid/defaults/export.binary.plist")

    func tree(_ files: [(String, URL)]) throws -> URL {
        let dir = try TestPaths.temporaryDirectory()
        for (name, source) in files {
            let url = dir.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: source, to: url)
        }
        return dir
    }

    @Test func verifyTakesDirectoriesAndPrintsOneDocument() throws {
        let dir = try tree([("t/a.plist", archive), ("t/sub/b.plist", defaults), ("t/notes.txt", archive)])
        let result = try runProcess(ycft, ["verify", "--format", "junit", dir.appendingPathComponent("t").path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdoutText.components(separatedBy: "<?xml").count == 2)
        #expect(junitTimesHidden(result.stdoutText)?.contains(#"<testsuites name="ycft verify" tests="2" failures="0" errors="0" time="…">"#) == true)
        #expect(result.stdoutText.contains("t/sub/b.plist"))
        #expect(!result.stdoutText.contains("notes.txt"))
    }

    @Test func includeChoosesOtherNamesAndAnUnmatchedDirectoryIsNamed() throws {
        let dir = try tree([("t/x.bplist", defaults), ("t/y.xml", defaults)])
        let t = dir.appendingPathComponent("t").path
        // Nothing to migrate is trouble (a wrong path must not pass), unless --allow-empty.
        let none = try runProcess(ycft, ["migrate", "--dry-run", t])
        #expect(none.status == 2)
        #expect(none.stderr.hasPrefix("ycft: \(t): nothing to migrate: no file matches *.plist (2 other files); choose them with --include GLOB, or pass --allow-empty\n"))
        let allowed = try runProcess(ycft, ["migrate", "--dry-run", "--allow-empty", t])
        #expect(allowed.status == 0)
        #expect(allowed.stderr.hasPrefix("ycft: \(t): no file matches *.plist (2 other files); choose them with --include GLOB\n"))
        let some = try runProcess(ycft, ["migrate", "--dry-run", "--include", "*.bplist", "--include=*.xml", t])
        #expect(some.stdoutText == "\(t)/x.bplist: would migrate 3 records: +\"YCFirstTime.records\" -\"YCFirstTime\"\n"
                + "\(t)/y.xml: would migrate 3 records: +\"YCFirstTime.records\" -\"YCFirstTime\"\n")
        let verify = try runProcess(ycft, ["verify", "--include", "*.bplist", t])
        #expect(verify.status == 0)
        #expect(verify.stderr == "ycft verify: 1 file: 1 passed, 0 failed, 0 unreadable (0 errors, 0 warnings)\n")
    }

    @Test func theDryRunListingHasOneOrderWhateverTheJobs() throws {
        let dir = try tree((0..<60).map { ("t/f\(String(format: "%02d", $0)).plist", defaults) })
        let t = dir.appendingPathComponent("t").path
        let runs = try (0..<3).map { _ in try runProcess(ycft, ["migrate", "--dry-run", "-j2", t]).stdoutText }
        #expect(Set(runs).count == 1)
        let paths = runs[0].split(separator: "\n").map { String($0.prefix { $0 != ":" }) }
        #expect(paths == paths.sorted())
        #expect(paths.count == 60)
    }

    @Test func shortOptionsTakeAttachedValuesAndStatusTakesAnInputLimit() throws {
        let dir = try tree([("a.plist", defaults)])
        let attached = try runProcess(ycft, ["migrate", "-j1", "-o\(dir.appendingPathComponent("out.plist").path)", dir.appendingPathComponent("a.plist").path])
        #expect(attached.status == 0, "\(attached.stderr)")
        #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("out.plist").path))
        let limited = try runProcess(ycft, ["status", "--max-input-size", "100", dir.appendingPathComponent("a.plist").path])
        #expect(limited.status == 1)
        #expect(limited.stderr.hasSuffix("input is larger than the limit of 100 bytes (raise it with --max-input-size)\n"))
    }
}

/// status that cannot mislead, --compact wherever JSON is printed, hints that point the right way.
@Suite struct EverydayFixes {
    let archive = TestPaths.fixtures.appendingPathComponent("valid/ycft/three-records.plist")

    @Test func aPerVersionGateNeedsTheAppsVersion() throws {
        let bytes = try readBytes(archive)
        let missing = FakeIO(files: ["a": bytes])
        #expect(missing.run(["status", "--gate", "rate.prompt=per-version", "a"]) == 2)
        #expect(missing.stderr.hasPrefix("Error: The gate 'rate.prompt=per-version' needs the app's version: pass --app-version VERSION (its CFBundleShortVersionString), or --no-app-version for an app without one\n"))
        let none = FakeIO(files: ["a": bytes])
        #expect(none.run(["status", "--no-app-version", "--gate", "whats-new=per-version", "a"]) == 0)
        #expect(none.stdoutText.contains("whats-new  per-version  no        when the app version changes"))
    }

    @Test func aLocalTimeColumnOnlyWithATimeZone() throws {
        let utc = FakeIO(files: ["a": try readBytes(archive)])
        #expect(utc.run(["status", "--now", "2025-01-02T00:00:00Z", "a"]) == 0)
        #expect(utc.stdoutText.contains("KEY            LAST VERSION  LAST TIME (UTC)              AGE\n"))
        let paris = FakeIO(files: ["a": try readBytes(archive)])
        #expect(paris.run(["status", "--now", "2025-01-02T00:00:00Z", "--time-zone", "Europe/Paris", "a"]) == 0)
        #expect(paris.stdoutText.contains("LAST TIME (UTC)              LAST TIME (Europe/Paris)          AGE\n"))
    }

    @Test func compactJSONEverywhere() throws {
        let bytes = try readBytes(archive)
        let status = FakeIO(files: ["a": bytes])
        #expect(status.run(["status", "--format", "json", "--compact", "--now", "2025-01-02T00:00:00Z", "a"]) == 0)
        #expect(status.stdoutText.hasPrefix(#"{"formatVersion":1,"now":"2025-01-02T00:00:00.000000Z","#))
        #expect(status.stdoutText.filter { $0 == "\n" }.count == 1)
        let verify = FakeIO(files: ["a": bytes])
        #expect(verify.run(["verify", "--format", "json", "--compact", "a"]) == 0)
        #expect(verify.stdoutText.hasPrefix(#"{"formatVersion":1,"#))
        #expect(verify.stdoutText.filter { $0 == "\n" }.count == 1)
        let dir = try TestPaths.temporaryDirectory()
        try FileManager.default.copyItem(at: TestPaths.fixtures.appendingPathComponent("valid/defaults/export.binary.plist"),
                                         to: dir.appendingPathComponent("p.plist"))
        let migrate = try runProcess(TestPaths.executable("ycft"), ["migrate", "--dry-run", "--compact", "--report", "-", dir.path])
        #expect(migrate.stdoutText.hasSuffix("\n"))
        #expect(migrate.stdoutText.split(separator: "\n").last?.hasPrefix(#"{"formatVersion":1,"target":"records","#) == true)
    }

    @Test func anXMLFailureNamesTheBinaryWayOut() throws {
        let dir = try TestPaths.temporaryDirectory()
        let file = dir.appendingPathComponent("ctl.plist")
        let exported = try #require(LibPlist.read(readBytes(TestPaths.fixtures.appendingPathComponent("valid/defaults/export.binary.plist"))).value.dictionaryValue)
        var entries = exported.entries
        entries.append(("k\u{1}ey", .integer(.signed(1))))
        try writeBytes(try PropertyList.write(.dictionary(PlistDictionary(entries)), format: .binary), to: file)
        let xml = try runProcess(TestPaths.executable("ycft"), ["migrate", "--dry-run", "--plist-format", "xml", file.path])
        #expect(xml.status == 1)
        #expect(xml.stderr.contains("(--plist-format binary writes it)\n"))
        let binary = try runProcess(TestPaths.executable("ycft"), ["migrate", "--dry-run", "--plist-format", "binary", file.path])
        #expect(binary.status == 0)
    }
}
