import Foundation
import Testing
import FirstTimeArchive
import FirstTimeCore
import Plist
import PlistCore

/// Seconds since 2001 for a UTC instant written `YYYY-MM-DDTHH:MM:SS[.f]Z`.
func at(_ text: String) -> Double {
    let parsed = ExactTime.parseUTC(text)!
    return ExactTime.secondsSince2001(seconds: parsed.seconds, fraction: parsed.fraction)
}

func calendar(_ zone: String = "UTC") -> Calendar {
    var c = Calendar(identifier: .gregorian)
    c.timeZone = TimeZone(identifier: zone)!
    return c
}

func decide(_ rule: GateRule, _ record: FirstTimeRecord?, now: Double, version: String? = "1.0", zone: String = "UTC",
            library: LibraryVersion = .v2) -> GateDecision {
    RunRules.decide(rule, record: record, now: now, appVersion: version, calendar: calendar(zone), library: library)
}

@Suite struct YCFirstTimeRules {
    let now = at("2025-06-01T12:00:00Z")

    @Test func onceRunsOnlyWhenNeverRecorded() {
        #expect(decide(.once, nil, now: now) == GateDecision(wouldRun: true, nextEligible: now))
        #expect(decide(.once, FirstTimeRecord(lastVersion: nil, lastTime: nil), now: now) == GateDecision(wouldRun: false, nextEligible: nil))
        #expect(decide(.once, FirstTimeRecord(lastVersion: "1.0", lastTime: now - 1), now: now).wouldRun == false)
    }

    @Test(arguments: [
        ("1.0", "1.0", false), ("1.0", "1.0.0", true), ("1.0.0", "1.0", true), (nil, "1.0", true),
        ("1.0", nil, true), (nil, nil, false),
        // Swift's String == is canonical equivalence: these are the same version to 2.x.
        ("é", "e\u{301}", false), ("\u{C5}.0", "\u{212B}.0", false), ("\u{AC00}", "\u{1100}\u{1161}", false),
    ] as [(String?, String?, Bool)])
    func perVersionComparesAsSwiftStrings(_ recorded: String?, _ current: String?, _ runs: Bool) {
        let decision = decide(.perVersion, FirstTimeRecord(lastVersion: recorded, lastTime: 0), now: now, version: current)
        #expect(decision.wouldRun == runs)
        #expect(decision.nextEligible == (runs ? now : nil))
    }

    /// 1.x: `[currentVersion isEqualToString:blockInfo.lastVersion]`, UTF-16 units literally; a
    /// nil on either side is NO, so the gate runs.
    @Test(arguments: [
        ("1.0", "1.0", false), ("1.0", "1.0.0", true), (nil, "1.0", true), ("1.0", nil, true), (nil, nil, true),
        ("é", "e\u{301}", true), ("\u{C5}.0", "\u{212B}.0", true), ("\u{AC00}", "\u{1100}\u{1161}", true),
    ] as [(String?, String?, Bool)])
    func perVersionIn1xComparesCodeUnits(_ recorded: String?, _ current: String?, _ runs: Bool) {
        let decision = decide(.perVersion, FirstTimeRecord(lastVersion: recorded, lastTime: 0), now: now, version: current, library: .v1)
        #expect(decision == (runs ? GateDecision(wouldRun: true, nextEligible: now) : .never))
    }

    @Test func perVersionRunsWhenNeverRecorded() {
        #expect(decide(.perVersion, nil, now: now, version: nil).wouldRun)
    }

    @Test func halfADayIsTwelveHoursToTheSecond() {
        let last = at("2025-06-01T00:00:00Z")
        let record = FirstTimeRecord(lastVersion: "1.0", lastTime: last)
        #expect(decide(.everyDays(0.5), record, now: at("2025-06-01T11:59:59Z")) == GateDecision(wouldRun: false, nextEligible: at("2025-06-01T12:00:00Z")))
        #expect(decide(.everyDays(0.5), record, now: at("2025-06-01T12:00:00Z")).wouldRun)
    }

    @Test func legacyDivisorMakesDays23AndAHalfHours() {
        let last = at("2025-06-01T00:00:00Z")
        let record = FirstTimeRecord(lastVersion: nil, lastTime: last)
        // 84,600 s = 23 h 30 min.
        #expect(decide(.everyDays(1), record, now: last + 84_600, library: .v1).wouldRun)
        #expect(!decide(.everyDays(1), record, now: last + 84_599, library: .v1).wouldRun)
        #expect(!decide(.everyDays(1), record, now: last + 84_600).wouldRun)
        #expect(decide(.everyDays(1), record, now: last + 86_399).nextEligible == last + 86_400)
    }

