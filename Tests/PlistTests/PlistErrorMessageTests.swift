import Testing
import PlistCore

/// Every `PlistError.Defect` in the errors that carry one, against the message it gives: the
/// text each reader and writer gave when the reason was a string, word for word (goldens and
/// users read these messages; the structured values must not change them).
@Suite struct PlistErrorMessageTests {
    static let top = ObjectPath([.binaryObject(0)])

    static let binary: [(PlistError.Defect, String)] = [
        (.missingHeader, "missing 'bplist00' header"),
        (.tooShortForTrailer, "file too short for a trailer"),
        (.badOffsetSize(9), "trailer offset size 9 is not between 1 and 8"),
        (.badReferenceSize(0), "trailer reference size 0 is not between 1 and 8"),
        (.objectCountTooLarge(UInt64.max), "trailer object count 18446744073709551615 does not fit the file"),
        (.objectCountTooLargeForReferences(300, referenceSize: 1), "object count 300 does not fit 1-byte references"),
        (.topObjectOutOfRange(2, objectCount: 2), "top object 2 is not below object count 2"),
        (.offsetTableOutOfRange(3), "offset table at 3 is outside the object area"),
        (.offsetTableOverlapsTrailer(entries: 7), "offset table of 7 entries runs into the trailer"),
        (.objectOffsetOutOfRange(object: 0, offset: 3), "offset of object 0 (3) is outside the object area"),
        (.badObjectMarker(0x0A), "unsupported object marker 0xa"),
        (.badObjectMarker(0x70), "unsupported object marker 0x70"),
        (.badObjectMarker(0x15), "integer of 2^5 bytes"),
        (.badObjectMarker(0x21), "real of 2^1 bytes"),
        (.badObjectMarker(0x34), "bad date marker"),
        (.badObjectMarker(0x88), "UID of 9 bytes"),
        (.badLengthMarker(0x25), "bad length marker"),
        (.lengthRunsIntoOffsetTable, "length runs into the offset table"),
        (.lengthTooLarge(99), "length 99 is larger than the file"),
        (.objectRunsIntoOffsetTable(object: 4), "object 4 runs into the offset table"),
        (.lengthOverflows(.string), "string length overflows"),
        (.lengthOverflows(.array), "array length overflows"),
        (.lengthOverflows(.dictionary), "dictionary length overflows"),
        (.emptyUTF16String, "an empty UTF-16 string, which libplist 2.2.0 cannot read"),
        // The guard's wording names no value.
        (.uidTooLarge(1 << 32), "UID larger than 2^32-1"),
        (.referenceOutOfRange(9, objectCount: 2), "reference 9 is not below object count 2"),
        (.keyNotString(object: 1), "dictionary key (object 1) is not a string"),
        (.referenceCycle(object: 0), "reference cycle through object 0"),
    ]

    @Test func binaryDefects() {
        for (defect, why) in Self.binary {
            #expect(PlistError.malformedBinary(defect, offset: 12).description == "malformed binary plist: \(why) (at byte 12)")
        }
    }

