import Testing
import Plist
import PlistCore

/// The locator behind `verify --format github`'s `line=`: each path names the line of the
/// deepest element of it the document holds, or no line.
@Suite struct XMLPlistLinesTests {
    /// Numbered so that each line's number is obvious: line N of the document is `lines[N - 1]`.
    static let lines = [
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>",  // 1
        "<plist version=\"1.0\">",  // 2
        "<dict>",  // 3
        "  <key>$objects</key>",  // 4
        "  <array>",  // 5
        "    <string>$null</string>",  // 6  $objects[0]
        "    <dict>",  // 7  $objects[1]
        "      <key>NS.objects</key>",  // 8
        "      <array>",  // 9
        "        <dict><key>CF$UID</key><integer>2</integer></dict>",  // 10 NS.objects[0]
        "        <dict><key>CF$UID</key><integer>3</integer></dict>",  // 11 NS.objects[1]
        "      </array>",  // 12
        "      <key>lastTime</key> <real>1.5</real>",  // 13
        "      <key>e\u{301}</key><string>decomposed</string>",  // 14
        "      <key>\u{E9}</key><string>composed</string>",  // 15
        "    </dict>",  // 16
        "    <dict/>",  // 17 $objects[2]
        "  </array>",  // 18
        "  <key>$top</key>",  // 19
        "  <dict>",  // 20
        "    <key>root</key>",  // 21
        "    <dict>",  // 22
        "      <key>CF$UID</key>",  // 23
        "      <integer>1</integer>",  // 24
        "    </dict>",  // 25
        "  </dict>",  // 26
        "  <key>a &amp; b</key><string>{\"k\": 1}</string>",  // 27
        "</dict>",  // 28
        "</plist>",  // 29
    ]
    static let document = Array((lines.joined(separator: "\n") + "\n").utf8)

    func line(_ path: ObjectPath, in bytes: [UInt8] = document) -> Int? {
        XMLPlistLines.lines(of: [path], in: bytes)[0]
    }

    @Test func eachPathNamesItsElementsLine() {
        let cases: [(ObjectPath, Int?)] = [
            (.topLevel, 3),
            (.key("$objects"), 5),
            (.object(0), 6),
            (.object(1), 7),
            (.object(1).key("NS.objects"), 9),
            (.object(1).key("NS.objects").index(0), 10),
            (.object(1).key("NS.objects").index(1), 11),
            (.object(1).key("lastTime"), 13),
            (.object(2), 17),
            (.key("$top").key("root"), 22),
            (.key("$top").key("root").key("CF$UID"), 24),
            // Keys are the decoded text, compared as bytes (the guard's rule): two spellings of é are two keys.
            (.object(1).key("e\u{301}"), 14),
            (.object(1).key("\u{E9}"), 15),
            (.key("a & b"), 27),
        ]
        let found = XMLPlistLines.lines(of: cases.map(\.0), in: Self.document)
        for (i, (path, expected)) in cases.enumerated() { #expect(found[i] == expected, "\(path)") }
    }

    @Test func aMissingEndIsItsDeepestElementAndNothingFoundIsNoLine() {
        // What exists of the path: the element it ends in is absent, its container is not.
        #expect(line(.object(1).key("sharedGroup")) == 7)
        #expect(line(.object(1).key("NS.objects").index(2)) == 9)
        #expect(line(.object(2).key("lastTime")) == 17)
        // A JSON member lies inside the string.
        #expect(line(ObjectPath.key("a & b").member("k")) == 27)
        // No step of the path is in the document.
        #expect(line(.object(3)) == nil)
        #expect(line(.object(UInt64.max)) == nil)
        #expect(line(.key("interval.k")) == nil)
        #expect(line(.key("a &amp; b")) == nil)
        #expect(line(.file) == nil)
        // Shapes no finding has: an object or the top level further in.
        #expect(line(ObjectPath([.key("$top"), .object(1)])) == 20)
        #expect(line(ObjectPath([.key("nothing"), .topLevel])) == nil)
    }

    @Test func onlyAnXMLDocumentTheGuardAcceptsHasLines() {
        let accepted = Self.document
        #expect(line(.object(1), in: accepted) == 7)
        // Binary: no lines.
        #expect(line(.topLevel, in: Array("bplist00".utf8) + [UInt8](repeating: 0, count: 40)) == nil)
        // Refused by the guard (a duplicate key after the element): no line, not a guess.
        var refused = Self.lines
        refused[27] = "<key>$top</key><string/></dict>"
        #expect(line(.object(1), in: Array(refused.joined(separator: "\n").utf8)) == nil)
        // Not a property list at all, and empty input.
        #expect(line(.topLevel, in: Array("hello".utf8)) == nil)
        #expect(line(.topLevel, in: []) == nil)
    }

    @Test func lineEndings() {
        // CRLF ends a line once; a lone CR, on which editors and XML disagree, gives no lines.
        let crlf = Array(Self.lines.joined(separator: "\r\n").utf8)
        #expect(line(.object(1).key("lastTime"), in: crlf) == 13)
        let cr = Array(Self.lines.joined(separator: "\r").utf8)
        #expect(line(.object(1), in: cr) == nil)
        let oneLine = Array(Self.lines.joined().utf8)
        #expect(line(.key("$top").key("root"), in: oneLine) == 1)
    }

    @Test func hostileNestingEndsWithoutLines() {
        // Deeper than the guard allows: refused in one pass, no line, no crash.
        let depth = PlistLimits.default.maxDepth + 10
        let deep = "<plist>" + String(repeating: "<array>", count: depth) + String(repeating: "</array>", count: depth) + "</plist>"
        let deepPath = ObjectPath([.topLevel] + [ObjectPath.Component](repeating: .index(0), count: depth - 1))
        #expect(XMLPlistLines.lines(of: [deepPath, .topLevel], in: Array(deep.utf8)) == [nil, nil])
        // As deep as allowed: the deepest element is found.
        let allowed = PlistLimits.default.maxDepth
        let nested = "<plist>\n" + String(repeating: "<array>\n", count: allowed) + String(repeating: "</array>", count: allowed) + "</plist>"
        let path = ObjectPath([.topLevel] + [ObjectPath.Component](repeating: .index(0), count: allowed - 1))
        #expect(line(path, in: Array(nested.utf8)) == allowed + 1)
        // Many paths, many values: one pass for all.
        let items = 20_000
        let wide = "<plist><array>\n" + String(repeating: "<integer>1</integer>\n", count: items) + "</array></plist>"
        let paths = (0..<items).map { ObjectPath([.topLevel, .index($0)]) }
        let found = XMLPlistLines.lines(of: paths, in: Array(wide.utf8))
        #expect(found == (0..<items).map { Optional($0 + 2) })
    }
}
