#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
internal import PlistCore

/// A calendar interval, as IntervalClient uses: any `Calendar.Component` and any count,
/// computed with `Calendar.date(byAdding:value:to:)` exactly as Foundation computes it (a zero
/// or negative count included).
public struct CalendarInterval: Sendable, Equatable, CustomStringConvertible {
    /// Every `Calendar.Component` IntervalClient accepts, by its Swift name (`ycft status
    /// --gate every:<n><unit>`). Foundation adds most; for `calendar`, `timeZone`,
    /// `isLeapMonth` and `isRepeatedDay` `Calendar.date(byAdding:value:to:)` returns nil, and
    /// IntervalClient then runs the gate every time (``addsNothing``).
    package enum Unit: String, Sendable, CaseIterable {
        case era, year, quarter, month, weekOfYear, weekOfMonth, weekday, weekdayOrdinal, yearForWeekOfYear
        case day, dayOfYear, hour, minute, second, nanosecond
        case calendar, timeZone, isLeapMonth, isRepeatedDay

        /// The Foundation component.
        package var component: Calendar.Component {
            switch self {
            case .era: return .era
            case .year: return .year
            case .quarter: return .quarter
            case .month: return .month
            case .weekOfYear: return .weekOfYear
            case .weekOfMonth: return .weekOfMonth
            case .weekday: return .weekday
            case .weekdayOrdinal: return .weekdayOrdinal
            case .yearForWeekOfYear: return .yearForWeekOfYear
            case .day: return .day
            case .dayOfYear: return .dayOfYear
            case .hour: return .hour
            case .minute: return .minute
            case .second: return .second
            case .nanosecond: return .nanosecond
            case .calendar: return .calendar
            case .timeZone: return .timeZone
            case .isLeapMonth: return .isLeapMonth
            case .isRepeatedDay: return .isRepeatedDay
            }
        }

        /// Whether Foundation adds nothing for this component (`date(byAdding:)` is nil), so
        /// IntervalClient runs such a gate every time.
        package var addsNothing: Bool { [.calendar, .timeZone, .isLeapMonth, .isRepeatedDay].contains(self) }
    }

    /// The calendar component added.
    public var component: Calendar.Component
    /// How many units (any integer: Foundation decides what zero and negative counts mean).
    public var value: Int

    /// The unit's name.
    package var unit: Unit? { Unit.allCases.first { $0.component == component } }

    /// Creates an interval of `value` units.
    package init(_ unit: Unit, _ value: Int = 1) {
        self.component = unit.component
        self.value = value
    }

    /// Creates an interval of any component (``custom(_:_:)``): what Foundation cannot
    /// add (`.timeZone`, `.calendar`) makes `Calendar.date(byAdding:)` return nil, and the gate runs.
    public init(component: Calendar.Component, value: Int) {
        self.component = component
        self.value = value
    }

    /// IntervalClient's presets.
    public static let hourly = CalendarInterval(.hour)
    /// One calendar day (23 or 25 hours across a daylight-saving change).
    public static let daily = CalendarInterval(.day)
    /// One week of the year (`.weekOfYear`).
    public static let weekly = CalendarInterval(.weekOfYear)
    /// One month, clamped to the month's end (Jan 31 + 1 month = Feb 28/29).
    public static let monthly = CalendarInterval(.month)
    /// One year, clamped the same way (Feb 29 + 1 year = Feb 28).
    public static let yearly = CalendarInterval(.year)

    /// Any component and count, as `Calendar.date(byAdding:value:to:)` computes them
    /// (``init(component:value:)``): `store.shouldRun("report", every: .custom(.day, 3))`.
    public static func custom(_ component: Calendar.Component, _ value: Int) -> CalendarInterval {
        CalendarInterval(component: component, value: value)
    }

    /// The presets by the names `ycft status --gate` gives them.
    static let presets: [(name: String, interval: CalendarInterval)] = [
        ("hourly", .hourly), ("daily", .daily), ("weekly", .weekly), ("monthly", .monthly), ("yearly", .yearly),
    ]

    /// `hourly`, `daily`, ... for the presets, else `every:<n><unit>`.
    public var description: String {
        if let preset = Self.presets.first(where: { $0.interval == self }) { return preset.name }
        // unreachable: `?? component`: every Calendar.Component of this Foundation has a Unit
        return "every:\(value)\(unit?.rawValue ?? "\(component)")"
    }

    /// When a gate last run at `last` comes due: `calendar.date(byAdding:value:to:)`, or nil
    /// when Foundation cannot compute it (IntervalClient then runs the gate).
    public func next(after last: Date, in calendar: Calendar) -> Date? {
        calendar.date(byAdding: component, value: value, to: last)
    }
}

