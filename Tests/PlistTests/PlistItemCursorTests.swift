import Testing
@testable import Plist
import PlistCore

/// `PlistItemCursor` reaches the same items as `PlistNode.items`, in whatever order they are asked for.
@Suite struct PlistItemCursorTests {
    func document(_ count: Int) throws -> PlistDocument {
        let value = PlistValue.array((0..<count).map { .integer(.signed(Int64($0 * 3))) })
        return try PlistDocument(PropertyList.write(value, format: .binary))
    }

    @Test func everyOrderGivesTheSameItems() throws {
        let document = try document(1_000)
        let items = try #require(document.top.items)
        var generator = SystemRandomNumberGenerator()
        let orders: [[Int]] = [Array(0..<1_000), Array((0..<1_000).reversed()), (0..<1_000).shuffled(using: &generator),
                               [999, 0, 500, 1, 998, 2]]
        for order in orders {
            let cursor = try #require(PlistItemCursor(document.top, of: document))
            #expect(cursor.count == 1_000)
            for index in order { #expect(cursor[index].int64(mayBeWide: true) == Int64(index * 3) && items[index].int64(mayBeWide: true) == Int64(index * 3)) }
        }
    }

    @Test func onlyArraysHaveACursor() throws {
        // Each document is kept in a constant: a node is borrowed from its document.
        let dictionary = try PlistDocument(PropertyList.write(.dictionary(PlistDictionary()), format: .binary))
        #expect(PlistItemCursor(dictionary.top, of: dictionary) == nil)
        let string = try PlistDocument(PropertyList.write(.string("x"), format: .binary))
        #expect(PlistItemCursor(string.top, of: string) == nil)
        let emptyArray = try document(0)
        let empty = try #require(PlistItemCursor(emptyArray.top, of: emptyArray))
        #expect(empty.count == 0)
    }
}
