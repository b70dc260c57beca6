/// A property-list value, held exactly.
///
/// Strings compare by their exact Unicode scalars (never by canonical equivalence), reals by
/// their bit pattern (`-0.0` is not `0.0`; a NaN equals the same NaN), and dictionaries keep
/// their key order.
package enum PlistValue: Sendable {
    case string(String)
    /// An integer: 64-bit, or 16-byte up to 128 bits (see ``PlistInteger``).
    case integer(PlistInteger)
    /// A 64-bit real.
    case real(Double)
    /// A 4-byte real (binary marker `0x22`) as its IEEE 754 single-precision bits.
    /// CoreFoundation reads one as a `Float32` number and writes it back in 4 bytes; ycft keeps
    /// it so, with every bit (a signalling NaN's payload too), so a file read and written
    /// again keeps each real's size and value. Its value is ``realValue`` (widened exactly).
    case real32(UInt32)
    case bool(Bool)
    /// A date, as the exact seconds since 2001-01-01T00:00:00Z.
    case date(Double)
    case data([UInt8])
    /// An NSKeyedArchiver object reference.
    case uid(UInt64)
    case array([PlistValue])
    /// A dictionary with string keys, in order.
    case dictionary(PlistDictionary)

    package var kind: PlistKind {
        switch self {
        case .string: return .string
        case .integer: return .integer
        case .real, .real32: return .real
        case .bool: return .bool
        case .date: return .date
        case .data: return .data
        case .uid: return .uid
        case .array: return .array
        case .dictionary: return .dictionary
        }
    }

    /// A short name of the value's type for messages: `string`, `integer`, `dictionary`, ...
    package var typeName: String { kind.typeName }

    package var stringValue: String? { if case let .string(s) = self { return s }; return nil }
    package var dictionaryValue: PlistDictionary? { if case let .dictionary(d) = self { return d }; return nil }
    package var arrayValue: [PlistValue]? { if case let .array(a) = self { return a }; return nil }
    package var uidValue: UInt64? { if case let .uid(u) = self { return u }; return nil }
    /// The number, when this is a real of either size (a 4-byte real widened, which is exact
    /// for every finite value).
    package var realValue: Double? {
        switch self {
        case let .real(d): return d
        case let .real32(bits): return Double(Float(bitPattern: bits))
        default: return nil
        }
    }

    /// Hands `body` every UID in the value, at any depth, in order.
    package func forEachUID(_ body: (UInt64) -> Void) {
        switch self {
        case let .uid(uid): body(uid)
        case let .array(items): for item in items { item.forEachUID(body) }
        case let .dictionary(entries): for entry in entries { entry.value.forEachUID(body) }
        default: break
        }
    }
}

extension PlistValue: Equatable {
    /// Exact equality: strings by scalars, reals and dates by bit pattern, dictionaries in order.
    package static func == (lhs: PlistValue, rhs: PlistValue) -> Bool {
        switch (lhs, rhs) {
        case let (.string(a), .string(b)): return exactlyEqual(a, b)
        case let (.integer(a), .integer(b)): return a == b
        case let (.real(a), .real(b)): return a.bitPattern == b.bitPattern
        case let (.real32(a), .real32(b)): return a == b
        case let (.bool(a), .bool(b)): return a == b
        case let (.date(a), .date(b)): return a.bitPattern == b.bitPattern
        case let (.data(a), .data(b)): return a == b
        case let (.uid(a), .uid(b)): return a == b
        case let (.array(a), .array(b)): return a == b
        case let (.dictionary(a), .dictionary(b)): return a == b
        default: return false
        }
    }
}

