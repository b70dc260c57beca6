#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
internal import PlistCore

/// What YCFirstTime remembers about one block key.
///
/// Equality is exact: versions by Unicode scalars, times by bit pattern (`-0.0` is not `0.0`).
public struct FirstTimeRecord: Sendable, Equatable, CustomStringConvertible {
    /// The app version (`CFBundleShortVersionString`) recorded at the last run, or nil.
    public var lastVersion: String?
    /// The last run as the exact seconds since 2001-01-01T00:00:00Z that the archive stores
    /// (`NSDate.timeIntervalSinceReferenceDate`), or nil.
    public var lastTime: Double?

    /// Creates a record.
    public init(lastVersion: String? = nil, lastTime: Double? = nil) {
        self.lastVersion = lastVersion
        self.lastTime = lastTime
    }

    /// ``lastTime`` as a `Date`, holding the same double (`Date` keeps its seconds since
    /// 2001-01-01T00:00:00Z exactly), or nil when the record has no time.
    ///
    /// ```swift
    /// if let date = record.lastDate { print(date.formatted(.iso8601)) }
    /// ```
    public var lastDate: Date? { lastTime.map(Date.init(timeIntervalSinceReferenceDate:)) }

    /// Exact equality.
    public static func == (a: FirstTimeRecord, b: FirstTimeRecord) -> Bool {
        guard a.lastTime?.bitPattern == b.lastTime?.bitPattern else { return false }
        switch (a.lastVersion, b.lastVersion) {
        case (nil, nil): return true
        case let (x?, y?): return exactlyEqual(x, y)
        default: return false
        }
    }

    /// `lastVersion=..., lastTime=...` for test failures.
    public var description: String {
        "lastVersion=\(lastVersion.map { "\"\($0)\"" } ?? "nil"), lastTime=\(lastTime.map { "\($0)" } ?? "nil")"
    }
}

/// The records of one archive, keyed by block key.
///
/// Block keys compare by their exact Unicode scalars: `"é"` and `"e\u{301}"` are two keys, as
/// they are to Apple's `NSDictionary`. The records are kept sorted by the UTF-8 bytes of their
/// keys (the same as sorting by Unicode scalar values), which is the order ycft writes them in.
public struct FirstTimeRecords: Sendable, Equatable, Sequence, CustomStringConvertible {
    /// The entries, sorted by the UTF-8 bytes of their keys.
    public private(set) var entries: [(key: String, record: FirstTimeRecord)]

    /// No records.
    public init() { entries = [] }

    /// Creates records from entries in any order.
    /// - Throws: ``FirstTimeError/duplicateKey(_:at:)`` when two entries have the same key.
    public init(_ entries: [(key: String, record: FirstTimeRecord)]) throws(FirstTimeError) {
        let (records, duplicates) = Self.sortingKeys(entries)
        if let first = duplicates.first { throw .duplicateKey(first, at: .key("records")) }
        self = records
    }

    /// Entries already sorted by key, without duplicates.
    @usableFromInline package init(sorted: [(key: String, record: FirstTimeRecord)]) { entries = sorted }

    /// The entries sorted by key, the first of equal keys kept, and every key that came again.
    ///
    /// The order is ``precedes(_:_:)``'s (UTF-8 bytes), equal keys in their input order. The keys
    /// are compared as bytes copied once into one buffer (`KeyOrder`) and the entries are then
    /// moved into place, so no `String` is reached, retained or copied per comparison.
    @usableFromInline package static func sortingKeys(_ entries: consuming [(key: String, record: FirstTimeRecord)]) -> (records: FirstTimeRecords, duplicates: [String]) {
        let order = KeyOrder(entries)
        // Archives ycft writes are in key order already: one pass checks, and no entry moves.
        let repeated: [Int]
        if order.isAscending {
            repeated = order.repeatedPositions(nil)
        } else {
            var permutation = order.sortedIndices()
            repeated = order.repeatedPositions(permutation)
            KeyOrder.apply(&permutation, to: &entries)
        }
        guard !repeated.isEmpty else { return (FirstTimeRecords(sorted: entries), []) }
        let duplicates = repeated.map { entries[$0].key }
        var unique: [(key: String, record: FirstTimeRecord)] = []
        unique.reserveCapacity(entries.count - repeated.count)
        var next = 0
        for (position, entry) in entries.enumerated() {
            if next < repeated.count, repeated[next] == position {
                next += 1
            } else {
                unique.append(entry)
            }
        }
        return (FirstTimeRecords(sorted: unique), duplicates)
    }

