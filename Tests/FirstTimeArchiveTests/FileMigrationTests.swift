import Foundation
import Testing
import FirstTimeArchive
import FirstTimeCore
import Plist
import PlistCore
import TestSupport

/// The defaults fixtures: written by ycft (binary, XML) and in CoreFoundation's manner.
let defaultsFixtures = ["valid/defaults/export.binary.plist", "valid/defaults/export.xml.plist",
                        "valid/defaults/export.apple-order.plist"]

func migrate(_ bytes: [UInt8], _ target: Migration.Target, _ configure: (inout Migration.Options) -> Void = { _ in })
    throws -> Migration.Outcome {
    var options = Migration.Options()
    configure(&options)
    return try Migration.migrate(bytes, to: target, options: options)
}

func dictionary(_ bytes: [UInt8]) throws -> PlistDictionary {
    try LibPlist.read(bytes).value.dictionaryValue!
}

/// Every key but the YCFirstTime ones, in order.
func unrelated(_ d: PlistDictionary) -> [(key: String, value: PlistValue)] {
    d.entries.filter { !$0.key.hasPrefix("YCFirstTime") && !$0.key.hasPrefix("interval.") }
}

@Suite struct MigrationRoundTrips {
    @Test(arguments: defaultsFixtures)
    func recordsThenIntervalThenLegacyIsExact(_ path: String) throws {
        let original = try readBytes(TestPaths.fixtures.appendingPathComponent(path))
        let originalRecords = try StateFile(original).state().records
        let originalDict = try dictionary(original)

        let toRecords = try migrate(original, .records)
        #expect(toRecords.status == .migrated)
        #expect(toRecords.added == ["YCFirstTime.records"])
        #expect(toRecords.removed == ["YCFirstTime"])
        let recordsDict = try dictionary(toRecords.output!)
        #expect(try RecordsFormat.records(fromPlist: recordsDict["YCFirstTime.records"]!) == originalRecords)
        #expect(PlistDictionary(unrelated(recordsDict)) == PlistDictionary(unrelated(originalDict)))
        #expect(PropertyList.detectFormat(toRecords.output!) == PropertyList.detectFormat(original))

        let toInterval = try migrate(toRecords.output!, .interval)
        let intervalDict = try dictionary(toInterval.output!)
        for (key, record) in originalRecords {
            if let time = record.lastTime {
                #expect(intervalDict["interval.\(key)"] == .real(time + 978_307_200))
            } else {
                #expect(intervalDict["interval.\(key)"] == nil)
            }
        }

        let back = try migrate(toInterval.output!, .legacy)
        #expect(back.status == .migrated)
        let backDict = try dictionary(back.output!)
        #expect(try StateFile(back.output!).state().records == originalRecords)
        #expect(PlistDictionary(unrelated(backDict)) == PlistDictionary(unrelated(originalDict)))
        // The archive returns to its old position: the whole key order is the original's.
        #expect(backDict.map(\.key) == originalDict.map(\.key))
    }

    @Test func archiveToIntervalAndBackIsExactWithRecordsPresent() throws {
        let original = try readBytes(TestPaths.fixtures.appendingPathComponent("valid/defaults/export.binary.plist"))
        let interval = try migrate(original, .interval)
        #expect(interval.added == ["YCFirstTime.records", "interval.onboarding.v1", "interval.rate.prompt"])
        let back = try migrate(interval.output!, .legacy)
        #expect(back.output == original)
    }

