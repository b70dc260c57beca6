import Testing
@testable import FirstTimeArchive
import FirstTimeCore
import KeyedArchive
import Plist
import PlistCore
import TestSupport

/// Archives that break the contract in ways no fixture does, each judged by both walks (over
/// resolved values and over libplist's tree, which must agree) with the exact findings.
@Suite struct ContractWalkerCoverage {
    /// `appleLayoutOneKey` with objects replaced (by index) and more appended.
    func layout(_ changes: [Int: PlistValue] = [:], appending extra: [PlistValue] = []) -> [PlistValue] {
        var objects = appleLayoutOneKey
        for (index, value) in changes { objects[index] = value }
        return objects + extra
    }

    /// The findings (`rule path: message`) of both walks, which must be equal.
    func findings(_ objects: [PlistValue], root: UInt64 = 1) throws -> [String] {
        let value = archiveValue(objects, root: root)
        let resolved = ContractWalker.judge(ResolvedGraph(try KeyedArchive(plist: value)), mode: .collect)
        let bytes = try PropertyList.write(value, format: .binary)
        let graph = try #require(NodeGraph(try PlistDocument(bytes)))
        let fast = ContractWalker.judge(graph, mode: .collect)
        #expect(fast == resolved)
        return resolved.findings.map { "\($0.rule.rawValue) \($0.path): \($0.message)" }
    }

    @Test func aPlistDateWhereAnNSDateBelongs() throws {
        #expect(try findings(layout([7: .date(2.5)])) == ["time-type $objects[5].lastTime: expected NSDate, found a plist date"])
    }

