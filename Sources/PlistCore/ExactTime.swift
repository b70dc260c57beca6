/// Exact conversions between property-list times (seconds since 2001-01-01T00:00:00Z, as
/// `NSDate` and plist dates store them) and text.
package enum ExactTime {
    /// The instant as ISO 8601 UTC with six fractional digits (`2025-01-01T09:00:00.123456Z`),
    /// rounded to the nearest microsecond from the shortest decimal text of the double (so
    /// `757414800.123456` shows as `.123456`, never `.123455`). Nil for non-finite times and
    /// instants outside years 0001–9999.
    package static func utcString(secondsSince2001 seconds: Double) -> String? {
        var text: String?
        withUTCText(secondsSince2001: seconds, shortest: seconds.description) { text = String(decoding: $0, as: UTF8.self) }
        return text
    }

    /// Hands `body` the UTF-8 of ``utcString(secondsSince2001:)``, made on the stack, given
    /// `seconds` and its shortest round-trip text (`seconds.description`); false, without
    /// calling `body`, where there is none. For a writer that copies the text out at once (the
    /// records' JSON, which needs no `String` of it). Not generic: called from other modules,
    /// a generic function here runs unspecialised and cost more than the `String` it saves.
    @discardableResult
    package static func withUTCText(secondsSince2001 seconds: Double, shortest: String,
                                    _ body: (UnsafeBufferPointer<UInt8>) -> Void) -> Bool {
        guard seconds.isFinite, let micros = scaled(seconds, shortest: shortest, digits: 6) else { return false }
        let (whole, fraction) = CivilTime.floorDivMod(micros, 1_000_000)
        let (daysSince2001, secondOfDay) = CivilTime.floorDivMod(whole, 86_400)
        let (year, month, day) = CivilTime.date(days: daysSince2001 + CivilTime.referenceDaysFrom1970)
        guard (1...9999).contains(year) else { return false }
        // YYYY-MM-DDTHH:MM:SS.ffffffZ, written digit by digit into a stack buffer.
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 27) { text in
            func put(_ value: Int64, at start: Int, width: Int) {
                var v = value
                for i in stride(from: start + width - 1, through: start, by: -1) {
                    text[i] = UInt8(truncatingIfNeeded: 48 + v % 10)
                    v /= 10
                }
            }
            put(year, at: 0, width: 4); text[4] = 0x2D
            put(month, at: 5, width: 2); text[7] = 0x2D
            put(day, at: 8, width: 2); text[10] = 0x54
            put(secondOfDay / 3600, at: 11, width: 2); text[13] = 0x3A
            put(secondOfDay / 60 % 60, at: 14, width: 2); text[16] = 0x3A
            put(secondOfDay % 60, at: 17, width: 2); text[19] = 0x2E
            put(fraction, at: 20, width: 6); text[26] = 0x5A
            body(UnsafeBufferPointer(text))
            return true
        }
    }

    /// ``utcString(secondsSince2001:)`` rounded up to the microsecond, not to the nearest: the
    /// instant shown is never before `seconds`, so a moment read back from it (`status --now`)
    /// is at or after it. For a moment a gate becomes eligible. Nil outside years 1-9999.
    ///
    /// ```swift
    /// ExactTime.utcStringRoundedUp(secondsSince2001: 3600.0000001)   // "2001-01-01T01:00:00.000001Z"
    /// ```
    package static func utcStringRoundedUp(secondsSince2001 seconds: Double) -> String? {
        guard let text = utcString(secondsSince2001: seconds), let shown = parseUTC(text) else { return nil }
        guard secondsSince2001(seconds: shown.seconds, fraction: shown.fraction) < seconds,
              let micros = Int(shown.fraction) else { return text }
        // One microsecond later: the fraction carries into the seconds at 999999.
        let (whole, fraction) = micros == 999_999 ? (shown.seconds + 1, 0) : (shown.seconds, micros + 1)
        let digits = String(fraction)
        return utcText(seconds: whole, fraction: String(repeating: "0", count: 6 - digits.count) + digits)
    }

    /// The instant for people: ``utcString(secondsSince2001:)`` where it has one, else what the
    /// instant is: `beyond year 9999`, `before year 1`, `+infinity`, `-infinity` or `NaN`
    /// (never a raw number in a date column).
    package static func utcText(secondsSince2001 seconds: Double) -> String {
        if let text = utcString(secondsSince2001: seconds) { return text }
        if seconds.isNaN { return "NaN" }
        if seconds.isInfinite { return seconds < 0 ? "-infinity" : "+infinity" }
        return seconds < 0 ? "before year 1" : "beyond year 9999"
    }

    /// `seconds × 10^digits`, rounded half away from zero using the shortest decimal text of
    /// `seconds` (`shortest`, when the caller has it: `seconds.description`); nil when the result
    /// does not fit comfortably in `Int64`.
    ///
    /// One pass over that text: its digits as one integer M (at most 17 after leading zeros, so it
    /// fits in `UInt64`), how many follow the point, the exponent; then M × 10^shift, or for a
    /// negative shift M divided by 10^-shift, rounded up when the first digit dropped is 5 or more
    /// (the digits after it only add).
    package static func scaled(_ seconds: Double, shortest: String? = nil, digits: Int) -> Int64? {
        guard seconds.isFinite, seconds.magnitude < 1e12, (0...9).contains(digits) else { return nil }
        // The shortest round-trip text: [-]digits[.digits][e[-]digits]
        var text = shortest ?? seconds.description
        return text.withUTF8 { bytes -> Int64? in
            // unreachable: `shortest` is a finite Double's description: never empty
            guard let first = bytes.first else { return nil }
            let negative = first == UInt8(ascii: "-")
            var mantissa: UInt64 = 0
            var fractionDigits = 0, exponent = 0
            var inFraction = false
            for i in (negative ? 1 : 0)..<bytes.count {
                let c = bytes[i]
                if c == UInt8(ascii: ".") {
                    inFraction = true
                } else if c == UInt8(ascii: "e") || c == UInt8(ascii: "E") {
                    // unreachable: a Double's description has a whole number after its 'e'
                    exponent = Int(String(decoding: bytes[(i + 1)...], as: UTF8.self)) ?? 0
                    break
                } else {
                    let digit = c &- UInt8(ascii: "0")
                    // unreachable: a finite Double's description holds only digits, '-', '.' and 'e' before its
                    // exponent
                    guard digit <= 9 else { return nil }
                    // Leading zeros add nothing; a shortest text has at most 17 other digits.
                    let (times10, o1) = mantissa.multipliedReportingOverflow(by: 10)
                    let (sum, o2) = times10.addingReportingOverflow(UInt64(digit))
                    // unreachable: a shortest round-trip text has at most 17 significant digits, below 2^64
                    guard !o1, !o2 else { return nil }
                    mantissa = sum
                    if inFraction { fractionDigits += 1 }
                }
            }
            // value = M × 10^(exponent - fractionDigits); we want round(value × 10^digits).
            let shift = exponent - fractionDigits + digits
            var value: UInt64
            if shift >= 0 {
                value = mantissa
                for _ in 0..<shift {
                    let (m, overflow) = value.multipliedReportingOverflow(by: 10)
                    guard !overflow else { return nil }
                    value = m
                }
            } else if -shift > 19 {
                value = 0   // M < 2^64 < 5 × 10^19: nothing kept, and the first digit dropped is below 5
            } else {
                var divisor: UInt64 = 1
                for _ in 0..<(-shift) { divisor &*= 10 }
                value = mantissa / divisor
                if mantissa % divisor >= divisor / 10 * 5 { value += 1 }
            }
            guard let magnitude = Int64(exactly: value) else { return nil }
            return negative ? -magnitude : magnitude
        }
    }

    /// Why a text is not an instant ``utcInstant(_:)`` and ``exactInstant(_:)`` read: not of
    /// their form at all, or one of the near misses a message names.
    package enum InstantDefect: Error, Equatable, Sendable, CustomStringConvertible {
        /// Not `YYYY-MM-DDTHH:MM:SS[.fraction]` with `Z` or an offset.
        case malformed
        /// Second 60 (`23:59:60`), a leap second: seconds since 2001 (`NSDate`'s, as POSIX
        /// time) do not count leap seconds, so no time is that second.
        case leapSecond
        /// More than nine digits after the point (the count): the fraction is read to the nanosecond.
        case fractionDigits(Int)
        /// A date or time of the right form that does not exist, and why (`February 2025 has 28
        /// days`, `there is no month 13`, `there is no hour 24 (hours run 00 to 23)`).
        case impossible(String)

        /// What is wrong, for a message after the text: `second 60 is a leap second, ...`.
        package var description: String {
            switch self {
            case .malformed: return "not a time like 2025-01-01T09:00:00Z"
            case .leapSecond:
                return "second 60 is a leap second, which times since 2001 do not count (NSDate, like POSIX time, has no leap seconds); "
                    + "give second 59 or the next minute"
            case let .fractionDigits(count): return "it has \(count) digits after the decimal point; ycft reads at most 9 (nanoseconds)"
            case let .impossible(why): return why
            }
        }
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fraction]Z` (UTC, up to nine fractional digits).
    /// - Returns: the instant as whole seconds since 2001 and the fraction's digits, or nil.
    package static func parseUTC(_ text: String) -> (seconds: Int64, fraction: String)? { try? utcInstant(text) }

    /// ``parseUTC(_:)``, saying why a text is not such an instant.
    /// - Throws: ``InstantDefect``: a leap second, more than nine fractional digits, or `.malformed`.
    package static func utcInstant(_ text: String) throws(InstantDefect) -> (seconds: Int64, fraction: String) {
        guard text.hasSuffix("Z"), text.utf8.count >= 20 else { throw .malformed }
        let body = text.dropLast()
        let main = body.prefix(19)
        guard let seconds = CivilTime.parseISODateTime(main) else {
            // A time that reads once its second 60 is 59: a leap second.
            let leap = main.hasSuffix(":60") && CivilTime.parseISODateTime(main.dropLast(2) + "59") != nil
            if leap { throw .leapSecond }
            throw impossibility(main).map { .impossible($0) } ?? .malformed
        }
        var fraction = ""
        let rest = body.dropFirst(19)
        if !rest.isEmpty {
            guard rest.first == ".", rest.count >= 2 else { throw .malformed }
            fraction = String(rest.dropFirst())
            guard fraction.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { throw .malformed }
            guard fraction.utf8.count <= 9 else { throw .fractionDigits(fraction.utf8.count) }
        }
        return (seconds, fraction)
    }

    /// Why `YYYY-MM-DDTHH:MM:SS`, digits where its digits go, is no date and time (the first
    /// field out of range, named); nil when it is not of that form or is one.
    private static func impossibility(_ main: Substring) -> String? {
        guard let (year, month, day, hour, minute, second) = CivilTime.fields(Array(main.utf8)) else { return nil }
        let months = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
                      "November", "December"]
        if year == 0 { return "there is no year 0 (ycft reads years 1 to 9999)" }
        guard (1...12).contains(month) else { return "there is no month \(month)" }
        let days = CivilTime.daysIn(year: year, month: month)
        if day == 0 { return "there is no day 0" }
        if day > days { return "\(months[Int(month) - 1]) \(year) has \(days) days" }
        if hour > 23 { return "there is no hour \(hour) (hours run 00 to 23)" }
        if minute > 59 { return "there is no minute \(minute) (minutes run 00 to 59)" }
        if second > 60 { return "there is no second \(second) (seconds run 00 to 59)" }
        return nil
    }

    /// Why a decimal number of seconds is not one a double holds (``seconds(decimal:)``).
    package enum DecimalDefect: Error, Equatable, Sendable, CustomStringConvertible {
        /// Not a decimal number (`nan`, `inf`, `0x10`, `1e5e5`).
        case notDecimal
        /// Beyond the largest double: it would read as an infinity.
        case overflow
        /// Not zero, but nearer to zero than the smallest double: it would read as 0.
        case underflow
        /// Below the smallest normal double (2.2250738585072014e-308): a subnormal double,
        /// which holds fewer significant digits than any other.
        case subnormal

        /// What is wrong, for a message after the text.
        package var description: String {
            switch self {
            case .notDecimal: return "expected a finite decimal number of seconds since 2001"
            case .overflow: return "it is too large for a double, which would read it as infinity"
            case .underflow: return "it is not zero but too small for a double, which would read it as 0"
            case .subnormal:
                return "it is below the smallest normal double (\(Double.leastNormalMagnitude)), where a double holds fewer significant digits"
            }
        }
    }

    /// A decimal number of seconds (`757414800.123456`, `-1.5e3`, digits with an optional
    /// sign, point and exponent) as the nearest double, refused where that double does not
    /// stand for it: an infinity for a number too large, 0 for one not zero but too small, a
    /// subnormal (all of whose digits a double no longer keeps).
    ///
    /// ```swift
    /// try ExactTime.seconds(decimal: "757414800.123456")   // 757414800.123456
    /// try ExactTime.seconds(decimal: "1e-400")             // throws .underflow
    /// ```
    /// - Throws: ``DecimalDefect``.
    ///
    /// With `allowingSubnormal`, a subnormal is kept: for text that stands for a stored double
    /// (`dump`'s `lastTime`, whose shortest text reads back to the same bits), not one a person types.
    package static func seconds(decimal text: String, allowingSubnormal: Bool = false) throws(DecimalDefect) -> Double {
        let utf8 = text.utf8
        // Not nan, inf or 0x10 (which Double reads as hexadecimal): digits, sign, point, exponent.
        guard utf8.allSatisfy({ ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || Array("+-.eE".utf8).contains($0) }),
              utf8.contains(where: { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }), let value = Double(text) else {
            throw .notDecimal
        }
        if value.isInfinite { throw .overflow }
        // Zero only when every digit before the exponent is zero.
        let mantissa = utf8.prefix { $0 != UInt8(ascii: "e") && $0 != UInt8(ascii: "E") }
        let zero = mantissa.allSatisfy { $0 < UInt8(ascii: "1") || $0 > UInt8(ascii: "9") }
        if value == 0 && !zero { throw .underflow }
        if value.isSubnormal && !allowingSubnormal { throw .subnormal }
        return value
    }

    /// Whether a time read from text may be stored as `nearest`, its nearest double: only when
    /// that double shows as a UTC time again (9999-12-31T23:59:59.9999999Z rounds to year 10000,
    /// which has none), so a time ycft stores from text never reads back as no time. Asked by
    /// `set --last-time` and by `pack` for a `lastTimeUTC` without `lastTime`.
    ///
    /// ```swift
    /// ExactTime.isStorable(757_414_800.5)      // true
    /// ExactTime.isStorable(252_423_993_600)    // false: 10000-01-01T00:00:00Z
    /// ```
    package static func isStorable(_ nearest: Double) -> Bool { utcString(secondsSince2001: nearest) != nil }

    /// Parses ISO 8601 `YYYY-MM-DDTHH:MM:SS[.fraction]` with `Z` or an offset `±HH:MM` to the
    /// double nearest to its seconds since 2001 (correctly rounded); nil when malformed.
    ///
    /// ```swift
    /// ExactTime.parseInstant("2025-01-01T10:00:00.5+01:00")  // 757_414_800.5
    /// ```
    package static func parseInstant(_ text: String) -> Double? {
        parseExactInstant(text).map { secondsSince2001(seconds: $0.seconds, fraction: $0.fraction) }
    }

    /// Parses what ``parseInstant(_:)`` parses, without rounding: the instant in UTC as whole
    /// seconds since 2001 (rounded down) and the digits of its fraction of a second, as given
    /// (up to nine). ``utcText(seconds:fraction:)`` shows it; ``secondsSince2001(seconds:fraction:)``
    /// is the nearest double.
    ///
    /// ```swift
    /// ExactTime.parseExactInstant("2025-01-01T10:00:00.5+01:00")  // (757_414_800, "5")
    /// ```
    package static func parseExactInstant(_ text: String) -> (seconds: Int64, fraction: String)? { try? exactInstant(text) }

    /// ``parseExactInstant(_:)``, saying why a text is not such an instant.
    /// - Throws: ``InstantDefect``: a leap second, more than nine fractional digits, or `.malformed`.
    package static func exactInstant(_ text: String) throws(InstantDefect) -> (seconds: Int64, fraction: String) {
        do throws(InstantDefect) { return try utcInstant(text) } catch where error != .malformed { throw error } catch {}
        guard text.utf8.count >= 25 else { throw .malformed }
        let zonePart = text.suffix(6)
        let sign: Int64
        switch zonePart.first {
        case "+": sign = 1
        case "-": sign = -1
        default: throw .malformed
        }
        let parts = zonePart.dropFirst().split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].utf8.count == 2, parts[1].utf8.count == 2,
              let h = Int64(parts[0]), let m = Int64(parts[1]), h >= 0, m >= 0, h < 24, m < 60 else { throw .malformed }
        let parsed = try utcInstant(String(text.dropLast(6)) + "Z")
        return (parsed.seconds - sign * (h * 3600 + m * 60), parsed.fraction)
    }

    /// An exact instant (``parseExactInstant(_:)``) as ISO 8601 UTC with its fraction exactly
    /// as given, at least six digits like ``utcString(secondsSince2001:)`` (zeros appended),
    /// never rounded: `9999-12-31T23:59:59.9999999Z` stays in its second and its year, where
    /// its nearest double (252,423,993,600) is the first second of year 10000. Nil outside years
    /// 0001-9999 or for a fraction that is not 0 to 9 decimal digits.
    package static func utcText(seconds: Int64, fraction: String) -> String? {
        guard fraction.utf8.count <= 9, fractionValue(fraction) != nil,
              let whole = utcString(secondsSince2001: Double(seconds)) else { return nil }
        let digits = fraction.utf8.count >= 6 ? fraction : fraction + String(repeating: "0", count: 6 - fraction.utf8.count)
        return "\(whole.prefix(20))\(digits)Z"
    }

    /// The ISO 8601 suffix of a UTC offset: `Z` for zero, else `+HH:MM` / `-HH:MM`, with its
    /// seconds when it has any (`+00:09:21`, Paris's local mean time before 1891), so the local
    /// time shown and its offset are the instant to the second.
    package static func offsetSuffix(seconds offset: Int) -> String {
        guard offset != 0 else { return "Z" }
        let seconds = offset.magnitude % 60, minutes = offset.magnitude / 60
        func two(_ n: UInt) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return (offset < 0 ? "-" : "+") + two(minutes / 60) + ":" + two(minutes % 60) + (seconds == 0 ? "" : ":" + two(seconds))
    }

    /// The double nearest to a parsed UTC instant (correctly rounded from its decimal value).
    /// Total for every value ``parseUTC(_:)`` returns: the decimal is written out digit by digit
    /// (year 9999 with nine fractional digits is beyond `Int64` once scaled), with no 128-bit
    /// integers, which Apple platforms have only from iOS 18 and macOS 15.
    package static func secondsSince2001(seconds: Int64, fraction: String) -> Double {
        if fraction.isEmpty { return Double(seconds) }
        guard let f = fractionValue(fraction) else { return .nan }
        // unreachable: a well-formed decimal always parses (out-of-range values become infinity, not nil)
        if seconds >= 0 || f == 0 { return Double("\(seconds).\(fraction)") ?? .nan }
        // seconds + 0.fraction for negative seconds: -((|seconds| - 1) + (10^n - fraction) / 10^n).
        let complement = String(pow10(fraction.utf8.count) - f)
        let digits = String(repeating: "0", count: fraction.utf8.count - complement.utf8.count) + complement
        // unreachable: a well-formed decimal always parses (out-of-range values become infinity, not nil)
        return Double("-\(seconds.magnitude - 1).\(digits)") ?? .nan
    }

    /// `seconds × 10^digits + fraction` exactly, for a parsed UTC instant with `digits`
    /// fractional digits; nil when `fraction` is not 0 to 18 decimal digits or the result is
    /// beyond `Int64` (no time scaled by ``scaled(_:shortest:digits:)`` equals it then).
    package static func scaledUTC(seconds: Int64, fraction: String) -> Int64? {
        guard let f = fractionValue(fraction) else { return nil }
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: pow10(fraction.utf8.count))
        let (total, carry) = scaled.addingReportingOverflow(f)
        return overflow || carry ? nil : total
    }

    /// The value of 0 to 18 decimal digits (0 for none).
    private static func fractionValue(_ fraction: String) -> Int64? {
        guard fraction.utf8.count <= 18,
              fraction.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        return fraction.isEmpty ? 0 : Int64(fraction)
    }

    /// 10^n for n from 0 to 18.
    package static func pow10(_ n: Int) -> Int64 {
        var v: Int64 = 1
        for _ in 0..<n { v *= 10 }
        return v
    }
}
