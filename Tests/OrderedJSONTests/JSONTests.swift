import Testing
import OrderedJSON

@Suite struct JSONParsing {
    @Test func keepsOrderDuplicatesAndEquivalentKeys() throws {
        let value = try JSON.parse(Array(#"{"b":1,"a":2,"é":3,"e\u0301":4,"a":5}"#.utf8))
        #expect(value.members?.map(\.key) == ["b", "a", "é", "e\u{301}", "a"])
    }

    @Test func keepsNumberText() throws {
        let value = try JSON.parse(Array("[757414800.123456, -0.0, 1e+15, 18446744073709551615]".utf8))
        #expect(value == .array([.number("757414800.123456"), .number("-0.0"), .number("1e+15"), .number("18446744073709551615")]))
    }

    @Test func decodesEscapesAndSurrogatePairs() throws {
        let value = try JSON.parse(Array(#"["\ud83d\ude00\n\t\"\\\/"]"#.utf8))
        #expect(value == .array([.string("😀\n\t\"\\/")]))
    }

    @Test(arguments: [
        ("[1,]", "unexpected character (at line 1, column 4)"),
        ("{\"a\" 1}", "expected ':' (at line 1, column 6)"),
        ("[\"\\ud800\"]", "lone surrogate in \\u escape (at line 1, column 9)"),
        ("01", "unexpected text after the JSON value (at line 1, column 2)"),
        ("[1.]", "invalid number: digits expected after '.' (at line 1, column 4)"),
        ("\n\n  tru", "invalid literal, expected 'true' (at line 3, column 6)"),
        ("", "unexpected end of input (at line 1, column 1)"),
    ])
    func rejects(_ text: String, _ message: String) {
        #expect(throws: JSONError.self) { try JSON.parse(Array(text.utf8)) }
        do { _ = try JSON.parse(Array(text.utf8)) } catch { #expect(error.description == message) }
    }

    @Test func boundsNesting() {
        let deep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        #expect(throws: JSONError.self) { try JSON.parse(Array(deep.utf8)) }
    }

    @Test func rejectsInvalidUTF8() {
        #expect(throws: JSONError.self) { try JSON.parse([0x22, 0xFF, 0x22]) }
    }
}

@Suite struct JSONWriting {
    let value = JSON.object([
        .init("s", .string("a\"\\/\u{1}é")), .init("n", .number("1.5")), .init("e", .array([])),
        .init("o", .object([])), .init("l", .array([.null, .bool(true)])),
    ])

    @Test func pretty() {
        #expect(value.text() == """
        {
          "s" : "a\\"\\\\/\\u0001é",
          "n" : 1.5,
          "e" : [],
          "o" : {},
          "l" : [
            null,
            true
          ]
        }

        """)
    }

    @Test func compact() {
        #expect(value.text(style: .compact) == #"{"s":"a\"\\/\u0001é","n":1.5,"e":[],"o":{},"l":[null,true]}"# + "\n")
    }

    @Test func numbersFromDoublesRoundTrip() {
        for d in [0.0, -0.0, 0.1, 1e15, 1e16, .leastNonzeroMagnitude, .greatestFiniteMagnitude, 757414800.123456, -1.5e-7] {
            guard case let .number(text)? = JSON.number(d) else { Issue.record("no text for \(d)"); continue }
            #expect(Double(text)?.bitPattern == d.bitPattern)
            #expect(text.contains(".") || text.contains("e"))
        }
        #expect(JSON.number(.nan) == nil)
    }

    @Test func writtenTextParsesBack() throws {
        #expect(try JSON.parse(Array(value.text().utf8)) == value)
    }
}

/// The string writer escapes what acts on a terminal (issue 25, item 18) and nothing else, and
/// the text reads back to the same scalars.
@Suite struct JSONTerminalSafeStrings {
    /// DEL, the C1 controls, the line and paragraph separators and the bidirectional controls.
    static let escapedScalars: [UInt32] = [0x7F] + Array(0x80...0x9F) + [0x200E, 0x200F] + Array(0x2028...0x202E) + Array(0x2066...0x2069)

    @Test func escapesDELC1SeparatorsAndBidiControls() throws {
        #expect(JSON.string("a\u{7F}b\u{9B}31mc\u{202E}d\u{2028}e\u{2066}f\u{2069}").text(style: .compact)
                == #""a\u007fb\u009b31mc\u202ed\u2028e\u2066f\u2069""# + "\n")
        for value in Self.escapedScalars {
            let hex = String(value, radix: 16)
            let expected = "\"x\\u" + String(repeating: "0", count: 4 - hex.count) + hex + "y\"\n"
            let scalar = try #require(Unicode.Scalar(value))
            #expect(JSON.string("x\(Character(scalar))y").text(style: .compact) == expected, "U+\(hex)")
        }
    }

    @Test func leavesTheirNeighboursRaw() {
        // Same lead bytes (C2, E2) or next to the escaped ranges, but printable: kept as they are.
        let neighbours = "\u{A0}\u{A9}\u{BF}\u{E9}\u{200D}\u{2010}\u{2013}\u{2027}\u{202F}\u{2030}\u{2065}\u{206A}\u{20AC}\u{2603}€é😀"
        #expect(JSON.string(neighbours).text(style: .compact) == "\"\(neighbours)\"\n")
        #expect(JSON.string("plain ASCII ~").text(style: .compact) == "\"plain ASCII ~\"\n")
    }

    @Test func roundTripsExactly() throws {
        var all = ""
        for value in Self.escapedScalars + Array(0...0x1F) + [0x22, 0x5C, 0xA0, 0xC2, 0xE2, 0x2030] {
            all.unicodeScalars.append(try #require(Unicode.Scalar(value)))
        }
        let text = JSON.object([.init(all, .string(all + "€"))]).bytes(style: .pretty)
        #expect(!String(decoding: text, as: UTF8.self).unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" || $0.value >= 0x7F && $0.value <= 0x9F })
        let back = try JSON.parse(text)
        #expect(back == .object([.init(all, .string(all + "€"))]))
        #expect(back.members?.first?.key.unicodeScalars.map(\.value) == all.unicodeScalars.map(\.value))
    }
}

/// The fast path scans eight bytes at a time: every character that needs escaping, and its
/// printable neighbours, at every offset of strings of 1 to 24 bytes, against a plain
/// scalar-by-scalar statement of the rule.
@Suite struct JSONStringScanAtEveryOffset {
    static func expected(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            default:
                if JSONTerminalSafeStrings.escapedScalars.contains(scalar.value) || scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\"\n"
    }

    @Test func everyOffset() {
        let specials = ["\u{0}", "\u{1F}", "\"", "\\", "\n", "\u{7F}", "\u{80}", "\u{9B}", "\u{2028}", "\u{202E}", "\u{2069}",
                        " ", "!", "#", "[", "]", "~", "\u{A0}", "é", "\u{2030}", "😀"]
        for length in 1...24 {
            for position in 0..<length {
                for special in specials {
                    var s = String(repeating: "a", count: position) + special + String(repeating: "b", count: length - position - 1)
                    #expect(JSON.string(s).text(style: .compact) == Self.expected(s), "\(length) \(position) \(special.unicodeScalars.map(\.value))")
                    s = String(repeating: "~", count: length) + s  // a longer, word-misaligned variant
                    #expect(JSON.string(s).text(style: .compact) == Self.expected(s))
                }
            }
        }
    }
}

/// `JSONWriter` lays out a document written piece by piece exactly as it lays out the same
/// document given as a tree, and both as the format says: two-space indents, `"key" : value`,
/// empty containers as `{}` and `[]`, nothing between tokens when compact.
@Suite struct JSONWriterPieces {
    static let tree = JSON.object([
        .init("a", .array([.number("1"), .object([]), .array([]), .array([.null, .bool(true)])])),
        .init("b", .object([.init("c", .string("x\"y")), .init("d", .bool(false))])),
        .init("e", .string("")),
    ])

    /// The same document as calls.
    static func streamed(_ style: JSON.Style) -> [UInt8] {
        var writer = JSONWriter(style: style)
        writer.beginObject()
        writer.key("a")
        writer.beginArray()
        writer.value(.number("1"))
        writer.beginObject()
        writer.endObject()
        writer.beginArray()
        writer.endArray()
        writer.beginArray()
        writer.null()
        writer.value(.bool(true))
        writer.endArray()
        writer.endArray()
        writer.key("b")
        writer.beginObject()
        writer.key("c")
        writer.string("x\"y")
        writer.key("d")
        writer.value(.bool(false))
        writer.endObject()
        writer.key("e")
        writer.string("")
        writer.endObject()
        return writer.finish()
    }

    @Test func prettyAndCompactText() {
        #expect(Self.tree.text() == """
            {
              "a" : [
                1,
                {},
                [],
                [
                  null,
                  true
                ]
              ],
              "b" : {
                "c" : "x\\"y",
                "d" : false
              },
              "e" : ""
            }

            """)
        #expect(Self.tree.text(style: .compact) == #"{"a":[1,{},[],[null,true]],"b":{"c":"x\"y","d":false},"e":""}"# + "\n")
    }

    @Test(arguments: [JSON.Style.pretty, .compact])
    func piecesAreTheTree(_ style: JSON.Style) {
        #expect(Self.streamed(style) == Self.tree.bytes(style: style))
    }

    /// A string given as UTF-8 is escaped exactly as the same `String` is.
    @Test(arguments: ["", "plain", "q\"b\\", "tab\tnl\n\u{7F}", "é\u{85}\u{2028}\u{202E}x", "\u{1F600}"])
    func utf8StringsAreEscapedAsStrings(_ text: String) {
        var fromString = JSONWriter(style: .compact), fromBytes = JSONWriter(style: .compact)
        fromString.string(text)
        Array(text.utf8).withUnsafeBufferPointer { fromBytes.string(utf8: $0) }
        let (bytes, string) = (fromBytes.finish(), fromString.finish())
        #expect(bytes == string)
    }

    /// Past the writer's first buffer (64 KiB) and through deep indents (more than eight
    /// spaces at a time): the text is what the layout rules give, built here by hand.
    @Test func growsAndIndentsDeep() {
        let strings = (0..<5000).map { "item \($0) \u{E9}\"" }
        let expected = "[\n" + strings.map { "  \"" + $0.replacing("\"", with: "\\\"") + "\"" }.joined(separator: ",\n") + "\n]\n"
        #expect(JSON.array(strings.map(JSON.string)).text() == expected)
        var nested = JSON.number("1")
        for _ in 0..<40 { nested = .array([nested]) }
        let lines = (0...40).map { String(repeating: " ", count: 2 * $0) + "[" }.dropLast()
        let deep = lines.joined(separator: "\n") + "\n" + String(repeating: " ", count: 80) + "1\n"
            + (0..<40).reversed().map { String(repeating: " ", count: 2 * $0) + "]" }.joined(separator: "\n") + "\n"
        #expect(nested.text() == deep)
    }

    @Test func aScalarAloneAndEmptyContainersAtTheTop() {
        #expect(JSON.string("é").text() == "\"é\"\n")
        #expect(JSON.object([]).text() == "{}\n")
        #expect(JSON.array([]).text(style: .compact) == "[]\n")
    }
}