    /// A 16-byte integer is not read as a time (decodeDouble(forKey:) would take its low bits).
    @Test func anNSDateWhoseTimeIsASixteenByteInteger() throws {
        #expect(try findings(layout([7: object([("NS.time", .integer(.wide(high: 1, low: 0))), ("$class", .uid(8))])]))
                == ["time-type $objects[7].NS.time: NS.time is a 16-byte integer, which ycft does not read as a time"])
    }

    @Test func anNSStringWithoutItsString() throws {
        let string = classObject(["NSString", "NSObject"])
        #expect(try findings(layout([4: object([("$class", .uid(11))])], appending: [string]))
                == ["key-type $objects[4]: NSString has no NS.string string"])
    }

    @Test func keysThatAreNotUIDsOrDangle() throws {
        #expect(try findings(layout([1: object([("NS.keys", .array([.string("x")])), ("NS.objects", .array([.uid(3)])), ("$class", .uid(10))])]))
                == ["dictionary-structure $objects[1].NS.keys[0]: expected UID, found string"])
        #expect(try findings(layout([1: dictObject(keys: [99], values: [3], classUID: 10)]))
                == ["uid-dangling $objects[1].NS.keys[0]: UID 99 is outside $objects (11 objects)"])
    }

    @Test func aRootThatIsNilOrDangles() throws {
        #expect(try findings(appleLayoutOneKey, root: 0) == ["envelope-root $top.root: root is nil"])
        #expect(try findings(appleLayoutOneKey, root: 99) == ["uid-dangling $top.root: UID 99 is outside $objects (11 objects)"])
    }

    @Test func aNilRootKeyAndATwiceNamedGroup() throws {
        #expect(try findings(layout([1: dictObject(keys: [0, 2], values: [3, 3], classUID: 10)]))
                == ["key-type $objects[1].NS.keys[0]: key is nil"])
        #expect(try findings(layout([1: dictObject(keys: [2, 2], values: [3, 3], classUID: 10)]))
                == [#"key-duplicate $objects[1]: "sharedGroup" appears twice"#])
    }

    @Test func fourForeignRootKeysAreNamedThreeAndMore() throws {
        let names: [PlistValue] = ["a", "b", "c", "d"].map { .string($0) }
        #expect(try findings(layout([1: dictObject(keys: [11, 12, 13, 14], values: [6, 6, 6, 6], classUID: 10)], appending: names))
                == [#"root-foreign $objects[1]: the root dictionary holds 4 keys ("a", "b", "c", ...) and no "sharedGroup": "#
                    + "YCFirstTime reads no records from it (every gate runs) and its next save adds the group beside them"])
    }

    @Test func aGroupThatIsTheRootNilDanglingOrAString() throws {
        #expect(try findings(layout([1: dictObject(keys: [2], values: [1], classUID: 10)]))
                == ["uid-cycle $objects[1].sharedGroup: sharedGroup is the root itself"])
        #expect(try findings(layout([1: dictObject(keys: [2], values: [0], classUID: 10)]))
                == ["group-class $objects[1]: sharedGroup is nil"])
        #expect(try findings(layout([1: dictObject(keys: [2], values: [99], classUID: 10)]))
                == ["uid-dangling $objects[1].NS.objects[0]: UID 99 is outside $objects (11 objects)"])
        let string = try findings(layout([1: dictObject(keys: [2], values: [2], classUID: 10)]))
        #expect(string == ["group-class $objects[2]: expected NSMutableDictionary (sharedGroup), found NSString"])
    }

    @Test func recordsThatPointBackDangleOrAreNil() throws {
        #expect(try findings(layout([3: dictObject(keys: [4], values: [1], classUID: 10)]))
                == ["uid-cycle $objects[3].NS.objects[0]: record UID 1 points back to the root that contains it"])
        #expect(try findings(layout([3: dictObject(keys: [4], values: [3], classUID: 10)]))
                == ["uid-cycle $objects[3].NS.objects[0]: record UID 3 points back to the group that contains it"])
        #expect(try findings(layout([3: dictObject(keys: [4], values: [99], classUID: 10)]))
                == ["uid-dangling $objects[3].NS.objects[0]: UID 99 is outside $objects (11 objects)"])
        #expect(try findings(layout([3: dictObject(keys: [4], values: [0], classUID: 10)]))
                == ["record-class $objects[3].NS.objects[0]: expected YCFirstTimeObject, found nil"])
    }

    /// An unknown coder key of a record whose block key is nil names no record.
    @Test func anUnknownCoderKeyUnderANilBlockKey() throws {
        let record = object([("lastVersion", .uid(6)), ("lastTime", .uid(7)), ("extra", .uid(6)), ("$class", .uid(9))])
        #expect(try findings(layout([3: dictObject(keys: [0], values: [5], classUID: 10), 5: record]))
                == ["key-type $objects[3].NS.keys[0]: block key is nil",
                    #"record-unknown-key $objects[5]: unknown coder key "extra" (YCFirstTime ignores it)"#])
    }

    /// Another root key beside "sharedGroup": its value is walked through UID fields and arrays
    /// of UIDs (each object once, nil skipped); a class the loader refuses and a dangling UID
    /// are named where they are.
    @Test func anExtraRootValueIsWalkedThroughFieldsAndArrays() throws {
        let extraKey: PlistValue = .string("other")
        let holder = object([("NS.keys", .array([.uid(14), .uid(0), .uid(14)])), ("NS.objects", .array([.uid(15), .uid(99)])),
                             ("single", .uid(15)), ("plain", .string("text")), ("$class", .uid(13))])
        let dictionaryClass = classObject(["NSDictionary", "NSObject"])
        let refused = object([("$class", .uid(16))])
        let refusedClass = classObject(["NSURL", "NSObject"])
        let objects = layout([1: dictObject(keys: [2, 11], values: [3, 12], classUID: 10)],
                             appending: [extraKey, holder, dictionaryClass, .string("k2"), refused, refusedClass])
        let found = try findings(objects)
        #expect(found == [
            #"root-extra-key $objects[1]: root key "other" is not "sharedGroup": YCFirstTime ignores it and keeps it"#,
            "class-not-allowed $objects[15]: NSURL is not a class YCFirstTime's loader allows: its secure unarchive fails and the app resets all state",
            "uid-dangling $objects[12].NS.objects[1]: UID 99 is outside $objects (17 objects)",
        ])
    }
}
