import Testing
import Plist
import PlistCore
@testable import PlistCore
import TestSupport

/// Inputs that crash, hang or silently change values in libplist 2.2.0 must fail cleanly.
@Suite struct HostileBinary {
    // Objects: 0 = array [1], 1 = "a"
    let small = rawBinaryPlist([[0xA1, 0x01], [0x51, 0x61]])

    @Test func wellFormedSampleReads() throws {
        #expect(try LibPlist.read(small).value == .array([.string("a")]))
    }

    @Test func emptyInput() {
        #expect(throws: PlistError.empty) { try LibPlist.read([]) }
    }

    @Test func notAPlist() {
        #expect(throws: PlistError.unknownFormat) { try LibPlist.read(Array("hello".utf8)) }
    }

    @Test func everyTruncationFailsCleanly() {
        for length in 1..<small.count {
            #expect(throws: PlistError.self) { try LibPlist.read(Array(small.prefix(length))) }
        }
    }

    @Test func everySingleByteFlipIsHandled() {
        // Each flip either still parses or fails with a PlistError: never a crash.
        for i in small.indices {
            for bit in 0..<8 {
                var bytes = small
                bytes[i] ^= 1 << bit
                _ = try? LibPlist.read(bytes)
            }
        }
    }

    @Test func badOffsetSize() {
        let bytes = rawBinaryPlist([[0x51, 0x61]], offsetSize: 9)
        #expect(throws: PlistError.malformedBinary(.badOffsetSize(9), offset: bytes.count - 26)) {
            try LibPlist.read(bytes)
        }
    }

    @Test func everyOffsetAndReferenceSizeFromOneToEightReads() throws {
        // CoreFoundation writes 1, 2, 4 and 8; libplist writes 3 as well; both read any of 1...8.
        for size in UInt8(1)...8 {
            let objects: [[UInt8]] = [[0xA1] + Array(repeating: 0, count: Int(size) - 1) + [1], [0x51, 0x61]]
            let bytes = rawBinaryPlist(objects, offsetSize: size, refSize: size)
            #expect(try LibPlist.read(bytes).value == .array([.string("a")]), "size \(size)")
        }
    }

    @Test func objectCountNearTwoToThe64() {
        let bytes = rawBinaryPlist([[0x51, 0x61]], count: UInt64.max - 1)
        #expect(throws: PlistError.malformedBinary(.objectCountTooLarge(UInt64.max - 1), offset: bytes.count - 24)) {
            try LibPlist.read(bytes)
        }
    }

    @Test func topObjectOutOfRange() {
        #expect(throws: PlistError.self) { try LibPlist.read(rawBinaryPlist([[0x51, 0x61]], top: 1)) }
    }

    @Test func offsetTablePointingOutsideTheFile() {
        #expect(throws: PlistError.self) { try LibPlist.read(rawBinaryPlist([[0x51, 0x61]], tableOffset: 1_000_000)) }
    }

    @Test func offsetIntoTheHeader() {
        let bytes = rawBinaryPlist([[0x51, 0x61]], offsets: [3])
        #expect(throws: PlistError.malformedBinary(.objectOffsetOutOfRange(object: 0, offset: 3), offset: 10)) {
            try LibPlist.read(bytes)
        }
    }

    @Test func referenceOutOfRange() {
        #expect(throws: PlistError.malformedBinary(.referenceOutOfRange(9, objectCount: 2), offset: 9)) {
            try LibPlist.read(rawBinaryPlist([[0xA1, 0x09], [0x51, 0x61]]))
        }
    }

    @Test func selfReferenceCycle() {
        #expect(throws: PlistError.malformedBinary(.referenceCycle(object: 0), offset: 9)) {
            try LibPlist.read(rawBinaryPlist([[0xA1, 0x00]]))
        }
    }

    @Test func cycleOfThree() {
        #expect(throws: PlistError.malformedBinary(.referenceCycle(object: 0), offset: 13)) {
            try LibPlist.read(rawBinaryPlist([[0xA1, 0x01], [0xA1, 0x02], [0xA1, 0x00]]))
        }
    }

    @Test func hundredThousandLevelsOfNesting() {
        // Each array holds the next one; references are 4 bytes wide.
        let levels = 100_000
        let objects: [[UInt8]] = (0..<levels).map { i in
            i == levels - 1 ? [0xA0] : [0xA1] + withUnsafeBytes(of: UInt32(i + 1).bigEndian, Array.init)
        }
        let bytes = rawBinaryPlist(objects, offsetSize: 4, refSize: 4)
        #expect(throws: PlistError.tooDeep(limit: 512)) { try LibPlist.read(bytes) }
    }

    @Test func sharedReferenceBomb() {
        // 40 arrays, each referencing the next twice: 2^40 nodes once expanded.
        var objects: [[UInt8]] = (0..<40).map { [0xA2, UInt8($0 + 1), UInt8($0 + 1)] }
        objects.append([0x51, 0x61])
        let bytes = rawBinaryPlist(objects)
        #expect(throws: PlistError.self) { try LibPlist.read(bytes) }
        do {
            _ = try LibPlist.read(bytes)
        } catch let error {
            guard case .tooManyNodes(_, let limit) = error else { Issue.record("unexpected \(error)"); return }
            #expect(limit == 100_000)
        }
    }

    @Test func nulInAnASCIIString() {
        #expect(throws: PlistError.unrepresentableString(.containsNUL(inKey: false), at: ObjectPath([.binaryObject(0), .binaryObject(2)]))) {
            try LibPlist.read(rawBinaryPlist([[0xD1, 0x01, 0x02], [0x51, 0x6B], [0x53, 0x6E, 0x00, 0x6C]]))
        }
    }

    @Test(arguments: 1...23)
    func everyPositionOfABadByteInAnASCIIStringIsFound(length: Int) throws {
        // Strings are checked eight bytes at a time, then four, two and one: a NUL or a high
        // byte anywhere, and the first of the two when both are there, is reported as the
        // byte-by-byte check would, for every length up to three words (each path and their mixes).
        func string(_ edits: [Int: UInt8]) -> [UInt8] {
            var body = Array(repeating: UInt8(ascii: "x"), count: length)
            for (at, byte) in edits { body[at] = byte }
            return rawBinaryPlist([[0x5F, 0x10, UInt8(length)] + body])
        }
        let nul = PlistError.unrepresentableString(.containsNUL(inKey: false), at: ObjectPath([.binaryObject(0)]))
        func high(_ byte: UInt8) -> PlistError { .unrepresentableString(.notASCII(byte), at: ObjectPath([.binaryObject(0)])) }
        for at in 0..<length {
            #expect(throws: nul) { try LibPlist.read(string([at: 0])) }
            #expect(throws: high(0xE9)) { try LibPlist.read(string([at: 0xE9])) }
            #expect(throws: high(0x80)) { try LibPlist.read(string([at: 0x80])) }
            if at + 1 < length {
                #expect(throws: nul) { try LibPlist.read(string([at: 0, at + 1: 0xFF])) }
                #expect(throws: high(0xFF)) { try LibPlist.read(string([at: 0xFF, at + 1: 0])) }
            }
            // The bytes beside the bad ones are plain text.
            #expect(try LibPlist.read(string([at: 0x7F])).value == .string(String(repeating: "x", count: at) + "\u{7F}" + String(repeating: "x", count: length - at - 1)))
            #expect(try LibPlist.read(string([at: 0x01])).value == .string(String(repeating: "x", count: at) + "\u{01}" + String(repeating: "x", count: length - at - 1)))
        }
    }

    @Test func loneSurrogateInAUTF16String() {
        #expect(throws: PlistError.unrepresentableString(.loneSurrogate(0xD800), at: ObjectPath([.binaryObject(0)]))) {
            try LibPlist.read(rawBinaryPlist([[0x63, 0x00, 0x6B, 0xD8, 0x00, 0x00, 0x6B]]))
        }
    }

    @Test func everyPositionOfABadUnitInALongUTF16StringIsFound() throws {
        // UTF-16 strings are checked four units at a time: a NUL or a lone surrogate anywhere
        // is reported as the unit-by-unit check would, and pairs anywhere (also across two
        // words) pass.
        let length = 13
        func string(_ edits: [Int: UInt16]) -> [UInt8] {
            var units = Array(repeating: UInt16(0x00E9), count: length)
            for (at, unit) in edits { units[at] = unit }
            return rawBinaryPlist([[0x6F, 0x10, UInt8(length)] + units.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }])
        }
        let nul = PlistError.unrepresentableString(.containsNUL(inKey: false), at: ObjectPath([.binaryObject(0)]))
        func lone(_ unit: UInt16) -> PlistError { .unrepresentableString(.loneSurrogate(unit), at: ObjectPath([.binaryObject(0)])) }
        let plain = String(repeating: "é", count: length)
        for at in 0..<length {
            #expect(throws: nul) { try LibPlist.read(string([at: 0])) }
            #expect(throws: lone(0xDC00)) { try LibPlist.read(string([at: 0xDC00])) }
            #expect(throws: lone(0xDFFF)) { try LibPlist.read(string([at: 0xDFFF])) }
            #expect(throws: lone(0xD800)) { try LibPlist.read(string([at: 0xD800])) }
            // Units next to the surrogates, and those with a zero byte, are plain text.
            for unit: UInt16 in [0xD7FF, 0xE000, 0x0100, 0x0001, 0xFFFF] {
                let value = try LibPlist.read(string([at: unit])).value
                var expected = Array(plain.utf16)
                expected[at] = unit
                #expect(value == .string(String(decoding: expected, as: UTF16.self)))
            }
            if at + 1 < length {
                let pair = try LibPlist.read(string([at: 0xD83D, at + 1: 0xDE00])).value
                #expect(pair == .string(String(repeating: "é", count: at) + "😀" + String(repeating: "é", count: length - at - 2)))
                #expect(throws: lone(0xD83D)) { try LibPlist.read(string([at: 0xD83D, at + 1: 0x0041])) }
            }
        }
    }

    @Test func surrogatePairIsFine() throws {
        let value = try LibPlist.read(rawBinaryPlist([[0x62, 0xD8, 0x3D, 0xDE, 0x00]])).value
        #expect(value == .string("😀"))
    }

    @Test func nonStringDictionaryKey() {
        #expect(throws: PlistError.malformedBinary(.keyNotString(object: 1), offset: 11)) {
            try LibPlist.read(rawBinaryPlist([[0xD1, 0x01, 0x01], [0x10, 0x05]]))
        }
    }

    @Test func randomBytesNeverCrash() {
        var generator = SplitMix64(seed: 42)
        for _ in 0..<2_000 {
            var bytes = Array("bplist00".utf8)
            bytes += (0..<Int(generator.next() % 120)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            _ = try? LibPlist.read(bytes)
        }
    }

    @Test func inputOverTheSizeLimit() {
        let limits = PlistLimits(maxInputSize: 10)
        #expect(throws: PlistError.inputTooLarge(size: small.count, limit: 10)) { try LibPlist.read(small, limits: limits) }
    }
}

