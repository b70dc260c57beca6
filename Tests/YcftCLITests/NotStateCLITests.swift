import Foundation
import Testing
import FirstTimeArchive
import FirstTimeCore
import KeyedArchive
import Plist
import PlistCore
import TestSupport
@testable import YcftCLI

/// Every command against the same files and keys that hold something other than YCFirstTime
/// state (``NotStateFiles``): each refuses, says why in the words of the library's one judge,
/// and leaves the file byte for byte as it was. `reset` and `pack --into` used to overwrite such
/// a file (an empty archive, the archive under a wrong `--key`) and exit 0.
@Suite struct NotStateThroughTheTool {
    let ycft = TestPaths.executable("ycft")

    /// The case's file in a fresh directory, and the records JSON `pack` reads.
    func setUp(_ bytes: [UInt8]) throws -> (file: URL, json: URL) {
        let dir = try TestPaths.temporaryDirectory()
        let file = dir.appendingPathComponent("f.plist")
        try writeBytes(bytes, to: file)
        let json = dir.appendingPathComponent("r.json")
        try writeBytes(RecordsFormat.json(records([("k", "1.0", 10)])), to: json)
        return (file, json)
    }

    /// Runs `ycft ARGS` (FILE is replaced by the case's file) and checks the file is unchanged.
    func run(_ arguments: [String], _ bytes: [UInt8], environment: [String: String]? = nil) throws -> (ProcessResult, String) {
        let (file, json) = try setUp(bytes)
        let args = arguments.map { $0 == "FILE" ? file.path : $0 == "JSON" ? json.path : $0 }
        let result = try runProcess(ycft, args, environment: environment)
        let after = try readBytes(file)
        let unchanged = after == bytes
        #expect(unchanged, "\(arguments): the file changed: \(firstDifference(after, bytes))")
        return (result, file.path)
    }

    @Test(arguments: NotStateFiles.all)
    func editingCommandsRefuseAndWriteNothing(_ file: NotStateFile) throws {
        // Data under YCFirstTime's own key in a defaults file that the app discards unread: with
        // what removes it. Under a key named with --key it may be another program's: no such hint.
        let isDefaults = try StateFile(file.bytes, key: file.key ?? LegacyArchive.defaultsKey).isDefaults
        let said = file.judgement + (isDefaults && file.key == nil && file.deviceDiscards != nil ? ". \(EditCommands.discardedUnread)" : "")
        let editor = ProcessInfo.processInfo.environment.merging(["EDITOR": "true", "VISUAL": ""]) { $1 }
        for (command, environment) in [(["reset"], nil), (["set", "--last-version", "1"], nil), (["set", "--last-time", "now"], nil),
                                       (["edit"], editor)] as [([String], [String: String]?)] {
            var args = command + file.keyArguments + ["FILE"]
            if command[0] == "set" { args.append("k") }
            let (result, path) = try run(args, file.bytes, environment: environment)
            #expect(result.status == 1, "\(command)")
            #expect(result.stderr == "ycft: \(path): \(said)\n", "\(command)")
            #expect(result.stdout.isEmpty)
        }
        let (unset, path) = try run(["unset"] + file.keyArguments + ["FILE", "k"], file.bytes)
        #expect(unset.status == 1)
        #expect(unset.stderr == "ycft: \(path): \(said)\n")
    }

    @Test(arguments: NotStateFiles.all)
    func packIntoRefusesAndWritesNothing(_ file: NotStateFile) throws {
        let (result, path) = try run(["pack", "--into", "FILE"] + file.keyArguments + ["JSON"], file.bytes)
        #expect(result.status == 1)
        #expect(result.stderr == "ycft: \(path): \(file.defaultsJudgement)\n")
    }

