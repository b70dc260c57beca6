#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Checks a binary property list the way CoreFoundation does before libplist parses it.
///
/// libplist 2.2.0 trusts the trailer and offset table, recurses without a depth limit, copies
/// every shared reference, and silently truncates strings at NUL or drops lone surrogates. This
/// scanner reads the same bytes without building anything and rejects what would crash libplist,
/// blow up its memory, or change a value: a malformed trailer or offset table, objects that run
/// past the table, references out of range, reference cycles, nesting over the depth limit,
/// expansions over the node budget, and strings libplist cannot keep exactly.
package struct BinaryPlistScanner {
    private let bytes: UnsafeRawBufferPointer
    private let limits: PlistLimits
    private var offsetIntSize = 0
    private var refSize = 0
    private var objectCount = 0
    private var tableOffset = 0
    private var topObject = 0

    package init(bytes: UnsafeRawBufferPointer, limits: PlistLimits) {
        self.bytes = bytes
        self.limits = limits
    }

    /// What the scan learned about the input.
    package struct Summary {
        package var objectCount: Int
        /// Whether the file holds an object libplist 2.2.0 does not hold exactly: a 16-byte integer
        /// (marker `0x14`, read as its low 64 bits) or a 4-byte real (marker `0x22`, widened, a
        /// signalling NaN quieted). Its value is then built by ``BinaryPlistReader/read(scanned:)``.
        package var needsExactReader: Bool
    }

    private func fail(_ defect: PlistError.Defect, _ offset: Int) -> PlistError {
        .malformedBinary(defect, offset: offset)
    }

    /// Validates the input; returns a summary or throws the first problem found.
    package mutating func scan() throws(PlistError) -> Summary {
        let size = bytes.count
        let header = Array("bplist00".utf8)
        guard size >= 8, bytes.prefix(8).elementsEqual(header) else {
            throw fail(.missingHeader, 0)
        }
        guard size >= 8 + 1 + 32 else { throw fail(.tooShortForTrailer, size) }
        // Every reader checks the size first (PropertyListCore.checkedFormat); the object table
        // keeps offsets in 32 bits.
        // untested: needs a binary property list over 4 GiB in memory (with a --max-input-size that large)
        guard size <= Int(UInt32.max) else { throw .inputTooLarge(size: size, limit: Int(UInt32.max)) }
        let trailer = size - 32
        offsetIntSize = Int(bytes[trailer + 6])
        refSize = Int(bytes[trailer + 7])
        let count = bytes.readUInt(at: trailer + 8, size: 8)
        let top = bytes.readUInt(at: trailer + 16, size: 8)
        let table = bytes.readUInt(at: trailer + 24, size: 8)
        // CoreFoundation writes 1, 2, 4 or 8; libplist also writes 3 (files of 64 KiB to 16 MiB).
        // CoreFoundation reads any size from 1 to 8, and so does libplist.
        guard (1...8).contains(offsetIntSize) else {
            throw fail(.badOffsetSize(offsetIntSize), trailer + 6)
        }
        guard (1...8).contains(refSize) else {
            throw fail(.badReferenceSize(refSize), trailer + 7)
        }
        // Every object takes at least one byte between the header and the offset table.
        guard count >= 1, count <= UInt64(trailer - 8) else {
            throw fail(.objectCountTooLarge(count), trailer + 8)
        }
        guard refSize >= 8 || count <= UInt64(1) << UInt64(8 * refSize) else {
            throw fail(.objectCountTooLargeForReferences(count, referenceSize: refSize), trailer + 7)
        }
        guard top < count else { throw fail(.topObjectOutOfRange(top, objectCount: count), trailer + 16) }
        guard table >= 9, table < UInt64(trailer) else {
            throw fail(.offsetTableOutOfRange(table), trailer + 24)
        }
        guard count <= (UInt64(trailer) - table) / UInt64(offsetIntSize) else {
            throw fail(.offsetTableOverlapsTrailer(entries: count), Int(table))
        }
        objectCount = Int(count)
        tableOffset = Int(table)
        topObject = Int(top)

        // Summary.needsExactReader, found over the table: a flag carried through the walk made the
        // guard measurably slower (docs/performance.md). An object the walk never reaches only
        // sends the file down the exact path.
        var marks: UInt8 = 0
        // Each object's offset, written once into its entry with the walk's "not met" (zeroing
        // the table first, then a checked write per object, cost a pass more).
        let objects = ObjectTable(count: objectCount)
        for i in 0..<objectCount {
            let at = tableOffset + i * offsetIntSize
            let offset = bytes.readUInt(at: at, size: offsetIntSize)
            guard offset >= 8, offset < table else {
                throw fail(.objectOffsetOutOfRange(object: i, offset: offset), at)
            }
            // Below the table's offset, below the input's size, which fits 32 bits (checked above).
            objects.initialize(i, offset: UInt32(truncatingIfNeeded: offset))
            let marker = bytes[Int(offset)]
            marks |= marker == 0x14 || marker == 0x22 ? 1 : 0
        }
        return try walk(objects, needsExactReader: marks != 0)
    }

    /// One object's marker decoded: its kind, where its payload starts, and its element count.
    private struct Object {
        enum Kind { case scalar, array, dict }
        var kind: Kind
        var payload: Int
        var count: Int
    }

    /// Reads the length that follows a marker whose low nibble is `nibble`.
    private func length(nibble: UInt8, after offset: Int) throws(PlistError) -> (Int, Int) {
        if nibble != 0x0F { return (Int(nibble), offset) }
        guard offset < tableOffset else { throw fail(.lengthRunsIntoOffsetTable, offset) }
        let marker = bytes[offset]
        guard marker >> 4 == 0x1, marker & 0x0F <= 3 else { throw fail(.badLengthMarker(marker), offset) }
        let size = 1 << Int(marker & 0x0F)
        guard offset + 1 + size <= tableOffset else { throw fail(.lengthRunsIntoOffsetTable, offset) }
        let value = bytes.readUInt(at: offset + 1, size: size)
        guard value <= UInt64(tableOffset) else { throw fail(.lengthTooLarge(value), offset) }
        return (Int(value), offset + 1 + size)
    }

    private func object(_ index: Int, objects: ObjectTable, path: () -> ObjectPath) throws(PlistError) -> Object {
        let start = objects.offset(index)
        let marker = bytes[start]
        let nibble = marker & 0x0F
        func needs(_ end: Int) throws(PlistError) {
            guard end <= tableOffset else { throw fail(.objectRunsIntoOffsetTable(object: index), start) }
        }
        switch marker >> 4 {
        case 0x0:
            guard marker == 0x08 || marker == 0x09 else { throw fail(.badObjectMarker(marker), start) }
        case 0x1, 0x2:
            // An integer of 1 to 16 bytes, a real of 4 or 8.
            guard marker >> 4 == 0x1 ? nibble <= 4 : nibble == 2 || nibble == 3 else { throw fail(.badObjectMarker(marker), start) }
            try needs(start + 1 + (1 << Int(nibble)))
        case 0x3:
            guard marker == 0x33 else { throw fail(.badObjectMarker(marker), start) }
            try needs(start + 9)
        case 0x4:
            let (n, payload) = try length(nibble: nibble, after: start + 1)
            try needs(payload + n)
            return Object(kind: .scalar, payload: start, count: n)
        case 0x5:
            let (n, payload) = try length(nibble: nibble, after: start + 1)
            try needs(payload + n)
            if !plainASCII(payload, n) {
                for i in payload..<(payload + n) {
                    let b = bytes[i]
                    if b == 0 { throw PlistError.unrepresentableString(.containsNUL(inKey: false), at: path()) }
                    if b >= 0x80 { throw PlistError.unrepresentableString(.notASCII(b), at: path()) }
                // unreachable: plainASCII found a byte that is NUL or not ASCII, so the loop throws before it ends
                }
            }
            return Object(kind: .scalar, payload: start, count: n)
        case 0x6:
            let (n, payload) = try length(nibble: nibble, after: start + 1)
            // CoreFoundation reads an empty UTF-16 string as ""; libplist 2.2.0 fails the whole
            // parse. Refused here, so the libplist path and the pure reader answer alike (found
            // by the pure-read fuzzer; CoreFoundation itself writes "" as an ASCII string).
            if n == 0 { throw fail(.emptyUTF16String, start) }
            let (byteCount, overflow) = n.multipliedReportingOverflow(by: 2)
            // unreachable: length(nibble:after:) keeps n at most the file's size (below 2^32), so n times 2 cannot
            // overflow
            guard !overflow else { throw fail(.lengthOverflows(.string), start) }
            try needs(payload + byteCount)
            // Unit by unit only when some unit is NUL or a surrogate, to name the first bad one
            // or to pass well-formed pairs.
            var i = plainUTF16(payload, n) ? n : 0
            while i < n {
                let unit = UInt16(bytes[payload + 2 * i]) << 8 | UInt16(bytes[payload + 2 * i + 1])
                if unit == 0 { throw PlistError.unrepresentableString(.containsNUL(inKey: false), at: path()) }
                if unit >= 0xD800 && unit <= 0xDBFF {
                    guard i + 1 < n else { throw PlistError.unrepresentableString(.loneSurrogate(unit), at: path()) }
                    let next = UInt16(bytes[payload + 2 * i + 2]) << 8 | UInt16(bytes[payload + 2 * i + 3])
                    guard next >= 0xDC00 && next <= 0xDFFF else {
                        throw PlistError.unrepresentableString(.loneSurrogate(unit), at: path())
                    }
                    i += 2
                    continue
                }
                if unit >= 0xDC00 && unit <= 0xDFFF {
                    throw PlistError.unrepresentableString(.loneSurrogate(unit), at: path())
                }
                i += 1
            }
            // libplist keeps UTF-8: up to 3 bytes per UTF-16 unit.
            return Object(kind: .scalar, payload: start, count: 3 * n)
        case 0x8:
            guard nibble <= 7 else { throw fail(.badObjectMarker(marker), start) }
            try needs(start + 2 + Int(nibble))
            // CoreFoundation rejects UIDs above 32 bits (and libplist cannot write them back).
            let uid = bytes.readUInt(at: start + 1, size: Int(nibble) + 1)
            guard uid <= UInt64(UInt32.max) else { throw fail(.uidTooLarge(uid), start) }
        case 0xA:
            let (n, payload) = try length(nibble: nibble, after: start + 1)
            let (refBytes, overflow) = n.multipliedReportingOverflow(by: refSize)
            // unreachable: n is at most the file's size (below 2^32) and refSize at most 8: no overflow
            guard !overflow else { throw fail(.lengthOverflows(.array), start) }
            try needs(payload + refBytes)
            return Object(kind: .array, payload: payload, count: n)
        case 0xD:
            let (n, payload) = try length(nibble: nibble, after: start + 1)
            let (refBytes, overflow) = n.multipliedReportingOverflow(by: 2 * refSize)
            // unreachable: n is at most the file's size (below 2^32) and 2 * refSize at most 16: no overflow
            guard !overflow else { throw fail(.lengthOverflows(.dictionary), start) }
            try needs(payload + refBytes)
            return Object(kind: .dict, payload: payload, count: n)
        default:
            throw fail(.badObjectMarker(marker), start)
        }
        return Object(kind: .scalar, payload: start, count: 0)
    }

    /// Whether the `n` bytes at `offset` are all ASCII and none is NUL, eight at a time (the
    /// caller looks byte by byte only when not, to name the first bad byte). A loop over every
    /// byte with two tests each cost measurably more (docs/performance.md).
    private func plainASCII(_ offset: Int, _ n: Int) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        var i = 0
        while i + 8 <= n {
            let w = bytes.loadUnaligned(fromByteOffset: offset + i, as: UInt64.self)
            // A high bit set in a byte, or a zero byte (the classic has-zero-byte test).
            if w & highs != 0 || (w &- ones) & ~w & highs != 0 { return false }
            i += 8
        }
        // The last one to seven bytes as four, two and one (byte by byte, up to seven rounds of
        // two tests, was most of this function on short keys such as `$class`).
        if i + 4 <= n {
            let w = bytes.loadUnaligned(fromByteOffset: offset + i, as: UInt32.self)
            if w & 0x8080_8080 != 0 || (w &- 0x0101_0101) & ~w & 0x8080_8080 != 0 { return false }
            i += 4
        }
        if i + 2 <= n {
            let w = bytes.loadUnaligned(fromByteOffset: offset + i, as: UInt16.self)
            if w & 0x8080 != 0 || w & 0x00FF == 0 || w & 0xFF00 == 0 { return false }
            i += 2
        }
        if i < n {
            let b = bytes[offset + i]
            if b == 0 || b >= 0x80 { return false }
        }
        return true
    }

    /// Whether the `n` big-endian UTF-16 units at `offset` hold no NUL and no surrogate, eight
    /// at a time (two words of four lanes: a lane is zero, or its top five bits are 11011); the
    /// caller looks unit by unit only when not. Unit by unit with three tests each was a tenth of the
    /// guard on archives with non-ASCII keys (docs/performance.md).
    private func plainUTF16(_ offset: Int, _ n: Int) -> Bool {
        let ones: UInt64 = 0x0001_0001_0001_0001, highs: UInt64 = 0x8000_8000_8000_8000
        let top5: UInt64 = 0xF800_F800_F800_F800, surrogates: UInt64 = 0xD800_D800_D800_D800
        // The top bit of every lane that is zero or a surrogate (the classic has-zero-lane test,
        // on the word and on its top five bits compared with 11011), and maybe of lanes above
        // one: nonzero exactly when some lane is bad.
        func bad(_ at: Int) -> UInt64 {
            let w = UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: offset + 2 * at, as: UInt64.self))
            let s = (w & top5) ^ surrogates
            return ((w &- ones) & ~w | (s &- ones) & ~s) & highs
        }
        var i = 0
        while i + 8 <= n {
            if bad(i) | bad(i + 4) != 0 { return false }
            i += 8
        }
        if i + 4 <= n {
            if bad(i) != 0 { return false }
            i += 4
        }
        while i < n {
            let unit = UInt16(bytes[offset + 2 * i]) << 8 | UInt16(bytes[offset + 2 * i + 1])
            if unit == 0 || unit & 0xF800 == 0xD800 { return false }
            i += 1
        }
        return true
    }

    /// Where a string object's code units are: their width in bytes (1 for an ASCII object, 2
    /// for UTF-16), how many there are, and where the first starts; nil when the object is not
    /// a string or its units run past the object area.
    private func stringExtent(_ index: Int, objects: ObjectTable) -> (width: Int, count: Int, payload: Int)? {
        let start = objects.offset(index)
        let marker = bytes[start]
        guard marker >> 4 == 0x5 || marker >> 4 == 0x6,
              let (n, payload) = try? length(nibble: marker & 0x0F, after: start + 1) else { return nil }
        let width = marker >> 4 == 0x5 ? 1 : 2
        // `length` keeps n at most the file's size, so n * width cannot overflow.
        guard payload <= tableOffset, n <= (tableOffset - payload) / width else { return nil }
        return (width, n, payload)
    }

    /// The UTF-16 code units of a string object (ASCII widened), or nil when it is not one.
    private func units(_ index: Int, objects: ObjectTable) -> [UInt16]? {
        guard let (width, n, payload) = stringExtent(index, objects: objects) else { return nil }
        if width == 1 { return (0..<n).map { UInt16(bytes[payload + $0]) } }
        return (0..<n).map { UInt16(bytes[payload + 2 * $0]) << 8 | UInt16(bytes[payload + 2 * $0 + 1]) }
    }

    /// Whether two string objects hold the same text. Same width and length: compare bytes;
    /// an ASCII and a UTF-16 object of the same length: compare code units.
    private func sameString(_ a: Int, _ b: Int, objects: ObjectTable) -> Bool {
        // Two short strings (a marker's low nibble is the count of units below 15) of different
        // counts differ, whatever their widths: told from the markers alone, as most key pairs
        // of an archive's objects are (`$class`, `lastTime`, `lastVersion`).
        let countA = bytes[objects.offset(a)] & 0x0F, countB = bytes[objects.offset(b)] & 0x0F
        if countA != countB && countA != 0x0F && countB != 0x0F { return false }
        guard let ea = stringExtent(a, objects: objects), let eb = stringExtent(b, objects: objects),
              ea.count == eb.count, let base = bytes.baseAddress else { return false }
        if ea.width == eb.width { return memcmp(base + ea.payload, base + eb.payload, ea.count * ea.width) == 0 }
        return units(a, objects: objects) == units(b, objects: objects)
    }

    /// Dictionaries with at most this many keys are checked pairwise (and their key lists
    /// remembered by ``CheckedKeyLists``); larger ones through a table of hashes.
    private static let pairwiseKeys = 8

    /// libplist keeps both entries of a dictionary that repeats a key; CoreFoundation keeps one.
    /// Either way a value would be lost or ambiguous, so a repeated key is an error.
    private func checkDuplicateKeys(_ dict: Object, index: Int, objects: ObjectTable) throws(PlistError) {
        // unreachable: checkKeys(_:index:objects:checked:), the only caller, passes dictionaries of two or more keys
        guard dict.count > 1 else { return }
        func ref(_ i: Int) -> UInt64 { bytes.readUInt(at: dict.payload + i * refSize, size: refSize) }
        // A reference out of range is reported by the walk, before any duplicate; after this
        // pass every key reference is below the object count.
        for i in 0..<dict.count where ref(i) >= UInt64(objectCount) { return }
        func key(_ i: Int) -> Int { Int(ref(i)) }
        func report(_ ref: Int) -> PlistError {
            let text = units(ref, objects: objects).map { String(decoding: $0, as: UTF16.self) } ?? "?"
            return .duplicateKey(text, at: ObjectPath([.binaryObject(index)]))
        }
        if dict.count <= Self.pairwiseKeys {
            // Pairwise, reading the references in place: an archive has a small dictionary per
            // object, and an array of references for each cost measurably more (docs/performance.md).
            for i in 1..<dict.count {
                let a = key(i)
                for j in 0..<i {
                    let b = key(j)
                    if a == b || sameString(a, b, objects: objects) { throw report(a) }
                }
            }
        } else {
            let refs = (0..<dict.count).map(key)
            // An open-addressing table of the keys seen so far, by a seeded hash of their UTF-16
            // units read in place (no copy per key); every hash match is compared exactly. A Set
            // of [UInt16] copies cost measurably more (docs/performance.md).
            var capacity = 16
            while capacity < 2 * refs.count { capacity <<= 1 }
            let mask = capacity - 1
            var slots = [Int](repeating: -1, count: capacity)  // a ref, or -1
            var hashes = [Int](repeating: 0, count: capacity)
            for ref in refs {
                // A key that is not a string (the walk reports it) is found again only as the same reference.
                let h = unitsHash(ref, objects: objects) ?? ref
                var i = h & mask
                while slots[i] >= 0 {
                    if hashes[i] == h && (slots[i] == ref || sameString(slots[i], ref, objects: objects)) { throw report(ref) }
                    i = (i + 1) & mask
                }
                slots[i] = ref
                hashes[i] = h
            }
        }
    }

    /// A seeded hash of a string object's UTF-16 code units, equal for an ASCII object and a
    /// UTF-16 object holding the same units (both are hashed as the units' low bytes when every
    /// unit is ASCII); nil when the object is not a string within the object area.
    private func unitsHash(_ index: Int, objects: ObjectTable) -> Int? {
        guard let (width, n, payload) = stringExtent(index, objects: objects) else { return nil }
        var hasher = Hasher()
        hasher.combine(n)
        if width == 1 {
            hasher.combine(bytes: UnsafeRawBufferPointer(rebasing: bytes[payload..<(payload + n)]))
            return hasher.finalize()
        }
        let raw = UnsafeRawBufferPointer(rebasing: bytes[payload..<(payload + 2 * n)])
        var ascii = true
        for i in 0..<n where raw[2 * i] != 0 || raw[2 * i + 1] >= 0x80 { ascii = false; break }
        if ascii {
            // Rare (CoreFoundation writes such keys as ASCII objects): hashed as an ASCII object would be.
            let low = (0..<n).map { raw[2 * $0 + 1] }
            low.withUnsafeBytes { hasher.combine(bytes: $0) }
        } else {
            hasher.combine(bytes: raw)
        }
        return hasher.finalize()
    }

    /// The key lists of the last few small dictionaries found free of duplicate keys, as the
    /// extents of their reference bytes. An archive's objects of one class repeat the same
    /// coder keys (every record's `$class`, `lastTime`, `lastVersion`), and a dictionary whose
    /// key references are byte for byte those of a checked one has the same keys: checking them
    /// again was a sizeable share of the guard on an archive (docs/performance.md).
    private struct CheckedKeyLists {
        private var extents: [(start: Int, length: Int)] = []
        private var next = 0

        /// Whether the `length` reference bytes at `start` are those of a list already checked.
        func contains(_ start: Int, _ length: Int, in bytes: UnsafeRawBufferPointer) -> Bool {
            // unreachable: the input is at least 41 bytes (header and trailer), so its buffer has an address
            guard let base = bytes.baseAddress else { return false }
            for extent in extents where extent.length == length && (extent.start == start || memcmp(base + extent.start, base + start, length) == 0) {
                return true
            }
            return false
        }

        /// Remembers a checked list (four at most, the oldest forgotten first).
        mutating func insert(_ start: Int, _ length: Int) {
            if extents.count < 4 {
                extents.append((start, length))
            } else {
                extents[next] = (start, length)
                next = (next + 1) & 3
            }
        }
    }

    /// ``checkDuplicateKeys(_:index:objects:)`` for a dictionary in the walk, skipped when its
    /// key references repeat a small dictionary's already checked.
    private func checkKeys(_ dict: Object, index: Int, objects: ObjectTable, checked: inout CheckedKeyLists) throws(PlistError) {
        guard dict.count > 1 else { return }
        guard dict.count <= Self.pairwiseKeys else { return try checkDuplicateKeys(dict, index: index, objects: objects) }
        let length = dict.count * refSize
        if checked.contains(dict.payload, length, in: bytes) { return }
        try checkDuplicateKeys(dict, index: index, objects: objects)
        checked.insert(dict.payload, length)
    }

    /// Depth-first walk from the top object: cycles, depth, expanded size, per-object checks.
    /// The walk is iterative; an object's totals are memoised, so shared objects cost once.
    private func walk(_ objects: ObjectTable, needsExactReader: Bool) throws(PlistError) -> Summary {
        let budget = UInt64(limits.nodeBudget(forInputSize: bytes.count))
        let byteBudget = UInt64(limits.maxExpandedBytes)

        struct Frame { var index: Int; var object: Object; var next: Int; var total: UInt64; var bytes: UInt64; var height: Int32 }
        // The object being walked is a local; only its ancestors are on the stack (reading and
        // writing its frame in the array at every reference cost measurably more;
        // docs/performance.md). The nesting depth is `parents.count + 1`.
        var parents: [Frame] = []
        var checkedKeys = CheckedKeyLists()

        // Enter the top object.
        let topObj = try object(topObject, objects: objects, path: { ObjectPath([.binaryObject(topObject)]) })
        if topObj.kind == .dict { try checkKeys(topObj, index: topObject, objects: objects, checked: &checkedKeys) }
        objects.enter(topObject)
        var current = Frame(index: topObject, object: topObj, next: 0, total: 1,
                            bytes: topObj.kind == .scalar ? UInt64(topObj.count) : 0, height: 1)

        while true {
            let childCount = current.object.kind == .dict ? 2 * current.object.count
                : current.object.kind == .array ? current.object.count : 0
            if current.next < childCount {
                let position = current.next
                current.next += 1
                let refOffset = current.object.payload + position * refSize
                let ref = bytes.readUInt(at: refOffset, size: refSize)
                // Against the table's own count (the object count), so that the accessors' index
                // checks below repeat a test of the same value (measured: fewer instructions).
                guard ref < UInt64(objects.count) else {
                    throw fail(.referenceOutOfRange(ref, objectCount: objectCount), refOffset)
                }
                let child = Int(ref)
                if current.object.kind == .dict && position < current.object.count {
                    let kind = bytes[objects.offset(child)] >> 4
                    guard kind == 0x5 || kind == 0x6 else {
                        throw fail(.keyNotString(object: child), objects.offset(child))
                    }
                }
                let expanded = objects.expanded(child)
                switch expanded {
                case ObjectTable.active:
                    throw fail(.referenceCycle(object: child), refOffset)
                case ObjectTable.notMet:
                    let obj = try object(child, objects: objects, path: {
                        ObjectPath((parents + [current]).map { .binaryObject($0.index) } + [.binaryObject(child)])
                    })
                    if obj.kind == .scalar {
                        // A leaf is done at once: one node, no height.
                        objects.finish(child, expanded: 1, bytes: UInt64(obj.count), height: 0)
                        current.total &+= 1
                        current.bytes &+= UInt64(obj.count)
                        if current.bytes > byteBudget { throw .tooManyBytes(expanded: current.bytes, limit: Int(byteBudget)) }
                        if current.total > budget { throw .tooManyNodes(expanded: current.total, limit: Int(budget)) }
                        continue
                    }
                    if obj.kind == .dict { try checkKeys(obj, index: child, objects: objects, checked: &checkedKeys) }
                    objects.enter(child)
                    parents.append(current)
                    current = Frame(index: child, object: obj, next: 0, total: 1, bytes: 0, height: 1)
                    // Only containers are entered, so every frame is a container but a scalar
                    // top object: the depth is the nesting depth.
                    if parents.count + 1 > limits.maxDepth { throw .tooDeep(limit: limits.maxDepth) }
                default:
                    // Done with it: its totals, as the walk left them.
                    let (childBytes, childHeight) = objects.totals(child)
                    current.total &+= expanded
                    current.bytes &+= childBytes
                    if current.bytes > byteBudget { throw .tooManyBytes(expanded: current.bytes, limit: Int(byteBudget)) }
                    current.height = max(current.height, childHeight + 1)
                    if current.total > budget { throw .tooManyNodes(expanded: current.total, limit: Int(budget)) }
                    if parents.count + 1 + Int(childHeight) > limits.maxDepth { throw .tooDeep(limit: limits.maxDepth) }
                }
            } else {
                let height = current.object.kind == .scalar ? 0 : current.height
                objects.finish(current.index, expanded: current.total, bytes: current.bytes, height: height)
                guard var parent = parents.popLast() else { break }
                parent.total &+= current.total
                parent.bytes &+= current.bytes
                if parent.bytes > byteBudget { throw .tooManyBytes(expanded: parent.bytes, limit: Int(byteBudget)) }
                if parent.total > budget { throw .tooManyNodes(expanded: parent.total, limit: Int(budget)) }
                parent.height = max(parent.height, height + 1)
                current = parent
            }
        }
        return Summary(objectCount: objectCount, needsExactReader: needsExactReader)
    }
}