/// A property-list integer, exactly as the file holds it: every 128-bit value a binary plist's
/// 16-byte integer can hold, and whether it was written in 16 bytes.
///
/// CoreFoundation reads a binary integer of 1, 2, 4 or 8 bytes as a 64-bit number (1, 2 and 4
/// bytes unsigned, 8 signed) and one of 16 bytes (marker `0x14`) as a 128-bit number, which it
/// writes back in 16 bytes whatever its value; it writes 2^63 ... 2^64-1 so, and an XML
/// `<integer>` in that range reads as one. ycft keeps the same two kinds apart, so a file
/// read and written again keeps each integer's value and size: ``signed(_:)`` for the 64-bit
/// kind, ``unsigned(_:)`` and ``wide(high:low:)`` for the 16-byte kind.
///
/// Equality and hashing are exact: the same value and the same kind (a 16-byte -1 is not an
/// 8-byte -1, as `-0.0` is not `0.0`); ``int64`` and ``description`` give the value alone.
package enum PlistInteger: Hashable, Sendable, CustomStringConvertible {
    /// A 64-bit integer (a binary integer of 1 to 8 bytes, or an XML `<integer>` that fits `Int64`).
    case signed(Int64)
    /// A 16-byte integer whose high 8 bytes are zero: 0 ... 2^64-1 (Apple writes 2^63 ... 2^64-1
    /// so; an XML `<integer>` in that range reads as one).
    case unsigned(UInt64)
    /// Any other 16-byte integer, as its two's-complement halves: beyond 64 bits (2^64+1,
    /// -2^127), or negative (a 16-byte -1 is `high: -1, low: UInt64.max`). `high` is never 0
    /// in a value ycft reads (that is ``unsigned(_:)``); ``init(high:low:)`` chooses.
    case wide(high: Int64, low: UInt64)

    /// Creates a 16-byte integer from its two's-complement halves (the bytes of a binary
    /// `0x14` object: `high` first, big-endian).
    package init(high: Int64, low: UInt64) {
        self = high == 0 ? .unsigned(low) : .wide(high: high, low: low)
    }

    /// The value's two's-complement 128 bits as a high and a low half.
    package var bits: (high: Int64, low: UInt64) {
        switch self {
        case let .signed(v): return (v < 0 ? -1 : 0, UInt64(bitPattern: v))
        case let .unsigned(u): return (0, u)
        case let .wide(high, low): return (high, low)
        }
    }

    /// Whether a binary plist holds the value in 16 bytes (marker `0x14`).
    package var isSixteenBytes: Bool {
        if case .signed = self { false } else { true }
    }

    /// The value when it fits `Int64`, whichever size holds it.
    package var int64: Int64? {
        switch self {
        case let .signed(v): return v
        case let .unsigned(u): return u <= UInt64(Int64.max) ? Int64(u) : nil
        case let .wide(high, low):
            if high == 0 && low <= UInt64(Int64.max) { return Int64(low) }
            if high == -1 && low > UInt64(Int64.max) { return Int64(bitPattern: low) }
            return nil
        }
    }

    /// Whether the value lies in -2^63 ... 2^64-1, the range of an XML `<integer>` as Apple's
    /// parser reads it (CoreFoundation refuses anything beyond it as an overflow).
    package var fitsXML: Bool {
        let (high, low) = bits
        return high == 0 || (high == -1 && low > UInt64(Int64.max))
    }

    /// The exact decimal text of the value (`18446744073709551617`, `-170141183460469231731687303715884105728`).
    package var description: String {
        switch self {
        case let .signed(v): return String(v)
        case let .unsigned(u): return String(u)
        case let .wide(high, low): return Self.decimal(high: high, low: low)
        }
    }

    /// Decimal text of a two's-complement 128-bit value, in chunks of 19 digits (10^19 is the
    /// largest power of ten below 2^64).
    private static func decimal(high: Int64, low: UInt64) -> String {
        let negative = high < 0
        // The magnitude: negate the two's complement (2^127 itself stays as its bits, which read
        // unsigned are its magnitude).
        var hi = UInt64(bitPattern: high), lo = low
        if negative {
            hi = ~hi
            lo = ~lo
            let (sum, carry) = lo.addingReportingOverflow(1)
            lo = sum
            if carry { hi &+= 1 }
        }
        let chunk: UInt64 = 10_000_000_000_000_000_000
        var chunks: [UInt64] = []
        while hi != 0 {
            let (qHigh, rHigh) = hi.quotientAndRemainder(dividingBy: chunk)
            // rHigh < chunk, so the quotient fits 64 bits.
            let (qLow, r) = chunk.dividingFullWidth((high: rHigh, low: lo))
            chunks.append(r)
            hi = qHigh
            lo = qLow
        }
        var text = negative ? "-" : ""
        text += String(lo)
        for part in chunks.reversed() {
            let digits = String(part)
            text += String(repeating: "0", count: 19 - digits.count) + digits
        }
        return text
    }

    /// Exact equality: the same value held in the same size (``bits`` and ``isSixteenBytes``).
    package static func == (lhs: PlistInteger, rhs: PlistInteger) -> Bool {
        if case let .signed(a) = lhs, case let .signed(b) = rhs { return a == b }
        return lhs.isSixteenBytes == rhs.isSixteenBytes && lhs.bits == rhs.bits
    }

    /// Hashes what ``==`` compares.
    package func hash(into hasher: inout Hasher) {
        let (high, low) = bits
        hasher.combine(isSixteenBytes)
        hasher.combine(high)
        hasher.combine(low)
    }
}

