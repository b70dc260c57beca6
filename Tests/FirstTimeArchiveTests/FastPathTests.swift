import Foundation
import Testing
@testable import FirstTimeArchive
import FirstTimeCore
import KeyedArchive
import Plist
import PlistCore
import TestSupport

/// The fast path must never change an answer: when it returns records, the checked decoder
/// returns the same; when the checked decoder fails, the fast path returns nil.
@Suite struct FastPathAgreesWithTheCheckedDecoder {
    func checked(_ bytes: [UInt8]) -> FirstTimeRecords? {
        guard let archive = try? LibPlist.keyedArchive(bytes) else { return nil }
        return try? LegacyArchive.read(archive).records
    }

    func agree(_ bytes: [UInt8], _ label: String) {
        let fast = (try? PlistDocument(bytes)).flatMap({ ArchiveReader.fastRead($0)?.records })
        let slow = checked(bytes)
        if let fast {
            #expect(slow == fast, "\(label): fast path gave records the checked decoder does not")
        }
    }

    @Test func everyFixture() throws {
        let root = TestPaths.fixtures.path
        let files = FileManager.default.enumerator(atPath: root)!.compactMap { $0 as? String }.filter { $0.hasSuffix(".plist") }
        #expect(files.count > 40)
        for file in files {
            let bytes = try readBytes(URL(fileURLWithPath: "\(root)/\(file)"))
            agree(bytes, file)
            // Every clean binary archive ycft writes takes the fast path.
            if file.hasPrefix("valid/ycft/") && !file.hasSuffix(".xml.plist") {
                #expect((try? PlistDocument(bytes)).flatMap({ ArchiveReader.fastRead($0)?.records }) != nil, "\(file) missed the fast path")
            }
        }
    }

    @Test func thousandsOfMutatedArchives() {
        var generator = Generator(seed: 99)
        let replacements: [PlistValue] = [
            .string("$null"), .string("x"), .uid(0), .uid(3), .uid(99), .integer(.signed(1)), .real(.nan), .bool(true),
            .data([]), .array([]), .array([.uid(4)]), .dictionary(PlistDictionary()),
            object([("$class", .uid(8))]), object([("NS.string", .string("s")), ("$class", .uid(9))]),
            classObject(["NSString", "NSObject"]), classObject(["NSDate", "NSObject"]),
            object([("$classname", .string("YCFirstTimeObject")), ("$classes", .string("bad"))]),
        ]
        var fastHits = 0
        for round in 0..<3_000 {
            var objects = appleLayoutOneKey
            generator.mutate(&objects, with: replacements)
            let bytes = AppleStyleBinaryWriter.write(archiveValue(objects))
            if (try? PlistDocument(bytes)).flatMap({ ArchiveReader.fastRead($0)?.records }) != nil { fastHits += 1 }
            agree(bytes, "round \(round)")
        }
        // Some mutations leave a valid archive (an unused object changed): the fast path takes those.
        #expect(fastHits > 0)
    }
}

/// The walk over libplist's tree (`NodeGraph`) and the walk over resolved values
/// (`ResolvedGraph`) are the same walker over two conformers: their judgements, every finding
/// in order, must be equal, in both modes, for every archive either can read.
@Suite struct LibplistTreeJudgesAsResolvedValues {
    /// Compares the two walks; false when libplist's tree is not walked (not a binary archive
    /// with NSKeyedArchiver's exact envelope) or the bytes are no archive at all.
    @discardableResult
    func expectSameJudgement(_ bytes: [UInt8], _ label: String) -> Bool {
        guard let document = try? PlistDocument(bytes), let graph = NodeGraph(document),
              let archive = try? LibPlist.keyedArchive(bytes) else { return false }
        let resolved = ResolvedGraph(archive)
        let fast = ContractWalker.judge(graph, mode: .collect), slow = ContractWalker.judge(resolved, mode: .collect)
        #expect(fast == slow, "\(label): collect: \(fast.findings.map(\.rule)) against \(slow.findings.map(\.rule))")
        let fastDecode = ContractWalker.judge(graph, mode: .decode), slowDecode = ContractWalker.judge(resolved, mode: .decode)
        #expect(fastDecode == slowDecode, "\(label): decode: \(fastDecode.findings.map(\.rule)) against \(slowDecode.findings.map(\.rule))")
        return true
    }

    /// The one-record archive with the group's own class descriptor (object 11), so that the
    /// root's and the group's classes can differ.
    static let separateGroupClass: [PlistValue] = {
        var objects = appleLayoutOneKey
        objects[3] = dictObject(keys: [4], values: [5], classUID: 11)
        objects.append(classObject(["NSMutableDictionary", "NSDictionary", "NSObject"]))
        return objects
    }()

