import Foundation
import Testing
import FirstTimeArchive
import FirstTimeCore
import KeyedArchive
import OrderedJSON
import Plist
import PlistCore
import TestSupport

/// One row of `Fixtures/manifest.json`.
struct ManifestEntry: Sendable, CustomTestStringConvertible {
    var file: String
    var producer: String
    var purpose: String
    var records: String?
    var error: String?
    var rules: [String]
    var raw: String?
    var generated: Bool

    var testDescription: String { file }

    var json: JSON {
        .object([
            .init("file", .string(file)),
            .init("producer", .string(producer)),
            .init("purpose", .string(purpose)),
            .init("records", records.map { .string($0) } ?? .null),
            .init("error", error.map { .string($0) } ?? .null),
            .init("rules", .array(rules.map { .string($0) })),
            .init("raw", raw.map { .string($0) } ?? .null),
            .init("generated", .bool(generated)),
        ])
    }

    init(file: String, producer: String, purpose: String, records: String?, error: String?, rules: [String],
         raw: String?, generated: Bool) {
        (self.file, self.producer, self.purpose, self.records, self.error, self.rules, self.raw, self.generated) =
            (file, producer, purpose, records, error, rules, raw, generated)
    }

    init(_ definition: FixtureDefinition) {
        var error: String?
        if case let .error(message) = definition.expectation { error = message }
        self.init(file: definition.file, producer: definition.producer, purpose: definition.purpose,
                  records: definition.recordsFile, error: error, rules: definition.rules,
                  raw: definition.rawFile, generated: true)
    }

    init(json: JSON) throws {
        func string(_ key: String) -> String? {
            json.members?.first { $0.key == key }.flatMap { if case let .string(s) = $0.value { return s }; return nil }
        }
        guard let file = string("file"), let producer = string("producer"), let purpose = string("purpose") else {
            throw FixtureError(message: "manifest entry without file, producer or purpose: \(json.text(style: .compact))")
        }
        let generated = json.members?.first { $0.key == "generated" }?.value == .bool(true)
        var rules: [String] = []
        if case let .array(items)? = json.members?.first(where: { $0.key == "rules" })?.value {
            rules = items.compactMap { if case let .string(s) = $0 { return s }; return nil }
        }
        self.init(file: file, producer: producer, purpose: purpose, records: string("records"), error: string("error"),
                  rules: rules, raw: string("raw"), generated: generated)
    }
}

struct FixtureError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

enum Manifest {
    static let url = TestPaths.fixtures.appendingPathComponent("manifest.json")

    static func load() throws -> [ManifestEntry] {
        let json = try JSON.parse(readBytes(url))
        guard case let .array(items)? = json.members?.first(where: { $0.key == "fixtures" })?.value else {
            throw FixtureError(message: "manifest.json has no fixtures array")
        }
        return try items.map(ManifestEntry.init(json:))
    }

    static func text(_ entries: [ManifestEntry]) -> String {
        JSON.object([
            .init("formatVersion", .integer(1)),
            .init("fixtures", .array(entries.map(\.json))),
        ]).text()
    }

    /// Entries for the test arguments; an unreadable manifest yields none and fails `manifestIsCurrent`.
    static var entriesForTests: [ManifestEntry] { (try? load()) ?? [] }
}

let updating = ProcessInfo.processInfo.environment["UPDATE_FIXTURES"] == "1"

/// `ycft dump --raw` of a fixture file, as text.
func rawDump(_ url: URL) throws -> String {
    try ArchiveDump.raw(LibPlist.read(readBytes(url)).value).text()
}

@Suite(.serialized) struct FixtureCorpusIsCurrent {
    /// Regenerates with UPDATE_FIXTURES=1 (and fails, so nothing passes while recording); a
    /// normal run only compares and never writes into Fixtures/.
    @Test func generatedFixturesAndManifestAreCurrent() throws {
        let definitions = FixtureCorpus.definitions
        let existing = (try? Manifest.load()) ?? []
        let handAdded = existing.filter { !$0.generated }
        let expected = definitions.map(ManifestEntry.init) + handAdded
        if updating {
            for definition in definitions {
                let url = TestPaths.fixtures.appendingPathComponent(definition.file)
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try writeBytes(try definition.make(), to: url)
                if case let .records(records) = definition.expectation, let recordsFile = definition.recordsFile {
                    try writeBytes(Array(RecordsFormat.jsonText(records).utf8),
                                   to: TestPaths.fixtures.appendingPathComponent(recordsFile))
                }
                if let rawFile = definition.rawFile {
                    try writeBytes(Array(try rawDump(url).utf8), to: TestPaths.fixtures.appendingPathComponent(rawFile))
                }
            }
            try writeBytes(Array(Manifest.text(expected).utf8), to: Manifest.url)
            Issue.record("UPDATE_FIXTURES=1: regenerated \(definitions.count) fixtures and manifest.json; review the diff and run again without it")
            return
        }
        let manifestText = String(decoding: try readBytes(Manifest.url), as: UTF8.self)
        #expect(manifestText == Manifest.text(expected), "manifest.json is stale: run UPDATE_FIXTURES=1 swift test --filter ContractTests")
        for definition in definitions {
            let url = TestPaths.fixtures.appendingPathComponent(definition.file)
            let stored = try readBytes(url)
            if definition.reproducible {
                let made = try definition.make()
                #expect(made == stored, "\(definition.file) changed: \(firstDifference(made, stored))")
            }
            if case let .records(records) = definition.expectation, let recordsFile = definition.recordsFile {
                let storedJSON = String(decoding: try readBytes(TestPaths.fixtures.appendingPathComponent(recordsFile)), as: UTF8.self)
                #expect(storedJSON == RecordsFormat.jsonText(records), "\(recordsFile) is stale")
            }
        }
    }

