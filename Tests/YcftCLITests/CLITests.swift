import Foundation
import Testing
import FirstTimeArchive
import FirstTimeCore
import SafeFiles
import FileErrors
import Plist
import PlistCore
import TestSupport
@testable import YcftCLI

/// Captures what a command writes, and serves files from memory.
final class FakeIO: @unchecked Sendable {
    private let lock = NSLock()
    private var _stdout: [UInt8] = []
    private var _stderr = ""
    private var files: [String: [UInt8]]
    let stdin: [UInt8]
    let terminal: Bool
    /// The terminal's width, as `COLUMNS` or the terminal would say it.
    let width: Int
    /// Whether standard error is a terminal.
    let stderrTerminal: Bool
    /// The environment variables the command sees (none by default).
    let environment: [String: String]

    init(files: [String: [UInt8]] = [:], stdin: [UInt8] = [], terminal: Bool = false, width: Int = 80,
         stderrTerminal: Bool = false, environment: [String: String] = [:]) {
        self.files = files
        self.stdin = stdin
        self.terminal = terminal
        self.width = width
        (self.stderrTerminal, self.environment) = (stderrTerminal, environment)
    }

    var stdout: [UInt8] { lock.withLock { _stdout } }
    var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
    var stderr: String { lock.withLock { _stderr } }
    func file(_ path: String) -> [UInt8]? { lock.withLock { files[path] } }

    var io: CommandIO {
        var io = CommandIO(
            writeStdout: { bytes in self.lock.withLock { self._stdout += bytes } },
            writeStderr: { text in self.lock.withLock { self._stderr += text } },
            readStdin: { _, _ in self.stdin },
            readFile: { path, _, _ throws(FileError) in
                guard let bytes = self.lock.withLock({ self.files[path] }) else {
                    throw FileError(.read, path, .system(SystemError(errno: ENOENT)))
                }
                return InputFile(path: path, bytes: bytes)
            },
            writeFile: { path, bytes, _ in
                self.lock.withLock { self.files[path] = bytes }
                return .replaced(path)
            },
            keepBackup: { path, _, suffix, bytes in
                self.lock.withLock { self.files[path + suffix] = bytes }
                return SafeFile.Backup(path: path + suffix, reused: false)
            },
            stdoutIsTerminal: { self.terminal })
        io.terminalWidth = { self.width }
        io.stderrIsTerminal = { self.stderrTerminal }
        io.environment = { self.environment[$0] }
        return io
    }

    func run(_ arguments: [String]) -> Int32 { Ycft.run(arguments, io: io) }
}

let sampleRecords = records([("onboarding.v1", "2.1.0", 757_414_800.123456), ("rate", nil, nil)])
let sampleJSON = RecordsFormat.jsonText(sampleRecords)

@Suite struct Help {
    // `help help` (and `help --help`) answer with the top-level help, as swift-argument-parser does.
    @Test(arguments: [[], ["--help"], ["-h"], ["help"], ["help", "help"], ["help", "--help"], ["help", "-h"]])
    func mainHelp(_ arguments: [String]) {
        let fake = FakeIO()
        #expect(fake.run(arguments) == 0)
        #expect(fake.stdoutText == YcftCLI.Help.main())
        #expect(fake.stderr.isEmpty)
    }

    @Test(arguments: ["dump", "pack", "verify", "migrate", "status", "set", "unset", "reset", "edit", "backup"])
    func commandHelpIsTheSameThreeWays(_ command: String) {
        let texts = [["help", command], [command, "--help"], [command, "-h", "x"]].map { args -> String in
            let fake = FakeIO()
            #expect(fake.run(args) == 0)
            return fake.stdoutText
        }
        #expect(Set(texts).count == 1)
        #expect(texts[0].contains("USAGE: ycft \(command) "))
    }