    /// Every class the root and the group can be given, each alone and both at once: the
    /// judgement differs in kind (no finding, a finding that does not stop, one that does).
    @Test func everyClassOfTheRootAndTheGroup() {
        let descriptors: [PlistValue] = [
            classObject(["NSMutableDictionary", "NSDictionary", "NSObject"]),
            classObject(["NSDictionary", "NSObject"]),
            classObject(["NSMutableDictionary", "NSObject"]),
            classObject(["NSMutableDictionary", "NSDictionary", "NSObject", "Extra"]),
            object([("$classname", .string("NSMutableDictionary"))]),
            object([("$classname", .string("NSMutableDictionary")), ("$classes", .string("bad"))]),
            classObject(["YCFirstTimeObject", "NSObject"]),
            classObject(["NSArray", "NSObject"]),
            .string("NSMutableDictionary"),
            .dictionary(PlistDictionary()),
        ]
        var compared = 0
        for root in descriptors {
            for group in descriptors {
                var objects = Self.separateGroupClass
                objects[10] = root
                objects[11] = group
                if expectSameJudgement(AppleStyleBinaryWriter.write(archiveValue(objects)), "root \(root), group \(group)") { compared += 1 }
            }
        }
        #expect(compared == descriptors.count * descriptors.count)
    }

    /// Thousands of random changes to one or two objects (or fields) of both layouts.
    @Test func thousandsOfMutatedArchives() {
        var generator = Generator(seed: 2026)
        let replacements: [PlistValue] = [
            .string("$null"), .string("x"), .string("sharedGroup"), .uid(0), .uid(1), .uid(3), .uid(5), .uid(10), .uid(11), .uid(99),
            .integer(.signed(1)), .real(.nan), .bool(true), .data([]), .array([]), .array([.uid(4)]), .dictionary(PlistDictionary()),
            dictObject(keys: [2], values: [3], classUID: 10), dictObject(keys: [4, 4], values: [5, 5], classUID: 11),
            dictObject(keys: [6], values: [7], classUID: 9),
            object([("$class", .uid(8))]), object([("NS.string", .string("s")), ("$class", .uid(9))]),
            classObject(["NSString", "NSObject"]), classObject(["NSDate", "NSObject"]),
            classObject(["NSDictionary", "NSObject"]), classObject(["NSMutableDictionary", "NSObject"]),
            object([("$classname", .string("YCFirstTimeObject")), ("$classes", .string("bad"))]),
        ]
        var compared = 0
        for round in 0..<3_000 {
            var objects = round % 2 == 0 ? appleLayoutOneKey : Self.separateGroupClass
            generator.mutate(&objects, with: replacements)
            if expectSameJudgement(AppleStyleBinaryWriter.write(archiveValue(objects)), "round \(round)") { compared += 1 }
        }
        #expect(compared > 2_500)
    }

    /// UIDs with the top bit set, which `ResolvedGraph` cannot hold in a node's handle (it keeps
    /// them in its table), are read whole: the finding names each dangling UID exactly. (A file
    /// cannot hold them, the guards allow 32 bits; a value built in code can.)
    @Test func uidsWithTheTopBitSet() throws {
        for uid: UInt64 in [1 << 63, 1 << 63 | 6, .max] {
            var objects = appleLayoutOneKey
            objects[5] = object([("lastVersion", .uid(uid)), ("lastTime", .uid(7)), ("$class", .uid(9))])
            let judged = ContractWalker.judge(ResolvedGraph(try KeyedArchive(plist: archiveValue(objects))), mode: .collect)
            #expect(judged.findings.map(\.message) == ["UID \(uid) is outside $objects (11 objects)"])
        }
    }

    /// Every fixture, and Apple's archives of other classes (``TestPaths/appleCorpus``, when present).
    @Test func fixturesAndAppleArchives() throws {
        var files: [URL] = []
        let root = TestPaths.fixtures
        for case let name as String in FileManager.default.enumerator(atPath: root.path)! where name.hasSuffix(".plist") {
            files.append(root.appendingPathComponent(name))
        }
        if let corpus = TestPaths.appleCorpus {
            for name in try FileManager.default.contentsOfDirectory(atPath: corpus.path) where name.hasSuffix(".archive") {
                files.append(corpus.appendingPathComponent(name))
            }
        }
        var compared = 0
        for file in files where expectSameJudgement(try readBytes(file), file.lastPathComponent) { compared += 1 }
        #expect(compared > 20)
    }
}

extension Generator {
    /// Replaces one or two objects of an archive's `$objects`, or fields of them (a field may
    /// also be removed), with values from `replacements`.
    mutating func mutate(_ objects: inout [PlistValue], with replacements: [PlistValue]) {
        for _ in 0..<(1 + Int(next() % 2)) {
            let index = Int(next() % UInt64(objects.count))
            if case var .dictionary(d) = objects[index], next() % 2 == 0, d.count > 0 {
                let key = d.entries[Int(next() % UInt64(d.count))].key
                d[key] = next() % 4 == 0 ? nil : replacements[Int(next() % UInt64(replacements.count))]
                objects[index] = .dictionary(d)
            } else {
                objects[index] = replacements[Int(next() % UInt64(replacements.count))]
            }
        }
    }
}