/// When a gate runs.
public enum GateRule: Sendable, Equatable, CustomStringConvertible {
    /// YCFirstTime `executeOnce`: when the key was never recorded.
    case once
    /// YCFirstTime `executeOncePerVersion`: when the recorded version is not the current one
    /// (2.x: Swift `String` equality, canonical equivalence; 1.x: UTF-16 code units, and a
    /// missing version on either side always runs).
    case perVersion
    /// YCFirstTime `executeOncePerInterval(days:)`: a key never run runs; otherwise it runs again
    /// only when `days > 0`, the record has a `lastTime`, and `(now - lastTime) / 86400 >=
    /// Double(days)` (`days` is a `Float`, widened: `0.1` days is 8,640.000128746033 s). With
    /// `days <= 0` or NaN it behaves as `once`; a record without `lastTime` never runs again.
    /// YCFirstTime 1.x (``LibraryVersion/v1``) counts otherwise: any non-zero `days` (NaN and
    /// negatives run every time), the elapsed time in `float` divided by 84,600, a missing
    /// `lastTime` as the reference date.
    case everyDays(Float)
    /// IntervalClient: when `now >= calendar.date(byAdding: unit, value:, to: lastRun)`.
    case calendar(CalendarInterval)

    /// Parses `once`, `per-version`, `days:<n>` (YCFirstTime's `executeOncePerInterval`: any
    /// `Float`, `days:0.1`, `days:-1`), `hourly|daily|weekly|monthly|yearly`, or `every:<n><unit>`
    /// (IntervalClient's calendar rules) with any integer `n` and a `CalendarInterval.Unit` name
    /// (`Calendar.Component`'s own: `weekOfYear`, not `week`).
    /// The two families have different names on purpose: `days:1` is 86,400 seconds,
    /// `every:1day` a calendar day (23 or 25 hours across a daylight-saving change).
    public init?(parsing text: String) {
        switch text {
        case "once": self = .once
        case "per-version": self = .perVersion
        default:
            if let preset = CalendarInterval.presets.first(where: { $0.name == text }) {
                self = .calendar(preset.interval)
                return
            }
            if text.hasPrefix("days:") {
                guard let days = Float(text.dropFirst("days:".count)) else { return nil }
                self = .everyDays(days)
                return
            }
            guard text.hasPrefix("every:") else { return nil }
            let body = text.dropFirst("every:".count)
            // Longest unit names first: `weekday` before `day`, `yearForWeekOfYear` before `year`.
            let units = CalendarInterval.Unit.allCases.sorted { $0.rawValue.count > $1.rawValue.count }
            guard let unit = units.first(where: { body.hasSuffix($0.rawValue) }),
                  let n = Int(body.dropLast(unit.rawValue.count)) else { return nil }
            self = .calendar(CalendarInterval(unit, n))
        }
    }

    /// The rule as `ycft status --gate` spells it.
    public var description: String {
        switch self {
        case .once: return "once"
        case .perVersion: return "per-version"
        case let .everyDays(days): return "days:\(days)"
        case let .calendar(interval): return interval.description
        }
    }
}

/// The answer for one gate.
public struct GateDecision: Sendable, Equatable {
    /// Whether the gate's block would run now.
    public var wouldRun: Bool
    /// The earliest instant (seconds since 2001) at which it runs: `now` when it would run now,
    /// nil when it never will (for example `once` after a run).
    public var nextEligible: Double?

    /// Creates a decision.
    public init(wouldRun: Bool, nextEligible: Double?) {
        self.wouldRun = wouldRun
        self.nextEligible = nextEligible
    }

    /// Does not run now, and never will (for example `once` after a run).
    public static let never = GateDecision(wouldRun: false, nextEligible: nil)
}

/// Which YCFirstTime's rules a decision follows: they differ in how versions compare, how days
/// are counted and what a missing value means.
public enum LibraryVersion: String, Sendable, Equatable, CaseIterable {
    /// YCFirstTime 2.x (Swift, `Sources/YCFirstTime/YCFirstTime.swift`), the default.
    case v2 = "2.x"
    /// YCFirstTime 1.x (Objective-C, `YCFirstTime.m`).
    case v1 = "1.x"
}

/// YCFirstTime's and IntervalClient's rules, as pure functions of a record, a clock, an app
/// version and a calendar.
///
/// Each rule is the library's own expression, evaluated in the library's arithmetic; the next
/// eligible moment is the earliest instant (a `Date`, a `Double` of seconds since 2001) at
/// which that expression holds, found by a search over doubles (`earliest(after:where:)`),
/// so it is exact to the last bit however the arithmetic rounds.
///
/// ```swift
/// let decision = RunRules.decide(.everyDays(7), record: record, now: now, appVersion: "2.0",
///                                calendar: Calendar(identifier: .gregorian))
/// if !decision.wouldRun, let next = decision.nextEligible { print("due at \(next)") }
/// ```
public enum RunRules {
    /// Seconds in YCFirstTime 2.x's day.
    public static let day: Double = 86_400
    /// YCFirstTime 1.x's divisor (a typo it documents): 23.5-hour "days".
    public static let legacyDay: Double = 84_600

