import Foundation
import Testing
import FirstTimeArchive
import FirstTimeCore
import Plist
import PlistCore
import TestSupport

/// YCFirstTime's `executeOncePerInterval` as its code computes it (`alreadyExecuted`), and
/// IntervalClient's calendar rules as Foundation computes them.
@Suite struct LibrarySemantics {
    let last = at("2025-06-01T12:00:00Z")

    @Test(arguments: [Float(0), -1, -0.0, .nan, -.infinity])
    func daysAtOrBelowZeroBehaveAsExecuteOnce(_ days: Float) {
        let record = FirstTimeRecord(lastVersion: "1", lastTime: last)
        // Years later, the key still counts as executed.
        #expect(decide(.everyDays(days), record, now: last + 1e9) == GateDecision(wouldRun: false, nextEligible: nil))
        #expect(decide(.everyDays(days), nil, now: last) == GateDecision(wouldRun: true, nextEligible: last))
    }

    @Test func theBoundaryInstantRuns() {
        // elapsed / 86_400 >= Double(days): at exactly one day, the block runs (>=, not >).
        let record = FirstTimeRecord(lastVersion: nil, lastTime: last)
        #expect(decide(.everyDays(1), record, now: last + 86_400).wouldRun)
        #expect(!decide(.everyDays(1), record, now: (last + 86_400).nextDown).wouldRun)
        // Float(0.1) widened is 0.100000001490116...: the boundary is 8,640.000128746033 s later.
        let zero = FirstTimeRecord(lastVersion: nil, lastTime: 0)
        #expect(Double(Float(0.1)) * 86_400 == 8640.000128746033)
        #expect(decide(.everyDays(0.1), zero, now: 8640.000128746033).wouldRun)
        #expect(!decide(.everyDays(0.1), zero, now: (8640.000128746033).nextDown).wouldRun)
        #expect(decide(.everyDays(0.1), zero, now: 8640).nextEligible == 8640.000128746033)
    }

    /// IntervalClient's `shouldRun` on a defaults file: `interval.<key>` read with
    /// `as? TimeInterval`; a value that is not a number runs the gate, with a warning.
    @Test func intervalValuesThatAreNotNumbersRunTheGate() throws {
        let now = at("2025-06-02T12:00:00Z")
        let stored = last + IntervalKey.epochOffset
        let file = try PropertyList.write(.dictionary(PlistDictionary([
            ("interval.text", .string("yesterday")), ("interval.int", .integer(.signed(Int64(stored)))),
            ("interval.huge", .integer(.signed(9_007_199_254_740_993))), ("interval.real", .real(stored)),
            ("interval.flag", .bool(true)), ("other", .string("kept")),
        ])), format: .binary)
        let state = try StateFile(file).state()
        #expect(state.form == .intervalKeys)
        #expect(state.records["text"] == nil)
        #expect(state.records["huge"] == nil)  // 2^53 + 1 has no exact double: as? TimeInterval fails
        #expect(state.records["int"]?.lastTime == last)
        #expect(state.records["real"]?.lastTime == last)
        #expect(state.records["flag"]?.lastTime == 1 - IntervalKey.epochOffset)
        #expect(state.findings == [
            ContractFinding(.intervalValue, at: .key("interval.text"), "holds string, not a number IntervalClient can read: its gate runs as if it never ran"),
            ContractFinding(.intervalValue, at: .key("interval.huge"), "holds integer, not a number IntervalClient can read: its gate runs as if it never ran"),
        ])
        #expect(RunRules.decide(.calendar(.daily), record: state.records["text"], now: now, appVersion: nil, calendar: calendar()).wouldRun)
        #expect(!RunRules.decide(.calendar(.weekly), record: state.records["int"], now: now, appVersion: nil, calendar: calendar()).wouldRun)
    }

    /// ycft's answer for IntervalClient's rules against Foundation's own `Calendar`, computed here
    /// independently from the stored seconds since 1970, for 12,000 generated cases around DST
    /// changes, month ends and leap days, in several time zones, for every component and for
    /// zero and negative counts.
    @Test func calendarRulesAgreeWithFoundation() throws {
        let zones = ["UTC", "Europe/Paris", "America/New_York", "Australia/Lord_Howe", "Pacific/Apia", "Asia/Kolkata",
                     "America/Santiago", "Pacific/Chatham"]
        let anchors = ["2024-02-29T12:00:00Z", "2024-03-10T06:30:00Z", "2024-03-31T00:59:59Z", "2024-10-27T00:30:00Z",
                       "2024-11-03T05:59:59.5Z", "2023-01-31T23:00:00Z", "2024-12-31T23:59:59Z", "2011-12-29T10:00:00Z",
                       "2025-04-06T01:45:00Z", "2000-02-29T00:00:00Z"].map(at)
        var rng = SplitMix64(seed: 0xCA1E_0DA5)
        var cases = 0, ran = 0
        for _ in 0..<12_000 {
            let zone = zones[Int(rng.next() % UInt64(zones.count))]
            let unit = CalendarInterval.Unit.allCases[Int(rng.next() % UInt64(CalendarInterval.Unit.allCases.count))]
            let value = [-3, -1, 0, 1, 1, 2, 5, 13, 400][Int(rng.next() % 9)]
            let lastRun = anchors[Int(rng.next() % UInt64(anchors.count))] + Double(Int(rng.next() % 7_200)) - 3_600
            // Stored as IntervalClient stores it, read back as ycft reads it.
            let stored = lastRun + IntervalKey.epochOffset
            let file = try PropertyList.write(.dictionary(PlistDictionary([("interval.k", .real(stored))])), format: .binary)
            let record = try StateFile(file).state().records["k"]
            var foundation = Calendar(identifier: .gregorian)
            foundation.timeZone = try #require(TimeZone(identifier: zone))
            let next = foundation.date(byAdding: unit.component, value: value, to: Date(timeIntervalSince1970: stored))
            let offsets: [Double] = [-86_400, -1, -0.001, 0, 0.001, 1, 86_400 * 40]
            let now = (next?.timeIntervalSinceReferenceDate ?? lastRun) + offsets[Int(rng.next() % UInt64(offsets.count))]
            let expected = next.map { Date(timeIntervalSinceReferenceDate: now) >= $0 } ?? true
            let decision = RunRules.decide(.calendar(CalendarInterval(unit, value)), record: record, now: now, appVersion: nil,
                                           calendar: foundation)
            #expect(decision.wouldRun == expected, "\(zone) \(value) \(unit) after \(stored) at \(now)")
            if !expected { #expect(decision.nextEligible == next?.timeIntervalSinceReferenceDate) }
            cases += 1
            if expected { ran += 1 }
        }
        #expect(cases == 12_000)
        #expect(ran > 3_000 && ran < 11_000, "both answers exercised: \(ran) ran")
    }
}
