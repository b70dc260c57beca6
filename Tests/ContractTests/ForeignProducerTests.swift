import Testing
import FirstTimeArchive
import FirstTimeCore
import Plist
import PlistCore
import TestSupport

/// Archives from producers the fixtures do not contain are judged by the contract, not by
/// resemblance to ycft's output.
@Suite struct ForeignProducers {
    /// The object table bpylist2 (Python) writes for two records: NSDictionary root and group,
    /// one-element `$classes` chains, coder keys in another order, and a time it computed
    /// through the 1970 epoch.
    let bpylist2Shape: [PlistValue] = [
        .string("$null"),
        object([("$class", .uid(2)), ("NS.keys", .array([.uid(3)])), ("NS.objects", .array([.uid(4)]))]),
        object([("$classes", .array([.string("NSDictionary")])), ("$classname", .string("NSDictionary"))]),
        .string("sharedGroup"),
        object([("$class", .uid(2)), ("NS.keys", .array([.uid(5), .uid(11)])), ("NS.objects", .array([.uid(6), .uid(12)]))]),
        .string("onboarding"),
        object([("$class", .uid(7)), ("lastTime", .uid(9)), ("lastVersion", .uid(8))]),
        object([("$classes", .array([.string("YCFirstTimeObject")])), ("$classname", .string("YCFirstTimeObject"))]),
        .string("2.1.0"),
        object([("$class", .uid(10)), ("NS.time", .real(-220_892_399.876544))]),
        object([("$classes", .array([.string("NSDate")])), ("$classname", .string("NSDate"))]),
        .string("rate"),
        object([("$class", .uid(7)), ("lastTime", .uid(0)), ("lastVersion", .uid(0))]),
    ]

    @Test func bpylist2ShapeDecodesAndFailsVerifyForItsImmutableDictionaries() throws {
        let bytes = AppleStyleBinaryWriter.write(archiveValue(bpylist2Shape))
        #expect(try ArchiveReader.decode(bytes) == records([("onboarding", "2.1.0", -220_892_399.876544), ("rate", nil, nil)]))
        let findings = StateFile.verify(bytes)
        #expect(findings.map(\.rule) == [.rootImmutable, .groupImmutable, .classChain, .classChain])
        #expect(findings.map(\.path) == [.object(1), .object(4), .object(7), .object(10)])
        #expect(findings[2].message == #"$classes is ["YCFirstTimeObject"], Apple writes ["YCFirstTimeObject", "NSObject"]"#)
    }

    @Test func repackingRepairsIt() throws {
        let bytes = AppleStyleBinaryWriter.write(archiveValue(bpylist2Shape))
        let repaired = try LegacyArchive.encode(ArchiveReader.decode(bytes), format: .binary)
        #expect(StateFile.verify(repaired) == [])
    }
}
