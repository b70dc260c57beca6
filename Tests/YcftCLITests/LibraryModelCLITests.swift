import Foundation
import Testing
import FirstTimeArchive
import FirstTimeCore
import TestSupport

/// The built `ycft status` against ``LibraryModel`` (written from YCFirstTime 2.x, 1.x and IntervalClient's
/// source, not from ycft's code): 30 seeded invocations of 16 gates each, every answer compared to the bit
/// (`wouldRun`, and `nextEligible` parsed back from its shortest round-trip text; null equals nil).
///
/// Each invocation picks the library, the calendar (identifier, time zone, first weekday, minimum days in the first
/// week, passed as options), the app version (`--no-app-version` for nil) and `now`, a whole second plus k/64 s so
/// that its ISO text is exact. Each gate has its own record in a binary archive built with `LegacyArchive.encode`
/// (or no record); day gates put the stored time within three ulps of `now - days × seconds-per-day`, calendar
/// gates put it at `now` minus the interval (so the due date often lands on `now` itself). Stored times include
/// NaN, ±inf, ±1e18 and ±greatestFiniteMagnitude; `days` is the `Float` text the CLI parses (`nan`, `inf`, `1e-07`).
@Suite struct LibraryModelThroughTheBinary {
    let ycft = TestPaths.executable("ycft")
    static let invocations = 30
    static let gatesPerInvocation = 16

    struct Gate {
        var key: String
        var ruleText: String
        var rule: GateRule
        var record: FirstTimeRecord?
        var expected: LibraryModel.Answer
    }

    static func componentName(_ c: Calendar.Component) -> String {
        switch c {
        case .era: return "era"
        case .year: return "year"
        case .quarter: return "quarter"
        case .month: return "month"
        case .weekOfYear: return "weekOfYear"
        case .weekOfMonth: return "weekOfMonth"
        case .weekday: return "weekday"
        case .weekdayOrdinal: return "weekdayOrdinal"
        case .yearForWeekOfYear: return "yearForWeekOfYear"
        case .day: return "day"
        case .dayOfYear: return "dayOfYear"
        case .hour: return "hour"
        case .minute: return "minute"
        case .second: return "second"
        case .nanosecond: return "nanosecond"
        case .calendar: return "calendar"
        case .timeZone: return "timeZone"
        case .isLeapMonth: return "isLeapMonth"
        case .isRepeatedDay: return "isRepeatedDay"
        }
    }

    /// `now` as ISO 8601 text in UTC with six fraction digits (exact: the fraction is k/64).
    static func isoText(_ now: Double) -> String {
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(secondsFromGMT: 0) ?? utc.timeZone
        let whole = now.rounded(.down)
        let c = utc.dateComponents([.year, .month, .day, .hour, .minute, .second],
                                   from: Date(timeIntervalSinceReferenceDate: whole))
        let micros = Int(((now - whole) * 1_000_000).rounded())
        func pad(_ v: Int?, _ n: Int) -> String {
            let s = String(v ?? 0)
            return String(repeating: "0", count: max(0, n - s.count)) + s
        }
        return "\(pad(c.year, 4))-\(pad(c.month, 2))-\(pad(c.day, 2))T\(pad(c.hour, 2)):\(pad(c.minute, 2)):\(pad(c.second, 2)).\(pad(micros, 6))Z"
    }

    /// The `wouldRun` and `nextEligible` of each gate, in order, read from the compact JSON text.
    static func answers(_ json: String) -> [LibraryModel.Answer]? {
        guard let gatesStart = json.range(of: "\"gates\":[") else { return nil }
        var answers: [LibraryModel.Answer] = []
        var rest = json[gatesStart.upperBound...]
        while let run = rest.range(of: "\"wouldRun\":") {
            let afterRun = rest[run.upperBound...]
            let wouldRun = afterRun.hasPrefix("true")
            guard wouldRun || afterRun.hasPrefix("false"),
                  let next = afterRun.range(of: "\"nextEligible\":") else { return nil }
            let value = afterRun[next.upperBound...].prefix { $0 != "," && $0 != "}" }
            let nextEligible: Double?
            if value == "null" { nextEligible = nil } else {
                guard let d = Double(String(value)) else { return nil }
                nextEligible = d
            }
            answers.append(LibraryModel.Answer(wouldRun: wouldRun, nextEligible: nextEligible))
            rest = afterRun[next.upperBound...]
        }
        return answers
    }

