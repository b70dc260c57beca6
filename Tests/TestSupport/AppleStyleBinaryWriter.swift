import Plist
import PlistCore

/// A binary property-list writer written independently of libplist, in CoreFoundation's
/// manner: objects numbered depth-first with a dictionary's keys before its values, equal
/// strings and numbers shared, reals always 8 bytes, non-ASCII strings as UTF-16, minimal
/// offset and reference sizes. It proves the decoder on bytes libplist did not write.
package struct AppleStyleBinaryWriter {
    private var objects: [[UInt8]] = []
    private var unique: [[UInt8]: Int] = [:]
    private var refSize = 1

    package init() {}

    /// Serializes a value.
    package static func write(_ value: PlistValue) -> [UInt8] {
        // Count objects first to size references, then encode.
        var counter = AppleStyleBinaryWriter()
        counter.refSize = 8
        _ = counter.flatten(value)
        var writer = AppleStyleBinaryWriter()
        writer.refSize = counter.objects.count < 256 ? 1 : counter.objects.count < 65_536 ? 2 : 4
        let top = writer.flatten(value)
        return writer.finish(top: top)
    }

    private static func header(_ kind: UInt8, _ count: Int) -> [UInt8] {
        if count < 15 { return [kind << 4 | UInt8(count)] }
        return [kind << 4 | 0x0F] + intBytes(Int64(count))
    }

    private static func intBytes(_ v: Int64) -> [UInt8] {
        if v >= 0 && v <= 0xFF { return [0x10, UInt8(v)] }
        if v >= 0 && v <= 0xFFFF { return [0x11] + be(UInt64(v), 2) }
        if v >= 0 && v <= 0xFFFF_FFFF { return [0x12] + be(UInt64(v), 4) }
        return [0x13] + be(UInt64(bitPattern: v), 8)
    }

    private static func be(_ v: UInt64, _ size: Int) -> [UInt8] {
        (0..<size).map { UInt8(truncatingIfNeeded: v >> (8 * UInt64(size - 1 - $0))) }
    }

    private func ref(_ index: Int) -> [UInt8] { Self.be(UInt64(index), refSize) }

    /// Adds a scalar, sharing equal encodings (CF shares equal strings and numbers).
    private mutating func scalar(_ bytes: [UInt8], shared: Bool) -> Int {
        if shared, let existing = unique[bytes] { return existing }
        objects.append(bytes)
        if shared { unique[bytes] = objects.count - 1 }
        return objects.count - 1
    }

    private mutating func flatten(_ value: PlistValue) -> Int {
        switch value {
        case let .string(s):
            if s.utf8.allSatisfy({ $0 < 0x80 }) {
                return scalar(Self.header(0x5, s.utf8.count) + Array(s.utf8), shared: true)
            }
            let units = Array(s.utf16)
            return scalar(Self.header(0x6, units.count) + units.flatMap { Self.be(UInt64($0), 2) }, shared: true)
        case let .integer(.signed(v)):
            return scalar(v < 0 ? [0x13] + Self.be(UInt64(bitPattern: v), 8) : Self.intBytes(v), shared: true)
        case let .integer(.unsigned(v)):
            return scalar([0x14] + Self.be(0, 8) + Self.be(v, 8), shared: true)
        case let .integer(.wide(high, low)):
            return scalar([0x14] + Self.be(UInt64(bitPattern: high), 8) + Self.be(low, 8), shared: true)
        case let .real(d):
            return scalar([0x23] + Self.be(d.bitPattern, 8), shared: true)
        case let .real32(bits):
            return scalar([0x22] + Self.be(UInt64(bits), 4), shared: true)
        case let .bool(b):
            return scalar([b ? 0x09 : 0x08], shared: true)
        case let .date(d):
            return scalar([0x33] + Self.be(d.bitPattern, 8), shared: true)
        case let .data(bytes):
            return scalar(Self.header(0x4, bytes.count) + bytes, shared: false)
        case let .uid(u):
            let size = u <= 0xFF ? 1 : u <= 0xFFFF ? 2 : u <= 0xFFFF_FFFF ? 4 : 8
            return scalar([0x80 | UInt8(size - 1)] + Self.be(u, size), shared: true)
        case let .array(items):
            objects.append([])
            let index = objects.count - 1
            let refs = items.map { flatten($0) }
            objects[index] = Self.header(0xA, refs.count) + refs.flatMap { ref($0) }
            return index
        case let .dictionary(dict):
            objects.append([])
            let index = objects.count - 1
            let keyRefs = dict.entries.map { flatten(.string($0.key)) }
            let valueRefs = dict.entries.map { flatten($0.value) }
            objects[index] = Self.header(0xD, dict.count) + (keyRefs + valueRefs).flatMap { ref($0) }
            return index
        }
    }

    private func finish(top: Int) -> [UInt8] {
        var out = Array("bplist00".utf8)
        var offsets: [Int] = []
        for object in objects {
            offsets.append(out.count)
            out += object
        }
        let tableOffset = out.count
        let offsetSize = tableOffset < 256 ? 1 : tableOffset < 65_536 ? 2 : tableOffset < 1 << 32 ? 4 : 8
        for offset in offsets { out += Self.be(UInt64(offset), offsetSize) }
        out += [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(refSize)]
        out += Self.be(UInt64(objects.count), 8) + Self.be(UInt64(top), 8) + Self.be(UInt64(tableOffset), 8)
        return out
    }
}

/// Builds a binary plist from raw object encodings, for hostile-input tests: the caller gives
/// each object's bytes (references are 1 byte) and may override the trailer's fields.
package func rawBinaryPlist(_ objects: [[UInt8]], top: UInt64 = 0, offsetSize: UInt8 = 1, refSize: UInt8 = 1,
                           count: UInt64? = nil, tableOffset: UInt64? = nil, offsets: [Int]? = nil) -> [UInt8] {
    var out = Array("bplist00".utf8)
    var computed: [Int] = []
    for object in objects {
        computed.append(out.count)
        out += object
    }
    let table = out.count
    for offset in offsets ?? computed {
        out += (0..<Int(offsetSize)).map { UInt8(truncatingIfNeeded: offset >> (8 * (Int(offsetSize) - 1 - $0))) }
    }
    func be8(_ v: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: v >> (8 * UInt64(7 - $0))) } }
    out += [0, 0, 0, 0, 0, 0, offsetSize, refSize]
    out += be8(count ?? UInt64(objects.count)) + be8(top) + be8(tableOffset ?? UInt64(table))
    return out
}
