/// Checks an XML property list before libplist parses it, so that what libplist builds is what
/// Apple's parser (CoreFoundation's `CFPropertyList.c`) would read, or the file is refused.
///
/// libplist 2.2.0 recurses once per nesting level and reads values loosely (`010` as octal 8,
/// `12abc` as 12, a malformed date as 1970, bad base64 as empty data), keeps one of two equal
/// keys and ignores a second `<plist>`. This scanner reads the document as the strict grammar
/// docs/safety.md lists (one `<plist>`, alternating `<key>` and value, exact numbers, dates and
/// base64, no NUL or other entities) and refuses each of those, naming the key path. It refuses
/// a declared encoding other than UTF-8 (``declaredEncoding(_:)``), which CoreFoundation converts
/// from and libplist would read as UTF-8.
///
/// It also bounds nesting (``PlistLimits/maxDepth``) and counts the values libplist will build.
struct XMLPlistScanner {
    let bytes: UnsafeRawBufferPointer
    let limits: PlistLimits

    /// What the document holds, as libplist will build it.
    struct Summary: Equatable {
        /// Values (arrays, dictionaries and leaves; keys not counted).
        var values = 0
        /// The deepest nesting of arrays and dictionaries.
        var depth = 0
    }

    private enum Frame {
        case plist(values: Int)
        case array(count: Int)
        /// `key`: read, waiting for its value; `last`: the key of the latest value (for paths).
        case dict(key: String?, last: String?, keys: Set<[UInt8]>)
    }

    private func line(at offset: Int) -> Int {
        var n = 1
        for i in 0..<min(offset, bytes.count) where bytes[i] == 0x0A { n += 1 }
        return n
    }

    private func fail(_ defect: PlistError.Defect, _ offset: Int, at path: ObjectPath? = nil) -> PlistError {
        .malformedXML(defect, at: path, line: line(at: offset))
    }

    private func starts(with utf8: [UInt8], at offset: Int) -> Bool {
        guard offset + utf8.count <= bytes.count else { return false }
        var i = 0
        while i < utf8.count {
            if bytes[offset + i] != utf8[i] { return false }
            i += 1
        }
        return true
    }

    /// The byte sequences the scanner looks for, made once.
    private enum Token {
        static let comment = Array("<!--".utf8), commentEnd = Array("-->".utf8)
        static let declaration = Array("<?xml".utf8), doctype = Array("<!DOCTYPE".utf8)
        static let cdata = Array("<![CDATA[".utf8), cdataEnd = Array("]]>".utf8)
        static let tagEnd = Array(">".utf8), instructionEnd = Array("?>".utf8)
    }

    private func find(_ utf8: [UInt8], from offset: Int) -> Int? {
        var i = offset
        while i + utf8.count <= bytes.count {
            if bytes[i] == utf8[0] && starts(with: utf8, at: i) { return i }
            i += 1
        }
        return nil
    }

