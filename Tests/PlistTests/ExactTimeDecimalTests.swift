import Testing
import Plist
import PlistCore
import TestSupport

/// `ExactTime` builds a parsed instant's decimal without 128-bit integers (Apple platforms have
/// them only from iOS 18 / macOS 15); here the old 128-bit arithmetic is the reference.
@Suite struct ExactTimeDecimalTests {
    static func reference(_ seconds: Int64, _ fraction: String) -> Double {
        if fraction.isEmpty { return Double(seconds) }
        let total = Int128(seconds) * Int128(ExactTime.pow10(fraction.count)) + Int128(Int64(fraction)!)
        var digits = String(total.magnitude)
        if digits.count <= fraction.count { digits = String(repeating: "0", count: fraction.count - digits.count + 1) + digits }
        digits.insert(".", at: digits.index(digits.endIndex, offsetBy: -fraction.count))
        return Double((total < 0 ? "-" : "") + digits)!
    }

    @Test func sameDoubleAsThe128BitDecimal() {
        var random = SplitMix64(seed: 17)
        var cases: [(Int64, String)] = [(-1, "5"), (-5, "25"), (0, "000000001"), (-1, "999999999999999999"),
                                        (-978_307_200, "000001"), (Int64.min / 10, "123456789"), (-3_000_000_000, "25"),
                                        (252_423_993_599, "999999999"), (-63_113_904_000, "000000000000000001")]
        for _ in 0..<20_000 {
            let seconds = Int64(bitPattern: random.next()) % 400_000_000_000
            let n = Int(random.next() % 19)
            let fraction = String((0..<n).map { _ in Character(String(random.next() % 10)) })
            cases.append((seconds, fraction))
        }
        for (seconds, fraction) in cases {
            let got = ExactTime.secondsSince2001(seconds: seconds, fraction: fraction)
            #expect(got.bitPattern == Self.reference(seconds, fraction).bitPattern, "\(seconds) .\(fraction)")
            let scaled = Int128(seconds) * Int128(ExactTime.pow10(fraction.count)) + Int128(fraction.isEmpty ? 0 : Int64(fraction)!)
            #expect(ExactTime.scaledUTC(seconds: seconds, fraction: fraction) == Int64(exactly: scaled), "\(seconds) .\(fraction)")
        }
    }

    /// Rounded up, never to an earlier microsecond; the fraction carries into the seconds.
    @Test func roundedUpIsNeverEarly() {
        #expect(ExactTime.utcStringRoundedUp(secondsSince2001: 3600.0000001) == "2001-01-01T01:00:00.000001Z")
        #expect(ExactTime.utcStringRoundedUp(secondsSince2001: 3600) == "2001-01-01T01:00:00.000000Z")
        #expect(ExactTime.utcStringRoundedUp(secondsSince2001: 3599.9999996) == "2001-01-01T01:00:00.000000Z")
        #expect(ExactTime.utcStringRoundedUp(secondsSince2001: 3599.9999991) == "2001-01-01T01:00:00.000000Z")
        #expect(ExactTime.utcStringRoundedUp(secondsSince2001: 757414800.1234561) == "2025-01-01T09:00:00.123457Z")
        #expect(ExactTime.utcStringRoundedUp(secondsSince2001: .nan) == nil)
    }
}
