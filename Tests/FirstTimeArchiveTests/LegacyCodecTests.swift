import Testing
import FirstTimeArchive
import FirstTimeCore
import KeyedArchive
import Plist
import PlistCore
import TestSupport

/// Records that exercise every exactness rule.
let hardRecords = records([
    ("onboarding.v1", "2.1.0", 757_414_800.123456),
    ("é", nil, 0.0),
    ("e\u{301}", "1.0", -0.0),
    ("", "", -978_307_200.0),
    (String(repeating: "long-key/", count: 500), "1.0.0", 1e15),
    ("sub-µs", "1.0", 1.000_000_000_1),
    ("largest", nil, .greatestFiniteMagnitude),
    ("smallest", nil, .leastNonzeroMagnitude),
    ("no-time", "3", nil),
    ("nothing", nil, nil),
    ("emoji 😀", "ß", -1.5),
    ("1.0", "1.0", 100),
])

@Suite struct RoundTrip {
    @Test(arguments: PlistFormat.allCases)
    func recordsSurviveExactly(_ format: PlistFormat) throws {
        let bytes = try LegacyArchive.encode(hardRecords, format: format)
        let decoded = try ArchiveReader.decode(bytes)
        #expect(decoded == hardRecords)
        #expect(decoded.count == 12)
        #expect(decoded["e\u{301}"]?.lastTime?.sign == .minus)
    }

    @Test func nonFiniteTimesRoundTrip() throws {
        let input = records([("nan", nil, .nan), ("inf", nil, .infinity), ("-inf", nil, -.infinity)])
        let decoded = try ArchiveReader.decode(LegacyArchive.encode(input, format: .binary))
        #expect(decoded == input)
    }

    @Test func zeroRecords() throws {
        let decoded = try ArchiveReader.decode(LegacyArchive.encode(FirstTimeRecords(), format: .binary))
        #expect(decoded.count == 0)
    }

    @Test func generatedRecordsRoundTrip() throws {
        var generator = Generator(seed: 7)
        for _ in 0..<50 {
            let input = generator.records(count: Int(generator.next() % 20))
            #expect(try ArchiveReader.decode(LegacyArchive.encode(input, format: .binary)) == input)
        }
    }

    @Test func largeLibplistArchiveWithThreeByteOffsetsAndReferences() throws {
        // Over 65,535 objects and 64 KiB: libplist writes 3-byte references and offsets.
        var input = FirstTimeRecords()
        for i in 0..<25_000 { input["gate.\(i)"] = FirstTimeRecord(lastVersion: "\(i % 7)", lastTime: Double(i) / 3) }
        let bytes = try LibplistWriter.write(LegacyArchive.encode(input))
        #expect(bytes[bytes.count - 26] == 3)
        #expect(bytes[bytes.count - 25] == 3)
        #expect(try ArchiveReader.decode(bytes) == input)
    }

    @Test func outputIsDeterministic() throws {
        #expect(try LegacyArchive.encode(hardRecords, format: .binary) == LegacyArchive.encode(hardRecords, format: .binary))
    }
}

@Suite struct AppleLayout {
    @Test func oneKeyMatchesTheReferenceLayout() throws {
        let encoded = LegacyArchive.encode(records([("k", "1.2.3", 2.5)]))
        #expect(encoded == archiveValue(appleLayoutOneKey))
    }

