import Foundation
import Testing
@testable import FirstTimeMigration
import FirstTimeCore
import FirstTimeArchive
import Plist
import PlistCore
import TestSupport

/// What the library refuses (with the tool's own words, nothing written), what it reads, and
/// the Foundation values it stores.
@Suite(.serialized) struct FailuresAndFormsTests {
    static let records3 = records([("onboarding", "2.1.0", 757_414_800.123456), ("rate", nil, -0.0), ("whats-new", "2.0", nil)])

    static func archive(_ records: FirstTimeRecords) throws -> PlistValue {
        .data(try LegacyArchive.encode(records, format: .binary))
    }

    /// Every invalid fixture: the library throws exactly the failure `ycft migrate` reports for
    /// the same domain exported as a file, and the domain is left as it was.
    @Test func brokenArchivesFailAsTheToolFailsAndNothingIsWritten() throws {
        let invalid = TestPaths.fixtures.appendingPathComponent("invalid")
        let files = try FileManager.default.contentsOfDirectory(atPath: invalid.path).filter { $0.hasSuffix(".plist") }.sorted()
        #expect(files.count >= 15)
        var migrated: [String] = []
        for name in files {
            let bytes = [UInt8](try Data(contentsOf: invalid.appendingPathComponent(name)))
            for target in [Migration.Target.records, .interval] {
                try TestDomain.with([(LegacyArchive.defaultsKey, .data(bytes)), ("kept", .string("yes"))]) { domain in
                    let before = domain.normalized()
                    let file = try domain.exported()
                    let tool = Result { () throws(Migration.Failure) in try Migration.migrate(file, to: target) }
                    let library = Result { () throws(Migration.Failure) in try Migration.migrate(domain.defaults, to: target) }
                    switch (tool, library) {
                    case let (.success(expected), .success(outcome)):
                        // Readable despite its findings (a non-finite time, an integer or missing
                        // NS.time, which both Foundations read as a double): migrated alike.
                        #expect(outcome.findings == expected.findings, "\(name)")
                        migrated.append(name)
                    case let (.failure(expected), .failure(failure)):
                        if PropertyList.detectFormat(bytes) == .xml {
                            #expect(failure == .xmlArchive(key: "YCFirstTime"))
                        } else {
                            #expect(failure == expected, "\(name) \(target)")
                        }
                        #expect(domain.normalized() == before, "\(name): written")
                    default:
                        Issue.record("\(name) \(target): tool \(tool), library \(library)")
                    }
                }
            }
        }
        #expect(migrated == ["non-finite-time.plist", "non-finite-time.plist", "time-missing.plist", "time-missing.plist",
                             "time-not-real.plist", "time-not-real.plist"])
    }

    @Test func xmlArchivesAreReportedNotMigrated() throws {
        let bytes = try LegacyArchive.encode(Self.records3, format: .xml)
        try TestDomain.with([(LegacyArchive.defaultsKey, .data(bytes))]) { domain in
            #expect(throws: Migration.Failure.xmlArchive(key: "YCFirstTime")) {
                try Migration.migrate(domain.defaults, to: .records)
            }
            #expect("\(Migration.Failure.xmlArchive(key: "YCFirstTime"))"
                    == "YCFirstTime: an XML archive; FirstTimeMigration reads the binary archives "
                    + "NSKeyedArchiver writes (ycft migrate reads both)")
            #expect(domain.value(LegacyArchive.defaultsKey) == .data(bytes))
            #expect(domain.value(RecordsFormat.defaultsKey) == nil)
        }
    }

    @Test func conflictsWriteNothingUnlessForced() throws {
        let other = records([("onboarding", "1.0", 1)])
        try TestDomain.with([(LegacyArchive.defaultsKey, try Self.archive(Self.records3)),
                             (RecordsFormat.defaultsKey, RecordsFormat.plist(other))]) { domain in
            let before = domain.normalized()
            #expect(throws: Migration.Failure.conflict(key: "YCFirstTime.records")) {
                try Migration.migrate(domain.defaults, to: .records)
            }
            #expect(domain.normalized() == before)
            let forced = try Migration.migrate(domain.defaults, to: .records, options: .init(force: true))
            #expect(forced.status == .migrated)
            #expect(forced.changed == [RecordsFormat.defaultsKey])
            #expect(forced.removed == [LegacyArchive.defaultsKey])
            #expect(forced.added == [])
            #expect(try Migration.records(in: domain.defaults)?.records == Self.records3)
        }
    }

    /// An interrupted migration (the new keys written, the source not yet removed) is completed
    /// by the next call, as by the tool.
    @Test func anInterruptedMigrationIsCompleted() throws {
        try TestDomain.with([(LegacyArchive.defaultsKey, try Self.archive(Self.records3)),
                             (RecordsFormat.defaultsKey, RecordsFormat.plist(Self.records3))]) { domain in
            let tool = try Migration.migrate(try domain.exported(), to: .records)
            let outcome = try Migration.migrate(domain.defaults, to: .records)
            #expect(outcome.status == .migrated && tool.status == .migrated)
            #expect(outcome.added == [] && tool.added == [])
            #expect(outcome.removed == [LegacyArchive.defaultsKey] && tool.removed == [LegacyArchive.defaultsKey])
            #expect(domain.value(LegacyArchive.defaultsKey) == nil)
        }
    }

    /// A source key the app also reads from a domain `removeObject(forKey:)` leaves alone (launch
    /// arguments, registered defaults) would still be read after the migration: refused before
    /// anything is written, unless the source is kept. Linux Foundation does not list registered
    /// defaults (`volatileDomain(forName: registrationDomain)` is empty there), so that case runs
    /// only where it does; the argument domain runs everywhere.
    @Test func aSourceKeyInAnotherDomainIsRefusedBeforeAnyWrite() throws {
        let archive = try Self.archive(Self.records3)
        guard case let .data(bytes) = archive else { return }
        let places: [(domain: String, other: Migration.Failure.OtherDomain, text: String)] = [
            (UserDefaults.argumentDomain, .arguments, "the argument domain (launch arguments)"),
            (UserDefaults.registrationDomain, .registration, "the registration domain (register(defaults:))"),
        ]
        for (place, other, text) in places {
            for inAppDomain in [true, false] {
                // Registered defaults cannot be unregistered and volatile domains are shared by
                // every UserDefaults of the process: a key of this case's own keeps them from
                // reaching any other test.
                let key = "ycft-test-\(UUID().uuidString)"
                let options = Migration.Options(key: key)
                try TestDomain.with(inAppDomain ? [(key, archive)] : []) { domain in
                    let defaults = domain.defaults
                    if place == UserDefaults.registrationDomain {
                        defaults.register(defaults: [key: Data(bytes)])
                    } else {
                        defaults.setVolatileDomain([key: Data(bytes)], forName: place)
                    }
                    defer {
                        if place == UserDefaults.argumentDomain { defaults.removeVolatileDomain(forName: place) }
                    }
                    // Where this Foundation does not list the domain, or leaves it out of
                    // dictionaryRepresentation() (Linux, for launch arguments), the case cannot run.
                    guard defaults.volatileDomain(forName: place)[key] != nil, defaults.dictionaryRepresentation()[key] != nil else {
                        #expect(place != UserDefaults.argumentDomain || !inAppDomain, "the argument domain is listed everywhere")
                        return
                    }
                    let before = domain.normalized()
                    let refusal = Migration.Failure.setElsewhere(key: key, domain: other)
                    #expect(throws: refusal) {
                        try Migration.migrate(defaults, to: .records, options: options)
                    }
                    #expect("\(refusal)" == "\"\(key)\" is also set in \(text), where removeObject(forKey:) does not "
                            + "remove it, so the app would go on reading it; remove it there first, or migrate with keepSource")
                    #expect(domain.normalized() == before, "\(place), in the app's domain too: \(inAppDomain)")
                    #expect(defaults.object(forKey: RecordsFormat.defaultsKey) == nil)
                    // Keeping the source removes nothing, so nothing is left behind unexpectedly.
                    var keeping = options
                    keeping.keepSource = true
                    let kept = try Migration.migrate(defaults, to: .records, options: keeping)
                    #expect(kept.status == .migrated && kept.removed == [])
                    #expect(try Migration.records(in: defaults, options: options)?.records == Self.records3)
                }
            }
        }
    }

    @Test func recordsInEveryForm() throws {
        // No state: a fresh install.
        try TestDomain.with([("unrelated", .integer(.signed(1)))]) { domain in
            let state = try Migration.records(in: domain.defaults)
            #expect(state == nil)
        }
        // The archive, then the plain format, then interval keys (versions nil, times through 1970).
        try TestDomain.with([(LegacyArchive.defaultsKey, try Self.archive(Self.records3))]) { domain in
            let state = try #require(try Migration.records(in: domain.defaults))
            #expect(state.records == Self.records3 && state.form == .defaultsArchive && state.findings == [])
            try Migration.migrate(domain.defaults, to: .records)
            #expect(try Migration.records(in: domain.defaults)?.records == Self.records3)
            #expect(try Migration.records(in: domain.defaults)?.form == .plainRecords)
            try Migration.migrate(domain.defaults, to: .interval, options: .init(dropVersions: true))
            let interval = try #require(try Migration.records(in: domain.defaults))
            #expect(interval.form == .plainRecords)
            #expect(interval.forms == [.plainRecords, .intervalKeys])
        }
        try TestDomain.with([("interval.a", .real(978_307_200.5)), ("interval.b", .string("soon"))]) { domain in
            let state = try #require(try Migration.records(in: domain.defaults))
            #expect(state.form == .intervalKeys)
            #expect(state.records == records([("a", nil, 0.5)]))
            #expect(state.findings.map(\.rule) == [.intervalValue])
        }
        // Two forms that disagree: the first is the state, the difference a finding.
        try TestDomain.with([(LegacyArchive.defaultsKey, try Self.archive(Self.records3)),
                             (RecordsFormat.defaultsKey, RecordsFormat.plist(records([("rate", nil, 5)])))]) { domain in
            let state = try #require(try Migration.records(in: domain.defaults))
            #expect(state.records == Self.records3)
            #expect(state.findings.map(\.rule) == [.statesDisagree])
        }
    }

    /// IntervalClient's own gate beside the archive is no form of the state (`StateSource.forms`,
    /// as for the tool): not read, not a disagreement, never removed; a copy is read only for
    /// the records it mirrors.
    @Test func anAppsOwnIntervalGateIsNotState() throws {
        let gate: (key: String, value: PlistValue) = ("interval.newfeature.tip", .real(1_733_000_000))
        let two = records([("onboarding", "2.1.0", 757_414_800.5), ("whats-new", "2.0", nil)])
        try TestDomain.with([(LegacyArchive.defaultsKey, try Self.archive(two)), gate]) { domain in
            let state = try #require(try Migration.records(in: domain.defaults))
            #expect(state.records == two && state.forms == [.defaultsArchive] && state.findings == [])
            try Migration.migrate(domain.defaults, to: .interval, options: .init(keepSource: true))
            let copied = try #require(try Migration.records(in: domain.defaults))
            #expect(copied.forms == [.defaultsArchive, .plainRecords, .intervalKeys] && copied.findings == [])
            try Migration.migrate(domain.defaults, to: .legacy)
            #expect(domain.defaults.object(forKey: gate.key) as? Double == 1_733_000_000)
            #expect(domain.defaults.object(forKey: "interval.onboarding") == nil)
        }
    }

    /// An archive YCFirstTime's loader would reset is migrated as the tool migrates it, and says so.
    @Test func aResettingArchiveIsReported() throws {
        let bytes = [UInt8](try Data(contentsOf: TestPaths.fixtures.appendingPathComponent("valid/apple-order/immutable-root.plist")))
        try TestDomain.with([(LegacyArchive.defaultsKey, .data(bytes))]) { domain in
            let outcome = try Migration.migrate(domain.defaults, to: .records)
            #expect(outcome.resetsAll?.rule == .rootImmutable)
        }
    }

    /// Foundation's loader reads every valid binary fixture as ycft does (the second opinion agrees).
    @Test func foundationsLoaderAgreesOnTheFixtures() throws {
        var agreed = 0
        for directory in ["valid/ycft", "valid/apple-order", "valid/linux-foundation"] {
            let url = TestPaths.fixtures.appendingPathComponent(directory)
            for name in try FileManager.default.contentsOfDirectory(atPath: url.path).sorted() where name.hasSuffix(".plist") {
                let bytes = [UInt8](try Data(contentsOf: url.appendingPathComponent(name)))
                guard PropertyList.detectFormat(bytes) == .binary else { continue }
                let ycft = try LegacyArchive.read(binary: bytes)
                // Linux Foundation traps on archives whose classes the loader refuses; those are not asked.
                if FoundationValues.mergesEquivalentKeys, ycft.findings.resetsAll != nil { continue }
                switch FoundationLoader.records(bytes) {
                case let .success(records):
                    if FoundationValues.mergesEquivalentKeys && name == "unicode-keys.plist" {
                        #expect(records.count == ycft.records.count - 1, "Linux merges \"é\" and \"e\\u{301}\"")
                    } else {
                        #expect(records == ycft.records, "\(directory)/\(name)")
                        agreed += 1
                    }
                case let .failure(refusal):
                    Issue.record("\(directory)/\(name): \(refusal)")
                }
            }
        }
        #expect(agreed >= 15)
    }

    /// Values survive UserDefaults exactly: types, bits, nested dictionaries.
    @Test func foundationValuesRoundTripExactly() throws {
        let values: [(key: String, value: PlistValue)] = [
            ("s", .string("a😀\u{301}")), ("i", .integer(.signed(-5))), ("min", .integer(.signed(.min))),
            ("u", .integer(.unsigned(.max))), ("r", .real(-0.0)), ("tiny", .real(.leastNonzeroMagnitude)),
            ("nan", .real(.nan)), ("inf", .real(-.infinity)), ("t", .bool(true)), ("f", .bool(false)),
            ("one", .integer(.signed(1))), ("d", .date(-3_000_000_000.25)), ("data", .data([0, 1, 255])),
            ("empty", .data([])), ("list", .array([.real(0.1), .string("x"), .array([])])),
            ("dict", .dictionary(PlistDictionary([("a", .real(1)), ("b", .dictionary(PlistDictionary()))]))),
        ]
        try TestDomain.with(values) { domain in
            for (key, value) in values {
                #expect(domain.value(key) == normalize(value), "\(key)")
            }
        }
        #expect(throws: FirstTimeError.noUserDefaultsForm(.uid, at: .key("k"))) {
            try FoundationValues.object(.uid(1), at: .key("k"))
        }
        #expect("\(FirstTimeError.noUserDefaultsForm(.uid, at: .key("k")))" == "k: an archive UID has no UserDefaults form")
    }
}
