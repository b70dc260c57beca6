import Testing
@testable import KeyedArchive
import OrderedJSON
import PlistCore
import TestSupport

/// The short forms of `ycft dump` refused for objects of Apple's classes whose fields are not
/// exactly Apple's: each keeps the generic form (every field, its class chain), and the rarer
/// answers of the dump and the builder.
@Suite struct KeyedArchiveCoverage {
    /// The root object of a dump of `fields` under class `chain`, compact.
    func root(_ fields: [(String, PlistValue)], _ chain: [String], more: [PlistValue] = []) throws -> String {
        let objects: [PlistValue] = [.string("$null"), object(fields + [("$class", .uid(2))]), classObject(chain)] + more
        let text = try ArchiveDump.raw(archiveValue(objects)).text(style: .compact)
        let prefix = #"{"$archiver":"NSKeyedArchiver","$version":100000,"$top":{"root":"#
        #expect(text.hasPrefix(prefix))
        return String(text.dropFirst(prefix.count).dropLast(3))
    }

    @Test func anArrayHoldingAnInlineValueKeepsItsFields() throws {
        #expect(try root([("NS.objects", .array([.string("x")]))], ["NSArray", "NSObject"])
                == #"{"$class":"NSArray","$classes":["NSArray","NSObject"],"NS.objects":["x"]}"#)
    }

    @Test func anOrderedSetWithAGapInItsKeysKeepsItsFields() throws {
        #expect(try root([("NS.object.1", .string("x"))], ["NSOrderedSet", "NSObject"])
                == #"{"$class":"NSOrderedSet","$classes":["NSOrderedSet","NSObject"],"NS.object.1":"x"}"#)
    }

    @Test func dataThatIsAStringKeepsItsFields() throws {
        #expect(try root([("NS.data", .string("x"))], ["NSData", "NSObject"])
                == #"{"$class":"NSData","$classes":["NSData","NSObject"],"NS.data":"x"}"#)
    }

    @Test func aUUIDOfFifteenBytesKeepsItsFields() throws {
        #expect(try root([("NS.uuidbytes", .data(Array(0..<15)))], ["NSUUID", "NSObject"])
                == #"{"$class":"NSUUID","$classes":["NSUUID","NSObject"],"NS.uuidbytes":{"$data":"AAECAwQFBgcICQoLDA0O"}}"#)
    }

    @Test func aURLWithoutItsRelativePartKeepsItsFields() throws {
        #expect(try root([("NS.base", .uid(0))], ["NSURL", "NSObject"])
                == #"{"$class":"NSURL","$classes":["NSURL","NSObject"],"NS.base":null}"#)
    }

    @Test func aNullWithAFieldKeepsIt() throws {
        #expect(try root([("x", .bool(true))], ["NSNull", "NSObject"])
                == #"{"$class":"NSNull","$classes":["NSNull","NSObject"],"x":true}"#)
    }

    /// Only string members of `$warnings` are warnings.
    @Test func warningsAreTheStringsOfTheLastMember() {
        #expect(ArchiveDump.warnings(in: .object([.init("$warnings", .array([.number("1"), .string("w")]))])) == ["w"])
    }

    @Test func aFourByteRealOfEitherInfinityIsNamed() {
        #expect(ArchiveDump.real32(-.infinity) == .string("-Infinity"))
        #expect(ArchiveDump.real32(.infinity) == .string("Infinity"))
        #expect(ArchiveDump.real32(.nan) == .string("NaN"))
    }

    /// `--objects` keeps a member of the envelope that is none of the four, after them.
    @Test func theObjectsTableKeepsAnExtraEnvelopeMember() throws {
        guard case var .dictionary(envelope) = archiveValue([.string("$null"), .string("x")]) else { Issue.record("no envelope"); return }
        envelope["extra"] = .bool(true)
        #expect(try ArchiveDump.objects(.dictionary(envelope)).text(style: .compact)
                == #"{"$archiver":"NSKeyedArchiver","$version":100000,"$top":{"root":{"$uid":1}},"$objects":["$null","x"],"extra":true}"# + "\n")
    }

    /// A reference to `$null` (UID 0) is copied as UID 0, never as an object of its own.
    @Test func aCopiedReferenceToNullStaysNull() {
        var builder = KeyedArchiveBuilder()
        var copied: [UInt64: UInt64] = [:]
        let uid = builder.copy(1, from: [.string("$null"), .array([.uid(0), .string("x")])], copied: &copied)
        #expect(uid == 1 && copied == [1: 1])
        #expect(builder.archive(root: uid) == archiveValue([.string("$null"), .array([.uid(0), .string("x")])]))
    }
}