/// An ordered dictionary with string keys, compared by exact Unicode scalars.
package struct PlistDictionary: Sendable, Equatable, Sequence {
    package private(set) var entries: [(key: String, value: PlistValue)]

    /// Creates a dictionary; the caller guarantees the keys are distinct.
    package init(_ entries: [(key: String, value: PlistValue)] = []) {
        self.entries = entries
    }

    package var count: Int { entries.count }

    package func makeIterator() -> IndexingIterator<[(key: String, value: PlistValue)]> {
        entries.makeIterator()
    }

    /// The position of `key`, compared by exact scalars.
    package func index(of key: String) -> Int? {
        entries.firstIndex { exactlyEqual($0.key, key) }
    }

    /// The value for `key`, or nil. Setting nil removes the key; setting a new key appends it;
    /// setting an existing key replaces its value in place (its position is kept).
    package subscript(key: String) -> PlistValue? {
        get { index(of: key).map { entries[$0].value } }
        set {
            if let i = index(of: key) {
                if let newValue { entries[i].value = newValue } else { entries.remove(at: i) }
            } else if let newValue {
                entries.append((key, newValue))
            }
        }
    }

    /// A hash index of the keys by exact bytes, for code that looks up many keys (one lookup with
    /// ``index(of:)`` is a linear search).
    package func keyIndex() -> [ExactKey: Int] {
        var index: [ExactKey: Int] = [:]
        index.reserveCapacity(entries.count)
        for (i, entry) in entries.enumerated() {
            let key = ExactKey(entry.key)
            if index[key] == nil { index[key] = i }
        }
        return index
    }

    /// Exact, ordered equality.
    package static func == (lhs: PlistDictionary, rhs: PlistDictionary) -> Bool {
        lhs.entries.count == rhs.entries.count && zip(lhs.entries, rhs.entries).allSatisfy {
            exactlyEqual($0.key, $1.key) && $0.value == $1.value
        }
    }
}