    @Test(arguments: NotStateFiles.all)
    func migrateRefusesEveryTargetAndWritesNothing(_ file: NotStateFile) throws {
        for target in [["--to", "records"], ["--to", "interval"], ["--to", "legacy", "--force"], ["--to", "records", "--keep-source"]] {
            let (result, path) = try run(["migrate", "--in-place", "--no-backup"] + target + file.keyArguments + ["FILE"], file.bytes)
            #expect(result.status == 1, "\(target)")
            // A keyed archive (a dictionary that is no defaults domain): what reads it.
            let hint = file.defaultsJudgement.hasSuffix("a keyed archive, not a defaults domain") ? "; 'ycft dump \(path)' reads an archive itself" : ""
            #expect(result.stderr == "ycft: \(path): \(file.defaultsJudgement)\(hint)\n"
                    + "ycft migrate: 1 file: 0 migrated, 0 unchanged, 0 skipped, 1 failed\n", "\(target)")
        }
    }

    @Test(arguments: NotStateFiles.all)
    func readingCommandsSayWhyAndExitOne(_ file: NotStateFile) throws {
        let (dump, path) = try run(["dump"] + file.keyArguments + ["FILE"], file.bytes)
        #expect(dump.status == 1)
        #expect(dump.stdout.isEmpty)
        #expect(dump.stderr == "ycft: \(path): \(file.judgement) (ycft dump --raw shows everything it holds)\n")
        let (verify, verified) = try run(["verify"] + file.keyArguments + ["FILE"], file.bytes)
        #expect(verify.status == 1)
        #expect(verify.stdout.isEmpty)
        if let rule = file.verifyRule {
            #expect(verify.stderr.hasPrefix("\(verified): error: [\(rule)] "), "\(verify.stderr)")
            #expect(verify.stderr.split(separator: "\n").count == 2, "\(verify.stderr)")
            // A property list that should hold the state and cannot be read: unreadable, as a file would be.
            let counts = rule == "plist-unreadable" ? "0 failed, 1 unreadable" : "1 failed, 0 unreadable"
            #expect(verify.stderr.hasSuffix("\nycft verify: 1 file: 0 passed, \(counts) (1 error, 0 warnings)\n"), "\(verify.stderr)")
        } else {
            #expect(verify.stderr == "\(verified): error: [state-missing] file: \(file.judgement)\n"
                    + "ycft verify: 1 file: 0 passed, 1 failed, 0 unreadable (1 error, 0 warnings)\n")
        }
        // status answers as the device would: a key or file YCFirstTime would fail to unarchive
        // discards all state (every gate runs, as the rule table says); one it would not even
        // read as data is an error.
        let (status, shown) = try run(["status"] + file.keyArguments + ["FILE"], file.bytes)
        if let rule = file.deviceDiscards {
            #expect(status.status == 0)
            #expect(status.stderr.hasPrefix("ycft: \(shown): warning: [\(rule)] "), "\(status.stderr)")
            #expect(status.stdoutText.contains("YCFirstTime would discard this state ([\(rule)] "), "\(status.stdoutText)")
        } else {
            #expect(status.status == 1)
            #expect(status.stderr == "ycft: \(shown): \(file.judgement)\n")
        }
    }

    /// A defaults file without state (a fresh install's, or after `reset`) is what the device
    /// starts from: `reset` changes nothing and says so, exit 0; `unset` finds no record;
    /// `status` answers that every gate runs (exit 0); `set` creates the state as YCFirstTime's
    /// first save does (its own test below); `dump` and `verify` say there is none; `migrate`
    /// skips it; `pack --into` adds the archive (its own test, in EditCLITests).
    @Test func aDefaultsFileWithoutState() throws {
        let bytes = NotStateFiles.noState
        let (reset, path) = try run(["reset", "FILE"], bytes)
        #expect(reset.status == 0)
        #expect(reset.stderr == "ycft: \(path): no YCFirstTime state to reset (no \"YCFirstTime\", \"YCFirstTime.records\" "
                + "or \"interval.*\" key); nothing was changed\n")
        // A --key naming the plain records' key is named once.
        let (again, _) = try run(["reset", "--key", "YCFirstTime.records", "FILE"], bytes)
        #expect(again.stderr.hasSuffix(": no YCFirstTime state to reset (no \"YCFirstTime.records\" or \"interval.*\" key); nothing was changed\n"))
        let missing = #"no "YCFirstTime" key: not a YCFirstTime archive or a defaults file holding one"#
        let (unset, unsetPath) = try run(["unset", "FILE", "k"], bytes)
        #expect(unset.status == 1)
        #expect(unset.stderr == "ycft: \(unsetPath): no record \"k\"; nothing was changed\n")
        let (status, _) = try run(["status", "--now", "2025-01-01T00:00:00Z", "--gate", "k=once", "--gate", "k=days:1", "FILE"], bytes)
        #expect(status.status == 0)
        #expect(status.stderr == "")
        #expect(status.stdoutText == """
            now 2025-01-01T00:00:00.000000Z (UTC), app version none

            no records

            GATE           RULE                RUNS NOW  NEXT ELIGIBLE (UTC)
            k (never run)  once                yes       2025-01-01T00:00:00.000000Z
            k (never run)  days:1 (86400.0 s)  yes       2025-01-01T00:00:00.000000Z

            no YCFirstTime state yet (no "YCFirstTime", "YCFirstTime.records" or "interval.*" key): every gate runs as on a fresh install

            """)
        let (statusJSON, _) = try run(["status", "--format", "json", "--compact", "--now", "2025-01-01T00:00:00Z", "FILE"], bytes)
        #expect(statusJSON.status == 0)
        #expect(statusJSON.stdoutText.contains(#""noState":true,"deviceResetsAll":null,"records":[]"#), "\(statusJSON.stdoutText)")
        let (dump, shown) = try run(["dump", "FILE"], bytes)
        #expect(dump.status == 1)
        #expect(dump.stderr == "ycft: \(shown): \(missing) (ycft dump --raw shows everything it holds)\n")
        let (migrate, _) = try run(["migrate", "--in-place", "--no-backup", "FILE"], bytes)
        #expect(migrate.status == 0)
        #expect(migrate.stderr == "ycft migrate: 1 file: 0 migrated, 0 unchanged, 1 skipped, 0 failed\n")
        let (verify, _) = try run(["verify", "FILE"], bytes)
        #expect(verify.status == 1)
    }

    /// `set` on a defaults file without state creates it as YCFirstTime's first save does: the
    /// archive (binary, Apple's layout) under `YCFirstTime` after every other key, each of which
    /// keeps its value; `--key` names where.
    @Test func setCreatesTheStateInADefaultsFileWithoutIt() throws {
        let bytes = NotStateFiles.noState
        guard case let .dictionary(before) = try LibPlist.read(bytes).value else {
            Issue.record("the no-state file is not a dictionary")
            return
        }
        for key in ["YCFirstTime", "Other.Key"] {
            let (file, _) = try setUp(bytes)
            let set = try runProcess(ycft, ["set", "--key", key, file.path, "k", "--last-version", "1.0",
                                            "--last-time", "757414800.123456", "--seconds"])
            #expect(set.status == 0)
            #expect(set.stderr == "ycft: \(file.path): warning: created record \"k\": no record had that key\n")
            guard case let .dictionary(after) = try LibPlist.read(try readBytes(file)).value else {
                Issue.record("the file is no longer a dictionary")
                continue
            }
            #expect(after.entries.map(\.key) == before.entries.map(\.key) + [key])
            for entry in before.entries { #expect(after[entry.key] == entry.value, "\(entry.key)") }
            guard case let .data(archive)? = after[key] else {
                Issue.record("no archive data under \(key)")
                continue
            }
            #expect(archive == (try LegacyArchive.encode(records([("k", "1.0", 757414800.123456)]), format: .binary)))
            let dump = try runProcess(ycft, ["dump", "--compact", "--key", key, file.path])
            #expect(dump.status == 0)
            #expect(dump.stdoutText == #"{"format":"ycfirsttime-records","formatVersion":1,"records":{"k":{"lastTime":757414800.123456,"#
                    + #""lastTimeUTC":"2025-01-01T09:00:00.123456Z","lastVersion":"1.0"}}}"# + "\n")
            let verify = try runProcess(ycft, ["verify", "--strict", "--key", key, file.path])
            #expect(verify.status == 0)
        }
    }
}

/// Every write that drops what the records cannot carry (a record's unknown coder key, a copy
/// that differs, the root's other keys where they go) says so on standard error, one line
/// each. `set` of another key used to drop record `k`'s `runCount` silently, although `dump`
/// warned of it.
@Suite struct DroppedDataThroughTheTool {
    let ycft = TestPaths.executable("ycft")
    /// Apple's layout of one record `k`, with an extra coder key `runCount`.
    let extras = TestPaths.fixtures.appendingPathComponent("valid/apple-order/unexpected-extras.plist")
    let unknownKey = #"[record-unknown-key] $objects[5]: unknown coder key "runCount" in record "k" (YCFirstTime ignores it)"#
    var runCount: String { "dropped " + unknownKey }

    func copy(_ bytes: [UInt8]) throws -> URL {
        let file = try TestPaths.temporaryDirectory().appendingPathComponent("f.plist")
        try writeBytes(bytes, to: file)
        return file
    }

    func defaults(holding archive: [UInt8], _ more: [(String, PlistValue)] = []) throws -> [UInt8] {
        try PropertyList.write(.dictionary(PlistDictionary([("before", .string("kept")), ("YCFirstTime", .data(archive))]
                                                            + more.map { (key: $0.0, value: $0.1) })), format: .binary)
    }

    /// The archive of `k` (Apple's layout) with a second root key `note`.
    var rootExtra: [UInt8] {
        var objects = appleLayoutOneKey
        objects[1] = dictObject(keys: [2, 11], values: [3, 12], classUID: 10)
        objects += [.string("note"), .string("kept")]
        return AppleStyleBinaryWriter.write(archiveValue(objects))
    }

    @Test func dumpWarnsAndEveryWriteSaysWhatItDropped() throws {
        let archive = try readBytes(extras)
        for bytes in [archive, try defaults(holding: archive)] {
            let dump = try runProcess(ycft, ["dump", try copy(bytes).path])
            #expect(dump.stderr.contains(#"unknown coder key "runCount" in record "k""#))
            for args in [["set", "FILE", "other", "--last-version", "1"], ["set", "FILE", "k", "--last-version", "2"],
                         ["unset", "FILE", "k"], ["reset", "FILE"]] {
                let file = try copy(bytes)
                let result = try runProcess(ycft, args.map { $0 == "FILE" ? file.path : $0 })
                #expect(result.status == 0, "\(args): \(result.stderr)")
                let created = args.dropFirst(2).first == "other" ? "ycft: \(file.path): warning: created record \"other\": no record had that key; it has no lastTime, as none was given ('--last-time now' records a run now)\n" : ""
                #expect(result.stderr == "ycft: \(file.path): warning: \(runCount)\n" + created, "\(args)")
                #expect(try readBytes(file) != bytes)
                // What it said is gone is gone: the record has only the two coder keys now.
                #expect(!StateFile.verify(try readBytes(file)).contains { $0.rule == .recordUnknownKey }, "\(args)")
            }
        }
    }

    /// `ycft edit` says it too (its command gives bytes; the cycle asks the library what the
    /// state it replaced held).
    @Test func editSaysWhatItDropped() throws {
        let file = try copy(try readBytes(extras))
        let script = file.deletingLastPathComponent().appendingPathComponent("ed.sh")
        try writeBytes(Array(#"sed -i 's/"1.2.3"/"9.9"/' "$1""#.utf8) + [0x0A], to: script)
        let environment = ProcessInfo.processInfo.environment.merging(["EDITOR": "sh '\(script.path)'", "VISUAL": ""]) { $1 }
        let result = try runProcess(ycft, ["edit", file.path], environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr == "ycft: \(file.path): warning: \(runCount)\n")
        #expect(try ArchiveReader.read(readBytes(file)) == ArchiveJudgement(records: records([("k", "9.9", 2.5)])))
        // Cancelled (saved unchanged): nothing written, nothing dropped.
        let unchanged = try runProcess(ycft, ["edit", file.path], environment: environment)
        #expect(unchanged.status == 0)
        #expect(unchanged.stderr == "ycft: \(file.path): no change; nothing was written\n")
    }

    @Test func aWriteThatChangesNothingDropsNothingAndSaysNothing() throws {
        let bytes = try readBytes(extras)
        let file = try copy(bytes)
        let same = try runProcess(ycft, ["set", file.path, "k", "--last-version", "1.2.3"])
        #expect(same.status == 0)
        #expect(same.stderr.isEmpty)
        #expect(try readBytes(file) == bytes)
    }

    @Test func packIntoSaysWhatTheArchiveItReplacesHeld() throws {
        let bytes = try defaults(holding: try readBytes(extras))
        let file = try copy(bytes)
        let json = file.deletingLastPathComponent().appendingPathComponent("r.json")
        try writeBytes(RecordsFormat.json(records([("k", "1.2.3", 2.5)])), to: json)
        let result = try runProcess(ycft, ["pack", "--into", file.path, json.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr == "ycft: \(file.path): warning: \(runCount)\n")
        #expect(try StateFile(readBytes(file)).state().records == records([("k", "1.2.3", 2.5)]))
        // Into a file without an archive: nothing to drop, nothing said.
        let empty = try copy(NotStateFiles.noState)
        let added = try runProcess(ycft, ["pack", "--into", empty.path, json.path])
        #expect(added.status == 0)
        #expect(added.stderr.isEmpty)
    }

    /// An unrelated root key is kept by a write of the records, as YCFirstTime's save archives
    /// its whole root again (it used to be dropped, with a warning); `reset`, which removes the
    /// state, drops it and says so.
    @Test func anUnrelatedRootKeyIsKeptByAWriteAndSaidToBeDroppedByReset() throws {
        let note = "warning: [root-extra-key] $objects[1]: root key \"note\" is not \"sharedGroup\": YCFirstTime ignores it and keeps it"
        let file = try copy(rootExtra)
        let result = try runProcess(ycft, ["set", file.path, "k", "--no-last-time"])
        #expect(result.status == 0)
        #expect(result.stderr == "")
        #expect(try readBytes(file) == LegacyArchive.encode(records([("k", "1.2.3", nil)]), keeping: rootEntries(rootExtra), format: .binary))
        let dump = try runProcess(ycft, ["dump", "--raw", "--compact", file.path])
        #expect(dump.stdoutText.contains(#""entries":[["sharedGroup",{"$class":"NSMutableDictionary","entries":[["k","#), "\(dump.stdoutText)")
        #expect(dump.stdoutText.contains(#"}],["note","kept"]]}}}"#), "\(dump.stdoutText)")
        let verify = try runProcess(ycft, ["verify", file.path])
        #expect(verify.stderr == "\(file.path): \(note)\nycft verify: 1 file: 1 passed, 0 failed, 0 unreadable (0 errors, 1 warning)\n")
        let reset = try runProcess(ycft, ["reset", file.path])
        #expect(reset.status == 0)
        #expect(reset.stderr == "ycft: \(file.path): warning: dropped [root-extra-key] $objects[1]: root key \"note\" "
                + "is not \"sharedGroup\": YCFirstTime ignores it and keeps it\n")
        #expect(try ArchiveReader.read(readBytes(file)).findings == [])
    }

    /// `LegacyArchive.RootEntries` of archive bytes.
    func rootEntries(_ bytes: [UInt8]) throws -> LegacyArchive.RootEntries? {
        try LegacyArchive.RootEntries(LibPlist.keyedArchive(bytes))
    }

    /// A copy of the state in another form that differs is replaced by the first form's
    /// records: said as the finding `dump` and `verify` report.
    @Test func aCopyThatDiffersIsSaidToBeReplaced() throws {
        let archive = try LegacyArchive.encode(records([("a", "1.0", 10)]), format: .binary)
        let bytes = try defaults(holding: archive, [("YCFirstTime.records", RecordsFormat.plist(records([("a", "2.0", 10)])))])
        let file = try copy(bytes)
        let result = try runProcess(ycft, ["set", file.path, "b", "--last-version", "1"])
        #expect(result.status == 0)
        #expect(result.stderr == "ycft: \(file.path): warning: dropped [states-disagree] the defaults-archive state and its "
                + "plain-records copy differ (\"a\"); ycft reads the defaults-archive one\n"
                + "ycft: \(file.path): warning: created record \"b\": no record had that key (did you mean \"a\"?); it has no lastTime, as none was given ('--last-time now' records a run now)\n")
        #expect(StateFile.verify(try readBytes(file)) == [])
    }

    @Test func migrateSaysWhatRemovingTheArchiveDrops() throws {
        let bytes = try defaults(holding: try readBytes(extras))
        let file = try copy(bytes)
        let warning = "ycft: \(file.path): warning: \(unknownKey)"
        let dry = try runProcess(ycft, ["migrate", "--dry-run", file.path])
        #expect(dry.status == 0)
        #expect(dry.stderr == "\(warning)\nycft: \(file.path): warning: would drop \(unknownKey)\n"
                + "ycft migrate: 1 file: 1 would migrate, 0 unchanged, 0 skipped, 0 failed (dry run: nothing written)\n")
        // The archive kept: nothing dropped.
        let kept = try runProcess(ycft, ["migrate", "--in-place", "--no-backup", "--keep-source", try copy(bytes).path])
        #expect(kept.status == 0)
        #expect(!kept.stderr.contains("dropped"))
        let moved = try runProcess(ycft, ["migrate", "--in-place", "--no-backup", file.path])
        #expect(moved.status == 0)
        #expect(moved.stderr == "\(warning)\nycft: \(file.path): warning: \(runCount)\n"
                + "ycft migrate: 1 file: 1 migrated, 0 unchanged, 0 skipped, 0 failed\n")
    }

    /// An `interval.*` value IntervalClient cannot read is no state: a write of the state keeps
    /// it (it used to be dropped without a word), and so does `reset`.
    @Test func anUnreadableIntervalValueIsKept() throws {
        let bytes = try PropertyList.write(.dictionary(PlistDictionary([
            ("interval.a", .real(10 + IntervalKey.epochOffset)), ("interval.bad", .string("soon")), ("other", .bool(true)),
        ])), format: .binary)
        let file = try copy(bytes)
        let set = try runProcess(ycft, ["set", file.path, "b", "--last-time", "2025-01-01T00:00:00Z"])
        #expect(set.status == 0)
        #expect(set.stderr == "ycft: \(file.path): warning: created record \"b\": no record had that key (did you mean \"a\"?)\n")
        #expect(try dictionary(readBytes(file)).map(\.key) == ["interval.a", "interval.bad", "other", "interval.b"])
        #expect(try dictionary(readBytes(file))["interval.bad"] == .string("soon"))
        let reset = try runProcess(ycft, ["reset", file.path])
        #expect(reset.status == 0)
        #expect(try dictionary(readBytes(file)).map(\.key) == ["interval.bad", "other"])
    }
}
