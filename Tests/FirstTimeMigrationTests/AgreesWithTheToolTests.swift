import Foundation
import Testing
@testable import FirstTimeMigration
import FirstTimeCore
import FirstTimeArchive
import Plist
import PlistCore
import TestSupport

/// The on-device library against the tool: every valid archive in Fixtures/ (and every dataset
/// they are built from) is put into a `UserDefaults(suiteName:)` domain and migrated with the
/// library; the same domain, exported as a binary plist file, is migrated by the `ycft` binary.
/// The two results must be equal key for key and bit for bit (archive data byte for byte).
@Suite(.serialized) struct AgreesWithTheToolTests {
    /// A named domain and the records ycft reads from it.
    struct Dataset: CustomStringConvertible {
        var name: String
        var entries: [(key: String, value: PlistValue)]
        var description: String { name }
    }

    /// Unrelated keys every bare-archive domain also holds: the migration must leave them alone.
    static let neighbours: [(key: String, value: PlistValue)] = [
        ("launchCount", .integer(.signed(7))), ("ratio", .real(-0.0)), ("welcomed", .bool(true)),
        ("name", .string("e\u{301}")), ("blob", .data([0, 255])), ("when", .date(1.5)),
        ("nested", .dictionary(PlistDictionary([("a", .array([.integer(.unsigned(.max)), .real(.nan)]))]))),
    ]

