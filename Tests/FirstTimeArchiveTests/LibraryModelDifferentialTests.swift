import Foundation
import Testing
import FirstTimeArchive
import FirstTimeCore
import TestSupport

/// `RunRules.decide` against ``LibraryModel``, a model restated from YCFirstTime 2.x (`YCFirstTime.swift`),
/// YCFirstTime 1.x (`YCFirstTime.m`) and IntervalClient, not from ycft's code. Agreement is exact: the same
/// run-now answer and the next moment equal bit for bit (nil equals nil).
///
/// Cases come from a SplitMix64 with fixed seeds: hand-picked hard cases, 16,000 YCFirstTime cases (either
/// library; once, per version, every X days with special, random and random-bit `Float` days; special, random and
/// random-bit stored times; `now` often within three ulps of the boundary; stored times before 2001 with days
/// >= 100; canonically equivalent but differently encoded versions; nil versions and times) and 8,000
/// IntervalClient cases (12 calendars × 10 time zones × first weekday × minimum days, every component, values
/// from -1,000,000 to 1,000,000, around DST changes, month ends, Feb 29, years 1 and 9999, `now` at the due date
/// or one nanosecond or ulp either side). Day cases whose model walk would pass ``LibraryModel/walkCap`` steps
/// are left out and counted (at most 1%); see ``LibraryModel``. `now` is always finite (a clock reading); calendar
/// gates over stored times NaN, ±inf and ±greatestFiniteMagnitude have their own test.
@Suite struct LibraryModelDifferential {
    static let dayCases = 16_000
    static let calendarCases = 8_000

    struct Tally {
        var compared = 0
        var undecidable = 0
        var mismatches: [String] = []
        /// How the model answered: runs now, runs later (a finite next moment), never.
        var runsNow = 0, later = 0, never = 0
        /// Cases where `now` is the last instant before the next moment (the boundary hit to the ulp).
        var lastInstantBefore = 0

        mutating func check(_ c: ModelCase, calendar: Calendar) {
            guard let model = LibraryModel.decide(c.rule, record: c.record, now: c.now, appVersion: c.appVersion,
                                                  calendar: calendar, library: c.library)
            else { undecidable += 1; return }
            let product = RunRules.decide(c.rule, record: c.record, now: c.now, appVersion: c.appVersion,
                                          calendar: calendar, library: c.library)
            compared += 1
            if model.wouldRun { runsNow += 1 } else if let next = model.nextEligible {
                later += 1
                if c.now.nextUp == next { lastInstantBefore += 1 }
            } else { never += 1 }
            let got = LibraryModel.Answer(wouldRun: product.wouldRun, nextEligible: product.nextEligible)
            if !model.sameBits(got), mismatches.count < 25 {
                mismatches.append("\(c)\n    library model: \(model)\n    ycft:          \(got)")
            }
        }
    }

    @Test func hardCasesAgree() {
        var tally = Tally()
        let calendar = CalendarConfig.utcGregorian.calendar
        for c in ModelCaseGenerator.hardCases() { tally.check(c, calendar: calendar) }
        #expect(tally.undecidable == 0)
        #expect(tally.mismatches.count == 0, "\(tally.mismatches.joined(separator: "\n"))")
    }

    @Test func modelFindsTheKnownThresholds() {
        // Sanity of the model itself, worked by hand from the sources.
        let cal = CalendarConfig.utcGregorian.calendar
        let big = Double.greatestFiniteMagnitude
        let overflow = LibraryModel.decide(.everyDays(.infinity), record: FirstTimeRecord(lastTime: -big), now: 0,
                                           appVersion: nil, calendar: cal, library: .v2)
        #expect(overflow?.nextEligible == 0x1p970)
        let never = LibraryModel.decide(.everyDays(1), record: FirstTimeRecord(lastTime: big), now: 0,
                                        appVersion: nil, calendar: cal, library: .v2)
        #expect(never == LibraryModel.Answer(wouldRun: false, nextEligible: nil))
        let oneDay = LibraryModel.decide(.everyDays(1), record: FirstTimeRecord(lastTime: 1000), now: 0,
                                         appVersion: nil, calendar: cal, library: .v2)
        #expect(oneDay?.nextEligible == 87_400)
        // 1.x: 84,600 s a "day"; a nil time subtracts 0. 84,600 - 2^-8 is half a Float ulp below 84,600 and
        // rounds (to even) up to 84,600, so the block already runs there; one double lower it rounds down.
        let legacy = LibraryModel.decide(.everyDays(1), record: FirstTimeRecord(lastVersion: "1"), now: 0,
                                         appVersion: nil, calendar: cal, library: .v1)
        #expect(legacy == LibraryModel.Answer(wouldRun: false, nextEligible: 84_600 - 0x1p-8))
        let nanDays = LibraryModel.decide(.everyDays(.nan), record: FirstTimeRecord(lastTime: 5), now: 0,
                                          appVersion: nil, calendar: cal, library: .v1)
        #expect(nanDays == LibraryModel.Answer(wouldRun: true, nextEligible: 0))
        let equivalent = LibraryModel.decide(.perVersion, record: FirstTimeRecord(lastVersion: "\u{C5}.0"), now: 3,
                                             appVersion: "\u{212B}.0", calendar: cal, library: .v2)
        #expect(equivalent == LibraryModel.Answer(wouldRun: false, nextEligible: nil))
        let literal = LibraryModel.decide(.perVersion, record: FirstTimeRecord(lastVersion: "\u{C5}.0"), now: 3,
                                          appVersion: "\u{212B}.0", calendar: cal, library: .v1)
        #expect(literal == LibraryModel.Answer(wouldRun: true, nextEligible: 3))
    }

