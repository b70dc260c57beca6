import Foundation
import Testing
import FirstTimeArchive
import FirstTimeCore
import Plist
import PlistCore
import TestSupport

/// Where the device reads a state ycft used to refuse (issue 46): a read answers as the device
/// would, with a warning; a write refuses what it would lose or change unasked.
enum DeviceAnswer {
    static let ycft = TestPaths.executable("ycft")

    /// `bytes` in a fresh directory as `f.plist`, with the records JSON `pack` reads beside it.
    static func copy(_ bytes: [UInt8]) throws -> (file: URL, json: URL) {
        let dir = try TestPaths.temporaryDirectory()
        let file = dir.appendingPathComponent("f.plist")
        try writeBytes(bytes, to: file)
        let json = dir.appendingPathComponent("r.json")
        try writeBytes(RecordsFormat.json(records([("k", "1.0", 10)])), to: json)
        return (file, json)
    }

    /// Runs `ycft ARGS` on a copy of `bytes` (FILE and JSON stand for the copies): the result,
    /// the file's path, and its bytes after.
    static func run(_ arguments: [String], on bytes: [UInt8],
                    environment: [String: String]? = nil) throws -> (result: ProcessResult, path: String, after: [UInt8]) {
        let (file, json) = try copy(bytes)
        let result = try runProcess(ycft, arguments.map { $0 == "FILE" ? file.path : $0 == "JSON" ? json.path : $0 },
                                    environment: environment)
        return (result, file.path, try readBytes(file))
    }

    /// The records JSON of `ycft dump --compact` for no records.
    static let noRecords = #"{"format":"ycfirsttime-records","formatVersion":1,"records":{}}"# + "\n"
}

/// A value under the archive key that is not data (issue 46, item 10). The app's
/// `UserDefaults.data(forKey:)` is nil for it, so YCFirstTime starts afresh: `dump` and `status`
/// answer that (no records, every gate runs), exit 0, with a warning naming the value's type
/// (and, under `--key`, that the key may be the wrong one); `verify` reports the error rule
/// `state-not-data` (the device discards the state, as for `root-immutable`). Writes refuse the
/// value unless `--force`, where the app itself replaces it: `set`, `edit` and `pack --into` as
/// its next save, `reset` as its `reset()`. `migrate` refuses it whatever the options: there is
/// no state to move. All of these exited 1 with `"YCFirstTime" holds dictionary, expected
/// archive data`, `--force` or not.
@Suite struct NotDataThroughTheTool {
    /// `YCFirstTime` holding a dictionary, between two other keys.
    var sample: NotStateFile { NotStateFiles.notData[0] }
    let finding = #"[state-not-data] "YCFirstTime" holds a dictionary, not archive data: "#
        + "UserDefaults.data(forKey:) is nil for it, so the app starts afresh and its next save replaces it"

    /// The finding's message for a case: the type named, and under `--key` the key doubted.
    static func message(_ sample: NotStateFile) throws -> String {
        let key = sample.key ?? "YCFirstTime"
        let kind = try #require(try dictionary(sample.bytes)[key]).kind
        let article = kind == .integer ? "an integer" : kind == .string ? "a string" : "a dictionary"
        let device = "UserDefaults.data(forKey:) is nil for it, so the app starts afresh and its next save replaces it"
        return sample.key == nil ? "\"\(key)\" holds \(article), not archive data: \(device)"
            : "\"\(key)\" holds \(article), not archive data: \"\(key)\" may be the wrong key (YCFirstTime's is \"YCFirstTime\"); "
                + "an app that reads its archive there: \(device)"
    }

