import Foundation
import Testing
import FirstTimeArchive
import FirstTimeCore
import Plist
import PlistCore
import TestSupport
import FileErrors

/// The one file classifier: what a file holds, read and judged the same way everywhere.
@Suite struct StateFileClassifier {
    func defaults(_ entries: [(String, PlistValue)], format: PlistFormat = .binary) throws -> [UInt8] {
        try PropertyList.write(.dictionary(PlistDictionary(entries.map { (key: $0.0, value: $0.1) })), format: format)
    }

    let sample = records([("a", "1.0", 10), ("b", nil, 20)])

    @Test func everyKindOfFile() throws {
        let archive = try LegacyArchive.encode(sample, format: .binary)
        #expect(try StateFile(archive).forms == [.archive])
        #expect(try StateFile(defaults([("x", .bool(true)), ("YCFirstTime", .data(archive))])).forms == [.defaultsArchive])
        #expect(try StateFile(defaults([("YCFirstTime.records", RecordsFormat.plist(sample))])).forms == [.plainRecords])
        #expect(try StateFile(defaults([("interval.a", .real(1))])).forms == [.intervalKeys])
        #expect(try StateFile(defaults([("YCFirstTime", .data(archive)), ("YCFirstTime.records", RecordsFormat.plist(sample)),
                                        ("interval.a", .real(10 + IntervalKey.epochOffset))])).forms
                == [.defaultsArchive, .plainRecords, .intervalKeys])
        let none = try StateFile(defaults([("x", .bool(true))]))
        #expect(none.forms == [])
        #expect(throws: FirstTimeError.keyNotFound("YCFirstTime")) { try none.state() }
        #expect(none.check() == [ContractFinding(.stateMissing, at: .file,
                                                 #"no "YCFirstTime" key: not a YCFirstTime archive or a defaults file holding one"#)])
    }

    @Test func aMigratedFilePassesVerify() throws {
        let original = try readBytes(TestPaths.fixtures.appendingPathComponent("valid/defaults/export.binary.plist"))
        for target in Migration.Target.allCases where target != .legacy {
            let migrated = try #require(try Migration.migrate(original, to: target).output)
            #expect(StateFile.verify(migrated) == [], "\(target)")
            #expect(try StateFile(migrated).state().records.count == 3)
        }
    }

    @Test func copiesThatDisagreeAreReported() throws {
        let archive = try LegacyArchive.encode(sample, format: .binary)
        var other = sample
        other["a"] = FirstTimeRecord(lastVersion: "2.0", lastTime: 10)
        let bytes = try defaults([("YCFirstTime", .data(archive)), ("YCFirstTime.records", RecordsFormat.plist(other))])
        let expected = ContractFinding(.statesDisagree, at: .file,
                                       #"the defaults-archive state and its plain-records copy differ ("a"); ycft reads the defaults-archive one"#)
        #expect(StateFile.verify(bytes) == [expected])
        let state = try StateFile(bytes).state()
        #expect(state.records == sample)
        #expect(state.findings == [expected])
        // Interval keys hold no versions: only times are compared, so an agreeing copy is quiet.
        let agreeing = try defaults([("YCFirstTime.records", RecordsFormat.plist(sample)),
                                     ("interval.a", .real(10 + IntervalKey.epochOffset)), ("interval.b", .integer(.signed(Int64(20 + IntervalKey.epochOffset))))])
        #expect(StateFile.verify(agreeing) == [])
    }

    @Test func theRecordsFormatIsJudgedByItsOwnRules() throws {
        let broken = try defaults([("YCFirstTime.records", .string("not a dictionary"))])
        #expect(StateFile.verify(broken).map(\.rule) == [.recordsFormat])
        #expect(throws: FirstTimeError.self) { try StateFile(broken).state() }
    }

    @Test func updateWritesOnlyAChangeAndNothingOnFailure() throws {
        let dir = try TestPaths.temporaryDirectory()
        let path = dir.appendingPathComponent("d.plist").path
        let interval = try defaults([("interval.a", .real(10 + IntervalKey.epochOffset)), ("other", .string("kept"))])
        try writeBytes(interval, to: URL(fileURLWithPath: path))
        #expect(try StateFile.update(at: path) { _ in } == false)
        // IntervalClient keys cannot hold a version: refused, the file named, the file untouched.
        #expect(throws: FirstTimeError.inFile(path: path, .intervalKeysHoldNoVersion(keys: ["a"]))) {
            try StateFile.update(at: path) { $0["a"] = FirstTimeRecord(lastVersion: "1", lastTime: 5) }
        }
        #expect(try readBytes(URL(fileURLWithPath: path)) == interval)
        #expect(try StateFile.update(at: path) { $0["a"] = FirstTimeRecord(lastTime: 5) })
        #expect(try StateFile(contentsOf: path).state().records == records([("a", nil, 5)]))
        #expect(try dictionary(readBytes(URL(fileURLWithPath: path))).map(\.key) == ["interval.a", "other"])
        // Every error of a call given a path names the file (an app logs the error alone).
        let missing = dir.appendingPathComponent("missing").path
        #expect(throws: FirstTimeError.inFile(path: missing, .file(FileError(.read, missing, .system(SystemError(errno: ENOENT)))))) {
            try StateFile(contentsOf: missing)
        }
        do {
            _ = try StateFile(contentsOf: missing)
        } catch {
            #expect(error.description == "\(missing): cannot read: No such file or directory")
        }
    }

    /// A defaults file with no state yet: the first change creates it (the archive under the
    /// key, after every other key), as YCFirstTime's first save and `ycft set` do; no change,
    /// no write. An adopter could not create state this way (the update threw "no key").
    @Test func updateCreatesStateInADefaultsFileWithNone() throws {
        let path = try TestPaths.temporaryDirectory().appendingPathComponent("fresh.plist").path
        let before = try defaults([("Theme", .string("dark")), ("Launches", .integer(.signed(3)))])
        try writeBytes(before, to: URL(fileURLWithPath: path))
        #expect(try StateFile.update(at: path) { _ in } == false)
        #expect(try readBytes(URL(fileURLWithPath: path)) == before)
        #expect(try StateFile.update(at: path) { $0["tour"] = FirstTimeRecord(lastVersion: "1.0", lastTime: 757_414_800) })
        let after = try StateFile(contentsOf: path)
        #expect(after.forms == [.defaultsArchive])
        #expect(try after.state().records == FirstTimeRecords([("tour", FirstTimeRecord(lastVersion: "1.0", lastTime: 757_414_800))]))
        #expect(try dictionary(readBytes(URL(fileURLWithPath: path))).map(\.key) == ["Theme", "Launches", "YCFirstTime"])
    }

    struct Veto: Error, Equatable { let count: Int }

    /// An edit the app's own check vetoes: its error comes out as thrown and nothing is
    /// written; the cycle's own errors stay `FirstTimeError`s. A closure that throws nothing,
    /// or only `FirstTimeError`, still gets the typed `update` (this function would not
    /// compile otherwise).
    @Test func anEditCanBeVetoedWithTheAppsOwnError() throws {
        let dir = try TestPaths.temporaryDirectory()
        let path = dir.appendingPathComponent("d.plist").path
        let before = try defaults([("interval.a", .real(10 + IntervalKey.epochOffset)), ("other", .string("kept"))])
        try writeBytes(before, to: URL(fileURLWithPath: path))
        #expect(throws: Veto(count: 2)) {
            try StateFile.update(at: path) { (records: inout FirstTimeRecords) throws(Veto) in
                records["b"] = FirstTimeRecord(lastTime: 7)
                throw Veto(count: records.count)
            }
        }
        #expect(try readBytes(URL(fileURLWithPath: path)) == before)
        let missing = dir.appendingPathComponent("missing").path
        #expect(throws: FirstTimeError.self) {
            try StateFile.update(at: missing) { (records: inout FirstTimeRecords) throws(Veto) in records["b"] = FirstTimeRecord() }
        }
        func typed() throws(FirstTimeError) -> Bool { try StateFile.update(at: path) { $0["b"] = FirstTimeRecord(lastTime: 7) } }
        #expect(try typed())
        #expect(try StateFile(contentsOf: path).state().records == records([("a", nil, 10), ("b", nil, 7)]))
    }

    /// The one judge: every file or key that is not YCFirstTime state is refused with the same
    /// typed error by reading (`heldState`, `state`) and by every writer (`write`, `reset`,
    /// `put`), which write nothing. A value that is not data too: only the device's answer
    /// (`deviceState`, below) and a forced write read it as the empty state the app starts from.
    @Test(arguments: NotStateFiles.all + NotStateFiles.notData)
    func whatIsNotStateIsRefusedByTheJudgeAndEveryWriter(_ sample: NotStateFile) throws {
        let file = try StateFile(sample.bytes, key: sample.key ?? LegacyArchive.defaultsKey)
        var judged: FirstTimeError?
        do { _ = try file.heldState() } catch { judged = error }
        let error = try #require(judged)
        #expect(error.description == sample.judgement)
        #expect(throws: error) { try file.state() }
        #expect(throws: error) { try StateEdit(file).apply(.reset) }
        // With force, data the device discards unread goes from a defaults file as YCFirstTime's
        // reset() removes its key, under YCFirstTime's own key only (under --key it may be
        // another program's); the rest of the file stays. Anything else is still refused.
        if file.isDefaults, sample.key == nil, sample.deviceDiscards != nil {
            let reset = try #require(try StateEdit(file, options: .init(force: true)).apply(.reset))
            #expect(reset.dropped == [])
            #expect(reset.removedUnread?.key == file.key && reset.removedUnread?.finding == error.finding)
            let before = try dictionary(sample.bytes), after = try dictionary(reset.bytes)
            #expect(after.map(\.key) == before.map(\.key).filter { $0 != file.key })
            #expect(try StateFile(reset.bytes, key: file.key).heldState() == nil)
        } else {
            #expect(throws: error) { try StateEdit(file, options: .init(force: true)).apply(.reset) }
        }
        #expect(throws: error) { try StateEdit(file).apply(.records(records([("k", nil, 1)]))) }
        let archive = try LegacyArchive.encode(records([("k", nil, 1)]), format: .binary)
        var refused: FirstTimeError?
        do { _ = try StateEdit(file).apply(.put(archive, of: records([("k", nil, 1)]))) } catch { refused = error }
        #expect(refused?.description == sample.defaultsJudgement)
        #expect(refused == (file.isDefaults ? error : .notDefaults(found: file.topLevelKind)))
        // verify judges it by the rule its error names.
        #expect(StateFile.verify(sample.bytes, key: sample.key ?? LegacyArchive.defaultsKey)
                .contains { $0.severity == .error && $0.rule == error.finding.rule })
    }

    /// A value under the key that is not data: the device reads no state from it
    /// (`UserDefaults.data(forKey:)` is nil) and starts afresh, so `deviceState` is the empty
    /// state with the `state-not-data` finding (a `resets-all` error), and a write replaces the
    /// value only when forced, saying so. `heldState`, `update` and the writers unforced refuse
    /// it as before.
    @Test(arguments: NotStateFiles.notData)
    func aValueThatIsNotDataReadsAsNoStateAndIsReplacedOnlyWhenForced(_ sample: NotStateFile) throws {
        let key = sample.key ?? LegacyArchive.defaultsKey
        let file = try StateFile(sample.bytes, key: key)
        let before = try dictionary(sample.bytes)
        let held = try #require(before[key])
        let article = held.kind == .integer ? "an integer" : held.kind == .string ? "a string" : "a dictionary"
        let device = "UserDefaults.data(forKey:) is nil for it, so the app starts afresh and its next save replaces it"
        let message = sample.key == nil ? "\"\(key)\" holds \(article), not archive data: \(device)"
            : "\"\(key)\" holds \(article), not archive data: \"\(key)\" may be the wrong key (YCFirstTime's is \"YCFirstTime\"); "
                + "an app that reads its archive there: \(device)"
        let finding = ContractFinding(.stateNotData, at: .file, message)
        #expect(try file.deviceState() == FirstTimeState(records: FirstTimeRecords(), form: .defaultsArchive, forms: [.defaultsArchive],
                                                         findings: [finding]))
        #expect(try file.deviceState()?.resetsAll == finding)
        #expect(try file.deviceState()?.dropped == [finding])
        #expect(StateFile.verify(sample.bytes, key: key) == [finding])
        #expect(finding.severity == .error && !finding.rule.isFatal && finding.rule.device == .resetsAll)
        #expect(try StateEdit(file, options: .init(force: true)).state() == file.deviceState())
        #expect(throws: FirstTimeError.notArchiveData(key: key, found: held.kind)) { try StateEdit(file).state() }
        // Forced, the archive takes the value's place, every other key kept.
        let archive = try LegacyArchive.encode(records([("k", nil, 1)]), format: .binary)
        let put = try #require(try StateEdit(file, options: .init(force: true)).apply(.put(archive, of: records([("k", nil, 1)]))))
        #expect(put.dropped == [finding])
        let after = try dictionary(put.bytes)
        #expect(after.map(\.key) == before.map(\.key))
        #expect(after[key] == .data(archive))
        for entry in before where entry.key != key { #expect(after[entry.key] == entry.value) }
        #expect(try StateEdit(file, options: .init(force: true)).apply(.records(records([("k", nil, 1)])))?.bytes == put.bytes)
        // The library's update has no force: it refuses, and writes nothing.
        let path = try TestPaths.temporaryDirectory().appendingPathComponent("p.plist")
        try writeBytes(sample.bytes, to: path)
        #expect(throws: FirstTimeError.inFile(path: path.path, .notArchiveData(key: key, found: held.kind))) {
            try StateFile.update(at: path.path, key: key) { $0["k"] = FirstTimeRecord(lastTime: 1) }
        }
        #expect(try readBytes(path) == sample.bytes)
    }

    @Test func aDefaultsDomainWithoutStateHoldsNone() throws {
        let file = try StateFile(NotStateFiles.noState)
        #expect(try file.heldState() == nil)
        #expect(throws: FirstTimeError.keyNotFound("YCFirstTime")) { try file.state() }
        #expect(try StateEdit(file).apply(.reset) == nil)
        let archive = try LegacyArchive.encode(sample, format: .binary)
        let put = try #require(try StateEdit(file).apply(.put(archive, of: sample)))
        #expect(put.dropped == [])
        #expect(try dictionary(put.bytes).map(\.key) == ["settings", "name", "count", "blob", "foreign", "plist", "AppSettings", "YCFirstTime"])
        #expect(try StateFile(put.bytes).state().records == sample)
    }

    /// What a rewrite drops is the state's findings the rule table marks `rewriteLoses`.
    @Test func aRewriteSaysWhatItDrops() throws {
        var objects = appleLayoutOneKey
        objects[5] = object([("lastVersion", .uid(6)), ("lastTime", .uid(7)), ("runCount", .integer(.signed(3))), ("$class", .uid(9))])
        let bytes = try PropertyList.write(archiveValue(objects), format: .binary)
        let file = try StateFile(bytes)
        let state = try file.state()
        let lost = ContractFinding(.recordUnknownKey, at: .object(5), #"unknown coder key "runCount" in record "k" (YCFirstTime ignores it)"#)
        #expect(state.findings == [lost])
        #expect(state.dropped == [lost])
        #expect(try StateEdit(file).apply(.records(state.records)) == nil)
        var changed = state.records
        changed["other"] = FirstTimeRecord(lastTime: 1)
        let rewrite = try #require(try StateEdit(file).apply(.records(changed)))
        #expect(rewrite.dropped == [lost])
        #expect(try ArchiveReader.read(rewrite.bytes) == ArchiveJudgement(records: changed))
        #expect(try StateEdit(file).apply(.reset) == StateEdit.Report(bytes: try LegacyArchive.encode(FirstTimeRecords(), format: .binary),
                                                                   dropped: [lost]))
        #expect(ContractRule.allCases.filter(\.rewriteLoses) == [.stateNotData, .statesDisagree, .envelopeExtraKey, .recordUnknownKey])
    }
}

