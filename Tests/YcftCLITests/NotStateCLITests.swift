import Foundation
import Testing
import FirstTimeArchive
import Plist
import TestSupport

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
        try writeBytes(RecordsFormat.jsonBytes(records([("k", "1.0", 10)])), to: json)
        return (file, json)
    }

    /// Runs `ycft ARGS` (FILE is replaced by the case's file) and checks the file is unchanged.
    func run(_ arguments: [String], _ bytes: [UInt8], environment: [String: String]? = nil) throws -> (ProcessResult, String) {
        let (file, json) = try setUp(bytes)
        let args = arguments.map { $0 == "FILE" ? file.path : $0 == "JSON" ? json.path : $0 }
        let result = try runProcess(ycft, args, environment: environment)
        let after = try readBytes(file)
        #expect(after == bytes, "\(arguments): the file changed: \(firstDifference(after, bytes))")
        return (result, file.path)
    }

    @Test(arguments: NotStateFiles.all)
    func editingCommandsRefuseAndWriteNothing(_ file: NotStateFile) throws {
        let editor = ProcessInfo.processInfo.environment.merging(["EDITOR": "true", "VISUAL": ""]) { $1 }
        for (command, environment) in [(["reset"], nil), (["set", "--last-version", "1"], nil), (["set", "--last-time", "now"], nil),
                                       (["edit"], editor)] as [([String], [String: String]?)] {
            var args = command + file.keyArguments + ["FILE"]
            if command[0] == "set" { args.append("k") }
            let (result, path) = try run(args, file.bytes, environment: environment)
            #expect(result.status == 1, "\(command)")
            #expect(result.stderr == "ycft: \(path): \(file.judgement)\n", "\(command)")
            #expect(result.stdout.isEmpty)
        }
        let (unset, path) = try run(["unset"] + file.keyArguments + ["FILE", "k"], file.bytes)
        #expect(unset.status == 1)
        #expect(unset.stderr == "ycft: \(path): \(file.judgement)\n")
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
            #expect(result.stderr == "ycft: \(path): \(file.defaultsJudgement)\n"
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
        if let rule = file.deviceDiscards {
            #expect(verify.stderr.hasPrefix("\(verified): error: [\(rule)] "), "\(verify.stderr)")
            #expect(verify.stderr.split(separator: "\n").count == 1, "\(verify.stderr)")
        } else {
            #expect(verify.stderr == "\(verified): error: [state-missing] file: \(file.judgement)\n")
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

    /// A defaults file without state: `reset` changes nothing and says so, exit 0; the other
    /// editing commands refuse it; `migrate` skips it; `pack --into` adds the archive (its
    /// own test, in EditCLITests).
    @Test func aDefaultsFileWithoutState() throws {
        let bytes = NotStateFiles.noState
        let (reset, path) = try run(["reset", "FILE"], bytes)
        #expect(reset.status == 0)
        #expect(reset.stderr == "ycft: \(path): no YCFirstTime state to reset (no \"YCFirstTime\", \"YCFirstTime.records\" "
                + "or \"interval.*\" key); nothing was changed\n")
        let missing = #"no "YCFirstTime" key: not a YCFirstTime archive or a defaults file holding one"#
        for args in [["set", "FILE", "k", "--last-version", "1"], ["unset", "FILE", "k"]] {
            let (result, shown) = try run(args, bytes)
            #expect(result.status == 1)
            #expect(result.stderr == "ycft: \(shown): \(missing)\n")
        }
        let (dump, shown) = try run(["dump", "FILE"], bytes)
        #expect(dump.status == 1)
        #expect(dump.stderr == "ycft: \(shown): \(missing) (ycft dump --raw shows everything it holds)\n")
        let (migrate, _) = try run(["migrate", "--in-place", "--no-backup", "FILE"], bytes)
        #expect(migrate.status == 0)
        #expect(migrate.stderr == "ycft migrate: 1 file: 0 migrated, 0 unchanged, 1 skipped, 0 failed\n")
        let (verify, _) = try run(["verify", "FILE"], bytes)
        #expect(verify.status == 1)
    }
}
