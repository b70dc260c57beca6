internal import FileErrors
/// The one conversion between a path's bytes and the `String` ycft carries it in, lossless both
/// ways (like Python's `surrogateescape`).
///
/// Linux paths are bytes, not text: a file may be called `\xff\xfe.plist`. ycft keeps paths in
/// `String`s, so every byte sequence must survive the trip: ``decode(_:)`` turns each byte that is
/// not part of valid UTF-8 into the private-use scalar U+10FF00 + byte, and ``encode(_:)`` turns
/// such scalars back into their byte. To keep the mapping one-to-one, valid UTF-8 that encodes one
/// of those 256 reserved scalars (U+10FF00-U+10FFFF) is escaped byte by byte too, so a decoded
/// string's reserved scalar always means "this byte", never itself.
///
/// Every path that reaches a system call goes through ``cString(_:)`` (or ``encode(_:)``), and
/// every path that comes from one (`argv`, `readdir`, `realpath`, `readlink`) through
/// ``decode(_:)``. Strings ycft did not decode (a literal, a user's `String`) encode as their UTF-8.
///
/// ```swift
/// let name = PathBytes.decode([0xFF, 0xFE] + Array(".plist".utf8))   // "\u{10FFFF}\u{10FFFE}.plist"
/// PathBytes.encode(name)                                             // [0xFF, 0xFE, 0x2E, 0x70, ...]
/// open(PathBytes.cString(name), O_RDONLY)                            // opens the file named by those bytes
/// ```
package enum PathBytes {
    /// The first reserved scalar: byte `b` is carried as U+10FF00 + `b`.
    static let base: UInt32 = 0x10FF00

    /// The bytes as a string: valid UTF-8 as its text, every other byte (and every byte of
    /// valid UTF-8 for U+10FF00-U+10FFFF) as U+10FF00 + byte.
    package static func decode<Bytes: Collection>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        // The common case: ASCII.
        if !bytes.contains(where: { $0 >= 0x80 }) { return String(decoding: bytes, as: UTF8.self) }
        let array = Array(bytes)
        var out = String.UnicodeScalarView()
        var i = 0
        while i < array.count {
            let length = validSequenceLength(array, at: i)
            if length == 0 {
                out.append(escape(array[i]))
                i += 1
                continue
            }
            let scalar = scalarValue(array[i..<(i + length)])
            if scalar >= base {
                for byte in array[i..<(i + length)] { out.append(escape(byte)) }
            } else if let valid = Unicode.Scalar(scalar) {
                out.append(valid)
            }
            i += length
        }
        return String(out)
    }

    /// A C string's bytes (up to its NUL) as ``decode(_:)`` reads them.
    package static func decode(cString: UnsafePointer<CChar>) -> String {
        var count = 0
        while cString[count] != 0 { count += 1 }
        return cString.withMemoryRebound(to: UInt8.self, capacity: count) { decode(UnsafeBufferPointer(start: $0, count: count)) }
    }

    /// The path's bytes: each reserved scalar as its byte, everything else as UTF-8 (no NUL added).
    package static func encode(_ path: String) -> [UInt8] {
        let utf8 = path.utf8
        // No reserved scalar (its UTF-8 starts F4 8F BC-BF): the bytes are the UTF-8.
        if !utf8.contains(0xF4) { return Array(utf8) }
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count)
        for scalar in path.unicodeScalars {
            if let byte = escapedByte(scalar) { out.append(byte) } else { out.append(contentsOf: String(scalar).utf8) }
        }
        return out
    }

    /// The path as a NUL-terminated C string for a system call: `open(PathBytes.cString(path), ...)`
    /// (an array passes as `const char *`). A NUL inside the path ends it there, as C reads it.
    package static func cString(_ path: String) -> [CChar] {
        // No reserved scalar (the common case): the string's own C string, copied once.
        path.utf8.contains(0xF4) ? encode(path).map { CChar(bitPattern: $0) } + [0] : Array(path.utf8CString)
    }

    /// `body` given the path as ``cString(_:)`` makes it, without a copy where the path holds no
    /// reserved scalar (the string's own UTF-8, which ends with a NUL): for the calls made for
    /// every file of a batch.
    package static func withCString<Result>(_ path: String, _ body: (UnsafePointer<CChar>) -> Result) -> Result {
        path.utf8.contains(0xF4) ? body(cString(path)) : path.withCString(body)
    }

    /// The byte a reserved scalar carries, or nil for any other scalar.
    package static func escapedByte(_ scalar: Unicode.Scalar) -> UInt8? {
        scalar.value >= base ? UInt8(truncatingIfNeeded: scalar.value - base) : nil
    }

    /// Whether the string holds a byte that is not (or not plain) UTF-8: a reserved scalar.
    package static func hasEscapedBytes(_ text: String) -> Bool {
        text.utf8.contains(0xF4) && text.unicodeScalars.contains { $0.value >= base }
    }

    /// The string's bytes as text, when they are valid UTF-8 (a reserved scalar made of valid
    /// UTF-8 becomes itself again); nil when they are not. For arguments that must be text.
    package static func text(_ decoded: String) -> String? {
        guard hasEscapedBytes(decoded) else { return decoded }
        let bytes = encode(decoded)
        var i = 0
        while i < bytes.count {
            let length = validSequenceLength(bytes, at: i)
            guard length > 0 else { return nil }
            i += length
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// For display: every reserved scalar as `\xNN` (two lower-case hex digits), the rest as it is.
    /// Callers that escape text for a terminal escape the other runs themselves.
    package static func displayed(_ path: String, other: (String) -> String = { $0 }) -> String {
        guard hasEscapedBytes(path) else { return other(path) }
        var out = ""
        var run = String.UnicodeScalarView()
        for scalar in path.unicodeScalars {
            if let byte = escapedByte(scalar) {
                if !run.isEmpty {
                    out += other(String(run))
                    run = String.UnicodeScalarView()
                }
                // unreachable: only bytes 0x80 and above are escaped (those below are ASCII, always valid UTF-8)
                out += "\\x" + (byte < 0x10 ? "0" : "") + String(byte, radix: 16)
            } else {
                run.append(scalar)
            }
        }
        if !run.isEmpty { out += other(String(run)) }
        return out
    }

    private static func escape(_ byte: UInt8) -> Unicode.Scalar {
        // unreachable: U+10FF00 + a byte is at most U+10FFFF, always a valid scalar
        Unicode.Scalar(base + UInt32(byte)) ?? "\u{FFFD}"
    }

    /// The length of the well-formed UTF-8 sequence at `i` (Unicode Table 3-7), or 0.
    private static func validSequenceLength(_ bytes: [UInt8], at i: Int) -> Int {
        let b0 = bytes[i]
        func continuation(_ offset: Int, _ range: ClosedRange<UInt8> = 0x80...0xBF) -> Bool {
            i + offset < bytes.count && range.contains(bytes[i + offset])
        }
        switch b0 {
        case 0x00...0x7F: return 1
        case 0xC2...0xDF: return continuation(1) ? 2 : 0
        case 0xE0: return continuation(1, 0xA0...0xBF) && continuation(2) ? 3 : 0
        case 0xE1...0xEC, 0xEE...0xEF: return continuation(1) && continuation(2) ? 3 : 0
        case 0xED: return continuation(1, 0x80...0x9F) && continuation(2) ? 3 : 0
        case 0xF0: return continuation(1, 0x90...0xBF) && continuation(2) && continuation(3) ? 4 : 0
        case 0xF1...0xF3: return continuation(1) && continuation(2) && continuation(3) ? 4 : 0
        case 0xF4: return continuation(1, 0x80...0x8F) && continuation(2) && continuation(3) ? 4 : 0
        default: return 0
        }
    }

    private static func scalarValue(_ sequence: ArraySlice<UInt8>) -> UInt32 {
        let lead = sequence[sequence.startIndex]
        var value: UInt32
        switch sequence.count {
        case 1: return UInt32(lead)
        case 2: value = UInt32(lead & 0x1F)
        case 3: value = UInt32(lead & 0x0F)
        default: value = UInt32(lead & 0x07)
        }
        for byte in sequence.dropFirst() { value = value << 6 | UInt32(byte & 0x3F) }
        return value
    }
}
