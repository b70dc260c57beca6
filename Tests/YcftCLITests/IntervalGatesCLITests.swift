import Foundation
import Testing
import FirstTimeArchive
import FirstTimeCore
import Plist
import PlistCore
import TestSupport

/// `interval.*` keys beside YCFirstTime's archive are a copy of its state only where they name
/// its records (`StateSource.forms`): an app's own IntervalClient gate beside the archive is not
/// YCFirstTime state, and no command removes, changes or judges it.
@Suite struct IntervalClientGatesBesideTheState {
    let ycft = TestPaths.executable("ycft")
    static let gate = (key: "interval.newfeature.tip", value: PlistValue.real(1733000000.0))

    /// The example's preferences (archive of onboarding.v1, rate.prompt, whats-new) and an
    /// IntervalClient gate of the app's own.
    static func preferences() throws -> PlistDictionary {
        let bytes = try readBytes(TestPaths.examples.appendingPathComponent("Preferences.plist"))
        guard case var .dictionary(domain) = try LibPlist.read(bytes).value else { throw CocoaError(.fileReadCorruptFile) }
        domain[gate.key] = gate.value
        return domain
    }

    func file(_ domain: PlistDictionary) throws -> URL {
        let url = try TestPaths.temporaryDirectory().appendingPathComponent("p.plist")
        try writeBytes(try PropertyList.write(.dictionary(domain), format: .binary), to: url)
        return url
    }

    func domain(_ url: URL) throws -> PlistDictionary {
        guard case let .dictionary(domain) = try LibPlist.read(try readBytes(url)).value else { throw CocoaError(.fileReadCorruptFile) }
        return domain
    }

    /// Every key but `changed` the same, in the same order, bit for bit.
    func expectOthersKept(_ before: PlistDictionary, _ after: PlistDictionary, changed: Set<String> = ["YCFirstTime"],
                          sourceLocation: SourceLocation = #_sourceLocation) {
        let keep = { (d: PlistDictionary) in d.entries.filter { !changed.contains($0.key) } }
        #expect(keep(before).map(\.key) == keep(after).map(\.key), sourceLocation: sourceLocation)
        #expect(zip(keep(before), keep(after)).allSatisfy { $0.value == $1.value }, sourceLocation: sourceLocation)
    }

    @Test func theGateIsNoFormOfTheState() throws {
        let bytes = try PropertyList.write(.dictionary(try Self.preferences()), format: .binary)
        let file = try StateFile(bytes)
        #expect(file.forms == [.defaultsArchive])
        #expect(try file.state().findings.isEmpty)
        #expect(file.check().isEmpty)
    }

    @Test func setAndUnsetLeaveTheGateAndAddNoIntervalKey() throws {
        let before = try Self.preferences()
        let url = try file(before)
        let set = try runProcess(ycft, ["set", url.path, "rate.prompt", "--last-version", "2.1.0"])
        #expect(set.status == 0)
        #expect(set.stderr == "")
        var after = try domain(url)
        expectOthersKept(before, after)
        #expect(after.map(\.key) == before.map(\.key))
        #expect(try StateFile(try readBytes(url)).state().records["rate.prompt"]?.lastVersion == "2.1.0")

        let unset = try runProcess(ycft, ["unset", url.path, "onboarding.v1"])
        #expect(unset.status == 0)
        #expect(unset.stderr == "")
        after = try domain(url)
        expectOthersKept(before, after)
        #expect(try StateFile(try readBytes(url)).state().records["onboarding.v1"] == nil)
    }

    @Test func resetRemovesOnlyTheArchive() throws {
        var before = try Self.preferences()
        let url = try file(before)
        let reset = try runProcess(ycft, ["reset", url.path])
        #expect(reset.status == 0)
        // Said, since the gates left are what the file then holds as state.
        #expect(reset.stderr.hasPrefix("ycft: \(url.path): warning: kept \"interval."), "\(reset.stderr)")
        #expect(reset.stderr.hasSuffix(", as the app's preferences are: the file now holds IntervalClient state (1 record)\n"), "\(reset.stderr)")
        before["YCFirstTime"] = nil
        #expect(try readBytes(url) == PropertyList.write(.dictionary(before), format: .binary))
    }

    @Test func verifyStatusAndDumpAcceptTheFile() throws {
        let url = try file(try Self.preferences())
        let original = try readBytes(url)
        let verify = try runProcess(ycft, ["verify", url.path])
        #expect(verify.status == 0)
        #expect(verify.stderr == "ycft verify: 1 file: 1 passed, 0 failed, 0 unreadable (0 errors, 0 warnings)\n")
        let status = try runProcess(ycft, ["status", "--now", "2025-03-01T00:00:00Z", url.path])
        #expect(status.status == 0)
        #expect(status.stderr == "")
        let dump = try runProcess(ycft, ["dump", url.path])
        #expect(dump.status == 0)
        #expect(dump.stderr == "")
        #expect(try readBytes(url) == original)
    }

    @Test func packIntoKeepsTheGate() throws {
        let before = try Self.preferences()
        let url = try file(before)
        let json = try runProcess(ycft, ["dump", url.path]).stdout
        let pack = try runProcess(ycft, ["pack", "--into", url.path, "-"], stdin: json)
        #expect(pack.status == 0)
        #expect(pack.stderr == "")
        expectOthersKept(before, try domain(url))
    }

