import Foundation
import Testing
import FirstTimeArchive
import FirstTimeCore
import Plist
import PlistCore
import TestSupport

/// Every writer of a file's state keeps the UTF-8 byte-order mark an XML file starts with: the
/// library's `StateFile.update` and `FirstTimeStore`, `Migration.migrate`, and `StateEdit`
/// for a bare archive. A write changes nothing it is not asked to.
@Suite struct ByteOrderMarkStateTests {
    static let mark: [UInt8] = [0xEF, 0xBB, 0xBF]

    static func defaults() throws -> [UInt8] {
        mark + (try readBytes(TestPaths.fixtures.appendingPathComponent("valid/defaults/export.xml.plist")))
    }

    static func path(_ bytes: [UInt8]) throws -> String {
        let url = try TestPaths.temporaryDirectory().appendingPathComponent("prefs.plist")
        try writeBytes(bytes, to: url)
        return url.path
    }

    @Test func stateFileReadsPastTheMarkAndSaysSo() throws {
        let marked = try Self.defaults()
        let file = try StateFile(marked)
        #expect(file.byteOrderMark && file.format == .xml)
        #expect(try file.state().records == StateFile(Array(marked.dropFirst(3))).state().records)
        #expect(try !StateFile(Array(marked.dropFirst(3))).byteOrderMark)
    }

    @Test func updateKeepsTheMark() throws {
        let marked = try Self.defaults()
        let path = try Self.path(marked)
        #expect(try StateFile.update(at: path) { records in records["fresh"] = FirstTimeRecord(lastVersion: "1.0", lastTime: 1.5) })
        let saved = try readBytes(URL(fileURLWithPath: path))
        #expect(Array(saved.prefix(3)) == Self.mark)
        // Exactly what the same update writes without the mark, after it.
        let plainPath = try Self.path(Array(marked.dropFirst(3)))
        try StateFile.update(at: plainPath) { records in records["fresh"] = FirstTimeRecord(lastVersion: "1.0", lastTime: 1.5) }
        #expect(saved == Self.mark + (try readBytes(URL(fileURLWithPath: plainPath))))
    }

    @Test func theStoreKeepsTheMark() throws {
        let path = try Self.path(try Self.defaults())
        let store = try FirstTimeStore(path: path)
        #expect(try store.executeOnce({}, forKey: "store.new"))
        let saved = try readBytes(URL(fileURLWithPath: path))
        #expect(Array(saved.prefix(3)) == Self.mark)
        #expect(try StateFile(saved).state().records["store.new"] != nil)
    }

    @Test func migrationKeepsTheMarkInXMLOnly() throws {
        let marked = try Self.defaults()
        let xml = try #require(try Migration.migrate(marked, to: .records).output)
        let plain = try #require(try Migration.migrate(Array(marked.dropFirst(3)), to: .records).output)
        #expect(xml == Self.mark + plain)
        let binary = try #require(try Migration.migrate(marked, to: .records, options: .init(outputFormat: .binary)).output)
        #expect(Array(binary.prefix(8)) == Array("bplist00".utf8))
    }

    /// A bare XML archive after the mark: reset writes the empty archive after it.
    @Test func aBareArchiveKeepsTheMark() throws {
        var records = FirstTimeRecords()
        records["k"] = FirstTimeRecord(lastVersion: "1", lastTime: 2.5)
        let archive = try LegacyArchive.encode(records, format: .xml)
        let reset = try #require(try StateEdit(StateFile(Self.mark + archive)).apply(.reset))
        #expect(reset.bytes == Self.mark + (try LegacyArchive.encode(FirstTimeRecords(), format: .xml)))
    }
}
