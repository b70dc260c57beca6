import Testing
import Plist
import PlistCore
import TestSupport

/// A value with every plist type and the edge cases exactness depends on.
let everything: PlistValue = .dictionary(PlistDictionary([
    ("zeta", .string("last key first")),
    ("é", .string("precomposed")),
    ("e\u{301}", .string("decomposed")),
    ("emoji", .string("a😀b")),
    ("empty", .string("")),
    ("negative", .integer(.signed(-1))),
    ("min", .integer(.signed(.min))),
    ("max", .integer(.signed(.max))),
    ("huge", .integer(.unsigned(.max))),
    ("negzero", .real(-0.0)),
    ("tiny", .real(.leastNonzeroMagnitude)),
    ("tenth", .real(0.1)),
    ("half", .real(0.5)),
    ("largest", .real(.greatestFiniteMagnitude)),
    ("inf", .real(-.infinity)),
    ("yes", .bool(true)),
    ("no", .bool(false)),
    ("date", .date(599_529_600.123_456_789)),
    ("olddate", .date(-3_000_000_000.25)),
    ("data", .data([0, 1, 2, 255])),
    ("nodata", .data([])),
    ("uid", .uid(7)),
    ("list", .array([.integer(.signed(1)), .array([]), .dictionary(PlistDictionary())])),
]))

@Suite struct BinaryRoundTrip {
    @Test func everyTypeSurvivesExactly() throws {
        let bytes = try PropertyList.write(everything, format: .binary)
        let read = try LibPlist.read(bytes)
        #expect(read.format == .binary)
        #expect(read.value == everything)
    }

    @Test func keyOrderIsKept() throws {
        let read = try LibPlist.read(try PropertyList.write(everything, format: .binary))
        #expect(read.value.dictionaryValue?.entries.map(\.key) == everything.dictionaryValue?.entries.map(\.key))
    }

    @Test func canonicallyEquivalentKeysStayApart() throws {
        let read = try LibPlist.read(try PropertyList.write(everything, format: .binary)).value.dictionaryValue!
        #expect(read["é"] == .string("precomposed"))
        #expect(read["e\u{301}"] == .string("decomposed"))
    }