    static func makeGate(_ i: Int, gen: inout ModelCaseGenerator, now: Double, library: LibraryVersion,
                         appVersion: String?, config: CalendarConfig, calendar: Calendar) -> Gate? {
        let key = "g\(i)"
        let version = gen.pick(ModelCaseGenerator.versions)
        var rule: GateRule
        var ruleText: String
        var lastTime: Double?
        switch gen.below(8) {
        case 0:
            (rule, ruleText) = (.once, "once")
            lastTime = gen.anyTime()
        case 1:
            (rule, ruleText) = (.perVersion, "per-version")
            lastTime = gen.anyTime()
        case 2, 3, 4:
            let days = gen.days()
            ruleText = "days:\(days)"
            guard let parsed = Float(String(ruleText.dropFirst(5))) else { return nil }
            rule = .everyDays(parsed)
            let perDay: Double = library == .v1 ? 84_600 : 86_400
            let boundary = now - Double(parsed) * perDay
            switch gen.below(3) {
            case 0: lastTime = gen.anyTime()
            default: lastTime = boundary.isFinite ? gen.nudge(boundary) : gen.anyTime()
            }
        default:
            let component = gen.pick(ModelCaseGenerator.components)
            let value = gen.calendarValue(component)
            rule = .calendar(CalendarInterval(component: component, value: value))
            ruleText = "every:\(value)\(componentName(component))"
            if gen.chance(70),
               let back = calendar.date(byAdding: component, value: -value, to: Date(timeIntervalSinceReferenceDate: now)) {
                lastTime = gen.chance(50) ? back.timeIntervalSinceReferenceDate : gen.nudge(back.timeIntervalSinceReferenceDate)
            } else {
                lastTime = gen.calendarTime()
            }
            if gen.chance(15) { lastTime = gen.anyTime() }   // NaN, ±inf, huge and random-bit stored times too
        }
        if gen.chance(5) { lastTime = nil }
        let record: FirstTimeRecord? = gen.chance(8) ? nil : FirstTimeRecord(lastVersion: version, lastTime: lastTime)
        guard let expected = LibraryModel.decide(rule, record: record, now: now, appVersion: appVersion,
                                                 calendar: calendar, library: library)
        else { return nil }
        return Gate(key: record == nil ? "absent\(i)" : key, ruleText: ruleText, rule: rule, record: record,
                    expected: expected)
    }

    @Test func statusAgreesWithTheModel() throws {
        var gen = ModelCaseGenerator(seed: 0x79_6366_7473_7461)
        let directory = try TestPaths.temporaryDirectory()
        var compared = 0
        var runsNow = 0, later = 0, never = 0, lastInstantBefore = 0, calendarGates = 0
        var mismatches: [String] = []
        for invocation in 0..<Self.invocations {
            let library: LibraryVersion = gen.chance(50) ? .v2 : .v1
            let config = invocation == 0 ? CalendarConfig.utcGregorian : gen.calendarConfig()
            let calendar = config.calendar
            let appVersion = gen.pick(ModelCaseGenerator.versions)
            let now = Double(gen.below(1_700_000_000) - 200_000_000) + Double(gen.below(64)) / 64
            var gates: [Gate] = []
            var i = 0
            while gates.count < Self.gatesPerInvocation {
                if let gate = Self.makeGate(i, gen: &gen, now: now, library: library, appVersion: appVersion,
                                            config: config, calendar: calendar) {
                    gates.append(gate)
                }
                i += 1
            }
            let entries = gates.compactMap { g in g.record.map { (g.key, $0) } }
            let archive = try LegacyArchive.encode(try FirstTimeRecords(entries), format: .binary)
            let file = directory.appendingPathComponent("state\(invocation).plist")
            try writeBytes(archive, to: file)
            var args = ["status", file.path, "--format", "json", "--compact", "--now", Self.isoText(now),
                        "--calendar", config.cliName, "--time-zone", config.timeZone,
                        "--first-weekday", String(config.firstWeekday),
                        "--minimum-days-in-first-week", String(config.minimumDaysInFirstWeek)]
            if library == .v1 { args += ["--library", "1.x"] }
            if let appVersion { args += ["--app-version", appVersion] } else { args.append("--no-app-version") }
            for g in gates { args += ["--gate", "\(g.key)=\(g.ruleText)"] }
            let result = try runProcess(ycft, args)
            try #require(result.status == 0, "\(args)\n\(result.stderr)")
            #expect(result.stdoutText.contains("\"now\":\"\(Self.isoText(now))\""))
            let answers = try #require(Self.answers(result.stdoutText), "\(result.stdoutText)")
            try #require(answers.count == gates.count)
            for (g, got) in zip(gates, answers) {
                compared += 1
                if case .calendar = g.rule { calendarGates += 1 }
                if g.expected.wouldRun { runsNow += 1 } else if let next = g.expected.nextEligible {
                    later += 1
                    if now.nextUp == next || now + 1.0 / 64 == next { lastInstantBefore += 1 }
                } else { never += 1 }
                if !g.expected.sameBits(got), mismatches.count < 25 {
                    let c = ModelCase(rule: g.rule, record: g.record, now: now, appVersion: appVersion, library: library,
                                      calendar: config)
                    mismatches.append("--gate \(g.key)=\(g.ruleText): \(c)\n    library model: \(g.expected)\n    ycft:          \(got)")
                }
            }
        }
        print("through the binary: \(compared) gates (\(calendarGates) calendar); runs now \(runsNow), later \(later) (\(lastInstantBefore) at the next instant), never \(never)")
        #expect(compared == Self.invocations * Self.gatesPerInvocation)
        #expect(runsNow > compared / 5 && later > compared / 10 && never > compared / 20 && calendarGates > compared / 5)
        #expect(mismatches.count == 0, "\(mismatches.joined(separator: "\n"))")
    }
}
