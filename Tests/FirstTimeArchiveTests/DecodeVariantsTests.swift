import Testing
import FirstTimeArchive
import FirstTimeCore
import KeyedArchive
import Plist
import PlistCore
import TestSupport

@Suite struct AcceptedForms {
    func decode(_ objects: [PlistValue], format: PlistFormat = .binary) throws -> FirstTimeRecords {
        try ArchiveReader.decode(PropertyList.write(archiveValue(objects), format: format))
    }

    @Test func referenceLayout() throws {
        #expect(try decode(appleLayoutOneKey) == records([("k", "1.2.3", 2.5)]))
    }

    @Test func xmlArchive() throws {
        #expect(try decode(appleLayoutOneKey, format: .xml) == records([("k", "1.2.3", 2.5)]))
    }

    @Test func bytesWrittenApplesWay() throws {
        let bytes = AppleStyleBinaryWriter.write(archiveValue(appleLayoutOneKey))
        #expect(try ArchiveReader.decode(bytes) == records([("k", "1.2.3", 2.5)]))
    }

    @Test func immutableRootAndGroup() throws {
        var objects = appleLayoutOneKey
        objects[10] = classObject(["NSDictionary", "NSObject"])
        #expect(try decode(objects) == records([("k", "1.2.3", 2.5)]))
    }

    @Test func mutableStringVersionAndKey() throws {
        var objects = appleLayoutOneKey
        objects[6] = object([("NS.string", .string("1.2.3")), ("$class", .uid(11))])
        objects[4] = object([("NS.string", .string("k")), ("$class", .uid(11))])
        objects.append(classObject(["NSMutableString", "NSString", "NSObject"]))
        #expect(try decode(objects) == records([("k", "1.2.3", 2.5)]))
    }

    @Test func absentFieldsAreNil() throws {
        var objects = appleLayoutOneKey
        objects[5] = object([("$class", .uid(9))])
        #expect(try decode(objects) == records([("k", nil, nil)]))
    }

    @Test func nullReferencesAreNil() throws {
        var objects = appleLayoutOneKey
        objects[5] = object([("lastVersion", .uid(0)), ("lastTime", .uid(0)), ("$class", .uid(9))])
        #expect(try decode(objects) == records([("k", nil, nil)]))
    }

    @Test func keySharedWithVersion() throws {
        var objects = appleLayoutOneKey
        objects[5] = object([("lastVersion", .uid(4)), ("lastTime", .uid(7)), ("$class", .uid(9))])
        #expect(try decode(objects) == records([("k", "k", 2.5)]))
    }

    @Test func noSharedGroupMeansNoRecords() throws {
        let objects: [PlistValue] = [
            .string("$null"), dictObject(keys: [], values: [], classUID: 2),
            classObject(["NSMutableDictionary", "NSDictionary", "NSObject"]),
        ]
        #expect(try decode(objects).count == 0)
    }

    @Test func anyKeyOrderInEveryDictionary() throws {
        var objects = appleLayoutOneKey
        objects[5] = object([("$class", .uid(9)), ("lastTime", .uid(7)), ("lastVersion", .uid(6))])
        objects[1] = object([("$class", .uid(10)), ("NS.objects", .array([.uid(3)])), ("NS.keys", .array([.uid(2)]))])
        #expect(try decode(objects) == records([("k", "1.2.3", 2.5)]))
    }

    @Test func canonicallyEquivalentKeysAreTwoRecords() throws {
        let input = records([("é", "1", 1), ("e\u{301}", "2", 2)])
        let decoded = try ArchiveReader.decode(LegacyArchive.encode(input, format: .binary))
        #expect(decoded.count == 2)
        #expect(decoded["é"]?.lastVersion == "1")
        #expect(decoded["e\u{301}"]?.lastVersion == "2")
    }

    @Test func defaultsFileBinaryAndXML() throws {
        let archive = try LegacyArchive.encode(records([("k", "1.2.3", 2.5)]), format: .binary)
        let defaults = PlistValue.dictionary(PlistDictionary([
            ("SomeFlag", .bool(true)), ("YCFirstTime", .data(archive)), ("Count", .integer(.signed(3))),
        ]))
        for format in PlistFormat.allCases {
            let bytes = try PropertyList.write(defaults, format: format)
            let file = try StateFile(bytes)
            #expect(file.forms == [.defaultsArchive])
            #expect(file.format == format)
            #expect(try StateFile(bytes).state().records == records([("k", "1.2.3", 2.5)]))
        }
    }

    @Test func defaultsFileUnderAnotherKey() throws {
        let archive = try LegacyArchive.encode(records([("k", nil, 1)]), format: .xml)
        let bytes = try PropertyList.write(.dictionary(PlistDictionary([("Other", .data(archive))])), format: .binary)
        #expect(try StateFile(bytes, key: "Other").state().records == records([("k", nil, 1)]))
        #expect(throws: FirstTimeError.keyNotFound("YCFirstTime")) { try StateFile(bytes).state() }
    }
}

@Suite struct DecodeErrors {
    func message(_ objects: [PlistValue], archiver: String = "NSKeyedArchiver", version: Int64 = 100_000) -> String {
        do {
            let bytes = try PropertyList.write(archiveValue(objects, archiver: archiver, version: version), format: .binary)
            _ = try ArchiveReader.decode(bytes)
            return "decoded"
        } catch {
            return "\(error)"
        }
    }

    func with(_ index: Int, _ value: PlistValue) -> [PlistValue] {
        var objects = appleLayoutOneKey
        objects[index] = value
        return objects
    }

