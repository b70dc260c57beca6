import Foundation
import Testing
import FirstTimeArchive
import FirstTimeCore
import Plist
import PlistCore
import TestSupport

/// A clock and version the tests move by hand.
final class Knobs: @unchecked Sendable {
    private let lock = NSLock()
    private var _now = Date(timeIntervalSinceReferenceDate: 757_414_800.123456)
    private var _version: String? = "1.0"
    var now: Date { get { lock.withLock { _now } } set { lock.withLock { _now = newValue } } }
    var version: String? { get { lock.withLock { _version } } set { lock.withLock { _version = newValue } } }
}

func store(_ path: String, _ knobs: Knobs, plainRecords: PlistFormat? = nil) throws -> FirstTimeStore {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC")!
    let store = try FirstTimeStore(path: path, plainRecords: plainRecords, calendar: calendar)
    store.versionProvider = { knobs.version }
    store.nowProvider = { knobs.now }
    return store
}

@Suite struct FirstTimeStoreBehaviour {
    func path() throws -> String { try TestPaths.temporaryDirectory().appendingPathComponent("state.plist").path }

    @Test func executeOnceRunsOnceAndThenTheAfterBlock() throws {
        let knobs = Knobs()
        let s = try store(try path(), knobs)
        var runs: [String] = []
        #expect(try s.executeOnce({ runs.append("first") }, executeAfterFirstTime: { runs.append("after") }, forKey: "k"))
        #expect(try !s.executeOnce({ runs.append("first") }, executeAfterFirstTime: { runs.append("after") }, forKey: "k"))
        #expect(runs == ["first", "after"])
        #expect(s.blockWasExecuted("k"))
        #expect(s.lastExecutionDate(forKey: "k") == knobs.now)
    }

    /// As YCFirstTime 2.x saves: an `NSDictionary` group is read, but the next save builds a
    /// new group holding only the saved key (`as? NSMutableDictionary ?? NSMutableDictionary()`);
    /// an `NSDictionary` root is not read at all (`unarchivedObject ... as? NSMutableDictionary`
    /// fails), so every gate runs and the next save replaces it.
    @Test func anImmutableGroupOrRootIsSavedAsTheLibrarySavesIt() throws {
        for (fixture, before) in [("valid/apple-order/immutable-group.plist", ["k"]), ("valid/apple-order/immutable-root.plist", [])] {
            let archive = try readBytes(TestPaths.fixtures.appendingPathComponent(fixture))
            let file = try path()
            try writeBytes(PropertyList.write(.dictionary(PlistDictionary([("Theme", .string("dark")), ("YCFirstTime", .data(archive))])),
                                              format: .binary), to: URL(fileURLWithPath: file))
            let s = try store(file, Knobs())
            #expect(s.records.map(\.key) == before, "\(fixture)")
            #expect(try s.executeOnce({}, forKey: "new"), "\(fixture)")
            #expect(s.records.map(\.key) == ["new"], "\(fixture)")
            let saved = try StateFile(readBytes(URL(fileURLWithPath: file))).state()
            #expect(saved.records.map(\.key) == ["new"], "\(fixture)")
            #expect(saved.findings.isEmpty, "\(fixture): \(saved.findings)")
            // The next save keeps what the new group holds.
            #expect(try s.executeOnce({}, forKey: "second"))
            #expect(try StateFile(readBytes(URL(fileURLWithPath: file))).state().records.map(\.key) == ["new", "second"])
        }
    }

    @Test func nilBlockRecordsNothing() throws {
        let s = try store(try path(), Knobs())
        #expect(try !s.executeOnce(nil, forKey: "k"))
        #expect(!s.blockWasExecuted("k"))
    }

    @Test func perVersionComparesAsSwiftStrings() throws {
        let knobs = Knobs()
        let s = try store(try path(), knobs)
        var count = 0
        #expect(try s.executeOncePerVersion({ count += 1 }, forKey: "k"))
        #expect(try !s.executeOncePerVersion({ count += 1 }, forKey: "k"))
        knobs.version = "1.0.0"
        #expect(try s.executeOncePerVersion({ count += 1 }, forKey: "k"))
        knobs.version = nil
        #expect(try s.executeOncePerVersion({ count += 1 }, forKey: "k"))
        #expect(try !s.executeOncePerVersion({ count += 1 }, forKey: "k"))
        #expect(count == 3)
    }

    @Test func intervalOfHalfADay() throws {
        let knobs = Knobs()
        let s = try store(try path(), knobs)
        #expect(try s.executeOncePerInterval({}, forKey: "k", withDaysInterval: 0.5))
        let start = knobs.now
        knobs.now = start.addingTimeInterval(43_199)
        #expect(try !s.executeOncePerInterval({}, forKey: "k", withDaysInterval: 0.5))
        knobs.now = start.addingTimeInterval(43_200)
        #expect(try s.executeOncePerInterval({}, forKey: "k", withDaysInterval: 0.5))
    }

