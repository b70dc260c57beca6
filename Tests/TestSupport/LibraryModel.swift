import Foundation
import FirstTimeArchive
import FirstTimeCore

/// A model of "would this block run now, and from which instant on?", restated from the libraries' own
/// source code and not from ycft's `RunRules`:
///
/// - YCFirstTime 2.x, `Sources/YCFirstTime/YCFirstTime.swift` (1e3ba38), `alreadyExecuted(forKey:perVersion:everyXDays:)`:
///   no record → runs; per version → runs when `versionProvider?() != info.lastVersion` (Swift `String?` `==`,
///   canonical equivalence); every X days → only when `days > 0` (a `Float`) and a time is stored, runs when
///   `now.timeIntervalSince(lastTime) / 86_400 >= Double(days)`; otherwise already executed.
/// - YCFirstTime 1.x, `YCFirstTime.m` (06042e6), `blockAlreadyExecutedForKey:perVersion:everyXDays:`:
///   no record → runs; per version → executed only when `[currentVersion isEqualToString:lastVersion]`
///   (UTF-16 code units; NO when either side is nil); every X days → when `days` is non-zero (NaN included),
///   `float differenceInSeconds = [now timeIntervalSinceDate:lastTime]` (a nil `lastTime` counts as 0 s since 2001)
///   and executed only when `differenceInSeconds / 84600 < days` in `Float` arithmetic.
/// - IntervalClient (calendar gates, both versions): runs when no time is stored, when
///   `calendar.date(byAdding:value:to:)` gives nil, or when `now >= ` that date; otherwise that date is next.
///
/// The earliest instant for a day-interval gate is found without a bisection: from a real-arithmetic estimate
/// (`lastTime + days × seconds-per-day`, through the `Float` threshold for 1.x, and through the overflow
/// threshold `greatestFiniteMagnitude + 2^970` for `days = .infinity`) it walks `nextUp`/`nextDown`,
/// evaluating the library's exact expression at each step. The walk is capped at ``walkCap`` steps; a case that
/// would need more (only when the answer is tiny next to a huge `lastTime`, e.g. `lastTime = -1e18` and
/// `days × 86 400 ≈ 1e18`, where the answer lies among the subnormals) is answered `nil` by ``decide`` and
/// the generators leave it out (the tests count and bound such cases).
package enum LibraryModel {
    package struct Answer: Equatable, Sendable, CustomStringConvertible {
        package var wouldRun: Bool
        package var nextEligible: Double?
        package init(wouldRun: Bool, nextEligible: Double?) {
            self.wouldRun = wouldRun
            self.nextEligible = nextEligible
        }
        package var description: String {
            "run \(wouldRun), next \(nextEligible.map { "\($0) (0x\(String($0.bitPattern, radix: 16)))" } ?? "nil")"
        }
        /// Equal to the bit: same run-now answer, next moment equal bit for bit, or both nil.
        package func sameBits(_ other: Answer) -> Bool {
            wouldRun == other.wouldRun && nextEligible?.bitPattern == other.nextEligible?.bitPattern
        }
    }

    package static let walkCap = 1 << 18

    /// The model's answer, or nil when the walk would exceed ``walkCap`` (see the type's comment).
    package static func decide(_ rule: GateRule, record: FirstTimeRecord?, now: Double, appVersion: String?,
                              calendar: Calendar, library: LibraryVersion) -> Answer? {
        if case .calendar(let interval) = rule {
            return intervalClient(interval, lastTime: record?.lastTime, now: now, calendar: calendar)
        }
        // Both libraries: a key never seen is not executed, so the block runs.
        guard let record else { return Answer(wouldRun: true, nextEligible: now) }
        switch library {
        case .v2: return v2(rule, record: record, now: now, appVersion: appVersion)
        case .v1: return v1(rule, record: record, now: now, appVersion: appVersion)
        }
    }

    static func timeless(_ runs: Bool, _ now: Double) -> Answer {
        Answer(wouldRun: runs, nextEligible: runs ? now : nil)
    }

    // MARK: 2.x

    static func v2(_ rule: GateRule, record: FirstTimeRecord, now: Double, appVersion: String?) -> Answer? {
        switch rule {
        case .once:
            return timeless(false, now)
        case .perVersion:
            // `versionProvider?() != info.lastVersion`: Swift String equality is canonical equivalence.
            return timeless(appVersion != record.lastVersion, now)
        case .everyDays(let days):
            guard days > 0, let lastTime = record.lastTime else { return timeless(false, now) }
            let last = Date(timeIntervalSinceReferenceDate: lastTime)
            let runs: (Double) -> Bool = { t in
                let elapsed = Date(timeIntervalSinceReferenceDate: t).timeIntervalSince(last)
                return elapsed / 86_400 >= Double(days)
            }
            if runs(now) { return Answer(wouldRun: true, nextEligible: now) }
            let estimate: Double
            if days == .infinity {
                // Only an elapsed time of +inf divides to >= inf: the subtraction overflows once the exact
                // difference reaches greatestFiniteMagnitude + 2^970 (half an ulp; the tie rounds up, to inf).
                estimate = (lastTime + Double.greatestFiniteMagnitude) + 0x1p970
            } else {
                estimate = lastTime + Double(days) * 86_400
            }
            guard let next = earliest(after: now, estimate: estimate, runs) else { return nil }
            return Answer(wouldRun: false, nextEligible: next)
        case .calendar:
            return nil
        }
    }

    // MARK: 1.x

    /// `[a isEqualToString:b]`: NO when either is nil; otherwise the UTF-16 code units compared literally.
    static func objcIsEqualToString(_ a: String?, _ b: String?) -> Bool {
        guard let a, let b else { return false }
        return Array(a.utf16) == Array(b.utf16)
    }

    static func v1(_ rule: GateRule, record: FirstTimeRecord, now: Double, appVersion: String?) -> Answer? {
        switch rule {
        case .once:
            return timeless(false, now)
        case .perVersion:
            return timeless(!objcIsEqualToString(appVersion, record.lastVersion), now)
        case .everyDays(let days):
            // `if (days && blockInfo)`: any non-zero float, NaN included.
            guard days != 0 else { return timeless(false, now) }
            // `timeIntervalSinceDate:nil` subtracts the 0.0 a message to nil returns.
            let lastTime = record.lastTime ?? 0
            let runs: (Double) -> Bool = { t in
                let difference = Float(t - lastTime)
                return !(difference / 84_600 < days)
            }
            if runs(now) { return Answer(wouldRun: true, nextEligible: now) }
            // The smallest Float difference F that makes the block run, found by walking the floats.
            let holds: (Float) -> Bool = { !($0 / 84_600 < days) }
            var f = Float(Double(days) * 84_600)
            if holds(f) {
                while f > -Float.infinity, holds(f.nextDown) { f = f.nextDown }
            } else {
                while !holds(f), f < .infinity { f = f.nextUp }
            }
            // The smallest double rounding to at least F lies at the midpoint below F.
            let threshold: Double
            if f == .infinity {
                threshold = Double(Float.greatestFiniteMagnitude) + 0x1p103
            } else if f == -Float.greatestFiniteMagnitude {
                threshold = -(Double(Float.greatestFiniteMagnitude) + 0x1p103)
            } else if f == -Float.infinity {
                threshold = -.infinity
            } else {
                threshold = (Double(f.nextDown) + Double(f)) / 2
            }
            guard let next = earliest(after: now, estimate: lastTime + threshold, runs) else { return nil }
            return Answer(wouldRun: false, nextEligible: next)
        case .calendar:
            return nil
        }
    }

    // MARK: IntervalClient

    static func intervalClient(_ interval: CalendarInterval, lastTime: Double?, now: Double,
                               calendar: Calendar) -> Answer {
        guard let lastTime else { return Answer(wouldRun: true, nextEligible: now) }
        guard let due = calendar.date(byAdding: interval.component, value: interval.value,
                                      to: Date(timeIntervalSinceReferenceDate: lastTime))
        else { return Answer(wouldRun: true, nextEligible: now) }
        if Date(timeIntervalSinceReferenceDate: now) >= due { return Answer(wouldRun: true, nextEligible: now) }
        return Answer(wouldRun: false, nextEligible: due.timeIntervalSinceReferenceDate)
    }

    // MARK: The walk

    /// The least finite instant where `runs` holds, given that `runs` is monotone and false at `now`;
    /// `.some(nil)` when no finite instant runs, nil when the walk would exceed ``walkCap``.
    static func earliest(after now: Double, estimate: Double, _ runs: (Double) -> Bool) -> Double?? {
        let top = Double.greatestFiniteMagnitude
        var t = estimate.isNaN ? top : Swift.min(Swift.max(estimate, now), top)
        if t == 0 { t = 0 }
        var steps = 0
        if runs(t) {
            // Walk down; it stops above `now`, where `runs` is false.
            while runs(t.nextDown) {
                t = t.nextDown
                steps += 1
                if steps > walkCap { return nil }
            }
            return .some(t)
        }
        while !runs(t) {
            if t == top { return .some(nil) }
            t = t.nextUp
            steps += 1
            if steps > walkCap { return nil }
        }
        return .some(t)
    }
}
