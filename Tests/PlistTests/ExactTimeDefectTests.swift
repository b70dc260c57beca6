import Testing
import PlistCore

/// What the exact-time parsers say of a text they do not read, and which decimal numbers of
/// seconds a double stands for.
@Suite struct ExactTimeDefectTests {
    func defect(_ text: String) -> ExactTime.InstantDefect? {
        do throws(ExactTime.InstantDefect) { _ = try ExactTime.exactInstant(text); return nil } catch { return error }
    }

    @Test func nearMissesAreNamed() {
        #expect(defect("2016-12-31T23:59:60Z") == .leapSecond)
        #expect(defect("2016-12-31T23:59:60.999999999Z") == .leapSecond)
        #expect(defect("2017-01-01T05:29:60+05:30") == .leapSecond)
        #expect(defect("2025-01-01T00:00:00.1234567890Z") == .fractionDigits(10))
        #expect(defect("2025-01-01T00:00:00.1234567890123-01:00") == .fractionDigits(13))
        // Not a leap second: a minute or hour that does not exist, or a day that does not.
        #expect(defect("2016-12-31T23:60:00Z") == .impossible("there is no minute 60 (minutes run 00 to 59)"))
        #expect(defect("2016-12-32T23:59:60Z") == .impossible("December 2016 has 31 days"))
        #expect(defect("2016-12-31T24:59:60Z") == .impossible("there is no hour 24 (hours run 00 to 23)"))
        #expect(defect("2025-02-29T00:00:00+01:00") == .impossible("February 2025 has 28 days"))
        #expect(defect("2024-02-30T00:00:00Z") == .impossible("February 2024 has 29 days"))
        #expect(defect("2025-13-01T00:00:00Z") == .impossible("there is no month 13"))
        #expect(defect("2025-00-01T00:00:00Z") == .impossible("there is no month 0"))
        #expect(defect("2025-01-00T00:00:00Z") == .impossible("there is no day 0"))
        #expect(defect("0000-01-01T00:00:00Z") == .impossible("there is no year 0 (ycft reads years 1 to 9999)"))
        #expect(defect("2025-01-01T00:00:61Z") == .impossible("there is no second 61 (seconds run 00 to 59)"))
        // No field to name: a letter where a digit goes, or a character of more than one byte.
        #expect(defect("2025-0a-01T00:00:00Z") == .malformed)
        #expect(defect("2025-01-01T00:00:0\u{E9}Z") == .malformed)
        #expect(defect("2025-1-01T00:00:00Z") == .malformed)
        #expect(defect("2025-01-01T00:00:00.12345678aZ") == .malformed)
        #expect(defect("2025-01-01T00:00:00.Z") == .malformed)
        // Nine digits are read, to the nanosecond.
        #expect(defect("2025-01-01T00:00:00.123456789Z") == nil)
        #expect(ExactTime.parseUTC("2016-12-31T23:59:60Z") == nil)
        #expect(ExactTime.parseExactInstant("2025-01-01T00:00:00.1234567890Z") == nil)
    }

    func seconds(_ text: String) -> Result<Double, ExactTime.DecimalDefect> {
        do throws(ExactTime.DecimalDefect) { return .success(try ExactTime.seconds(decimal: text)) } catch { return .failure(error) }
    }

    @Test func decimalsADoubleHolds() {
        #expect(seconds("757414800.123456") == .success(757_414_800.123456))
        #expect(seconds("-0") == .success(-0.0) && (try? seconds("-0").get())?.sign == .minus)
        #expect(seconds("0e-400") == .success(0))
        #expect(seconds("0.000e+999") == .success(0))
        #expect(seconds("2.2250738585072014e-308") == .success(.leastNormalMagnitude))
        #expect(seconds("1.7976931348623157e308") == .success(.greatestFiniteMagnitude))
        #expect(seconds("1e309") == .failure(.overflow))
        #expect(seconds("-1e309") == .failure(.overflow))
        #expect(seconds("1e-400") == .failure(.underflow))
        #expect(seconds("-0.00001e-320") == .failure(.underflow))
        #expect(seconds("1e-310") == .failure(.subnormal))
        #expect(seconds("4.9e-324") == .failure(.subnormal))
        for text in ["nan", "inf", "-infinity", "0x10", "", ".", "1e", "1e5e5", "1 "] {
            #expect(seconds(text) == .failure(.notDecimal), "\(text)")
        }
    }
}