    static func datasets() throws -> [Dataset] {
        var found: [Dataset] = []
        let valid = TestPaths.fixtures.appendingPathComponent("valid")
        let files = (FileManager.default.enumerator(at: valid, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? [])
            .filter { !$0.hasDirectoryPath }.sorted { $0.path < $1.path }
        for url in files {
            let name = url.path.replacingOccurrences(of: valid.path + "/", with: "")
            let bytes = [UInt8](try Data(contentsOf: url))
            if url.pathExtension == "json" {
                // A dataset: the records a fixture is built from (raw dumps are not records).
                guard let records = try? RecordsFormat.records(fromJSON: bytes) else { continue }
                let archive = try LegacyArchive.encode(records, format: .binary)
                found.append(Dataset(name: "dataset " + name, entries: [(LegacyArchive.defaultsKey, .data(archive))] + neighbours))
                continue
            }
            let value = try LibPlist.read(bytes).value
            if name.hasPrefix("defaults/") {
                // An exported domain: its own keys.
                guard case let .dictionary(domain) = value else { Issue.record("\(name): not a dictionary"); continue }
                found.append(Dataset(name: name, entries: domain.entries))
            } else if PropertyList.detectFormat(bytes) == .binary {
                found.append(Dataset(name: name, entries: [(LegacyArchive.defaultsKey, .data(bytes))] + neighbours))
            }
        }
        return found
    }

    /// One library run and one tool run of the same migration.
    struct Scenario: CustomStringConvertible {
        var label: String
        var target: Migration.Target
        var flags: [String] = []
        var options = Migration.Options()
        var description: String { label }
    }

    static let scenarios: [Scenario] = [
        Scenario(label: "records", target: .records),
        Scenario(label: "records --keep-source", target: .records, flags: ["--keep-source"], options: .init(keepSource: true)),
        Scenario(label: "interval", target: .interval),
        Scenario(label: "interval --drop-versions", target: .interval, flags: ["--drop-versions"], options: .init(dropVersions: true)),
    ]

    @Test func everyValidArchiveMigratesAsTheToolMigratesIt() throws {
        let datasets = try Self.datasets()
        #expect(datasets.count >= 30)
        var compared = 0, refusedOnLinux = 0
        for dataset in datasets {
            let source = try ycftRecords(dataset.entries)
            for scenario in Self.scenarios {
                try TestDomain.with(dataset.entries) { domain in
                    if let merge = linuxMerge(dataset, source) {
                        // swift-corelibs-foundation cannot hold these keys apart (see the README).
                        try expectLinuxRefusal(domain, scenario, merge)
                        refusedOnLinux += 1
                        return
                    }
                    let expected = try tool(domain.exported(), ["--to", scenario.target.rawValue] + scenario.flags)
                    let outcome = try Migration.migrate(domain.defaults, to: scenario.target, options: scenario.options)
                    #expect(domain.normalized() == expected.file, "\(dataset) \(scenario)")
                    try expectSameOutcome(outcome, expected.outcome, "\(dataset) \(scenario)")
                    compared += 1
                    // Idempotent: a second call changes nothing.
                    let before = domain.normalized()
                    let secondRun = try tool(domain.exported(), ["--to", scenario.target.rawValue] + scenario.flags)
                    let again = try Migration.migrate(domain.defaults, to: scenario.target, options: scenario.options)
                    // Unchanged; or skipped where the first call left no state (every record dropped).
                    #expect(again.status == (domain.dictionary.contains { $0.key.hasPrefix("YCFirstTime") || $0.key.hasPrefix("interval.") }
                                             ? .unchanged : .skipped), "\(dataset) \(scenario): second call")
                    try expectSameOutcome(again, secondRun.outcome, "\(dataset) \(scenario): second call")
                    #expect(domain.normalized() == before, "\(dataset) \(scenario): second call wrote")
                    // Roll back, with the library and with the tool, from the migrated state.
                    let rollback = try tool(domain.exported(), ["--to", "legacy"])
                    let back = try Migration.migrate(domain.defaults, to: .legacy)
                    #expect(domain.normalized() == rollback.file, "\(dataset) \(scenario): rollback")
                    try expectSameOutcome(back, rollback.outcome, "\(dataset) \(scenario): rollback")
                    // ycft's own decoder reads the library's archive: the same records (versions
                    // and timeless records are gone only where the scenario dropped them).
                    var expectedRecords = source
                    if scenario.options.dropVersions {
                        expectedRecords = try FirstTimeRecords(source.compactMap { entry in
                            entry.record.lastTime.map { (entry.key, FirstTimeRecord(lastTime: $0 + IntervalKey.epochOffset - IntervalKey.epochOffset)) }
                        })
                    }
                    guard case let .data(archive)? = domain.value(LegacyArchive.defaultsKey) else {
                        #expect(expectedRecords.count == 0 && back.status == .skipped, "\(dataset) \(scenario): no archive after rollback")
                        return
                    }
                    #expect(try ArchiveReader.decode(archive) == expectedRecords, "\(dataset) \(scenario): records after rollback")
                }
            }
        }
        #expect(compared >= 100)
        // The unicode-keys fixture and its dataset hold "é" and "e\u{301}": refused only where Foundation merges them.
        #expect(refusedOnLinux == (FoundationValues.mergesEquivalentKeys ? 2 * Self.scenarios.count : 0))
    }

    /// The records ycft reads from a domain (what any migration starts from).
    func ycftRecords(_ entries: [(key: String, value: PlistValue)]) throws -> FirstTimeRecords {
        let bytes = try PropertyList.write(.dictionary(PlistDictionary(entries)), format: .binary)
        return try StateFile(bytes).state().records
    }

    /// Where Linux Foundation merges two of the dataset's keys: block keys that are canonically
    /// equivalent (the unarchiver's nested dictionaries and UserDefaults' are Swift dictionaries).
    func linuxMerge(_ dataset: Dataset, _ records: FirstTimeRecords) -> (String, String)? {
        guard FoundationValues.mergesEquivalentKeys else { return nil }
        var seen: [String: String] = [:]
        for (key, _) in records {
            if let earlier = seen[key] { return (earlier, key) }
            seen[key] = key
        }
        return nil
    }

    func expectLinuxRefusal(_ domain: TestDomain, _ scenario: Scenario, _ merge: (String, String)) throws {
        let before = domain.normalized()
        // The second opinion sees fewer records than ycft: nothing is migrated.
        #expect {
            try Migration.migrate(domain.defaults, to: scenario.target, options: scenario.options)
        } throws: { error in
            guard case .foundationReadsOtherRecords(key: _)? = error as? Migration.Failure else { return false }
            return "\(error)".contains("Foundation's NSKeyedUnarchiver reads other records")
        }
        // Without it, UserDefaults could not hold the keys apart: refused before anything is written.
        var options = scenario.options
        options.checksWithFoundation = false
        #expect {
            try Migration.migrate(domain.defaults, to: scenario.target, options: options)
        } throws: { error in
            guard case let .unwritable(cause)? = error as? Migration.Failure, case .equivalentKeys = cause else { return false }
            return cause.description.contains("canonically equivalent")
        }
        #expect(domain.normalized() == before)
    }

    func expectSameOutcome(_ library: Migration.Outcome, _ tool: Migration.Outcome, _ label: String) throws {
        #expect(library.status == tool.status, "\(label)")
        #expect(library.recordCount == tool.recordCount, "\(label)")
        #expect(library.added == tool.added, "\(label)")
        #expect(Set(library.removed) == Set(tool.removed), "\(label)")
        #expect(library.changed == tool.changed, "\(label)")
        #expect(library.droppedVersions == tool.droppedVersions, "\(label)")
        #expect(library.droppedRecords == tool.droppedRecords, "\(label)")
        #expect(library.findings == tool.findings, "\(label)")
    }

    /// What `ycft migrate ARGS -o -` writes for a file (normalized), and the outcome the tool's
    /// library reports for it (the CLI's report, without parsing its text).
    func tool(_ file: [UInt8], _ arguments: [String]) throws -> (file: PlistValue, outcome: Migration.Outcome) {
        let dir = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("domain.plist")
        try Data(file).write(to: path)
        let run = try runSpawned(TestPaths.executable("ycft"), ["migrate"] + arguments + ["-o", "-", path.path])
        #expect(run.status == 0, "ycft migrate \(arguments): \(run.stderr)")
        var (target, options) = (Migration.Target.records, Migration.Options())
        var i = 0
        while i < arguments.count {
            switch arguments[i] {
            case "--to": target = Migration.Target(rawValue: arguments[i + 1]) ?? .records; i += 1
            case "--keep-source": options.keepSource = true
            case "--drop-versions": options.dropVersions = true
            case "--force": options.force = true
            default: break
            }
            i += 1
        }
        let outcome = try Migration.migrate(file, to: target, options: options)
        if let output = outcome.output { #expect(output == run.stdout, "the tool and Migration.migrate agree") }
        return (normalize(try LibPlist.read(run.stdout).value), outcome)
    }
}

