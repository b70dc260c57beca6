import Foundation
import Testing
import FirstTimeCore
import PlistCore
import TestSupport

/// `verify` through the real binary: a NaN or infinite time fails the one rule,
/// `time-non-finite`, in the archive, in the plain records and in `interval.*` keys alike
/// (before, only the archive's failed); `migrate` warns of it and writes it as it is.
@Suite struct NonFiniteTimeThroughTheTool {
    let ycft = TestPaths.executable("ycft")
    static let why = "interval gates misfire (YCFirstTime 2.x's days: rule never fires again for NaN and +infinity, always for -infinity)"

    func file(_ name: String, _ entries: [(String, PlistValue)]) throws -> URL {
        let url = try TestPaths.temporaryDirectory().appendingPathComponent(name)
        try writeBytes(try PropertyList.write(.dictionary(PlistDictionary(entries.map { (key: $0.0, value: $0.1) })), format: .binary), to: url)
        return url
    }

    @Test func everyFormFailsTheSameRule() throws {
        let state = records([("k", nil, .nan), ("m", nil, -.infinity)])
        let forms: [(URL, [String])] = [
            (try file("archive.plist", [("YCFirstTime", .data(try LegacyArchive.encode(state, format: .binary)))]),
             ["$objects[7].NS.time: NS.time is nan", "$objects[11].NS.time: NS.time is -inf"]),
            (try file("records.plist", [("YCFirstTime.records", RecordsFormat.plist(state))]),
             ["YCFirstTime.records.records.k.lastTime: lastTime is nan", "YCFirstTime.records.records.m.lastTime: lastTime is -inf"]),
            (try file("interval.plist", [("interval.k", .real(.nan)), ("interval.m", .real(-.infinity))]),
             ["interval.k: the value is nan", "interval.m: the value is -inf"]),
        ]
        for (url, findings) in forms {
            let verified = try runProcess(ycft, ["verify", url.path])
            #expect(verified.status == 1, "\(url.lastPathComponent)")
            #expect(verified.stdoutText == "")
            #expect(verified.stderr == findings.map { "\(url.path): error: [time-non-finite] \($0): \(Self.why)\n" }.joined()
                    + "ycft verify: 1 file: 0 passed, 1 failed, 0 unreadable (2 errors, 0 warnings)\n")
            // Read as stored, with the same warnings.
            let dumped = try runProcess(ycft, ["dump", url.path])
            #expect(dumped.status == 0)
            #expect(dumped.stderr == findings.map { "ycft: \(url.path): warning: [time-non-finite] \($0): \(Self.why)\n" }.joined())
        }
        // A migration of the archive warns of what it moves, and what it writes fails the same rule.
        let out = try TestPaths.temporaryDirectory().appendingPathComponent("migrated.plist")
        let migrated = try runProcess(ycft, ["migrate", "--to", "records", "-o", out.path, forms[0].0.path])
        #expect(migrated.status == 0)
        #expect(migrated.stderr == forms[0].1.map { "ycft: \(forms[0].0.path): warning: [time-non-finite] \($0): \(Self.why)\n" }.joined()
                + "ycft migrate: 1 file: 1 migrated, 0 unchanged, 0 skipped, 0 failed\n")
        let verified = try runProcess(ycft, ["verify", out.path])
        #expect(verified.status == 1)
        #expect(verified.stderr == forms[1].1.map { "\(out.path): error: [time-non-finite] \($0): \(Self.why)\n" }.joined()
                + "ycft verify: 1 file: 0 passed, 1 failed, 0 unreadable (2 errors, 0 warnings)\n")
    }
}
