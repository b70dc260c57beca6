import Testing
import FirstTimeArchive
import FirstTimeCore
import PlistCore
import TestSupport

/// A NaN or infinite time breaks one rule, `time-non-finite`, in whichever form the state holds
/// it: the archive's `NS.time`, a plain record's `lastTime`, an `interval.<key>` number. Every
/// form asks `ContractRule.nonFiniteTime`; a migration carries the time as it is, warns of it,
/// and the state it writes breaks the same rule.
@Suite struct NonFiniteTimeForms {
    static let times: [(String, String?, Double?)] = [("nan", nil, .nan), ("up", nil, .infinity), ("down", nil, -.infinity), ("ok", nil, 1.5)]
    static let why = "interval gates misfire (YCFirstTime 2.x's days: rule never fires again for NaN and +infinity, always for -infinity)"

    func defaults(_ entries: [(String, PlistValue)]) throws -> [UInt8] {
        try PropertyList.write(.dictionary(PlistDictionary(entries.map { (key: $0.0, value: $0.1) })), format: .binary)
    }

    /// The findings of each form, by rule, path and message.
    @Test func everyFormBreaksTheSameRule() throws {
        let state = records(Self.times)
        let archive = try LegacyArchive.encode(state, format: .binary)
        let archiveFindings = StateFile.verify(archive)
        #expect(archiveFindings.map(\.rule) == [.timeNonFinite, .timeNonFinite, .timeNonFinite])
        // Records in key order: down, nan, ok, up.
        #expect(archiveFindings.map(\.message) == ["NS.time is -inf: \(Self.why)", "NS.time is nan: \(Self.why)", "NS.time is inf: \(Self.why)"])

        let plain = try defaults([("YCFirstTime.records", RecordsFormat.plist(state))])
        let base = ObjectPath.key("YCFirstTime.records").key("records")
        #expect(StateFile.verify(plain) == [
            ContractFinding(.timeNonFinite, at: base.key("down").key("lastTime"), "lastTime is -inf: \(Self.why)"),
            ContractFinding(.timeNonFinite, at: base.key("nan").key("lastTime"), "lastTime is nan: \(Self.why)"),
            ContractFinding(.timeNonFinite, at: base.key("up").key("lastTime"), "lastTime is inf: \(Self.why)"),
        ])

        let interval = try defaults([("interval.nan", .real(.nan)), ("interval.up", .real(.infinity)), ("interval.down", .real(-.infinity)),
                                     ("interval.ok", .real(1.5 + IntervalKey.epochOffset))])
        #expect(StateFile.verify(interval) == [
            ContractFinding(.timeNonFinite, at: .key("interval.nan"), "the value is nan: \(Self.why)"),
            ContractFinding(.timeNonFinite, at: .key("interval.up"), "the value is inf: \(Self.why)"),
            ContractFinding(.timeNonFinite, at: .key("interval.down"), "the value is -inf: \(Self.why)"),
        ])
        // Readable all the same: the records are the times as stored, and the state says so.
        for file in [archive, plain, interval] {
            let read = try StateFile(file).state()
            #expect(read.records.map(\.record.lastTime?.bitPattern) == state.map(\.record.lastTime?.bitPattern))
            #expect(read.findings.map(\.rule) == [.timeNonFinite, .timeNonFinite, .timeNonFinite])
        }
    }

    /// A migration moves the time as it is and says so (the source's findings): the state it
    /// writes then breaks the same rule, in every target, and a finite one passes.
    @Test func aMigrationCarriesTheRule() throws {
        let source = try defaults([("YCFirstTime", .data(try LegacyArchive.encode(records(Self.times), format: .binary)))])
        for target in Migration.Target.allCases where target != .legacy {
            let outcome = try Migration.migrate(source, to: target, options: Migration.Options(dropVersions: target == .interval))
            #expect(outcome.findings.map(\.rule) == [.timeNonFinite, .timeNonFinite, .timeNonFinite], "\(target)")
            let written = try #require(outcome.output)
            #expect(StateFile.verify(written).map(\.rule) == [.timeNonFinite, .timeNonFinite, .timeNonFinite], "\(target)")
            let back = try Migration.migrate(written, to: .legacy)
            #expect(back.findings.map(\.rule) == [.timeNonFinite, .timeNonFinite, .timeNonFinite], "\(target)")
            #expect(StateFile.verify(try #require(back.output)).map(\.rule) == [.timeNonFinite, .timeNonFinite, .timeNonFinite], "\(target)")
        }
        let finite = try defaults([("YCFirstTime", .data(try LegacyArchive.encode(records([("ok", nil, 1.5)]), format: .binary)))])
        for target in Migration.Target.allCases where target != .legacy {
            let outcome = try Migration.migrate(finite, to: target, options: Migration.Options(dropVersions: target == .interval))
            let written = try #require(outcome.output)
            #expect(outcome.findings == [] && StateFile.verify(written) == [], "\(target)")
        }
    }
}
