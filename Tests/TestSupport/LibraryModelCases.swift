import Foundation
import FirstTimeArchive
import FirstTimeCore

/// One generated question: a gate, a stored record, the moment, the app version, the library and the calendar.
package struct ModelCase: Sendable, CustomStringConvertible {
    package var rule: GateRule
    package var record: FirstTimeRecord?
    package var now: Double
    package var appVersion: String?
    package var library: LibraryVersion
    package var calendar: CalendarConfig

    package init(rule: GateRule, record: FirstTimeRecord?, now: Double, appVersion: String?, library: LibraryVersion,
                calendar: CalendarConfig) {
        self.rule = rule
        self.record = record
        self.now = now
        self.appVersion = appVersion
        self.library = library
        self.calendar = calendar
    }

    package var description: String {
        func hex(_ d: Double?) -> String { d.map { "\($0)/0x\(String($0.bitPattern, radix: 16))" } ?? "nil" }
        let rec = record.map { "lastVersion \($0.lastVersion.map { "\(Array($0.unicodeScalars))" } ?? "nil"), lastTime \(hex($0.lastTime))" }
        return "\(rule) \(library.rawValue) record [\(rec ?? "none")] now \(hex(now)) app \(appVersion.map { "\(Array($0.unicodeScalars))" } ?? "nil") \(calendar)"
    }
}

/// How a case's calendar is set up; the same four settings go to `ycft status` as options.
package struct CalendarConfig: Sendable, CustomStringConvertible {
    package var identifier: Calendar.Identifier
    package var timeZone: String
    package var firstWeekday: Int
    package var minimumDaysInFirstWeek: Int

    package init(identifier: Calendar.Identifier, timeZone: String, firstWeekday: Int, minimumDaysInFirstWeek: Int) {
        self.identifier = identifier
        self.timeZone = timeZone
        self.firstWeekday = firstWeekday
        self.minimumDaysInFirstWeek = minimumDaysInFirstWeek
    }

    package var calendar: Calendar {
        var c = Calendar(identifier: identifier)
        c.timeZone = TimeZone(identifier: timeZone) ?? TimeZone(secondsFromGMT: 0) ?? c.timeZone
        c.firstWeekday = firstWeekday
        c.minimumDaysInFirstWeek = minimumDaysInFirstWeek
        return c
    }

    /// The `--calendar` spelling (Foundation's CLDR name).
    package var cliName: String {
        switch identifier {
        case .gregorian: return "gregorian"
        case .hebrew: return "hebrew"
        case .islamicCivil: return "islamic-civil"
        case .islamicUmmAlQura: return "islamic-umalqura"
        case .japanese: return "japanese"
        case .buddhist: return "buddhist"
        case .persian: return "persian"
        case .chinese: return "chinese"
        case .iso8601: return "iso8601"
        case .coptic: return "coptic"
        case .indian: return "indian"
        case .republicOfChina: return "roc"
        default: return "gregorian"
        }
    }

    package var description: String { "calendar \(cliName) tz \(timeZone) firstWeekday \(firstWeekday) minDays \(minimumDaysInFirstWeek)" }

    package static let identifiers: [Calendar.Identifier] = [
        .gregorian, .hebrew, .islamicCivil, .islamicUmmAlQura, .japanese, .buddhist, .persian, .chinese, .iso8601,
        .coptic, .indian, .republicOfChina,
    ]
    package static let timeZones = [
        "UTC", "Europe/Paris", "America/New_York", "Asia/Kolkata", "Pacific/Apia", "Australia/Lord_Howe",
        "America/Sao_Paulo", "Pacific/Chatham", "Asia/Kathmandu", "America/St_Johns",
    ]
    package static let utcGregorian = CalendarConfig(identifier: .gregorian, timeZone: "UTC", firstWeekday: 1,
                                                    minimumDaysInFirstWeek: 1)
}

