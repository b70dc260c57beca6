/// Exact conversions between property-list times (seconds since 2001-01-01T00:00:00Z, as
/// `NSDate` and plist dates store them) and text.
public enum ExactTime {
    /// The instant as ISO 8601 UTC with six fractional digits (`2025-01-01T09:00:00.123456Z`),
    /// rounded to the nearest microsecond from the shortest decimal text of the double (so
    /// `757414800.123456` shows as `.123456`, never `.123455`). Nil for non-finite times and
    /// instants outside years 0001–9999.
    public static func utcString(secondsSince2001 seconds: Double) -> String? {
        guard seconds.isFinite, let micros = scaled(seconds, digits: 6) else { return nil }
        let (whole, fraction) = CivilTime.floorDivMod(micros, 1_000_000)
        guard let text = CivilTime.isoDateTime(secondsSince2001: whole) else { return nil }
        let digits = String(fraction)
        return text + "." + String(repeating: "0", count: 6 - digits.count) + digits + "Z"
    }

    /// `seconds × 10^digits`, rounded half away from zero using the shortest decimal text of
    /// `seconds`; nil when the result does not fit comfortably in `Int64`.
    public static func scaled(_ seconds: Double, digits: Int) -> Int64? {
        guard seconds.isFinite, seconds.magnitude < 1e12, (0...9).contains(digits) else { return nil }
        // Decompose the shortest round-trip text into sign, digit string and decimal exponent.
        var text = seconds.description
        let negative = text.hasPrefix("-")
        if negative { text.removeFirst() }
        var exponent = 0
        if let e = text.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            exponent = Int(text[text.index(after: e)...])!
            text = String(text[..<e])
        }
        var mantissa = text
        if let dot = mantissa.firstIndex(of: ".") {
            exponent -= mantissa.distance(from: dot, to: mantissa.endIndex) - 1
            mantissa.remove(at: dot)
        }
        // value = mantissa × 10^exponent; we want round(value × 10^digits).
        let shift = exponent + digits
        var digitsArray = mantissa.utf8.map { Int64($0 - UInt8(ascii: "0")) }
        var roundUp = false
        if shift < 0 {
            let keep = digitsArray.count + shift
            if keep < 0 {
                digitsArray = []
            } else {
                roundUp = digitsArray[keep] >= 5
                digitsArray = Array(digitsArray[..<keep])
            }
        } else {
            digitsArray += Array(repeating: 0, count: shift)
        }
        var value: Int64 = 0
        for d in digitsArray {
            let (m, o1) = value.multipliedReportingOverflow(by: 10)
            let (a, o2) = m.addingReportingOverflow(d)
            guard !o1, !o2 else { return nil }
            value = a
        }
        if roundUp { value += 1 }
        return negative ? -value : value
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fraction]Z` (UTC, up to nine fractional digits).
    /// - Returns: the instant as whole seconds since 2001 and the fraction's digits, or nil.
    public static func parseUTC(_ text: String) -> (seconds: Int64, fraction: String)? {
        guard text.hasSuffix("Z"), text.utf8.count >= 20 else { return nil }
        let body = text.dropLast()
        let main = body.prefix(19)
        guard let seconds = CivilTime.parseISODateTime(main) else { return nil }
        var fraction = ""
        let rest = body.dropFirst(19)
        if !rest.isEmpty {
            guard rest.first == ".", rest.count >= 2, rest.count <= 10 else { return nil }
            fraction = String(rest.dropFirst())
            guard fraction.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        }
        return (seconds, fraction)
    }

    /// The double nearest to a parsed UTC instant (correctly rounded from its decimal value).
    public static func secondsSince2001(seconds: Int64, fraction: String) -> Double {
        if fraction.isEmpty { return Double(seconds) }
        // Exact decimal: seconds + 0.fraction, written out and read by the correctly rounded parser.
        let scale = Int64(pow10(fraction.count))
        let total = seconds * scale + Int64(fraction)!
        let negative = total < 0
        var digits = String(total.magnitude)
        if digits.count <= fraction.count { digits = String(repeating: "0", count: fraction.count - digits.count + 1) + digits }
        digits.insert(".", at: digits.index(digits.endIndex, offsetBy: -fraction.count))
        return Double((negative ? "-" : "") + digits)!
    }

    private static func pow10(_ n: Int) -> Int64 {
        var v: Int64 = 1
        for _ in 0..<n { v *= 10 }
        return v
    }
}
