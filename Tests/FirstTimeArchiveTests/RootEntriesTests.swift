import Testing
import FirstTimeArchive
import FirstTimeCore
import KeyedArchive
import Plist
import PlistCore
import TestSupport

/// A root with keys besides (or without) `sharedGroup` (rules `root-extra-key`, `root-foreign`):
/// YCFirstTime reads the group from it and its save archives the whole root again, so ycft's
/// writes keep the other entries, each key and value exactly as the archive held it.
@Suite struct RootEntriesKept {
    static let dictChain = ["NSMutableDictionary", "NSDictionary", "NSObject"]

    /// A root of four keys and no group: a string; an NSDate of -0.0; an immutable dictionary
    /// holding a date with a sub-microsecond time; under an NSMutableString key, the string
    /// the first key holds, shared.
    static let foreignRoot: [PlistValue] = [
        .string("$null"),
        dictObject(keys: [2, 3, 4, 5], values: [6, 7, 8, 6], classUID: 9),
        .string("theme"), .string("when"), .string("nested"),
        object([("NS.string", .string("again")), ("$class", .uid(10))]),
        .string("dark"),
        object([("NS.time", .real(-0.0)), ("$class", .uid(11))]),
        dictObject(keys: [12], values: [13], classUID: 14),
        classObject(dictChain),
        classObject(["NSMutableString", "NSString", "NSObject"]),
        classObject(["NSDate", "NSObject"]),
        .string("inner"),
        object([("NS.time", .real(757_414_800.000_000_1)), ("$class", .uid(11))]),
        classObject(["NSDictionary", "NSObject"]),
    ]

    /// The value of object `uid` with every UID in it replaced by what it names (`seen` stops a cycle).
    static func resolved(_ archive: KeyedArchive, _ uid: UInt64, seen: Set<UInt64> = []) -> PlistValue {
        guard !seen.contains(uid) else { return .string("<cycle \(seen.count)>") }
        func resolve(_ value: PlistValue) -> PlistValue {
            switch value {
            case let .uid(inner): return inner == 0 ? .string("$null") : resolved(archive, inner, seen: seen.union([uid]))
            case let .array(items): return .array(items.map(resolve))
            case let .dictionary(entries): return .dictionary(PlistDictionary(entries.map { (key: $0.key, value: resolve($0.value)) }))
            default: return value
            }
        }
        return resolve(archive.objects[Int(uid)])
    }

    /// The root's entries, each key and value resolved, in order.
    static func rootEntries(_ bytes: [UInt8]) throws -> [(key: PlistValue, value: PlistValue)] {
        let archive = try LibPlist.keyedArchive(bytes)
        let root = try #require(archive.top["root"]?.uidValue)
        let dictionary = try #require(archive.objects[Int(root)].dictionaryValue)
        let keys = try #require(dictionary["NS.keys"]?.arrayValue), values = try #require(dictionary["NS.objects"]?.arrayValue)
        return zip(keys, values).map { key, value in
            (resolved(archive, key.uidValue ?? 0), resolved(archive, value.uidValue ?? 0, seen: [root]))
        }
    }