    /// Whether `a` sorts before `b`: by UTF-8 bytes.
    public static func precedes(_ a: String, _ b: String) -> Bool {
        utf8Precedes(a, b)
    }

    /// The number of records.
    public var count: Int { entries.count }

    /// Iterates the entries in key order.
    public func makeIterator() -> IndexingIterator<[(key: String, record: FirstTimeRecord)]> { entries.makeIterator() }

    /// The record for a block key (exact scalar match). Setting nil removes it.
    public subscript(key: String) -> FirstTimeRecord? {
        get {
            let i = insertionIndex(key)
            return i < entries.count && exactlyEqual(entries[i].key, key) ? entries[i].record : nil
        }
        set {
            let i = insertionIndex(key)
            let present = i < entries.count && exactlyEqual(entries[i].key, key)
            switch (present, newValue) {
            case let (true, record?): entries[i].record = record
            case (true, nil): entries.remove(at: i)
            case let (false, record?): entries.insert((key, record), at: i)
            case (false, nil): break
            }
        }
    }

    private func insertionIndex(_ key: String) -> Int {
        var low = 0, high = entries.count
        while low < high {
            let mid = (low + high) / 2
            if Self.precedes(entries[mid].key, key) { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// Exact equality of keys and records.
    public static func == (a: FirstTimeRecords, b: FirstTimeRecords) -> Bool {
        a.entries.count == b.entries.count && zip(a.entries, b.entries).allSatisfy {
            exactlyEqual($0.key, $1.key) && $0.record == $1.record
        }
    }

    /// One line per record.
    public var description: String {
        entries.map { "\"\($0.key)\": \($0.record)" }.joined(separator: "\n")
    }
}

/// The keys of a list of entries as UTF-8 bytes, copied once into one buffer, and their order.
///
/// Comparing two `String`s by bytes reaches each string's storage (`withUTF8`) and retains
/// both for every comparison, which made sorting the keys of an archive written in an
/// archiver's hash order a large share of `ycft dump` (docs/performance.md). Here a comparison
/// is a loop over two ranges of one buffer, eight bytes at a time: the order of `utf8Precedes`.
struct KeyOrder {
    /// Every key's bytes, one after another, then eight zero bytes, so the buffer is never empty
    /// and a word can be loaded from anywhere in a key.
    private var bytes: [UInt8] = []
    /// Key i is `bytes[starts[i] ..< starts[i + 1]]`.
    private var starts: [Int] = [0]
    let count: Int

    init(_ entries: borrowing [(key: String, record: FirstTimeRecord)]) {
        count = entries.count
        var total = 8
        for i in 0..<count { total += entries[i].key.utf8.count }
        starts.reserveCapacity(count + 1)
        bytes = [UInt8](unsafeUninitializedCapacity: total) { buffer, initialized in
            // unreachable: the capacity is at least 8 bytes, so the buffer has an address
            guard let base = buffer.baseAddress else { return }
            var at = 0
            func copy(_ utf8: UnsafeBufferPointer<UInt8>) {
                // unreachable: `total` counted every key's bytes, and a non-empty key's UTF-8 has an address (an empty
                // one copies nothing)
                guard let source = utf8.baseAddress, at + utf8.count <= total else { return }
                (base + at).initialize(from: source, count: utf8.count)
                at += utf8.count
            }
            for i in 0..<count {
                // In place when the string has its UTF-8 at hand, as a native string does.
                // unreachable: a native String always has contiguous UTF-8 (no bridged strings on Linux); kept for
                // NSString-backed keys on Apple platforms
                if entries[i].key.utf8.withContiguousStorageIfAvailable(copy) == nil {
                    var key = entries[i].key
                    key.withUTF8(copy)
                }
                starts.append(at)
            }
            (base + at).initialize(repeating: 0, count: total - at)
            initialized = total
        }
    }

    /// -1, 0 or 1 as key `i` sorts before, equal to or after key `j` by bytes, the first
    /// `skip` of which both keys are known to share (when both are that long).
    @inline(__always)
    private static func compare(_ base: UnsafeRawPointer, _ starts: UnsafeBufferPointer<Int>, _ i: Int, _ j: Int, skip: Int = 0) -> Int {
        let a = base + starts[i], b = base + starts[j]
        let countA = starts[i + 1] - starts[i], countB = starts[j + 1] - starts[j]
        let common = min(countA, countB)
        var k = min(skip, common)
        while k + 8 <= common {
            // Big-endian words compare as their bytes do.
            let x = a.loadUnaligned(fromByteOffset: k, as: UInt64.self).bigEndian
            let y = b.loadUnaligned(fromByteOffset: k, as: UInt64.self).bigEndian
            if x != y { return x < y ? -1 : 1 }
            k += 8
        }
        while k < common {
            let x = a.load(fromByteOffset: k, as: UInt8.self), y = b.load(fromByteOffset: k, as: UInt8.self)
            if x != y { return x < y ? -1 : 1 }
            k += 1
        }
        return countA == countB ? 0 : (countA < countB ? -1 : 1)
    }

    /// `body` over the buffer's address and the starts (`otherwise` if the buffer had none,
    /// which the spare bytes after the keys rule out).
    private func withKeys<R>(otherwise: R, _ body: (UnsafeRawPointer, UnsafeBufferPointer<Int>) -> R) -> R {
        bytes.withUnsafeBytes { raw in
            starts.withUnsafeBufferPointer { starts in
                // unreachable: the key bytes end with 8 spare bytes, so the buffer is never empty
                guard let base = raw.baseAddress else { return otherwise }
                return body(base, starts)
            }
        }
    }

    /// Whether the keys are in order already (equal neighbours allowed).
    var isAscending: Bool {
        guard count > 1 else { return true }
        return withKeys(otherwise: true) { base, starts in
            for i in 1..<count where Self.compare(base, starts, i - 1, i) > 0 { return false }
            return true
        }
    }

    /// The keys' indices in order: by bytes, equal keys by index (so the result is a stable
    /// sort's, whatever the algorithm).
    ///
    /// A three-way radix quicksort (Bentley and Sedgewick's multikey quicksort) over seven
    /// bytes at a time: keys that share a prefix are compared on what follows it, not from
    /// their first byte again at every comparison, as gate names sharing `com.example.` are.
    /// A range that stops shrinking falls back to a comparison sort, so no input is quadratic.
    func sortedIndices() -> [Int] {
        var indices = Array(0..<count)
        withKeys(otherwise: ()) { base, starts in
            indices.withUnsafeMutableBufferPointer { indices in
                Self.radixQuicksort(indices, base, starts)
            }
        }
        return indices
    }

    /// Bytes `7 * depth ..< 7 * depth + 7` of key `i` as the top 56 bits of a word, zeros past
    /// the key's end, and how many of them the key has (0...7) in the low byte: two words
    /// compare as those bytes of the two keys do, a key that ends first sorting first.
    @inline(__always)
    private static func word(_ base: UnsafeRawPointer, _ starts: UnsafeBufferPointer<Int>, _ i: Int, _ depth: Int) -> UInt64 {
        let from = starts[i] + 7 * depth
        let present = min(max(starts[i + 1] - from, 0), 7)
        guard present > 0 else { return 0 }
        // The buffer ends with eight spare bytes, so an eight-byte load never leaves it.
        let bytes = base.loadUnaligned(fromByteOffset: from, as: UInt64.self).bigEndian
        return bytes & (UInt64.max << (64 - 8 * present)) | UInt64(present)
    }

    /// Sorts `indices` by key bytes, equal keys by index.
    private static func radixQuicksort(_ indices: UnsafeMutableBufferPointer<Int>, _ base: UnsafeRawPointer,
                                       _ starts: UnsafeBufferPointer<Int>) {
        // The word of the key at each position at its range's depth, moved with its index, so
        // each key's word is read once a depth rather than once a partition.
        var words = [UInt64](repeating: 0, count: indices.count)
        words.withUnsafeMutableBufferPointer { words in
            // Ranges still to sort: every key in one shares its first 7 * depth bytes; `fresh`:
            // its words are at that depth. `budget` is how many more partitions may leave a
            // range at the same depth before it is handed to the comparison sort (twice the bits
            // of the count, as introsort allows).
            let budget = 2 * (Int.bitWidth - indices.count.leadingZeroBitCount) + 2
            var ranges: [(low: Int, high: Int, depth: Int, budget: Int, fresh: Bool)] = [(0, indices.count, 0, budget, false)]
            while let range = ranges.popLast() {
                let (low, high, depth, left, fresh) = range
                if high - low < 2 { continue }
                if high - low <= 8 || left == 0 {
                    var run = UnsafeMutableBufferPointer(rebasing: indices[low..<high])
                    // Keys in a range at `depth` share their first `7 * depth` bytes.
                    run.sort { i, j in
                        let c = compare(base, starts, i, j, skip: 7 * depth)
                        return c != 0 ? c < 0 : i < j
                    }
                    continue
                }
                if !fresh {
                    for k in low..<high { words[k] = word(base, starts, indices[k], depth) }
                }
                let a = words[low], b = words[(low + high) / 2], c = words[high - 1]
                let pivot = max(min(a, b), min(max(a, b), c))
                // Dijkstra's three-way partition: [low, less) below the pivot, [less, i) equal
                // to it, [more, high) above it.
                var less = low, i = low, more = high
                while i < more {
                    let w = words[i]
                    if w < pivot {
                        indices.swapAt(less, i)
                        words.swapAt(less, i)
                        less += 1
                        i += 1
                    } else if w > pivot {
                        more -= 1
                        indices.swapAt(i, more)
                        words.swapAt(i, more)
                    } else {
                        i += 1
                    }
                }
                ranges.append((low, less, depth, left - 1, true))
                ranges.append((more, high, depth, left - 1, true))
                if pivot & 0xFF == 7 {
                    // Seven more equal bytes and the keys go on: sort the run on the next seven.
                    ranges.append((less, more, depth + 1, budget, false))
                } else {
                    // The keys end here, all equal: by index, as a stable sort leaves them.
                    var run = UnsafeMutableBufferPointer(rebasing: indices[less..<more])
                    run.sort()
                }
            }
        }
    }

    /// The positions, in `order` (the indices in sorted order; nil: the keys' own order), whose
    /// key is the same bytes as the one before.
    func repeatedPositions(_ order: [Int]?) -> [Int] {
        guard count > 1 else { return [] }
        return withKeys(otherwise: []) { base, starts in
            var repeated: [Int] = []
            for position in 1..<count {
                let previous = order?[position - 1] ?? position - 1, this = order?[position] ?? position
                // Keys of different lengths differ: most neighbours are told apart there.
                if starts[previous + 1] - starts[previous] == starts[this + 1] - starts[this],
                   Self.compare(base, starts, previous, this) == 0 {
                    repeated.append(position)
                }
            }
            return repeated
        }
    }

    /// Rearranges `entries` so that position k holds the entry that was at `permutation[k]`,
    /// by moves along the permutation's cycles (no entry copied, retained or released);
    /// `permutation` is left as the identity.
    static func apply(_ permutation: inout [Int], to entries: inout [(key: String, record: FirstTimeRecord)]) {
        entries.withUnsafeMutableBufferPointer { buffer in
            // unreachable: sortingKeys(_:) applies a permutation of the entries, only when not ascending (two or more)
            guard let base = buffer.baseAddress, permutation.count == buffer.count else { return }
            for start in permutation.indices where permutation[start] != start {
                // Along the cycle through `start`, each entry moves into the place before it.
                let held = (base + start).move()
                var j = start
                while permutation[j] != start {
                    let next = permutation[j]
                    (base + j).moveInitialize(from: base + next, count: 1)
                    permutation[j] = j
                    j = next
                }
                (base + j).initialize(to: held)
                permutation[j] = j
            }
        }
    }
}