    @Test func fromIntervalKeysAloneVersionsAreNil() throws {
        let file = PlistValue.dictionary(PlistDictionary([
            ("other", .string("x")), ("interval.daily", .real(1_735_722_000.5)), ("interval.legacyInt", .integer(.signed(978_307_300))),
        ]))
        let outcome = try migrate(try PropertyList.write(file, format: .binary), .legacy)
        #expect(outcome.removed == ["interval.daily", "interval.legacyInt"])
        #expect(try StateFile(outcome.output!).state().records
                == records([("daily", nil, 757_414_800.5), ("legacyInt", nil, 100)]))
        #expect(try dictionary(outcome.output!).map(\.key) == ["other", "YCFirstTime"])
    }

    @Test func dropVersionsSaysWhatWasLost() throws {
        let original = try readBytes(TestPaths.fixtures.appendingPathComponent("valid/defaults/export.binary.plist"))
        let outcome = try migrate(original, .interval) { $0.dropVersions = true }
        #expect(outcome.droppedVersions == ["onboarding.v1", "rate.prompt"])
        #expect(outcome.droppedRecords == ["whats-new"])
        #expect(outcome.roundedTimes == [])     // the fixture's times survive the count from 1970
        #expect(try dictionary(outcome.output!)["YCFirstTime.records"] == nil)
        // 0.1 s after 2001 does not: named when the keys alone will hold it, not when the
        // records stay beside them.
        let archive = try LegacyArchive.encode(FirstTimeRecords([("a", FirstTimeRecord(lastTime: 0.1)), ("b", FirstTimeRecord(lastTime: 2))]),
                                               format: .binary)
        let file = try PropertyList.write(.dictionary(PlistDictionary([("YCFirstTime", .data(archive))])), format: .binary)
        #expect(try migrate(file, .interval) { $0.dropVersions = true }.roundedTimes == ["a"])
        #expect(try migrate(file, .interval).roundedTimes == [])
        // Outcomes compare as values (an adopter's tests compare them whole).
        #expect(try migrate(file, .interval) == migrate(file, .interval))
        #expect(try migrate(file, .interval) != migrate(file, .interval) { $0.dropVersions = true })
    }

    /// Beside IntervalClient's own gate, dropping the versions is refused, in the library's
    /// words (an app logs them): the option, never a command-line flag.
    @Test func dropVersionsBesideAnOwnGateIsRefusedWithoutNamingAFlag() throws {
        var file = try dictionary(readBytes(TestPaths.fixtures.appendingPathComponent("valid/defaults/export.binary.plist")))
        file["interval.app.sync"] = .real(1.7e9)
        let bytes = try PropertyList.write(.dictionary(file), format: .binary)
        #expect(throws: Migration.Failure.intervalGate(key: "interval.app.sync")) { try migrate(bytes, .interval) { $0.dropVersions = true } }
        #expect(Migration.Failure.intervalGate(key: "interval.app.sync").description == "\"interval.app.sync\" is IntervalClient's own gate, "
            + "not a YCFirstTime record: with the versions dropped the file would hold only interval.* keys and that gate would be read "
            + "as YCFirstTime state; keep the versions (YCFirstTime.records stays beside the keys)")
    }
}

@Suite struct MigrationRules {
    let original: [UInt8]
    init() throws { original = try readBytes(TestPaths.fixtures.appendingPathComponent("valid/defaults/export.binary.plist")) }

    @Test func idempotent() throws {
        let once = try migrate(original, .records)
        let twice = try migrate(once.output!, .records)
        #expect(twice.status == .unchanged)
        #expect(twice.output == nil)
        let legacyAgain = try migrate(original, .legacy)
        #expect(legacyAgain.status == .unchanged)
    }

    @Test func noSourceIsSkipped() throws {
        let file = try PropertyList.write(.dictionary(PlistDictionary([("a", .bool(true))])), format: .binary)
        for target in Migration.Target.allCases {
            #expect(try migrate(file, target).status == .skipped)
        }
    }

