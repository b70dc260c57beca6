import Testing
import Plist
import PlistCore

/// The encoding an XML declaration names (`<?xml version="1.0" encoding="ISO-8859-1"?>`):
/// CoreFoundation (`encodingForXMLData` in `CFPropertyList.c`) converts the file from it, or
/// refuses a name it does not know; libplist reads every file as UTF-8. ycft finds the name as
/// CoreFoundation finds it, reads UTF-8 as it does, and refuses every other name, naming it:
/// a Latin-1 file is never read as UTF-8.
@Suite struct DeclaredEncodingTests {
    /// A property list of one string, `k` = `text`, after `declaration`.
    static func document(_ declaration: String, _ text: [UInt8]) -> [UInt8] {
        Array(declaration.utf8) + Array("\n<plist version=\"1.0\"><dict><key>k</key><string>".utf8) + text
            + Array("</string></dict></plist>\n".utf8)
    }

    static let cafeLatin1: [UInt8] = Array("caf".utf8) + [0xE9]
    static let cafeUTF8: [UInt8] = Array("caf\u{E9}".utf8)

    @Test func latin1IsRefusedNamingItsEncoding() {
        let declared = #"<?xml version="1.0" encoding="ISO-8859-1"?>"#
        let error = PlistError.xmlDeclaredEncoding(name: "ISO-8859-1", truncated: false)
        // Its bytes are refused whether or not they happen to be valid UTF-8: CoreFoundation
        // reads C3 A9 as two Latin-1 characters, libplist as one.
        #expect(throws: error) { try LibPlist.read(Self.document(declared, Self.cafeLatin1)) }
        #expect(throws: error) { try LibPlist.read(Self.document(declared, Self.cafeUTF8)) }
        #expect(throws: error) { try PropertyList.checkReadable(Self.document(declared, Self.cafeUTF8), limits: .default) }
        #expect(error.description == #"an XML property list declared in encoding "ISO-8859-1": ycft reads XML property lists in UTF-8 only; "#
                + #"convert it first (iconv -f ISO-8859-1 -t UTF-8) and declare encoding="UTF-8""#)
    }

    /// A name no encoding has (CoreFoundation: `Encountered unknown encoding (x-bogus)`).
    @Test func anUnknownNameIsRefused() {
        #expect(throws: PlistError.xmlDeclaredEncoding(name: "x-bogus", truncated: false)) {
            try LibPlist.read(Self.document(#"<?xml version="1.0" encoding="x-bogus"?>"#, Array("a".utf8)))
        }
        #expect(throws: PlistError.xmlDeclaredEncoding(name: "", truncated: false)) {
            try LibPlist.read(Self.document(#"<?xml version="1.0" encoding=""?>"#, Array("a".utf8)))
        }
    }

    /// UTF-8 as CoreFoundation names it: `utf-8` in any case, and what ICU's alias comparison
    /// (case, punctuation and a zero before a digit ignored) takes for it.
    @Test(arguments: ["UTF-8", "utf-8", "Utf-8", "UTF8", "utf_8", "utf 8", "U.T.F.8", "utf-08", " UTF-8 "])
    func utf8NamesReadAsUTF8(_ name: String) throws {
        let read = try LibPlist.read(Self.document("<?xml version=\"1.0\" encoding=\"\(name)\"?>", Self.cafeUTF8))
        #expect(read.value == .dictionary(PlistDictionary([("k", .string("caf\u{E9}"))])))
    }

    @Test(arguments: ["utf-16", "UTF-80", "utf8x", "unicode-1-1-utf-8", "latin1", "US-ASCII", "utf"])
    func otherNamesAreRefused(_ name: String) {
        #expect(throws: PlistError.xmlDeclaredEncoding(name: name, truncated: false)) {
            try LibPlist.read(Self.document("<?xml version=\"1.0\" encoding=\"\(name)\"?>", Array("a".utf8)))
        }
    }

    /// Where CoreFoundation finds no name, it reads UTF-8, and so does ycft: a space before
    /// the `=`, another case of `encoding`, an unquoted name, `encoding=` after a `?`, no
    /// declaration. After a UTF-8 byte-order mark the declaration is not read at all.
    @Test(arguments: [
        #"<?xml version="1.0" encoding = "ISO-8859-1"?>"#,
        #"<?xml version="1.0" ENCODING="ISO-8859-1"?>"#,
        #"<?xml version="1.0" encoding=ISO-8859-1 ?>"#,
        #"<?xml version="1.0" standalone="yes"?>"#,
        "\u{FEFF}<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>",
    ])
    func noDeclaredNameReadsAsUTF8(_ declaration: String) throws {
        let read = try LibPlist.read(Self.document(declaration, Self.cafeUTF8))
        #expect(read.value == .dictionary(PlistDictionary([("k", .string("caf\u{E9}"))])))
    }

    /// The name is found where CoreFoundation finds it: the first `encoding=` before a `?` or
    /// a `>`, even inside another attribute's value, in single or double quotes.
    @Test func theNameIsFoundAsCoreFoundationFindsIt() {
        #expect(throws: PlistError.xmlDeclaredEncoding(name: "latin1", truncated: false)) {
            try LibPlist.read(Self.document(#"<?xml version="1.0" encoding='latin1'?>"#, Array("a".utf8)))
        }
        #expect(throws: PlistError.xmlDeclaredEncoding(name: "x", truncated: false)) {
            try LibPlist.read(Self.document(#"<?xml version="1.0encoding='x'"?>"#, Array("a".utf8)))
        }
    }

    /// A name XML does not allow is shown escaped, without a command to run, and cut at 64
    /// characters.
    @Test func anOddNameIsShownSafely() {
        let odd = PlistError.xmlDeclaredEncoding(name: "a b\u{1B}", truncated: false)
        #expect(throws: odd) { try LibPlist.read(Self.document("<?xml version=\"1.0\" encoding=\"a b\u{1B}\"?>", Array("a".utf8))) }
        #expect(odd.description == #"an XML property list declared in encoding "a b\u{1B}": ycft reads XML property lists in UTF-8 only"#)
        let long = String(repeating: "x", count: 70)
        let truncated = PlistError.xmlDeclaredEncoding(name: String(repeating: "x", count: 64), truncated: true)
        #expect(throws: truncated) { try LibPlist.read(Self.document("<?xml version=\"1.0\" encoding=\"\(long)\"?>", Array("a".utf8))) }
        #expect(truncated.description == "an XML property list declared in encoding \"\(String(repeating: "x", count: 64))\"...: "
                + "ycft reads XML property lists in UTF-8 only")
    }
}