    private static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }

    /// The element names of a property list, interned (most tags cost no new string).
    private static let knownNames = ["plist", "dict", "key", "array", "string", "integer", "real", "date", "data", "true", "false"]
        .map { (Array($0.utf8), $0) }

    private static func elementName(_ raw: UnsafeRawBufferPointer) -> String {
        for (bytes, name) in knownNames where bytes.count == raw.count && bytes.elementsEqual(raw) { return name }
        return String(decoding: raw, as: UTF8.self)
    }

    /// Scans the whole input; throws the first problem found.
    @discardableResult
    func scan() throws(PlistError) -> Summary {
        var none: XMLPlistLines.Trie?
        return try scan(marking: &none)
    }

    /// Scans the whole input, and marks in `trie` where each value on one of its paths starts
    /// (the offset of its start tag's `<`), for ``XMLPlistLines``: one pass, O(1) work per value
    /// beyond the scan's own.
    @discardableResult
    func scan(marking trie: inout XMLPlistLines.Trie?) throws(PlistError) -> Summary {
        var summary = Summary()
        /// The trie node of each frame of `stack` (nil: not on a marked path); kept only with a trie.
        var trail: [Int?] = []
        /// The trie node of the value `placeValue` placed last.
        var placed: Int?
        let budget = limits.nodeBudget(forInputSize: bytes.count)
        var stack: [Frame] = []
        var sawPlist = false, closedPlist = false
        var i = 0
        let n = bytes.count
        // The UTF-8 byte-order mark, read past (libplist is handed the bytes after it); every
        // offset and line still counts from the file's first byte.
        if starts(with: PropertyList.byteOrderMark, at: 0) { i = PropertyList.byteOrderMark.count }
        let start = i
        func path() -> ObjectPath { Self.path(stack) }
        /// Records one value at the current place (a dict's value, an array's item, the plist's value).
        func placeValue(at offset: Int) throws(PlistError) {
            if trie != nil { placed = node(at: offset) }
            switch stack.last {
            case nil:
                throw fail(.valueOutsidePlist, offset)
            case let .plist(values)?:
                guard values == 0 else { throw fail(.plistHoldsSeveralValues, offset) }
                stack[stack.count - 1] = .plist(values: 1)
            case let .array(count)?:
                stack[stack.count - 1] = .array(count: count + 1)
            case let .dict(key, _, keys)?:
                guard key != nil else { throw fail(.valueWithoutKey, offset, at: path()) }
                stack[stack.count - 1] = .dict(key: nil, last: key, keys: keys)
            }
            summary.values += 1
            if summary.values > budget { throw PlistError.tooManyNodes(expanded: UInt64(summary.values), limit: budget) }
        }
        /// The trie node of the value about to be placed at `offset`, marked there; nil when it
        /// is on no path of the trie. Called before `placeValue` counts it in its container.
        func node(at offset: Int) -> Int? {
            let found: Int?
            switch stack.last {
            case .plist?: found = XMLPlistLines.Trie.top
            // unreachable: (`?? nil` here and in the dict case) with a trie, push(_:node:) adds a trail entry for every
            // frame, so `trail` is never empty
            case let .array(count)?: found = (trail.last ?? nil).flatMap { trie?.children[$0][.index(count)] }
            case let .dict(key, _, _)?:
                // unreachable: (`?? nil`) `trail` is never empty, as above
                found = (trail.last ?? nil).flatMap { parent in key.flatMap { trie?.children[parent][.key(Array($0.utf8))] } }
            case nil: found = nil
            }
            if let found { trie?.mark(found, at: offset) }
            return found
        }
        func push(_ frame: Frame, node: Int?) {
            stack.append(frame)
            if trie != nil { trail.append(node) }
        }
        func pop() {
            stack.removeLast()
            if trie != nil { trail.removeLast() }
        }
        while i < n {
            let b = bytes[i]
            if b == 0 { throw fail(.nulByte, i) }
            if b != UInt8(ascii: "<") {
                guard Self.isSpace(b) else { throw fail(.textOutsideValue, i) }
                i += 1
                continue
            }
            let second = i + 1 < n ? bytes[i + 1] : 0
            if second == UInt8(ascii: "!") && starts(with: Token.comment, at: i) {
                guard let end = find(Token.commentEnd, from: i + 4) else { throw fail(.unterminatedComment, i) }
                for j in i..<end where bytes[j] == 0 { throw fail(.nulByte, j) }
                i = end + 3
                continue
            }
            if second == UInt8(ascii: "?") {
                // Only the XML declaration, first in the file (so at most one).
                guard i == start, starts(with: Token.declaration, at: i), i + 5 < n, Self.isSpace(bytes[i + 5]) else {
                    throw fail(.processingInstruction, i)
                }
                i = try endOfMarkup(from: i + 2, terminator: Token.instructionEnd, start: i)
                // After a byte-order mark CoreFoundation reads UTF-8 whatever the declaration says.
                if start == 0, let name = Self.declaredEncoding(bytes) {
                    let shown = name.prefix(64).map { Character(Unicode.Scalar($0)) }
                    throw PlistError.xmlDeclaredEncoding(name: String(shown), truncated: name.count > 64)
                }
                continue
            }
            if second == UInt8(ascii: "!") && starts(with: Token.doctype, at: i) {
                guard !sawPlist else { throw fail(.doctypeAfterPlist, i) }
                i = try endOfMarkup(from: i + 9, terminator: Token.tagEnd, start: i, refusing: (UInt8(ascii: "["), .internalSubset))
                continue
            }
            if second == UInt8(ascii: "!") { throw fail(starts(with: Token.cdata, at: i) ? .cdataOutsideText : .unsupportedMarkup, i) }
            // A tag.
            var j = i + 1
            let closing = j < n && bytes[j] == UInt8(ascii: "/")
            if closing { j += 1 }
            let nameStart = j
            while j < n, bytes[j] != UInt8(ascii: ">"), bytes[j] != UInt8(ascii: "/"), !Self.isSpace(bytes[j]) { j += 1 }
            let name = Self.elementName(UnsafeRawBufferPointer(rebasing: bytes[nameStart..<j]))
            let attributesStart = j
            let end = try endOfMarkup(from: j, terminator: Token.tagEnd, start: i)
            let selfClosing = bytes[end - 2] == UInt8(ascii: "/")
            let attributesEnd = selfClosing ? end - 2 : end - 1
            let hasAttributes = (attributesStart..<max(attributesStart, attributesEnd)).contains { !Self.isSpace(bytes[$0]) }
            if closedPlist { throw fail(.contentAfterPlist, i) }
            if closing {
                guard !hasAttributes, !selfClosing else { throw fail(.malformedClosingTag(name), i) }
                switch (name, stack.last) {
                case ("array", .array?): pop()
                case ("dict", let .dict(key, _, _)?):
                    guard key == nil else { throw fail(.keyWithoutValue, i, at: path()) }
                    pop()
                case ("plist", let .plist(values)?):
                    guard values == 1 else { throw fail(.plistHoldsNoValue, i) }
                    pop()
                    closedPlist = true
                default:
                    throw fail(.unmatchedClosingTag(name), i)
                }
                i = end
                continue
            }
            if name == "plist" {
                guard stack.isEmpty, !sawPlist, !selfClosing else { throw fail(.misplacedPlist, i) }
                sawPlist = true
                push(.plist(values: 0), node: nil)
                i = end
                continue
            }
            guard !hasAttributes else { throw fail(.attributes(element: name), i) }
            if name == "key" {
                guard case .dict(let key, let last, var known)? = stack.last, key == nil else {
                    throw fail(.misplacedKey, i, at: path())
                }
                let (text, next) = selfClosing ? ([], end) : try textContent(from: end, name: name, text: true, collect: true)
                // The set leaves the stack while a key goes in: shared with the stack's entry, each
                // insert would copy every key before it, and the check would be quadratic.
                stack[stack.count - 1] = .dict(key: nil, last: last, keys: [])
                // Keys are compared as bytes: canonically equivalent spellings are two keys.
                guard known.insert(text).inserted else {
                    // Located at the key repeated, not at the entry before it.
                    let repeated = String(decoding: text, as: UTF8.self)
                    stack[stack.count - 1] = .dict(key: repeated, last: last, keys: known)
                    throw fail(.duplicateKey(repeated), i, at: path())
                }
                stack[stack.count - 1] = .dict(key: String(decoding: text, as: UTF8.self), last: last, keys: known)
                i = next
                continue
            }
            // Every other known name (`plist` and `key` are handled above) is a value's.
            guard Self.knownNames.contains(where: { $0.1 == name }) else { throw fail(.unknownElement(name), i) }
            try placeValue(at: i)
            switch name {
            case "array", "dict":
                if !selfClosing {
                    push(name == "array" ? .array(count: 0) : .dict(key: nil, last: nil, keys: []), node: placed)
                    let depth = stack.count - 1  // the plist frame is not a level
                    summary.depth = max(summary.depth, depth)
                    if depth > limits.maxDepth { throw PlistError.tooDeep(limit: limits.maxDepth) }
                } else {
                    summary.depth = max(summary.depth, stack.count)
                }
                i = end
            case "true", "false":
                if selfClosing {
                    i = end
                } else {
                    guard starts(with: Array("</\(name)>".utf8), at: end) else {
                        throw fail(.notEmpty(element: name), i, at: path())
                    }
                    i = end + name.utf8.count + 3
                }
            default:
                let isString = name == "string"
                let (text, next) = selfClosing ? ([], end) : try textContent(from: end, name: name, text: isString, collect: !isString)
                if !isString, let defect = Self.defect(in: text, as: name) { throw fail(defect, i, at: path()) }
                i = next
            }
        }
        guard closedPlist else { throw fail(sawPlist ? .unterminated(element: "plist") : .noPlist, n) }
        return summary
    }

    /// The encoding the XML declaration at the start of `bytes` names, when it is not UTF-8; nil
    /// when there is none or it names UTF-8 (``namesUTF8(_:)``). Found as CoreFoundation finds
    /// it (`encodingForXMLData` in `CFPropertyList.c`), byte for byte: only when the file starts
    /// with `<?xml` (a byte-order mark before it means UTF-8, and the declaration is not read);
    /// the first `encoding=` (exactly that, no space before the `=`) before any `?` or `>`;
    /// then a quote, `"` or `'`, and the name up to the same quote. Anything else, a space
    /// around the `=` included, declares nothing: CoreFoundation reads UTF-8.
    static func declaredEncoding(_ bytes: UnsafeRawBufferPointer) -> [UInt8]? {
        let opening = Array("<?xml".utf8), key = Array("encoding=".utf8)
        guard bytes.count >= opening.count, bytes.prefix(opening.count).elementsEqual(opening) else { return nil }
        var i = opening.count
        while true {
            guard i < bytes.count, bytes[i] != UInt8(ascii: "?"), bytes[i] != UInt8(ascii: ">") else { return nil }
            if i + key.count <= bytes.count, bytes[i..<(i + key.count)].elementsEqual(key) { break }
            i += 1
        }
        i += key.count
        guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") || bytes[i] == UInt8(ascii: "'") else { return nil }
        let quote = bytes[i]
        guard let end = bytes[(i + 1)...].firstIndex(of: quote) else { return nil }
        let name = Array(bytes[(i + 1)..<end])
        return namesUTF8(name) ? nil : name
    }

    /// Whether a declared encoding name is UTF-8 to CoreFoundation: `utf-8` in any case (its own
    /// test), or a name its lookup of IANA names (`CFStringConvertIANACharSetNameToEncoding`,
    /// through ICU's alias table) takes for UTF-8 as ICU compares names: case, every character
    /// but ASCII letters and digits, and a zero that starts a number ignored (`UTF8`, `utf_8`,
    /// `utf-08`). UTF-8's other aliases (`unicode-1-1-utf-8`, `cp1208`) are refused: a clear
    /// refusal, never a misreading.
    static func namesUTF8(_ name: [UInt8]) -> Bool {
        var compared: [UInt8] = []
        var afterDigit = false
        for (i, b) in name.enumerated() {
            switch b {
            case UInt8(ascii: "0"):
                let next = i + 1 < name.count ? name[i + 1] : 0
                if !afterDigit && next >= UInt8(ascii: "0") && next <= UInt8(ascii: "9") { continue }
                compared.append(b)
            case UInt8(ascii: "1")...UInt8(ascii: "9"):
                afterDigit = true
                compared.append(b)
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"):
                afterDigit = false
                compared.append(b | 0x20)
            default:
                afterDigit = false
            }
        }
        return compared == Array("utf8".utf8)
    }

    /// Whether `name` is an encoding name as XML 1.0 spells one (`EncName`:
    /// `[A-Za-z] ([A-Za-z0-9._] | '-')*`), which a message may offer to a shell as it is.
    package static func isEncodingName(_ name: String) -> Bool {
        let utf8 = Array(name.utf8)
        guard let first = utf8.first, (first | 0x20) >= UInt8(ascii: "a"), (first | 0x20) <= UInt8(ascii: "z") else { return false }
        return utf8.allSatisfy { b in
            let letter = (b | 0x20) >= UInt8(ascii: "a") && (b | 0x20) <= UInt8(ascii: "z")
            return letter || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b) || b == UInt8(ascii: ".") || b == UInt8(ascii: "_")
                || b == UInt8(ascii: "-")
        }
    }

    /// The key path of the current place, for messages: `key.sub[3]`, or `top level`.
    private static func path(_ stack: [Frame]) -> ObjectPath {
        var path = ValuePath()
        for frame in stack {
            switch frame {
            case .plist: break
            case let .array(count): path.push(.index(max(0, count - 1)))
            case let .dict(key, last, _):
                if let key = key ?? last { path.push(.key(key)) }
            }
        }
        return path.path
    }

    /// The decoded text of `<name>...</name>` starting at `offset` (just past the start tag), and
    /// the offset past the end tag. Only `<string>` and `<key>` (`text`) may hold CDATA and
    /// references; the other elements hold plain characters.
    private func textContent(from offset: Int, name: String, text: Bool, collect: Bool) throws(PlistError) -> ([UInt8], Int) {
        let closing = Array("</\(name)>".utf8)
        var out: [UInt8] = []
        var j = offset
        while j < bytes.count {
            let b = bytes[j]
            if b == 0 { throw fail(.nulByte, j) }
            if b == UInt8(ascii: "<") {
                if starts(with: closing, at: j) {
                    return (out, j + name.utf8.count + 3)
                }
                if text && starts(with: Token.cdata, at: j) {
                    guard let end = find(Token.cdataEnd, from: j + 9) else { throw fail(.unterminatedCDATA, j) }
                    for k in (j + 9)..<end {
                        if bytes[k] == 0 { throw fail(.nulByte, k) }
                        if collect { out.append(bytes[k]) }
                    }
                    j = end + 3
                    continue
                }
                throw fail(.markupInText(element: name), j)
            }
            if b == UInt8(ascii: "&") {
                guard text else { throw fail(.referenceInText(element: name), j) }
                let (scalar, next) = try reference(at: j)
                if collect { out += Array(String(Character(scalar)).utf8) }
                j = next
                continue
            }
            if collect { out.append(b) }
            j += 1
        }
        throw fail(.unterminated(element: name), offset)
    }

    /// A character or predefined entity reference at `offset` (`&amp;`, `&#65;`, `&#x41;`).
    private func reference(at offset: Int) throws(PlistError) -> (Unicode.Scalar, Int) {
        guard let semicolon = find([UInt8(ascii: ";")], from: offset + 1), semicolon - offset <= 12 else {
            throw fail(.bareAmpersand, offset)
        }
        let body = Array(UnsafeRawBufferPointer(rebasing: bytes[(offset + 1)..<semicolon]))
        let next = semicolon + 1
        switch String(decoding: body, as: UTF8.self) {
        case "lt": return ("<", next)
        case "gt": return (">", next)
        case "amp": return ("&", next)
        case "quot": return ("\"", next)
        case "apos": return ("'", next)
        default: break
        }
        guard body.first == UInt8(ascii: "#") else {
            throw fail(.unknownEntity(String(decoding: body, as: UTF8.self)), offset)
        }
        var digits = body.dropFirst()
        var radix: UInt32 = 10
        if digits.first == UInt8(ascii: "x") { radix = 16; digits = digits.dropFirst() }
        var value: UInt32 = 0
        for d in digits {
            guard let v = Self.digit(d, radix: radix) else { throw fail(.malformedCharacterReference, offset) }
            value = min(value &* radix &+ v, 0x11_0000)
        }
        guard !digits.isEmpty, value != 0, !(0xD800...0xDFFF).contains(value), value <= 0x10FFFF,
              let scalar = Unicode.Scalar(value) else {
            throw PlistError.unrepresentableString(.badCharacterReference(value), at: ObjectPath([.line(line(at: offset))]))
        }
        return (scalar, next)
    }

    private static func digit(_ b: UInt8, radix: UInt32) -> UInt32? {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt32(b - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f") where radix == 16: return UInt32(b - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F") where radix == 16: return UInt32(b - UInt8(ascii: "A") + 10)
        default: return nil
        }
    }

    /// Why `text` is not a value of type `name` as CoreFoundation reads it (and libplist the
    /// same way), or nil when it is.
    ///
    /// White space as CoreFoundation takes it (`CFPropertyList.c`): before an integer or a
    /// real's number, and nowhere else: none after them (its integer reader stops at `<` and
    /// refuses any other character; its real reader must consume the whole text), none around a
    /// real's `nan`/`inf` words or a date.
    static func defect(in text: [UInt8], as name: String) -> PlistError.Defect? {
        let t = Array(text.drop { (name == "integer" || name == "real") && isSpace($0) })
        // The value as a message shows it (at most 64 bytes of it), built only when it is wrong.
        func malformed(_ kind: PlistKind) -> PlistError.Defect {
            .malformedValue(kind, text: String(decoding: text.prefix(64), as: UTF8.self), truncated: text.count > 64)
        }
        switch name {
        case "integer": return integerProblem(t) ? malformed(.integer) : nil
        case "real": return realProblem(t, words: text) ? malformed(.real) : nil
        case "date":
            let valid = t.count == 20 && t.last == UInt8(ascii: "Z")
                && CivilTime.parseISODateTime(String(decoding: t.dropLast(), as: UTF8.self)) != nil
            return valid ? nil : malformed(.date)
        case "data": return base64Problem(text) ? malformed(.data) : nil
        default: return nil
        }
    }

    /// Whether an integer's text (white space before it taken as ``defect(in:as:)`` takes it)
    /// is decimal digits after a zero, after an optional sign (`007`, `-010`): Apple reads it as
    /// decimal, libplist as octal, so the guard refuses it, and its message says why.
    static func readsAsOctal(_ text: [UInt8]) -> Bool {
        var digits = text.drop(while: isSpace)
        if let sign = digits.first, sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") { digits = digits.dropFirst() }
        return digits.count > 1 && digits.first == UInt8(ascii: "0") && digits.allSatisfy { digit($0, radix: 10) != nil }
    }

    /// Decimal without a leading zero, or `0x` hexadecimal; optional sign; -2^63 ... 2^64-1.
    private static func integerProblem(_ t: [UInt8]) -> Bool {
        var i = 0
        var negative = false
        if i < t.count && (t[i] == UInt8(ascii: "-") || t[i] == UInt8(ascii: "+")) { negative = t[i] == UInt8(ascii: "-"); i += 1 }
        var radix: UInt64 = 10
        if i + 1 < t.count && t[i] == UInt8(ascii: "0") && t[i + 1] == UInt8(ascii: "x") { radix = 16; i += 2 }
        let digits = t[i...]
        guard !digits.isEmpty else { return true }
        if radix == 10 && readsAsOctal(t) { return true }
        var value: UInt64 = 0
        for d in digits {
            guard let v = digit(d, radix: UInt32(radix)) else { return true }
            let (m, o1) = value.multipliedReportingOverflow(by: radix)
            let (s, o2) = m.addingReportingOverflow(UInt64(v))
            if o1 || o2 { return true }
            value = s
        }
        return negative && value > UInt64(Int64.max) + 1
    }

    /// `[+-] (digits [. digits] | . digits) [e [+-] digits]`, finite, after white space; or,
    /// the whole of `words` in any case, one of CoreFoundation's words: `nan`, `inf`,
    /// `infinity`, the last two signed (`-nan` is refused, as it refuses it).
    private static func realProblem(_ t: [UInt8], words: [UInt8]) -> Bool {
        let lower = String(decoding: words, as: UTF8.self).lowercased()
        if ["nan", "inf", "+inf", "-inf", "infinity", "+infinity", "-infinity"].contains(lower) { return false }
        var i = 0
        func digits() -> Int {
            let from = i
            while i < t.count && t[i] >= UInt8(ascii: "0") && t[i] <= UInt8(ascii: "9") { i += 1 }
            return i - from
        }
        if i < t.count && (t[i] == UInt8(ascii: "-") || t[i] == UInt8(ascii: "+")) { i += 1 }
        var mantissa = digits()
        if i < t.count && t[i] == UInt8(ascii: ".") {
            i += 1
            mantissa += digits()
        }
        guard mantissa > 0 else { return true }
        if i < t.count && (t[i] == UInt8(ascii: "e") || t[i] == UInt8(ascii: "E")) {
            i += 1
            if i < t.count && (t[i] == UInt8(ascii: "-") || t[i] == UInt8(ascii: "+")) { i += 1 }
            guard digits() > 0 else { return true }
        }
        guard i == t.count, let value = Double(String(decoding: t, as: UTF8.self)) else { return true }
        return !value.isFinite
    }

    /// Base64 with `=` padding only at the end and a length that is a multiple of four, once
    /// whitespace is taken out.
    private static func base64Problem(_ text: [UInt8]) -> Bool {
        var count = 0
        for b in text where !isSpace(b) { count += 1 }
        guard count % 4 == 0 else { return true }
        var padding = 0
        var index = 0
        for b in text where !isSpace(b) {
            defer { index += 1 }
            switch b {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "/"):
                if padding > 0 { return true }
            case UInt8(ascii: "="):
                padding += 1
                if padding > 2 || index < count - 2 { return true }
            default: return true
            }
        }
        return false
    }

    /// The offset just past `terminator`, skipping double-quoted text as libplist 2.2.0 does in
    /// the XML declaration, DOCTYPE declarations and tag attributes. Quoted text that holds
    /// `<` or `>` is refused: it is the one place where a reader that ignores quotes and one that
    /// honours them disagree about where markup ends (a quoted `"?>"` once hid 200,000 closing
    /// tags from the depth count, and libplist built a tree deep enough to overflow its stack).
    private func endOfMarkup(from offset: Int, terminator end: [UInt8], start: Int,
                             refusing refused: (byte: UInt8, defect: PlistError.Defect)? = nil) throws(PlistError) -> Int {
        var j = offset
        while j < bytes.count {
            let b = bytes[j]
            if b == 0 { throw fail(.nulByte, j) }
            if b == UInt8(ascii: "\"") {
                var k = j + 1
                while k < bytes.count && bytes[k] != UInt8(ascii: "\"") {
                    if bytes[k] == UInt8(ascii: "<") || bytes[k] == UInt8(ascii: ">") {
                        throw fail(.angleBracketInQuotes, k)
                    }
                    if bytes[k] == 0 { throw fail(.nulByte, k) }
                    k += 1
                }
                guard k < bytes.count else { throw fail(.unterminatedQuote, j) }
                j = k + 1
                continue
            }
            if b == UInt8(ascii: "<") { throw fail(.angleBracketInMarkup, j) }
            if let refused, b == refused.byte { throw fail(refused.defect, j) }
            if b == end[0] && starts(with: end, at: j) { return j + end.count }
            j += 1
        }
        throw fail(end == Token.instructionEnd ? .unterminatedInstruction : .unterminatedTag, start)
    }
}
