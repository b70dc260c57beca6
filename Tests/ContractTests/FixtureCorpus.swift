import Foundation
import FirstTimeArchive
import FirstTimeCore
import KeyedArchive
import OrderedJSON
import Plist
import PlistCore
import TestSupport

/// What a fixture must produce.
enum Expectation {
    /// Decodes to exactly these records.
    case records(FirstTimeRecords)
    /// Fails to decode with exactly this message.
    case error(String)
}

/// One generated fixture: how its bytes are made and what it locks.
struct FixtureDefinition {
    /// Path under `Fixtures/`.
    let file: String
    /// Who wrote the bytes: `ycft`, `apple-order`, `linux-foundation`, `xml`, `defaults`, `invalid`.
    let producer: String
    /// One line: what the fixture locks.
    let purpose: String
    let expectation: Expectation
    /// Whether a normal run regenerates the bytes and compares them (false for bytes made by
    /// Linux Foundation, which may change between toolchains; those are only decoded).
    let reproducible: Bool
    /// The `ycft verify` rule ids it must produce, in order (empty: it passes).
    var rules: [String] = []
    /// Whether a golden of `ycft dump --raw` sits beside it (`NAME.raw.json`).
    var rawGolden = false
    let make: () throws -> [UInt8]

    /// The `dump --raw` golden beside the fixture, when it has one.
    var rawFile: String? { rawGolden ? String(file.dropLast(".plist".count)) + ".raw.json" : nil }

    /// The expected-records file beside the fixture, for valid fixtures.
    var recordsFile: String? {
        guard case .records = expectation else { return nil }
        return String(file.dropLast(".plist".count)) + ".json"
    }
}

/// The generated part of the corpus. Hand-added fixtures live only in `manifest.json`.
enum FixtureCorpus {
    static let dictChain = ["NSMutableDictionary", "NSDictionary", "NSObject"]

    static var thousand: FirstTimeRecords {
        var out = FirstTimeRecords()
        for i in 0..<1000 {
            let version: String? = i % 7 == 0 ? nil : "\(i % 5).\(i % 3).0"
            let time: Double? = i % 11 == 0 ? nil : 757_414_800 + Double(i) * 86_400.125
            out["gate.\(i)"] = FirstTimeRecord(lastVersion: version, lastTime: time)
        }
        return out
    }

    static let unicodeKeys = records([
        ("é", "1", 1), ("e\u{301}", "2", 2), ("😀 party", "3", 3), ("中文键", "4", 4), ("", "5", 5),
        (String(repeating: "very-long-key-", count: 150), "6", 6), ("tab\tand\nnewline", "7", 7),
    ])
    static let versions = records([("a", "1.0", 10), ("b", "1.0.0", 10), ("c", "", 10), ("d", "2.0 (build 17)", 10)])
    static let times = records([
        ("zero", "1", 0.0), ("negative-zero", "1", -0.0), ("before-2001", "1", -978_307_200.5),
        ("far-future", "1", 1e15), ("sub-microsecond", "1", 757_414_800.000_000_1), ("largest", "1", .greatestFiniteMagnitude),
        ("smallest", "1", .leastNonzeroMagnitude),
    ])
    static let nilFields = records([("nil-version", nil, 5), ("nil-time", "1.0", nil), ("both-nil", nil, nil)])
    static let three = records([("onboarding.v1", "2.1.0", 757_414_800.123456), ("rate.prompt", "2.0.0", 750_000_000), ("whats-new", nil, nil)])

    /// Apple's layout for records, laid out by hand and written in CoreFoundation's manner.
    static func appleGraph(rootClass: [String] = dictChain, groupClass: [String] = dictChain) -> [PlistValue] {
        var objects = appleLayoutOneKey
        if rootClass != dictChain || groupClass != dictChain {
            objects[10] = classObject(groupClass)
            objects.append(classObject(rootClass))
            objects[1] = dictObject(keys: [2], values: [3], classUID: 11)
        }
        return objects
    }

