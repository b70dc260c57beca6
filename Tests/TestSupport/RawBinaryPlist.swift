import Plist
import PlistCore

/// Binary property lists assembled and taken apart byte by byte, without ycft's reader or
/// writer: inputs whose exact bytes a test chooses (a 16-byte -1, an 8-byte 5), and the exact
/// bytes a file holds for one key, to compare with what was read.
package enum RawBinaryPlist {
    /// Big-endian bytes of the low `size` bytes of `value`.
    package static func bigEndian(_ value: UInt64, _ size: Int) -> [UInt8] {
        (0..<size).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64(size - 1 - $0))) }
    }

    /// A 16-byte integer object (marker `0x14`): `high` then `low`, big-endian.
    package static func int16(high: UInt64, low: UInt64) -> [UInt8] {
        [0x14] + bigEndian(high, 8) + bigEndian(low, 8)
    }

    /// An object header: `kind` in the high nibble, the count in the low nibble or after it.
    package static func header(_ kind: UInt8, _ count: Int) -> [UInt8] {
        if count < 15 { return [kind << 4 | UInt8(count)] }
        let size = count <= 0xFF ? 0 : count <= 0xFFFF ? 1 : count <= 0xFFFF_FFFF ? 2 : 3
        return [kind << 4 | 0x0F, 0x10 | UInt8(size)] + bigEndian(UInt64(count), 1 << size)
    }

    /// A data object.
    package static func data(_ bytes: [UInt8]) -> [UInt8] { header(0x4, bytes.count) + bytes }

    /// An ASCII string object.
    package static func ascii(_ s: String) -> [UInt8] { header(0x5, s.utf8.count) + Array(s.utf8) }

    /// A `bplist00` whose top object is a dictionary of `entries`: ASCII keys, and values that
    /// are encoded scalar objects written exactly as given (one object each, never shared).
    package static func dictionary(_ entries: [(key: String, object: [UInt8])]) -> [UInt8] {
        let n = entries.count
        let objectCount = 1 + 2 * n
        let refSize = objectCount <= 0xFF ? 1 : 2
        var out = Array("bplist00".utf8)
        var offsets: [Int] = []
        offsets.append(out.count)
        out += header(0xD, n)
        for i in 0..<n { out += bigEndian(UInt64(1 + i), refSize) }
        for i in 0..<n { out += bigEndian(UInt64(1 + n + i), refSize) }
        for entry in entries { offsets.append(out.count); out += ascii(entry.key) }
        for entry in entries { offsets.append(out.count); out += entry.object }
        let table = out.count
        let offsetSize = table <= 0xFF ? 1 : table <= 0xFFFF ? 2 : 4
        for offset in offsets { out += bigEndian(UInt64(offset), offsetSize) }
        out += [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(refSize)]
        out += bigEndian(UInt64(objectCount), 8) + bigEndian(0, 8) + bigEndian(UInt64(table), 8)
        return out
    }

    /// The exact bytes of the scalar object the top dictionary of binary plist `bytes` holds for
    /// `key` (an ASCII key object), from its marker to its last payload byte; nil when the top
    /// object is not a dictionary, the key is absent, or the value is a container.
    package static func valueObject(_ bytes: [UInt8], key: String) -> [UInt8]? {
        guard bytes.count >= 40, bytes.starts(with: "bplist00".utf8) else { return nil }
        let trailer = bytes.count - 32
        let offsetSize = Int(bytes[trailer + 6]), refSize = Int(bytes[trailer + 7])
        func uint(_ at: Int, _ size: Int) -> Int { (0..<size).reduce(0) { $0 << 8 | Int(bytes[at + $1]) } }
        let top = uint(trailer + 16, 8), table = uint(trailer + 24, 8)
        func offset(_ object: Int) -> Int { uint(table + object * offsetSize, offsetSize) }
        /// Count and payload start after a marker at `at`.
        func length(_ at: Int) -> (Int, Int) {
            let nibble = Int(bytes[at] & 0x0F)
            if nibble != 0x0F { return (nibble, at + 1) }
            let size = 1 << Int(bytes[at + 1] & 0x0F)
            return (uint(at + 2, size), at + 2 + size)
        }
        let dict = offset(top)
        guard bytes[dict] >> 4 == 0xD else { return nil }
        let (n, refs) = length(dict)
        for i in 0..<n {
            let keyAt = offset(uint(refs + i * refSize, refSize))
            guard bytes[keyAt] >> 4 == 0x5 else { continue }
            let (count, payload) = length(keyAt)
            guard Array(bytes[payload..<(payload + count)]) == Array(key.utf8) else { continue }
            let at = offset(uint(refs + (n + i) * refSize, refSize))
            let marker = bytes[at]
            let end: Int
            switch marker >> 4 {
            case 0x0: end = at + 1
            case 0x1, 0x2: end = at + 1 + (1 << Int(marker & 0x0F))
            case 0x3: end = at + 9
            case 0x4, 0x5: let (c, p) = length(at); end = p + c
            case 0x6: let (c, p) = length(at); end = p + 2 * c
            default: return nil
            }
            return Array(bytes[at..<end])
        }
        return nil
    }

    /// The in-place commands that rewrite a defaults file holding a YCFirstTime archive and keep
    /// every other key: the suites that hold one kind of object to its bytes run each of them.
    package static let rewritingCommands: [[String]] = [
        ["set", "FILE", "onboarding.v1", "--last-version", "9.9"],
        ["unset", "FILE", "rate.prompt"],
        ["reset", "FILE"],
        ["migrate", "--in-place", "--no-backup", "FILE"],
        ["migrate", "--in-place", "--no-backup", "--to", "interval", "FILE"],
    ]

    /// What in binary plist `bytes` is not as `expected` says, one line per difference: each
    /// key's object must be exactly those bytes and read back (libplist path) as that value.
    package static func differences(_ bytes: [UInt8], _ expected: [(key: String, object: [UInt8], value: PlistValue)]) -> [String] {
        guard let read = (try? LibPlist.read(bytes))?.value.dictionaryValue else { return ["not a dictionary plist"] }
        var found: [String] = []
        for e in expected {
            let object = valueObject(bytes, key: e.key)
            if object != e.object { found.append("\(e.key): object \(object.map { "\($0)" } ?? "missing"), expected \(e.object)") }
            if read[e.key] != e.value { found.append("\(e.key): value \(String(describing: read[e.key])), expected \(e.value)") }
        }
        return found
    }
}