    @Test func mainHelpGolden() {
        #expect(YcftCLI.Help.main() == """
        OVERVIEW: Read, check, migrate and rewrite the state archives of YCFirstTime.

        USAGE: ycft <subcommand>

        OPTIONS:
          --version               Show the version.
          --generate-completion-script SHELL
                                  Print a completion script for bash, zsh or fish.
          --generate-manual       Print the manual page (roff, section 1).
          -h, --help              Show help information.

        SUBCOMMANDS:
          dump                    Print the records of an archive as JSON.
          pack                    Write records (JSON) as a legacy archive.
          verify                  Check archives against the YCFirstTime contract.
          migrate                 Move state in defaults files to the plain format and
                                  back.
          status                  Would each gate run now, and when next?
          diff                    Compare two states as the device reads them.
          set                     Set one record's version or time, in place.
          unset                   Remove records, in place.
          reset                   YCFirstTime's reset(), in place.
          edit                    Edit the records in $VISUAL or $EDITOR, in place.
          backup                  List or copy out the state in an iPhone backup.
          help                    Show help for a subcommand.

        EXIT STATUS:
          0  success
          1  the input is not a valid archive or records file (a content problem)
          2  trouble: usage, unreadable input, unwritable output

          See 'ycft help <subcommand>' for detailed help.

        """)
    }

    /// `help backup apps` and `help backup extract` are `help backup`, the page of both actions.
    @Test func helpForAnActionIsItsCommandsHelp() {
        let page = FakeIO()
        #expect(page.run(["help", "backup"]) == 0 && page.stdoutText.contains("extract"))
        for action in ["apps", "extract"] {
            let fake = FakeIO()
            #expect(fake.run(["help", "backup", action]) == 0)
            #expect(fake.stdoutText == page.stdoutText && fake.stderr.isEmpty)
        }
    }

    @Test func version() {
        let fake = FakeIO()
        #expect(fake.run(["--version"]) == 0)
        #expect(fake.stdoutText == "ycft 0.1.0\n")
    }

    /// `--generate-completion-script=bash` is `--generate-completion-script bash`, as the
    /// commands' options take `--key=value`.
    @Test func theCompletionScriptsShellMayBeAttached() {
        let (attached, separate) = (FakeIO(), FakeIO())
        #expect(attached.run(["--generate-completion-script=bash"]) == 0)
        #expect(separate.run(["--generate-completion-script", "bash"]) == 0)
        #expect(attached.stdoutText == separate.stdoutText && !attached.stdoutText.isEmpty)
    }
}

@Suite struct Usage {
    @Test(arguments: [
        (["frobnicate"], "Error: Unknown subcommand 'frobnicate'\nUsage: ycft <subcommand>\n  See 'ycft --help' for more information.\n"),
        (["--frob"], "Error: Unknown option '--frob'\nUsage: ycft <subcommand>\n  See 'ycft --help' for more information.\n"),
        (["dump"], "Error: Missing expected argument 'FILE|-'\nUsage: ycft dump [--raw [--refs] | --objects | --textconv] [--key NAME]\n                 [--compact] [--color WHEN] [--max-input-size SIZE] FILE|- |\n                 --backup BACKUP [--app BUNDLE_ID] [--group GROUP_ID]\n                 [--password-file FILE]\n  See 'ycft dump --help' for more information.\n"),
        (["dump", "a", "b"], "Error: Unexpected argument 'b'\nUsage: ycft dump [--raw [--refs] | --objects | --textconv] [--key NAME]\n                 [--compact] [--color WHEN] [--max-input-size SIZE] FILE|- |\n                 --backup BACKUP [--app BUNDLE_ID] [--group GROUP_ID]\n                 [--password-file FILE]\n  See 'ycft dump --help' for more information.\n"),
        (["dump", "--nope", "a"], "Error: Unknown option '--nope'\nUsage: ycft dump [--raw [--refs] | --objects | --textconv] [--key NAME]\n                 [--compact] [--color WHEN] [--max-input-size SIZE] FILE|- |\n                 --backup BACKUP [--app BUNDLE_ID] [--group GROUP_ID]\n                 [--password-file FILE]\n  See 'ycft dump --help' for more information.\n"),
        (["dump", "a", "--key"], "Error: Missing value for '--key <name>'\nUsage: ycft dump [--raw [--refs] | --objects | --textconv] [--key NAME]\n                 [--compact] [--color WHEN] [--max-input-size SIZE] FILE|- |\n                 --backup BACKUP [--app BUNDLE_ID] [--group GROUP_ID]\n                 [--password-file FILE]\n  See 'ycft dump --help' for more information.\n"),
        (["pack", "--plist-format", "json", "a"], "Error: The value 'json' is invalid for '--plist-format <format>': expected 'binary' or 'xml'\nUsage: ycft pack [--plist-format FORMAT]\n                 [-o OUT|- | --into DEFAULTS_FILE | --launch-arguments STYLE]\n                 [--key NAME] [--force] [--max-input-size SIZE] FILE.json|-\n  See 'ycft pack --help' for more information.\n"),
        (["pack", "--format", "xml", "a"], "Error: '--format' is now '--plist-format binary|xml' ('--format' names report formats elsewhere)\nUsage: ycft pack [--plist-format FORMAT]\n                 [-o OUT|- | --into DEFAULTS_FILE | --launch-arguments STYLE]\n                 [--key NAME] [--force] [--max-input-size SIZE] FILE.json|-\n  See 'ycft pack --help' for more information.\n"),
        (["help", "nope"], "Error: Unknown subcommand 'nope'\nUsage: ycft <subcommand>\n  See 'ycft --help' for more information.\n"),
        // An extra operand after a known subcommand is blamed, not the subcommand.
        (["help", "set", "extra"], "Error: Unexpected argument 'extra'\nUsage: ycft help [<subcommand>]\n  See 'ycft --help' for more information.\n"),
        (["help", "help", "extra"], "Error: Unexpected argument 'extra'\nUsage: ycft help [<subcommand>]\n  See 'ycft --help' for more information.\n"),
        (["help", "nope", "extra"], "Error: Unknown subcommand 'nope'\nUsage: ycft <subcommand>\n  See 'ycft --help' for more information.\n"),
        // An action of the command is its help (below); any other word is not.
        (["help", "backup", "list"], "Error: Unexpected argument 'list'\nUsage: ycft help [<subcommand>]\n  See 'ycft --help' for more information.\n"),
        (["help", "backup", "apps", "extract"],
         "Error: Unexpected argument 'extract'\nUsage: ycft help [<subcommand>]\n  See 'ycft --help' for more information.\n"),
        // Did you mean: a close subcommand or long option is suggested, a distant one is not.
        (["verfy", "a"], "Error: Unknown subcommand 'verfy'. Did you mean 'verify'?\nUsage: ycft <subcommand>\n  See 'ycft --help' for more information.\n"),
        // `version` is closer to 'verify', but means the option.
        (["version"], "Error: Unknown subcommand 'version'. Did you mean '--version'?\nUsage: ycft <subcommand>\n  See 'ycft --help' for more information.\n"),
        (["help", "mirgate"], "Error: Unknown subcommand 'mirgate'. Did you mean 'migrate'?\nUsage: ycft <subcommand>\n  See 'ycft --help' for more information.\n"),
        (["--verison"], "Error: Unknown option '--verison'. Did you mean '--version'?\nUsage: ycft <subcommand>\n  See 'ycft --help' for more information.\n"),
        (["dump", "--compat", "a"], "Error: Unknown option '--compat'. Did you mean '--compact'?\nUsage: ycft dump [--raw [--refs] | --objects | --textconv] [--key NAME]\n                 [--compact] [--color WHEN] [--max-input-size SIZE] FILE|- |\n                 --backup BACKUP [--app BUNDLE_ID] [--group GROUP_ID]\n                 [--password-file FILE]\n  See 'ycft dump --help' for more information.\n"),
        (["dump", "--kye=x", "a"], "Error: Unknown option '--kye'. Did you mean '--key'?\nUsage: ycft dump [--raw [--refs] | --objects | --textconv] [--key NAME]\n                 [--compact] [--color WHEN] [--max-input-size SIZE] FILE|- |\n                 --backup BACKUP [--app BUNDLE_ID] [--group GROUP_ID]\n                 [--password-file FILE]\n  See 'ycft dump --help' for more information.\n"),
        (["dump", "-raw", "a"], "Error: Unknown option '-raw'. Did you mean '--raw'?\nUsage: ycft dump [--raw [--refs] | --objects | --textconv] [--key NAME]\n                 [--compact] [--color WHEN] [--max-input-size SIZE] FILE|- |\n                 --backup BACKUP [--app BUNDLE_ID] [--group GROUP_ID]\n                 [--password-file FILE]\n  See 'ycft dump --help' for more information.\n"),
        (["dump", "--x", "a"], "Error: Unknown option '--x'\nUsage: ycft dump [--raw [--refs] | --objects | --textconv] [--key NAME]\n                 [--compact] [--color WHEN] [--max-input-size SIZE] FILE|- |\n                 --backup BACKUP [--app BUNDLE_ID] [--group GROUP_ID]\n                 [--password-file FILE]\n  See 'ycft dump --help' for more information.\n"),
        (["sat", "a"], "Error: Unknown subcommand 'sat'. Did you mean 'set'?\nUsage: ycft <subcommand>\n  See 'ycft --help' for more information.\n"),
        (["foo"], "Error: Unknown subcommand 'foo'\nUsage: ycft <subcommand>\n  See 'ycft --help' for more information.\n"),
        (["--generate-completion-script", "bash", "--generate-manual"],
         "Error: Unexpected argument '--generate-manual'\nUsage: ycft <subcommand>\n  See 'ycft --help' for more information.\n"),
        (["--version=x"], "Error: '--version' takes no value\nUsage: ycft <subcommand>\n  See 'ycft --help' for more information.\n"),
        (["--generate-completion-script=csh"],
         "Error: The value 'csh' is invalid for '--generate-completion-script <shell>': expected 'bash', 'zsh' or 'fish'\nUsage: ycft <subcommand>\n  See 'ycft --help' for more information.\n"),
        (["--frob=1"], "Error: Unknown option '--frob'\nUsage: ycft <subcommand>\n  See 'ycft --help' for more information.\n"),
        (["--version", "junk"], "Error: Unexpected argument 'junk'\nUsage: ycft <subcommand>\n  See 'ycft --help' for more information.\n"),
        (["--generate-completion-script", "csh"],
         "Error: The value 'csh' is invalid for '--generate-completion-script <shell>': expected 'bash', 'zsh' or 'fish'\nUsage: ycft <subcommand>\n  See 'ycft --help' for more information.\n"),
        // A word cut short is the option it begins; --force only for a near-certain typo.
        (["dump", "--obj", "a"], "Error: Unknown option '--obj'. Did you mean '--objects'?\nUsage: ycft dump [--raw [--refs] | --objects | --textconv] [--key NAME]\n                 [--compact] [--color WHEN] [--max-input-size SIZE] FILE|- |\n                 --backup BACKUP [--app BUNDLE_ID] [--group GROUP_ID]\n                 [--password-file FILE]\n  See 'ycft dump --help' for more information.\n"),
        (["reset", "--format", "a"], "Error: Unknown option '--format'\nUsage: ycft reset [--key NAME] [--force] [--max-input-size SIZE] FILE\n  See 'ycft reset --help' for more information.\n"),
        (["reset", "--forse", "a"], "Error: Unknown option '--forse'. Did you mean '--force'?\nUsage: ycft reset [--key NAME] [--force] [--max-input-size SIZE] FILE\n  See 'ycft reset --help' for more information.\n"),
        // An empty --key or --include (`--key "$KEY"` with KEY unset) is refused, however given.
        (["reset", "--key", "", "a"], "Error: The value for '--key <name>' is empty: give a name\nUsage: ycft reset [--key NAME] [--force] [--max-input-size SIZE] FILE\n  See 'ycft reset --help' for more information.\n"),
        (["reset", "--key=", "a"], "Error: The value for '--key <name>' is empty: give a name\nUsage: ycft reset [--key NAME] [--force] [--max-input-size SIZE] FILE\n  See 'ycft reset --help' for more information.\n"),
    ])
    func usageErrorsExitTwo(_ arguments: [String], _ message: String) {
        let fake = FakeIO()
        #expect(fake.run(arguments) == 2)
        #expect(fake.stderr == message)
        #expect(fake.stdout.isEmpty)
    }
}

@Suite struct Dump {
    @Test func archiveToJSON() throws {
        let fake = FakeIO(files: ["a.plist": try LegacyArchive.encode(sampleRecords, format: .binary)])
        #expect(fake.run(["dump", "a.plist"]) == 0)
        #expect(fake.stdoutText == sampleJSON)
        #expect(fake.stderr.isEmpty)
    }

    @Test func compactFromStdin() throws {
        let fake = FakeIO(stdin: try LegacyArchive.encode(sampleRecords, format: .xml))
        #expect(fake.run(["dump", "--compact", "-"]) == 0)
        #expect(fake.stdoutText == RecordsFormat.jsonText(sampleRecords, style: .compact))
    }

    @Test func defaultsFileWithCustomKey() throws {
        let archive = try LegacyArchive.encode(sampleRecords, format: .binary)
        let defaults = try PropertyList.write(.dictionary(PlistDictionary([("X", .string("y")), ("State", .data(archive))])), format: .xml)
        let fake = FakeIO(files: ["prefs.plist": defaults])
        #expect(fake.run(["dump", "--key=State", "prefs.plist"]) == 0)
        #expect(fake.stdoutText == sampleJSON)
    }

    @Test func missingKeyInDefaultsFile() throws {
        let defaults = try PropertyList.write(.dictionary(PlistDictionary([("X", .string("y"))])), format: .binary)
        let fake = FakeIO(files: ["prefs.plist": defaults])
        #expect(fake.run(["dump", "prefs.plist"]) == 1)
        #expect(fake.stderr == "ycft: prefs.plist: no \"YCFirstTime\" key: not a YCFirstTime archive or a defaults file holding one (ycft dump --raw shows everything it holds)\n")
        #expect(fake.stdout.isEmpty)
    }

    @Test func contentErrorExitsOne() throws {
        var objects = appleLayoutOneKey
        objects[7] = .string("not a date")
        let bytes = try PropertyList.write(archiveValue(objects), format: .binary)
        let fake = FakeIO(files: ["bad.plist": bytes])
        #expect(fake.run(["dump", "bad.plist"]) == 1)
        #expect(fake.stderr == "ycft: bad.plist: $objects[5].lastTime: expected NSDate, found NSString (ycft dump --raw shows everything it holds)\n")
        #expect(fake.stdout.isEmpty)
    }

    @Test func notAPlistExitsOne() {
        let fake = FakeIO(stdin: Array("hello".utf8))
        #expect(fake.run(["dump", "-"]) == 1)
        #expect(fake.stderr == "ycft: <stdin>: not a property list (neither binary 'bplist00' nor XML)\n")
    }

    @Test func unreadableFileExitsTwo() {
        let fake = FakeIO()
        #expect(fake.run(["dump", "missing.plist"]) == 2)
        #expect(fake.stderr == "ycft: missing.plist: cannot read: No such file or directory\n")
    }
}

@Suite struct Pack {
    @Test func jsonToBinaryOnStdout() throws {
        let fake = FakeIO(stdin: Array(sampleJSON.utf8))
        #expect(fake.run(["pack", "-"]) == 0)
        #expect(fake.stdout == (try LegacyArchive.encode(sampleRecords, format: .binary)))
    }

    @Test func jsonToXMLFile() throws {
        let fake = FakeIO(files: ["r.json": Array(sampleJSON.utf8)])
        #expect(fake.run(["pack", "--plist-format", "xml", "-o", "out.plist", "r.json"]) == 0)
        #expect(fake.file("out.plist") == (try LegacyArchive.encode(sampleRecords, format: .xml)))
        #expect(fake.stdout.isEmpty)
    }

    /// A time that is NaN or infinite is packed as written (a dump of a device's archive may
    /// hold one), with the warning verify's error would give, named where the JSON has it.
    @Test func aNonFiniteTimeIsPackedAndSaid() throws {
        let json = #"{"format":"ycfirsttime-records","formatVersion":1,"records":{"a":{"lastTime":"NaN"},"b":{"lastTime":"-Infinity"},"c":{"lastTime":1}}}"#
        let fake = FakeIO(files: ["r.json": Array(json.utf8)])
        #expect(fake.run(["pack", "-o", "out.plist", "r.json"]) == 0)
        let stored = try ArchiveReader.decode(fake.file("out.plist") ?? [])
        #expect(stored["a"]?.lastTime?.isNaN == true && stored["b"]?.lastTime == -.infinity && stored["c"]?.lastTime == 1)
        let rule = "interval gates misfire (YCFirstTime 2.x's days: rule never fires again for NaN and +infinity, always for -infinity)"
        #expect(fake.stderr == """
            ycft: r.json: warning: [time-non-finite] records["a"].lastTime: lastTime is nan: \(rule)
            ycft: r.json: warning: [time-non-finite] records["b"].lastTime: lastTime is -inf: \(rule)

            """)
    }

    @Test func refusesBinaryToATerminal() {
        let fake = FakeIO(stdin: Array(sampleJSON.utf8), terminal: true)
        #expect(fake.run(["pack", "-"]) == 2)
        #expect(fake.stderr == "ycft: refusing to write a binary property list to a terminal; use -o FILE, --plist-format xml, or redirect\n")
    }

    @Test func badJSONExitsOneWithLocation() {
        let fake = FakeIO(stdin: Array("{\"format\": }".utf8))
        #expect(fake.run(["pack", "-"]) == 1)
        #expect(fake.stderr == "ycft: <stdin>: invalid JSON: unexpected character (at line 1, column 12)\n")
        #expect(fake.stdout.isEmpty)
    }
}

/// The real binary, end to end.
@Suite(.serialized) struct EndToEnd {
    let ycft = TestPaths.executable("ycft")

    @Test func dumpThenPackThenDumpIsStable() throws {
        let dir = try TestPaths.temporaryDirectory()
        let archive = dir.appendingPathComponent("a.plist")
        try writeBytes(try LegacyArchive.encode(sampleRecords, format: .binary), to: archive)
        let dumped = try runProcess(ycft, ["dump", archive.path])
        #expect(dumped.status == 0)
        #expect(dumped.stdoutText == sampleJSON)
        let packed = try runProcess(ycft, ["pack", "-o", dir.appendingPathComponent("b.plist").path, "-"], stdin: dumped.stdout)
        #expect(packed.status == 0)
        #expect(try readBytes(dir.appendingPathComponent("b.plist")) == readBytes(archive))
    }

    @Test func errorGoesToStderrWithExitOne() throws {
        let result = try runProcess(ycft, ["dump", "-"], stdin: Array("garbage".utf8))
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == "ycft: <stdin>: not a property list (neither binary 'bplist00' nor XML)\n")
    }

    @Test func packToAFileKeepsItsPermissionsAndLeavesNoTemporaryFile() throws {
        let dir = try TestPaths.temporaryDirectory()
        let out = dir.appendingPathComponent("out.plist")
        try writeBytes([1, 2, 3], to: out)
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: out.path)
        let result = try runProcess(ycft, ["pack", "-o", out.path, "-"], stdin: Array(sampleJSON.utf8))
        #expect(result.status == 0)
        let mode = try FileManager.default.attributesOfItem(atPath: out.path)[.posixPermissions] as? Int
        #expect(mode == 0o640)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["out.plist"])
    }

    @Test func failedPackLeavesTheTargetUntouched() throws {
        let dir = try TestPaths.temporaryDirectory()
        let out = dir.appendingPathComponent("out.plist")
        try writeBytes([1, 2, 3], to: out)
        let result = try runProcess(ycft, ["pack", "-o", out.path, "-"], stdin: Array("{}".utf8))
        #expect(result.status == 1)
        #expect(try readBytes(out) == [1, 2, 3])
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["out.plist"])
    }

    @Test func unwritableOutputExitsTwo() throws {
        let result = try runProcess(ycft, ["pack", "-o", "/nonexistent-dir/out.plist", "-"], stdin: Array(sampleJSON.utf8))
        #expect(result.status == 2)
        #expect(result.stderr == "ycft: /nonexistent-dir/out.plist: cannot write: No such file or directory\n")
    }
}
