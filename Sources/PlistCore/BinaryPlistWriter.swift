/// Writes Apple's binary property-list format (`bplist00`) in CoreFoundation's manner, in time
/// and memory linear in the value.
///
/// ycft writes binary itself because libplist 2.2.0's `plist_to_bin` is superlinear (unusable
/// on a large archive; its times are in docs/performance.md), and because its output is not Apple's: it writes a
/// dictionary's keys and values interleaved, and reals that fit a float in 4 bytes. This writer
/// numbers objects depth-first with a dictionary's keys before its values, shares equal strings
/// and numbers (compared exactly: `"é"` and `"e\u{301}"`, `0.0` and `-0.0` stay apart), writes
/// reals in 8 bytes (a `PlistValue.real32(_:)` in the 4 bytes it was read from), non-ASCII
/// strings as UTF-16, and uses the smallest of 1, 2, 4 or 8 bytes for offsets and references.
struct BinaryPlistWriter {
    /// One object before serialization: where its encoded bytes are in `scalarBytes`, or a
    /// container's marker and where its references are in `refStore`. Two flat stores instead
    /// of an array per object: allocation was most of the cost of writing an archive.
    private enum Object {
        case scalar(start: Int, count: Int)
        case container(marker: UInt8, start: Int, refCount: Int, count: Int)
    }

    private var objects: [Object] = []
    private var scalarBytes: [UInt8] = []
    private var refStore: [Int] = []
    /// The references of the containers being flattened, innermost last: one stack, not an
    /// array a container.
    private var refStack: [Int] = []
    /// Where the scalar being encoded starts: it is encoded straight onto the end of
    /// `scalarBytes` and taken back if an equal one is shared (a separate scratch buffer copied
    /// every scalar once more; docs/performance.md).
    private var committedBytes = 0
    /// Sharing of equal scalars: an open-addressing table of object indexes + 1 (0 is empty),
    /// probed linearly by the hash of a scalar's bytes, and each object's hash. Equality is on
    /// the exact bytes. (A Dictionary keyed by the hash would hash the hash again.) Small at
    /// first, sized by `reserve` and grown as needed: a small file's write paid for zeroing a
    /// large one (docs/performance.md).
    private var table: [Int] = Array(repeating: 0, count: 64)
    private var sharedCount = 0
    private var hashes: [Int] = []
    /// Short dictionary keys that came again, packed (``packed(_:)``), and their objects: an
    /// archive repeats a handful of coder keys (`$class`, `NS.time`, ...) once per object, and
    /// each would be encoded and hashed again. Searched in order, compared as two words (a hash
    /// per lookup cost more than the encoding it saved). Only a key `scalar` shared with an
    /// earlier one is kept, so unique keys (block keys) never crowd the coder keys out; past
    /// ``shortKeyLimit``, a key is encoded and shared by `scalar`: the output is the same.
    private var shortKeys: [(low: UInt64, high: UInt64, ref: Int)] = []
    private static let shortKeyLimit = 16
    /// The most entries (or bytes) ``reserve(_:)`` sets aside in a store before writing.
    private static let reserveLimit = 1 << 16
    /// UIDs below ``directUIDLimit`` by value: their object's index + 1 (0: not written yet).
    /// An archive's UIDs are its object numbers, almost in order, so this is read nearly
    /// sequentially where the sharing table's random probes missed the cache for most new
    /// scalars, UIDs (docs/performance.md). Sharing is unchanged: only a UID has a UID's marker.
    private var uidObjects: [Int] = []
    /// Values below this go through `uidObjects` (8 MiB at most); larger ones, the sharing table.
    private static let directUIDLimit = 1 << 20
    fileprivate var path = ValuePath()

    /// Serializes a value.
    /// - Throws: ``PlistError/unwritable(_:at:)`` for a string holding NUL (libplist-based readers
    ///   would cut it) or a UID above 2^32-1 (CoreFoundation's limit).
    static func write(_ value: PlistValue) throws(PlistError) -> [UInt8] {
        var writer = BinaryPlistWriter()
        // Sized once from a count of the value: growing each store from empty was most of a
        // small file's allocations (docs/performance.md).
        var size = Size()
        size.count(value)
        writer.reserve(size)
        let top = try writer.flatten(value)
        return writer.serialize(top: top)
    }

