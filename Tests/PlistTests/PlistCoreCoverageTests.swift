import Testing
@testable import PlistCore
import TestSupport

/// Small answers of PlistCore that no other test asks for: paths in messages, escapes, the
/// limits at their extreme, the time parsers' refusals.
@Suite struct PlistCoreCoverage {
    @Test func pathsNameEveryStepAfterTheFirst() {
        #expect(ObjectPath([.key("a"), .topLevel]).description == "a.top level")
        #expect(ObjectPath([.key("a"), .object(3)]).description == "a.$objects[3]")
        #expect(ObjectPath([.binaryObject(2), .line(7)]).description == "object 2, line 7")
    }

    @Test func aTabIsEscapedForTheTerminalAndKeptInXML() throws {
        #expect(UntrustedText.escaped("a\tb") == #"a\tb"#)
        let xml = try PropertyList.write(.string("a\tb\nc"), format: .xml)
        #expect(String(decoding: xml, as: UTF8.self).contains("<string>a\tb\nc</string>"))
    }

    /// A key holding NUL cannot be written to a binary property list (libplist would cut it).
    @Test func aKeyWithNULIsNotWritten() {
        #expect(throws: PlistError.unwritable(.containsNUL(inKey: true), at: .key("a\u{0}b"))) {
            try PropertyList.write(.dictionary(PlistDictionary([("a\u{0}b", .bool(true))])), format: .binary)
        }
    }

    @Test func aDateIsNamedAsADate() {
        #expect(PlistValue.date(0).kind == .date)
        #expect(PlistKind.date.typeName == "date")
    }

    @Test func aWideIntegerWithoutAHighWordFitsInt64() {
        #expect(PlistInteger.wide(high: 0, low: 5).int64 == 5)
        #expect(PlistInteger.wide(high: 0, low: UInt64(Int64.max) + 1).int64 == nil)
    }

    @Test func libplistsOwnFailuresAreNamedWithTheFormat() {
        #expect(PlistError.libplistRejected(format: .xml).description == "libplist could not parse this xml property list")
        #expect(PlistError.serializationFailed(format: .binary).description == "libplist could not write a binary property list")
    }

    /// The largest input size there is: the expanded-byte and node bounds saturate rather than overflow.
    @Test func limitsSaturateAtTheLargestSize() {
        let limits = PlistLimits(maxInputSize: .max)
        #expect(limits.maxExpandedBytes == .max)
        #expect(limits.nodeBudget(forInputSize: .max) == limits.maxNodes)
        #expect(limits.maxNodes == Int.max / 16)
    }

    @Test func aYearBeforeZeroCountsBackwards() {
        #expect(CivilTime.days(year: -1, month: 3, day: 1) == -719_834)
        #expect(CivilTime.date(days: -719_834) == (year: -1, month: 3, day: 1))
        #expect(CivilTime.parseISODateTime("2025-01-0xT00:00:00") == nil)
    }

    @Test func malformedFractionsAndOffsetsAreRefused() {
        #expect(ExactTime.parseUTC("2025-01-01T00:00:00.5aZ") == nil)
        #expect(ExactTime.parseExactInstant("2025-13-01T00:00:00+01:00") == nil)
        #expect(ExactTime.secondsSince2001(seconds: 0, fraction: "x").isNaN)
        #expect(ExactTime.scaledUTC(seconds: 0, fraction: "1x") == nil)
    }
}