    static func apple(_ objects: [PlistValue]) -> [UInt8] { AppleStyleBinaryWriter.write(archiveValue(objects)) }

    static func withObject(_ index: Int, _ value: PlistValue) -> [PlistValue] {
        var objects = appleLayoutOneKey
        objects[index] = value
        return objects
    }

    static let one = records([("k", "1.2.3", 2.5)])

    /// A defaults file: the archive among unrelated keys of every plist type.
    static func defaults(_ archive: [UInt8], format: PlistFormat) throws -> [UInt8] {
        try PropertyList.write(defaultsValue(archive, format: format), format: format)
    }

    /// The defaults dictionary around an archive (dates whole seconds for XML).
    static func defaultsValue(_ archive: [UInt8], format: PlistFormat) -> PlistValue {
        PlistValue.dictionary(PlistDictionary([
            ("AppleLanguages", .array([.string("en"), .string("fr")])),
            ("LaunchCount", .integer(.signed(42))),
            ("NegativeOffset", .integer(.signed(-7))),
            ("HugeCounter", .integer(.unsigned(UInt64.max))),
            ("Ratio", .real(-0.0)),
            ("Volume", .real(0.1)),
            ("Enabled", .bool(true)),
            ("InstallDate", .date(format == .binary ? 757_414_800.5 : 757_414_800)),
            ("Token", .data([0xDE, 0xAD, 0xBE, 0xEF])),
            ("YCFirstTime", .data(archive)),
            ("Nested", .dictionary(PlistDictionary([("inner", .array([.bool(false), .dictionary(PlistDictionary())]))]))),
            ("Name", .string("Zoë")),
        ]))
    }

    static func ycft(_ file: String, _ purpose: String, _ records: FirstTimeRecords, format: PlistFormat = .binary) -> FixtureDefinition {
        FixtureDefinition(file: "valid/ycft/\(file)", producer: "ycft", purpose: purpose, expectation: .records(records),
                          reproducible: true, make: { try LegacyArchive.encode(records, format: format) })
    }

    static func invalid(_ file: String, _ purpose: String, _ error: String, rule: String,
                        _ make: @escaping () throws -> [UInt8]) -> FixtureDefinition {
        FixtureDefinition(file: "invalid/\(file)", producer: "invalid", purpose: purpose, expectation: .error(error),
                          reproducible: true, rules: [rule], make: make)
    }

    /// Returns the definition with a `dump --raw` golden.
    static func withRaw(_ definition: FixtureDefinition) -> FixtureDefinition {
        var copy = definition
        copy.rawGolden = true
        return copy
    }

    /// Returns the definition with the verify rules it must produce.
    static func expecting(_ rules: [String], _ definition: FixtureDefinition) -> FixtureDefinition {
        var copy = definition
        copy.rules = rules
        return copy
    }

