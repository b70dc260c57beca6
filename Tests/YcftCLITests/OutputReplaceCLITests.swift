import Foundation
import Testing
import FirstTimeArchive
import FirstTimeCore
import Plist
import PlistCore
import TestSupport

/// `-o OUT` never replaces a preferences file whose preferences the output would lose or
/// change, unless `--force` (`StateFile.preferencesLost` decides, for `pack` and `migrate`).
@Suite struct OutputOverPreferences {
    let ycft = TestPaths.executable("ycft")
    static let examples = TestPaths.examples

    func copy(_ name: String, as target: String, in directory: URL) throws -> URL {
        let url = directory.appendingPathComponent(target)
        try writeBytes(try readBytes(Self.examples.appendingPathComponent(name)), to: url)
        return url
    }

    @Test func packDoesNotReplaceAPreferencesFile() throws {
        let dir = try TestPaths.temporaryDirectory()
        let prefs = try copy("Preferences.plist", as: "Preferences.plist", in: dir)
        let original = try readBytes(prefs)
        let json = try runProcess(ycft, ["dump", prefs.path]).stdout
        let pack = try runProcess(ycft, ["pack", "-o", prefs.path, "-"], stdin: json)
        #expect(pack.status == 2)
        #expect(pack.stderr == "ycft: \(prefs.path): not replaced: it holds preferences the output would lose or change "
                + "(\"AppleLanguages\", \"LaunchCount\", \"SoundEnabled\", \"Theme\"); nothing was written. "
                + "Use 'ycft pack --into \(prefs.path)' to put the archive into it, or --force to replace it\n")
        #expect(pack.stdout == [])
        let after = try readBytes(prefs)
        #expect(after == original, "\(firstDifference(after, original))")
        // --force replaces it with the archive, as before.
        let forced = try runProcess(ycft, ["pack", "--force", "-o", prefs.path, "-"], stdin: json)
        #expect(forced.status == 0)
        #expect(forced.stderr == "")
        #expect(try readBytes(prefs) == runProcess(ycft, ["pack", "-"], stdin: json).stdout)
    }

    /// `pack -o records.json records.json` (or through a link to it) would replace the records
    /// with their archive: refused, with or without --force, the records untouched.
    @Test func packDoesNotReplaceItsInput() throws {
        let dir = try TestPaths.temporaryDirectory()
        let prefs = try copy("Preferences.plist", as: "Preferences.plist", in: dir)
        let json = dir.appendingPathComponent("records.json")
        try writeBytes(try runProcess(ycft, ["dump", prefs.path]).stdout, to: json)
        let original = try readBytes(json)
        let link = dir.appendingPathComponent("link.json")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "records.json")
        for (output, force) in [(json.path, false), (json.path, true), (link.path, false)] {
            let pack = try runProcess(ycft, ["pack"] + (force ? ["--force"] : []) + ["-o", output, json.path])
            #expect(pack.status == 2)
            #expect(pack.stderr == "ycft: \(output): the output is the input \(json.path); nothing was written\n")
            #expect(try readBytes(json) == original)
        }
    }

    @Test func packReplacesAnArchiveAndWhatHoldsNoPreferences() throws {
        let dir = try TestPaths.temporaryDirectory()
        let prefs = try copy("Preferences.plist", as: "Preferences.plist", in: dir)
        let json = try runProcess(ycft, ["dump", prefs.path]).stdout
        let archive = try runProcess(ycft, ["pack", "-"], stdin: json).stdout
        let out = dir.appendingPathComponent("YCFirstTime.archive")
        for existing in [archive, Array("not a plist\n".utf8), try PropertyList.write(.dictionary(PlistDictionary([
            ("YCFirstTime", .data(archive)), ("YCFirstTime.records", .string("old")),
        ])), format: .xml)] {
            try writeBytes(existing, to: out)
            let pack = try runProcess(ycft, ["pack", "-o", out.path, "-"], stdin: json)
            #expect(pack.status == 0)
            #expect(pack.stderr == "")
            #expect(try readBytes(out) == archive)
        }
    }

    @Test func migrateDoesNotReplaceAnotherAppsPreferences() throws {
        let dir = try TestPaths.temporaryDirectory()
        let notes = try copy("exported/com.example.notes.plist", as: "com.example.notes.plist", in: dir)
        let weather = try copy("exported/com.example.weather.plist", as: "com.example.weather.plist", in: dir)
        let original = try readBytes(weather)
        let migrate = try runProcess(ycft, ["migrate", "-o", weather.path, notes.path])
        #expect(migrate.status == 2)
        #expect(migrate.stderr == "ycft: \(weather.path): not replaced: it holds preferences the output would lose or change "
                + "(\"Units\", \"RefreshMinutes\"); nothing was written. Use --force to replace it\n"
                + "ycft migrate: 1 file: 0 migrated, 0 unchanged, 0 skipped, 1 failed\n")
        let after = try readBytes(weather)
        #expect(after == original, "\(firstDifference(after, original))")
        let forced = try runProcess(ycft, ["migrate", "--force", "-o", weather.path, notes.path])
        #expect(forced.status == 0)
        let expected = dir.appendingPathComponent("expected.plist")
        #expect(try runProcess(ycft, ["migrate", "-o", expected.path, notes.path]).status == 0)
        #expect(try readBytes(weather) == readBytes(expected))
    }

    @Test func aRerunOverItsOwnOutputNeedsNoForce() throws {
        let dir = try TestPaths.temporaryDirectory()
        let notes = try copy("exported/com.example.notes.plist", as: "com.example.notes.plist", in: dir)
        let out = dir.appendingPathComponent("out.plist")
        for target in ["records", "interval", "legacy"] {
            for _ in 0..<2 {
                let migrate = try runProcess(ycft, ["migrate", "--to", target, "--keep-source", "-o", out.path, notes.path])
                #expect(migrate.status == 0, "\(target): \(migrate.stderr)")
            }
        }
        // The output of one target over another's: only state keys differ.
        let interval = try runProcess(ycft, ["migrate", "--to", "interval", "-o", out.path, notes.path])
        #expect(interval.status == 0)
        let records = try runProcess(ycft, ["migrate", "--to", "records", "-o", out.path, notes.path])
        #expect(records.status == 0, "\(records.stderr)")
    }

    @Test func theRuleNamesOnlyPreferences() throws {
        let archive = try LegacyArchive.encode(try FirstTimeRecords([("k", FirstTimeRecord(lastTime: 1))]), format: .binary)
        func plist(_ entries: [(key: String, value: PlistValue)]) throws -> [UInt8] {
            try PropertyList.write(.dictionary(PlistDictionary(entries)), format: .binary)
        }
        let existing = try plist([("Theme", .string("dark")), ("YCFirstTime", .data(archive)),
                                  ("interval.k", .real(978307201)), ("interval.gate", .real(5))])
        // The interval copy of "k" is state; IntervalClient's own gate is a preference.
        #expect(StateFile.preferencesLost(replacing: existing, with: archive) == ["Theme", "interval.gate"])
        #expect(StateFile.preferencesLost(replacing: existing, with: try plist([("Theme", .string("dark")), ("interval.gate", .real(5))])) == [])
        #expect(StateFile.preferencesLost(replacing: existing, with: try plist([("Theme", .string("light")), ("interval.gate", .real(5))]))
                == ["Theme"])
        #expect(StateFile.preferencesLost(replacing: archive, with: existing) == [])
    }
}