    @Test(arguments: [PlistFormat.binary, .xml])
    func aWriteAddsTheGroupAndKeepsEveryOtherEntryExactly(_ format: PlistFormat) throws {
        let bytes = try PropertyList.write(archiveValue(Self.foreignRoot), format: format)
        let file = try StateFile(bytes)
        let state = try file.state()
        #expect(state.records == FirstTimeRecords())
        #expect(state.findings.map(\.rule) == [.rootForeign])
        #expect(state.keepsRootEntries)
        #expect(state.dropped == [])
        let written = records([("k", "1.0", 757_414_800.5)])
        let rewrite = try #require(try StateEdit(file).apply(.records(written)))
        #expect(rewrite.dropped == [])
        let before = try Self.rootEntries(bytes), after = try Self.rootEntries(rewrite.bytes)
        // The other entries in their order, then the group YCFirstTime's save adds.
        #expect(after.count == before.count + 1)
        for (old, new) in zip(before, after) { #expect(old.key == new.key && old.value == new.value, "\(old.key)") }
        #expect(after.last?.key == .string("sharedGroup"))
        // -0.0 and the sub-microsecond time bit for bit (PlistValue compares reals by their bits).
        #expect(after[1].value.dictionaryValue?["NS.time"] == .real(-0.0))
        // The shared value is still one object, and the dictionary class one descriptor.
        let archive = try LibPlist.keyedArchive(rewrite.bytes)
        let root = try #require(archive.objects[1].dictionaryValue?["NS.objects"]?.arrayValue)
        #expect(root[0] == root[3])
        #expect(archive.objects.filter { $0 == classObject(Self.dictChain) }.count == 1)
        // What reads it now: the records, and each other key as a root-extra-key.
        let again = try StateFile(rewrite.bytes).state()
        #expect(again.records == written)
        #expect(again.findings.map(\.rule) == [.rootExtraKey, .rootExtraKey, .rootExtraKey, .rootExtraKey])
        // A second write keeps them as they are, the group in its place.
        let second = try #require(try StateEdit(StateFile(rewrite.bytes)).apply(.records(records([("k", "2.0", 1)]))))
        let third = try Self.rootEntries(second.bytes)
        #expect(third.count == after.count)
        for (old, new) in zip(after.dropLast(), third.dropLast()) { #expect(old.key == new.key && old.value == new.value) }
    }

    /// Linux Foundation, reading the rewritten archive as YCFirstTime's loader does, reads the records.
    @Test func foundationReadsTheRecordsBesideTheKeptEntries() throws {
        let bytes = AppleStyleBinaryWriter.write(archiveValue(Self.foreignRoot))
        let file = try StateFile(bytes)
        let written = records([("k", "1.0", 757_414_800.5)])
        let rewrite = try #require(try StateEdit(file).apply(.records(written)))
        let decoded = try oracleDecode(rewrite.bytes)
        #expect(decoded.records == written)
        #expect(decoded.root == "NSMutableDictionary")
    }

    /// A root that holds itself stays a root that holds itself.
    @Test func aReferenceToTheRootIsToTheNewRoot() throws {
        let objects: [PlistValue] = [.string("$null"), dictObject(keys: [2], values: [1], classUID: 3), .string("self"), classObject(Self.dictChain)]
        let bytes = try PropertyList.write(archiveValue(objects), format: .binary)
        let file = try StateFile(bytes)
        let rewrite = try #require(try StateEdit(file).apply(.records(records([("k", nil, 1)]))))
        let archive = try LibPlist.keyedArchive(rewrite.bytes)
        let root = try #require(archive.top["root"]?.uidValue)
        #expect(archive.objects[Int(root)].dictionaryValue?["NS.objects"]?.arrayValue?.first == .uid(root))
        #expect(try StateFile(rewrite.bytes).state().records == records([("k", nil, 1)]))
    }

    /// A state the app discards (an NSDictionary root) starts afresh on its next save, which
    /// writes a new root: a forced write drops the other keys then, and says so.
    @Test func aDiscardedStateLosesTheOtherKeysAsTheAppsNextSaveDoes() throws {
        var objects = appleLayoutOneKey
        objects[1] = dictObject(keys: [2, 11], values: [3, 12], classUID: 13)
        objects += [.string("note"), .string("kept"), classObject(["NSDictionary", "NSObject"])]
        let bytes = try PropertyList.write(archiveValue(objects), format: .binary)
        let file = try StateFile(bytes)
        let state = try file.state()
        #expect(state.findings.map(\.rule) == [.rootImmutable, .rootExtraKey])
        #expect(!state.keepsRootEntries)
        let rewrite = try #require(try StateEdit(file, options: .init(refusesDiscarded: false)).apply(.records(records([("k", nil, 1)]))))
        #expect(rewrite.dropped.map(\.rule) == [.rootExtraKey])
        #expect(try Self.rootEntries(rewrite.bytes).map(\.key) == [.string("sharedGroup")])
    }

    /// `reset` of a state that holds no record, only the root's other keys, would remove only
    /// them: refused unless forced, and then said.
    @Test func resetOfOtherKeysOnlyIsForced() throws {
        let bytes = try PropertyList.write(archiveValue(Self.foreignRoot), format: .binary)
        let file = try StateFile(bytes)
        let finding = try #require(try file.state().findings.first)
        #expect(throws: FirstTimeError.onlyOtherData(finding)) { try StateEdit(file).apply(.reset) }
        let reset = try #require(try StateEdit(file, options: .init(force: true)).apply(.reset))
        #expect(reset.dropped == [finding])
        #expect(reset.bytes == (try LegacyArchive.encode(FirstTimeRecords(), format: .binary)))
    }

    /// The store opens such a file as YCFirstTime does (no records), and its save adds the
    /// group beside the other keys.
    @Test func theStoreKeepsThemToo() throws {
        let dir = try TestPaths.temporaryDirectory()
        let path = dir.appendingPathComponent("Preferences.plist")
        let archive = AppleStyleBinaryWriter.write(archiveValue(Self.foreignRoot))
        try writeBytes(try PropertyList.write(.dictionary(PlistDictionary([("YCFirstTime", .data(archive))])), format: .binary), to: path)
        let store = try FirstTimeStore(path: path.path)
        var ran = false
        try store.executeOnce({ ran = true }, forKey: "k")
        #expect(ran)
        let saved = try StateFile(contentsOf: path.path)
        guard case let .data(after)? = saved.defaults?["YCFirstTime"] else {
            Issue.record("no archive saved")
            return
        }
        let before = try Self.rootEntries(archive), kept = try Self.rootEntries(after)
        for (old, new) in zip(before, kept) { #expect(old.key == new.key && old.value == new.value) }
        #expect(kept.count == before.count + 1)
    }
}
