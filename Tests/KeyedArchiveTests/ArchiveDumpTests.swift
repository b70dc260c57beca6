import Foundation
import Testing
import KeyedArchive
import OrderedJSON
import Plist
import PlistCore
import TestSupport

@Suite struct RawDump {
    /// 40 arrays, each holding the next twice: 2^40 values once expanded.
    var bomb: PlistValue {
        var objects: [PlistValue] = [.string("$null")]
        for i in 1...40 {
            objects.append(object([("NS.objects", .array([.uid(UInt64(i + 1)), .uid(UInt64(i + 1))])), ("$class", .uid(43))]))
        }
        objects.append(.string("leaf"))         // 41
        objects.append(.string("unused"))       // 42
        objects.append(classObject(["NSArray", "NSObject"]))  // 43
        return archiveValue(objects)
    }

    /// 2^40 values once expanded: the dump stops at its bound of 200,000 printed values (a
    /// count, not a clock: the bound is what keeps it fast, and a timed test flakes under load).
    @Test func exponentialExpansionStopsAtItsBound() {
        #expect(throws: ArchiveDump.DumpError.expansionTooLarge(limit: 200_000)) { try ArchiveDump.raw(bomb) }
        #expect(!ArchiveDump.DumpError.expansionTooLarge(limit: 200_000).description.contains("--"))  // the flag is the CLI's word
    }

    @Test func refsPrintsEachObjectOnceAndMarksShared() throws {
        let json = try ArchiveDump.raw(bomb, shared: .references)
        let text = json.text(style: .compact)
        // Each of the 40 arrays and the leaf appear once; the second reference is a $ref.
        #expect(text.components(separatedBy: "\"$class\":\"NSArray\"").count - 1 == 40)
        #expect(text.components(separatedBy: "\"leaf\"").count - 1 == 1)
        #expect(text.hasPrefix(#"{"$archiver":"NSKeyedArchiver","$version":100000,"$top":{"root":{"$class":"NSArray","items":[{"$uid":2,"$class":"NSArray","items":[{"$uid":3,"#))
        #expect(text.contains(#"{"$ref":41}"#))
    }

    @Test func cyclesBecomeRefsInBothModes() throws {
        let objects: [PlistValue] = [
            .string("$null"),
            object([("NS.objects", .array([.uid(1)])), ("$class", .uid(2))]),
            classObject(["NSArray", "NSObject"]),
        ]
        for mode in [ArchiveDump.SharedObjects.expand, .references] {
            #expect(try ArchiveDump.raw(archiveValue(objects), shared: mode).text(style: .compact)
                    == #"{"$archiver":"NSKeyedArchiver","$version":100000,"$top":{"root":{"$class":"NSArray","items":[{"$ref":1}]}}}"# + "\n")
        }
    }

    @Test func longUIDChainFailsInsteadOfOverflowingTheStack() throws {
        // 5,000 arrays, each holding the next: flat in the plist, deep in the graph.
        var objects: [PlistValue] = [.string("$null")]
        for i in 1...5_000 { objects.append(object([("NS.objects", .array([.uid(UInt64(i + 1))])), ("$class", .uid(5_002))])) }
        objects.append(.string("end"))
        objects.append(classObject(["NSArray", "NSObject"]))
        let value = try LibPlist.read(PropertyList.write(archiveValue(objects), format: .binary)).value
        #expect(throws: ArchiveDump.DumpError.graphTooDeep(limit: 256)) { try ArchiveDump.raw(value) }
        #expect(throws: ArchiveDump.DumpError.graphTooDeep(limit: 256)) { try ArchiveDump.raw(value, shared: .references) }
        #expect(try ArchiveDump.objects(value).text(style: .compact).hasPrefix(#"{"$archiver":"NSKeyedArchiver""#))
    }

    @Test func danglingUIDIsShownNotFatal() throws {
        let objects: [PlistValue] = [.string("$null"), object([("NS.objects", .array([.uid(99)])), ("$class", .uid(2))]),
                                     classObject(["NSArray", "NSObject"])]
        #expect(try ArchiveDump.raw(archiveValue(objects)).text(style: .compact).contains(#"{"$dangling":99}"#))
    }