    /// 1.x's own arithmetic: `float differenceInSeconds = ...; differenceInSeconds/84600 < days`.
    /// The elapsed time rounds to a float (steps of 1/128 s near a day), so the gate is due a
    /// few milliseconds before 84,600 s; any non-zero days counts (NaN and negatives run every
    /// time, 0 is once); a record without lastTime counts from the reference date (a message
    /// to nil gives 0).
    @Test func oneXCountsInFloatAndRunsForAnyNonZeroDays() throws {
        func due1x(_ t: Double, _ last: Double, _ days: Float) -> Bool { !(Float(t - last) / 84_600 < days) }
        let record = FirstTimeRecord(lastVersion: nil, lastTime: 0)
        let next = try #require(decide(.everyDays(1), record, now: 1, library: .v1).nextEligible)
        #expect(next < 84_600 && next > 84_599.99)
        #expect(due1x(next, 0, 1) && !due1x(next.nextDown, 0, 1))
        #expect(decide(.everyDays(1), record, now: next, library: .v1).wouldRun)
        #expect(!decide(.everyDays(1), record, now: next.nextDown, library: .v1).wouldRun)
        for days: Float in [.nan, -1, -0.5] {
            #expect(decide(.everyDays(days), record, now: 1, library: .v1) == GateDecision(wouldRun: true, nextEligible: 1), "\(days)")
            #expect(decide(.everyDays(days), record, now: 1) == .never, "2.x: \(days)")
        }
        #expect(decide(.everyDays(0), record, now: 1e9, library: .v1) == .never)
        let timeless = FirstTimeRecord(lastVersion: "1", lastTime: nil)
        #expect(decide(.everyDays(1), timeless, now: 84_600, library: .v1).wouldRun)
        #expect(decide(.everyDays(1), timeless, now: 100, library: .v1).nextEligible == next)
        #expect(decide(.everyDays(1), timeless, now: 84_600) == .never)
    }

    /// The next eligible moment is the first double at which 2.x's own expression holds,
    /// `Date.timeIntervalSince(lastTime) / 86_400 >= Double(days)`, however the subtraction
    /// rounds: before 2001 and after it, and for huge values.
    @Test(arguments: [
        (-978_307_200.123_456_7, Float(100)), (-1e9 + 0.3, 365), (-0.1, 1000), (1e15 + 0.5, 7), (-3e18, 1e6), (9e18, 0.001),
        (-1.5e17, 3.7), (123.456, 0.1),
    ] as [(Double, Float)])
    func theNextMomentIsTheFirstDoubleWhereTheExpressionHolds(_ last: Double, _ days: Float) throws {
        func due(_ t: Double) -> Bool {
            Date(timeIntervalSinceReferenceDate: t).timeIntervalSince(Date(timeIntervalSinceReferenceDate: last)) / 86_400 >= Double(days)
        }
        let record = FirstTimeRecord(lastVersion: nil, lastTime: last)
        let next = try #require(decide(.everyDays(days), record, now: last, library: .v2).nextEligible)
        #expect(due(next) && !due(next.nextDown), "\(last) \(days): \(next)")
    }

    /// No finite moment is "never", and "never" is null: a last run at the largest double is
    /// never due; one so far back that the subtraction overflows to infinity is due at a finite
    /// moment even for infinite days.
    @Test func theEdgesOfTheDoubles() throws {
        let top = FirstTimeRecord(lastVersion: nil, lastTime: .greatestFiniteMagnitude)
        #expect(decide(.everyDays(1), top, now: 0) == .never)
        let bottom = FirstTimeRecord(lastVersion: nil, lastTime: -.greatestFiniteMagnitude)
        let forever = decide(.everyDays(.infinity), bottom, now: 0)
        #expect(!forever.wouldRun)
        let next = try #require(forever.nextEligible)
        #expect(next.isFinite && (next - -.greatestFiniteMagnitude) == .infinity && (next.nextDown - -.greatestFiniteMagnitude).isFinite)
    }

    @Test func floatDaysAreYCFirstTimesFloat() {
        // days: Float(0.1) is 0.100000001490116..., so the boundary is 8640.000128746 s later.
        let record = FirstTimeRecord(lastVersion: nil, lastTime: 0)
        let next = decide(.everyDays(0.1), record, now: 1).nextEligible!
        #expect(next == Double(Float(0.1)) * 86_400)
        #expect(!decide(.everyDays(0.1), record, now: next.nextDown).wouldRun)
        #expect(decide(.everyDays(0.1), record, now: next).wouldRun)
    }

    @Test func aRecordWithoutTimeNeverRerunsAndNonFiniteTimesMisfireAsYCFirstTimeWould() {
        // alreadyExecuted: `if days > 0, let lastTime = info.lastTime { ... }` else executed.
        #expect(decide(.everyDays(1), FirstTimeRecord(lastVersion: "1", lastTime: nil), now: now) == GateDecision(wouldRun: false, nextEligible: nil))
        #expect(decide(.everyDays(1), nil, now: now) == GateDecision(wouldRun: true, nextEligible: now))
        #expect(decide(.everyDays(1), FirstTimeRecord(lastVersion: nil, lastTime: .nan), now: now) == GateDecision(wouldRun: false, nextEligible: nil))
        #expect(decide(.everyDays(1), FirstTimeRecord(lastVersion: nil, lastTime: .infinity), now: now) == GateDecision(wouldRun: false, nextEligible: nil))
        #expect(decide(.everyDays(1), FirstTimeRecord(lastVersion: nil, lastTime: -.infinity), now: now).wouldRun)
    }
}

