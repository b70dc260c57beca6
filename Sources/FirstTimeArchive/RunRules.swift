public import Foundation
internal import Plist

/// A calendar interval, as IntervalClient uses: any `Calendar.Component` and any count,
/// computed with `Calendar.date(byAdding:value:to:)` exactly as Foundation computes it (a zero
/// or negative count included).
public struct CalendarInterval: Sendable, Equatable, CustomStringConvertible {
    /// The calendar components `Calendar.date(byAdding:value:to:)` accepts, by the names
    /// `ycft status --gate every:<n><unit>` uses (`week` is `weekOfYear`, IntervalClient's weekly).
    public enum Unit: String, Sendable, CaseIterable {
        case era, year, quarter, month, week, weekOfYear, weekOfMonth, weekday, weekdayOrdinal, yearForWeekOfYear
        case day, hour, minute, second, nanosecond

        /// The Foundation component.
        public var component: Calendar.Component {
            switch self {
            case .era: return .era
            case .year: return .year
            case .quarter: return .quarter
            case .month: return .month
            case .week, .weekOfYear: return .weekOfYear
            case .weekOfMonth: return .weekOfMonth
            case .weekday: return .weekday
            case .weekdayOrdinal: return .weekdayOrdinal
            case .yearForWeekOfYear: return .yearForWeekOfYear
            case .day: return .day
            case .hour: return .hour
            case .minute: return .minute
            case .second: return .second
            case .nanosecond: return .nanosecond
            }
        }
    }

    /// The calendar component added (`.weekOfYear` for `week`).
    public var component: Calendar.Component
    /// How many units (any integer: Foundation decides what zero and negative counts mean).
    public var value: Int

    /// The unit's name, when the component has one (`week` for `.weekOfYear`).
    public var unit: Unit? { Unit.allCases.first { $0.component == component } }

    /// Creates an interval of `value` units.
    public init(_ unit: Unit, _ value: Int = 1) {
        self.component = unit.component
        self.value = value
    }

    /// Creates an interval of any component (`IntervalConfig.custom`): what Foundation cannot
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
    public static let weekly = CalendarInterval(.week)
    /// One month, clamped to the month's end (Jan 31 + 1 month = Feb 28/29).
    public static let monthly = CalendarInterval(.month)
    /// One year, clamped the same way (Feb 29 + 1 year = Feb 28).
    public static let yearly = CalendarInterval(.year)

