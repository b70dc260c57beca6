import Foundation
import Testing
@testable import FirstTimeArchive
import FirstTimeCore
import KeyedArchive
import Plist
import PlistCore
import TestSupport

/// FirstTimeArchive's rarer answers: a store whose change cannot be written, a bare archive
/// whose root keeps other entries, and a state file's root entries and unreadable state.
@Suite struct FirstTimeArchiveCoverage3 {
    func path() throws -> String { try TestPaths.temporaryDirectory().appendingPathComponent("state.plist").path }

    /// An IntervalClient key holding NUL cannot be written (libplist stores C strings): the
    /// save fails naming the file, and the file is not written.
    @Test func aGateWhoseKeyHoldsNULIsNotSaved() throws {
        let path = try path()
        let s = try store(path, Knobs())
        #expect(throws: FirstTimeError.inFile(path: path, .plist(.unwritable(.containsNUL(inKey: true), at: .key("interval.a\u{0}b"))))) {
            try s.markRun("a\u{0}b")
        }
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    /// The Apple layout whose root holds "other" = "kept" beside the group.
    static let rootWithOther: [PlistValue] = {
        var objects = appleLayoutOneKey
        objects[1] = dictObject(keys: [2, 11], values: [3, 12], classUID: 10)
        return objects + [.string("other"), .string("kept")]
    }()

    /// A bare archive whose root holds another key keeps it when the store saves, as
    /// YCFirstTime's own save does.
    @Test func aBareArchiveKeepsItsRootsOtherEntries() throws {
        let path = try path()
        let bytes = try PropertyList.write(archiveValue(Self.rootWithOther), format: .binary)
        try writeBytes(bytes, to: URL(fileURLWithPath: path))
        let knobs = Knobs()
        let s = try store(path, knobs)
        #expect(try s.executeOnce({}, forKey: "n"))
        let root = try #require(try LegacyArchive.RootEntries(LibPlist.keyedArchive(bytes)))
        let after = records([("k", "1.2.3", 2.5), ("n", "1.0", knobs.now.timeIntervalSinceReferenceDate)])
        let archive = try LegacyArchive.encode(after, keeping: root, format: .binary)
        #expect(try readBytes(URL(fileURLWithPath: path))
                == PropertyList.write(.dictionary(PlistDictionary([(LegacyArchive.defaultsKey, .data(archive))])), format: .binary))
    }

    /// Root entries of a bare archive its envelope does not let be read: the archive's error;
    /// of a file whose state is plain records, or of a bare archive without other keys: none.
    @Test func rootEntriesOfABrokenArchivePlainRecordsAndAPlainArchive() throws {
        guard case var .dictionary(envelope) = archiveValue(Self.rootWithOther) else { Issue.record("no envelope"); return }
        envelope["$version"] = .integer(.signed(1))
        let broken = try StateFile(PropertyList.write(.dictionary(envelope), format: .binary))
        #expect(throws: FirstTimeError.archive(.wrongVersion(found: "1"))) { try broken.rootEntries() }
        let plain = try StateFile(PropertyList.write(.dictionary(PlistDictionary([(RecordsFormat.defaultsKey, RecordsFormat.plist(records([("k", nil, 1)])))])),
                                                     format: .binary))
        #expect(plain.forms == [.plainRecords])
        // A bare binary archive the fast path decoded has no root entries to keep (it threw
        // "$archiver: missing" when asked, reading an envelope the fast path never built).
        let bare = try StateFile(PropertyList.write(archiveValue(appleLayoutOneKey), format: .binary))
        #expect(try bare.rootEntries() == nil)
        #expect(try plain.rootEntries() == nil)
    }

    /// What `reset --force` removes of a defaults file whose state cannot be read: migrated
    /// records the app cannot read either (it resets them all) are named by their key; a file
    /// with no state has nothing to remove.
    @Test func theUnreadableStateOfADefaultsFile() throws {
        let plain = try StateFile(PropertyList.write(.dictionary(PlistDictionary([(RecordsFormat.defaultsKey, .string("x"))])), format: .binary))
        let error = #expect(throws: FirstTimeError.self) { try plain.state() }
        #expect(error?.finding == ContractFinding(.recordsFormat, at: .key(RecordsFormat.defaultsKey), "expected a dictionary, found string"))
        #expect(StateEdit.unreadable(try #require(error), in: plain) == error?.finding)
        let empty = try StateFile(PropertyList.write(.dictionary(PlistDictionary([("other", .bool(true))])), format: .binary))
        #expect(throws: FirstTimeError.keyNotFound(LegacyArchive.defaultsKey)) { try empty.state() }
        #expect(StateEdit.unreadable(.keyNotFound(LegacyArchive.defaultsKey), in: empty) == nil)
    }
}