    /// Decides whether a gate runs now and when it next can.
    /// - Parameters:
    ///   - record: the gate's record, nil when the key was never recorded.
    ///   - now: seconds since 2001-01-01T00:00:00Z.
    ///   - appVersion: the running app's version (`CFBundleShortVersionString`), or nil.
    ///   - calendar: the calendar IntervalClient computes with (its `Calendar.current`:
    ///     identifier, time zone, first weekday, minimum days in the first week).
    ///   - library: whose rules `once`, `per-version` and `days:` follow (IntervalClient's
    ///     calendar rules are the same for both).
    public static func decide(_ rule: GateRule, record: FirstTimeRecord?, now: Double, appVersion: String?,
                              calendar: Calendar, library: LibraryVersion = .v2) -> GateDecision {
        let runsNow = GateDecision(wouldRun: true, nextEligible: now)
        switch rule {
        case .once:
            return record == nil ? runsNow : .never
        case .perVersion:
            let same = switch library {
            // `versionProvider?() != info.lastVersion` on `String?`: Swift's `==` is
            // canonical equivalence ("\u{C5}" equals "\u{212B}"), and nil equals nil.
            case .v2: record != nil && appVersion == record?.lastVersion
            // `[currentVersion isEqualToString:blockInfo.lastVersion]`: a literal compare
            // of UTF-16 code units; a message to nil, or nil as the argument, is NO.
            case .v1: appVersion.flatMap { current in record?.lastVersion.map { current.utf16.elementsEqual($0.utf16) } } ?? false
            }
            return same ? .never : runsNow
        case let .everyDays(days):
            guard let record else { return runsNow }
            let due: (Double) -> Bool
            switch library {
            case .v2:
                // 2.x's alreadyExecuted: `days > 0, let lastTime` (else executeOnce, and a record
                // without lastTime never runs again), then
                // `now.timeIntervalSince(lastTime) / 86_400 >= Double(days)` in Double.
                guard days > 0, let last = record.lastTime else { return .never }
                let limit = Double(days)
                due = { t in (t - last) / Self.day >= limit }
            case .v1:
                // 1.x's blockAlreadyExecutedForKey: `if (days && blockInfo)` (any non-zero float,
                // NaN and negatives included), `float differenceInSeconds = [[NSDate date]
                // timeIntervalSinceDate:blockInfo.lastTime]` (a nil lastTime is a message to
                // nil: 0, the reference date), executed while `differenceInSeconds/84600 < days`
                // in float arithmetic.
                guard days != 0 else { return .never }
                let last = record.lastTime ?? 0
                due = { t in !(Float(t - last) / Float(Self.legacyDay) < days) }
            }
            if due(now) { return runsNow }
            return GateDecision(wouldRun: false, nextEligible: earliest(after: now, where: due))
        case let .calendar(interval):
            // IntervalClient's shouldRun: no stored time runs; so does a time calendar arithmetic
            // cannot move (Foundation returns nil).
            // Even a non-finite time goes to Foundation, which decides what it means.
            guard let last = record?.lastTime else { return runsNow }
            let lastRun = Date(timeIntervalSinceReferenceDate: last)
            guard let next = interval.next(after: lastRun, in: calendar) else { return runsNow }
            let nextTime = next.timeIntervalSinceReferenceDate
            if now >= nextTime { return runsNow }
            // untested: (the nil) Linux Foundation clamps every date it computes to a finite one (+infinity plus a day is
            // 15927175584000); Apple's may not
            return GateDecision(wouldRun: false, nextEligible: nextTime.isFinite ? nextTime : nil)
        }
    }

    /// The earliest finite instant after `start` at which `due` holds, or nil when it holds at
    /// none (then the gate never runs again): a binary search over the doubles in order, for a
    /// `due` that is monotone (false, then true from some instant on), as every rule's
    /// expression is in time. Exact: the floating-point expression, not real arithmetic,
    /// decides the boundary; 64 steps at most.
    static func earliest(after start: Double, where due: (Double) -> Bool) -> Double? {
        guard !start.isNaN, start < .greatestFiniteMagnitude, due(.greatestFiniteMagnitude) else { return nil }
        // Doubles in numeric order as integers: the sign bit flips negatives' order.
        func key(_ d: Double) -> Int64 {
            let bits = Int64(bitPattern: d.bitPattern)
            return bits < 0 ? Int64.min - bits : bits
        }
        func value(_ k: Int64) -> Double {
            Double(bitPattern: UInt64(bitPattern: k < 0 ? Int64.min - k : k))
        }
        // Invariant: due(value(high)); not due at `low` (start, or -infinity's neighbour).
        var low = key(Swift.max(start, -.greatestFiniteMagnitude))
        var high = key(.greatestFiniteMagnitude)
        if start == -.infinity, due(-.greatestFiniteMagnitude) { return -.greatestFiniteMagnitude }
        // The distance spans both signs (up to 2^64 - 2^53): an unsigned difference, wrapping.
        while case let distance = UInt64(bitPattern: high &- low), distance > 1 {
            let mid = low &+ Int64(bitPattern: distance / 2)
            if due(value(mid)) { high = mid } else { low = mid }
        }
        let found = value(high)
        // -0.0 and 0.0 are one instant: give the positive zero.
        return found == 0 ? 0 : found
    }
}
