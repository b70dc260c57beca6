/// Proleptic Gregorian calendar arithmetic in UTC, exact and independent of Foundation.
package enum CivilTime {
    /// Days from 1970-01-01 to 2001-01-01, the property-list reference date.
    package static let referenceDaysFrom1970: Int64 = 11_323

    /// Days since 1970-01-01 for a civil date (Howard Hinnant's `days_from_civil`).
    package static func days(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The civil date of a count of days since 1970-01-01 (`civil_from_days`).
    package static func date(days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS` (exactly that shape) into whole seconds since 2001.
    package static func parseISODateTime<S: StringProtocol>(_ text: S) -> Int64? {
        let chars = Array(text.utf8)
        guard chars.count == 19, chars[4] == UInt8(ascii: "-"), chars[7] == UInt8(ascii: "-"),
              chars[10] == UInt8(ascii: "T"), chars[13] == UInt8(ascii: ":"), chars[16] == UInt8(ascii: ":"),
              let (year, month, day, hour, minute, second) = fields(chars),
              year >= 1, (1...12).contains(month), day >= 1, day <= daysIn(year: year, month: month),
              hour < 24, minute < 60, second < 60
        else { return nil }
        let days = self.days(year: year, month: month, day: day) - referenceDaysFrom1970
        return days * 86_400 + hour * 3600 + minute * 60 + second
    }

    /// The six numbers of 19 bytes shaped `YYYY-MM-DDTHH:MM:SS`, digits where its digits go (the
    /// bytes between them are not looked at, nor are the numbers checked as a date); nil otherwise.
    package static func fields(_ chars: [UInt8]) -> (Int64, Int64, Int64, Int64, Int64, Int64)? {
        guard chars.count == 19 else { return nil }
        func number(_ range: Range<Int>) -> Int64? {
            var v: Int64 = 0
            for i in range {
                guard chars[i] >= UInt8(ascii: "0"), chars[i] <= UInt8(ascii: "9") else { return nil }
                v = v * 10 + Int64(chars[i] - UInt8(ascii: "0"))
            }
            return v
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19) else { return nil }
        return (year, month, day, hour, minute, second)
    }

    /// Days in a month of the proleptic Gregorian calendar.
    package static func daysIn(year: Int64, month: Int64) -> Int64 {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Floor division and the non-negative remainder.
    package static func floorDivMod(_ a: Int64, _ b: Int64) -> (Int64, Int64) {
        let q = a / b, r = a % b
        return r < 0 ? (q - 1, r + b) : (q, r)
    }
}
