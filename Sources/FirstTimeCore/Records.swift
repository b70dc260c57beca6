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

    /// Exact equality.
    public static func == (a: FirstTimeRecord, b: FirstTimeRecord) -> Bool {
        switch (a.lastVersion, b.lastVersion) {
        case (nil, nil): break
        case let (x?, y?) where exactlyEqual(x, y): break
        default: return false
        }
        switch (a.lastTime, b.lastTime) {
        case (nil, nil): return true
        case let (x?, y?): return x.bitPattern == y.bitPattern
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
    /// One block key and its record.
    public typealias Entry = (key: String, record: FirstTimeRecord)

    /// The entries, sorted by the UTF-8 bytes of their keys.
    public private(set) var entries: [Entry]

    /// No records.
    public init() { entries = [] }

    /// Creates records from entries in any order.
    /// - Throws: ``FirstTimeError/duplicateKey(_:at:)`` when two entries have the same key.
    public init(_ entries: [Entry]) throws(FirstTimeError) {
        let (records, duplicates) = Self.sortingKeys(entries)
        if let first = duplicates.first { throw .duplicateKey(first, at: .key("records")) }
        self = records
    }

    /// Entries already sorted by key, without duplicates.
    @usableFromInline package init(sorted: [Entry]) { entries = sorted }

    /// The entries sorted by key, the first of equal keys kept, and every key that came again.
    @usableFromInline package static func sortingKeys(_ entries: [Entry]) -> (records: FirstTimeRecords, duplicates: [String]) {
        // Archives ycft writes are in key order already: one pass checks, and no copy is made.
        var inOrder = true
        for i in entries.indices.dropFirst() where Self.precedes(entries[i].key, entries[i - 1].key) {
            inOrder = false
            break
        }
        let sorted = inOrder ? entries : entries.sorted { Self.precedes($0.key, $1.key) }
        var duplicates: [String] = []
        for i in sorted.indices.dropFirst() where exactlyEqual(sorted[i - 1].key, sorted[i].key) {
            duplicates.append(sorted[i].key)
        }
        guard !duplicates.isEmpty else { return (FirstTimeRecords(sorted: sorted), []) }
        var unique: [Entry] = []
        for entry in sorted where unique.last.map({ !exactlyEqual($0.key, entry.key) }) ?? true { unique.append(entry) }
        return (FirstTimeRecords(sorted: unique), duplicates)
    }

    /// Whether `a` sorts before `b`: by UTF-8 bytes.
    public static func precedes(_ a: String, _ b: String) -> Bool {
        utf8Precedes(a, b)
    }

    /// The number of records.
    public var count: Int { entries.count }

    /// Iterates the entries in key order.
    public func makeIterator() -> IndexingIterator<[Entry]> { entries.makeIterator() }

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
