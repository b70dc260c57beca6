import Foundation
import Testing
@testable import PlistCore
import Plist
import PlistCore
import TestSupport

/// Issue 25 item 5: a 16-byte binary integer (marker `0x14`, a big-endian 128-bit two's
/// complement, as CoreFoundation reads and writes its 128-bit numbers) is read, printed and
/// written back exactly. libplist 2.2.0 keeps only its low 64 bits, so 2^64+1 used to read as 1
/// and a 16-byte -1 as 2^64-1.
@Suite struct SixteenByteIntegerTests {
    typealias Raw = RawBinaryPlist

    /// Key, the exact object bytes a file holds, the value ycft reads, and its decimal text.
    static let cases: [(key: String, object: [UInt8], value: PlistInteger, decimal: String)] = [
        ("two64plus1", Raw.int16(high: 1, low: 1), .wide(high: 1, low: 1), "18446744073709551617"),
        ("two63", Raw.int16(high: 0, low: 1 << 63), .unsigned(1 << 63), "9223372036854775808"),
        ("two64minus1", Raw.int16(high: 0, low: .max), .unsigned(.max), "18446744073709551615"),
        ("minusOne16", Raw.int16(high: .max, low: .max), .wide(high: -1, low: .max), "-1"),
        ("two127minus1", Raw.int16(high: UInt64(Int64.max), low: .max), .wide(high: .max, low: .max),
         "170141183460469231731687303715884105727"),
        ("minusTwo127", Raw.int16(high: 1 << 63, low: 0), .wide(high: .min, low: 0),
         "-170141183460469231731687303715884105728"),
        ("five16", Raw.int16(high: 0, low: 5), .unsigned(5), "5"),
        ("minusOne8", [0x13] + Raw.bigEndian(.max, 8), .signed(-1), "-1"),
        ("five1", [0x10, 5], .signed(5), "5"),
    ]

    static var file: [UInt8] { Raw.dictionary(cases.map { ($0.key, $0.object) }) }

    @Test func bothReadersKeepEvery128BitValue() throws {
        let viaLibplist = try #require(LibPlist.read(Self.file).value.dictionaryValue)
        let pure = try #require(BinaryPlistReader.read(Self.file).dictionaryValue)
        for c in Self.cases {
            #expect(viaLibplist[c.key] == .integer(c.value), "\(c.key)")
            #expect(pure[c.key] == .integer(c.value), "\(c.key)")
        }
    }

