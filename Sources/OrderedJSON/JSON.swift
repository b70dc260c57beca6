/// A JSON value that keeps what Foundation's JSON types lose: the order of object members,
/// members whose keys are canonically equivalent (`"é"` and `"e\u{301}"` stay two keys), and
/// the exact text of numbers.
package enum JSON: Sendable, Equatable {
    case null
    case bool(Bool)
    /// A number, as its JSON text (for example `757414800.123456` or `-0.0`).
    case number(String)
    case string(String)
    case array([JSON])
    /// An object's members in order (duplicates are kept; readers decide what they mean).
    case object([Member])

    package struct Member: Sendable, Equatable {
        package var key: String
        package var value: JSON
        package init(_ key: String, _ value: JSON) {
            self.key = key
            self.value = value
        }
        /// Keys compare by exact Unicode scalars.
        package static func == (a: Member, b: Member) -> Bool {
            JSON.exactlyEqual(a.key, b.key) && a.value == b.value
        }
    }

    /// A number from a double, in the shortest text that reads back to the same double,
    /// always with a `.` or an exponent. Non-finite doubles have no JSON text: nil.
    package static func number(_ d: Double) -> JSON? {
        guard d.isFinite else { return nil }
        return .number(d.description)
    }

    package static func integer<I: BinaryInteger>(_ i: I) -> JSON { .number(String(i)) }

    /// Exact equality: strings by scalars, numbers by text, members in order.
    package static func == (a: JSON, b: JSON) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case let (.bool(x), .bool(y)): return x == y
        case let (.number(x), .number(y)): return x == y
        case let (.string(x), .string(y)): return JSON.exactlyEqual(x, y)
        case let (.array(x), .array(y)): return x == y
        case let (.object(x), .object(y)): return x == y
        default: return false
        }
    }

    package var members: [Member]? { if case let .object(m) = self { return m }; return nil }

    /// Exact scalar equality (OrderedJSON does not depend on Plist).
    static func exactlyEqual(_ a: String, _ b: String) -> Bool {
        guard a.utf8.count == b.utf8.count else { return false }
        var a = a, b = b
        return a.withUTF8 { pa in b.withUTF8 { pb in pa.elementsEqual(pb) } }
    }
}

// MARK: - Writing

extension JSON {
    /// How `JSON.text(style:)` lays out the text.
    package enum Style: Sendable {
        /// Two-space indentation, `"key" : value`, one member or item per line.
        case pretty
        /// No white space at all.
        case compact
    }

    /// The JSON text, with a trailing newline.
    package func text(style: Style = .pretty) -> String {
        String(decoding: bytes(style: style), as: UTF8.self)
    }

    /// The JSON text as UTF-8 bytes, with a trailing newline.
    package func bytes(style: Style = .pretty) -> [UInt8] {
        var writer = JSONWriter(style: style)
        writer.value(self)
        return writer.finish()
    }
}