/// The one state source over a defaults file's top level (`StateSource<PlistDictionary>`).
@Suite struct StateSourceOverADictionary {
    /// Every change in one pass: a key that is there keeps its place, nil removes, new keys go
    /// last in the order given, and a key changed twice takes its last change.
    @Test func changesKeepPlacesAndAppendInOrder() throws {
        var domain = PlistDictionary([("a", .integer(.signed(1))), ("b", .integer(.signed(2))), ("c", .integer(.signed(3)))])
        try domain.setPlistValues([("new2", .string("x")), ("b", nil), ("a", .string("A")), ("new1", .string("y")),
                                   ("new2", .string("z")), ("gone", .string("w")), ("gone", nil)])
        #expect(domain == PlistDictionary([("a", .string("A")), ("c", .integer(.signed(3))), ("new2", .string("z")),
                                           ("new1", .string("y"))]))
    }

    /// Every form is written in step, and reset removes every form but leaves IntervalClient's
    /// own gate (a key that names no record) and every other key.
    @Test func writesAndResetsEveryForm() throws {
        let before = records([("a", "1.0", 10)])
        let domain = PlistDictionary([("Theme", .string("dark")),
                                      ("YCFirstTime", .data(try LegacyArchive.encode(before, format: .binary))),
                                      ("YCFirstTime.records", RecordsFormat.plist(before)),
                                      ("interval.a", .real(10 + IntervalKey.epochOffset)), ("interval.own", .real(5))])
        let source = StateSource(domain) { try? ArchiveReader.read($0).records }
        #expect(source.forms == [.defaultsArchive, .plainRecords, .intervalKeys])
        let after = records([("a", nil, 20), ("b", nil, 30)])
        let written = try source.written(after, replacing: before)
        #expect(written.entries.map(\.key) == ["Theme", "YCFirstTime", "YCFirstTime.records", "interval.a", "interval.own", "interval.b"])
        let reread = StateSource(written) { try? ArchiveReader.read($0).records }
        for form in reread.forms {
            let decoded = try reread.read(form, failure: { $0 }, archive: { (bytes: [UInt8]) throws(FirstTimeError) in try ArchiveReader.read(bytes) })
            #expect(decoded.records == after, "\(form)")
        }
        #expect(try source.reset(before).entries.map(\.key) == ["Theme", "interval.own"])
    }
}
