import Foundation
import Testing
@testable import FirstTimeArchive
import FirstTimeCore
import Plist
import PlistCore
import TestSupport

/// The library's file paths that other tests do not take: files that cannot be read, a change
/// that vetoes itself, a file that may not be replaced, and the store's settings read back.
@Suite struct FirstTimeArchiveCoverage {
    func scratch(_ name: String) throws -> String { try TestPaths.temporaryDirectory().appendingPathComponent(name).path }

    func defaults(_ entries: [(key: String, value: PlistValue)]) throws -> [UInt8] {
        try PropertyList.write(.dictionary(PlistDictionary(entries)), format: .binary)
    }

    /// An error's message, or nil when `body` does not throw.
    func message(_ body: () throws -> Void) -> String? {
        do { try body() } catch { return "\(error)" }
        return nil
    }

    @Test func theStoreReadsBackItsSettings() throws {
        let s = try FirstTimeStore(path: try scratch("state.plist"))
        #expect(s.versionProvider == nil && s.nowProvider == nil && !s.recordsBeforeRunning)
        s.versionProvider = { "2.0" }
        s.nowProvider = { Date(timeIntervalSinceReferenceDate: 5) }
        s.recordsBeforeRunning = true
        #expect(s.versionProvider?() == "2.0")
        #expect(s.nowProvider?() == Date(timeIntervalSinceReferenceDate: 5))
        #expect(s.recordsBeforeRunning)
        var runs: [String] = []
        #expect(try s.executeOncePerVersion({ runs.append("first") }, executeAfterFirstTime: { runs.append("after") }, forKey: "v"))
        #expect(try !s.executeOncePerVersion({ runs.append("first") }, executeAfterFirstTime: { runs.append("after") }, forKey: "v"))
        #expect(runs == ["first", "after"])
    }

    @Test func aStoreOnAFolderOrAnOversizedFileDoesNotOpen() throws {
        let folder = try TestPaths.temporaryDirectory().path
        #expect(message { _ = try FirstTimeStore(path: folder) } == "\(folder): cannot read: Is a directory")
        let large = try scratch("large.plist")
        #expect(FileManager.default.createFile(atPath: large, contents: nil))
        #expect(truncate(large, off_t(PlistLimits.default.maxInputSize + 1)) == 0)
        #expect(message { _ = try FirstTimeStore(path: large) }
                == "\(large): input is \(PlistLimits.default.maxInputSize + 1) bytes, over the limit of \(PlistLimits.default.maxInputSize) bytes")
    }

    @Test func aFileThatIsNoPlistIsNamedWithItsPath() throws {
        let path = try scratch("garbage.plist")
        try writeBytes(Array("garbage".utf8), to: URL(fileURLWithPath: path))
        let expected = "\(path): not a property list (neither binary 'bplist00' nor XML)"
        #expect(message { _ = try StateFile(contentsOf: path) } == expected)
        #expect(message { try StateFile.update(at: path) { (_: inout FirstTimeRecords) throws(FirstTimeError) in } } == expected)
        #expect(try readBytes(URL(fileURLWithPath: path)) == Array("garbage".utf8))
    }

    struct Veto: Error, Equatable {}

    /// A change that throws its own error writes nothing, and the error comes out as thrown.
    @Test func aChangesOwnErrorComesOutAsThrown() throws {
        let path = try scratch("state.plist")
        let before = try LegacyArchive.encode(records([("k", "1.0", 1)]), format: .binary)
        try writeBytes(before, to: URL(fileURLWithPath: path))
        #expect(throws: Veto()) {
            try StateFile.update(at: path) { (records: inout FirstTimeRecords) throws(Veto) in
                records["new"] = FirstTimeRecord(lastVersion: "2.0", lastTime: 2)
                throw Veto()
            }
        }
        #expect(try readBytes(URL(fileURLWithPath: path)) == before)
        #expect(try StateFile.update(at: path) { (records: inout FirstTimeRecords) throws(Veto) in records["new"] = FirstTimeRecord() })
        #expect(try StateFile(contentsOf: path).state().records.map(\.key) == ["k", "new"])
    }

    @Test func aReadOnlyFileIsNotReplaced() throws {
        let path = try scratch("state.plist")
        let before = try LegacyArchive.encode(records([("k", "1.0", 1)]), format: .binary)
        try writeBytes(before, to: URL(fileURLWithPath: path))
        #expect(chmod(path, 0o444) == 0)
        #expect(message { try StateFile.update(at: path) { (records: inout FirstTimeRecords) throws(FirstTimeError) in records["new"] = FirstTimeRecord() } }
                == "\(path): not replaced: it is read-only (mode 0444)")
        #expect(try readBytes(URL(fileURLWithPath: path)) == before)
    }

    /// `dump --raw`'s property list: a bare XML archive is its own; data under the key that is
    /// no property list is named with the key.
    @Test func theArchivesPropertyList() throws {
        let archive = try LegacyArchive.encode(records([("k", "1.0", 1)]), format: .xml)
        #expect(try StateFile(archive).archivePlist() == LibPlist.read(archive).value)
        let file = try StateFile(defaults([("YCFirstTime", .data(Array("garbage".utf8)))]))
        #expect(message { _ = try file.archivePlist() }
                == #""YCFirstTime" holds data that is not an archive: not a property list (neither binary 'bplist00' nor XML)"#)
    }

    /// A string that is not UTF-8 in an XML archive passes the guard and libplist, and is
    /// refused when the tree is read: by the file reader and the archive decoder alike.
    @Test func aStringThatIsNotUTF8IsRefused() {
        let bytes = Array(#"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict><key>a</key><string>"#.utf8) + [0xFF]
            + Array("</string></dict></plist>".utf8)
        let expected = "string is not valid UTF-8 (at a): libplist would change it silently"
        #expect(message { _ = try StateFile(bytes) } == expected)
        #expect(message { _ = try ArchiveReader.decode(bytes) } == expected)
    }

    /// IntervalClient keys that are the state itself (no other form) are all state keys.
    @Test func intervalKeysThatAreTheStateAreStateKeys() throws {
        let file = try StateFile(defaults([("interval.k", .string("1.0|2.5")), ("Theme", .string("dark"))]))
        #expect(file.forms == [.intervalKeys])
        #expect(file.isStateKey("interval.k") && file.isStateKey("interval.other") && !file.isStateKey("Theme"))
    }

    /// Rewrites compare their rounded times bit for bit: -0.0 is not 0.0.
    @Test func rewritesCompareRoundedTimesByBits() {
        let a = StateEdit.Report(bytes: [1], roundedTimes: [(key: "k", given: 1.25, stored: 0.0)])
        #expect(a == StateEdit.Report(bytes: [1], roundedTimes: [(key: "k", given: 1.25, stored: 0.0)]))
        #expect(a != StateEdit.Report(bytes: [1], roundedTimes: [(key: "k", given: 1.25, stored: -0.0)]))
    }
}