/// Writes JSON text into one byte buffer, a value or a container's edge at a time: the one place
/// JSON is laid out. ``JSON/bytes(style:)`` writes a whole tree through it; a caller with many
/// values (`ycft dump`'s records) writes them as it goes, with no tree in between.
///
/// ```swift
/// var writer = JSONWriter(style: .pretty)
/// writer.beginObject()
/// writer.key("count")
/// writer.value(.integer(2))
/// writer.endObject()
/// let text = writer.finish()   // {\n  "count" : 2\n}\n
/// ```
/// Each value goes after a ``key(_:)`` in an object, or as the next item of an array, or alone
/// at the top; containers close in the order they opened.
package struct JSONWriter: ~Copyable {
    private let pretty: Bool
    private var out: ByteBuffer
    /// How many containers are open.
    private var depth = 0
    /// The open container has no member or item yet (it closes as `{}` or `[]`).
    private var empty = false
    /// A key was written and its value is next.
    private var afterKey = false

    /// A writer laying out in `style` (string appends were most of `ycft dump`'s time, so all
    /// goes into one buffer).
    package init(style: JSON.Style) {
        pretty = style == .pretty
        out = ByteBuffer(capacity: 1 << 16)
    }

    private mutating func newline(_ indent: Int) {
        guard pretty else { return }
        out.append(0x0A)
        out.appendSpaces(2 * indent)
    }

    /// Before a value: nothing after a key; a separator and a new line before an array's item.
    private mutating func item() {
        if afterKey {
            afterKey = false
        } else if depth > 0 {
            if !empty { out.append(0x2C) }
            newline(depth)
        }
        empty = false
    }

    /// Opens an object: ``key(_:)`` and a value for each member, then ``endObject()``.
    package mutating func beginObject() { begin(0x7B) }

    /// The next member's key; its value follows.
    package mutating func key(_ key: String) {
        beforeKey()
        JSON.writeString(key, into: &out)
        colon()
    }

    /// The next member's key when it is a name fixed in code (a format's member): as
    /// ``key(_:)``, without making a `String` of it.
    package mutating func key(named name: StaticString) {
        beforeKey()
        name.withUTF8Buffer { JSON.writeString(utf8: $0, into: &out) }
        colon()
    }

    private mutating func beforeKey() {
        if !empty { out.append(0x2C) }
        newline(depth)
        empty = false
    }

    private mutating func colon() {
        if pretty { out.append(0x20) }
        out.append(0x3A)
        if pretty { out.append(0x20) }
        afterKey = true
    }

    /// Closes the object opened last.
    package mutating func endObject() { end(0x7D) }

    /// Opens an array: a value for each item, then ``endArray()``.
    package mutating func beginArray() { begin(0x5B) }

    /// Closes the array opened last.
    package mutating func endArray() { end(0x5D) }

    private mutating func begin(_ bracket: UInt8) {
        item()
        out.append(bracket)
        depth += 1
        empty = true
    }

    private mutating func end(_ bracket: UInt8) {
        depth -= 1
        if !empty { newline(depth) }
        out.append(bracket)
        empty = false
    }

    /// `null`.
    package mutating func null() { literal("null") }

    /// `null`, `true` or `false`.
    private mutating func literal(_ text: StaticString) {
        item()
        for i in 0..<text.utf8CodeUnitCount { out.append(text.utf8Start[i]) }
    }

    /// Room for `count` more bytes, when the caller knows about how many it will write.
    package mutating func reserve(_ count: Int) { out.reserve(count) }

    /// A string value.
    package mutating func string(_ s: String) {
        item()
        JSON.writeString(s, into: &out)
    }

    /// A string value given as UTF-8 (valid UTF-8: the caller made it), escaped as
    /// ``string(_:)`` escapes.
    package mutating func string(utf8 bytes: UnsafeBufferPointer<UInt8>) {
        item()
        JSON.writeString(utf8: bytes, into: &out)
    }

    /// A whole value (a tree is written member by member).
    package mutating func value(_ value: JSON) {
        switch value {
        case .null: null()
        case let .bool(b): literal(b ? "true" : "false")
        case let .number(n):
            item()
            var n = n
            n.withUTF8 { out.append(contentsOf: $0) }
        case let .string(s): string(s)
        case let .array(items):
            beginArray()
            for item in items { self.value(item) }
            endArray()
        case let .object(members):
            beginObject()
            for member in members {
                key(member.key)
                self.value(member.value)
            }
            endObject()
        }
    }

    /// The bytes written since the last ``take()`` (or the start), taken out of the writer,
    /// which goes on where it was: for text written out in pieces as it is made.
    package mutating func take() -> [UInt8] {
        out.take()
    }

    /// How many bytes were written since the last ``take()`` (or the start).
    package var pending: Int { out.count }

    /// The text written (since the last ``take()``), with a trailing newline.
    package consuming func finish() -> [UInt8] {
        out.append(0x0A)
        return out.array()
    }
}

/// Bytes appended at the end of one buffer that grows by doubling: an append is a check of the
/// room left and a store, where an `Array`'s also asks, on every byte, whether its storage is
/// shared (a measurable share of a large `dump`, docs/performance.md).
struct ByteBuffer: ~Copyable {
    private var base: UnsafeMutablePointer<UInt8>
    private(set) var count = 0
    private var capacity: Int

    init(capacity: Int) {
        self.capacity = max(capacity, 16)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        if count == capacity { grow(1) }
        base[count] = byte
        count += 1
    }

    mutating func append(contentsOf bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        if capacity - count < bytes.count { grow(bytes.count) }
        (base + count).update(from: source, count: bytes.count)
        count += bytes.count
    }

    /// `count` spaces: eight at a time, by word (an indent is a few levels; a call to memset,
    /// or a byte at a time, cost more).
    mutating func appendSpaces(_ spaces: Int) {
        guard spaces > 0 else { return }
        if capacity - count < spaces + 8 { grow(spaces + 8) }
        let start = UnsafeMutableRawPointer(base + count)
        var written = 0
        while written < spaces {
            start.storeBytes(of: 0x2020_2020_2020_2020 as UInt64, toByteOffset: written, as: UInt64.self)
            written += 8
        }
        count += spaces
    }

    /// Room for `more` bytes without growing.
    mutating func reserve(_ more: Int) {
        if capacity - count < more { grow(more) }
    }

    @inline(never)
    private mutating func grow(_ more: Int) {
        var grown = capacity
        while grown - count < more { grown *= 2 }
        let larger = UnsafeMutablePointer<UInt8>.allocate(capacity: grown)
        larger.update(from: base, count: count)
        base.deallocate()
        base = larger
        capacity = grown
    }

    /// The bytes, as an array.
    consuming func array() -> [UInt8] { Array(UnsafeBufferPointer(start: base, count: count)) }

    /// The bytes, as an array, and the buffer emptied (its room kept).
    mutating func take() -> [UInt8] {
        defer { count = 0 }
        return Array(UnsafeBufferPointer(start: base, count: count))
    }
}