    @Test func decimalTextIsExact() {
        for c in Self.cases { #expect(c.value.description == c.decimal, "\(c.key)") }
        // Across the 10^19 chunks the text is built from, and at the 64-bit edges.
        let more: [(PlistInteger, String)] = [
            (.wide(high: 5, low: 0x6BC7_5E2D_6310_0000), "100000000000000000000"),
            (.wide(high: 0x4B3B_4CA8_5A86_C47A, low: 0x098A_2240_0000_0000), "100000000000000000000000000000000000000"),
            (.wide(high: 1, low: 0), "18446744073709551616"),
            (.wide(high: -1, low: 0), "-18446744073709551616"),
            (.wide(high: -1, low: 0x7FFF_FFFF_FFFF_FFFF), "-9223372036854775809"),
            (.wide(high: -1, low: 1 << 63), "-9223372036854775808"),
            (.wide(high: 0x10_0000_0000, low: 0x3039), "1267650600228229401496703217721"),
            (.unsigned(10_000_000_000_000_000_000), "10000000000000000000"),
            (.signed(.min), "-9223372036854775808"),
        ]
        for (value, text) in more { #expect(value.description == text) }
    }

    @Test func numericViewsAndExactEquality() {
        #expect(PlistInteger.wide(high: -1, low: .max).int64 == -1)
        #expect(PlistInteger.wide(high: -1, low: 0x7FFF_FFFF_FFFF_FFFF).int64 == nil)
        #expect(PlistInteger.wide(high: 1, low: 1).int64 == nil)
        #expect(PlistInteger.unsigned(5).int64 == 5)
        #expect(PlistInteger.unsigned(.max).int64 == nil)
        // The same value in another size is another integer, as -0.0 is another real.
        #expect(PlistInteger.signed(-1) != .wide(high: -1, low: .max))
        #expect(PlistInteger.signed(5) != .unsigned(5))
        // One 16-byte value, however it was made.
        #expect(PlistInteger.wide(high: 0, low: 5) == .unsigned(5))
        #expect(Set([PlistInteger.wide(high: 0, low: 5), .unsigned(5), .signed(5)]).count == 2)
        #expect(PlistInteger(high: 0, low: .max) == .unsigned(.max))
        #expect(PlistInteger(high: -1, low: 3) == .wide(high: -1, low: 3))
        #expect(PlistInteger.wide(high: -1, low: .max).bits == (-1, .max))
        #expect(PlistInteger.signed(-2).bits == (-1, UInt64.max - 1))
    }

    /// ycft's binary writer writes each integer in the size it was read in: the same bytes.
    @Test func theBinaryWriterWritesTheBytesItRead() throws {
        let value = try LibPlist.read(Self.file).value
        let written = try PropertyList.write(value, format: .binary)
        for c in Self.cases { #expect(Raw.valueObject(written, key: c.key) == c.object, "\(c.key)") }
        #expect(try LibPlist.read(written).value == value)
        #expect(try BinaryPlistReader.read(written) == value)
    }

    /// `-1` in 8 and in 16 bytes are two objects (the writer shares equal bytes only).
    @Test func equalValuesOfTwoSizesAreNotShared() throws {
        let value = PlistValue.array([.integer(.signed(-1)), .integer(.wide(high: -1, low: .max)), .integer(.signed(-1))])
        let bytes = try PropertyList.write(value, format: .binary)
        #expect(try LibPlist.read(bytes).value == value)
        // Header, array, two integer objects (9 and 17 bytes), offsets, trailer.
        #expect(bytes.count == 8 + 4 + 9 + 17 + 3 + 32)
    }

    /// XML holds -2^63 ... 2^64-1 as Apple's parser reads it; anything beyond is refused on
    /// writing (naming the key) and on reading (naming the key path), never changed.
    @Test func xmlRefusesWhatAppleCannotRead() throws {
        #expect(Self.cases.filter { !$0.value.fitsXML }.map(\.key) == ["two64plus1", "two127minus1", "minusTwo127"])
        for (key, value) in [("big", PlistInteger.wide(high: 1, low: 1)), ("low", .wide(high: .min, low: 0)),
                             ("justBelow", .wide(high: -1, low: 0x7FFF_FFFF_FFFF_FFFF))] {
            let doc = PlistValue.dictionary(PlistDictionary([("outer", .dictionary(PlistDictionary([(key, .integer(value))])))]))
            #expect(throws: PlistError.unwritable(.integerOutsideXML(high: value.bits.high, low: value.bits.low),
                                                  at: ObjectPath.key("outer").key(key))) {
                try PropertyList.write(doc, format: .xml)
            }
        }
        // In range: the value is kept (XML has one kind of integer, so it reads back 64-bit or,
        // above Int64.max, as Apple's parser reads it).
        let inRange: [(PlistInteger, PlistInteger)] = [
            (.unsigned(.max), .unsigned(.max)), (.unsigned(1 << 63), .unsigned(1 << 63)),
            (.wide(high: -1, low: .max), .signed(-1)), (.wide(high: -1, low: 1 << 63), .signed(.min)), (.unsigned(5), .signed(5)),
        ]
        for (written, read) in inRange {
            let xml = try PropertyList.write(.dictionary(PlistDictionary([("k", .integer(written))])), format: .xml)
            #expect(String(decoding: xml, as: UTF8.self).contains("<integer>\(written)</integer>"))
            #expect(try LibPlist.read(xml).value == .dictionary(PlistDictionary([("k", .integer(read))])))
        }
        let tooBig = Array("""
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0"><dict><key>a</key><dict><key>big</key><integer>18446744073709551616</integer></dict></dict></plist>
        """.utf8)
        #expect(throws: PlistError.malformedXML(.malformedValue(.integer, text: "18446744073709551616", truncated: false),
                                                at: ObjectPath.key("a").key("big"), line: 2)) {
            try LibPlist.read(tooBig)
        }
    }

    /// libplist's own writer (tests only) cannot hold a high half; it says so.
    @Test func libplistWriterRefusesAHighHalf() throws {
        #expect(throws: PlistError.unwritable(.integerBeyondLibplist(high: 1, low: 1), at: .key("k"))) {
            try LibplistWriter.write(.dictionary(PlistDictionary([("k", .integer(.wide(high: 1, low: 1)))])))
        }
        let bytes = try LibplistWriter.write(.dictionary(PlistDictionary([("k", .integer(.unsigned(5)))])))
        #expect(Raw.valueObject(bytes, key: "k") == Raw.int16(high: 0, low: 5))
    }

    /// The fast path's integer accessor never gives libplist's low half of a 16-byte integer:
    /// libplist is asked which an integer is whenever the guard pass saw a 16-byte integer (or
    /// a 4-byte real) in a binary document, and for any XML document; not for other binary ones.
    @Test func nodeAccessorNeverGivesALowHalf() throws {
        let document = try PlistDocument(Self.file)
        #expect(document.mayHoldWideIntegers)
        func int64(_ key: String) -> Int64? { document.top[key]?.int64(mayBeWide: document.mayHoldWideIntegers) }
        #expect(int64("two64plus1") == nil)
        #expect(int64("minusOne16") == nil)
        #expect(int64("five16") == nil)
        #expect(int64("minusOne8") == -1)
        #expect(int64("five1") == 5)
        let plain = try PlistDocument(Raw.dictionary([("v", [0x12] + Raw.bigEndian(100_000, 4))]))
        #expect(!plain.mayHoldWideIntegers)
        #expect(plain.top["v"]?.int64(mayBeWide: false) == 100_000)
        let withReal32 = try PlistDocument(Raw.dictionary([("v", [0x12] + Raw.bigEndian(100_000, 4)), ("r", [0x22, 0x3F, 0x80, 0, 0])]))
        #expect(withReal32.mayHoldWideIntegers)
        let xml = try PlistDocument(Array("<plist version=\"1.0\"><dict><key>v</key><integer>5</integer></dict></plist>".utf8))
        #expect(xml.mayHoldWideIntegers)
    }

    /// Python's plistlib reads 8- and 16-byte integers as signed, as CoreFoundation does: an
    /// independent reader of what ycft writes. Runs where `python3` is installed.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")))
    func pythonPlistlibReadsWhatYcftWrites() throws {
        let written = try PropertyList.write(try LibPlist.read(Self.file).value, format: .binary)
        let dir = try TestPaths.temporaryDirectory()
        let path = dir.appendingPathComponent("ints.plist").path
        try Data(written).write(to: URL(fileURLWithPath: path))
        let script = "import plistlib,sys\nd=plistlib.load(open(sys.argv[1],'rb'))\nprint(' '.join(f'{k}={d[k]}' for k in d))"
        let result = try runProcess(URL(fileURLWithPath: "/usr/bin/python3"), ["-c", script, path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdoutText == Self.cases.map { "\($0.key)=\($0.decimal)" }.joined(separator: " ") + "\n")
    }
}
