import Testing
@testable import PlistCore
import TestSupport

/// The XML guard's refusals that the differential and message tests do not reach, each on the
/// smallest document that shows it, with the exact message a read gives; and the forms it
/// accepts (references, CDATA in keys, a byte-order mark) shown by what it makes of them.
@Suite struct XMLGuardCoverage {
    func shape(_ text: String) throws(PlistError) -> (values: Int, depth: Int) {
        try PropertyList.xmlShape(Array(text.utf8))
    }

    func refusal(_ text: String) -> String? {
        do { _ = try shape(text) } catch { return error.description }
        return nil
    }

    @Test(arguments: [
        ("<plist><true/></plist><!", "malformed XML plist: unsupported markup (at line 1)"),
        ("<plist><!ELEMENT x></plist>", "malformed XML plist: unsupported markup (at line 1)"),
        ("<plist><![CDATA[x]]></plist>", "malformed XML plist: CDATA outside <string> or <key> (at line 1)"),
        ("<plist><true/></plist>\n<!-- open", "malformed XML plist: unterminated comment (at line 2)"),
        ("<true/>", "malformed XML plist: a value outside <plist> (at line 1)"),
        ("<plist><dict><true/></dict></plist>", "malformed XML plist: top level: a value without a <key> in <dict> (at line 1)"),
        ("<plist>\0</plist>", "malformed XML plist: NUL byte in XML (at line 1)"),
        ("<plist>x<true/></plist>", "malformed XML plist: text outside a value (at line 1)"),
        ("<", "malformed XML plist: unterminated tag (at line 1)"),
        ("<plist><true/><!DOCTYPE plist></plist>", "malformed XML plist: DOCTYPE after <plist> (at line 1)"),
        ("<plist><array></array x></array></plist>", "malformed XML plist: malformed closing tag </array> (at line 1)"),
        ("<plist><array></array/></plist>", "malformed XML plist: malformed closing tag </array> (at line 1)"),
        ("<plist>\n</plist>", "malformed XML plist: <plist> holds no value (at line 2)"),
        ("<plist><plist><true/></plist></plist>", "malformed XML plist: a second <plist>, or one not at the top (at line 1)"),
        ("<plist><array><key>a</key></array></plist>", "malformed XML plist: [0]: <key> outside a <dict>, or two keys in a row (at line 1)"),
        ("<plist><set/></plist>", "malformed XML plist: unknown element <set> (at line 1)"),
        ("<plist><true/>", "malformed XML plist: unterminated <plist> (at line 1)"),
        (" \n ", "malformed XML plist: no <plist> element (at line 2)"),
        ("<plist><string><![CDATA[x</string></plist>", "malformed XML plist: unterminated CDATA section (at line 1)"),
        ("<plist><string><![CDATA[a\0]]></string></plist>", "malformed XML plist: NUL byte in XML (at line 1)"),
        ("<plist><integer>&#49;</integer></plist>",
         "malformed XML plist: <integer> holds a reference; only plain characters are allowed (at line 1)"),
        ("<plist><string>abc", "malformed XML plist: unterminated <string> (at line 1)"),
        ("<plist><string>a & b</string></plist>", "malformed XML plist: '&' that starts no reference (write &amp;) (at line 1)"),
        ("<plist><string>&#x;&amp;</string></plist>", "string has character reference U+0 (at line 1): libplist would change it silently"),
        ("<plist><string>&nbsp;</string></plist>", "malformed XML plist: unknown entity &nbsp; (at line 1)"),
        ("<plist><string>&#12a;</string></plist>", "malformed XML plist: malformed character reference (at line 1)"),
        ("<plist><real>1e</real></plist>", #"malformed XML plist: top level: "1e" is not a real as Apple reads it (at line 1)"#),
        ("<plist><data>AA=A</data></plist>", #"malformed XML plist: top level: "AA=A" is not base64 (at line 1)"#),
        ("<plist \0>", "malformed XML plist: NUL byte in XML (at line 1)"),
        ("<plist a=\"\0\">", "malformed XML plist: NUL byte in XML (at line 1)"),
        ("<?xml version=\"1.0", "malformed XML plist: unterminated quoted text in markup (at line 1)"),
        ("<plist <true/>", "malformed XML plist: '<' inside markup (at line 1)"),
        ("<plist", "malformed XML plist: unterminated tag (at line 1)"),
        ("<?xml version=\"1.0\"", "malformed XML plist: unterminated processing instruction (at line 1)"),
    ])
    func refusedWithItsMessage(_ text: String, _ message: String) {
        #expect(refusal(text) == message, "\(text.debugDescription)")
    }

    /// An empty input is refused before the guard runs.
    @Test func anEmptyInputIsNoShape() {
        #expect(throws: PlistError.empty) { try PropertyList.xmlShape([]) }
    }

    /// References and CDATA in keys are decoded before keys are compared: each spelling of one
    /// key repeats the plain one.
    @Test(arguments: [
        ("&quot;", "\""), ("&apos;", "'"), ("&#x6a;", "j"), ("&#x6A;", "j"), ("<![CDATA[a<b]]>", "a<b"), ("&lt;&gt;", "<>"),
    ])
    func aKeyIsComparedDecoded(_ spelled: String, _ plain: String) {
        let escaped = plain.replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
        let text = "<plist><dict><key>\(escaped)</key><true/><key>\(spelled)</key><true/></dict></plist>"
        #expect(refusal(text) == "malformed XML plist: \(plain): duplicate dictionary key \(UntrustedText.quoted(plain)) (at line 1)")
    }

    /// A self-closed key is the empty key; a byte-order mark before the declaration is skipped.
    @Test func anEmptyKeyAndAByteOrderMarkAreRead() throws {
        #expect(try shape("<plist><dict><key/><true/><key>a</key><false/></dict></plist>") == (values: 3, depth: 1))
        #expect(refusal("<plist><dict><key/><true/><key></key><false/></dict></plist>")
                == #"malformed XML plist: : duplicate dictionary key "" (at line 1)"#)
        let marked = [0xEF, 0xBB, 0xBF] + Array("<?xml version=\"1.0\"?><plist><array><true/></array></plist>".utf8)
        #expect(try PropertyList.xmlShape(marked) == (values: 2, depth: 1))
    }

    /// A value outside `<plist>` is refused when lines are being marked too: no line is given.
    @Test func aValueOutsidePlistHasNoLine() {
        #expect(XMLPlistLines.lines(of: [.key("a")], in: Array("<?xml version=\"1.0\"?><true/>".utf8)) == [nil])
    }

    /// Only integers, reals, dates and data have a text rule; a string's text is never refused.
    @Test func onlyTypedElementsHaveATextRule() {
        #expect(XMLPlistScanner.defect(in: Array("01".utf8), as: "string") == nil)
        #expect(XMLPlistScanner.defect(in: Array("01".utf8), as: "integer") != nil)
    }
}
