import Testing
@testable import PlistCore
import Plist
import PlistCore
import TestSupport

/// The XML guard reads what libplist will build: a differential test on generated documents,
/// and each value form Apple's parser accepts or refuses.
@Suite struct XMLGuardAgreesWithLibplist {
    func document(_ body: String) -> [UInt8] {
        Array("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\">\n\(body)\n</plist>\n".utf8)
    }

    func count(_ value: PlistValue) -> (values: Int, depth: Int) {
        switch value {
        case let .array(items):
            let inner = items.map(count)
            return (1 + inner.map(\.values).reduce(0, +), 1 + (inner.map(\.depth).max() ?? 0))
        case let .dictionary(dict):
            let inner = dict.map { count($0.value) }
            return (1 + inner.map(\.values).reduce(0, +), 1 + (inner.map(\.depth).max() ?? 0))
        default: return (1, 0)
        }
    }

    func scan(_ bytes: [UInt8]) throws(PlistError) -> XMLPlistScanner.Summary {
        var result: Result<XMLPlistScanner.Summary, PlistError> = .failure(.empty)
        bytes.withUnsafeBytes { raw in
            do throws(PlistError) { result = .success(try XMLPlistScanner(bytes: raw, limits: .default).scan()) } catch {
                result = .failure(error)
            }
        }
        return try result.get()
    }

    /// A random XML body in every lexical form the guard accepts, plus, sometimes, one that it
    /// must refuse; whenever the guard accepts, libplist's tree has exactly its counts.
    func randomBody(_ rng: inout SplitMix64, depth: Int) -> String {
        let space = ["", " ", "\n\t", "<!-- c -->", " <!-- \"q\" --> "]
        func ws() -> String { space[Int(rng.next() % UInt64(space.count))] }
        let choice = depth > 4 ? rng.next() % 8 : rng.next() % 11
        switch choice {
        case 0: return "<string>\(["a", "a&amp;b", "<![CDATA[<x>]]>", "&#65;&#x42;", "\"q\" 'q'", ""][Int(rng.next() % 6)])</string>"
        case 1: return ["<integer>7</integer>", "<integer> -0x10 </integer>", "<integer>+5</integer>",
                        "<integer>18446744073709551615</integer>", "<integer>010</integer>", "<integer>1 2</integer>"][Int(rng.next() % 6)]
        case 2: return ["<real>1.5</real>", "<real>.5</real>", "<real>NaN</real>", "<real>-inf</real>", "<real>0x1p3</real>",
                        "<real>1e400</real>"][Int(rng.next() % 6)]
        case 3: return ["<date>2025-01-01T09:00:00Z</date>", "<date>2025-02-30T00:00:00Z</date>"][Int(rng.next() % 2)]
        case 4: return ["<data>AAEC\n\tAw==</data>", "<data></data>", "<data>A===</data>"][Int(rng.next() % 3)]
        case 5: return ["<true/>", "<false/>", "<true></true>", "<true>x</true>"][Int(rng.next() % 4)]
        case 6: return "<string/>"
        case 7: return ["<array/>", "<dict/>"][Int(rng.next() % 2)]
        case 8:
            let n = Int(rng.next() % 4)
            return "<array>" + (0..<n).map { _ in ws() + randomBody(&rng, depth: depth + 1) }.joined() + ws() + "</array>"
        default:
            let n = Int(rng.next() % 4)
            var keys = (0..<n).map { "k\($0)" }
            if n > 1 && rng.next() % 10 == 0 { keys[1] = keys[0] }  // a repeated key
            var body = keys.map { key in ws() + "<key>\(key)</key>" + ws() + randomBody(&rng, depth: depth + 1) }.joined()
            if rng.next() % 12 == 0 { body += "<key>dangling</key>" }
            return "<dict>" + body + ws() + "</dict>"
        }
    }

    @Test func guardCountsEqualLibplistsTree() throws {
        var rng = SplitMix64(seed: 0x5EED_1234)
        var accepted = 0, refused = 0
        for _ in 0..<3_000 {
            let bytes = document(randomBody(&rng, depth: 0))
            let summary: XMLPlistScanner.Summary
            do { summary = try scan(bytes) } catch {
                refused += 1
                continue
            }
            accepted += 1
            let value = try LibPlist.read(bytes).value
            let counted = count(value)
            #expect(summary.values == counted.values, "\(String(decoding: bytes, as: UTF8.self))")
            #expect(summary.depth == counted.depth, "\(String(decoding: bytes, as: UTF8.self))")
        }
        // Both branches were exercised.
        #expect(accepted > 500 && refused > 500, "accepted \(accepted), refused \(refused)")
    }

    @Test(arguments: [
        ("<integer> \n\t10</integer>", PlistValue.integer(.signed(10))), ("<integer>+5</integer>", .integer(.signed(5))),
        ("<integer>0x1F</integer>", .integer(.signed(31))), ("<integer>-0x10</integer>", .integer(.signed(-16))),
        ("<integer>18446744073709551615</integer>", .integer(.unsigned(UInt64.max))),
        ("<integer>-9223372036854775808</integer>", .integer(.signed(Int64.min))),
        ("<real>.5</real>", .real(0.5)), ("<real>5.</real>", .real(5)), ("<real> 1e3</real>", .real(1000)),
        ("<real>NaN</real>", .real(.nan)), ("<real>+INF</real>", .real(.infinity)),
        ("<real>-Infinity</real>", .real(-.infinity)), ("<real>1e-400</real>", .real(0)),
        ("<date>2025-01-01T09:00:00Z</date>", .date(757_414_800)), ("<data>\n\tAAEC\n\tAw==\n</data>", .data([0, 1, 2, 3])),
        ("<true></true>", .bool(true)), ("<string>a&amp;b&#65;<![CDATA[<x>]]></string>", .string("a&bA<x>")),
    ])
    func acceptedFormsReadAsApplesParserReadsThem(_ body: String, _ expected: PlistValue) throws {
        #expect(try LibPlist.read(document(body)).value == expected)
    }