    @Test func knownClassWithUnexpectedKeysKeepsEverything() throws {
        let objects: [PlistValue] = [
            .string("$null"),
            object([("NS.string", .string("x")), ("extra", .integer(.signed(1))), ("$class", .uid(2))]),
            classObject(["NSString", "NSObject"]),
        ]
        #expect(try ArchiveDump.raw(archiveValue(objects)).text(style: .compact)
                == #"{"$archiver":"NSKeyedArchiver","$version":100000,"$top":{"root":{"$class":"NSString","$classes":["NSString","NSObject"],"NS.string":"x","extra":1}}}"# + "\n")
    }

    @Test func plainPlistUsesTheValueMapping() throws {
        let value = PlistValue.dictionary(PlistDictionary([
            ("i", .integer(.signed(.min))), ("u", .integer(.unsigned(.max))), ("r", .real(1e15)), ("n", .real(-.infinity)),
            ("d", .date(0)), ("b", .data([])), ("k", .uid(3)), ("a", .array([.bool(false)])),
        ]))
        #expect(try ArchiveDump.raw(value).text(style: .compact)
                == #"{"i":-9223372036854775808,"u":18446744073709551615,"r":1000000000000000.0,"n":{"$real":"-Infinity"},"d":{"$date":0.0},"b":{"$data":""},"k":{"$uid":3},"a":[false]}"# + "\n")
    }

    @Test func objectsTableReproducesEveryUID() throws {
        let url = TestPaths.fixtures.appendingPathComponent("raw/known-classes.plist")
        let value = try LibPlist.read(readBytes(url)).value
        let text = try ArchiveDump.objects(value).text()
        let reparsed = try JSON.parse(Array(text.utf8))
        guard case let .array(objects)? = reparsed.members?.first(where: { $0.key == "$objects" })?.value,
              case let .array(original)? = value.dictionaryValue?["$objects"] else {
            Issue.record("no $objects")
            return
        }
        #expect(objects.count == original.count)
        for (json, plist) in zip(objects, original) { #expect(json == ArchiveDump.json(plist)) }
        #expect(reparsed.members?.first { $0.key == "$top" }?.value == .object([.init("root", .object([.init("$uid", .number("1"))]))]))
    }

    @Test func objectsRefusesAPlainPlist() {
        #expect(throws: ArchiveDump.DumpError.notAnArchive) { try ArchiveDump.objects(.array([])) }
    }
}

/// Apple's own archives (swift-corelibs-foundation's fixtures) from ../shared/corpus/apple.
@Suite(.enabled(if: TestPaths.appleCorpus != nil, "../shared/corpus/apple is absent")) struct AppleCorpus {
    static let goldens = TestPaths.packageRoot.appendingPathComponent("Tests/KeyedArchiveTests/Goldens")
    static let representative = [
        "NSKeyedUnarchiver-ComplexTest.plist", "NSKeyedUnarchiver-ArrayTest.plist", "NSKeyedUnarchiver-OrderedSetTest.plist",
        "NSKeyedUnarchiver-URLTest.plist", "NSKeyedUnarchiver-UUIDTest.plist", "NSKeyedUnarchiver-ConcreteValueTest.plist",
        "NSKeyedUnarchiver-NotificationTest.plist", "DateIntervalFormatter-ValuesSetWithTemplate.archive",
        "NSMutableOrderedSet-Numbers.archive", "NSCountedSet-NumbersAppearingSeveralTimes.archive",
        "NSMeasurement-Length.archive", "NSTextCheckingResult-SimpleRegex.archive", "NSAttributedString.archive",
    ]

    static var files: [String] {
        guard let dir = TestPaths.appleCorpus else { return [] }
        return ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? [])
            .filter { $0.hasSuffix(".archive") || $0.hasSuffix(".plist") }.sorted()
    }

    @Test func corpusHasAllFortySixArchives() {
        #expect(Self.files.count == 46)
    }

    @Test(arguments: files)
    func everyArchiveDumps(_ name: String) throws {
        let bytes = try readBytes(TestPaths.appleCorpus!.appendingPathComponent(name))
        let value = try LibPlist.read(bytes).value
        #expect(value.dictionaryValue.map(KeyedArchive.isEnvelope) == true)
        let json = try ArchiveDump.raw(value)
        #expect(json.members?.first?.value == .string("NSKeyedArchiver"))
        _ = try ArchiveDump.objects(value)
    }

