/// Why JSON text could not be read: what and where (1-based line and column).
public struct JSONError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What is wrong.
    public var message: String
    /// 1-based line of the problem.
    public var line: Int
    /// 1-based column (in bytes) of the problem.
    public var column: Int

    /// `message (at line L, column C)`.
    public var description: String { "\(message) (at line \(line), column \(column))" }
}

extension JSON {
    /// Parses RFC 8259 JSON text strictly: one value, no trailing commas, no comments, valid
    /// UTF-8, no lone surrogate escapes, nesting at most `maxDepth`.
    /// - Throws: `JSONError` with the line and column of the first problem.
    package static func parse(_ bytes: [UInt8], maxDepth: Int = 512) throws(JSONError) -> JSON {
        var parser = Parser(bytes: bytes, maxDepth: maxDepth)
        parser.skipWhitespace()
        let value = try parser.value(depth: 0)
        parser.skipWhitespace()
        guard parser.at == bytes.count else { throw parser.error("unexpected text after the JSON value") }
        return value
    }
}

private struct Parser {
    let bytes: [UInt8]
    let maxDepth: Int
    var at = 0

    init(bytes: [UInt8], maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { at = 3 }
    }

    func error(_ message: String) -> JSONError {
        var line = 1, column = 1
        for b in bytes[..<min(at, bytes.count)] {
            if b == 0x0A { line += 1; column = 1 } else { column += 1 }
        }
        return JSONError(message: message, line: line, column: column)
    }

