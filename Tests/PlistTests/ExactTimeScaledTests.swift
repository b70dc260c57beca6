import Testing
import PlistCore
import TestSupport

/// `ExactTime.scaled` (a time as whole units of 10^-digits seconds, rounded half away from zero
/// on its shortest decimal text: what every UTC text and every "same instant?" check is made
/// from) reads the text in one pass; the two-pass code it replaced is the reference here.
@Suite struct ExactTimeScaledTests {
    static func reference(_ seconds: Double, digits: Int) -> Int64? {
        guard seconds.isFinite, seconds.magnitude < 1e12, (0...9).contains(digits) else { return nil }
        // The shortest round-trip text: [-]digits[.digits][e[-]digits]
        var text = seconds.description
        return text.withUTF8 { bytes -> Int64? in
            guard !bytes.isEmpty else { return nil }
            // First pass: how many mantissa digits, how many after the point, the exponent.
            var i = bytes[0] == UInt8(ascii: "-") ? 1 : 0
            let negative = i == 1
            let start = i
            var count = 0, fractionDigits = 0, exponent = 0
            var inFraction = false
            while i < bytes.count {
                let c = bytes[i]
                if c == UInt8(ascii: ".") {
                    inFraction = true
                } else if c == UInt8(ascii: "e") || c == UInt8(ascii: "E") {
                    exponent = Int(String(decoding: bytes[(i + 1)...], as: UTF8.self)) ?? 0
                    break
                } else {
                    count += 1
                    if inFraction { fractionDigits += 1 }
                }
                i += 1
            }
            // value = mantissa × 10^(exponent - fractionDigits); we want round(value × 10^digits).
            let shift = exponent - fractionDigits + digits
            var keep = count
            if shift < 0 { keep = max(0, count + shift) }
            // Second pass: the first `keep` digits, and the one after them for rounding.
            var value: Int64 = 0
            var seen = 0
            var roundUp = false
            i = start
            while i < bytes.count, seen <= keep {
                let c = bytes[i]
                i += 1
                if c == UInt8(ascii: ".") { continue }
                if c == UInt8(ascii: "e") || c == UInt8(ascii: "E") { break }
                if seen == keep {
                    roundUp = shift < 0 && count + shift >= 0 && c &- 48 >= 5
                    break
                }
                let (m, o1) = value.multipliedReportingOverflow(by: 10)
                let (sum, o2) = m.addingReportingOverflow(Int64(c &- 48))
                guard !o1, !o2 else { return nil }
                value = sum
                seen += 1
            }
            if shift > 0 {
                for _ in 0..<shift {
                    let (m, o) = value.multipliedReportingOverflow(by: 10)
                    guard !o else { return nil }
                    value = m
                }
            }
            if roundUp { value += 1 }
            return negative ? -value : value
        }
    }

    static var cases: [Double] {
        var values: [Double] = [0, -0.0, 1, -1, 0.5, -0.5, 1.5, 2.5, 0.0000005, 0.0000015, -0.0000005, 0.00000049999999,
                                1e-5, 1.5e-5, 9.9999e-5, 0.0001, 0.00012345678901234567, .leastNonzeroMagnitude, -.leastNonzeroMagnitude, 1e-300,
                                757414800.123456, 757414800.1234565, 999999999999.9999, -999999999999.9999, 1e11, 9.999e11,
                                123456789.987654321, 0.1, 0.2, 0.3, 4.35, 4.345, 2.675, 1.005, 1e12, .infinity, .nan]
        var random = SplitMix64(seed: 2026)
        for _ in 0..<20_000 {
            let bits = random.next()
            let any = Double(bitPattern: bits)
            if any.isFinite, any.magnitude < 1e12 { values.append(any) }
            // A time as apps write them: whole seconds and a few decimals.
            let whole = Double(Int64(bitPattern: random.next()) % 2_000_000_000)
            let decimals = Double(random.next() % 1_000_000_000) / Double([1, 10, 100, 1000, 1_000_000, 1_000_000_000][Int(random.next() % 6)])
            values.append(whole + decimals)
            values.append(Double(random.next() % 1_000_000) / 1e12)
        }
        return values
    }

    @Test func onePassAgreesWithTheTwoPassReference() {
        for value in Self.cases {
            for digits in 0...9 {
                #expect(ExactTime.scaled(value, digits: digits) == Self.reference(value, digits: digits), "\(value) digits \(digits)")
            }
        }
    }
}