    private static func bigEndian(_ v: UInt64, _ size: Int, into out: inout [UInt8]) {
        for i in stride(from: size - 1, through: 0, by: -1) { out.append(UInt8(truncatingIfNeeded: v >> (8 * UInt64(i)))) }
    }

    /// Writes `v`'s low `size` bytes big-endian at `p`.
    @inline(__always)
    private static func bigEndian(_ v: UInt64, _ size: Int, to p: UnsafeMutablePointer<UInt8>) {
        for i in 0..<size { p[i] = UInt8(truncatingIfNeeded: v >> (8 * UInt64(size - 1 - i))) }
    }

    /// Appends what `write` writes at a pointer: at most 10 bytes, as many as it returns (an
    /// object header, ``header(_:_:to:)``, or an integer object, ``integer(_:to:)``).
    private static func append(into out: inout [UInt8], _ write: (UnsafeMutablePointer<UInt8>) -> Int) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 10) { buffer in
            // The allocation has 10 bytes, so its base address is not nil.
            let n = write(buffer.baseAddress!)
            out.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[..<n]))
        }
    }

    /// An object header written at `p` (room for 10 bytes); returns its size. The one encoding of
    /// headers: a count below 15 in the marker, a larger one as an integer object after it.
    private static func header(_ kind: UInt8, _ count: Int, to p: UnsafeMutablePointer<UInt8>) -> Int {
        if count < 15 {
            p[0] = kind << 4 | UInt8(count)
            return 1
        }
        p[0] = kind << 4 | 0x0F
        return 1 + integer(Int64(count), to: p + 1)
    }

    /// The size ``header(_:_:to:)`` writes.
    private static func headerSize(_ count: Int) -> Int { count < 15 ? 1 : 1 + integerSize(Int64(count)) }

    /// The size of an integer object: 1, 2 or 4 bytes for what fits unsigned, else 8 (signed).
    private static func integerSize(_ v: Int64) -> Int {
        v >= 0 && v <= 0xFF ? 2 : v >= 0 && v <= 0xFFFF ? 3 : v >= 0 && v <= 0xFFFF_FFFF ? 5 : 9
    }

    /// An integer object written at `p` (room for 9 bytes); returns its size.
    private static func integer(_ v: Int64, to p: UnsafeMutablePointer<UInt8>) -> Int {
        let size = integerSize(v)
        p[0] = size == 2 ? 0x10 : size == 3 ? 0x11 : size == 5 ? 0x12 : 0x13
        bigEndian(UInt64(bitPattern: v), size - 1, to: p + 1)
        return size
    }

    /// What a value will take: its objects (a dictionary's keys counted), their references, and
    /// about their encoded bytes (a string's UTF-8 and data's bytes, 9 for anything else).
    private struct Size {
        var objects = 0, refs = 0, bytes = 0

        mutating func count(_ value: PlistValue) {
            objects += 1
            switch value {
            case let .string(s): bytes += 2 + s.utf8.count
            case let .data(d): bytes += 9 + d.count
            case let .array(items):
                refs += items.count
                for item in items { count(item) }
            case let .dictionary(dict):
                objects += dict.count
                refs += 2 * dict.count
                for (key, item) in dict {
                    bytes += 2 + key.utf8.count
                    count(item)
                }
            case .integer, .real, .real32, .bool, .date, .uid: bytes += 9
            }
        }
    }

    /// Sizes the stores and the sharing table (kept at most half full) for `size`, up to
    /// ``reserveLimit`` each: the count is of the value as a tree, and a string or a subtree
    /// shared many times (up to the guard's expanded bytes) is written once, so a larger store
    /// grows as it is written instead. Only capacity: the output is the same without it.
    private mutating func reserve(_ size: Size) {
        let objectCount = min(size.objects, Self.reserveLimit)
        objects.reserveCapacity(objectCount)
        hashes.reserveCapacity(objectCount)
        scalarBytes.reserveCapacity(min(size.bytes, Self.reserveLimit))
        refStore.reserveCapacity(min(size.refs, Self.reserveLimit))
        // Coder keys repeat by the handful; a defaults file's keys are long and not memoised.
        shortKeys.reserveCapacity(Self.shortKeyLimit)
        var slots = 64
        while slots < 2 * objectCount { slots *= 2 }
        if slots > table.count { table = Array(repeating: 0, count: slots) }
    }

    /// A 16-byte integer's object (marker `0x14`, the high half first), as CoreFoundation
    /// writes its 128-bit integers whatever their value (shared).
    private mutating func sixteenByteInteger(high: Int64, low: UInt64) -> Int {
        scalarBytes.append(0x14)
        Self.bigEndian(UInt64(bitPattern: high), 8, into: &scalarBytes)
        Self.bigEndian(low, 8, into: &scalarBytes)
        return scalar()
    }

    /// Adds the scalar encoded at the end of `scalarBytes` (from `committedBytes`), sharing an
    /// equal one already written (unless `share` is false), in which case its bytes are taken back.
    private mutating func scalar(share: Bool = true) -> Int {
        let index = objects.count, start = committedBytes, count = scalarBytes.count - start
        guard share else {
            objects.append(.scalar(start: start, count: count))
            hashes.append(0)
            committedBytes = scalarBytes.count
            return index
        }
        // The probe ends at an equal scalar (shared) or at the empty slot where this one goes.
        let (hash, shared, empty) = scalarBytes.withUnsafeBufferPointer { all -> (Int, Int?, Int) in
            let bytes = UnsafeBufferPointer(rebasing: all[start...])
            var hasher = Hasher()
            hasher.combine(bytes: UnsafeRawBufferPointer(bytes))
            let hash = hasher.finalize()
            let mask = table.count - 1
            var slot = hash & mask
            while table[slot] != 0 {
                let candidate = table[slot] - 1
                if hashes[candidate] == hash, case let .scalar(otherStart, otherCount) = objects[candidate], otherCount == count,
                   compareUTF8(UnsafeBufferPointer(rebasing: all[otherStart..<(otherStart + count)]), bytes) == 0 {
                    return (hash, candidate, slot)
                }
                slot = (slot + 1) & mask
            }
            return (hash, nil, slot)
        }
        if let shared {
            scalarBytes.removeLast(count)
            return shared
        }
        objects.append(.scalar(start: start, count: count))
        hashes.append(hash)
        committedBytes = scalarBytes.count
        table[empty] = index + 1
        sharedCount += 1
        if sharedCount * 2 > table.count { growTable() }
        return index
    }

    /// Takes back a scalar that could not be finished.
    private mutating func discardPending() { scalarBytes.removeLast(scalarBytes.count - committedBytes) }

    /// Doubles the sharing table and re-places every shared scalar.
    private mutating func growTable() {
        var grown = [Int](repeating: 0, count: table.count * 2)
        let mask = grown.count - 1
        for entry in table where entry != 0 {
            var slot = hashes[entry - 1] & mask
            while grown[slot] != 0 { slot = (slot + 1) & mask }
            grown[slot] = entry
        }
        table = grown
    }

    /// Reserves a container's place (its references come after its children).
    fileprivate mutating func openContainer() -> Int {
        objects.append(.container(marker: 0, start: 0, refCount: 0, count: 0))
        hashes.append(0)
        return objects.count - 1
    }

    /// Ends a container whose references are `refStack` from `base` (its children's own went into
    /// `refStore` while it was open), moving them to `refStore`.
    fileprivate mutating func closeContainer(_ index: Int, marker: UInt8, refsFrom base: Int, count: Int) {
        objects[index] = .container(marker: marker, start: refStore.count, refCount: refStack.count - base, count: count)
        refStore.append(contentsOf: refStack[base...])
        refStack.removeLast(refStack.count - base)
    }

    fileprivate mutating func flatten(_ value: PlistValue) throws(PlistError) -> Int {
        switch value {
        case let .string(s):
            guard Self.encodeString(s, into: &scalarBytes) else {
                discardPending()
                throw .unwritable(.containsNUL(inKey: false), at: path.path)
            }
            return scalar()
        case let .integer(.signed(v)):
            Self.append(into: &scalarBytes) { Self.integer(v, to: $0) }
            return scalar()
        case let .integer(.unsigned(v)):
            return sixteenByteInteger(high: 0, low: v)
        case let .integer(.wide(high, low)):
            return sixteenByteInteger(high: high, low: low)
        case let .real(d):
            scalarBytes.append(0x23)
            Self.bigEndian(d.bitPattern, 8, into: &scalarBytes)
            return scalar()
        case let .real32(bits):
            scalarBytes.append(0x22)
            Self.bigEndian(UInt64(bits), 4, into: &scalarBytes)
            return scalar()
        case let .bool(b):
            scalarBytes.append(b ? 0x09 : 0x08)
            return scalar()
        case let .date(d):
            scalarBytes.append(0x33)
            Self.bigEndian(d.bitPattern, 8, into: &scalarBytes)
            return scalar()
        case let .data(data):
            Self.append(into: &scalarBytes) { Self.header(0x4, data.count, to: $0) }
            scalarBytes.append(contentsOf: data)
            return scalar(share: false)
        case let .uid(u):
            guard u <= UInt64(UInt32.max) else { throw .unwritable(.uidTooLarge(u), at: path.path) }
            // At most 2^32-1 here, so it fits Int.
            let value = Int(u), direct = value < Self.directUIDLimit
            if direct, value < uidObjects.count, uidObjects[value] != 0 { return uidObjects[value] - 1 }
            let size = u <= 0xFF ? 1 : u <= 0xFFFF ? 2 : 4
            scalarBytes.append(0x80 | UInt8(size - 1))
            Self.bigEndian(u, size, into: &scalarBytes)
            guard direct else { return scalar() }
            let index = scalar(share: false)
            if value >= uidObjects.count {
                var count = Swift.max(uidObjects.count, 256)
                while count <= value { count *= 2 }
                uidObjects.append(contentsOf: repeatElement(0, count: Swift.min(count, Self.directUIDLimit) - uidObjects.count))
            }
            uidObjects[value] = index + 1
            return index
        case let .array(items):
            let index = openContainer(), base = refStack.count
            for (i, item) in items.enumerated() {
                path.push(.index(i))
                let ref = try flatten(item)
                refStack.append(ref)
                path.pop()
            }
            closeContainer(index, marker: 0xA, refsFrom: base, count: items.count)
            return index
        case let .dictionary(dict):
            let index = openContainer(), base = refStack.count
            for (key, _) in dict {
                let ref = try self.key(key)
                refStack.append(ref)
            }
            for (key, item) in dict {
                path.push(.key(key))
                let ref = try flatten(item)
                refStack.append(ref)
                path.pop()
            }
            closeContainer(index, marker: 0xD, refsFrom: base, count: dict.count)
            return index
        }
    }

    /// A dictionary key's object. Coder keys are short and repeat; a preferences file's keys are
    /// long and unique (memoising those only costs): only short keys go through the memo.
    fileprivate mutating func key(_ key: String) throws(PlistError) -> Int {
        let packed = Self.packed(key)
        if let packed {
            for known in shortKeys where known.low == packed.low && known.high == packed.high { return known.ref }
        }
        guard Self.encodeString(key, into: &scalarBytes) else {
            discardPending()
            path.push(.key(key))
            defer { path.pop() }
            throw .unwritable(.containsNUL(inKey: true), at: path.path)
        }
        let written = objects.count
        let ref = scalar()
        if let packed, ref < written, shortKeys.count < Self.shortKeyLimit { shortKeys.append((packed.low, packed.high, ref)) }
        return ref
    }

    /// A key of at most 15 UTF-8 bytes as two words: its bytes, zero-padded, with its length in
    /// the last byte (so equal words are equal bytes); nil for a longer key.
    private static func packed(_ key: String) -> (low: UInt64, high: UInt64)? {
        var key = key
        return key.withUTF8 { bytes -> (low: UInt64, high: UInt64)? in
            guard bytes.count <= 15 else { return nil }
            var words: (low: UInt64, high: UInt64) = (0, 0)
            withUnsafeMutableBytes(of: &words) { raw in
                raw.copyMemory(from: UnsafeRawBufferPointer(bytes))
                raw[15] = UInt8(bytes.count)
            }
            return words
        }
    }

    /// Appends a string's object to `bytes`; false (and `bytes` partly written) when the string
    /// holds NUL, which libplist-based readers would cut.
    private static func encodeString(_ s: String, into bytes: inout [UInt8]) -> Bool {
        var s = s
        // One pass over the contiguous UTF-8 finds NUL and non-ASCII bytes (the common ASCII
        // case is then copied as it is). A separate `utf8.contains(0)` went through the generic
        // collection path at a measurable cost (docs/performance.md).
        var (ascii, nul) = (true, false)
        s.withUTF8 { utf8 in
            var any: UInt8 = 0
            for byte in utf8 {
                any |= byte
                if byte == 0 { nul = true; break }
            }
            ascii = any < 0x80
            if !nul && ascii {
                append(into: &bytes) { header(0x5, utf8.count, to: $0) }
                bytes.append(contentsOf: utf8)
            }
        }
        if nul { return false }
        if !ascii {
            let count = s.utf16.count
            append(into: &bytes) { header(0x6, count, to: $0) }
            for unit in s.utf16 { bytes.append(UInt8(unit >> 8)); bytes.append(UInt8(unit & 0xFF)) }
        }
        return true
    }

    private static func size(for value: Int) -> Int {
        // untested: (the 8) needs an offset table past 4 GiB, a binary property list over 4 GiB written in memory
        value <= 0xFF ? 1 : value <= 0xFFFF ? 2 : value <= 0xFFFF_FFFF ? 4 : 8
    }

    /// The finished file: header, objects in order, offset table, trailer. Sizes are known
    /// before anything is written, so the bytes go straight into one exact allocation, each
    /// object's offset into its table entry as it is written (appending byte by byte cost measurably
    /// more; docs/performance.md).
    fileprivate func serialize(top: Int) -> [UInt8] {
        let refSize = Self.size(for: objects.count - 1)
        var objectBytes = 0
        for object in objects {
            switch object {
            case let .scalar(_, count): objectBytes += count
            case let .container(_, _, refCount, count): objectBytes += Self.headerSize(count) + refCount * refSize
            }
        }
        let tableOffset = 8 + objectBytes
        let offsetSize = Self.size(for: max(tableOffset, 1))
        let total = tableOffset + objects.count * offsetSize + 32
        return [UInt8](unsafeUninitializedCapacity: total) { out, initialized in
            // `total` is at least 8 + 32 bytes, so the base address is not nil.
            let base = out.baseAddress!
            for (i, byte) in "bplist00".utf8.enumerated() { base[i] = byte }
            var at = 8
            var entry = base + tableOffset
            scalarBytes.withUnsafeBufferPointer { scalars in
                refStore.withUnsafeBufferPointer { refs in
                    for object in objects {
                        Self.bigEndian(UInt64(at), offsetSize, to: entry)
                        entry += offsetSize
                        switch object {
                        case let .scalar(start, count):
                            if count > 0 { (base + at).update(from: scalars.baseAddress! + start, count: count) }
                            at += count
                        case let .container(marker, start, refCount, count):
                            at += Self.header(marker, count, to: base + at)
                            for ref in refs[start..<(start + refCount)] {
                                Self.bigEndian(UInt64(ref), refSize, to: base + at)
                                at += refSize
                            }
                        }
                    }
                }
            }
            let trailer = base + tableOffset + objects.count * offsetSize
            for i in 0..<6 { trailer[i] = 0 }
            trailer[6] = UInt8(offsetSize)
            trailer[7] = UInt8(refSize)
            Self.bigEndian(UInt64(objects.count), 8, to: trailer + 8)
            Self.bigEndian(UInt64(top), 8, to: trailer + 16)
            Self.bigEndian(UInt64(tableOffset), 8, to: trailer + 24)
            initialized = total
        }
    }
}
