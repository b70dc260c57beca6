import Testing
import FirstTimeArchive
import FirstTimeCore
import OrderedJSON
import Plist
import PlistCore
import TestSupport

@Suite struct RecordsJSON {
    @Test func exactDocument() {
        let text = RecordsFormat.jsonText(records([
            ("onboarding.v1", "2.1.0", 757_414_800.123456), ("rate", nil, nil), ("nan", nil, .nan),
            ("neg", "1.0", -0.0), ("old", nil, -1.5), ("inf", nil, -.infinity),
        ]))
        #expect(text == """
        {
          "format" : "ycfirsttime-records",
          "formatVersion" : 1,
          "records" : {
            "inf" : {
              "lastTime" : "-Infinity",
              "lastTimeUTC" : null,
              "lastVersion" : null
            },
            "nan" : {
              "lastTime" : "NaN",
              "lastTimeUTC" : null,
              "lastVersion" : null
            },
            "neg" : {
              "lastTime" : -0.0,
              "lastTimeUTC" : "2001-01-01T00:00:00.000000Z",
              "lastVersion" : "1.0"
            },
            "old" : {
              "lastTime" : -1.5,
              "lastTimeUTC" : "2000-12-31T23:59:58.500000Z",
              "lastVersion" : null
            },
            "onboarding.v1" : {
              "lastTime" : 757414800.123456,
              "lastTimeUTC" : "2025-01-01T09:00:00.123456Z",
              "lastVersion" : "2.1.0"
            },
            "rate" : {
              "lastTime" : null,
              "lastTimeUTC" : null,
              "lastVersion" : null
            }
          }
        }

        """)
    }

    @Test func keysSortByUTF8Bytes() {
        let json = try? JSON.parse(RecordsFormat.json(records([("é", nil, nil), ("e\u{301}", nil, nil), ("z", nil, nil), ("A", nil, nil)])))
        guard case let .object(top)? = json, case let .object(members) = top[2].value else { Issue.record("shape"); return }
        #expect(members.map { Array($0.key.utf8) } == [[0x41], [0x65, 0xCC, 0x81], [0x7A], [0xC3, 0xA9]])
    }

    @Test func jsonRoundTripIsExact() throws {
        let input = records([
            ("a", "1", 757_414_800.123456), ("b", nil, -0.0), ("c", "", .leastNonzeroMagnitude),
            ("d", nil, .greatestFiniteMagnitude), ("é", "x", 1.000_000_000_1), ("e\u{301}", nil, .infinity), ("n", nil, nil),
        ])
        for style in [JSON.Style.pretty, .compact] {
            let back = try RecordsFormat.records(fromJSON: RecordsFormat.json(input, style: style))
            #expect(back == input)
        }
    }

    /// `dump` writes the text in pieces as it is made: each piece ends after a record (or is
    /// the last), and the pieces together are ``RecordsFormat/json(_:style:)``'s text, byte for byte.
    @Test func textInPiecesIsTheSameText() {
        let input = records((0..<300).map { ("gate.\($0).\(String(repeating: "é", count: $0 % 7))", $0 % 3 == 0 ? nil : "1.\($0)", Double($0) * 1.5) })
        for style in [JSON.Style.pretty, .compact] {
            let whole = RecordsFormat.json(input, style: style)
            for size in [1, 100, 4096, 1 << 16, .max] {
                var pieces: [[UInt8]] = []
                RecordsFormat.writeJSON(input, style: style, pieces: size) { pieces.append($0) }
                #expect(Array(pieces.joined()) == whole, "pieces of \(size)")
                let expected = size == .max ? 1 : size == 1 ? 301 : nil
                if let expected { #expect(pieces.count == expected, "pieces of \(size)") }
                // Every piece but the last ends with the close of a record.
                #expect(pieces.dropLast().allSatisfy { $0.last == UInt8(ascii: "}") && $0.count >= min(size, whole.count) }, "pieces of \(size)")
            }
        }
    }

    func packError(_ records: String) -> String {
        let text = #"{"format":"ycfirsttime-records","formatVersion":1,"records":"# + records + "}"
        do {
            _ = try RecordsFormat.records(fromJSON: Array(text.utf8))
            return "accepted"
        } catch {
            return error.description
        }
    }

    @Test func onlyUTCIsParsed() throws {
        let parsed = try RecordsFormat.records(fromJSON: Array(
            #"{"format":"ycfirsttime-records","formatVersion":1,"records":{"k":{"lastTimeUTC":"2025-01-01T09:00:00.123456Z"}}}"#.utf8))
        #expect(parsed["k"]?.lastTime == 757_414_800.123456)
    }

    @Test func utcAgreeingToItsPrecisionIsAccepted() {
        #expect(packError(#"{"k":{"lastTime":757414800.123456,"lastTimeUTC":"2025-01-01T09:00:00Z"}}"#) == "accepted")
        #expect(packError(#"{"k":{"lastTime":757414800.123456,"lastTimeUTC":"2025-01-01T09:00:00.1Z"}}"#) == "accepted")
    }

    @Test func disagreeingUTCIsRefused() {
        #expect(packError(#"{"k":{"lastTime":757414800.123456,"lastTimeUTC":"2025-01-01T09:00:01Z"}}"#)
                == #"records["k"]: lastTime 757414800.123456 (2025-01-01T09:00:00.123456Z) and lastTimeUTC disagree; "#
                + "remove lastTime to store lastTimeUTC, or fix one of them")
    }

    @Test(arguments: [
        (#"{"k":{"lastTime":"soon"}}"#, #"records["k"].lastTime: expected a number, null, "NaN", "Infinity" or "-Infinity", found string"#),
        (#"{"k":{"lastTime":1e999}}"#, #"records["k"].lastTime: 1e999 is outside the range of a double"#),
        // Not zero, but nearer zero than any double: read as 0.0 it would store another time.
        (#"{"k":{"lastTime":1e-400}}"#, #"records["k"].lastTime: 1e-400 is outside the range of a double"#),
        (#"{"k":{"lastTime":-2e-324}}"#, #"records["k"].lastTime: -2e-324 is outside the range of a double"#),
        // The nearest double to the last instant of year 9999 with seven digits is in year 10000.
        (#"{"k":{"lastTimeUTC":"9999-12-31T23:59:59.9999999Z"}}"#,
         #"records["k"].lastTimeUTC: "9999-12-31T23:59:59.9999999Z" is stored as its nearest double, 252423993600.0, which is beyond year 9999; give lastTime to store it"#),
        (#"{"k":{"lastVersion":3}}"#, #"records["k"].lastVersion: expected a string or null, found number"#),
        (#"{"k":{"lastTimeUTC":"2025-13-01T00:00:00Z"}}"#, #"records["k"].lastTimeUTC: "2025-13-01T00:00:00Z" is no time: there is no month 13"#),
        (#"{"k":{"lastTimeUTC":"2025-02-30T09:00:00Z"}}"#, #"records["k"].lastTimeUTC: "2025-02-30T09:00:00Z" is no time: February 2025 has 28 days"#),
        (#"{"k":{"lastTimeUTC":"2025-01-01T09:00Z"}}"#, #"records["k"].lastTimeUTC: "2025-01-01T09:00Z" is not YYYY-MM-DDTHH:MM:SS[.fraction]Z"#),
        (#"{"k":{"lastTme":1}}"#, #"records["k"]: unknown member "lastTme""#),
        (#"{"k":{},"k":{}}"#, #"records: duplicate block key "k""#),
        (#"{"k":[]}"#, #"records["k"]: expected an object, found array"#),
    ])
    func refuses(_ records: String, _ message: String) {
        #expect(packError(records) == message)
    }

    /// What dump writes reads back to the same bits: zeros of either sign, the smallest
    /// subnormal, year 9999's last double given as UTC alone.
    @Test func dumpedEdgesReadBackExactly() throws {
        let text = #"{"format":"ycfirsttime-records","formatVersion":1,"records":{"a":{"lastTime":5e-324},"b":{"lastTime":-0.0},"#
            + #""c":{"lastTime":0},"d":{"lastTimeUTC":"9999-12-31T23:59:59.99997Z"},"e":{"lastTime":-1e-320}}}"#
        let parsed = try RecordsFormat.records(fromJSON: Array(text.utf8))
        #expect(parsed["a"]?.lastTime?.bitPattern == Double.leastNonzeroMagnitude.bitPattern)
        #expect(parsed["b"]?.lastTime?.bitPattern == (-0.0 as Double).bitPattern)
        #expect(parsed["c"]?.lastTime?.bitPattern == (0.0 as Double).bitPattern)
        #expect(parsed["d"]?.lastTime == 252_423_993_599.99997)
        #expect(parsed["e"]?.lastTime?.bitPattern == UInt64(0x8000_0000_0000_07E8))
    }

    /// `"lastTime": null` is no time: a lastTimeUTC beside it is refused, not stored (before, the
    /// UTC time was stored without a word); a null lastTimeUTC beside a null lastTime is none.
    @Test func aNullTimeBesideAUTCTimeIsRefused() {
        #expect(packError(#"{"k":{"lastTime":null,"lastTimeUTC":"2025-01-01T09:00:00Z"}}"#)
                == #"records["k"]: lastTime is null (no time) and lastTimeUTC gives one; remove lastTime to store lastTimeUTC, or set both to null"#)
        #expect(packError(#"{"k":{"lastTime":null,"lastTimeUTC":null}}"#) == "accepted")
        #expect(packError(#"{"k":{"lastTimeUTC":"2025-01-01T09:00:00Z"}}"#) == "accepted")
    }

    @Test func equivalentKeysAreNotDuplicates() {
        #expect(packError(#"{"\u00e9":{},"e\u0301":{}}"#) == "accepted")
    }

    @Test func refusesWrongEnvelope() {
        func error(_ text: String) -> String {
            do { _ = try RecordsFormat.records(fromJSON: Array(text.utf8)); return "accepted" } catch { return error.description }
        }
        #expect(error(#"{"format":"other","formatVersion":1,"records":{}}"#) == #"format: format must be "ycfirsttime-records", found "other""#)
        #expect(error(#"{"format":"ycfirsttime-records","formatVersion":2,"records":{}}"#) == "formatVersion: formatVersion must be 1, found 2")
        #expect(error(#"{"format":"ycfirsttime-records","formatVersion":1}"#) == #"top level: missing "records""#)
        #expect(error(#"{"format":"ycfirsttime-records","formatVersion":1,"records":{},"extra":0}"#) == #"top level: unknown member "extra""#)
        #expect(error("[]") == "top level: expected an object, found array")
        #expect(error("{") == "invalid JSON: expected a string key (at line 1, column 2)")
    }

    /// Each error carries what is wrong as a value, not only as text.
    @Test func defectsAreValues() {
        func error(_ text: String) -> FirstTimeError? {
            do { _ = try RecordsFormat.records(fromJSON: Array(text.utf8)); return nil } catch { return error }
        }
        #expect(error(#"{"format":7}"#) == .recordsFormat(.jsonKind(expected: .string, orNull: false, found: .real), at: .key("format")))
        #expect(error(#"{"format":"x","formatVersion":1,"records":{}}"#) == .recordsFormat(.wrongFormat(found: "x"), at: .key("format")))
        #expect(error(#"{"formatVersion":1,"records":{}}"#) == .recordsFormat(.wrongFormat(found: nil), at: .key("format")))
        #expect(error(#"{"format":"ycfirsttime-records","formatVersion":1,"records":{"k":{"lastTime":true}}}"#)
                == .recordsFormat(.notATime(found: .bool), at: ObjectPath.key("records").member("k").key("lastTime")))
        #expect(error(#"{"format":"ycfirsttime-records","formatVersion":1,"records":{"k":{"lastTime":1,"lastTimeUTC":"2001-01-01T00:00:02Z"}}}"#)
                == .recordsFormat(.timesDisagree(lastTime: 1), at: ObjectPath.key("records").member("k")))
        #expect(error(#"{"format":"ycfirsttime-records","formatVersion":1,"records":{"k":{},"k":{}}}"#)
                == .duplicateKey("k", at: .key("records")))
        #expect(error(#"{"format":"ycfirsttime-records","format":"x"}"#) == .recordsFormat(.repeatedMember("format"), at: .topLevel))
        #expect(FirstTimeError.recordsFormat(.jsonKind(expected: .string, orNull: true, found: .other), at: .topLevel).finding
                == ContractFinding(.recordsFormat, at: .topLevel, "expected a string or null, found null"))
        // A store's error names its file and keeps its cause's rule.
        let inStore = FirstTimeError.inFile(path: "/p", .notLoaded(.inFile(path: "/p", .notArchiveData(key: "YCFirstTime", found: .string))))
        #expect(inStore.finding.rule == .stateNotData)
        #expect(inStore.description == "/p: not saved: the file could not be read when the store opened "
                + "(/p: \"YCFirstTime\" holds string, expected archive data)")
    }
}

@Suite struct RecordsPlistForm {
    @Test func exactShapeAndRoundTrip() throws {
        let input = records([("k", "1.0", -0.0), ("n", nil, nil)])
        let value = RecordsFormat.plist(input)
        #expect(value == .dictionary(PlistDictionary([
            ("format", .string("ycfirsttime-records")),
            ("formatVersion", .integer(.signed(1))),
            ("records", .dictionary(PlistDictionary([
                ("k", .dictionary(PlistDictionary([("lastTime", .real(-0.0)), ("lastVersion", .string("1.0"))]))),
                ("n", .dictionary(PlistDictionary())),
            ]))),
        ])))
        for format in PlistFormat.allCases {
            let back = try LibPlist.read(PropertyList.write(value, format: format)).value
            #expect(try RecordsFormat.records(fromPlist: back) == input)
        }
    }

    /// What the plist form refuses, as values, and the words they print.
    @Test func defectsAreValues() {
        let base = ObjectPath.key("YCFirstTime.records")
        func error(_ entries: [(key: String, value: PlistValue)]) -> FirstTimeError? {
            do { _ = try RecordsFormat.records(fromPlist: .dictionary(PlistDictionary(entries))); return nil } catch { return error }
        }
        let header: [(key: String, value: PlistValue)] = [("format", .string("ycfirsttime-records")), ("formatVersion", .integer(.signed(1)))]
        let cases: [([(key: String, value: PlistValue)], FirstTimeError, String)] = [
            ([("format", .integer(.signed(1)))], .recordsFormat(.plistKind(expected: .string, found: .integer), at: base.key("format")),
             "YCFirstTime.records.format: expected a string, found integer"),
            ([("format", .string("x"))], .recordsFormat(.wrongFormat(found: "x"), at: base.key("format")),
             #"YCFirstTime.records.format: format must be "ycfirsttime-records", found "x""#),
            ([("format", .string("ycfirsttime-records")), ("formatVersion", .string("1"))],
             .recordsFormat(.plistKind(expected: .integer, found: .string), at: base.key("formatVersion")),
             "YCFirstTime.records.formatVersion: expected an integer, found string"),
            (header, .recordsFormat(.plistKind(expected: .dictionary, found: .other), at: base.key("records")),
             "YCFirstTime.records.records: expected a dictionary, found null"),
            (header + [("records", .dictionary(PlistDictionary())), ("extra", .bool(true))], .recordsFormat(.unknownMember("extra"), at: base),
             #"YCFirstTime.records: unknown member "extra""#),
            (header + [("records", .dictionary(PlistDictionary([("k", .dictionary(PlistDictionary([("lastVersion", .real(1))])))])))],
             .recordsFormat(.plistKind(expected: .string, found: .real), at: base.key("records").key("k").key("lastVersion")),
             "YCFirstTime.records.records.k.lastVersion: expected a string, found real"),
        ]
        for (entries, expected, text) in cases {
            #expect(error(entries) == expected)
            #expect(error(entries)?.description == text)
        }
    }
}

@Suite struct ExactTimeText {
    @Test(arguments: [
        (0.0, "2001-01-01T00:00:00.000000Z"),
        (-0.0, "2001-01-01T00:00:00.000000Z"),
        (757_414_800.123456, "2025-01-01T09:00:00.123456Z"),
        (-0.000_000_4, "2001-01-01T00:00:00.000000Z"),
        (-0.000_000_6, "2000-12-31T23:59:59.999999Z"),
        (0.999_999_5, "2001-01-01T00:00:01.000000Z"),
        (-978_307_200.0, "1970-01-01T00:00:00.000000Z"),
        (-63_113_904_000.0, "0001-01-01T00:00:00.000000Z"),
        (252_423_993_599.999_97, "9999-12-31T23:59:59.999970Z"),
        (83_980_800.0, "2003-08-31T00:00:00.000000Z"),
        (-31_622_400.0, "2000-01-01T00:00:00.000000Z"),
    ])
    func formats(_ seconds: Double, _ text: String) {
        #expect(ExactTime.utcString(secondsSince2001: seconds) == text)
    }

    @Test func outsideYearsOneToTenThousandIsNil() {
        #expect(ExactTime.utcString(secondsSince2001: 1e15) == nil)
        #expect(ExactTime.utcString(secondsSince2001: -63_113_904_001.0) == nil)
        #expect(ExactTime.utcString(secondsSince2001: .nan) == nil)
    }

    @Test func parsesWhatItFormats() {
        for seconds in [0.0, 757_414_800.123456, -1.5, -978_307_200.0, 123.000_001] {
            let text = ExactTime.utcString(secondsSince2001: seconds)!
            let parsed = ExactTime.parseUTC(text)!
            #expect(ExactTime.secondsSince2001(seconds: parsed.seconds, fraction: parsed.fraction) == seconds)
        }
    }

    @Test func rejectsMalformedUTC() {
        for text in ["2025-01-01T09:00:00", "2025-02-30T00:00:00Z", "2025-01-01 09:00:00Z", "2025-01-01T09:00:00.Z",
                     "2025-01-01T24:00:00Z", "2025-01-01T09:00:00.1234567890Z", "2025-01-01T09:00:00+01:00"] {
            #expect(ExactTime.parseUTC(text) == nil, "\(text)")
        }
    }
}