/// What the guard knows of each object, in one entry an object: where it starts, and what the
/// walk has learned of it. One table rather than one per field (the offsets, a state, the
/// totals and the height were five): an object's fields are read together, from one place in
/// memory, and the table is written once, with the offsets (docs/performance.md).
final class ObjectTable {
    /// One object. `expanded` is also the walk's state: ``notMet`` until the walk meets the
    /// object, ``active`` while it is inside it, and its expanded node count (at least 1, at most
    /// the node budget) once done, when `bytes` and `height` are set too.
    struct Entry {
        var expanded: UInt64
        var bytes: UInt64
        var offset: UInt32
        var height: Int32
    }

    static let notMet: UInt64 = 0
    static let active: UInt64 = .max

    private let base: UnsafeMutablePointer<Entry>
    /// How many objects there are.
    let count: Int

    /// A table of `count` entries, each written by ``initialize(_:offset:)`` before it is read.
    init(count: Int) {
        let size = max(count, 1)
        // The table is 24 bytes an object, and the offset table gives at most one object per
        // byte of input, under 4 GiB (the scanner checks), so the size cannot overflow; an
        // `Array` would trap the same way at the same sizes.
        // unreachable: only when malloc fails (at most 24 bytes a byte of --max-input-size), as an Array would trap
        guard let memory = malloc(size * MemoryLayout<Entry>.stride) else { fatalError("out of memory") }
        base = memory.bindMemory(to: Entry.self, capacity: size)
        self.count = count
    }