extension JSON {
    /// Appends `s` as a JSON string literal to UTF-8 bytes.
    ///
    /// `"`, `\` and C0 controls are escaped as JSON requires, and with `\u` escapes also the
    /// characters that act on a terminal, which JSON allows raw (DEL, C1 controls, the line and
    /// paragraph separators, bidirectional controls; docs/commands.md lists them). Any JSON
    /// reader gives back the same string.
    static func writeString(_ s: String, into out: inout ByteBuffer) {
        var s = s
        s.withUTF8 { writeString(utf8: $0, into: &out) }
    }

    /// ``writeString(_:into:)`` for a string's valid UTF-8. The common case: no byte needs
    /// escaping (``isPlain(_:)``), and the bytes are copied in one piece (docs/performance.md,
    /// "Why the code is shaped this way").
    static func writeString(utf8 bytes: UnsafeBufferPointer<UInt8>, into out: inout ByteBuffer) {
        out.append(0x22)
        if JSON.isPlain(bytes) { out.append(contentsOf: bytes) } else { writeEscaped(bytes, into: &out) }
        out.append(0x22)
    }

    /// The slow path of ``writeString(utf8:into:)``: the bytes, escaped (out of line, so that
    /// the fast path stays small where it is inlined).
    @inline(never)
    private static func writeEscaped(_ bytes: UnsafeBufferPointer<UInt8>, into out: inout ByteBuffer) {
        var i = 0
        while i < bytes.count {
            let byte = bytes[i]
            switch byte {
            case 0x22: escape(0x22, into: &out)
            case 0x5C: escape(0x5C, into: &out)
            case 0x0A: escape(0x6E, into: &out)
            case 0x0D: escape(0x72, into: &out)
            case 0x09: escape(0x74, into: &out)
            case 0x08: escape(0x62, into: &out)
            case 0x0C: escape(0x66, into: &out)
            case ..<0x20, 0x7F: unicodeEscape(UInt32(byte), into: &out)
            case 0xC2 where i + 1 < bytes.count && (0x80...0x9F).contains(bytes[i + 1]):
                // U+0080-U+009F: C2 80 - C2 9F.
                unicodeEscape(UInt32(bytes[i + 1]), into: &out)
                i += 1
            case 0xE2 where i + 2 < bytes.count && isEscapedE2(bytes[i + 1], bytes[i + 2]):
                // U+2000-U+2FFF: E2 (80-BF) (80-BF), the scalar is 0x2000 + the low 12 bits.
                unicodeEscape(0x2000 | UInt32(bytes[i + 1] & 0x3F) << 6 | UInt32(bytes[i + 2] & 0x3F), into: &out)
                i += 2
            default: out.append(byte)
            }
            i += 1
        }
    }

    /// `\` and `letter`.
    private static func escape(_ letter: UInt8, into out: inout ByteBuffer) {
        out.append(0x5C)
        out.append(letter)
    }

    /// `\u` and four lowercase hex digits.
    private static func unicodeEscape(_ value: UInt32, into out: inout ByteBuffer) {
        let hex: StaticString = "0123456789abcdef"
        out.append(0x5C)
        out.append(0x75)
        out.append(hex.utf8Start[Int(value >> 12 & 0xF)])
        out.append(hex.utf8Start[Int(value >> 8 & 0xF)])
        out.append(hex.utf8Start[Int(value >> 4 & 0xF)])
        out.append(hex.utf8Start[Int(value & 0xF)])
    }

    /// Whether no byte of a string's UTF-8 needs ``writeEscaped(_:into:)``: eight bytes at a
    /// time while they are printable ASCII other than `"` and `\` (a few word operations, the
    /// "has a byte less than / equal to" tricks), then byte by byte with the exact test, which
    /// also stops on DEL and on the lead bytes of the other escaped characters (0xC2 for
    /// U+0080-U+00BF, 0xE2 for U+2000-U+2FFF; the slow path looks at them whole).
    @inline(__always)
    private static func isPlain(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        var i = 0
        while i + 8 <= bytes.count {
            let w = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
            let control = (w &- ones &* 0x20) & ~w & highs          // a byte below 0x20
            let q = w ^ (ones &* 0x22), b = w ^ (ones &* 0x5C)
            let quote = (q &- ones) & ~q & highs                     // a byte 0x22
            let backslash = (b &- ones) & ~b & highs                 // a byte 0x5C
            let high = ((w &+ ones) | w) & highs                     // a byte 0x7F or above
            if control | quote | backslash | high != 0 { break }
            i += 8
        }
        while i < bytes.count {
            let byte = bytes[i]
            if byte < 0x20 || byte == 0x22 || byte == 0x5C || byte == 0x7F || byte == 0xC2 || byte == 0xE2 { return false }
            i += 1
        }
        return true
    }

    /// Whether `E2 b1 b2` is U+200E, U+200F, U+2028-U+202E or U+2066-U+2069.
    private static func isEscapedE2(_ b1: UInt8, _ b2: UInt8) -> Bool {
        switch b1 {
        case 0x80: return b2 == 0x8E || b2 == 0x8F || (0xA8...0xAE).contains(b2)
        case 0x81: return (0xA6...0xA9).contains(b2)
        default: return false
        }
    }
}