    @Test func intervalClientSurface() throws {
        let knobs = Knobs()
        knobs.now = Date(timeIntervalSinceReferenceDate: at("2024-01-31T12:00:00Z"))
        let file = try path()
        let s = try store(file, knobs)
        #expect(s.shouldRun("report", every: .monthly))
        try s.markRun("report")
        #expect(!s.shouldRun("report", every: .monthly))
        #expect(s.lastRun("report") == knobs.now)
        // IntervalClient's own key: seconds since 1970 as a plain number, not a YCFirstTime record.
        let domain = try LibPlist.read(readBytes(URL(fileURLWithPath: file))).value.dictionaryValue
        #expect(domain?["interval.report"] == .real(knobs.now.timeIntervalSince1970))
        #expect(domain?["YCFirstTime"] == nil)
        #expect(!s.blockWasExecuted("report"))
        knobs.now = Date(timeIntervalSinceReferenceDate: at("2024-02-29T12:00:00Z"))
        #expect(s.shouldRun("report", every: .monthly))
        #expect(!s.shouldRun("report", every: .custom(.month, 2)))
        #expect(s.shouldRun("report", every: .custom(.day, -1)))
        try s.reset("report")
        #expect(s.lastRun("report") == nil)
        #expect(try LibPlist.read(readBytes(URL(fileURLWithPath: file))).value.dictionaryValue?["interval.report"] == nil)
    }

    @Test(arguments: [nil, PlistFormat.binary, .xml])
    func persistsAndReopens(_ plainRecords: PlistFormat?) throws {
        let knobs = Knobs()
        let file = try path()
        let s = try store(file, knobs, plainRecords: plainRecords)
        try s.executeOnce({}, forKey: "onboarding")
        knobs.version = "2.0"
        try s.executeOncePerVersion({}, forKey: "whats-new")
        let reopened = try store(file, knobs, plainRecords: plainRecords)
        #expect(reopened.records == s.records)
        #expect(reopened.records["whats-new"] == FirstTimeRecord(lastVersion: "2.0", lastTime: 757_414_800.123456))
        // A legacy domain holds an archive that passes verify; a plain one is what migrate writes.
        let bytes = try readBytes(URL(fileURLWithPath: file))
        if plainRecords == nil {
            #expect(StateFile.verify(bytes) == [])
            #expect(try StateFile(bytes).state().records == s.records && StateFile(bytes).state().form == .defaultsArchive)
        } else {
            #expect(try StateFile(bytes).state().records == s.records && StateFile(bytes).state().form == .plainRecords)
        }
    }

    @Test func anExistingDomainKeepsItsForm() throws {
        // A migrated domain (YCFirstTime.records) stays migrated: the store never writes a second,
        // disagreeing copy of the state in the other form.
        let knobs = Knobs()
        let file = try path()
        try store(file, knobs, plainRecords: .binary).executeOnce({}, forKey: "k")
        let opened = try store(file, knobs)
        #expect(opened.blockWasExecuted("k"))
        try opened.executeOnce({}, forKey: "j")
        let domain = try LibPlist.read(readBytes(URL(fileURLWithPath: file))).value.dictionaryValue
        #expect(domain?["YCFirstTime"] == nil)
        #expect(try RecordsFormat.records(fromPlist: #require(domain?["YCFirstTime.records"])).count == 2)
    }

    @Test func aBareArchiveFromAnEarlierVersionOpensAsADomain() throws {
        let file = try path()
        try writeBytes(try LegacyArchive.encode(records([("old", "1.0", 5)]), format: .binary), to: URL(fileURLWithPath: file))
        let s = try store(file, Knobs())
        #expect(s.blockWasExecuted("old"))
        try s.executeOnce({}, forKey: "new")
        let state = try StateFile(readBytes(URL(fileURLWithPath: file))).state()
        #expect(state.form == .defaultsArchive)
        #expect(state.records.count == 2)
    }