    static let xml: [(PlistError.Defect, String)] = [
        (.nulByte, "NUL byte in XML"),
        (.textOutsideValue, "text outside a value"),
        (.valueOutsidePlist, "a value outside <plist>"),
        (.plistHoldsSeveralValues, "<plist> holds more than one value"),
        (.plistHoldsNoValue, "<plist> holds no value"),
        (.noPlist, "no <plist> element"),
        (.misplacedPlist, "a second <plist>, or one not at the top"),
        (.contentAfterPlist, "content after </plist>"),
        (.processingInstruction, "processing instructions other than the XML declaration at the start are not supported"),
        (.doctypeAfterPlist, "DOCTYPE after <plist>"),
        (.internalSubset, "DTD internal subsets (entity declarations) are not supported"),
        (.cdataOutsideText, "CDATA outside <string> or <key>"),
        (.unsupportedMarkup, "unsupported markup"),
        (.malformedClosingTag("a\u{1B}"), #"malformed closing tag </a\u{1B}>"#),
        (.unmatchedClosingTag("array"), "</array> closes nothing"),
        (.attributes(element: "integer"), "attributes on <integer> are not supported"),
        (.unknownElement("nil"), "unknown element <nil>"),
        (.markupInText(element: "integer"), "<integer> holds markup; only text is allowed"),
        (.referenceInText(element: "date"), "<date> holds a reference; only plain characters are allowed"),
        (.unterminated(element: "plist"), "unterminated <plist>"),
        (.unterminated(element: "string"), "unterminated <string>"),
        (.unterminatedComment, "unterminated comment"),
        (.unterminatedCDATA, "unterminated CDATA section"),
        (.unterminatedInstruction, "unterminated processing instruction"),
        (.unterminatedTag, "unterminated tag"),
        (.unterminatedQuote, "unterminated quoted text in markup"),
        (.angleBracketInQuotes, "'<' or '>' inside quoted text in markup is not supported"),
        (.angleBracketInMarkup, "'<' inside markup"),
        (.bareAmpersand, "'&' that starts no reference (write &amp;)"),
        (.unknownEntity("a\u{7}"), #"unknown entity &a\u{7};"#),
        (.malformedCharacterReference, "malformed character reference"),
    ]

    @Test func xmlDefects() {
        for (defect, why) in Self.xml {
            #expect(PlistError.malformedXML(defect, at: nil, line: 4).description == "malformed XML plist: \(why) (at line 4)")
            #expect(PlistError.malformedXML(defect, at: nil, line: nil).description == "malformed XML plist: \(why)")
        }
    }

    static let xmlAtAPath: [(PlistError.Defect, String)] = [
        (.valueWithoutKey, "a value without a <key> in <dict>"),
        (.keyWithoutValue, "a <key> without a value in <dict>"),
        (.misplacedKey, "<key> outside a <dict>, or two keys in a row"),
        (.duplicateKey("k\"\u{1B}"), #"duplicate dictionary key "k\"\u{1B}""#),
        (.notEmpty(element: "true"), "<true> must be empty"),
        (.malformedValue(.integer, text: "010", truncated: false),
         #""010" starts with a zero, which libplist reads as octal where Apple reads decimal; write it without the zero"#),
        (.malformedValue(.integer, text: " -007", truncated: false),
         #"" -007" starts with a zero, which libplist reads as octal where Apple reads decimal; write it without the zero"#),
        // A space after it is refused first (Apple refuses that): the guard's one reason.
        (.malformedValue(.integer, text: "-007 ", truncated: false), #""-007 " is not an integer as Apple reads it"#),
        (.malformedValue(.integer, text: "0x", truncated: false), #""0x" is not an integer as Apple reads it"#),
        (.malformedValue(.integer, text: "0a", truncated: false), #""0a" is not an integer as Apple reads it"#),
        (.malformedValue(.real, text: "abc", truncated: false), #""abc" is not a real as Apple reads it"#),
        (.malformedValue(.date, text: "2025", truncated: false), #""2025" is not a date like 2025-01-01T09:00:00Z"#),
        (.malformedValue(.data, text: "!!!!", truncated: true), #""!!!!"... is not base64"#),
    ]

    @Test func xmlDefectsAtAPath() {
        let path = ObjectPath.key("a\u{1B}").index(3).key("b")
        for (defect, why) in Self.xmlAtAPath {
            #expect(PlistError.malformedXML(defect, at: path, line: 2).description
                    == #"malformed XML plist: a\u{1B}[3].b: "# + why + " (at line 2)")
            #expect(PlistError.malformedXML(defect, at: .topLevel, line: 2).description
                    == "malformed XML plist: top level: \(why) (at line 2)")
        }
    }

    @Test func unrepresentableStrings() {
        let cases: [(PlistError, String)] = [
            (.unrepresentableString(.containsNUL(inKey: false), at: ObjectPath([.binaryObject(0), .binaryObject(2)])),
             "string contains NUL (at object 0 > object 2): libplist would change it silently"),
            (.unrepresentableString(.notASCII(0xE9), at: Self.top),
             "string is not ASCII in an ASCII object (at object 0): libplist would change it silently"),
            (.unrepresentableString(.loneSurrogate(0xDC00), at: Self.top),
             "string has a lone surrogate (at object 0): libplist would change it silently"),
            (.unrepresentableString(.badCharacterReference(0xD800), at: ObjectPath([.line(2)])),
             "string has character reference U+D800 (at line 2): libplist would change it silently"),
            (.unrepresentableString(.invalidUTF8, at: .topLevel),
             "string is not valid UTF-8 (at top level): libplist would change it silently"),
            (.duplicateKey("a", at: ObjectPath([.binaryObject(3)])), #"duplicate dictionary key "a" (at object 3)"#),
        ]
        for (error, message) in cases { #expect(error.description == message) }
    }

    @Test func unwritableValues() {
        let cases: [(PlistError, String)] = [
            (.unwritable(.containsNUL(inKey: false), at: .key("k")), "cannot write value: string contains NUL (at k)"),
            (.unwritable(.containsNUL(inKey: true), at: ObjectPath([.index(0)]).key("a\u{0}b")),
             #"cannot write value: key contains NUL (at [0].a\u{0}b)"#),
            (.unwritable(.uidTooLarge(1 << 32), at: ObjectPath([.index(0)])),
             "cannot write value: UID 4294967296 is larger than 2^32-1 (at [0])"),
            (.unwritable(.characterOutsideXML("\u{FFFE}"), at: .topLevel),
             "cannot write value: XML 1.0 cannot hold character U+FFFE (at top level)"),
            (.unwritable(.integerOutsideXML(high: .min, low: 0), at: .key("outer").key("low")),
             "cannot write value: integer -170141183460469231731687303715884105728 lies outside -2^63 ... 2^64-1, "
                + "which XML <integer> holds as Apple reads it (at outer.low)"),
            (.unwritable(.dateOutsideXML(0.5), at: .topLevel),
             "cannot write value: date 0.5 has a fraction of a second or lies outside years 1-9999; "
                + "XML dates hold whole seconds (at top level)"),
            (.unwritable(.dateOutsideXML(-0.0), at: .topLevel),
             "cannot write value: date -0.0 (negative zero) would read back from XML as 0.0; XML dates have no sign of zero (at top level)"),
            (.unwritable(.nanOutsideXML(bits: 0x7FF0_0000_0000_0123), at: .key("r")),
             "cannot write value: real NaN 0x7FF0000000000123 has a sign or payload XML cannot hold; XML's one NaN, nan, reads back as "
                + "0x7FF8000000000000 (at r)"),
            (.unwritable(.integerBeyondLibplist(high: 1, low: 1), at: .key("k")),
             "cannot write value: libplist 2.2.0 cannot hold the 16-byte integer 18446744073709551617 (at k)"),
        ]
        for (error, message) in cases { #expect(error.description == message) }
    }
}