/// Two keys of one binary dictionary that hold the same UTF-16 units are refused, whichever
/// way they are stored (one object referenced twice, two ASCII objects, an ASCII and a UTF-16
/// object, two UTF-16 objects), in small dictionaries (compared pairwise) and large ones (hashed).
@Suite struct BinaryDuplicateKeys {
    static func ascii(_ text: String) -> [UInt8] { [0x50 | UInt8(text.utf8.count)] + Array(text.utf8) }
    static func utf16(_ text: String) -> [UInt8] {
        [0x60 | UInt8(text.utf16.count)] + text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
    }

    /// Object 0: a dictionary whose keys are `fillers` ASCII keys "f0", "f1", ... then the given
    /// key objects (references into `keys`, which may repeat), every value `true`.
    static func dictionary(fillers: Int, keys: [[UInt8]], refs: [Int]) -> [UInt8] {
        let keyObjects = (0..<fillers).map { ascii("f\($0)") } + keys
        let keyRefs = Array(0..<fillers) + refs.map { fillers + $0 }
        let count = keyRefs.count, valueRef = 1 + keyObjects.count
        let header: [UInt8] = count < 15 ? [0xD0 | UInt8(count)] : [0xDF, 0x10, UInt8(count)]
        let dict = header + keyRefs.map { UInt8(1 + $0) } + Array(repeating: UInt8(valueRef), count: count)
        return rawBinaryPlist([dict] + keyObjects + [[0x09]])
    }