    mutating func skipWhitespace() {
        while at < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[at]) { at += 1 }
    }

    mutating func expect(_ word: String) throws(JSONError) {
        for b in word.utf8 {
            guard at < bytes.count, bytes[at] == b else { throw error("invalid literal, expected '\(word)'") }
            at += 1
        }
    }

    mutating func value(depth: Int) throws(JSONError) -> JSON {
        guard at < bytes.count else { throw error("unexpected end of input") }
        switch bytes[at] {
        case UInt8(ascii: "{"): return try object(depth: depth + 1)
        case UInt8(ascii: "["): return try array(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try expect("true"); return .bool(true)
        case UInt8(ascii: "f"): try expect("false"); return .bool(false)
        case UInt8(ascii: "n"): try expect("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        default: throw error("unexpected character")
        }
    }

    mutating func object(depth: Int) throws(JSONError) -> JSON {
        guard depth <= maxDepth else { throw error("nesting deeper than \(maxDepth) levels") }
        at += 1
        var members: [JSON.Member] = []
        skipWhitespace()
        if at < bytes.count, bytes[at] == UInt8(ascii: "}") { at += 1; return .object([]) }
        while true {
            skipWhitespace()
            guard at < bytes.count, bytes[at] == UInt8(ascii: "\"") else { throw error("expected a string key") }
            let key = try string()
            skipWhitespace()
            guard at < bytes.count, bytes[at] == UInt8(ascii: ":") else { throw error("expected ':'") }
            at += 1
            skipWhitespace()
            members.append(JSON.Member(key, try value(depth: depth)))
            skipWhitespace()
            guard at < bytes.count else { throw error("unexpected end of input in an object") }
            if bytes[at] == UInt8(ascii: ",") { at += 1; continue }
            if bytes[at] == UInt8(ascii: "}") { at += 1; return .object(members) }
            throw error("expected ',' or '}'")
        }
    }

    mutating func array(depth: Int) throws(JSONError) -> JSON {
        guard depth <= maxDepth else { throw error("nesting deeper than \(maxDepth) levels") }
        at += 1
        var items: [JSON] = []
        skipWhitespace()
        if at < bytes.count, bytes[at] == UInt8(ascii: "]") { at += 1; return .array([]) }
        while true {
            skipWhitespace()
            items.append(try value(depth: depth))
            skipWhitespace()
            guard at < bytes.count else { throw error("unexpected end of input in an array") }
            if bytes[at] == UInt8(ascii: ",") { at += 1; continue }
            if bytes[at] == UInt8(ascii: "]") { at += 1; return .array(items) }
            throw error("expected ',' or ']'")
        }
    }

    mutating func number() throws(JSONError) -> String {
        let start = at
        func digits() -> Int {
            let s = at
            while at < bytes.count, bytes[at] >= UInt8(ascii: "0"), bytes[at] <= UInt8(ascii: "9") { at += 1 }
            return at - s
        }
        if bytes[at] == UInt8(ascii: "-") { at += 1 }
        guard at < bytes.count else { throw error("invalid number") }
        if bytes[at] == UInt8(ascii: "0") {
            at += 1
        } else {
            guard digits() > 0 else { throw error("invalid number") }
        }
        if at < bytes.count, bytes[at] == UInt8(ascii: ".") {
            at += 1
            guard digits() > 0 else { throw error("invalid number: digits expected after '.'") }
        }
        if at < bytes.count, bytes[at] == UInt8(ascii: "e") || bytes[at] == UInt8(ascii: "E") {
            at += 1
            if at < bytes.count, bytes[at] == UInt8(ascii: "+") || bytes[at] == UInt8(ascii: "-") { at += 1 }
            guard digits() > 0 else { throw error("invalid number: digits expected in exponent") }
        }
        return String(decoding: bytes[start..<at], as: UTF8.self)
    }

    mutating func hex4() throws(JSONError) -> UInt32 {
        guard at + 4 <= bytes.count else { throw error("incomplete \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let b = bytes[at]
            let d: UInt32
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = UInt32(b - 48)
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = UInt32(b - 87)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = UInt32(b - 55)
            default: throw error("invalid \\u escape")
            }
            v = v << 4 | d
            at += 1
        }
        return v
    }

    mutating func string() throws(JSONError) -> String {
        at += 1
        var raw: [UInt8] = []
        while true {
            guard at < bytes.count else { throw error("unterminated string") }
            let b = bytes[at]
            if b == UInt8(ascii: "\"") { at += 1; break }
            if b < 0x20 { throw error("control character in a string") }
            if b != UInt8(ascii: "\\") { raw.append(b); at += 1; continue }
            at += 1
            guard at < bytes.count else { throw error("unterminated escape") }
            let e = bytes[at]
            at += 1
            switch e {
            case UInt8(ascii: "\""): raw.append(0x22)
            case UInt8(ascii: "\\"): raw.append(0x5C)
            case UInt8(ascii: "/"): raw.append(0x2F)
            case UInt8(ascii: "b"): raw.append(0x08)
            case UInt8(ascii: "f"): raw.append(0x0C)
            case UInt8(ascii: "n"): raw.append(0x0A)
            case UInt8(ascii: "r"): raw.append(0x0D)
            case UInt8(ascii: "t"): raw.append(0x09)
            case UInt8(ascii: "u"):
                var code = try hex4()
                if (0xD800...0xDBFF).contains(code) {
                    guard at + 1 < bytes.count, bytes[at] == UInt8(ascii: "\\"), bytes[at + 1] == UInt8(ascii: "u") else {
                        throw error("lone surrogate in \\u escape")
                    }
                    at += 2
                    let low = try hex4()
                    guard (0xDC00...0xDFFF).contains(low) else { throw error("lone surrogate in \\u escape") }
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00...0xDFFF).contains(code) {
                    throw error("lone surrogate in \\u escape")
                }
                raw.append(contentsOf: Array(String(Unicode.Scalar(code)!).utf8))
            default:
                throw error("invalid escape")
            }
        }
        // Validated by transcoding, not `String(validating:)`, which Apple platforms have only
        // from iOS 18 and macOS 15 (this module is in the on-device library's closure).
        let invalid = transcode(raw.makeIterator(), from: UTF8.self, to: UTF32.self, stoppingOnError: true) { _ in }
        guard !invalid else { throw error("invalid UTF-8 in a string") }
        return String(decoding: raw, as: UTF8.self)
    }
}