    @Test func negativeZeroAndNaNKeepTheirBits() throws {
        let nan = Double(bitPattern: 0x7FF8_0000_0000_0001)
        let value = PlistValue.array([.real(-0.0), .real(0.0), .real(nan)])
        let read = try LibPlist.read(try PropertyList.write(value, format: .binary)).value.arrayValue!
        #expect(read.map { if case let .real(d) = $0 { return d.bitPattern }; return 0 }
                == [(-0.0).bitPattern, 0, 0x7FF8_0000_0000_0001])
    }

    /// libplist writes a real a float holds in 4 bytes: ycft reads it back as the 4-byte real
    /// it is (``PlistValue/real32(_:)``), of the same value; everything else is as written.
    @Test func readsWhatLibplistWrites() throws {
        func widened(_ value: PlistValue) -> PlistValue {
            switch value {
            case let .real32(bits): return .real(Double(Float(bitPattern: bits)))
            case let .array(items): return .array(items.map(widened))
            case let .dictionary(d): return .dictionary(PlistDictionary(d.entries.map { ($0.key, widened($0.value)) }))
            default: return value
            }
        }
        let read = try LibPlist.read(LibplistWriter.write(everything)).value
        #expect(widened(read) == everything)
        #expect(read != everything, "libplist wrote no 4-byte real: the test no longer sees the case it was written for")
    }

    /// A 4-byte real (CoreFoundation's Float32, marker 0x22) is read as itself and written back
    /// in 4 bytes with every bit, a signalling NaN's payload included; libplist's tree widens it
    /// (and quiets the NaN), so such a file is read from its bytes on both readers.
    @Test func fourByteRealsKeepTheirSizeAndBits() throws {
        let bits: [UInt32] = [Float(0.1).bitPattern, (-Float(0)).bitPattern, 0x7F80_0001 /* sNaN */, 0x7FC0_1234, Float.infinity.bitPattern, 1]
        let value = PlistValue.dictionary(PlistDictionary([
            ("floats", .array(bits.map { .real32($0) })), ("double", .real(0.1)), ("same", .real(Double(Float(0.1)))),
        ]))
        let bytes = AppleStyleBinaryWriter.write(value)
        let read = try LibPlist.read(bytes)
        #expect(read.value == value)
        #expect(try PropertyList.write(read.value, format: .binary).count == PropertyList.write(value, format: .binary).count)
        let written = try PropertyList.write(read.value, format: .binary)
        // Each 4-byte real is in the written file as marker 0x22 and its 4 bytes.
        for b in bits {
            let object: [UInt8] = [0x22, UInt8(b >> 24), UInt8(truncatingIfNeeded: b >> 16), UInt8(truncatingIfNeeded: b >> 8), UInt8(truncatingIfNeeded: b)]
            #expect(written.indices.contains { written[$0...].starts(with: object) }, "\(String(b, radix: 16))")
        }
        #expect(try LibPlist.read(written).value == value)
        #expect(try BinaryPlistReader.read(bytes) == value)
        #expect(PlistValue.real32(Float(0.1).bitPattern).realValue == Double(Float(0.1)))
        #expect(PlistValue.real32(Float(0.1).bitPattern) != .real(Double(Float(0.1))))
        // XML has one kind of real: the exact widened value.
        let xml = try PropertyList.write(.real32(Float(0.1).bitPattern), format: .xml)
        #expect(String(decoding: xml, as: UTF8.self).contains("<real>0.10000000149011612</real>"))
    }

    @Test func writesApplesLayout() throws {
        // Keys before values, shared equal strings, 8-byte reals, minimal sizes.
        let value = PlistValue.dictionary(PlistDictionary([("a", .real(0.5)), ("b", .string("a"))]))
        #expect(try PropertyList.write(value, format: .binary) == Array("bplist00".utf8) + [
            0xD2, 0x01, 0x02, 0x03, 0x01,                         // dict: keys 1, 2; values 3, 1 ("a" shared)
            0x51, 0x61,                                           // "a"
            0x51, 0x62,                                           // "b"
            0x23, 0x3F, 0xE0, 0, 0, 0, 0, 0, 0,                   // 0.5 in 8 bytes
            0x08, 0x0D, 0x0F, 0x11,                               // offsets
            0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x1A,
        ])
    }

    @Test func readsBytesLibplistDidNotWrite() throws {
        let bytes = AppleStyleBinaryWriter.write(everything)
        #expect(try LibPlist.read(bytes).value == everything)
    }

    @Test func uidsAreThirtyTwoBit() throws {
        // libplist 2.2.0 keeps only the low 32 bits of a larger UID; ycft refuses instead.
        let largest = PlistValue.array([.uid(UInt64(UInt32.max))])
        #expect(try LibPlist.read(PropertyList.write(largest, format: .binary)).value == largest)
        for format in PlistFormat.allCases {
            #expect(throws: PlistError.unwritable(.uidTooLarge(4_294_967_296), at: ObjectPath([.index(0)]))) {
                try PropertyList.write(.array([.uid(1 << 32)]), format: format)
            }
        }
        #expect(throws: PlistError.malformedBinary(.uidTooLarge(4_294_967_296), offset: 10)) {
            try LibPlist.read(rawBinaryPlist([[0xA1, 0x01], [0x84, 0x01, 0x00, 0x00, 0x00, 0x00]]))
        }
    }

    @Test func equalUIDsAreOneObjectOnEitherSideOfTheDirectTable() throws {
        // UIDs below 2^20 are shared through a table indexed by value, larger ones through the
        // hash table of the other scalars: either way an equal UID is written once.
        let value = PlistValue.array([.uid(7), .uid(7), .uid(0xF_FFFF), .uid(0x10_0000), .uid(0x10_0000), .uid(0xF_FFFF), .uid(300)])
        let bytes = try PropertyList.write(value, format: .binary)
        #expect(bytes == Array("bplist00".utf8) + [
            0xA7, 0x01, 0x01, 0x02, 0x03, 0x03, 0x02, 0x04,       // array: 7 refs, equal UIDs shared
            0x80, 0x07,                                           // UID 7
            0x83, 0x00, 0x0F, 0xFF, 0xFF,                         // UID 2^20-1
            0x83, 0x00, 0x10, 0x00, 0x00,                         // UID 2^20
            0x81, 0x01, 0x2C,                                     // UID 300
            0x08, 0x10, 0x12, 0x17, 0x1C,                         // offsets
            0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x1F,
        ])
        #expect(try LibPlist.read(bytes).value == value)
    }

    @Test func stringWithNULCannotBeWritten() {
        #expect(throws: PlistError.unwritable(.containsNUL(inKey: false), at: .key("k"))) {
            try PropertyList.write(.dictionary(PlistDictionary([("k", .string("a\u{0}b"))])), format: .binary)
        }
    }
}

