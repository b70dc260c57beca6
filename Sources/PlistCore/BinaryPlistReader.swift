/// Reads a binary property list into a `PlistValue` in pure Swift, for code that cannot link
/// libplist (the on-device FirstTimeMigration library).
///
/// The bytes first pass ``BinaryPlistScanner``, the same guard that stands before libplist; this
/// reader then builds exactly the values `LibPlist.read` builds from the same bytes, which
/// `PureBinaryReaderTests` holds on every fixture and Apple archive (and `LibPlist.read` builds
/// here what libplist does not hold exactly: ``BinaryPlistScanner/Summary/needsExactReader``).
package enum BinaryPlistReader {
    /// The value of binary property-list `bytes`.
    /// - Throws: ``PlistError`` as the guard names it (the same error `LibPlist.read` gives).
    package static func read(_ bytes: [UInt8], limits: PlistLimits = .default) throws(PlistError) -> PlistValue {
        guard try PropertyList.checkedFormat(bytes, limits: limits) == .binary else { throw .unknownFormat }
        return try bytes.withPlistBytes { raw throws(PlistError) in
            var scanner = BinaryPlistScanner(bytes: raw, limits: limits)
            _ = try scanner.scan()
            return Builder(bytes: raw).top()
        }
    }

    /// The value of binary property-list bytes that ``BinaryPlistScanner/scan()`` accepted
    /// with the same limits (nothing is checked again).
    package static func read(scanned bytes: UnsafeRawBufferPointer) -> PlistValue {
        Builder(bytes: bytes).top()
    }

    /// Builds values from bytes the scanner accepted: every bound below was checked there, so
    /// nothing here can fail.
    private struct Builder {
        let bytes: UnsafeRawBufferPointer
        let offsetIntSize: Int
        let refSize: Int
        let tableOffset: Int
        let topObject: Int

        init(bytes: UnsafeRawBufferPointer) {
            self.bytes = bytes
            let trailer = bytes.count - 32
            offsetIntSize = Int(bytes[trailer + 6])
            refSize = Int(bytes[trailer + 7])
            topObject = Int(bytes.readUInt(at: trailer + 16, size: 8))
            tableOffset = Int(bytes.readUInt(at: trailer + 24, size: 8))
        }

        func offset(of index: Int) -> Int { Int(bytes.readUInt(at: tableOffset + index * offsetIntSize, size: offsetIntSize)) }

        func ref(_ payload: Int, _ i: Int) -> Int { Int(bytes.readUInt(at: payload + i * refSize, size: refSize)) }

        /// The element count after a marker and where the payload starts.
        func length(_ marker: UInt8, at start: Int) -> (count: Int, payload: Int) {
            let nibble = marker & 0x0F
            if nibble != 0x0F { return (Int(nibble), start + 1) }
            let size = 1 << Int(bytes[start + 1] & 0x0F)
            return (Int(bytes.readUInt(at: start + 2, size: size)), start + 2 + size)
        }

        func top() -> PlistValue { value(topObject) }

        func string(_ index: Int) -> String {
            let start = offset(of: index)
            let marker = bytes[start]
            let (n, payload) = length(marker, at: start)
            if marker >> 4 == 0x5 {
                return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[payload..<(payload + n)]), as: UTF8.self)
            }
            var units: [UInt16] = []
            units.reserveCapacity(n)
            for i in 0..<n { units.append(UInt16(bytes[payload + 2 * i]) << 8 | UInt16(bytes[payload + 2 * i + 1])) }
            return String(decoding: units, as: UTF16.self)
        }

        func value(_ index: Int) -> PlistValue {
            let start = offset(of: index)
            let marker = bytes[start]
            let nibble = Int(marker & 0x0F)
            switch marker >> 4 {
            case 0x0:
                return .bool(marker == 0x09)
            case 0x1:
                let size = 1 << nibble
                if size == 16 {
                    // CoreFoundation's 128-bit integer, kept whole (libplist keeps the low half).
                    let high = Int64(bitPattern: bytes.readUInt(at: start + 1, size: 8))
                    return .integer(PlistInteger(high: high, low: bytes.readUInt(at: start + 9, size: 8)))
                }
                let bits = bytes.readUInt(at: start + 1, size: size)
                return .integer(.signed(Int64(bitPattern: bits)))
            case 0x2:
                let bits = bytes.readUInt(at: start + 1, size: 1 << nibble)
                return nibble == 2 ? .real32(UInt32(truncatingIfNeeded: bits)) : .real(Double(bitPattern: bits))
            case 0x3:
                return .date(Double(bitPattern: bytes.readUInt(at: start + 1, size: 8)))
            case 0x4:
                let (n, payload) = length(marker, at: start)
                return .data(Array(bytes[payload..<(payload + n)]))
            case 0x5, 0x6:
                return .string(string(index))
            case 0x8:
                return .uid(bytes.readUInt(at: start + 1, size: nibble + 1))
            case 0xA:
                let (n, payload) = length(marker, at: start)
                var items: [PlistValue] = []
                items.reserveCapacity(n)
                for i in 0..<n { items.append(value(ref(payload, i))) }
                return .array(items)
            default:  // 0xD: the scanner admits no other marker
                let (n, payload) = length(marker, at: start)
                var entries: [(key: String, value: PlistValue)] = []
                entries.reserveCapacity(n)
                for i in 0..<n { entries.append((string(ref(payload, i)), value(ref(payload, n + i)))) }
                return .dictionary(PlistDictionary(entries))
            }
        }
    }
}