    @Test func wrongTimeClass() {
        #expect(message(with(5, object([("lastVersion", .uid(6)), ("lastTime", .uid(6)), ("$class", .uid(9))])))
                == "$objects[5].lastTime: expected NSDate, found NSString")
    }

    @Test func wrongVersionType() {
        #expect(message(with(6, .integer(.signed(3)))) == "$objects[5].lastVersion: expected NSString, found NSNumber")
    }

    @Test func timeIsNotAReal() {
        #expect(message(with(7, object([("NS.time", .string("soon")), ("$class", .uid(8))])))
                == "$objects[7].NS.time: expected real, found string")
    }

    @Test func danglingUID() {
        #expect(message(with(5, object([("lastVersion", .uid(99)), ("$class", .uid(9))])))
                == "$objects[5].lastVersion: UID 99 is outside $objects (11 objects)")
    }

    @Test func wrongRecordClass() {
        #expect(message(with(9, classObject(["SomethingElse", "NSObject"])))
                == "$objects[5]: expected YCFirstTimeObject, found SomethingElse")
    }

    @Test func wrongRootClass() {
        var objects = appleLayoutOneKey
        objects.append(classObject(["NSArray", "NSObject"]))
        objects[1] = dictObject(keys: [2], values: [3], classUID: 11)
        #expect(message(objects) == "$objects[1]: expected NSMutableDictionary (root), found NSArray")
    }

    @Test func groupIsAString() {
        #expect(message(with(3, .string("oops"))) == "$objects[3]: expected NSMutableDictionary (sharedGroup), found NSString")
    }

    /// YCFirstTime's loader takes any root NSMutableDictionary and reads `sharedGroup` from it:
    /// an unrelated root key beside `sharedGroup` decodes, with a finding (and keeps the
    /// records beside it). A root with keys and no `sharedGroup` reads as no records, with the
    /// warning `root-foreign` (the app's next save adds the group beside them), on the fast path
    /// (binary) and the checked path (XML) alike.
    @Test func unexpectedRootKeyDecodesWithAFinding() throws {
        for format in [PlistFormat.binary, .xml] {
            let bytes = try PropertyList.write(archiveValue(with(2, .string("otherGroup"))), format: format)
            #expect(try ArchiveReader.read(bytes) == ArchiveJudgement(records: FirstTimeRecords(), findings: [
                ContractFinding(.rootForeign, at: .object(1), #"the root dictionary holds 1 key ("otherGroup") and no "sharedGroup": "#
                                + "YCFirstTime reads no records from it (every gate runs) and its next save adds the group beside them"),
            ]))
        }
        // Beside sharedGroup: a second root key whose value (a string) the loader allows.
        var objects = appleLayoutOneKey
        objects[1] = dictObject(keys: [2, 11], values: [3, 12], classUID: 10)
        objects += [.string("note"), .string("kept")]
        let beside = try ArchiveReader.read(PropertyList.write(archiveValue(objects), format: .binary))
        #expect(beside.records == records([("k", "1.2.3", 2.5)]))
        #expect(beside.findings.map(\.rule) == [.rootExtraKey])
        // A value of a class outside the loader's list fails the device's whole unarchive.
        objects[12] = .integer(.signed(7))
        let number = try ArchiveReader.read(PropertyList.write(archiveValue(objects), format: .binary))
        #expect(number.records == records([("k", "1.2.3", 2.5)]))
        #expect(number.findings.map(\.rule) == [.rootExtraKey, .classNotAllowed])
        #expect(number.findings[1].rule.spec.device == .resetsAll)
    }

    @Test func mismatchedKeysAndObjects() {
        #expect(message(with(3, dictObject(keys: [4], values: [], classUID: 10)))
                == "$objects[3]: NS.keys has 1 entries but NS.objects has 0")
    }

    @Test func uidCycleIsAnErrorNotAHang() {
        // The group lists itself as a record.
        #expect(message(with(3, dictObject(keys: [4], values: [3], classUID: 10)))
                == "$objects[3].NS.objects[0]: record UID 3 points back to the group that contains it")
    }

    @Test func wrongArchiver() {
        #expect(message(appleLayoutOneKey, archiver: "NSArchiver") == "$archiver: is \"NSArchiver\", expected \"NSKeyedArchiver\"")
    }

    @Test func wrongVersion() {
        #expect(message(appleLayoutOneKey, version: 99_999) == "$version: is 99999, expected 100000")
    }

    @Test func missingRoot() throws {
        var envelope = archiveValue(appleLayoutOneKey).dictionaryValue!
        envelope["$top"] = .dictionary(PlistDictionary())
        let bytes = try PropertyList.write(.dictionary(envelope), format: .binary)
        #expect(throws: FirstTimeError.contract(ContractFinding(.envelopeRoot, at: .key("$top").key("root"), "missing $top.root"))) {
            try ArchiveReader.decode(bytes)
        }
    }

    @Test func duplicateBlockKeys() {
        #expect(message(with(3, dictObject(keys: [4, 4], values: [5, 5], classUID: 10)))
                == "$objects[3]: duplicate block key \"k\"")
    }

    @Test func notAnArchive() throws {
        let bytes = try PropertyList.write(.array([]), format: .binary)
        #expect(throws: FirstTimeError.archive(.unexpected(expected: .dictionary, found: .array, at: .topLevel))) {
            try ArchiveReader.decode(bytes)
        }
    }

    @Test func keyWithEmbeddedNULFromAppleBytes() throws {
        var objects = appleLayoutOneKey
        objects[4] = .string("nul\u{0}inside")
        let bytes = AppleStyleBinaryWriter.write(archiveValue(objects))
        #expect(throws: FirstTimeError.archive(.plist(.unrepresentableString(.containsNUL(inKey: false), at: ObjectPath([.binaryObject(0), .binaryObject(6), .binaryObject(23)]))))) {
            try ArchiveReader.decode(bytes)
        }
    }
}