    deinit { free(base) }

    // Each accessor reads or writes only its fields (a whole entry copied per reference cost
    // more than the separate tables did). Indexes are checked, as an `Array`'s are.

    /// Object `index`'s `expanded`: ``notMet``, ``active``, or its node count once done.
    func expanded(_ index: Int) -> UInt64 {
        precondition(index >= 0 && index < count)
        return base[index].expanded
    }

    /// Object `index`'s string and data bytes and its height, once done.
    func totals(_ index: Int) -> (bytes: UInt64, height: Int32) {
        precondition(index >= 0 && index < count)
        return (base[index].bytes, base[index].height)
    }

    /// Where object `index` starts.
    func offset(_ index: Int) -> Int {
        precondition(index >= 0 && index < count)
        return Int(base[index].offset)
    }

    /// Writes object `index`'s entry: its offset, not yet met (its totals are written when
    /// the walk is done with it, before they are read).
    func initialize(_ index: Int, offset: UInt32) {
        precondition(index >= 0 && index < count)
        base[index].expanded = Self.notMet
        base[index].offset = offset
    }

    /// The walk is inside object `index`.
    func enter(_ index: Int) {
        precondition(index >= 0 && index < count)
        base[index].expanded = Self.active
    }

    /// The walk is done with object `index`: its totals (`expanded` at least 1).
    func finish(_ index: Int, expanded: UInt64, bytes: UInt64, height: Int32) {
        precondition(index >= 0 && index < count)
        base[index].expanded = expanded
        base[index].bytes = bytes
        base[index].height = height
    }
}

extension UnsafeRawBufferPointer {
    /// Big-endian unsigned integer of `size` bytes at `offset` (caller checks bounds).
    @inline(__always)
    func readUInt(at offset: Int, size: Int) -> UInt64 {
        switch size {
        case 1: return UInt64(self[offset])
        case 2: return UInt64(UInt16(bigEndian: loadUnaligned(fromByteOffset: offset, as: UInt16.self)))
        case 4: return UInt64(UInt32(bigEndian: loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
        case 8: return UInt64(bigEndian: loadUnaligned(fromByteOffset: offset, as: UInt64.self))
        default:
            var value: UInt64 = 0
            for i in 0..<size { value = (value << 8) | UInt64(self[offset + i]) }
            return value
        }
    }
}
