import Testing
@testable import FirstTimeCore
import KeyedArchive
import PlistCore
import TestSupport

/// FirstTimeCore's answers at its edges that no other test asks for: a state domain's
/// `interval.*` keys beside an archive, the root entries an archive keeps, the time a 16-byte
/// integer cannot be, and the texts of migration failures.
@Suite struct FirstTimeCoreCoverage3 {
    /// A domain holding the archive of `k` (time 5) and `interval.k` = `stored`.
    func domain(interval stored: PlistValue) throws -> StateSource<PlistDictionary> {
        let archive = try LegacyArchive.encode(records([("k", nil, 5)]), format: .binary)
        let source = StateSource(PlistDictionary([("YCFirstTime", .data(archive)), ("interval.k", stored)])) { _ in records([("k", nil, 5)]) }
        #expect(source.forms == [.defaultsArchive, .intervalKeys])
        return source
    }

    /// A record left without a time removes its `interval.*` key (the archive keeps it).
    @Test func aRecordWithoutATimeRemovesItsIntervalKey() throws {
        let after = records([("k", "1", nil)])
        let written = try domain(interval: .real(5 + IntervalKey.epochOffset)).written(after, replacing: records([("k", nil, 5)]))
        #expect(written == PlistDictionary([("YCFirstTime", .data(try LegacyArchive.encode(after, format: .binary)))]))
    }

    /// An `interval.*` value IntervalClient cannot read is replaced by the record's time.
    @Test func anUnreadableIntervalValueIsReplacedByTheTime() throws {
        let after = records([("k", nil, 7)])
        let written = try domain(interval: .string("x")).written(after, replacing: records([("k", nil, 5)]))
        #expect(written == PlistDictionary([("YCFirstTime", .data(try LegacyArchive.encode(after, format: .binary))),
                                            ("interval.k", .real(7 + IntervalKey.epochOffset))]))
    }

    /// A form asked of a domain that lacks it, or whose keys name one gate twice, fails
    /// through the caller's `failure`.
    @Test func aFormsErrorsGoThroughTheCallersFailure() {
        struct Failed: Error, Equatable { let error: FirstTimeError }
        let empty = StateSource(PlistDictionary()) { _ in nil }
        #expect(throws: Failed(error: .keyNotFound("YCFirstTime.records"))) {
            try empty.read(.plainRecords, failure: Failed.init) { _ throws(Failed) in ArchiveJudgement(records: FirstTimeRecords(), findings: []) }
        }
        let twice = StateSource(PlistDictionary([("interval.k", .real(1)), ("interval.k", .real(2))])) { _ in nil }
        #expect(throws: Failed(error: .duplicateKey("k", at: .key("records")))) {
            try twice.read(.intervalKeys, failure: Failed.init) { _ throws(Failed) in ArchiveJudgement(records: FirstTimeRecords(), findings: []) }
        }
    }

    /// IntervalClient reads a boolean as 1 or 0.
    @Test func aFalseIntervalValueIsZero() {
        #expect(IntervalKey.seconds(.bool(false)) == 0)
        #expect(IntervalKey.seconds(.bool(true)) == 1)
    }

    /// `KeyedArchive` of `objects` (root UID `root`).
    func archive(_ objects: [PlistValue], root: UInt64 = 1) throws -> KeyedArchive {
        try KeyedArchive(plist: archiveValue(objects, root: root))
    }

    /// No root entries to keep: a root UID outside `$objects`, a root that is no dictionary,
    /// a root holding only the group.
    @Test func rootsWithNoOtherEntries() throws {
        #expect(try LegacyArchive.RootEntries(archive([.string("$null")], root: 5)) == nil)
        #expect(try LegacyArchive.RootEntries(archive([.string("$null"), .string("x")])) == nil)
        #expect(try LegacyArchive.RootEntries(archive(appleLayoutOneKey)) == nil)
    }

    /// An entry to keep that reaches past `$objects` cannot be copied as it is.
    @Test func aKeptEntryThatDanglesIsRefused() {
        var objects = appleLayoutOneKey
        objects[1] = dictObject(keys: [2, 11], values: [3, 12], classUID: 10)
        objects += [.string("other"), .array([.uid(0), .uid(99)])]
        #expect(throws: FirstTimeError.contract(ContractFinding(.uidDangling, at: .object(1), "UID 99 is outside $objects (13 objects)"))) {
            try LegacyArchive.RootEntries(archive(objects))
        }
    }

    /// A time stored as an integer is said to change only for a record the write keeps with
    /// that time: not under a nil block key (no record), not for a record without a time.
    @Test func aConvertedTimeIsSaidOnlyForARecordWrittenWithIt() {
        let named = ContractFinding(.timeNotReal, at: .object(7), "m", record: "k")
        let unnamed = ContractFinding(.timeNotReal, at: .object(8), "m", record: nil)
        let timeless = ContractFinding(.timeNotReal, at: .object(9), "m", record: "t")
        let state = FirstTimeState(records: records([("k", nil, 5), ("t", "1", nil)]), form: .archive, forms: [.archive],
                                   findings: [named, unnamed, timeless])
        #expect(state.said(writing: records([("k", nil, 5), ("t", "1", 5)])) == [named])
        #expect(state.said(writing: records([("k", nil, 6)])) == [])
    }

    /// Records back to the archive when a key holds NUL (a UserDefaults key may; an archive
    /// cannot keep it, libplist stores C strings): unwritable, nothing planned.
    @Test func aKeyWithNULCannotGoBackIntoAnArchive() {
        #expect(throws: Migration.Failure.unwritable(.plist(.unwritable(.containsNUL(inKey: false), at: ObjectPath([.key("$objects"), .index(4)]))))) {
            try Migration.plan(forms: [.plainRecords], to: .legacy, options: Migration.Options(), existing: { _ in nil },
                               read: { _ in ArchiveJudgement(records: records([("a\u{0}b", nil, 5)]), findings: []) })
        }
    }

    @Test func anUnreadableSourceNamesItsArchiveKey() {
        #expect(Migration.Failure.unreadable(.keyNotFound("k"), archiveKey: "YCFirstTime").description
                == "YCFirstTime: \(FirstTimeError.keyNotFound("k"))")
    }
}