    @Test func editAndMigrateLeaveTheGate() throws {
        let before = try Self.preferences()
        let url = try file(before)
        let env = ProcessInfo.processInfo.environment.merging(["EDITOR": "sed -i s/2.0.0/2.2.0/", "VISUAL": ""]) { $1 }
        let edit = try runProcess(ycft, ["edit", url.path], environment: env)
        #expect(edit.status == 0)
        #expect(edit.stderr == "")
        expectOthersKept(before, try domain(url))
        // The gate is no sign of a migration done: the records get their interval copies.
        let records = try runProcess(ycft, ["migrate", "--in-place", "--no-backup", url.path])
        #expect(records.status == 0)
        let interval = try runProcess(ycft, ["migrate", "--to", "interval", "--in-place", "--no-backup", url.path])
        #expect(interval.status == 0)
        #expect(interval.stderr == "ycft migrate: 1 file: 1 migrated, 0 unchanged, 0 skipped, 0 failed\n")
        let after = try domain(url)
        #expect(after.map(\.key) == ["AppleLanguages", "LaunchCount", "SoundEnabled", "Theme", "YCFirstTime.records", Self.gate.key,
                                     "interval.onboarding.v1", "interval.rate.prompt"])
        #expect(after[Self.gate.key] == Self.gate.value)
    }

    /// The copy `migrate --to interval --keep-source` writes, with the app's gate beside it.
    func copy() throws -> (URL, PlistDictionary) {
        let source = try file(try Self.preferences())
        let url = source.deletingLastPathComponent().appendingPathComponent("copy.plist")
        let migrate = try runProcess(ycft, ["migrate", "--to", "interval", "--keep-source", "-o", url.path, source.path])
        #expect(migrate.status == 0)
        let domain = try domain(url)
        #expect(domain.map(\.key) == ["AppleLanguages", "LaunchCount", "SoundEnabled", "Theme", "YCFirstTime", Self.gate.key,
                                      "YCFirstTime.records", "interval.onboarding.v1", "interval.rate.prompt"])
        return (url, domain)
    }

    @Test func aCopyIsKeptInStepAndTheGateIsLeftAlone() throws {
        let (url, before) = try copy()
        #expect(try StateFile(try readBytes(url)).forms == [.defaultsArchive, .plainRecords, .intervalKeys])
        #expect(try runProcess(ycft, ["verify", url.path]).status == 0)
        // A changed record moves its key; a removed one takes its key; a new one gets one.
        #expect(try runProcess(ycft, ["set", url.path, "rate.prompt", "--last-time", "2025-03-01T10:00:00Z"]).stderr == "")
        #expect(try runProcess(ycft, ["unset", url.path, "onboarding.v1"]).stderr == "")
        #expect(try runProcess(ycft, ["set", url.path, "tour", "--last-time", "2025-03-02T00:00:00Z"]).stderr
                == "ycft: \(url.path): warning: created record \"tour\": no record had that key\n")
        let after = try domain(url)
        expectOthersKept(before, after, changed: ["YCFirstTime", "YCFirstTime.records", "interval.onboarding.v1",
                                                  "interval.rate.prompt", "interval.tour"])
        #expect(after.map(\.key) == ["AppleLanguages", "LaunchCount", "SoundEnabled", "Theme", "YCFirstTime", Self.gate.key,
                                     "YCFirstTime.records", "interval.rate.prompt", "interval.tour"])
        #expect(after["interval.rate.prompt"] == .real(1740823200.0))
        #expect(after["interval.tour"] == .real(1740873600.0))
        let verify = try runProcess(ycft, ["verify", url.path])
        #expect(verify.status == 0)
        #expect(verify.stderr == "ycft verify: 1 file: 1 passed, 0 failed, 0 unreadable (0 errors, 0 warnings)\n")
        // reset takes the copies and leaves the gate.
        #expect(try runProcess(ycft, ["reset", url.path]).status == 0)
        #expect(try domain(url).map(\.key) == ["AppleLanguages", "LaunchCount", "SoundEnabled", "Theme", Self.gate.key])
        #expect(try domain(url)[Self.gate.key] == Self.gate.value)
    }

    @Test func aCopyThatDiffersStillFails() throws {
        let (url, before) = try copy()
        // A shared key whose time differs.
        var moved = before
        moved["interval.rate.prompt"] = .real(1.0)
        try writeBytes(try PropertyList.write(.dictionary(moved), format: .binary), to: url)
        let differs = try runProcess(ycft, ["verify", url.path])
        #expect(differs.status == 1)
        #expect(differs.stderr == "\(url.path): error: [states-disagree] file: the defaults-archive state and its interval-keys copy "
                + "differ (\"rate.prompt\"); ycft reads the defaults-archive one\n"
                + "ycft verify: 1 file: 0 passed, 1 failed, 0 unreadable (1 error, 0 warnings)\n")
        // A record with a time that the copy lacks.
        var missing = before
        missing["interval.onboarding.v1"] = nil
        try writeBytes(try PropertyList.write(.dictionary(missing), format: .binary), to: url)
        let lacks = try runProcess(ycft, ["verify", url.path])
        #expect(lacks.status == 1)
        #expect(lacks.stderr == "\(url.path): error: [states-disagree] file: the defaults-archive state and its interval-keys copy "
                + "differ (\"onboarding.v1\"); ycft reads the defaults-archive one\n"
                + "ycft verify: 1 file: 0 passed, 1 failed, 0 unreadable (1 error, 0 warnings)\n")
    }
}