    @Test func conflictFailsUnlessForced() throws {
        var dict = try dictionary(original)
        dict["YCFirstTime.records"] = RecordsFormat.plist(records([("other", "9", 1)]))
        let file = try PropertyList.write(.dictionary(dict), format: .binary)
        #expect(throws: Migration.Failure.conflict(key: "YCFirstTime.records")) {
            try migrate(file, .records)
        }
        #expect("\(Migration.Failure.conflict(key: "YCFirstTime.records"))" == "\"YCFirstTime.records\" already exists with different content")
        let forced = try migrate(file, .records) { $0.force = true }
        #expect(forced.changed == ["YCFirstTime.records"])
        #expect(try RecordsFormat.records(fromPlist: dictionary(forced.output!)["YCFirstTime.records"]!)
                == StateFile(original).state().records)
    }

    /// `--key YCFirstTime.records`: the archive is under the plain format's own key, so the key
    /// is both removed (the source) and written back (the target); forced, the file is compared
    /// key by key and the key is said changed in place, every other key kept in its place.
    @Test func archiveUnderThePlainKeyIsChangedInPlace() throws {
        let dict = try dictionary(original)
        let moved = PlistDictionary(dict.entries.map { ($0.key == "YCFirstTime" ? "YCFirstTime.records" : $0.key, $0.value) })
        let file = try PropertyList.write(.dictionary(moved), format: .binary)
        #expect(throws: Migration.Failure.conflict(key: "YCFirstTime.records")) {
            try migrate(file, .records) { $0.key = "YCFirstTime.records" }
        }
        let forced = try migrate(file, .records) { ($0.key, $0.force) = ("YCFirstTime.records", true) }
        #expect(forced.status == .migrated)
        #expect((forced.removed, forced.added, forced.changed) == ([], [], ["YCFirstTime.records"]))
        let written = try dictionary(forced.output!)
        #expect(written.map(\.key) == moved.map(\.key))
        #expect(written["YCFirstTime.records"] == RecordsFormat.plist(try StateFile(original).state().records))
        #expect(unrelated(written).elementsEqual(unrelated(moved)) { $0.key == $1.key && $0.value == $1.value })
    }

    @Test func keepSource() throws {
        let kept = try migrate(original, .records) { $0.keepSource = true }
        #expect(kept.removed == [])
        let dict = try dictionary(kept.output!)
        #expect(dict["YCFirstTime"] == (try dictionary(original))["YCFirstTime"])
        #expect(dict.map(\.key).last == "YCFirstTime.records")
        #expect(try migrate(kept.output!, .records) { $0.keepSource = true }.status == .unchanged)
    }

    @Test func fractionalDateRefusesXMLOutput() {
        #expect {
            try migrate(original, .records) { $0.outputFormat = .xml }
        } throws: { error in
            guard case .unwritablePlist(.unwritable)? = error as? Migration.Failure else { return false }
            return "\(error)" == "cannot write value: date 757414800.5 has a fraction of a second or lies outside years 1-9999; XML dates hold whole seconds (at InstallDate)"
        }
    }

    @Test func xmlFileConvertsToBinary() throws {
        let xml = try readBytes(TestPaths.fixtures.appendingPathComponent("valid/defaults/export.xml.plist"))
        let outcome = try migrate(xml, .records) { $0.outputFormat = .binary }
        #expect(PropertyList.detectFormat(outcome.output!) == .binary)
        #expect(PlistDictionary(unrelated(try dictionary(outcome.output!))) == PlistDictionary(unrelated(try dictionary(xml))))
    }

    @Test func brokenArchiveFails() throws {
        let file = try PropertyList.write(.dictionary(PlistDictionary([("YCFirstTime", .data([1, 2, 3]))])), format: .binary)
        #expect {
            try migrate(file, .records)
        } throws: { error in
            guard case .unreadable(.embeddedNotPlist(key: "YCFirstTime", _), archiveKey: "YCFirstTime")? = error as? Migration.Failure
            else { return false }
            return "\(error)" == #""YCFirstTime" holds data that is not an archive: not a property list (neither binary 'bplist00' nor XML)"#
        }
        let notData = try PropertyList.write(.dictionary(PlistDictionary([("YCFirstTime", .string("x"))])), format: .binary)
        let notArchiveData = Migration.Failure.unreadable(.notArchiveData(key: "YCFirstTime", found: .string), archiveKey: "YCFirstTime")
        #expect(throws: notArchiveData) { try migrate(notData, .records) }
        #expect("\(notArchiveData)" == "\"YCFirstTime\" holds string, expected archive data")
    }

    @Test func archiveIsNotADefaultsFile() throws {
        let archive = try LegacyArchive.encode(records([("k", nil, 1)]), format: .binary)
        #expect(throws: Migration.Failure.notDefaults(found: .dictionary)) { try migrate(archive, .records) }
        #expect("\(Migration.Failure.notDefaults(found: .dictionary))" == "top level: the file is a keyed archive, not a defaults domain")
    }
}