    static var definitions: [FixtureDefinition] {
        var list: [FixtureDefinition] = [
            ycft("empty.plist", "0 records: an empty NSMutableDictionary group", FirstTimeRecords()),
            withRaw(ycft("one-record.plist", "1 record in the reference layout", one)),
            ycft("three-records.plist", "3 records: all keys before all records, equal versions shared", three),
            ycft("three-records.xml.plist", "the same 3 records written as an XML archive", three, format: .xml),
            ycft("thousand-records.plist", "1,000 records: sizes of offsets and references grow", thousand),
            ycft("nil-fields.plist", "nil version, nil time, and both nil, written as UID 0", nilFields),
            ycft("unicode-keys.plist", "unicode, canonically-equivalent, empty, very long and control-character keys", unicodeKeys),
            ycft("versions.plist", "versions compared exactly: \"1.0\" and \"1.0.0\" differ, empty version kept", versions),
            ycft("times.plist", "times 0.0, -0.0, negative, far future, sub-microsecond, largest and smallest doubles", times),
        ]
        list += [
            FixtureDefinition(file: "valid/apple-order/one-record.plist", producer: "apple-order",
                              purpose: "the reference layout in CoreFoundation's byte order (keys before values, 8-byte reals)",
                              expectation: .records(one), reproducible: true, make: { apple(appleLayoutOneKey) }),
            FixtureDefinition(file: "valid/apple-order/mutable-string-version.plist", producer: "apple-order",
                              purpose: "lastVersion and block key as NSMutableString objects (NS.string)",
                              expectation: .records(one), reproducible: true, make: {
                                  var objects = appleLayoutOneKey
                                  objects[6] = object([("NS.string", .string("1.2.3")), ("$class", .uid(11))])
                                  objects[4] = object([("NS.string", .string("k")), ("$class", .uid(11))])
                                  objects.append(classObject(["NSMutableString", "NSString", "NSObject"]))
                                  return apple(objects)
                              }),
            FixtureDefinition(file: "valid/apple-order/key-equals-version.plist", producer: "apple-order",
                              purpose: "a block key equal to a version string shares one UID (tagged-pointer strings)",
                              expectation: .records(records([("1.2.3", "1.2.3", 2.5)])), reproducible: true, make: {
                                  var objects = appleLayoutOneKey
                                  objects[4] = .string("1.2.3")
                                  objects[5] = object([("lastVersion", .uid(4)), ("lastTime", .uid(7)), ("$class", .uid(9))])
                                  return apple(objects)
                              }),
            FixtureDefinition(file: "valid/apple-order/absent-fields.plist", producer: "apple-order",
                              purpose: "nil fields written as absent coder keys rather than UID 0",
                              expectation: .records(records([("k", nil, nil)])), reproducible: true,
                              make: { apple(withObject(5, object([("$class", .uid(9))]))) }),
            FixtureDefinition(file: "valid/apple-order/hash-order.plist", producer: "apple-order",
                              purpose: "dictionary and coder keys in another order (Apple writes hash order)",
                              expectation: .records(one), reproducible: true, make: {
                                  var objects = appleLayoutOneKey
                                  objects[5] = object([("$class", .uid(9)), ("lastTime", .uid(7)), ("lastVersion", .uid(6))])
                                  objects[1] = object([("$class", .uid(10)), ("NS.objects", .array([.uid(3)])), ("NS.keys", .array([.uid(2)]))])
                                  return apple(objects)
                              }),
            expecting(["group-missing"], FixtureDefinition(file: "valid/apple-order/no-shared-group.plist", producer: "apple-order",
                              purpose: "a root without sharedGroup: zero records (a fresh install)",
                              expectation: .records(FirstTimeRecords()), reproducible: true, make: {
                                  apple([.string("$null"), dictObject(keys: [], values: [], classUID: 2), classObject(dictChain)])
                              })),
            expecting(["root-immutable"], FixtureDefinition(
                file: "valid/apple-order/immutable-root.plist", producer: "apple-order",
                purpose: "NSDictionary root: decodes, but YCFirstTime would reset all state (verify: error)",
                expectation: .records(one), reproducible: true,
                make: { apple(appleGraph(rootClass: ["NSDictionary", "NSObject"])) })),
            expecting(["group-immutable"], FixtureDefinition(
                file: "valid/apple-order/immutable-group.plist", producer: "apple-order",
                purpose: "NSDictionary group: decodes, but the next save drops other keys (verify: error)",
                expectation: .records(one), reproducible: true,
                make: { apple(appleGraph(groupClass: ["NSDictionary", "NSObject"])) })),
            expecting(["class-chain", "record-unknown-key"], FixtureDefinition(
                file: "valid/apple-order/unexpected-extras.plist", producer: "apple-order",
                purpose: "a record class without $classes and an extra coder key: decodes, verify warns",
                expectation: .records(one), reproducible: true, make: {
                    var objects = appleLayoutOneKey
                    objects[9] = object([("$classname", .string("YCFirstTimeObject"))])
                    objects[5] = object([("lastVersion", .uid(6)), ("lastTime", .uid(7)), ("runCount", .integer(.signed(3))),
                                         ("$class", .uid(9))])
                    return apple(objects)
                })),
            FixtureDefinition(file: "valid/xml/one-record.xml.plist", producer: "xml",
                              purpose: "the reference layout as an XML archive with CF$UID references",
                              expectation: .records(one), reproducible: true,
                              make: { try PropertyList.write(archiveValue(appleLayoutOneKey), format: .xml) }),
            FixtureDefinition(file: "valid/linux-foundation/three-records.plist", producer: "linux-foundation",
                              purpose: "Linux Foundation's NSKeyedArchiver output, class names fixed up to Apple's",
                              expectation: .records(three), reproducible: false, make: { try oracleEncode(three) }),
            expecting(["group-immutable"], FixtureDefinition(
                file: "valid/linux-foundation/immutable-group.plist", producer: "linux-foundation",
                purpose: "Linux Foundation's natural output: nested group archived as NSDictionary",
                expectation: .records(three), reproducible: false,
                make: { try oracleEncode(three, groupClass: "NSDictionary") })),
            withRaw(FixtureDefinition(file: "valid/defaults/export.binary.plist", producer: "defaults",
                              purpose: "a binary defaults export: the archive among unrelated keys of every plist type",
                              expectation: .records(three), reproducible: true,
                              make: { try defaults(LegacyArchive.encode(three, format: .binary), format: .binary) })),
            FixtureDefinition(file: "valid/defaults/export.apple-order.plist", producer: "defaults",
                              purpose: "a defaults file written in CoreFoundation's manner, not by libplist, holding an Apple-order archive",
                              expectation: .records(one), reproducible: true,
                              make: { AppleStyleBinaryWriter.write(defaultsValue(apple(appleLayoutOneKey), format: .binary)) }),
            FixtureDefinition(file: "valid/defaults/export.xml.plist", producer: "defaults",
                              purpose: "an XML defaults export holding a binary archive as <data>",
                              expectation: .records(three), reproducible: true,
                              make: { try defaults(LegacyArchive.encode(three, format: .binary), format: .xml) }),
        ]
        list += rawDefinitions
        let nonFinite = records([("nan", "1.0", .nan), ("inf", "1.0", .infinity)])
        list.append(FixtureDefinition(file: "invalid/non-finite-time.plist", producer: "invalid",
                                      purpose: "NS.time NaN and +infinity: decodes exactly, but interval gates misfire",
                                      expectation: .records(nonFinite), reproducible: true,
                                      rules: ["time-non-finite", "time-non-finite"],
                                      make: { try LegacyArchive.encode(nonFinite, format: .binary) }))
        // What both Foundations' decodeDouble(forKey: "NS.time") reads: an integer as Double(n),
        // a missing key as 0.0; verify warns (time-not-real), a write stores the real.
        list.append(FixtureDefinition(file: "invalid/time-not-real.plist", producer: "invalid",
                                      purpose: "NS.time holds the integer 2: decodes as 2.0, as both Foundations read it (verify: warning)",
                                      expectation: .records(records([("k", "1.2.3", 2.0)])), reproducible: true, rules: ["time-not-real"],
                                      make: { apple(withObject(7, object([("NS.time", .integer(.signed(2))), ("$class", .uid(8))]))) }))
        list.append(FixtureDefinition(file: "invalid/time-missing.plist", producer: "invalid",
                                      purpose: "an NSDate without NS.time: decodes as 0.0, as both Foundations read it (verify: warning)",
                                      expectation: .records(records([("k", "1.2.3", 0.0)])), reproducible: true, rules: ["time-not-real"],
                                      make: { apple(withObject(7, object([("$class", .uid(8))]))) }))
        let oneKey = { try LegacyArchive.encode(one, format: .binary) }
        list += [
            invalid("truncated.plist", "an archive cut in half",
                    "malformed binary plist: trailer offset size 97 is not between 1 and 8 (at byte 218)", rule: "plist-unreadable") {
                let bytes = try oneKey()
                return Array(bytes.prefix(bytes.count / 2))
            },
            invalid("bad-trailer.plist", "a trailer whose offset size is 9",
                    "malformed binary plist: trailer offset size 9 is not between 1 and 8 (at byte 463)", rule: "plist-unreadable") {
                var bytes = try oneKey()
                bytes[bytes.count - 26] = 9
                return bytes
            },
            invalid("out-of-range-reference.plist", "a bplist object reference past the object count",
                    "malformed binary plist: reference 200 is not below object count 4 (at byte 9)", rule: "plist-unreadable") {
                rawBinaryPlist([[0xA1, 200], [0x51, 0x61], [0x51, 0x62], [0x51, 0x63]])
            },
            invalid("dangling-uid.plist", "lastVersion names UID 99 in an 11-object archive",
                    "$objects[5].lastVersion: UID 99 is outside $objects (11 objects)", rule: "uid-dangling") {
                apple(withObject(5, object([("lastVersion", .uid(99)), ("lastTime", .uid(7)), ("$class", .uid(9))])))
            },
            invalid("uid-cycle.plist", "the group lists itself as a record",
                    "$objects[3].NS.objects[0]: record UID 3 points back to the group that contains it", rule: "uid-cycle") {
                apple(withObject(3, dictObject(keys: [4], values: [3], classUID: 10)))
            },
            invalid("wrong-archiver.plist", "$archiver is NSArchiver",
                    "$archiver: is \"NSArchiver\", expected \"NSKeyedArchiver\"", rule: "envelope-archiver") {
                AppleStyleBinaryWriter.write(archiveValue(appleLayoutOneKey, archiver: "NSArchiver"))
            },
            invalid("wrong-version.plist", "$version is 99999", "$version: is 99999, expected 100000", rule: "envelope-version") {
                AppleStyleBinaryWriter.write(archiveValue(appleLayoutOneKey, version: 99_999))
            },
            // Its `$top` holds `other` instead of `root`: also a key NSKeyedArchiver does not write.
            expecting(["envelope-extra-key", "envelope-root"],
                      invalid("missing-root.plist", "$top has no root", "$top.root: missing $top.root", rule: "envelope-root") {
                var envelope = archiveValue(appleLayoutOneKey).dictionaryValue!
                envelope["$top"] = .dictionary(PlistDictionary([("other", .uid(1))]))
                return AppleStyleBinaryWriter.write(.dictionary(envelope))
            }),
            invalid("wrong-root-class.plist", "the root is an NSArray",
                    "$objects[1]: expected NSMutableDictionary (root), found NSArray", rule: "root-class") {
                var objects = appleLayoutOneKey
                objects.append(classObject(["NSArray", "NSObject"]))
                objects[1] = dictObject(keys: [2], values: [3], classUID: 11)
                return apple(objects)
            },
            invalid("wrong-record-class.plist", "the record class is MyApp.YCFirstTimeObject (a module-qualified name)",
                    "$objects[5]: expected YCFirstTimeObject, found MyApp.YCFirstTimeObject", rule: "record-class") {
                apple(withObject(9, classObject(["MyApp.YCFirstTimeObject", "NSObject"])))
            },
            invalid("wrong-time-type.plist", "lastTime points at a string",
                    "$objects[5].lastTime: expected NSDate, found NSString", rule: "time-type") {
                apple(withObject(5, object([("lastVersion", .uid(6)), ("lastTime", .uid(6)), ("$class", .uid(9))])))
            },
            invalid("wrong-version-type.plist", "lastVersion points at a number",
                    "$objects[5].lastVersion: expected NSString, found NSNumber", rule: "version-type") {
                apple(withObject(6, .integer(.signed(123))))
            },
            invalid("time-inexact-integer.plist", "NS.time holds 2^53+1, an integer no double holds exactly",
                    "$objects[7].NS.time: NS.time is the integer 9007199254740993, which no double holds exactly "
                        + "(YCFirstTime reads it rounded, as 9007199254740992.0)", rule: "time-type") {
                apple(withObject(7, object([("NS.time", .integer(.signed(1 << 53 + 1))), ("$class", .uid(8))])))
            },
            invalid("nul-in-key.plist", "a block key with an embedded NUL (libplist would cut it to \"nul\")",
                    "string contains NUL (at object 0 > object 6 > object 23): libplist would change it silently", rule: "string-unrepresentable") {
                apple(withObject(4, .string("nul\u{0}inside")))
            },
            invalid("lone-surrogate-key.plist", "a UTF-16 dictionary key with a lone surrogate (libplist would drop it)",
                    "string has a lone surrogate (at object 0 > object 1): libplist would change it silently", rule: "string-unrepresentable") {
                // A one-entry dictionary whose key is UTF-16 "k\u{D800}k".
                rawBinaryPlist([[0xD1, 0x01, 0x02], [0x63, 0x00, 0x6B, 0xD8, 0x00, 0x00, 0x6B], [0x51, 0x76]])
            },
        ]
        return list
    }