    @Test func failedSaveLeavesMemoryAndDiskConsistent() throws {
        let dir = try TestPaths.temporaryDirectory()
        let file = dir.appendingPathComponent("state.plist").path
        let knobs = Knobs()
        let s = try store(file, knobs)
        try s.executeOnce({}, forKey: "saved")
        let onDisk = try readBytes(URL(fileURLWithPath: file))
        // Make the directory unwritable: the next save must fail.
        try FileManager.default.setAttributes([.posixPermissions: 0o500], ofItemAtPath: dir.path)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: dir.path) }
        // YCFirstTime runs the block, then saves: a failed save leaves the run unrecorded, in
        // memory and on disk (as when the app is killed before the library saves).
        guard getuid() != 0 else {
            // root ignores permissions; use a path whose parent is a file instead.
            let blocked = try store(dir.appendingPathComponent("state.plist").path + "/impossible", knobs)
            var ran = false
            #expect(throws: FirstTimeError.self) { try blocked.executeOnce({ ran = true }, forKey: "k") }
            #expect(ran)
            #expect(!blocked.blockWasExecuted("k"))
            #expect(try readBytes(URL(fileURLWithPath: file)) == onDisk)
            // The crash-safe mode records first: a failed save means the block does not run.
            blocked.recordsBeforeRunning = true
            var ranFirst = false
            #expect(throws: FirstTimeError.self) { try blocked.executeOnce({ ranFirst = true }, forKey: "k") }
            #expect(!ranFirst)
            return
        }
        var ran = false
        #expect(throws: FirstTimeError.self) { try s.executeOnce({ ran = true }, forKey: "unsaved") }
        #expect(ran)
        #expect(!s.blockWasExecuted("unsaved"))
        #expect(try readBytes(URL(fileURLWithPath: file)) == onDisk)
    }

    @Test func racingThreadsRunTheBlockOnce() throws {
        let s = try store(try path(), Knobs())
        let counter = Counter()
        DispatchQueue.concurrentPerform(iterations: 16) { _ in
            _ = try? s.executeOnce({ counter.increment() }, forKey: "race")
        }
        #expect(counter.value == 1)
    }

    @Test func unreadableFileIsAnError() throws {
        let file = try path()
        try writeBytes(Array("garbage".utf8), to: URL(fileURLWithPath: file))
        #expect(throws: FirstTimeError.self) { try store(file, Knobs()) }
    }

    /// A file that is not YCFirstTime state, or whose `YCFirstTime` holds something else, is
    /// judged as every ycft command judges it (StateFile) and not opened: a store that opened
    /// `{"YCFirstTime": "x"}` as empty used to save an archive over the string.
    @Test(arguments: (NotStateFiles.all + NotStateFiles.notData).filter { $0.key == nil })
    func whatIsNotStateIsNotOpened(_ sample: NotStateFile) throws {
        let file = try path()
        try writeBytes(sample.bytes, to: URL(fileURLWithPath: file))
        var refused: FirstTimeError?
        do { _ = try FirstTimeStore(path: file) } catch { refused = error }
        #expect(refused?.description == "\(file): \(sample.judgement)")
        #expect(try readBytes(URL(fileURLWithPath: file)) == sample.bytes)
    }
}

final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}

/// The store as YCFirstTime and IntervalClient behave, on a defaults domain.
@Suite struct FirstTimeStoreAsTheLibraries {
    func path() throws -> String { try TestPaths.temporaryDirectory().appendingPathComponent("Preferences.plist").path }

    @Test func theBlockRunsBeforeTheRunIsRecordedWithTheTimeAfterIt() throws {
        let knobs = Knobs()
        let s = try store(try path(), knobs)
        let start = knobs.now
        var seenInside: Bool?
        try s.executeOnce({
            seenInside = s.blockWasExecuted("k")
            knobs.now = start.addingTimeInterval(5)  // the block takes five seconds
        }, forKey: "k")
        #expect(seenInside == false)
        #expect(s.lastExecutionDate(forKey: "k") == start.addingTimeInterval(5))
        // Record-first mode: inside the block the key already counts as executed.
        s.recordsBeforeRunning = true
        var inside: Bool?
        try s.executeOncePerVersion({ inside = s.blockWasExecuted("v") }, forKey: "v")
        #expect(inside == true)
    }

    @Test func executeOnceAndMarkRunUseTheirOwnKeySpaces() throws {
        let s = try store(try path(), Knobs())
        try s.markRun("same")
        var ran = false
        #expect(try s.executeOnce({ ran = true }, forKey: "same"))
        #expect(ran)
        try s.reset("same")
        #expect(s.blockWasExecuted("same"))
    }

