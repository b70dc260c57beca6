import FirstTimeCore
import Foundation
import Testing
import TestSupport

/// Whether `python3` can import `pre_commit` (Scripts/bootstrap.sh installs it).
enum PreCommit {
    static let available: Bool = {
        (try? runProcess(URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", "import pre_commit"]))?.status == 0
    }()
}

/// ycft where the work happens (docs/workflows.md), with the real programs.
@Suite struct Workflows {
    let ycft = TestPaths.executable("ycft")

    /// A throwaway git repository holding a good archive, one that breaks the contract, one
    /// with only a warning, and an Info.plist without state; each staged.
    func repository() throws -> URL {
        let repo = try TestPaths.temporaryDirectory().appendingPathComponent("app")
        try FileManager.default.createDirectory(at: repo, withIntermediateDirectories: true)
        let copies = [("good.plist", "Fixtures/valid/ycft/three-records.plist"), ("broken.plist", "Examples/TestData/linux-foundation.plist"),
                      ("warned.plist", "Fixtures/valid/apple-order/no-shared-group.plist")]
        for (name, source) in copies {
            try FileManager.default.copyItem(at: TestPaths.committed(source), to: repo.appendingPathComponent(name))
        }
        let info = #"<plist version="1.0"><dict><key>CFBundleName</key><string>Notes</string></dict></plist>"# + "\n"
        try writeBytes(Array(info.utf8), to: repo.appendingPathComponent("Info.plist"))
        for arguments in [["init", "-q"], ["add", "."]] {
            let git = try runProcess(URL(fileURLWithPath: "/usr/bin/env"), ["git", "-C", repo.path] + arguments)
            #expect(git.status == 0, "\(git.stderr)")
        }
        return repo
    }

    /// `pre-commit` in `repo`, with the built ycft first on PATH and a private cache.
    func preCommit(_ arguments: [String], in repo: URL) throws -> ProcessResult {
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = ycft.deletingLastPathComponent().path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        environment["PRE_COMMIT_HOME"] = repo.deletingLastPathComponent().appendingPathComponent("pre-commit-cache").path
        let script = "cd \"$1\" && shift && exec python3 -m pre_commit \"$@\""
        return try runProcess(URL(fileURLWithPath: "/bin/sh"), ["-c", script, "sh", repo.path] + arguments, environment: environment)
    }

    /// The repository's hook, as pre-commit runs it (`try-repo`, the way to run a hook
    /// repository without a config): a good archive and an Info.plist pass; a broken one fails
    /// with its rule id; the warning passes.
    @Test(.enabled(if: PreCommit.available, "the PyPI package pre-commit cannot be imported (Scripts/bootstrap.sh installs it)"))
    func theHookRepositoryChecksStagedPropertyLists() throws {
        let repo = try repository()
        let root = TestPaths.packageRoot.path
        let passing = try preCommit(["try-repo", root, "ycft-verify-system", "--files", "good.plist", "Info.plist", "warned.plist"], in: repo)
        #expect(passing.status == 0, "\(passing.stdoutText)\(passing.stderr)")
        #expect(passing.stdoutText.contains("ycft verify (YCFirstTime archive contract)....") && passing.stdoutText.contains("Passed\n"))
        let failing = try preCommit(["try-repo", root, "ycft-verify-system", "--files", "good.plist", "broken.plist", "Info.plist"], in: repo)
        #expect(failing.status == 1)
        #expect(failing.stdoutText.contains("Failed\n- hook id: ycft-verify-system\n- exit code: 1\n\n"
                                            + "broken.plist: error: [group-immutable] $objects[3]: sharedGroup is NSDictionary: "), "\(failing.stdoutText)")
        #expect(failing.stdoutText.contains("ycft verify: 3 files: 1 passed, 1 failed, 0 unreadable, 1 without state (1 error, 0 warnings)\n"))
    }