    @Test(arguments: NotStateFiles.notData)
    func dumpAndStatusAnswerAnEmptyStateWithAWarning(_ sample: NotStateFile) throws {
        let said = "[state-not-data] " + (try Self.message(sample))
        let dump = try DeviceAnswer.run(["dump", "--compact"] + sample.keyArguments + ["FILE"], on: sample.bytes)
        #expect(dump.result.status == 0)
        #expect(dump.result.stderr == "ycft: \(dump.path): warning: \(said)\n")
        #expect(dump.result.stdoutText == DeviceAnswer.noRecords)
        let status = try DeviceAnswer.run(["status", "--now", "2025-01-01T00:00:00Z", "--gate", "k=once"] + sample.keyArguments + ["FILE"],
                                          on: sample.bytes)
        #expect(status.result.status == 0)
        #expect(status.result.stderr == "ycft: \(status.path): warning: \(said)\n")
        // Under YCFirstTime's own key, reset --force removes it as the app's reset() does.
        let removes = sample.key == nil ? "('ycft reset --force' removes it, as the app's reset() would)\n" : ""
        #expect(status.result.stdoutText == """
            now 2025-01-01T00:00:00.000000Z (UTC), app version none

            no records

            GATE           RULE  RUNS NOW  NEXT ELIGIBLE (UTC)
            k (never run)  once  yes       2025-01-01T00:00:00.000000Z

            YCFirstTime would discard this state (\(said)): every gate runs as on a fresh install

            """ + removes)
        let verify = try DeviceAnswer.run(["verify"] + sample.keyArguments + ["FILE"], on: sample.bytes)
        #expect(verify.result.status == 1)
        #expect(verify.result.stderr == "\(verify.path): error: [state-not-data] file: \(try Self.message(sample))\n"
                + "ycft verify: 1 file: 0 passed, 1 failed, 0 unreadable (1 error, 0 warnings)\n")
        for run in [dump, status, verify] { #expect(run.after == sample.bytes) }
    }

    @Test func statusInJSONSaysTheDeviceStartsAfresh() throws {
        let status = try DeviceAnswer.run(["status", "--format", "json", "--compact", "--now", "2025-01-01T00:00:00Z", "FILE"], on: sample.bytes)
        #expect(status.result.status == 0)
        // JSON strings: the quotes in the message escaped.
        let json = finding.replacingOccurrences(of: "\"", with: #"\""#)
        #expect(status.result.stdoutText.contains(#""warnings":["\#(json)"],"noState":false,"deviceResetsAll":{"rule":"state-not-data","#
                                                  + #""path":"file","message":"\#(json.dropFirst("[state-not-data] ".count))"},"records":[],"gates":[]}"#),
                "\(status.result.stdoutText)")
    }

    @Test(arguments: NotStateFiles.notData)
    func writesRefuseTheValueUnlessForced(_ sample: NotStateFile) throws {
        let refusal = "\(try Self.message(sample)); --force replaces it, as that save does"
        let editor = ProcessInfo.processInfo.environment.merging(["EDITOR": "true", "VISUAL": ""]) { $1 }
        for (args, environment) in [(["set", "FILE", "k", "--last-version", "1"], nil), (["unset", "FILE", "k"], nil),
                                    (["edit", "FILE"], editor), (["pack", "--into", "FILE", "JSON"], nil)] as [([String], [String: String]?)] {
            let run = try DeviceAnswer.run(args + sample.keyArguments, on: sample.bytes, environment: environment)
            #expect(run.result.status == 1, "\(args)")
            #expect(run.result.stderr == "ycft: \(run.path): \(refusal)\n", "\(args)")
            #expect(run.after == sample.bytes, "\(args)")
        }
        let reset = try DeviceAnswer.run(["reset", "FILE"] + sample.keyArguments, on: sample.bytes)
        #expect(reset.result.status == 1)
        // Under YCFirstTime's own key with what removes it; under --key it may be another program's.
        let removes = sample.key == nil
            ? ". YCFirstTime discards it on the device and its reset() removes the key whatever it holds, as 'ycft reset --force' does" : ""
        #expect(reset.result.stderr == "ycft: \(reset.path): \(sample.judgement)\(removes)\n")
        #expect(reset.after == sample.bytes)
    }

    /// `set --force`, `edit --force` and `pack --into --force` put the archive where the value
    /// was, as the app's next save does, every other key kept, and say what they replaced.
    @Test func forcedWritesReplaceTheValueAsTheAppsNextSaveDoes() throws {
        let before = try dictionary(sample.bytes)
        let script = try TestPaths.temporaryDirectory().appendingPathComponent("ed.sh")
        try writeBytes(Array(#"printf '{"format":"ycfirsttime-records","formatVersion":1,"records":{"k":{"lastVersion":"1.0","lastTime":10}}}' > "$1""#.utf8),
                       to: script)
        let editor = ProcessInfo.processInfo.environment.merging(["EDITOR": "sh '\(script.path)'", "VISUAL": ""]) { $1 }
        let created = #"warning: created record "k": no record had that key; it has no lastTime, as none was given ('--last-time now' records a run now)"#
        for (args, environment, records) in [
            (["set", "--force", "FILE", "k", "--last-version", "1.0"], nil, records([("k", "1.0", nil)])),
            (["edit", "--force", "FILE"], editor, records([("k", "1.0", 10)])),
            (["pack", "--force", "--into", "FILE", "JSON"], nil, records([("k", "1.0", 10)])),
        ] as [([String], [String: String]?, FirstTimeRecords)] {
            let run = try DeviceAnswer.run(args, on: sample.bytes, environment: environment)
            #expect(run.result.status == 0, "\(args): \(run.result.stderr)")
            let more = args[0] == "set" ? "ycft: \(run.path): \(created)\n" : ""
            #expect(run.result.stderr == "ycft: \(run.path): warning: replaced \(finding)\n" + more, "\(args)")
            let after = try dictionary(run.after)
            #expect(after.map(\.key) == before.map(\.key), "\(args)")
            #expect(after["before"] == before["before"] && after["after"] == before["after"], "\(args)")
            #expect(after["YCFirstTime"] == .data(try LegacyArchive.encode(records, format: .binary)), "\(args)")
        }
    }

    /// `reset --force` removes the key, as the app's `reset()` does whatever the key holds;
    /// under a key named with `--key` it may be another program's, and stays.
    @Test func forcedResetRemovesTheValueUnderTheAppsOwnKeyOnly() throws {
        let reset = try DeviceAnswer.run(["reset", "--force", "FILE"], on: sample.bytes)
        #expect(reset.result.status == 0)
        #expect(reset.result.stderr == "ycft: \(reset.path): warning: removed \"YCFirstTime\", which YCFirstTime discards unread (\(finding))\n")
        #expect(try dictionary(reset.after).map(\.key) == ["before", "after"])
        let named = NotStateFiles.notData[2]
        let kept = try DeviceAnswer.run(["reset", "--force", "FILE"] + named.keyArguments, on: named.bytes)
        #expect(kept.result.status == 1)
        #expect(kept.result.stderr == "ycft: \(kept.path): \(named.judgement)\n")
        #expect(kept.after == named.bytes)
    }

    /// There is no state to migrate, and the app never migrates such a value: refused, however asked.
    @Test(arguments: NotStateFiles.notData)
    func migrateRefusesIt(_ sample: NotStateFile) throws {
        for target in [["--to", "records"], ["--to", "interval"], ["--to", "records", "--keep-source"], ["--to", "records", "--force"]] {
            let run = try DeviceAnswer.run(["migrate", "--in-place", "--no-backup"] + target + sample.keyArguments + ["FILE"], on: sample.bytes)
            #expect(run.result.status == 1, "\(target)")
            #expect(run.result.stderr == "ycft: \(run.path): \(sample.judgement)\n"
                    + "ycft migrate: 1 file: 0 migrated, 0 unchanged, 0 skipped, 1 failed\n", "\(target)")
            #expect(run.after == sample.bytes)
        }
    }
}

/// An integer `NS.time`, or an `NSDate` without it (issue 46, item 11). YCFirstTime's
/// `NSDate(coder:)` reads `decodeDouble(forKey: "NS.time")`, which both Foundations answer with
/// the number as a double (`Double(n)`; 0.0 for a missing key), so the record reads, exactly as
/// that double, with the warning rule `time-not-real`; a write stores the real and says so,
/// naming the record. An integer no double holds exactly stays refused (`time-type`). Every
/// command used to refuse both (`time-type`, "device discards all state").
@Suite struct IntegerTimeThroughTheTool {
    /// Apple's layout of record `k` with `date` as its `NSDate` (object 7).
    static func archive(_ date: PlistValue, format: PlistFormat = .binary) throws -> [UInt8] {
        var objects = appleLayoutOneKey
        objects[7] = date
        return format == .binary ? AppleStyleBinaryWriter.write(archiveValue(objects)) : try PropertyList.write(archiveValue(objects), format: .xml)
    }

    static let integer = object([("NS.time", .integer(.signed(2))), ("$class", .uid(8))])
    static let missing = object([("$class", .uid(8))])
    static let integerFinding = #"[time-not-real] $objects[7].NS.time: record "k": NS.time is the integer 2, which YCFirstTime reads as "#
        + "the double 2.0 (decodeDouble(forKey:)); a write stores that real"
    static let missingFinding = #"[time-not-real] $objects[7]: record "k": NSDate has no NS.time, which YCFirstTime reads as 0.0 "#
        + "(2001-01-01T00:00:00Z: decodeDouble(forKey:) of a missing key); a write stores that real"

    /// Binary (read by the fast path over libplist's tree) and XML (the checked path) alike.
    @Test(arguments: [PlistFormat.binary, .xml])
    func readsAsTheDoubleTheDeviceReadsWithAWarning(_ format: PlistFormat) throws {
        for (date, finding, time, utc) in [(Self.integer, Self.integerFinding, "2.0", "2001-01-01T00:00:02.000000Z"),
                                           (Self.missing, Self.missingFinding, "0.0", "2001-01-01T00:00:00.000000Z")] {
            let bytes = try Self.archive(date, format: format)
            let dump = try DeviceAnswer.run(["dump", "--compact", "FILE"], on: bytes)
            #expect(dump.result.status == 0, "\(finding)")
            #expect(dump.result.stderr == "ycft: \(dump.path): warning: \(finding)\n")
            #expect(dump.result.stdoutText == #"{"format":"ycfirsttime-records","formatVersion":1,"records":{"k":{"lastTime":\#(time),"#
                    + #""lastTimeUTC":"\#(utc)","lastVersion":"1.2.3"}}}"# + "\n")
            let status = try DeviceAnswer.run(["status", "--now", "2001-01-02T00:00:00Z", "--gate", "k=days:1", "FILE"], on: bytes)
            #expect(status.result.status == 0)
            #expect(status.result.stderr == "ycft: \(status.path): warning: \(finding)\n")
            let age = time == "2.0" ? "23h 59m 58s" : "1d 0h 0m"
            let next = time == "2.0" ? "2001-01-02T00:00:02.000000Z" : "2001-01-02T00:00:00.000000Z"
            let runs = time == "2.0" ? "no " : "yes"
            #expect(status.result.stdoutText == """
                now 2001-01-02T00:00:00.000000Z (UTC), app version none

                KEY  LAST VERSION  LAST TIME (UTC)              AGE
                k    1.2.3         \(utc)  \(age)

                GATE  RULE                RUNS NOW  NEXT ELIGIBLE (UTC)
                k     days:1 (86400.0 s)  \(runs)       \(next)

                """)
            let verify = try DeviceAnswer.run(["verify", "FILE"], on: bytes)
            #expect(verify.result.status == 0)
            #expect(verify.result.stderr == "\(verify.path): warning: \(finding)\n"
                    + "ycft verify: 1 file: 1 passed, 0 failed, 0 unreadable (0 errors, 1 warning)\n")
            let strict = try DeviceAnswer.run(["verify", "--strict", "FILE"], on: bytes)
            #expect(strict.result.status == 1)
        }
    }

    /// `set` and `unset` of another record, `pack --into` of the same time and `migrate` store
    /// the time as a real and say so, naming the record; a write that removes the record or
    /// gives it another time does not convert it, and says nothing.
    @Test func aWriteStoresTheRealAndSaysSo() throws {
        let archive = try Self.archive(Self.integer)
        let inDefaults = try PropertyList.write(.dictionary(PlistDictionary([("YCFirstTime", .data(archive)), ("other", .bool(true))])), format: .binary)
        let converted = "warning: converted \(Self.integerFinding)"
        let created = #"warning: created record "j": no record had that key (did you mean "k"?); it has no lastTime, as none was given ('--last-time now' records a run now)"#
        let set = try DeviceAnswer.run(["set", "FILE", "j", "--last-version", "1"], on: archive)
        #expect(set.result.status == 0)
        #expect(set.result.stderr == "ycft: \(set.path): \(converted)\nycft: \(set.path): \(created)\n")
        #expect(try ArchiveReader.read(set.after) == ArchiveJudgement(records: records([("j", "1", nil), ("k", "1.2.3", 2.0)])))
        #expect(set.after == (try LegacyArchive.encode(records([("j", "1", nil), ("k", "1.2.3", 2.0)]), format: .binary)))
        let version = try DeviceAnswer.run(["set", "FILE", "k", "--last-version", "9"], on: inDefaults)
        #expect(version.result.status == 0)
        #expect(version.result.stderr == "ycft: \(version.path): \(converted)\n")
        #expect(try StateFile(version.after).state() == StateFile(try PropertyList.write(.dictionary(PlistDictionary([
            ("YCFirstTime", .data(try LegacyArchive.encode(records([("k", "9", 2.0)]), format: .binary))), ("other", .bool(true)),
        ])), format: .binary)).state())
        for args in [["unset", "FILE", "k"], ["set", "FILE", "k", "--last-time", "2025-01-01T00:00:00Z"], ["reset", "FILE"]] {
            let run = try DeviceAnswer.run(args, on: inDefaults)
            #expect(run.result.status == 0, "\(args)")
            #expect(run.result.stderr == "", "\(args)")
        }
        let json = try TestPaths.temporaryDirectory().appendingPathComponent("same.json")
        try writeBytes(RecordsFormat.json(records([("k", "1.2.3", 2.0)])), to: json)
        let pack = try DeviceAnswer.run(["pack", "--into", "FILE", json.path], on: inDefaults)
        #expect(pack.result.status == 0)
        #expect(pack.result.stderr == "ycft: \(pack.path): \(converted)\n")
        let other = try DeviceAnswer.run(["pack", "--into", "FILE", "JSON"], on: inDefaults)
        #expect(other.result.status == 0)
        #expect(other.result.stderr == "")
        for keep in [[], ["--keep-source"]] {
            let migrate = try DeviceAnswer.run(["migrate", "--in-place", "--no-backup"] + keep + ["FILE"], on: inDefaults)
            #expect(migrate.result.status == 0)
            #expect(migrate.result.stderr == "ycft: \(migrate.path): warning: \(Self.integerFinding)\nycft: \(migrate.path): \(converted)\n"
                    + "ycft migrate: 1 file: 1 migrated, 0 unchanged, 0 skipped, 0 failed\n")
            #expect(try dictionary(migrate.after)["YCFirstTime.records"] == RecordsFormat.plist(records([("k", "1.2.3", 2.0)])))
        }
        let dry = try DeviceAnswer.run(["migrate", "--dry-run", "FILE"], on: inDefaults)
        #expect(dry.result.stderr.contains("ycft: \(dry.path): warning: would convert \(Self.integerFinding)\n"))
    }

    /// An integer no double holds exactly: refused by every command, as before, and said so.
    @Test func anIntegerNoDoubleHoldsIsRefused() throws {
        let bytes = try Self.archive(object([("NS.time", .integer(.signed(1 << 53 + 1))), ("$class", .uid(8))]))
        let why = "$objects[7].NS.time: NS.time is the integer 9007199254740993, which no double holds exactly "
            + "(YCFirstTime reads it rounded, as 9007199254740992.0)"
        let dump = try DeviceAnswer.run(["dump", "FILE"], on: bytes)
        #expect(dump.result.status == 1)
        #expect(dump.result.stderr == "ycft: \(dump.path): \(why) (ycft dump --raw shows everything it holds)\n")
        let verify = try DeviceAnswer.run(["verify", "FILE"], on: bytes)
        #expect(verify.result.stderr == "\(verify.path): error: [time-type] \(why)\n"
                + "ycft verify: 1 file: 0 passed, 1 failed, 0 unreadable (1 error, 0 warnings)\n")
        let set = try DeviceAnswer.run(["set", "FILE", "j", "--last-version", "1"], on: bytes)
        #expect(set.result.status == 1)
        #expect(set.result.stderr == "ycft: \(set.path): \(why)\n")
        #expect(set.after == bytes)
    }
}

/// A root dictionary with keys but no `sharedGroup` (issue 46, item 9), which every command
/// refused as the fatal rule `root-foreign`. YCFirstTime reads it as no records (every gate
/// runs) and its next save adds the group beside the other keys, archiving the whole root
/// again: `dump` and `status` answer that, exit 0, with a warning naming the keys; `verify`
/// warns (fails under `--strict`); `set`, `unset` and `pack --into` keep the keys, exactly, and
/// add the group; `reset`, which would remove only those keys, needs `--force` and names them;
/// `migrate`, whose other forms have no place for them, refuses unless the archive stays.
@Suite struct ForeignRootThroughTheTool {
    /// Another library's settings archived as an NSMutableDictionary: `theme` and `lang`.
    let archive = NotStateFiles.foreignDictionary
    var inDefaults: [UInt8] {
        get throws {
            try PropertyList.write(.dictionary(PlistDictionary([("before", .string("kept")), ("YCFirstTime", .data(archive))])), format: .binary)
        }
    }
    let finding = #"[root-foreign] $objects[1]: the root dictionary holds 2 keys ("theme", "lang") and no "sharedGroup": "#
        + "YCFirstTime reads no records from it (every gate runs) and its next save adds the group beside them"

    /// `ycft dump --raw --compact` of the archive: its root's entries, as JSON.
    func raw(_ bytes: [UInt8], key: [String] = []) throws -> String {
        let (file, _) = try DeviceAnswer.copy(bytes)
        return try runProcess(DeviceAnswer.ycft, ["dump", "--raw", "--compact"] + key + [file.path]).stdoutText
    }

    @Test func dumpStatusAndVerifyAnswerNoRecordsWithAWarning() throws {
        for bytes in [archive, try inDefaults] {
            let dump = try DeviceAnswer.run(["dump", "--compact", "FILE"], on: bytes)
            #expect(dump.result.status == 0)
            #expect(dump.result.stderr == "ycft: \(dump.path): warning: \(finding)\n")
            #expect(dump.result.stdoutText == DeviceAnswer.noRecords)
            let status = try DeviceAnswer.run(["status", "--now", "2025-01-01T00:00:00Z", "--gate", "k=once", "FILE"], on: bytes)
            #expect(status.result.status == 0)
            #expect(status.result.stderr == "ycft: \(status.path): warning: \(finding)\n")
            #expect(status.result.stdoutText == """
                now 2025-01-01T00:00:00.000000Z (UTC), app version none

                no records

                GATE           RULE  RUNS NOW  NEXT ELIGIBLE (UTC)
                k (never run)  once  yes       2025-01-01T00:00:00.000000Z

                """)
            let verify = try DeviceAnswer.run(["verify", "FILE"], on: bytes)
            #expect(verify.result.status == 0)
            #expect(verify.result.stderr == "\(verify.path): warning: \(finding)\n"
                    + "ycft verify: 1 file: 1 passed, 0 failed, 0 unreadable (0 errors, 1 warning)\n")
            let strict = try DeviceAnswer.run(["verify", "--strict", "FILE"], on: bytes)
            #expect(strict.result.status == 1)
            #expect(strict.result.stderr == "\(strict.path): warning: \(finding)\n"
                    + "ycft verify: 1 file: 0 passed, 1 failed, 0 unreadable (0 errors, 1 warning)\n")
        }
    }

    /// The keys stay, in their order, with their values; the group goes after them.
    @Test func setUnsetAndPackKeepTheKeysAndAddTheGroup() throws {
        let theme = #"{"$archiver":"NSKeyedArchiver","$version":100000,"$top":{"root":{"$class":"NSMutableDictionary","entries":[["theme","dark"],["lang","en"],["sharedGroup","#
        let set = try DeviceAnswer.run(["set", "FILE", "k", "--last-version", "1.0", "--last-time", "10", "--seconds"], on: archive)
        #expect(set.result.status == 0)
        #expect(set.result.stderr == "ycft: \(set.path): warning: created record \"k\": no record had that key\n")
        let afterSet = try raw(set.after)
        #expect(afterSet.hasPrefix(theme), "\(afterSet)")
        #expect(try StateFile(set.after).state().records == records([("k", "1.0", 10)]))
        // Another write keeps them again; removing the record keeps them and an empty group.
        let unset = try DeviceAnswer.run(["unset", "FILE", "k"], on: set.after)
        #expect(unset.result.status == 0)
        #expect(unset.result.stderr == "")
        #expect(try raw(unset.after) == theme + #"{"$class":"NSMutableDictionary","entries":[]}]]}}}"# + "\n")
        let pack = try DeviceAnswer.run(["pack", "--into", "FILE", "JSON"], on: try inDefaults)
        #expect(pack.result.status == 0)
        #expect(pack.result.stderr == "")
        #expect(try raw(pack.after, key: ["--key", "YCFirstTime"]).hasPrefix(theme))
        #expect(try StateFile(pack.after).state().records == records([("k", "1.0", 10)]))
        #expect(try dictionary(pack.after)["before"] == .string("kept"))
        // unset of a record there is not: nothing to remove, as before.
        let none = try DeviceAnswer.run(["unset", "FILE", "k"], on: archive)
        #expect(none.result.status == 1)
        #expect(none.result.stderr == "ycft: \(none.path): no record \"k\"; nothing was changed\n")
    }

    /// reset would remove only the keys: refused unless --force, which names them.
    @Test func resetNeedsForceAndNamesTheKeys() throws {
        let located = String(finding.dropFirst("[root-foreign] ".count))
        for bytes in [archive, try inDefaults] {
            let reset = try DeviceAnswer.run(["reset", "FILE"], on: bytes)
            #expect(reset.result.status == 1)
            #expect(reset.result.stderr == "ycft: \(reset.path): \(located); resetting would remove only these keys; "
                    + "--force removes them, as the app's reset() does\n")
            #expect(reset.after == bytes)
            let forced = try DeviceAnswer.run(["reset", "--force", "FILE"], on: bytes)
            #expect(forced.result.status == 0)
            #expect(forced.result.stderr == "ycft: \(forced.path): warning: dropped \(finding)\n")
        }
        let forced = try DeviceAnswer.run(["reset", "--force", "FILE"], on: try inDefaults)
        #expect(try dictionary(forced.after).map(\.key) == ["before"])
    }

    /// migrate has no place for the keys in the records or IntervalClient keys: refused unless
    /// the archive stays (--keep-source), whatever the target.
    @Test func migrateRefusesUnlessTheArchiveStays() throws {
        let bytes = try inDefaults
        let why = "YCFirstTime: \(finding.dropFirst("[root-foreign] ".count)); migrating would lose these keys, for which the plain "
            + "records and IntervalClient keys have no place: keep the archive beside the new keys (--keep-source)"
        for target in [["--to", "records"], ["--to", "interval"]] {
            let run = try DeviceAnswer.run(["migrate", "--in-place", "--no-backup"] + target + ["FILE"], on: bytes)
            #expect(run.result.status == 1, "\(target)")
            #expect(run.result.stderr == "ycft: \(run.path): \(why)\nycft migrate: 1 file: 0 migrated, 0 unchanged, 0 skipped, 1 failed\n")
            #expect(run.after == bytes)
        }
        let kept = try DeviceAnswer.run(["migrate", "--in-place", "--no-backup", "--keep-source", "FILE"], on: bytes)
        #expect(kept.result.status == 0)
        #expect(kept.result.stderr == "ycft: \(kept.path): warning: \(finding)\nycft migrate: 1 file: 1 migrated, 0 unchanged, 0 skipped, 0 failed\n")
        #expect(try dictionary(kept.after)["YCFirstTime"] == .data(archive))
        // A rollback that would replace the archive with the plain records' refuses too.
        let beside = try PropertyList.write(.dictionary(PlistDictionary([
            ("YCFirstTime", .data(archive)), ("YCFirstTime.records", RecordsFormat.plist(records([("k", "1.0", 10)]))),
        ])), format: .binary)
        let back = try DeviceAnswer.run(["migrate", "--in-place", "--no-backup", "--to", "legacy", "--force", "FILE"], on: beside)
        #expect(back.result.status == 1)
        #expect(back.result.stderr == "ycft: \(back.path): \(why)\nycft migrate: 1 file: 0 migrated, 0 unchanged, 0 skipped, 1 failed\n")
        #expect(back.after == beside)
    }

    /// What the device's unarchive fails on keeps its rule: a root that is no dictionary is
    /// refused (`root-class`), and a value of a class outside the loader's list beside the keys
    /// makes the device discard the state (`class-not-allowed`, an error): a write needs
    /// --force, and then drops the keys, as the app's next save writes a new root.
    @Test func whatTheDevicesUnarchiveFailsOnKeepsItsRule() throws {
        let array = NotStateFiles.foreignArchive
        let dump = try DeviceAnswer.run(["dump", "FILE"], on: array)
        #expect(dump.result.status == 1)
        #expect(dump.result.stderr == "ycft: \(dump.path): $objects[1]: expected NSMutableDictionary (root), found NSArray "
                + "(ycft dump --raw shows everything it holds)\n")
        let bad = AppleStyleBinaryWriter.write(archiveValue([
            .string("$null"), dictObject(keys: [2, 3], values: [4, 5], classUID: 6), .string("theme"), .string("obj"), .string("dark"),
            object([("x", .uid(4)), ("$class", .uid(7))]), classObject(["NSMutableDictionary", "NSDictionary", "NSObject"]),
            classObject(["MyClass", "NSObject"]),
        ]))
        let foreign = #"[root-foreign] $objects[1]: the root dictionary holds 2 keys ("theme", "obj") and no "sharedGroup": "#
            + "YCFirstTime reads no records from it (every gate runs) and its next save adds the group beside them"
        let notAllowed = "[class-not-allowed] $objects[5]: MyClass is not a class YCFirstTime's loader allows: its secure unarchive "
            + "fails and the app resets all state"
        let verify = try DeviceAnswer.run(["verify", "FILE"], on: bad)
        #expect(verify.result.status == 1)
        #expect(verify.result.stderr == "\(verify.path): warning: \(foreign)\n\(verify.path): error: \(notAllowed)\n"
                + "ycft verify: 1 file: 0 passed, 1 failed, 0 unreadable (1 error, 1 warning)\n")
        let status = try DeviceAnswer.run(["status", "--now", "2025-01-01T00:00:00Z", "FILE"], on: bad)
        #expect(status.result.status == 0)
        #expect(status.result.stdoutText.hasSuffix("\nYCFirstTime would discard this state (\(notAllowed)): every gate runs as on a fresh install\n"))
        let set = try DeviceAnswer.run(["set", "FILE", "k", "--last-version", "1"], on: bad)
        #expect(set.result.status == 1)
        #expect(set.after == bad)
        let forced = try DeviceAnswer.run(["set", "--force", "FILE", "k", "--last-version", "1"], on: bad)
        #expect(forced.result.status == 0)
        #expect(forced.result.stderr.hasPrefix("ycft: \(forced.path): warning: dropped \(foreign)\n"))
        #expect(StateFile.verify(forced.after) == [])
    }
}