/// Property-list values with every dictionary's keys in UTF-8 order (a UserDefaults domain has
/// no order); everything else, archive data included, exactly as it is.
func normalize(_ value: PlistValue) -> PlistValue {
    switch value {
    case let .dictionary(d): return .dictionary(PlistDictionary(d.entries.map { ($0.key, normalize($0.value)) }.sorted { utf8Precedes($0.0, $1.0) }))
    case let .array(items): return .array(items.map(normalize))
    default: return value
    }
}

/// A fresh `UserDefaults(suiteName:)` domain, removed afterwards.
struct TestDomain {
    let name: String
    let defaults: UserDefaults

    static func with(_ entries: [(key: String, value: PlistValue)], _ body: (TestDomain) throws -> Void) throws {
        try UserDefaultsTests.exclusively { try withDomain(entries, body) }
    }

    private static func withDomain(_ entries: [(key: String, value: PlistValue)], _ body: (TestDomain) throws -> Void) throws {
        let name = "ycft.tests.\(UUID().uuidString)"
        guard let defaults = UserDefaults(suiteName: name) else { Issue.record("no suite"); return }
        defer { defaults.removePersistentDomain(forName: name) }
        for (key, value) in entries { defaults.set(try FoundationValues.object(value, at: .key(key)), forKey: key) }
        try body(TestDomain(name: name, defaults: defaults))
    }

    /// The domain's own keys and values (what an export writes).
    var dictionary: PlistDictionary {
        let domain = defaults.persistentDomain(forName: name) ?? [:]
        return PlistDictionary(domain.keys.sorted(by: utf8Precedes).compactMap { key in
            defaults.object(forKey: key).flatMap(FoundationValues.value).map { (key, $0) }
        })
    }

    func normalized() -> PlistValue { normalize(.dictionary(dictionary)) }

    func value(_ key: String) -> PlistValue? { dictionary[key] }

    /// The domain exported as a binary plist file.
    func exported() throws -> [UInt8] { try PropertyList.write(.dictionary(dictionary), format: .binary) }
}

/// `force` and conflicts mean what they mean to the tool, in each direction.
@Suite(.serialized) struct ForceAgreesWithTheToolTests {
    @Test func conflictsAndForceAsTheTool() throws {
        let state = records([("onboarding", "2.1.0", 757_414_800.123456), ("rate", nil, -0.0)])
        let other = records([("onboarding", "1.0", 1)])
        let archive = PlistValue.data(try LegacyArchive.encode(state, format: .binary))
        let otherArchive = PlistValue.data(try LegacyArchive.encode(other, format: .binary))
        let cases: [(label: String, entries: [(key: String, value: PlistValue)], target: Migration.Target)] = [
            ("records over other records", [(LegacyArchive.defaultsKey, archive), (RecordsFormat.defaultsKey, RecordsFormat.plist(other))], .records),
            ("interval over another interval value", [(LegacyArchive.defaultsKey, archive), ("interval.onboarding", .real(5))], .interval),
            ("legacy over another archive", [(RecordsFormat.defaultsKey, RecordsFormat.plist(state)), (LegacyArchive.defaultsKey, otherArchive)], .legacy),
        ]
        let suite = AgreesWithTheToolTests()
        for (label, entries, target) in cases {
            try TestDomain.with(entries) { domain in
                let file = try domain.exported()
                let before = domain.normalized()
                let toolFailure = Result { () throws(Migration.Failure) in try Migration.migrate(file, to: target) }
                guard case let .failure(expected) = toolFailure else { Issue.record("\(label): the tool did not refuse"); return }
                #expect(throws: expected, "\(label)") { try Migration.migrate(domain.defaults, to: target) }
                #expect(domain.normalized() == before, "\(label): written")
                let forced = try suite.tool(file, ["--to", target.rawValue, "--force"])
                let outcome = try Migration.migrate(domain.defaults, to: target, options: .init(force: true))
                #expect(domain.normalized() == forced.file, "\(label) --force")
                #expect(outcome.changed == forced.outcome.changed && !outcome.changed.isEmpty, "\(label) --force")
                #expect(outcome.added == forced.outcome.added, "\(label) --force")
            }
        }
    }
}