    @Test(arguments: [
        ("<dict><key>n</key><integer>010</integer></dict>", #"n: "010" starts with a zero, which libplist reads as octal where Apple reads decimal; write it without the zero"#,
         PlistError.Defect.malformedValue(.integer, text: "010", truncated: false), ObjectPath?.some(.key("n"))),
        ("<integer>-99999999999999999999</integer>", #"top level: "-99999999999999999999" is not an integer as Apple reads it"#,
         .malformedValue(.integer, text: "-99999999999999999999", truncated: false), .topLevel),
        ("<integer>18446744073709551616</integer>", #"top level: "18446744073709551616" is not an integer as Apple reads it"#,
         .malformedValue(.integer, text: "18446744073709551616", truncated: false), .topLevel),
        ("<integer>12abc</integer>", #"top level: "12abc" is not an integer as Apple reads it"#,
         .malformedValue(.integer, text: "12abc", truncated: false), .topLevel),
        ("<integer/>", #"top level: "" is not an integer as Apple reads it"#,
         .malformedValue(.integer, text: "", truncated: false), .topLevel),
        // White space after a number, around nan/inf or a date, and a signed nan: CoreFoundation
        // refuses the whole file (its app starts afresh), so ycft does not read a value there.
        ("<integer>10 </integer>", #"top level: "10 " is not an integer as Apple reads it"#,
         .malformedValue(.integer, text: "10 ", truncated: false), .topLevel),
        ("<real>1.5\n</real>", #"top level: "1.5\n" is not a real as Apple reads it"#,
         .malformedValue(.real, text: "1.5\n", truncated: false), .topLevel),
        ("<real> nan</real>", #"top level: " nan" is not a real as Apple reads it"#,
         .malformedValue(.real, text: " nan", truncated: false), .topLevel),
        ("<real>-nan</real>", #"top level: "-nan" is not a real as Apple reads it"#,
         .malformedValue(.real, text: "-nan", truncated: false), .topLevel),
        ("<date> 2025-01-01T09:00:00Z</date>", #"top level: " 2025-01-01T09:00:00Z" is not a date like 2025-01-01T09:00:00Z"#,
         .malformedValue(.date, text: " 2025-01-01T09:00:00Z", truncated: false), .topLevel),
        ("<real>abc</real>", #"top level: "abc" is not a real as Apple reads it"#,
         .malformedValue(.real, text: "abc", truncated: false), .topLevel),
        ("<real>0x1p3</real>", #"top level: "0x1p3" is not a real as Apple reads it"#,
         .malformedValue(.real, text: "0x1p3", truncated: false), .topLevel),
        ("<array><real>1e400</real></array>", #"[0]: "1e400" is not a real as Apple reads it"#,
         .malformedValue(.real, text: "1e400", truncated: false), ObjectPath([.index(0)])),
        ("<date>2025-13-01T00:00:00Z</date>", #"top level: "2025-13-01T00:00:00Z" is not a date like 2025-01-01T09:00:00Z"#,
         .malformedValue(.date, text: "2025-13-01T00:00:00Z", truncated: false), .topLevel),
        ("<data>!!!!</data>", #"top level: "!!!!" is not base64"#, .malformedValue(.data, text: "!!!!", truncated: false), .topLevel),
        ("<data>\(String(repeating: "!", count: 65))</data>", #"top level: "\#(String(repeating: "!", count: 64))"... is not base64"#,
         .malformedValue(.data, text: String(repeating: "!", count: 64), truncated: true), .topLevel),
        ("<true>false</true>", "top level: <true> must be empty", .notEmpty(element: "true"), .topLevel),
        ("<dict><key>dup</key><true/><key>dup</key><false/></dict>", #"dup: duplicate dictionary key "dup""#,
         .duplicateKey("dup"), .key("dup")),
        // At the key repeated, not at the entry between (an attacker saw "b: duplicate ... "a"").
        ("<dict><key>a</key><true/><key>b</key><true/><key>a</key><false/></dict>", #"a: duplicate dictionary key "a""#,
         .duplicateKey("a"), .key("a")),
        ("<dict><key>a</key></dict>", "a: a <key> without a value in <dict>", .keyWithoutValue, .key("a")),
        ("<true/></plist><plist><false/>", "content after </plist>", .contentAfterPlist, nil),
        ("<true/><false/>", "<plist> holds more than one value", .plistHoldsSeveralValues, nil),
        ("<integer foo=\"1\">1</integer>", "attributes on <integer> are not supported", .attributes(element: "integer"), nil),
    ])
    func refusedFormsNameTheKeyPath(_ body: String, _ why: String, _ defect: PlistError.Defect, _ path: ObjectPath?) {
        let expected = PlistError.malformedXML(defect, at: path, line: 3)
        #expect(expected.description == "malformed XML plist: \(why) (at line 3)")
        #expect(throws: expected) { try LibPlist.read(document(body)) }
    }

    @Test func canonicallyEquivalentKeysAreTwoKeys() throws {
        let value = try LibPlist.read(document("<dict><key>\u{E9}</key><true/><key>e\u{301}</key><false/></dict>")).value
        #expect(value.dictionaryValue?.count == 2)
    }
}