    /// `hourly`, `daily`, ... for the presets, else `every:<n><unit>`.
    public var description: String {
        if value == 1 {
            switch unit {
            case .hour?: return "hourly"
            case .day?: return "daily"
            case .week?: return "weekly"
            case .month?: return "monthly"
            case .year?: return "yearly"
            default: break
            }
        }
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
    /// YCFirstTime `executeOncePerVersion`: when the recorded version is not exactly the current one.
    case perVersion
    /// YCFirstTime `executeOncePerInterval(days:)`: a key never run runs; otherwise it runs again
    /// only when `days > 0`, the record has a `lastTime`, and `(now - lastTime) / 86400 >=
    /// Double(days)` (`days` is a `Float`, widened: `0.1` days is 8,640.000128746033 s). With
    /// `days <= 0` or NaN it behaves as `once`; a record without `lastTime` never runs again.
    /// (YCFirstTime 1.x divided by 84,600.)
    case everyDays(Float)
    /// IntervalClient: when `now >= calendar.date(byAdding: unit, value:, to: lastRun)`.
    case calendar(CalendarInterval)

    /// Parses `once`, `per-version`, `days:<n>` (YCFirstTime's `executeOncePerInterval`: any
    /// `Float`, `days:0.1`, `days:-1`), `hourly|daily|weekly|monthly|yearly`, or `every:<n><unit>`
    /// (IntervalClient's calendar rules) with any integer `n` and a ``CalendarInterval/Unit`` name.
    /// The two families have different names on purpose: `days:1` is 86,400 seconds,
    /// `every:1day` a calendar day (23 or 25 hours across a daylight-saving change).
    public init?(parsing text: String) {
        switch text {
        case "once": self = .once
        case "per-version": self = .perVersion
        case "hourly": self = .calendar(.hourly)
        case "daily": self = .calendar(.daily)
        case "weekly": self = .calendar(.weekly)
        case "monthly": self = .calendar(.monthly)
        case "yearly": self = .calendar(.yearly)
        default:
            if text.hasPrefix("days:") {
                guard let days = Float(text.dropFirst("days:".count)) else { return nil }
                self = .everyDays(days)
                return
            }
            guard text.hasPrefix("every:") else { return nil }
            let body = text.dropFirst("every:".count)
            // Longest unit names first: `weekday` before `day`, `yearForWeekOfYear` before `year`.
            let units = CalendarInterval.Unit.allCases.sorted { $0.rawValue.count > $1.rawValue.count }
            if let unit = units.first(where: { body.hasSuffix($0.rawValue) }) {
                guard let n = Int(body.dropLast(unit.rawValue.count)) else { return nil }
                self = .calendar(CalendarInterval(unit, n))
            } else {
                return nil
            }
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
}

/// YCFirstTime's and IntervalClient's rules, as pure functions of a record, a clock, an app
/// version and a calendar.
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
    ///   - calendar: the calendar and time zone IntervalClient computes with.
    ///   - legacyDay: use YCFirstTime 1.x's 84,600-second day for `everyDays`.
    public static func decide(_ rule: GateRule, record: FirstTimeRecord?, now: Double, appVersion: String?,
                              calendar: Calendar, legacyDay: Bool = false) -> GateDecision {
        switch rule {
        case .once:
            return record == nil ? GateDecision(wouldRun: true, nextEligible: now) : GateDecision(wouldRun: false, nextEligible: nil)
        case .perVersion:
            let same: Bool
            switch (record, record?.lastVersion, appVersion) {
            case (nil, _, _): same = false
            case (_, nil, nil): same = true
            case let (_, recorded?, current?): same = exactlyEqual(recorded, current)
            default: same = false
            }
            return same ? GateDecision(wouldRun: false, nextEligible: nil) : GateDecision(wouldRun: true, nextEligible: now)
        case let .everyDays(days):
            // YCFirstTime's alreadyExecuted: no record runs; days <= 0 (or NaN) is executeOnce; a
            // record without lastTime never runs again.
            guard let record else { return GateDecision(wouldRun: true, nextEligible: now) }
            guard days > 0, let last = record.lastTime else { return GateDecision(wouldRun: false, nextEligible: nil) }
            let divisor = legacyDay ? Self.legacyDay : Self.day
            let limit = Double(days)
            func due(_ t: Double) -> Bool { (t - last) / divisor >= limit }
            if due(now) { return GateDecision(wouldRun: true, nextEligible: now) }
            guard last.isFinite, !last.isNaN else {
                // NaN and +infinity never come due; -infinity always is (handled above).
                return GateDecision(wouldRun: false, nextEligible: nil)
            }
            return GateDecision(wouldRun: false, nextEligible: earliest(from: last + limit * divisor, where: due))
        case let .calendar(interval):
            // IntervalClient's shouldRun: no stored time runs; so does a time calendar arithmetic
            // cannot move (Foundation returns nil).
            // Even a non-finite time goes to Foundation, which decides what it means.
            guard let last = record?.lastTime else { return GateDecision(wouldRun: true, nextEligible: now) }
            let lastRun = Date(timeIntervalSinceReferenceDate: last)
            guard let next = interval.next(after: lastRun, in: calendar) else {
                return GateDecision(wouldRun: true, nextEligible: now)
            }
            let nextTime = next.timeIntervalSinceReferenceDate
            return now >= nextTime ? GateDecision(wouldRun: true, nextEligible: now) : GateDecision(wouldRun: false, nextEligible: nextTime)
        }
    }

    /// The smallest double at or near `guess` for which `due` holds, stepping by one ulp: the
    /// floating-point comparison, not real arithmetic, decides the boundary.
    static func earliest(from guess: Double, where due: (Double) -> Bool) -> Double? {
        guard guess.isFinite else { return nil }
        var t = guess
        var steps = 0
        if due(t) {
            while due(t.nextDown), steps < 64 { t = t.nextDown; steps += 1 }
            return t
        }
        while !due(t), steps < 64 { t = t.nextUp; steps += 1 }
        return due(t) ? t : nil
    }
}