/// A string compared and hashed by its exact UTF-8 bytes (`String`'s own `==` and hash treat
/// canonically equivalent strings as one), for sets and dictionaries of plist keys.
package struct ExactKey: Hashable, Sendable {
    package let string: String

    package init(_ string: String) { self.string = string }

    /// Equal when the UTF-8 bytes are.
    package static func == (a: ExactKey, b: ExactKey) -> Bool { exactlyEqual(a.string, b.string) }

    /// Hashes the UTF-8 bytes in one call.
    package func hash(into hasher: inout Hasher) {
        var s = string
        s.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}

/// Positions of a list of keys by exact bytes: linear searches while the list is short or few
/// questions have been asked of it, then a hash index built once, so neither costs more than
/// twice the better one whichever side is large (docs/performance.md, "Why the code is shaped
/// this way"). The one answer to "is this key there, and where?" in a migration.
package struct ExactKeyPositions {
    /// The keys: a list, or a dictionary's own entries (not copied into a list, which made a
    /// migration measurably slower; docs/performance.md).
    private enum Keys {
        case list([String])
        case dictionary(PlistDictionary)
    }
    private let keys: Keys
    private var index: [ExactKey: Int]?
    private var questions = 0
    /// A list this long or shorter is always searched; a longer one gets its index at the
    /// question after this many.
    private static let linearLimit = 8

    /// The keys to answer about; a key listed twice answers with its last position.
    package init(_ keys: [String]) { self.keys = .list(keys) }

    /// A dictionary's keys, answered as the dictionary's own lookups answer (`PlistDictionary.index(of:)`,
    /// `PlistDictionary.keyIndex()`: a key's first position; a read dictionary never holds a key twice).
    package init(keysOf dictionary: PlistDictionary) { keys = .dictionary(dictionary) }

    private var count: Int {
        switch keys {
        case let .list(list): return list.count
        case let .dictionary(dictionary): return dictionary.count
        }
    }

    /// The position of `key` (in a list, its last; in a dictionary, as the dictionary says), or nil.
    package mutating func position(of key: String) -> Int? {
        if let index { return index[ExactKey(key)] }
        if count > Self.linearLimit {
            questions += 1
            if questions > Self.linearLimit {
                let built: [ExactKey: Int]
                switch keys {
                case let .list(list):
                    var positions: [ExactKey: Int] = [:]
                    positions.reserveCapacity(list.count)
                    for (i, k) in list.enumerated() { positions[ExactKey(k)] = i }
                    built = positions
                case let .dictionary(dictionary):
                    built = dictionary.keyIndex()
                }
                index = built
                return built[ExactKey(key)]
            }
        }
        switch keys {
        case let .list(list): return list.lastIndex { exactlyEqual($0, key) }
        case let .dictionary(dictionary): return dictionary.index(of: key)
        }
    }

    package mutating func contains(_ key: String) -> Bool { position(of: key) != nil }
}

/// Whether two strings have exactly the same Unicode scalars (UTF-8 bytes), unlike `==`, which
/// treats canonically equivalent strings as equal. Compares contiguous bytes directly.
@inlinable
package func exactlyEqual(_ a: String, _ b: String) -> Bool {
    guard a.utf8.count == b.utf8.count else { return false }
    var a = a, b = b
    return a.withUTF8 { pa in b.withUTF8 { pb in compareUTF8(pa, pb) == 0 } }
}

/// -1, 0 or 1 as `a` sorts before, equal to or after `b` by bytes (a plain loop over the two
/// buffers: `elementsEqual` and `lexicographicallyPrecedes` cost several times more here).
@inlinable
package func compareUTF8(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Int {
    let n = min(a.count, b.count)
    var i = 0
    while i < n {
        let x = a[i], y = b[i]
        if x != y { return x < y ? -1 : 1 }
        i += 1
    }
    return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
}

/// Whether `a` sorts before `b` by UTF-8 bytes (the same order as by Unicode scalar values).
@inlinable
package func utf8Precedes(_ a: String, _ b: String) -> Bool {
    var a = a, b = b
    return a.withUTF8 { pa in b.withUTF8 { pb in compareUTF8(pa, pb) < 0 } }
}

/// The kind of a property-list value (`PlistValue.kind`) or of a libplist node
/// (`PlistNode/kind`, which adds `other` for node types a plist file cannot hold): what an
/// error found or expected.
///
/// ```swift
/// PlistKind.bool.typeName   // "boolean"
/// ```
public enum PlistKind: Sendable, Equatable {
    /// A string (`<string>`; binary markers `0x5_` and `0x6_`).
    case string
    /// An integer of 1 to 16 bytes (`<integer>`; marker `0x1_`).
    case integer
    /// A real of 4 or 8 bytes (`<real>`; marker `0x2_`).
    case real
    /// A boolean (`<true/>`, `<false/>`; markers `0x09`, `0x08`).
    case bool
    /// A date (`<date>`; marker `0x33`).
    case date
    /// Raw bytes (`<data>`; marker `0x4_`).
    case data
    /// An NSKeyedArchiver object reference (a `CF$UID` dictionary in XML; marker `0x8_`).
    case uid
    /// An array (`<array>`; marker `0xA_`).
    case array
    /// A dictionary with string keys (`<dict>`; marker `0xD_`).
    case dictionary
    /// A libplist node of a type a property-list file cannot hold (printed `null`).
    case other

    /// The name messages use: `string`, `integer`, `boolean`, `UID`, `dictionary`, ...
    public var typeName: String {
        switch self {
        case .string: return "string"
        case .integer: return "integer"
        case .real: return "real"
        case .bool: return "boolean"
        case .date: return "date"
        case .data: return "data"
        case .uid: return "UID"
        case .array: return "array"
        case .dictionary: return "dictionary"
        case .other: return "null"
        }
    }
}
