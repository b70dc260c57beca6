import Testing
import FirstTimeArchive
import FirstTimeCore
import Plist
import PlistCore
import TestSupport

/// Linux Foundation treats canonically equivalent keys as one, and collapses dates `0.0` and
/// `-0.0` into one value when both occur in an archive; Apple and ycft keep them apart. Compare
/// with the oracle only on records without such pairs (ycft's own round trips cover them).
let oracleSafeRecords = records([
    ("onboarding.v1", "2.1.0", 757_414_800.123456),
    ("é", nil, 0.5),
    ("neg-zero", "1.0", -0.0),
    ("", "", -978_307_200.0),
    (String(repeating: "long-key/", count: 500), "1.0.0", 1e15),
    ("sub-µs", "1.0", 1.000_000_000_1),
    ("largest", nil, .greatestFiniteMagnitude),
    ("no-time", "3", nil),
    ("nothing", nil, nil),
    ("emoji 😀", "ß", -1.5),
    ("1.0", "1.0", 100),
])

@Suite(.serialized) struct LinuxFoundationOracle {
    @Test(arguments: PlistFormat.allCases)
    func acceptsWhatYcftWrites(_ format: PlistFormat) throws {
        let bytes = try LegacyArchive.encode(oracleSafeRecords, format: format)
        let decoded = try oracleDecode(bytes)
        #expect(decoded.records == oracleSafeRecords)
        #expect(decoded.root == "NSMutableDictionary")
        #expect(decoded.group == "NSMutableDictionary")
    }

    @Test func acceptsAnEmptyGroup() throws {
        let decoded = try oracleDecode(LegacyArchive.encode(FirstTimeRecords(), format: .binary))
        #expect(decoded.records.count == 0)
        #expect(decoded.group == "NSMutableDictionary")
    }

    @Test func ycftDecodesWhatLinuxFoundationWrites() throws {
        let bytes = try oracleEncode(oracleSafeRecords)
        #expect(try ArchiveReader.decode(bytes) == oracleSafeRecords)
    }

    @Test func ycftDecodesLinuxFoundationImmutableGroup() throws {
        let bytes = try oracleEncode(oracleSafeRecords, groupClass: "NSDictionary")
        #expect(try oracleDecode(bytes).group == "NSDictionary")
        #expect(try ArchiveReader.decode(bytes) == oracleSafeRecords)
    }

    /// `NSDate(coder:)` reads `decodeDouble(forKey: "NS.time")`: Linux Foundation answers an
    /// integer with `Double(n)` (rounded when no double holds it) and a missing key with 0.0,
    /// as ycft reads the first two (rule `time-not-real`, a warning) and says of the third
    /// (`time-type`, refused).
    @Test func readsAnIntegerOrMissingTimeAsYcftDoes() throws {
        func archive(_ date: PlistValue) -> [UInt8] {
            var objects = appleLayoutOneKey
            objects[7] = date
            return AppleStyleBinaryWriter.write(archiveValue(objects))
        }
        let integer = archive(object([("NS.time", .integer(.signed(2))), ("$class", .uid(8))]))
        let missing = archive(object([("$class", .uid(8))]))
        let inexact = archive(object([("NS.time", .integer(.signed(1 << 53 + 1))), ("$class", .uid(8))]))
        #expect(try oracleDecode(integer).records == records([("k", "1.2.3", 2.0)]))
        #expect(try ArchiveReader.decode(integer) == records([("k", "1.2.3", 2.0)]))
        #expect(try oracleDecode(missing).records == records([("k", "1.2.3", 0.0)]))
        #expect(try ArchiveReader.decode(missing) == records([("k", "1.2.3", 0.0)]))
        #expect(try oracleDecode(inexact).records == records([("k", "1.2.3", 9_007_199_254_740_992.0)]))
        #expect(throws: FirstTimeError.self) { try ArchiveReader.decode(inexact) }
    }

    @Test func foreignArchiveRoundTripsThroughDumpAndPack() throws {
        // Produced by a decoder we did not write, through ycft's JSON, back to that decoder.
        let foreign = try oracleEncode(oracleSafeRecords)
        let json = RecordsFormat.jsonText(try ArchiveReader.decode(foreign))
        let repacked = try LegacyArchive.encode(RecordsFormat.records(fromJSON: Array(json.utf8)), format: .binary)
        #expect(try oracleDecode(repacked).records == oracleSafeRecords)
    }
}