    @Test(arguments: representative)
    func representativeGoldens(_ name: String) throws {
        let value = try LibPlist.read(readBytes(TestPaths.appleCorpus!.appendingPathComponent(name))).value
        let text = try ArchiveDump.raw(value).text()
        let golden = Self.goldens.appendingPathComponent(name + ".raw.json")
        if ProcessInfo.processInfo.environment["UPDATE_GOLDENS"] == "1" {
            try writeBytes(Array(text.utf8), to: golden)
            Issue.record("UPDATE_GOLDENS=1: rewrote \(golden.lastPathComponent); run again without it")
            return
        }
        #expect(text == String(decoding: try readBytes(golden), as: UTF8.self))
    }

    @Test func goldensHaveNoOrphans() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.goldens.path).sorted()
        #expect(names == Self.representative.map { $0 + ".raw.json" }.sorted())
    }
}

/// `dump --raw` is honest about a broken envelope: nothing invented, nothing dropped, every
/// problem listed under `$warnings`.
@Suite struct HonestRawDump {
    @Test func absentEnvelopeKeysStayAbsentAndAreListed() throws {
        var envelope = archiveValue([.string("$null"), .string("x")]).dictionaryValue!
        envelope["$version"] = nil
        envelope["$archiver"] = .string("NSArchiver")
        let json = try ArchiveDump.raw(.dictionary(envelope))
        #expect(json.text(style: .compact)
                == #"{"$archiver":"NSArchiver","$top":{"root":"x"},"$warnings":["$archiver: is \"NSArchiver\", expected \"NSKeyedArchiver\"","$version: missing"]}"# + "\n")
        #expect(ArchiveDump.warnings(in: json) == [#"$archiver: is "NSArchiver", expected "NSKeyedArchiver""#, "$version: missing"])
        // A sound archive has no "$warnings" member at all.
        #expect(ArchiveDump.warnings(in: try ArchiveDump.raw(archiveValue([.string("$null"), .string("x")]))) == [])
    }

    @Test func aMalformedClassChainIsShownAsItIs() throws {
        let objects: [PlistValue] = [
            .string("$null"),
            object([("NS.string", .string("hi")), ("$class", .uid(2))]),
            .dictionary(PlistDictionary([("$classname", .string("NSString")), ("$classes", .string("NSString"))])),
        ]
        let json = try ArchiveDump.raw(archiveValue(objects))
        #expect(json.text(style: .compact).contains(#""root":{"$class":"NSString","$classes":"NSString","NS.string":"hi"}"#))
        #expect(ArchiveDump.warnings(in: json) == ["$objects[2].$classes: is string, not an array of class names"])
    }

    @Test func shortFormsOnlyForApplesOwnChain() throws {
        let uuid: [UInt8] = Array(0..<16)
        func dump(_ chain: [String]) throws -> String {
            try ArchiveDump.raw(archiveValue([.string("$null"), object([("NS.uuidbytes", .data(uuid)), ("$class", .uid(2))]),
                                              classObject(chain)])).text(style: .compact)
        }
        #expect(try dump(["NSUUID", "NSObject"]).contains(#""root":{"$class":"NSUUID","uuid":"00010203-0405-0607-0809-0A0B0C0D0E0F"}"#))
        // A subclass chain is kept: the short form would drop it.
        #expect(try dump(["NSUUID", "MyUUIDBase", "NSObject"])
                .contains(#""root":{"$class":"NSUUID","$classes":["NSUUID","MyUUIDBase","NSObject"],"NS.uuidbytes":{"$data":"AAECAwQFBgcICQoLDA0ODw=="}}"#))
    }

    @Test func brokenClassReferencesAndDanglingUIDsAreListed() throws {
        let objects: [PlistValue] = [.string("$null"), object([("a", .uid(9)), ("$class", .uid(1))])]
        let warnings = ArchiveDump.warnings(in: try ArchiveDump.raw(archiveValue(objects)))
        #expect(warnings == ["$objects[1].$class: does not name a class descriptor ({$classname, $classes})",
                             "UID 9 is outside $objects (2 objects)"])
    }
}