@Suite struct IntervalClientRules {
    @Test(arguments: [
        ("2024-01-31T12:00:00Z", "2024-02-29T12:00:00Z"),  // leap year: clamps to Feb 29
        ("2023-01-31T12:00:00Z", "2023-02-28T12:00:00Z"),  // non-leap: Feb 28
        ("2024-03-31T00:00:00Z", "2024-04-30T00:00:00Z"),
        ("2024-02-29T08:00:00Z", "2024-03-29T08:00:00Z"),
    ])
    func monthlyClampsToTheMonthsEnd(_ last: String, _ next: String) {
        let record = FirstTimeRecord(lastVersion: nil, lastTime: at(last))
        #expect(decide(.calendar(.monthly), record, now: at(last) + 1) == GateDecision(wouldRun: false, nextEligible: at(next)))
        #expect(decide(.calendar(.monthly), record, now: at(next)).wouldRun)
        #expect(!decide(.calendar(.monthly), record, now: at(next) - 0.000_001).wouldRun)
    }

    @Test func yearlyFromFebruary29() {
        let record = FirstTimeRecord(lastVersion: nil, lastTime: at("2024-02-29T00:00:00Z"))
        #expect(decide(.calendar(.yearly), record, now: at("2024-03-01T00:00:00Z")).nextEligible == at("2025-02-28T00:00:00Z"))
    }

    @Test func weeklyAcrossADaylightSavingChange() {
        // Paris moves to summer time on 2025-03-30: a calendar week is 167 hours.
        let last = at("2025-03-27T09:00:00Z") // 10:00 in Paris
        let record = FirstTimeRecord(lastVersion: nil, lastTime: last)
        let paris = decide(.calendar(.weekly), record, now: last + 1, zone: "Europe/Paris")
        #expect(paris.nextEligible == at("2025-04-03T08:00:00Z")) // 10:00 in Paris again
        let utc = decide(.calendar(.weekly), record, now: last + 1, zone: "UTC")
        #expect(utc.nextEligible == at("2025-04-03T09:00:00Z"))
    }

    @Test func dailyAcrossADaylightSavingChangeIsTwentyThreeHours() {
        let last = at("2025-03-29T23:00:00Z") // midnight in Paris, the night the clocks move
        let record = FirstTimeRecord(lastVersion: nil, lastTime: last)
        #expect(decide(.calendar(.daily), record, now: last, zone: "Europe/Paris").nextEligible == last + 23 * 3600)
    }

    @Test func customIntervalsAndNeverRun() {
        let last = at("2025-06-01T00:00:00Z")
        let record = FirstTimeRecord(lastVersion: nil, lastTime: last)
        #expect(decide(.calendar(CalendarInterval(.minute, 90)), record, now: last).nextEligible == last + 5400)
        #expect(decide(.calendar(CalendarInterval(.hour, 2)), record, now: last + 7200) == GateDecision(wouldRun: true, nextEligible: last + 7200))
        #expect(decide(.calendar(.hourly), nil, now: last) == GateDecision(wouldRun: true, nextEligible: last))
    }
}

@Suite struct GateRuleParsing {
    @Test(arguments: [
        ("once", GateRule.once), ("per-version", .perVersion), ("days:0.5", .everyDays(0.5)), ("days:3", .everyDays(3)),
        ("hourly", .calendar(.hourly)), ("weekly", .calendar(.weekly)), ("every:2weekOfYear", .calendar(CalendarInterval(.weekOfYear, 2))),
        ("every:1dayOfYear", .calendar(CalendarInterval(.dayOfYear, 1))), ("every:1isLeapMonth", .calendar(CalendarInterval(.isLeapMonth, 1))),
        ("every:90minute", .calendar(CalendarInterval(.minute, 90))), ("every:1day", .calendar(.daily)),
        ("days:-1", .everyDays(-1)), ("days:0", .everyDays(0)), ("every:0minute", .calendar(CalendarInterval(.minute, 0))),
        ("every:3weekday", .calendar(CalendarInterval(.weekday, 3))), ("every:-2yearForWeekOfYear", .calendar(CalendarInterval(.yearForWeekOfYear, -2))),
        ("every:1weekOfMonth", .calendar(CalendarInterval(.weekOfMonth, 1))), ("every:7nanosecond", .calendar(CalendarInterval(.nanosecond, 7))),
        ("every:1quarter", .calendar(CalendarInterval(.quarter, 1))), ("every:1era", .calendar(CalendarInterval(.era, 1))),
    ])
    func parses(_ text: String, _ rule: GateRule) {
        #expect(GateRule(parsing: text) == rule)
    }

    @Test(arguments: ["", "twice", "every:", "every:d", "every:1fortnight", "every:1week", "every:xday", "every:1.5day", "every:99999999999999999999year"])
    func rejects(_ text: String) {
        #expect(GateRule(parsing: text) == nil)
    }
}