@Suite struct XMLRoundTrip {
    /// XML dates hold whole seconds; everything else is exact.
    var xmlSafe: PlistValue {
        var dict = everything.dictionaryValue!
        dict["date"] = .date(599_529_600)
        dict["olddate"] = .date(-3_000_000_000)
        return .dictionary(dict)
    }

    @Test func everyTypeSurvivesExactly() throws {
        let bytes = try PropertyList.write(xmlSafe, format: .xml)
        let read = try LibPlist.read(bytes)
        #expect(read.format == .xml)
        #expect(read.value == xmlSafe)
    }

    @Test func negativeZeroIsWrittenWithItsSign() throws {
        let text = String(decoding: try PropertyList.write(.array([.real(-0.0)]), format: .xml), as: UTF8.self)
        #expect(text.contains("<real>-0.0</real>"))
    }

    @Test func exactDocument() throws {
        let value = PlistValue.dictionary(PlistDictionary([
            ("a&b", .string("<x>\r")), ("n", .integer(.signed(-5))), ("u", .uid(3)), ("r", .real(.nan)),
            ("d", .date(0)), ("e", .array([])),
        ]))
        let text = String(decoding: try PropertyList.write(value, format: .xml), as: UTF8.self)
        #expect(text == """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
        \t<key>a&amp;b</key>
        \t<string>&lt;x&gt;&#13;</string>
        \t<key>n</key>
        \t<integer>-5</integer>
        \t<key>u</key>
        \t<dict>
        \t\t<key>CF$UID</key>
        \t\t<integer>3</integer>
        \t</dict>
        \t<key>r</key>
        \t<real>nan</real>
        \t<key>d</key>
        \t<date>2001-01-01T00:00:00Z</date>
        \t<key>e</key>
        \t<array/>
        </dict>
        </plist>

        """)
        #expect(try LibPlist.read(Array(text.utf8)).value.dictionaryValue?["a&b"] == .string("<x>\r"))
    }

    @Test func fractionalDateIsRefusedNotRounded() {
        #expect(throws: PlistError.self) { try PropertyList.write(.date(0.5), format: .xml) }
    }

    /// What XML cannot give back bit for bit is refused, never changed: a NaN with a sign or a
    /// payload (it became `nan`; Apple's parser refuses `-nan`), a date of -0.0 (it became 0.0).
    /// The one NaN XML holds, `nan`, reads back through libplist as the same bits.
    @Test func nanPayloadsAndANegativeZeroDateAreRefusedNotChanged() throws {
        for bits: UInt64 in [0x7FF0_0000_0000_0123, 0xFFF8_0000_0000_0000, 0xFFF8_0000_0000_0001, 0x7FF4_0000_0000_0000] {
            #expect(throws: PlistError.unwritable(.nanOutsideXML(bits: bits), at: ObjectPath([.index(1)]))) {
                try PropertyList.write(.array([.real(1), .real(Double(bitPattern: bits))]), format: .xml)
            }
        }
        #expect(throws: PlistError.unwritable(.nanOutsideXML(bits: 0x7FF8_2000_0000_0000), at: .topLevel)) {
            try PropertyList.write(.real32(0x7FC1_0000), format: .xml)
        }
        #expect(throws: PlistError.unwritable(.dateOutsideXML(-0.0), at: .topLevel)) { try PropertyList.write(.date(-0.0), format: .xml) }
        let xml = try PropertyList.write(.array([.real(.nan), .date(0)]), format: .xml)
        let back = try LibPlist.read(xml).value
        guard case let .array(items) = back, case let .real(d) = items[0], case let .date(t) = items[1] else {
            Issue.record("\(back)")
            return
        }
        #expect(d.bitPattern == 0x7FF8_0000_0000_0000 && t.bitPattern == 0)
    }

    @Test func controlCharacterIsRefused() {
        #expect(throws: PlistError.unwritable(.characterOutsideXML("\u{1}"), at: .topLevel)) {
            try PropertyList.write(.string("\u{1}"), format: .xml)
        }
    }

    @Test func cfUIDAboveThirtyTwoBitsStaysADictionary() throws {
        // Found by fuzzing: this used to become a UID that the binary writer truncated.
        let xml = "<?xml version=\"1.0\"?><plist version=\"1.0\"><dict><key>CF$UID</key><integer>177777777777777</integer></dict></plist>"
        let value = try LibPlist.read(Array(xml.utf8)).value
        #expect(value == .dictionary(PlistDictionary([("CF$UID", .integer(.signed(177_777_777_777_777)))])))
        #expect(try LibPlist.read(PropertyList.write(value, format: .binary)).value == value)
    }

    @Test func cfUIDDictionariesBecomeUIDs() throws {
        let xml = """
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0"><array><dict><key>CF$UID</key><integer>12</integer></dict>
        <dict><key>CF$UID</key><integer>1</integer><key>other</key><true/></dict></array></plist>
        """
        let value = try LibPlist.read(Array(xml.utf8)).value
        #expect(value == .array([.uid(12), .dictionary(PlistDictionary([("CF$UID", .integer(.signed(1))), ("other", .bool(true))]))]))
    }
}

@Suite struct FormatDetection {
    @Test(arguments: [
        ("bplist00", PlistFormat.binary), ("<?xml version", .xml), ("\u{FEFF}  <plist", .xml),
        ("\n<!DOCTYPE plist", .xml), ("{\"json\": 1}", nil), ("", nil),
    ] as [(String, PlistFormat?)])
    func detects(_ text: String, _ format: PlistFormat?) {
        #expect(PropertyList.detectFormat(Array(text.utf8)) == format)
    }
}

@Suite struct ExactKeyPositionsPolicy {
    /// The same answers before and after the index is built (the ninth question of a list of
    /// more than eight keys), for a list and for a dictionary's keys, exact bytes, last position.
    @Test func answersAlikeOnEitherSideOfTheIndex() {
        let keys = (0..<20).map { "k\($0)" } + ["é", "k3"]
        let questions = ["k3", "e\u{301}", "é", "k19", "absent", "k0", "K0", "k3", "k21", "é", "k3", "e\u{301}", "k19"]
        let expected: [Int?] = [21, nil, 20, 19, nil, 0, nil, 21, nil, 20, 21, nil, 19]
        var list = ExactKeyPositions(keys)
        #expect(questions.map { list.position(of: $0) } == expected)
        let distinct = Array(keys.dropLast())
        var dictionary = ExactKeyPositions(keysOf: PlistDictionary(distinct.map { ($0, PlistValue.bool(true)) }))
        #expect(questions.map { dictionary.position(of: $0) } == expected.map { $0 == 21 ? 3 : $0 })
        var short = ExactKeyPositions(["a", "b", "a"])
        #expect((0..<12).map { _ in short.position(of: "a") } == Array(repeating: 2, count: 12))
    }
}