/// Seeded generators of hard and ordinary cases for ``LibraryModel``.
package struct ModelCaseGenerator {
    package var rng: SplitMix64
    package init(seed: UInt64) { rng = SplitMix64(seed: seed) }

    package mutating func below(_ n: Int) -> Int { Int(rng.next() % UInt64(n)) }
    package mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }
    package mutating func unit() -> Double { Double(rng.next() >> 11) * 0x1p-53 }
    package mutating func chance(_ percent: Int) -> Bool { below(100) < percent }

    package static let versions: [String?] = [
        nil, "", "1.0", "1.0.0", "2.1.0", "\u{C5}.0", "\u{212B}.0", "\u{AC00}", "\u{1100}\u{1161}", "\u{E9}", "e\u{301}",
    ]

    static let specialDays: [Float] = [
        0, -0.0, -1, 0.1, 1.0 / 3, 1e-7, 1, 7, 30, 100, 365.25, 1000, 1e6, 1e9, .leastNonzeroMagnitude,
        .leastNormalMagnitude, .greatestFiniteMagnitude, .infinity, -.infinity, .nan, -100.5, 0.5, 2.5e-3,
    ]

    static let specialTimes: [Double] = [
        0, -0.0, 1, -1, -1e9, -978_307_200, 757_414_800.5, 7.5e8, 1e15, -1e15, 1e18, -1e18, 1e300, -1e300,
        .greatestFiniteMagnitude, -.greatestFiniteMagnitude, .leastNonzeroMagnitude, -.leastNonzeroMagnitude,
        .nan, .infinity, -.infinity, 0x1p53, -0x1p53,
    ]

    package mutating func days() -> Float {
        switch below(4) {
        case 0, 1: return pick(Self.specialDays)
        case 2: return Float(unit() * 400)
        default:
            let f = Float(bitPattern: UInt32(truncatingIfNeeded: rng.next()))
            return f
        }
    }

    package mutating func ordinaryTime() -> Double { (unit() - 0.25) * 4e9 }

    package mutating func anyTime() -> Double {
        switch below(6) {
        case 0: return pick(Self.specialTimes)
        case 1:
            let d = Double(bitPattern: rng.next())
            return d.isFinite ? d : ordinaryTime()
        default: return ordinaryTime()
        }
    }

    package mutating func nudge(_ x: Double) -> Double {
        var x = x
        let k = below(7) - 3
        for _ in 0..<abs(k) { x = k < 0 ? x.nextDown : x.nextUp }
        return x
    }

    /// A YCFirstTime case: once, per-version or every X days, either library, with `now` often placed
    /// on the boundary (lastTime + days × seconds-per-day, within a few ulps).
    package mutating func dayCase() -> ModelCase {
        let library: LibraryVersion = chance(50) ? .v2 : .v1
        let rule: GateRule
        switch below(10) {
        case 0: rule = .once
        case 1, 2: rule = .perVersion
        default: rule = .everyDays(days())
        }
        var record: FirstTimeRecord?
        if !chance(8) {
            let lastTime: Double? = chance(6) ? nil : anyTime()
            record = FirstTimeRecord(lastVersion: pick(Self.versions), lastTime: lastTime)
        }
        var now = ordinaryTime()
        if case .everyDays(let d) = rule, let last = record?.lastTime ?? (library == .v1 ? 0 : nil) {
            switch below(5) {
            case 0: now = ordinaryTime()
            case 1:
                // `now` is a clock reading: always finite.
                let t = anyTime()
                now = t.isFinite ? t : ordinaryTime()
            case 2:
                // lastTime before 2001, now after it, days >= 100: the subtraction rounds.
                let last2 = -unit() * 3e9
                record?.lastTime = last2
                let dd = Float(100 + unit() * 2000)
                return ModelCase(rule: .everyDays(dd), record: record, now: nudge(last2 + Double(dd) * (library == .v1 ? 84_600 : 86_400)),
                                 appVersion: pick(Self.versions), library: library, calendar: .utcGregorian)
            default:
                let perDay: Double = library == .v1 ? 84_600 : 86_400
                let boundary = last + Double(d) * perDay
                now = boundary.isFinite ? nudge(boundary) : ordinaryTime()
            }
        }
        return ModelCase(rule: rule, record: record, now: now, appVersion: pick(Self.versions), library: library,
                         calendar: .utcGregorian)
    }

    package static let components: [Calendar.Component] = [
        .era, .year, .quarter, .month, .weekOfYear, .weekOfMonth, .weekday, .weekdayOrdinal, .yearForWeekOfYear,
        .day, .dayOfYear, .hour, .minute, .second, .nanosecond, .calendar, .timeZone, .isLeapMonth, .isRepeatedDay,
    ]

    /// Instants around DST changes, month ends, Feb 29, and years 1 and 9999 (seconds since 2001, UTC).
    static let calendarTimes: [Double] = [
        764_816_400,      // 2025-03-30T01:00:00Z, Paris springs forward
        783_565_200,      // 2025-10-26T01:00:00Z, Paris falls back
        763_196_400,      // 2025-03-09T07:00:00Z, New York springs forward
        783_925_200,      // 2025-11-02T06:00:00Z, New York falls back
        760_060_800,      // 2025-01-31T00:00:00Z, month end
        730_944_000,      // 2024-02-29T00:00:00Z
        730_987_199.5,    // 2024-02-29T11:59:59.5Z
        -63_113_904_000,  // 0001-01-01T00:00:00Z
        -63_082_281_600,  // 0002-01-01
        252_423_993_599,  // 9999-12-31T23:59:59Z
        252_392_457_600,  // 9999-01-01
        0, -0.0, 757_414_800.123456, 946_684_800,
        346_550_400,      // 2011-12-30, Samoa skipped 2011-12-30
        340_000_000,
    ]

    package mutating func calendarTime() -> Double {
        switch below(5) {
        case 0, 1:
            let t = pick(Self.calendarTimes)
            switch below(4) {
            case 0: return t + 1e-9
            case 1: return t - 1e-9
            case 2: return nudge(t)
            default: return t
            }
        case 2: return (unit() - 0.5) * 5e10
        default: return ordinaryTime()
        }
    }

    package mutating func calendarValue(_ component: Calendar.Component) -> Int {
        switch below(6) {
        case 0: return 0
        case 1: return 1
        case 2: return -1 - below(3)
        case 3: return 1 + below(12)
        case 4: return below(2001) - 1000
        default: return component == .nanosecond || component == .second ? below(2_000_001) - 1_000_000 : below(61) - 30
        }
    }

    package mutating func calendarConfig() -> CalendarConfig {
        CalendarConfig(identifier: pick(CalendarConfig.identifiers), timeZone: pick(CalendarConfig.timeZones),
                       firstWeekday: 1 + below(7), minimumDaysInFirstWeek: 1 + below(7))
    }

    /// An IntervalClient case; `now` is often the due date itself or one nanosecond or one ulp either side.
    package mutating func calendarCase(_ config: CalendarConfig, calendar: Calendar) -> ModelCase {
        let component = pick(Self.components)
        let value = calendarValue(component)
        let last: Double? = chance(5) ? nil : calendarTime()
        let record: FirstTimeRecord? = chance(5) ? nil : FirstTimeRecord(lastVersion: pick(Self.versions), lastTime: last)
        var now = calendarTime()
        if let last, chance(70),
           let due = calendar.date(byAdding: component, value: value, to: Date(timeIntervalSinceReferenceDate: last)) {
            let d = due.timeIntervalSinceReferenceDate
            switch below(6) {
            case 0: now = d
            case 1: now = d + 1e-9
            case 2: now = d - 1e-9
            case 3: now = last + (d - last) * unit()
            default: now = nudge(d)
            }
        }
        return ModelCase(rule: .calendar(CalendarInterval(component: component, value: value)), record: record,
                         now: now, appVersion: pick(Self.versions), library: chance(50) ? .v2 : .v1, calendar: config)
    }

    /// Hand-picked hard cases (each also appears, with neighbours, in the generated stream).
    package static func hardCases() -> [ModelCase] {
        var cases: [ModelCase] = []
        func add(_ rule: GateRule, _ last: Double?, _ now: Double, version: String? = "1.0", app: String? = "1.0",
                 _ libs: [LibraryVersion] = [.v2, .v1], record: Bool = true) {
            for lib in libs {
                cases.append(ModelCase(rule: rule, record: record ? FirstTimeRecord(lastVersion: version, lastTime: last) : nil,
                                       now: now, appVersion: app, library: lib, calendar: .utcGregorian))
            }
        }
        let big = Double.greatestFiniteMagnitude
        add(.everyDays(.infinity), -big, 0)                 // overflows to +inf at 2^970
        add(.everyDays(.infinity), -big, 0x1p970.nextDown)
        add(.everyDays(.infinity), -big, 0x1p970)
        add(.everyDays(.infinity), -big / 2, 0)
        add(.everyDays(1), big, 0)                          // never due
        add(.everyDays(.infinity), big, 0)
        for last in [1e15, -1e15, 1e18, -1e18, -1e9, .nan, .infinity, -.infinity, 0, -0.0] {
            for days: Float in [0.1, 1.0 / 3, 1e-7, 100, 365.25, 0, -0.0, -1, .nan, .infinity, -.infinity, 1000] {
                add(.everyDays(days), last, 7.5e8)
                add(.everyDays(days), last, -1e9)
                add(.everyDays(days), last, last.isFinite ? last + 1 : 0)
            }
        }
        add(.everyDays(1), nil, 7.5e8)
        add(.everyDays(1), nil, 84_600)
        add(.everyDays(1), nil, 84_600.nextDown)
        add(.everyDays(1), nil, 0, record: false)
        let pairs: [(String?, String?)] = [
            ("\u{C5}.0", "\u{212B}.0"), ("\u{AC00}", "\u{1100}\u{1161}"), ("\u{E9}", "e\u{301}"), (nil, nil), (nil, "1.0"),
            ("1.0", nil), ("1.0", "1.0"), ("", ""), ("", nil),
        ]
        for (stored, app) in pairs {
            add(.perVersion, 1, 2, version: stored, app: app)
            add(.once, 1, 2, version: stored, app: app)
        }
        return cases
    }
}
