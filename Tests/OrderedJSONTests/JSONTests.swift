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