    @Test func threeKeysPutEveryKeyBeforeTheRecords() throws {
        let encoded = LegacyArchive.encode(records([("b", "1.0", 1), ("a", nil, 2), ("c", "1.0", nil)]))
        let expected: [PlistValue] = [
            .string("$null"),
            dictObject(keys: [2], values: [3], classUID: 15),
            .string("sharedGroup"),
            dictObject(keys: [4, 5, 6], values: [7, 11, 14], classUID: 15),
            .string("a"), .string("b"), .string("c"),
            object([("lastVersion", .uid(0)), ("lastTime", .uid(8)), ("$class", .uid(10))]),
            object([("NS.time", .real(2)), ("$class", .uid(9))]),
            classObject(["NSDate", "NSObject"]),
            classObject(["YCFirstTimeObject", "NSObject"]),
            object([("lastVersion", .uid(12)), ("lastTime", .uid(13)), ("$class", .uid(10))]),
            .string("1.0"),
            object([("NS.time", .real(1)), ("$class", .uid(9))]),
            // Equal version strings share one object, as one NSString instance would on Apple.
            object([("lastVersion", .uid(12)), ("lastTime", .uid(0)), ("$class", .uid(10))]),
            classObject(["NSMutableDictionary", "NSDictionary", "NSObject"]),
        ]
        #expect(encoded == archiveValue(expected))
    }

    @Test func envelopeKeysAndTop() throws {
        let encoded = LegacyArchive.encode(records([("k", nil, nil)]))
        #expect(encoded.dictionaryValue?.entries.map(\.key) == ["$version", "$objects", "$archiver", "$top"])
        let archive = try KeyedArchive(plist: encoded)
        #expect(encoded.dictionaryValue?["$archiver"] == .string("NSKeyedArchiver"))
        #expect(encoded.dictionaryValue?["$version"] == .integer(.signed(100_000)))
        #expect(archive.top["root"] == .uid(1))
    }
}

/// A small deterministic record generator.
struct Generator {
    var random: SplitMix64
    init(seed: UInt64) { random = SplitMix64(seed: seed) }
    mutating func next() -> UInt64 { random.next() }
    mutating func string() -> String {
        let alphabet: [String] = ["a", "b", ".", "é", "e\u{301}", "😀", "ß", "1", " ", "/", "中"]
        return (0..<Int(next() % 8)).map { _ in alphabet[Int(next() % UInt64(alphabet.count))] }.joined()
    }
    mutating func records(count: Int) -> FirstTimeRecords {
        var out = FirstTimeRecords()
        for _ in 0..<count {
            let version = next() % 3 == 0 ? nil : string()
            let time: Double? = next() % 4 == 0 ? nil : Double(bitPattern: next() & 0x7FEF_FFFF_FFFF_FFFF) * (next() % 2 == 0 ? 1 : -1)
            out[string()] = FirstTimeRecord(lastVersion: version, lastTime: time)
        }
        return out
    }
}

/// A NUL in a key or a version (libplist stores C strings) fails the binary encoding with the
/// writer's own error, naming where it is.
@Suite struct EncodingFailures {
    @Test func aNulFailsWhereItIs() throws {
        for records in [try FirstTimeRecords([("a", FirstTimeRecord()), ("b\u{0}c", FirstTimeRecord())]),
                        try FirstTimeRecords([("a", FirstTimeRecord(lastVersion: "1\u{0}"))])] {
            let expected = Result { () throws(PlistError) in try PropertyList.write(LegacyArchive.encode(records), format: .binary) }
            guard case let .failure(error) = expected else { Issue.record("the binary writer wrote a NUL"); continue }
            #expect(throws: FirstTimeError.plist(error)) { try LegacyArchive.encode(records, format: .binary) }
        }
    }
}

/// A record's time as a `Date` is the same double, bit for bit, whatever it is.
@Suite struct RecordDates {
    @Test(arguments: [0.0, -0.0, 757_414_800.123456, -220_892_399.876544, .leastNonzeroMagnitude, 1e300, -.infinity])
    func lastDateHoldsTheExactSeconds(_ seconds: Double) {
        let date = FirstTimeRecord(lastVersion: "1", lastTime: seconds).lastDate
        #expect(date?.timeIntervalSinceReferenceDate.bitPattern == seconds.bitPattern)
        #expect(FirstTimeRecord(lastVersion: "1", lastTime: nil).lastDate == nil)
    }
}