    static let cases: [(name: String, keys: [[UInt8]], refs: [Int], duplicate: String)] = [
        ("one object twice", [ascii("k")], [0, 0], "k"),
        ("two ASCII objects", [ascii("k"), ascii("k")], [0, 1], "k"),
        ("ASCII and UTF-16", [ascii("key"), utf16("key")], [0, 1], "key"),
        ("UTF-16 and ASCII", [utf16("key"), ascii("key")], [0, 1], "key"),
        ("two UTF-16 objects", [utf16("clé"), utf16("clé")], [0, 1], "clé"),
    ]

    @Test(arguments: [0, 30])
    func sameUnitsAreADuplicate(fillers: Int) {
        for c in Self.cases {
            let bytes = Self.dictionary(fillers: fillers, keys: c.keys, refs: c.refs)
            #expect(throws: PlistError.duplicateKey(c.duplicate, at: ObjectPath([.binaryObject(0)])), "\(c.name), \(fillers) other keys") {
                try LibPlist.read(bytes)
            }
            #expect(throws: PlistError.duplicateKey(c.duplicate, at: ObjectPath([.binaryObject(0)])), "pure reader: \(c.name), \(fillers) other keys") {
                try BinaryPlistReader.read(bytes)
            }
        }
    }

    /// The walk skips a small dictionary whose key references repeat, byte for byte, those of
    /// one already checked; a dictionary that shares all but one of them is still checked.
    @Test func aRepeatedKeyListIsCheckedWhenItDiffers() {
        // 0: [1, 2, 3]; 1 and 2: {"a", "b"} (objects 4, 5); 3: {"a", "a"} (objects 4, 6); 7: true.
        let objects: [[UInt8]] = [[0xA3, 0x01, 0x02, 0x03],
                                  [0xD2, 0x04, 0x05, 0x07, 0x07], [0xD2, 0x04, 0x05, 0x07, 0x07], [0xD2, 0x04, 0x06, 0x07, 0x07],
                                  Self.ascii("a"), Self.ascii("b"), Self.ascii("a"), [0x09]]
        #expect(throws: PlistError.duplicateKey("a", at: ObjectPath([.binaryObject(3)]))) { try LibPlist.read(rawBinaryPlist(objects)) }
        #expect(throws: PlistError.duplicateKey("a", at: ObjectPath([.binaryObject(3)]))) { try BinaryPlistReader.read(rawBinaryPlist(objects)) }
        // Without the third dictionary, the two equal ones read.
        var clean = objects
        clean[0] = [0xA2, 0x01, 0x02]
        let pair = PlistValue.dictionary(PlistDictionary([("a", .bool(true)), ("b", .bool(true))]))
        #expect((try? LibPlist.read(rawBinaryPlist(clean)).value) == .array([pair, pair]))
    }

    /// A key reference out of range is the walk's error, even beside a duplicate: the duplicate
    /// check reads no key until every reference is known to be in range.
    @Test(arguments: [0, 30])
    func anOutOfRangeKeyIsReportedBeforeADuplicate(fillers: Int) {
        var bytes = Self.dictionary(fillers: fillers, keys: [Self.ascii("k"), Self.ascii("k"), Self.ascii("z")], refs: [0, 1, 2])
        // The last key reference (just before the values) points past the objects.
        let header = fillers + 3 < 15 ? 1 : 3
        let lastKey = 8 + header + fillers + 2
        bytes[lastKey] = 0xF0
        let objectCount = fillers + 3 + 2
        #expect(throws: PlistError.malformedBinary(.referenceOutOfRange(240, objectCount: objectCount), offset: lastKey)) {
            try LibPlist.read(bytes)
        }
    }

    @Test(arguments: [0, 30])
    func differentUnitsAreNot(fillers: Int) throws {
        // Same bytes in another width, same length, a prefix, a case, "é" against "e".
        let keys = [Self.ascii("a"), Self.utf16("\u{0161}"), Self.ascii("ab"), Self.ascii("A"), Self.utf16("é"), Self.ascii("e"),
                    Self.utf16("\u{6100}")]
        let bytes = Self.dictionary(fillers: fillers, keys: keys, refs: Array(keys.indices))
        guard case let .dictionary(dict) = try LibPlist.read(bytes).value else { Issue.record("not a dictionary"); return }
        #expect(dict.entries.suffix(keys.count).map(\.key) == ["a", "\u{0161}", "ab", "A", "é", "e", "\u{6100}"])
        #expect(dict.count == fillers + keys.count)
        #expect(try BinaryPlistReader.read(bytes) == .dictionary(dict))
    }
}

