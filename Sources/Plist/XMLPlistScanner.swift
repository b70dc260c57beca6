/// Checks an XML property list before libplist parses it.
///
/// libplist's XML parser recurses once per nesting level and passes NUL bytes and numeric
/// character references to surrogates straight into C strings, where they truncate or corrupt a
/// value. This scanner bounds the nesting, rejects those characters, and refuses DTD internal
/// subsets (entity declarations), which no property list needs.
struct XMLPlistScanner {
    let bytes: UnsafeRawBufferPointer
    let limits: PlistLimits

    private func line(at offset: Int) -> Int {
        var n = 1
        for i in 0..<min(offset, bytes.count) where bytes[i] == 0x0A { n += 1 }
        return n
    }

    private func fail(_ why: String, _ offset: Int) -> PlistError {
        .malformedXML(why, line: line(at: offset))
    }

    private func starts(with text: String, at offset: Int) -> Bool {
        let utf8 = Array(text.utf8)
        guard offset + utf8.count <= bytes.count else { return false }
        for (i, b) in utf8.enumerated() where bytes[offset + i] != b { return false }
        return true
    }

    private func find(_ text: String, from offset: Int) -> Int? {
        let utf8 = Array(text.utf8)
        var i = offset
        while i + utf8.count <= bytes.count {
            if bytes[i] == utf8[0] && starts(with: text, at: i) { return i }
            i += 1
        }
        return nil
    }

    /// Scans the whole input; throws the first problem found.
    func scan() throws(PlistError) {
        var depth = 0
        var i = 0
        let n = bytes.count
        while i < n {
            let b = bytes[i]
            if b == 0 { throw fail("NUL byte in XML", i) }
            if b == UInt8(ascii: "&") {
                try checkReference(at: i)
                i += 1
                continue
            }
            guard b == UInt8(ascii: "<") else { i += 1; continue }
            if starts(with: "<!--", at: i) {
                guard let end = find("-->", from: i + 4) else { throw fail("unterminated comment", i) }
                i = end + 3
            } else if starts(with: "<![CDATA[", at: i) {
                guard let end = find("]]>", from: i + 9) else { throw fail("unterminated CDATA section", i) }
                for j in i..<end where bytes[j] == 0 { throw fail("NUL byte in XML", j) }
                i = end + 3
            } else if starts(with: "<!DOCTYPE", at: i) {
                i = try endOfMarkup(from: i + 9, terminator: ">", start: i, refusing: UInt8(ascii: "["),
                                    "DTD internal subsets (entity declarations) are not supported")
            } else if starts(with: "<?", at: i) {
                i = try endOfMarkup(from: i + 2, terminator: "?>", start: i, refusing: nil, "")
            } else {
                var j = i + 1
                let closing = j < n && bytes[j] == UInt8(ascii: "/")
                if closing { j += 1 }
                let nameStart = j
                while j < n, bytes[j] != UInt8(ascii: ">"), bytes[j] != UInt8(ascii: "/"),
                      bytes[j] != UInt8(ascii: " "), bytes[j] != 0x09, bytes[j] != 0x0A, bytes[j] != 0x0D {
                    j += 1
                }
                let name = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[nameStart..<j]), as: UTF8.self)
                j = try endOfMarkup(from: j, terminator: ">", start: i, refusing: nil, "") - 1
                let selfClosing = bytes[j - 1] == UInt8(ascii: "/")
                if name == "array" || name == "dict" {
                    if closing {
                        // A closing tag with nothing open: this reading and libplist's differ.
                        guard depth > 0 else { throw fail("</\(name)> closes nothing", i) }
                        depth -= 1
                    } else if !selfClosing {
                        depth += 1
                        if depth > limits.maxDepth { throw PlistError.tooDeep(limit: limits.maxDepth) }
                    }
                }
                i = j + 1
            }
        }
    }

    /// The offset just past `terminator`, skipping double-quoted text as libplist 2.2.0 does in
    /// processing instructions, DOCTYPE declarations and tag attributes. Quoted text that holds
    /// `<` or `>` is refused: it is the one place where a reader that ignores quotes and one that
    /// honours them disagree about where markup ends (a quoted `"?>"` once hid 200,000 closing
    /// tags from the depth count, and libplist built a tree deep enough to overflow its stack).
    private func endOfMarkup(from offset: Int, terminator: String, start: Int, refusing refused: UInt8?,
                             _ refusal: String) throws(PlistError) -> Int {
        let end = Array(terminator.utf8)
        var j = offset
        while j < bytes.count {
            let b = bytes[j]
            if b == 0 { throw fail("NUL byte in XML", j) }
            if b == UInt8(ascii: "\"") {
                var k = j + 1
                while k < bytes.count && bytes[k] != UInt8(ascii: "\"") {
                    if bytes[k] == UInt8(ascii: "<") || bytes[k] == UInt8(ascii: ">") {
                        throw fail("'<' or '>' inside quoted text in markup is not supported", k)
                    }
                    if bytes[k] == 0 { throw fail("NUL byte in XML", k) }
                    k += 1
                }
                guard k < bytes.count else { throw fail("unterminated quoted text in markup", j) }
                j = k + 1
                continue
            }
            if let refused, b == refused { throw fail(refusal, j) }
            if b == end[0] && starts(with: terminator, at: j) { return j + end.count }
            j += 1
        }
        throw fail(terminator == "?>" ? "unterminated processing instruction" : "unterminated tag", start)
    }

    /// Rejects numeric character references that a C string cannot hold or UTF-8 cannot encode.
    private func checkReference(at offset: Int) throws(PlistError) {
        guard offset + 2 < bytes.count, bytes[offset + 1] == UInt8(ascii: "#") else { return }
        var j = offset + 2
        var radix: UInt32 = 10
        if j < bytes.count && (bytes[j] == UInt8(ascii: "x") || bytes[j] == UInt8(ascii: "X")) { radix = 16; j += 1 }
        var value: UInt32 = 0
        var digits = 0
        while j < bytes.count, let d = hexDigit(bytes[j], radix: radix) {
            value = min(value &* radix &+ d, 0x11_0000)
            digits += 1
            j += 1
        }
        guard digits > 0 else { return }
        if value == 0 || (0xD800...0xDFFF).contains(value) || value > 0x10FFFF {
            throw PlistError.unrepresentableString(
                "has character reference U+\(String(value, radix: 16, uppercase: true))",
                at: "line \(line(at: offset))")
        }
    }

    private func hexDigit(_ b: UInt8, radix: UInt32) -> UInt32? {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt32(b - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f") where radix == 16: return UInt32(b - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F") where radix == 16: return UInt32(b - UInt8(ascii: "A") + 10)
        default: return nil
        }
    }
}
