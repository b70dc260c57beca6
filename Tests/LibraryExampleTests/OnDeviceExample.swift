// MIGRATING.md's on-device example, compiled and run: it imports only the FirstTimeMigration
// product's modules (and Foundation), as an app would.
import FirstTimeMigration
import FirstTimeCore
import Foundation
import Testing
import TestSupport   // the test's harness only (one UserDefaults test at a time); the example uses the product

/// At launch, before any gate is asked: move YCFirstTime's archive to the plain format, once.
func migrateFirstTimeState(_ defaults: UserDefaults = .standard, log: (String) -> Void) {
    do {
        let outcome = try Migration.migrate(defaults, to: .records)
        if outcome.status == .migrated { log("moved \(outcome.recordCount) records to YCFirstTime.records") }
        if let reset = outcome.resetsAll { log("the old build would have started afresh: \(reset)") }
    } catch {
        // Nothing was written: the archive is still there and an older build still reads it.
        log("YCFirstTime state left as it was: \(error)")
    }
}

/// A gate: read the state from whichever form the domain holds, record a run in the plain format.
func runOnce(_ key: String, _ defaults: UserDefaults = .standard, version: String?, now: Date = Date(),
             _ block: () -> Void) throws(Migration.Failure) {
    var records = try Migration.records(in: defaults)?.records ?? FirstTimeRecords()
    guard records[key] == nil else { return }
    block()
    records[key] = FirstTimeRecord(lastVersion: version, lastTime: now.timeIntervalSinceReferenceDate)
    try Migration.save(records, in: defaults)
}

/// A pulled release: give the previous build its archive back, in the layout YCFirstTime writes.
func rollBackFirstTimeState(_ defaults: UserDefaults = .standard) throws(Migration.Failure) {
    try Migration.migrate(defaults, to: .legacy)
}

@Suite struct OnDeviceExample {
    @Test func migrateRunAndRollBack() throws {
        try UserDefaultsTests.exclusively(example)
    }

    func example() throws {
        let suite = "ycft.example.\(getpid())"
        let defaults = try #require(UserDefaults(suiteName: suite))
        defer { defaults.removePersistentDomain(forName: suite) }
        // The device's state: YCFirstTime's archive (the bundled three-record fixture).
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fixtures/valid/ycft/three-records.plist")
        defaults.set(try Data(contentsOf: fixture), forKey: "YCFirstTime")
        defaults.set("kept", forKey: "unrelated")

        var logged: [String] = []
        migrateFirstTimeState(defaults) { logged.append($0) }
        migrateFirstTimeState(defaults) { logged.append($0) }   // the next launch: nothing to do
        #expect(logged == ["moved 3 records to YCFirstTime.records"])
        #expect(defaults.object(forKey: "YCFirstTime") == nil)

        var ran = 0
        try runOnce("onboarding.v1", defaults, version: "3.0") { ran += 1 }     // ran in the archive days
        try runOnce("tutorial", defaults, version: "3.0", now: Date(timeIntervalSinceReferenceDate: 800_000_000.25)) { ran += 1 }
        try runOnce("tutorial", defaults, version: "3.0") { ran += 1 }
        #expect(ran == 1)

        try rollBackFirstTimeState(defaults)
        #expect(defaults.object(forKey: "YCFirstTime.records") == nil)
        #expect(defaults.string(forKey: "unrelated") == "kept")
        let archive = try #require(defaults.data(forKey: "YCFirstTime"))
        let records = try LegacyArchive.read(binary: [UInt8](archive)).records
        #expect(records.map(\.key) == ["onboarding.v1", "rate.prompt", "tutorial", "whats-new"])
        #expect(records["tutorial"] == FirstTimeRecord(lastVersion: "3.0", lastTime: 800_000_000.25))
    }
}

/// MIGRATING.md shows this file's three functions, word for word.
@Suite struct OnDeviceExampleIsTheDocumentedOne {
    @Test func migratingShowsThisCode() throws {
        let here = URL(fileURLWithPath: #filePath)
        let root = here.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let guide = try String(contentsOf: root.appendingPathComponent("MIGRATING.md"), encoding: .utf8)
        let source = try String(contentsOf: here, encoding: .utf8)
        let opening = "```swift\nimport FirstTimeMigration\nimport FirstTimeCore   // the records, the outcome and the errors both products share\nimport Foundation\n\n"
        let start = try #require(guide.range(of: opening))
        let end = try #require(guide.range(of: "\n```", range: start.upperBound..<guide.endIndex))
        let shown = String(guide[start.upperBound..<end.lowerBound])
        #expect(shown.count > 500)
        #expect(source.contains(shown + "\n"), "MIGRATING.md's on-device block differs from OnDeviceExample.swift")
    }
}