@Suite struct HostileXML {
    func xml(_ body: String) -> [UInt8] {
        Array("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\">\(body)</plist>".utf8)
    }

    @Test func hundredThousandLevelsOfNesting() {
        let body = String(repeating: "<array>", count: 100_000) + String(repeating: "</array>", count: 100_000)
        #expect(throws: PlistError.tooDeep(limit: 512)) { try LibPlist.read(xml(body)) }
    }

    @Test func entityDeclarationsAreRefused() {
        let text = """
        <?xml version="1.0"?>
        <!DOCTYPE plist [ <!ENTITY a "aaaa"> ]>
        <plist version="1.0"><string>&a;</string></plist>
        """
        #expect(throws: PlistError.malformedXML(.internalSubset, at: nil, line: 2)) {
            try LibPlist.read(Array(text.utf8))
        }
    }

    @Test func nulReference() {
        #expect(throws: PlistError.unrepresentableString(.badCharacterReference(0), at: ObjectPath([.line(2)]))) {
            try LibPlist.read(xml("<string>a&#0;b</string>"))
        }
    }

    @Test func surrogateReference() {
        #expect(throws: PlistError.unrepresentableString(.badCharacterReference(0xD800), at: ObjectPath([.line(2)]))) {
            try LibPlist.read(xml("<string>a&#xD800;b</string>"))
        }
    }

    @Test func rawNULByte() {
        #expect(throws: PlistError.malformedXML(.nulByte, at: nil, line: 2)) {
            try LibPlist.read(xml("<string>a\u{0}b</string>"))
        }
    }

    @Test func invalidUTF8() {
        var bytes = xml("<string>ab</string>")
        bytes[bytes.firstIndex(of: UInt8(ascii: "b"))!] = 0xFF
        #expect(throws: PlistError.unrepresentableString(.invalidUTF8, at: .topLevel)) { try LibPlist.read(bytes) }
    }

    @Test func unclosedDocument() {
        #expect(throws: PlistError.self) { try LibPlist.read(xml("<dict><key>a</key>")) }
    }
}
