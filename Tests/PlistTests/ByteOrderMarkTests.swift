import Testing
import Plist
import PlistCore

/// A UTF-8 byte-order mark before an XML property list: CoreFoundation's parser
/// (`encodingForXMLData` in `CFPropertyList.c`) finds it and parses after it, so ycft reads past
/// it too. UTF-16 and UTF-32, which CoreFoundation converts, are refused naming the encoding.
@Suite struct ByteOrderMarkTests {
    static let mark: [UInt8] = [0xEF, 0xBB, 0xBF]
    static let document = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
        \t<key>name</key>
        \t<string>caf\u{E9}</string>
        \t<key>count</key>
        \t<integer>3</integer>
        </dict>
        </plist>

        """

    @Test func xmlAfterTheMarkReadsAsWithoutIt() throws {
        let plain = Array(Self.document.utf8)
        let read = try LibPlist.read(Self.mark + plain)
        #expect(read.format == .xml)
        #expect(read.value == .dictionary(PlistDictionary([("name", .string("caf\u{E9}")), ("count", .integer(.signed(3)))])))
        #expect(try PropertyList.xmlShape(Self.mark + plain) == PropertyList.xmlShape(plain))
        #expect(PropertyList.hasByteOrderMark(Self.mark + plain))
        #expect(!PropertyList.hasByteOrderMark(plain))
        // Only an XML property list "has" the mark.
        #expect(!PropertyList.hasByteOrderMark(Self.mark + Array("hello".utf8)))
    }

    /// Lines still count from the file's first byte (the mark holds no line feed), in errors and
    /// in `verify --format github`'s locator alike.
    @Test func linesCountFromTheFilesStart() throws {
        let bad = Array("<?xml version=\"1.0\"?>\n<plist version=\"1.0\">\n<dict>\n<key>n</key>\n<integer>010</integer>\n</dict>\n</plist>\n".utf8)
        let expected = PlistError.malformedXML(.malformedValue(.integer, text: "010", truncated: false), at: .key("n"), line: 5)
        #expect(throws: expected) { try LibPlist.read(bad) }
        #expect(throws: expected) { try LibPlist.read(Self.mark + bad) }
        let plain = Array(Self.document.utf8)
        #expect(XMLPlistLines.lines(of: [.key("count")], in: Self.mark + plain) == [8])
        #expect(XMLPlistLines.lines(of: [.key("count")], in: plain) == [8])
    }

    /// `marked` is the one rule of a rewrite: XML after the mark when the file had it; binary,
    /// which has no mark, as it is.
    @Test func aRewriteIsMarkedOnlyInXML() throws {
        let value = PlistValue.dictionary(PlistDictionary([("k", .bool(true))]))
        let xml = try PropertyList.write(value, format: .xml), binary = try PropertyList.write(value, format: .binary)
        #expect(try PropertyList.write(value, format: .xml, byteOrderMark: true) == Self.mark + xml)
        #expect(try PropertyList.write(value, format: .xml, byteOrderMark: false) == xml)
        #expect(try PropertyList.write(value, format: .binary, byteOrderMark: true) == binary)
        #expect(try LibPlist.read(Self.mark + xml).value == value)
    }

    /// The document in `encoding`, after its byte-order mark when `marked`.
    static func encoded(_ text: String, _ encoding: XMLTextEncoding, marked: Bool) -> [UInt8] {
        let scalars = (marked ? "\u{FEFF}" : "") + text
        var bytes: [UInt8] = []
        switch encoding {
        case .utf16BigEndian, .utf16LittleEndian:
            for unit in scalars.utf16 {
                let pair = [UInt8(unit >> 8), UInt8(unit & 0xFF)]
                bytes += encoding == .utf16BigEndian ? pair : pair.reversed()
            }
        case .utf32BigEndian, .utf32LittleEndian:
            for scalar in scalars.unicodeScalars {
                let quad = (0..<4).reversed().map { UInt8(truncatingIfNeeded: scalar.value >> (8 * $0)) }
                bytes += encoding == .utf32BigEndian ? quad : quad.reversed()
            }
        }
        return bytes
    }

    @Test(arguments: XMLTextEncoding.allCases)
    func utf16AndUTF32AreRefusedNamingTheEncoding(_ encoding: XMLTextEncoding) throws {
        let marks: [XMLTextEncoding: String] = [.utf16BigEndian: "FE FF", .utf16LittleEndian: "FF FE", .utf32BigEndian: "00 00 FE FF",
                                                .utf32LittleEndian: "FF FE 00 00"]
        let marked = Self.encoded(Self.document, encoding, marked: true)
        #expect(throws: encoding.error(marked: true)) { try LibPlist.read(marked) }
        #expect(encoding.error(marked: true).description
                == "an XML property list in \(encoding.rawValue) (byte-order mark \(marks[encoding] ?? "?")): ycft reads XML property lists "
                + "in UTF-8 only; convert it first (iconv -f \(encoding.rawValue) -t UTF-8)")
        // Without the mark, told by the NULs around the markup, as CoreFoundation tells it.
        let unmarked = Self.encoded(Self.document, encoding, marked: false)
        #expect(throws: encoding.error(marked: false)) { try LibPlist.read(unmarked) }
        #expect(encoding.error(marked: false).description
                == "an XML property list in \(encoding.rawValue) without a byte-order mark: ycft reads XML property lists "
                + "in UTF-8 only; convert it first (iconv -f \(encoding.rawValue) -t UTF-8)")
        // Also through the pure binary reader (the on-device library's), which reads no XML.
        #expect(throws: encoding.error(marked: true)) { try BinaryPlistReader.read(marked) }
    }

    /// The error's values: the code unit's width and byte order, and whether a mark told them.
    @Test func theErrorCarriesTheUnitsAndTheirOrder() {
        #expect(XMLTextEncoding.utf16LittleEndian.error(marked: true) == .xmlNotUTF8(unitBits: 16, bigEndian: false, marked: true))
        #expect(XMLTextEncoding.utf32BigEndian.error(marked: false) == .xmlNotUTF8(unitBits: 32, bigEndian: true, marked: false))
        #expect(XMLTextEncoding(unitBits: 8, bigEndian: true) == nil)
    }

    /// A mark before something that is no XML property list is no property list: nothing is
    /// claimed about an encoding.
    @Test func aMarkBeforeAnythingElseIsNoPropertyList() {
        for bytes: [UInt8] in [[0xFF, 0xFE] + Array("hello".utf8), [0xFE, 0xFF, 0, 0x68], [0xFF, 0xFE], [0xEF, 0xBB, 0xBF],
                               Self.mark + [0xFF, 0xFE, 0x3C, 0]] {
            #expect(throws: PlistError.unknownFormat) { try LibPlist.read(bytes) }
        }
    }
}
