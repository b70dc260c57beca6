import Foundation
import Testing
import FirstTimeArchive
import FirstTimeCore
import Plist
import PlistCore
import TestSupport

/// The archive written object by object (`LegacyArchive.encode(_:format: .binary)`) is byte for
/// byte the archive value tree written by the binary writer, and fails the same way.
@Suite struct ArchiveStreamEncoderTests {
    static func viaTree(_ records: FirstTimeRecords) throws -> [UInt8] {
        try PropertyList.write(LegacyArchive.encode(records), format: .binary)
    }

    @Test func sameBytesForEveryDataset() throws {
        let valid = TestPaths.fixtures.appendingPathComponent("valid/ycft")
        var checked = 0
        for name in try FileManager.default.contentsOfDirectory(atPath: valid.path).sorted() where name.hasSuffix(".json") {
            guard let records = try? RecordsFormat.records(fromJSON: [UInt8](try Data(contentsOf: valid.appendingPathComponent(name)))) else { continue }
            #expect(try LegacyArchive.encode(records, format: .binary) == Self.viaTree(records), "\(name)")
            checked += 1
        }
        #expect(checked >= 7)
    }

    @Test func sameBytesForRandomRecords() throws {
        var random = SplitMix64(seed: 2026)
        let versions: [String?] = [nil, "1.0", "2.0.1", "é", "e\u{301}", "😀", ""]
        let times: [Double?] = [nil, 0, -0.0, .nan, .infinity, -.infinity, 757_414_800.123456, -1e300, .leastNonzeroMagnitude]
        let keyParts = ["gate", "é", "e\u{301}", "中文", "😀", "x", "long-key-long-key-long-key", ""]
        for round in 0..<300 {
            let count = round < 20 ? round : Int(random.next() % 300)
            var entries: [(key: String, record: FirstTimeRecord)] = []
            var seen = Set<[UInt8]>()
            for i in 0..<count {
                let key = keyParts[Int(random.next() % UInt64(keyParts.count))] + "\(i % 7 == 0 ? "" : String(random.next() % 1000))"
                guard seen.insert(Array(key.utf8)).inserted else { continue }
                let time = random.next() % 3 == 0 ? Double(bitPattern: random.next()) : times[Int(random.next() % UInt64(times.count))]
                entries.append((key, FirstTimeRecord(lastVersion: versions[Int(random.next() % UInt64(versions.count))], lastTime: time)))
            }
            let records = try FirstTimeRecords(entries)
            #expect(try LegacyArchive.encode(records, format: .binary) == Self.viaTree(records), "round \(round)")
        }
        // Big enough for 2-byte references and offsets.
        let many = try FirstTimeRecords((0..<5_000).map { ("gate.\($0)", FirstTimeRecord(lastVersion: "v\($0 % 13)", lastTime: Double($0))) })
        #expect(try LegacyArchive.encode(many, format: .binary) == Self.viaTree(many))
    }

    @Test func aNulFailsWhereItIs() throws {
        for records in [try FirstTimeRecords([("a", FirstTimeRecord()), ("b\u{0}c", FirstTimeRecord())]),
                        try FirstTimeRecords([("a", FirstTimeRecord(lastVersion: "1\u{0}"))])] {
            let expected = Result { () throws(PlistError) in try Self.viaTreeTyped(records) }
            guard case let .failure(error) = expected else { Issue.record("the tree path wrote a NUL"); continue }
            #expect(throws: FirstTimeError.plist(error)) { try LegacyArchive.encode(records, format: .binary) }
        }
    }

    static func viaTreeTyped(_ records: FirstTimeRecords) throws(PlistError) -> [UInt8] {
        try PropertyList.write(LegacyArchive.encode(records), format: .binary)
    }
}