    /// Archives that are not YCFirstTime archives, for `ycft dump --raw`: every known class,
    /// unknown classes, cycles, shared objects, non-string keys, ordered sets, XML.
    static var rawDefinitions: [FixtureDefinition] {
        func raw(_ file: String, _ purpose: String, error: String, rules: [String], format: PlistFormat = .binary,
                 _ objects: [PlistValue], root: UInt64 = 1) -> FixtureDefinition {
            FixtureDefinition(file: "raw/\(file)", producer: "raw", purpose: purpose, expectation: .error(error),
                              reproducible: true, rules: rules, rawGolden: true, make: {
                                  format == .binary ? AppleStyleBinaryWriter.write(archiveValue(objects, root: root))
                                      : try PropertyList.write(archiveValue(objects, root: root), format: .xml)
                              })
        }
        let uuid: [UInt8] = [0x71, 0xDC, 0x06, 0x8E, 0x34, 0x20, 0x45, 0xFF, 0x91, 0x9E, 0x3A, 0x26, 0x7D, 0x55, 0xEC, 0x22]
        let knownClasses: [PlistValue] = [
            .string("$null"),
            // 1: the root array of every kind of object
            object([("NS.objects", .array((2...20).map { .uid(UInt64($0)) })), ("$class", .uid(21))]),
            object([("NS.string", .string("mutable")), ("$class", .uid(22))]),                     // 2
            object([("NS.time", .real(757_414_800.123456)), ("$class", .uid(23))]),                // 3
            object([("NS.data", .data([1, 2, 3])), ("$class", .uid(24))]),                         // 4
            object([("NS.uuidbytes", .data(uuid)), ("$class", .uid(25))]),                         // 5
            object([("NS.base", .uid(0)), ("NS.relative", .uid(7)), ("$class", .uid(26))]),      // 6
            .string("https://example.com/a b"),                                                   // 7
            object([("$class", .uid(27))]),                                                        // 8 NSNull
            object([("NS.objects", .array([.uid(10), .uid(11)])), ("$class", .uid(28))]),         // 9 NSSet
            .integer(.signed(-5)),                                                                 // 10
            .integer(.unsigned(UInt64.max)),                                                       // 11
            object([("NS.object.0", .uid(13)), ("NS.object.1", .uid(10)), ("$class", .uid(29))]), // 12 NSOrderedSet
            .real(-0.0),                                                                           // 13
            // 14: a dictionary whose keys are a number and a date
            object([("NS.keys", .array([.uid(10), .uid(3)])), ("NS.objects", .array([.uid(15), .uid(16)])), ("$class", .uid(30))]),
            .real(.nan),                                                                           // 15
            .bool(true),                                                                           // 16
            .data([0xFF, 0x00]),                                                                   // 17
            .date(-0.5),                                                                           // 18
            .string("é and e\u{301}"),                                                            // 19
            object([("NS.objects", .array([])), ("$class", .uid(31))]),                           // 20 empty NSMutableArray
            classObject(["NSArray", "NSObject"]),                                                  // 21
            classObject(["NSMutableString", "NSString", "NSObject"]),                              // 22
            classObject(["NSDate", "NSObject"]),                                                   // 23
            classObject(["NSMutableData", "NSData", "NSObject"]),                                  // 24
            classObject(["NSUUID", "NSObject"]),                                                   // 25
            classObject(["NSURL", "NSObject"]),                                                    // 26
            classObject(["NSNull", "NSObject"]),                                                   // 27
            classObject(["NSSet", "NSObject"]),                                                    // 28
            classObject(["NSOrderedSet", "NSObject"]),                                             // 29
            classObject(["NSDictionary", "NSObject"]),                                             // 30
            classObject(["NSMutableArray", "NSArray", "NSObject"]),                                // 31
        ]
        let cycle: [PlistValue] = [
            .string("$null"),
            object([("NS.objects", .array([.uid(1), .uid(2)])), ("$class", .uid(4))]),            // 1 contains itself
            object([("NS.keys", .array([.uid(3)])), ("NS.objects", .array([.uid(1)])), ("$class", .uid(5))]), // 2 points back
            .string("parent"),
            classObject(["NSMutableArray", "NSArray", "NSObject"]),
            classObject(["NSDictionary", "NSObject"]),
        ]
        let shared: [PlistValue] = [
            .string("$null"),
            object([("NS.objects", .array([.uid(2), .uid(2), .uid(3), .uid(3)])), ("$class", .uid(5))]),
            object([("NS.string", .string("shared")), ("$class", .uid(4))]),
            object([("NS.objects", .array([.uid(2)])), ("$class", .uid(5))]),
            classObject(["NSMutableString", "NSString", "NSObject"]),
            classObject(["NSArray", "NSObject"]),
        ]
        let unknown: [PlistValue] = [
            .string("$null"),
            object([("volume", .real(0.5)), ("tags", .array([.uid(2), .uid(3)])), ("owner", .uid(4)),
                    ("flags", .dictionary(PlistDictionary([("a", .bool(true))]))), ("missing", .uid(0)), ("$class", .uid(5))]),
            .string("one"),
            .string("two"),
            object([("name", .uid(2)), ("$class", .uid(6))]),
            classObject(["MyApp.Settings", "MyApp.Base", "NSObject"]),
            object([("$classname", .string("Owner"))]),                                            // no $classes
        ]
        let orderedSet: [PlistValue] = [
            .string("$null"),
            object([("NS.object.0", .uid(2)), ("NS.object.1", .uid(3)), ("NS.object.2", .uid(4)), ("$class", .uid(5))]),
            .string("valgeir"), .string("nico"), .string("puzzle"),
            classObject(["NSMutableOrderedSet", "NSOrderedSet", "NSObject"]),
        ]
        return [
            raw("known-classes.plist", "every Foundation class with a natural JSON shape, inline scalars, non-string keys",
                error: "$objects[1]: expected NSMutableDictionary (root), found NSArray", rules: ["root-class"], knownClasses),
            raw("cycle.plist", "an array that contains itself and a dictionary pointing back: {\"$ref\": uid}",
                error: "$objects[1]: expected NSMutableDictionary (root), found NSMutableArray", rules: ["root-class"], cycle),
            raw("shared.plist", "one string object referenced four times: expanded where it occurs",
                error: "$objects[1]: expected NSMutableDictionary (root), found NSArray", rules: ["root-class"], shared),
            raw("unknown-class.plist", "unknown classes keep their name, chain and every coder key",
                error: "$objects[1]: expected NSMutableDictionary (root), found MyApp.Settings", rules: ["root-class"], unknown),
            raw("ordered-set.xml.plist", "an XML archive of an NSMutableOrderedSet (NS.object.0, NS.object.1, ...)",
                error: "$objects[1]: expected NSMutableDictionary (root), found NSMutableOrderedSet", rules: ["root-class"],
                format: .xml, orderedSet),
        ]
    }
}