    @Test func aDefaultsDomainKeepsEveryOtherKeyAndResetRemovesOnlyTheYCFirstTimeKey() throws {
        let file = try path()
        let exported = try readBytes(TestPaths.fixtures.appendingPathComponent("valid/defaults/export.binary.plist"))
        try writeBytes(exported, to: URL(fileURLWithPath: file))
        let before = try #require(LibPlist.read(exported).value.dictionaryValue)
        let s = try store(file, Knobs())
        #expect(s.blockWasExecuted("onboarding.v1"))
        try s.executeOnce({}, forKey: "new.gate")
        try s.markRun("weekly")
        var after = try #require(LibPlist.read(readBytes(URL(fileURLWithPath: file))).value.dictionaryValue)
        // Every other key: same value, same place; the archive changed in place; interval key appended.
        #expect(after.map(\.key) == before.map(\.key) + ["interval.weekly"])
        for (key, value) in before where key != "YCFirstTime" { #expect(after[key] == value, "\(key)") }
        #expect(try StateFile(readBytes(URL(fileURLWithPath: file))).state().records.count == 4)
        try s.reset()
        after = try #require(LibPlist.read(readBytes(URL(fileURLWithPath: file))).value.dictionaryValue)
        #expect(after["YCFirstTime"] == nil)
        #expect(after.map(\.key) == before.map(\.key).filter { $0 != "YCFirstTime" } + ["interval.weekly"])
        #expect(!s.blockWasExecuted("onboarding.v1"))
        #expect(s.lastRun("weekly") != nil)
    }

    /// A domain migrated with `--keep-source` holds the archive and the plain records: a save
    /// keeps both in step (as `ycft set` does), so no copy disagrees with the state.
    @Test func aSaveKeepsEveryFormInStep() throws {
        let file = try path()
        let archive = try LegacyArchive.encode(records([("old", "1.0", 5)]), format: .binary)
        try writeBytes(PropertyList.write(.dictionary(PlistDictionary([("YCFirstTime", .data(archive)),
                                                                       ("YCFirstTime.records", RecordsFormat.plist(records([("old", "1.0", 5)])))])),
                                          format: .binary), to: URL(fileURLWithPath: file))
        let s = try store(file, Knobs())
        try s.executeOnce({}, forKey: "new")
        let state = try StateFile(readBytes(URL(fileURLWithPath: file))).state()
        #expect(state.forms == [.defaultsArchive, .plainRecords])
        #expect(state.records.map(\.key) == ["new", "old"])
        #expect(state.findings.isEmpty, "\(state.findings)")
    }

    /// Each save reads the file again and changes what it holds then: a record another process
    /// saved in the meantime is kept.
    @Test func aSaveKeepsWhatAnotherProcessSaved() throws {
        let file = try path()
        let s = try store(file, Knobs())
        try s.executeOnce({}, forKey: "mine")
        #expect(try StateFile.update(at: file) { $0["theirs"] = FirstTimeRecord(lastVersion: "2.0", lastTime: 7) })
        try s.executeOnce({}, forKey: "again")
        #expect(try StateFile(readBytes(URL(fileURLWithPath: file))).state().records.map(\.key) == ["again", "mine", "theirs"])
        #expect(s.blockWasExecuted("theirs"))
    }

    @Test func nilProvidersRestoreTheDefaults() throws {
        let s = try FirstTimeStore(path: try path())
        s.versionProvider = { "9.9" }
        s.nowProvider = { Date(timeIntervalSinceReferenceDate: 0) }
        try s.executeOnce({}, forKey: "a")
        #expect(s.records["a"] == FirstTimeRecord(lastVersion: "9.9", lastTime: 0))
        s.versionProvider = nil
        s.nowProvider = nil
        let before = Date()
        try s.executeOnce({}, forKey: "b")
        let b = try #require(s.records["b"])
        // The test runner has no CFBundleShortVersionString: the default provider answers nil.
        #expect(b.lastVersion == Bundle.main.object(forInfoDictionaryKey: "CFBundleShortVersionString") as? String)
        #expect(try #require(b.lastTime) >= before.timeIntervalSinceReferenceDate)
        #expect(try !s.executeOnce(nil, forKey: "c"))
        #expect(!s.blockWasExecuted("c"))
    }

    @Test func theSharedStoreUsesItsConfiguredFile() throws {
        let file = try path()
        FirstTimeStore.sharedPath = file
        let shared = FirstTimeStore.shared
        #expect(shared === FirstTimeStore.shared)
        #expect(shared.loadError == nil)
        shared.nowProvider = { Date(timeIntervalSinceReferenceDate: 1) }
        try shared.executeOnce({}, forKey: "shared.key")
        #expect(try StateFile(readBytes(URL(fileURLWithPath: file))).state().records["shared.key"]?.lastTime == 1)
    }

    @Test func theToolReadsTheStoresFile() throws {
        let file = try path()
        let s = try store(file, Knobs())
        try s.executeOnce({}, forKey: "onboarding")
        try s.markRun("report")
        let bytes = try readBytes(URL(fileURLWithPath: file))
        // The YCFirstTime archive is what dump and migrate read; interval keys beside it stay.
        #expect(try StateFile(bytes).state().records.map(\.key) == ["onboarding"])
        let migrated = try Migration.migrate(bytes, to: .records)
        #expect(migrated.status == .migrated)
        #expect(try LibPlist.read(#require(migrated.output)).value.dictionaryValue?["interval.report"] != nil)
    }
}