    /// Calendar gates over stored times no clock gives (NaN, ±inf, ±greatestFiniteMagnitude, ±1e18) in every
    /// component, for values -1, 0, 1 and 12, in three calendars.
    @Test func calendarGatesOverExtremeStoredTimesAgree() {
        var tally = Tally()
        let configs = [CalendarConfig.utcGregorian,
                       CalendarConfig(identifier: .hebrew, timeZone: "Europe/Paris", firstWeekday: 2, minimumDaysInFirstWeek: 4),
                       CalendarConfig(identifier: .chinese, timeZone: "Pacific/Apia", firstWeekday: 7, minimumDaysInFirstWeek: 7)]
        for config in configs {
            let calendar = config.calendar
            for last in [Double.nan, .infinity, -.infinity, .greatestFiniteMagnitude, -.greatestFiniteMagnitude, 1e18, -1e18] {
                for component in ModelCaseGenerator.components {
                    for value in [-1, 0, 1, 12] {
                        for now in [7.5e8, -1e18, 1e18] {
                            tally.check(ModelCase(rule: .calendar(CalendarInterval(component: component, value: value)),
                                                  record: FirstTimeRecord(lastVersion: "1", lastTime: last), now: now,
                                                  appVersion: "1", library: .v2, calendar: config), calendar: calendar)
                        }
                    }
                }
            }
        }
        #expect(tally.compared == 3 * 7 * 19 * 4 * 3)
        #expect(tally.mismatches.count == 0, "\(tally.mismatches.joined(separator: "\n"))")
    }

    @Test func generatedDayCasesAgree() {
        var gen = ModelCaseGenerator(seed: 0x59_4346_5431_7832)
        var tally = Tally()
        let calendar = CalendarConfig.utcGregorian.calendar
        for _ in 0..<Self.dayCases { tally.check(gen.dayCase(), calendar: calendar) }
        print("day cases: \(tally.compared) compared, \(tally.undecidable) left out; runs now \(tally.runsNow), later \(tally.later) (\(tally.lastInstantBefore) one ulp before), never \(tally.never)")
        #expect(tally.runsNow > Self.dayCases / 5 && tally.later > Self.dayCases / 8 && tally.never > Self.dayCases / 20)
        #expect(tally.lastInstantBefore > Self.dayCases / 50)
        #expect(tally.undecidable * 100 <= Self.dayCases)
        #expect(tally.compared + tally.undecidable == Self.dayCases)
        #expect(tally.mismatches.count == 0, "\(tally.mismatches.joined(separator: "\n"))")
    }

    @Test func generatedCalendarCasesAgree() {
        var gen = ModelCaseGenerator(seed: 0x49_6E74_6572_7661)
        let configs = (0..<48).map { _ in gen.calendarConfig() }
        let calendars = configs.map(\.calendar)
        var tally = Tally()
        for i in 0..<Self.calendarCases {
            let k = i % configs.count
            tally.check(gen.calendarCase(configs[k], calendar: calendars[k]), calendar: calendars[k])
        }
        print("calendar cases: \(tally.compared) compared; runs now \(tally.runsNow), later \(tally.later) (\(tally.lastInstantBefore) one ulp before), never \(tally.never)")
        #expect(tally.runsNow > Self.calendarCases / 5 && tally.later > Self.calendarCases / 8)
        #expect(tally.lastInstantBefore > Self.calendarCases / 100)
        #expect(tally.undecidable == 0)
        #expect(tally.compared == Self.calendarCases)
        #expect(tally.mismatches.count == 0, "\(tally.mismatches.joined(separator: "\n"))")
    }
}
