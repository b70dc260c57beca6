import Foundation
import Testing
import FirstTimeArchive
import Plist
import TestSupport

/// A clock and version the tests move by hand.
final class Knobs: @unchecked Sendable {
    private let lock = NSLock()
    private var _now = Date(timeIntervalSinceReferenceDate: 757_414_800.123456)
    private var _version: String? = "1.0"
    var now: Date { get { lock.withLock { _now } } set { lock.withLock { _now = newValue } } }
    var version: String? { get { lock.withLock { _version } } set { lock.withLock { _version = newValue } } }
}

func store(_ path: String, _ knobs: Knobs, format: FirstTimeStore.FileFormat = .legacyArchive) throws -> FirstTimeStore {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC")!
    return try FirstTimeStore(path: path, format: format, versionProvider: { knobs.version }, clock: { knobs.now },
                              calendar: calendar)
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

    @Test func nilBlockRecordsNothing() throws {
        let s = try store(try path(), Knobs())
        #expect(try !s.executeOnce(nil, forKey: "k"))
        #expect(!s.blockWasExecuted("k"))
    }

    @Test func perVersionComparesExactly() throws {
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
        let s = try store(try path(), knobs)
        #expect(s.shouldRun("report", every: .monthly))
        try s.markRun("report")
        #expect(!s.shouldRun("report", every: .monthly))
        knobs.now = Date(timeIntervalSinceReferenceDate: at("2024-02-29T12:00:00Z"))
        #expect(s.shouldRun("report", every: .monthly))
        try s.reset("report")
        #expect(!s.blockWasExecuted("report"))
    }

    @Test(arguments: [FirstTimeStore.FileFormat.legacyArchive, .plainRecords(.binary), .plainRecords(.xml)])
    func persistsAndReopens(_ format: FirstTimeStore.FileFormat) throws {
        let knobs = Knobs()
        let file = try path()
        let s = try store(file, knobs, format: format)
        try s.executeOnce({}, forKey: "onboarding")
        knobs.version = "2.0"
        try s.executeOncePerVersion({}, forKey: "whats-new")
        let reopened = try store(file, knobs, format: format)
        #expect(reopened.records == s.records)
        #expect(reopened.records["whats-new"] == FirstTimeRecord(lastVersion: "2.0", lastTime: 757_414_800.123456))
        // A legacy file is an archive that passes verify; a plain one is what migrate writes.
        let bytes = try readBytes(URL(fileURLWithPath: file))
        if format == .legacyArchive {
            #expect(ContractChecker.check(bytes) == [])
            #expect(try LegacyArchive.decode(bytes) == s.records)
        } else {
            #expect(try StateReader.records(in: bytes) == (s.records, .plainRecords))
        }
    }

    @Test func readsEitherFormatWhateverItWrites() throws {
        let knobs = Knobs()
        let file = try path()
        try store(file, knobs, format: .plainRecords(.binary)).executeOnce({}, forKey: "k")
        let legacy = try store(file, knobs, format: .legacyArchive)
        #expect(legacy.blockWasExecuted("k"))
        try legacy.executeOnce({}, forKey: "j")
        #expect(try LegacyArchive.decode(readBytes(URL(fileURLWithPath: file))).count == 2)
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
        guard getuid() != 0 else {
            // root ignores permissions; use a path whose parent is a file instead.
            let blocked = try store(dir.appendingPathComponent("state.plist").path + "/impossible", knobs)
            var ran = false
            #expect(throws: FirstTimeStore.StoreError.self) { try blocked.executeOnce({ ran = true }, forKey: "k") }
            #expect(!ran)
            #expect(!blocked.blockWasExecuted("k"))
            #expect(try readBytes(URL(fileURLWithPath: file)) == onDisk)
            return
        }
        var ran = false
        #expect(throws: FirstTimeStore.StoreError.self) { try s.executeOnce({ ran = true }, forKey: "unsaved") }
        #expect(!ran)
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
        #expect(throws: FirstTimeStore.StoreError.self) { try store(file, Knobs()) }
    }
}

final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