    /// The local hook of docs/workflows.md, with `args: [--strict]`: a warning fails the commit.
    @Test(.enabled(if: PreCommit.available, "the PyPI package pre-commit cannot be imported (Scripts/bootstrap.sh installs it)"))
    func aLocalHookWithStrictFailsWarnings() throws {
        let repo = try repository()
        let config = """
            repos:
              - repo: local
                hooks:
                  - id: ycft-verify
                    name: ycft verify
                    entry: ycft verify --skip-stateless
                    language: system
                    files: \\.plist$
                    args: [--strict]

            """
        try writeBytes(Array(config.utf8), to: repo.appendingPathComponent(".pre-commit-config.yaml"))
        let warned = try preCommit(["run", "--files", "good.plist", "warned.plist", "Info.plist"], in: repo)
        #expect(warned.status == 1)
        #expect(warned.stdoutText.contains("warned.plist: warning: [group-missing] $objects[1]: no \"sharedGroup\": the archive records nothing\n"
                                           + "ycft verify: 3 files: 1 passed, 1 failed, 0 unreadable, 1 without state (0 errors, 1 warning)\n"),
                "\(warned.stdoutText)")
        let good = try preCommit(["run", "--files", "good.plist", "Info.plist"], in: repo)
        #expect(good.status == 0, "\(good.stdoutText)")
    }

    /// `verify --skip-stateless` in every format: the file without state is counted apart,
    /// skipped in JUnit, `stateless` in JSON; a file that is no property list is not passed over.
    @Test func skipStatelessInEveryFormat() throws {
        let repo = try repository()
        let (info, good) = (repo.appendingPathComponent("Info.plist").path, repo.appendingPathComponent("good.plist").path)
        let text = try runProcess(ycft, ["verify", "--skip-stateless", good, info])
        #expect(text.status == 0 && text.stderr == "ycft verify: 2 files: 1 passed, 0 failed, 0 unreadable, 1 without state (0 errors, 0 warnings)\n")
        let without = try runProcess(ycft, ["verify", good, info])
        #expect(without.status == 1 && without.stderr.contains("[state-missing]"))
        let json = try runProcess(ycft, ["verify", "--skip-stateless", "--format", "json", "--compact", info])
        #expect(json.stdoutText == #"{"formatVersion":1,"strict":false,"errors":0,"warnings":0,"files":[{"file":"\#(info)","status":"stateless","#
                + #""error":null,"errors":0,"warnings":0,"findings":[]}]}"# + "\n")
        let junit = try runProcess(ycft, ["verify", "--skip-stateless", "--format", "junit", info])
        #expect(junit.stdoutText.contains("<testsuites name=\"ycft verify\" tests=\"1\" failures=\"0\" errors=\"0\" skipped=\"1\" time=\""))
        #expect(junit.stdoutText.contains("    <testcase classname=\"\(info)\" name=\"contract\">\n      <skipped message=\"no YCFirstTime state\"/>\n"))
        let notes = repo.appendingPathComponent("README.md")
        try writeBytes(Array("# Notes\n".utf8), to: notes)
        let notAPlist = try runProcess(ycft, ["verify", "--skip-stateless", notes.path])
        #expect(notAPlist.status == 1 && notAPlist.stderr.contains("[plist-unreadable]"))
    }

    /// `verify --skip-stateless` passes over a property list whose top level is no dictionary
    /// (it can hold no state; without the flag it fails as the archive it is not). A dictionary
    /// with an envelope key is an archive, broken or not, and a lone `interval.*` key that
    /// holds a string is IntervalClient's gate that runs as if it never ran: both still fail.
    @Test func skipStatelessPassesOverATopLevelThatIsNoDictionary() throws {
        let dir = try TestPaths.temporaryDirectory()
        let files = [("list.plist", #"<plist version="1.0"><array><string>a</string></array></plist>"#),
                     ("name.plist", #"<plist version="1.0"><string>hello</string></plist>"#),
                     ("objects.plist", #"<plist version="1.0"><dict><key>$objects</key><string>x</string></dict></plist>"#),
                     ("config.plist", #"<plist version="1.0"><dict><key>interval.refresh</key><string>5m</string></dict></plist>"#)]
        for (name, text) in files { try writeBytes(Array((text + "\n").utf8), to: dir.appendingPathComponent(name)) }
        let (list, name) = (dir.appendingPathComponent("list.plist").path, dir.appendingPathComponent("name.plist").path)
        let passed = try runProcess(ycft, ["verify", "--skip-stateless", list, name])
        #expect(passed.status == 0)
        #expect(passed.stderr == "ycft verify: 2 files: 0 passed, 0 failed, 0 unreadable, 2 without state (0 errors, 0 warnings)\n")
        let without = try runProcess(ycft, ["verify", list])
        #expect(without.status == 1)
        #expect(without.stderr == "\(list): error: [envelope-objects] top level: the top level is array, not an archive dictionary\n"
                + "ycft verify: 1 file: 0 passed, 1 failed, 0 unreadable (1 error, 0 warnings)\n")
        let (objects, config) = (dir.appendingPathComponent("objects.plist").path, dir.appendingPathComponent("config.plist").path)
        let judged = try runProcess(ycft, ["verify", "--skip-stateless", objects, config])
        #expect(judged.status == 1)
        #expect(judged.stderr == "\(objects): error: [envelope-archiver] $archiver: missing $archiver\n"
                + "\(config): error: [interval-value] interval.refresh: holds string, not a number IntervalClient can read: its gate runs as if it never ran\n"
                + "ycft verify: 2 files: 0 passed, 2 failed, 0 unreadable (2 errors, 0 warnings)\n")
    }

    /// `git` in `repo`, with an identity and no user configuration.
    func git(_ arguments: [String], in repo: URL) throws -> ProcessResult {
        var environment = ProcessInfo.processInfo.environment
        (environment["GIT_CONFIG_GLOBAL"], environment["GIT_CONFIG_NOSYSTEM"]) = ("/dev/null", "1")
        (environment["GIT_AUTHOR_NAME"], environment["GIT_AUTHOR_EMAIL"]) = ("t", "t@example.com")
        (environment["GIT_COMMITTER_NAME"], environment["GIT_COMMITTER_EMAIL"]) = ("t", "t@example.com")
        return try runProcess(URL(fileURLWithPath: "/usr/bin/env"), ["git", "-C", repo.path] + arguments, environment: environment)
    }

    /// The textconv recipe of docs/workflows.md with the real git: a state file committed, one
    /// record changed with `ycft set`, and `git diff` shows that record's line and nothing
    /// else; a plist without state, and a file that is no property list, diff too (never a
    /// textconv error).
    @Test func gitDiffShowsTheRecordThatChanged() throws {
        let repo = try TestPaths.temporaryDirectory().appendingPathComponent("app")
        try FileManager.default.createDirectory(at: repo, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: TestPaths.examples.appendingPathComponent("Preferences.plist"),
                                         to: repo.appendingPathComponent("Preferences.plist"))
        let info = #"<plist version="1.0"><dict><key>CFBundleName</key><string>Notes</string></dict></plist>"# + "\n"
        try writeBytes(Array(info.utf8), to: repo.appendingPathComponent("Info.plist"))
        try writeBytes(Array("not a plist\n".utf8), to: repo.appendingPathComponent("broken.plist"))
        try writeBytes(Array("*.plist diff=ycft\n".utf8), to: repo.appendingPathComponent(".gitattributes"))
        for arguments in [["init", "-q"], ["config", "diff.ycft.textconv", "\(ycft.path) dump --textconv"], ["add", "."],
                          ["commit", "-q", "-m", "state"]] {
            let result = try git(arguments, in: repo)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
        }
        let set = try runProcess(ycft, ["set", "--last-version", "2.2.0", repo.appendingPathComponent("Preferences.plist").path, "onboarding.v1"])
        #expect(set.status == 0, "\(set.stderr)")
        let diff = try git(["diff", "-U0", "--no-color", "--", "Preferences.plist"], in: repo)
        #expect(diff.status == 0 && diff.stderr.isEmpty, "\(diff.stderr)")
        let changed = diff.stdoutText.split(separator: "\n").filter { ($0.hasPrefix("-") || $0.hasPrefix("+")) && !$0.hasPrefix("---") && !$0.hasPrefix("+++") }
        #expect(changed == [#"-        "lastVersion" : "2.1.0""#, #"+        "lastVersion" : "2.2.0""#], "\(diff.stdoutText)")
        // The other files change too; each diffs as text, without an error.
        try writeBytes(Array(info.replacingOccurrences(of: "Notes", with: "Notes Pro").utf8), to: repo.appendingPathComponent("Info.plist"))
        try writeBytes(Array("still not a plist, longer\n".utf8), to: repo.appendingPathComponent("broken.plist"))
        let others = try git(["diff", "-U0", "--no-color", "--", "Info.plist", "broken.plist"], in: repo)
        #expect(others.status == 0 && others.stderr.isEmpty, "\(others.stderr)")
        #expect(others.stdoutText.contains("-  \"CFBundleName\" : \"Notes\"\n+  \"CFBundleName\" : \"Notes Pro\"\n"), "\(others.stdoutText)")
        #expect(others.stdoutText.contains("-(12 bytes, no property list ycft reads: not a property list (neither binary 'bplist00' nor XML))\n"
                                           + "+(26 bytes, no property list ycft reads: not a property list (neither binary 'bplist00' nor XML))\n"),
                "\(others.stdoutText)")
    }

    /// A file over `--max-input-size` in the textconv recipe, with the real git: each side of
    /// the diff is one line with its size, and `git diff` succeeds (before, the textconv's exit
    /// status 1 made git fail: `fatal: unable to read files to diff`).
    @Test func gitDiffOfAFileOverTheLimitIsALine() throws {
        let repo = try TestPaths.temporaryDirectory().appendingPathComponent("app")
        try FileManager.default.createDirectory(at: repo, withIntermediateDirectories: true)
        let big = repo.appendingPathComponent("big.plist")
        try writeBytes([UInt8](repeating: 0x61, count: 3000), to: big)
        try writeBytes(Array("*.plist diff=ycft\n".utf8), to: repo.appendingPathComponent(".gitattributes"))
        for arguments in [["init", "-q"], ["config", "diff.ycft.textconv", "\(ycft.path) dump --textconv --max-input-size 2048"],
                          ["add", "."], ["commit", "-q", "-m", "big"]] {
            let result = try git(arguments, in: repo)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
        }
        try writeBytes([UInt8](repeating: 0x62, count: 4000), to: big)
        let diff = try git(["diff", "-U0", "--no-color", "--", "big.plist"], in: repo)
        #expect(diff.status == 0 && diff.stderr.isEmpty, "\(diff.stderr)")
        #expect(diff.stdoutText.hasSuffix("@@ -1 +1 @@\n-(3000 bytes, not shown: over --max-input-size, 2048 bytes)\n"
                                          + "+(4000 bytes, not shown: over --max-input-size, 2048 bytes)\n"), "\(diff.stdoutText)")
    }

    /// `dump --textconv` on what it does not read: one line on standard output, nothing on
    /// standard error, exit 0. A named pipe and a device are refused by their kind, never
    /// opened: with no writer, opening the pipe waited for ever (the time bound makes that a
    /// failure, exit 137, not a hang of the suite), and `/dev/zero` was read to the limit, exit 1.
    @Test func textconvOfWhatItDoesNotReadIsALine() throws {
        let dir = try TestPaths.temporaryDirectory()
        let fifo = dir.appendingPathComponent("pipe.plist")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        let big = dir.appendingPathComponent("big.plist")
        try writeBytes([UInt8](repeating: 0x61, count: 1001), to: big)
        let cases: [([String], [UInt8], String)] = [
            ([fifo.path], [], "(a named pipe, not shown: only a regular file is read)\n"),
            (["/dev/zero"], [], "(a character device, not shown: only a regular file is read)\n"),
            ([dir.path], [], "(a directory, not shown: only a regular file is read)\n"),
            ([dir.appendingPathComponent("gone.plist").path], [], "(not shown: cannot read: No such file or directory)\n"),
            (["--max-input-size", "1000", big.path], [], "(1001 bytes, not shown: over --max-input-size, 1000 bytes)\n"),
            (["--max-input-size", "1000", "-"], [UInt8](repeating: 0x61, count: 1001),
             "(more than 1000 bytes, not shown: over --max-input-size, 1000 bytes)\n"),
        ]
        for (arguments, stdin, line) in cases {
            let result = try runProcess(URL(fileURLWithPath: "/usr/bin/env"), ["timeout", "-s", "KILL", "20", ycft.path, "dump", "--textconv"] + arguments,
                                        stdin: stdin)
            #expect(result.status == 0 && result.stdoutText == line && result.stderr.isEmpty, "\(arguments): \(result.status) \(result.stdoutText)\(result.stderr)")
        }
        // Within the limit, and from standard input, the file is shown as before.
        let small = try runProcess(ycft, ["dump", "--textconv", "--max-input-size", "1001", big.path])
        #expect(small.status == 0 && small.stdoutText.hasPrefix("(1001 bytes, no property list ycft reads: "), "\(small.stdoutText)")
        let piped = try runProcess(ycft, ["dump", "--textconv", "-"], stdin: Array("plain\n".utf8))
        #expect(piped.status == 0 && piped.stdoutText.hasPrefix("(6 bytes, no property list ycft reads: "), "\(piped.stdoutText)")
    }

    /// `launch-state-reader`'s lines for `records`: `record KEYHEX VERSIONHEX|- TIMEBITS|-`.
    static func readerLines(_ records: FirstTimeRecords) -> String {
        func hex(_ text: String) -> String { text.utf8.map { String(format: "%02x", $0) }.joined() }
        return records.map { key, record in
            "record \(hex(key)) \(record.lastVersion.map(hex) ?? "-") \(record.lastTime.map { String($0.bitPattern, radix: 16) } ?? "-")\n"
        }.joined()
    }

    /// `pack --launch-arguments`, end to end: a Swift program started with the printed words
    /// reads the records through `FirstTimeMigration`/`UserDefaults.standard` exactly (every
    /// time's bits); under `--key`, under that key; the Swift form is the same two words. A save
    /// during that run goes to the app's own domain, the argument still wins for the run, and the
    /// next launch without it reads what was saved.
    @Test func launchArgumentsStartAnAppInTheState() throws {
        let reader = TestPaths.executable("launch-state-reader")
        let json = TestPaths.fixtures.appendingPathComponent("valid/ycft/three-records.json")
        let records = try RecordsFormat.records(fromJSON: try readBytes(json))
        let home = try TestPaths.temporaryDirectory().appendingPathComponent("home")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        var environment = ProcessInfo.processInfo.environment
        (environment["YCFT"], environment["READER"], environment["F"], environment["HOME"]) = (ycft.path, reader.path, json.path, home.path)
        environment["XDG_CONFIG_HOME"] = nil
        func launched(_ pack: String, _ extra: String = "") throws -> ProcessResult {
            let script = "eval \"set -- $(\"$YCFT\" pack --launch-arguments shell \(pack) \"$F\")\" && exec \"$READER\" \(extra) \"$@\""
            return try runProcess(URL(fileURLWithPath: "/bin/sh"), ["-c", script], environment: environment)
        }
        let read = try launched("")
        #expect(read.status == 0 && read.stdoutText == Self.readerLines(records), "\(read.stdoutText)\(read.stderr)")
        let other = try launched("--key App.FirstTime", "--key App.FirstTime")
        #expect(other.status == 0 && other.stdoutText == Self.readerLines(records), "\(other.stdoutText)\(other.stderr)")
        // The words themselves: the archive as old-style data, as shell words and as Swift.
        let archive = try runProcess(ycft, ["pack", "-o", "-", json.path]).stdout
        let data = "<" + archive.map { String(format: "%02x", $0) }.joined() + ">"
        #expect(try runProcess(ycft, ["pack", "--launch-arguments", "shell", json.path]).stdoutText == "-YCFirstTime '\(data)'\n")
        #expect(try runProcess(ycft, ["pack", "--launch-arguments", "swift", json.path]).stdoutText == "[\"-YCFirstTime\", \"\(data)\"]\n")
        #expect(try runProcess(ycft, ["pack", "--launch-arguments", "swift", "--key", "say \"hi\"\\\u{E9}", json.path]).stdoutText
                == "[\"-say \\\"hi\\\"\\\\\\u{E9}\", \"\(data)\"]\n")
        #expect(try runProcess(ycft, ["pack", "--launch-arguments", "shell", "--key", "it's", json.path]).stdoutText
                == "'-it'\\''s' '\(data)'\n")
        // A save during the run: the app's own domain; the argument still wins for the run.
        let saving = try launched("", "--save new.key")
        #expect(saving.status == 0 && saving.stdoutText == Self.readerLines(records) + "saved\n" + Self.readerLines(records),
                "\(saving.stdoutText)\(saving.stderr)")
        var saved = records
        saved["new.key"] = FirstTimeRecord(lastVersion: "9.9", lastTime: 0)
        let next = try runProcess(reader, [], environment: environment)
        #expect(next.stdoutText == Self.readerLines(try FirstTimeRecords(saved.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) })),
                "\(next.stdoutText)\(next.stderr)")
    }
}
