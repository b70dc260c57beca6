import Testing
@testable import Plist
import PlistCore

/// `PlistAddress` answers for a node's address exactly what `PlistNode` answers for the node.
@Suite struct PlistAddressTests {
    @Test func addressesReadAsTheirNodes() throws {
        let value = PlistValue.dictionary(PlistDictionary([
            ("ref", .uid(7)), ("time", .real(2.5)), ("name", .string("é")),
            ("list", .array([.uid(1), .string("x")])),
        ]))
        let document = try PlistDocument(PropertyList.write(value, format: .binary))
        let array = try PlistDocument(PropertyList.write(.array([value]), format: .binary))
        let cursor = try #require(PlistItemCursor(array.top, of: array))
        let top = cursor.address(at: 0)
        #expect(PlistAddress.kind(top) == .dictionary && PlistAddress.dictionaryCount(top) == 4)
        #expect(PlistAddress.keys(top) == document.top.keys)
        let ref = try #require(PlistAddress.field(top, literal: "ref"))
        #expect(PlistAddress.uid(ref) == 7 && PlistAddress.kind(ref) == .uid && PlistAddress.string(ref) == nil)
        #expect(PlistAddress.field(top, "time").flatMap(PlistAddress.real) == 2.5)
        #expect(PlistAddress.field(top, "name").flatMap(PlistAddress.string) == "é")
        #expect(PlistAddress.field(top, "absent") == nil && PlistAddress.field(ref, "ref") == nil)
        let items = try #require(PlistAddress.field(top, "list").flatMap(PlistAddress.items))
        #expect(items.map(PlistAddress.uid) == [1, nil] && items.map(PlistAddress.string) == [nil, "x"])
        #expect(PlistAddress.items(top) == nil)
    }

    @Test func addressZeroIsNoNode() {
        #expect(PlistAddress.kind(0) == .other && PlistAddress.string(0) == nil && PlistAddress.uid(0) == nil)
        #expect(PlistAddress.real(0) == nil && PlistAddress.items(0) == nil && PlistAddress.keys(0) == nil)
        #expect(PlistAddress.field(0, "k") == nil && PlistAddress.field(0, literal: "k") == nil)
        #expect(PlistAddress.dictionaryCount(0) == 0)
    }
}