    @Test func everyFileInFixturesIsInTheManifest() throws {
        let entries = try Manifest.load()
        let listed = Set(entries.flatMap { [$0.file] + [$0.records, $0.raw].compactMap { $0 } } + ["README.md", "manifest.json"])
        let root = TestPaths.fixtures.path
        var orphans: [String] = []
        let enumerator = FileManager.default.enumerator(atPath: root)!
        while let relative = enumerator.nextObject() as? String {
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: "\(root)/\(relative)", isDirectory: &isDirectory)
            if !isDirectory.boolValue && !listed.contains(relative) { orphans.append(relative) }
        }
        #expect(orphans.sorted() == [], "files in Fixtures/ that manifest.json does not list")
        for entry in entries {
            #expect(FileManager.default.fileExists(atPath: "\(root)/\(entry.file)"), "\(entry.file) is listed but missing")
            #expect((entry.records == nil) != (entry.error == nil), "\(entry.file) needs exactly one of records or error")
        }
    }
}

@Suite struct FixtureContract {
    /// Every valid fixture decodes to exactly its expected records; every invalid one fails with
    /// exactly its expected error.
    @Test(arguments: Manifest.entriesForTests)
    func decodesAsExpected(_ entry: ManifestEntry) throws {
        let bytes = try readBytes(TestPaths.fixtures.appendingPathComponent(entry.file))
        if let recordsFile = entry.records {
            let expected = try RecordsFormat.records(fromJSON: readBytes(TestPaths.fixtures.appendingPathComponent(recordsFile)))
            let decoded = try StateFile(bytes).state().records
            #expect(decoded == expected)
            // Re-encoded by ycft, it decodes to the same records.
            #expect(try ArchiveReader.decode(LegacyArchive.encode(decoded, format: .binary)) == expected)
        } else if let error = entry.error {
            #expect(throws: FirstTimeError.self) { try StateFile(bytes).state() }
            do {
                _ = try StateFile(bytes).state().records
            } catch let thrown {
                #expect(thrown.description == error)
            }
        }
    }

    /// `ycft verify` reports exactly the manifest's rules for every fixture.
    @Test(arguments: Manifest.entriesForTests)
    func verifyReportsTheExpectedRules(_ entry: ManifestEntry) throws {
        let bytes = try readBytes(TestPaths.fixtures.appendingPathComponent(entry.file))
        #expect(StateFile.verify(bytes).map(\.rule.rawValue) == entry.rules)
    }

    /// Every valid fixture, re-encoded by ycft, passes verify with no finding at all.
    @Test(arguments: Manifest.entriesForTests.filter { $0.records != nil })
    func reencodedValidFixturesPassVerify(_ entry: ManifestEntry) throws {
        let records = try StateFile(readBytes(TestPaths.fixtures.appendingPathComponent(entry.file))).state().records
        let reencoded = try LegacyArchive.encode(records, format: .binary)
        let findings = StateFile.verify(reencoded)
        if records.contains(where: { $0.record.lastTime.map { !$0.isFinite } ?? false }) {
            #expect(findings.allSatisfy { $0.rule == .timeNonFinite })
        } else {
            #expect(findings == [])
        }
    }

    /// `ycft dump --raw` output is locked by a golden for the fixtures that have one.
    @Test(arguments: Manifest.entriesForTests.filter { $0.raw != nil })
    func rawDumpMatchesItsGolden(_ entry: ManifestEntry) throws {
        let golden = String(decoding: try readBytes(TestPaths.fixtures.appendingPathComponent(entry.raw!)), as: UTF8.self)
        #expect(try rawDump(TestPaths.fixtures.appendingPathComponent(entry.file)) == golden)
    }

    /// ycft's own fixtures are the golden bytes: encoding the expected records reproduces them.
    @Test(arguments: Manifest.entriesForTests.filter { $0.producer == "ycft" })
    func ycftFixturesAreReproducedByteForByte(_ entry: ManifestEntry) throws {
        let stored = try readBytes(TestPaths.fixtures.appendingPathComponent(entry.file))
        let expected = try RecordsFormat.records(fromJSON: readBytes(TestPaths.fixtures.appendingPathComponent(entry.records!)))
        let format = PropertyList.detectFormat(stored)!
        let encoded = try LegacyArchive.encode(expected, format: format)
        #expect(encoded == stored, "\(entry.file): \(firstDifference(encoded, stored))")
    }
}

@Suite(.serialized) struct IndependentDecoderAcceptsYcftOutput {
    /// Linux Foundation merges canonically equivalent keys and the dates 0.0 and -0.0; those
    /// records are left out of the comparison (ycft's own round trips cover them exactly).
    static let linuxFoundationCannotKeep: [String: [String]] = [
        "valid/ycft/unicode-keys.plist": ["é", "e\u{301}"],
        "valid/ycft/times.plist": ["zero", "negative-zero"],
    ]

    @Test(arguments: Manifest.entriesForTests.filter { $0.producer == "ycft" })
    func linuxFoundationDecodesEveryYcftFixture(_ entry: ManifestEntry) throws {
        let bytes = try readBytes(TestPaths.fixtures.appendingPathComponent(entry.file))
        let decoded = try oracleDecode(bytes)
        #expect(decoded.root == "NSMutableDictionary")
        #expect(decoded.group == "NSMutableDictionary")
        var expected = try RecordsFormat.records(fromJSON: readBytes(TestPaths.fixtures.appendingPathComponent(entry.records!)))
        var actual = decoded.records
        for key in Self.linuxFoundationCannotKeep[entry.file] ?? [] {
            expected[key] = nil
            actual[key] = nil
        }
        #expect(actual == expected)
    }
}
