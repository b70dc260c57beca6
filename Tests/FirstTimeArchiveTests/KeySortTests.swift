import Testing
import FirstTimeArchive
import FirstTimeCore
import PlistCore
import TestSupport

/// `FirstTimeRecords.sortingKeys` sorts by bytes copied once (a radix quicksort over seven bytes
/// at a time); it must give exactly what the stable sort comparing `String`s with
/// `utf8Precedes` gave: the same order, the first of equal keys kept, the same duplicates.
@Suite struct KeySortAgreesWithTheStringComparison {
    /// Pieces that make keys with shared prefixes of every length around the seven-byte words,
    /// non-ASCII (two, three and four bytes, a combining accent), NUL and DEL, and empty keys.
    static let pieces = ["", "a", "b", "z", "é", "e\u{301}", "\u{0}", "\u{7F}", "\u{80}", "日本", "😀", "\u{10FFFF}",
                         "ab", "abcdefg", "abcdefgh", "com.example.", "com.example.app.", ".v2", "1", "10"]

    /// What the old code returned: a stable sort by `utf8Precedes`, the first of equal keys kept.
    func expected(_ entries: [(key: String, record: FirstTimeRecord)]) -> (entries: [(key: String, record: FirstTimeRecord)], duplicates: [String]) {
        let sorted = entries.enumerated().sorted { a, b in
            if utf8Precedes(a.element.key, b.element.key) { return true }
            if utf8Precedes(b.element.key, a.element.key) { return false }
            return a.offset < b.offset
        }.map(\.element)
        var unique: [(key: String, record: FirstTimeRecord)] = [], duplicates: [String] = []
        for entry in sorted {
            if let last = unique.last, exactlyEqual(last.key, entry.key) { duplicates.append(entry.key) } else { unique.append(entry) }
        }
        return (unique, duplicates)
    }

    func check(_ keys: [String], _ label: String) {
        // Each record remembers where its entry was, so the kept one of equal keys is checked too.
        let entries = keys.enumerated().map { ($0.element, FirstTimeRecord(lastTime: Double($0.offset))) }
        let (records, duplicates) = FirstTimeRecords.sortingKeys(entries)
        let want = expected(entries)
        #expect(records.entries.count == want.entries.count, "\(label): count")
        let same = zip(records.entries, want.entries).allSatisfy { exactlyEqual($0.key, $1.key) && $0.record == $1.record }
        #expect(same, "\(label): order or kept entry differs")
        #expect(duplicates.count == want.duplicates.count && zip(duplicates, want.duplicates).allSatisfy { exactlyEqual($0, $1) },
                "\(label): duplicates differ")
    }

    @Test func randomKeysOfEverySize() {
        var random = SplitMix64(seed: 0x50_27_2026)
        for size in [0, 1, 2, 3, 7, 12, 13, 40, 200, 1_000, 5_000] {
            for round in 0..<4 {
                let keys = (0..<size).map { _ in
                    (0..<Int(random.next() % 7)).map { _ in Self.pieces[Int(random.next() % UInt64(Self.pieces.count))] }.joined()
                }
                check(keys, "size \(size), round \(round)")
            }
        }
    }

    @Test func sortedAndReversedInput() {
        var random = SplitMix64(seed: 7)
        let keys = (0..<3_000).map { i in "com.example.app.gate-\(i % 997).\(random.next() % 5)" }
        let sorted = keys.sorted(by: utf8Precedes)
        check(sorted, "sorted")
        check(sorted.reversed(), "reversed")
    }

    @Test func manyEqualKeysAndLongSharedPrefixes() {
        let prefix = String(repeating: "com.example.", count: 20)
        check(Array(repeating: "same", count: 2_000), "all equal")
        check((0..<2_000).map { "\(prefix)\($0 % 3)" }, "three keys after a long prefix")
        check((0..<2_000).map { String(repeating: "a", count: $0 % 50) }, "every length of one letter")
        check((0..<2_000).map { "\(prefix)\(String(repeating: "\u{0}", count: $0 % 9))" }, "NUL tails")
    }
}
