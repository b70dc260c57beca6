import Foundation
import Testing
import TestSupport
@testable import YcftCLI

/// Text without its SGR sequences (`ESC [ digits-and-semicolons m`).
func withoutSGR(_ bytes: [UInt8]) -> [UInt8] {
    var out: [UInt8] = [], i = 0
    while i < bytes.count {
        if bytes[i] == 0x1B, i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "[") {
            var j = i + 2
            while j < bytes.count, bytes[j] == UInt8(ascii: ";") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[j]) { j += 1 }
            if j < bytes.count, bytes[j] == UInt8(ascii: "m") {
                i = j + 1
                continue
            }
        }
        out.append(bytes[i])
        i += 1
    }
    return out
}

func withoutSGR(_ text: String) -> String { String(decoding: withoutSGR(Array(text.utf8)), as: UTF8.self) }

/// `--color auto|always|never` (issue 48, item 5): status's RUNS NOW, verify's severities, the
/// warnings on standard error and the JSON of dump, status and verify, in colour when asked for
/// or on a terminal; never into a pipe or file unless `always`, never with `NO_COLOR` unless
/// `always`, never in GitHub, JUnit or textconv output; and with colour off, not a byte changed.
@Suite struct ColourOutput {
    let ycft = TestPaths.executable("ycft")
    func fixture(_ path: String) -> String { TestPaths.fixtures.appendingPathComponent(path).path }
    static let esc = "\u{1B}"

    /// `always` and `never` as they say; `auto` only on a terminal, with `TERM` set and not
    /// `dumb`, and `NO_COLOR` unset or empty (any other value, `0` too, turns colour off).
    @Test func theOneDecision() {
        for terminal in [false, true] {
            for noColor in [nil, "", "1"] as [String?] {
                for term in [nil, "", "dumb", "xterm-256color"] as [String?] {
                    #expect(Colour.colours(.always, terminal: terminal, noColor: noColor, term: term))
                    #expect(!Colour.colours(.never, terminal: terminal, noColor: noColor, term: term))
                }
            }
        }
        #expect(Colour.colours(.auto, terminal: true, noColor: nil, term: "xterm-256color"))
        #expect(Colour.colours(.auto, terminal: true, noColor: "", term: "screen"))
        #expect(!Colour.colours(.auto, terminal: false, noColor: nil, term: "xterm-256color"))
        #expect(!Colour.colours(.auto, terminal: true, noColor: "1", term: "xterm-256color"))
        #expect(!Colour.colours(.auto, terminal: true, noColor: "0", term: "xterm-256color"))
        #expect(!Colour.colours(.auto, terminal: true, noColor: nil, term: "dumb"))
        #expect(!Colour.colours(.auto, terminal: true, noColor: nil, term: nil))
        #expect(!Colour.colours(.auto, terminal: true, noColor: nil, term: ""))
    }

    @Test func statusInColourIntoAPipeWithAlways() throws {
        let result = try runProcess(ycft, ["status", "--color", "always", "--now", "2025-02-01T00:00:00Z", "--app-version", "2.1.0",
                                           "--gate", "onboarding.v1=once", "--gate", "rate.prompt=days:30",
                                           fixture("valid/defaults/export.binary.plist")], environment: [:])
        #expect(result.status == 0)
        #expect(result.stdoutText == """
        now 2025-02-01T00:00:00.000000Z (UTC), app version "2.1.0"

        KEY            LAST VERSION  LAST TIME (UTC)              AGE
        onboarding.v1  2.1.0         2025-01-01T09:00:00.123456Z  30d 14h 59m
        rate.prompt    2.0.0         2024-10-07T13:20:00.000000Z  116d 10h 40m
        whats-new      -             -                            -

        GATE           RULE                   RUNS NOW  NEXT ELIGIBLE (UTC)
        onboarding.v1  once                   \u{1B}[33mno\u{1B}[0m        never
        rate.prompt    days:30 (2592000.0 s)  \u{1B}[32myes\u{1B}[0m       2025-02-01T00:00:00.000000Z

        """)
        #expect(result.stderr == "")
    }

    @Test func verifyFindingsInColour() throws {
        let (warned, failed) = (fixture("valid/apple-order/no-shared-group.plist"), fixture("invalid/wrong-version.plist"))
        let result = try runProcess(ycft, ["verify", "--color", "always", warned, failed], environment: [:])
        #expect(result.status == 1)
        #expect(result.stdoutText == "")
        #expect(result.stderr == """
        \(warned): \u{1B}[1;33mwarning\u{1B}[0m: [group-missing] $objects[1]: no "sharedGroup": the archive records nothing
        \(failed): \u{1B}[1;31merror\u{1B}[0m: [envelope-version] $version: is 99999, expected 100000
        ycft verify: 2 files: 1 passed, 1 failed, 0 unreadable (1 error, 1 warning)

        """)
    }

    /// dump's JSON in jq's default colours (JQ_COLORS 0;90:0;39:0;39:0;39:0;32:1;39:1;39:1;34),
    /// and its warning's `warning` in the palette's.
    @Test func dumpJSONInJqColours() throws {
        let file = fixture("valid/apple-order/unexpected-extras.plist")
        let result = try runProcess(ycft, ["dump", "--color", "always", "--compact", file], environment: [:])
        #expect(result.status == 0)
        let (k, s, n, p, r) = ("\u{1B}[1;34m", "\u{1B}[0;32m", "\u{1B}[0;39m", "\u{1B}[1;39m", "\u{1B}[0m")
        #expect(result.stdoutText == "\(p){\(r)\(k)\"format\"\(r)\(p):\(r)\(s)\"ycfirsttime-records\"\(r)\(p),\(r)"
            + "\(k)\"formatVersion\"\(r)\(p):\(r)\(n)1\(r)\(p),\(r)\(k)\"records\"\(r)\(p):{\(r)\(k)\"k\"\(r)\(p):{\(r)"
            + "\(k)\"lastTime\"\(r)\(p):\(r)\(n)2.5\(r)\(p),\(r)\(k)\"lastTimeUTC\"\(r)\(p):\(r)\(s)\"2001-01-01T00:00:02.500000Z\"\(r)\(p),\(r)"
            + "\(k)\"lastVersion\"\(r)\(p):\(r)\(s)\"1.2.3\"\(r)\(p)}}}\(r)\n")
        #expect(result.stderr == "ycft: \(file): \u{1B}[1;33mwarning\u{1B}[0m: [record-unknown-key] $objects[5]: "
            + "unknown coder key \"runCount\" in record \"k\" (YCFirstTime ignores it)\n")
    }

    /// The painter, on JSON with every kind of token, and strings that hold what a token
    /// boundary looks like (quotes, colons, brackets, backslashes): keys are only what a
    /// colon follows, and without the sequences the text is the input, byte for byte.
    @Test func jsonPainterKeepsEveryByte() {
        let json = #"{"a\"b:" : ["x:\\", -1.5e+10, true, false, null, {}, []], "c" :"d\\\"}]", "e":0}"# + "\n"
        let painted = String(decoding: Colour.json(Array(json.utf8)), as: UTF8.self)
        #expect(withoutSGR(painted) == json)
        let (k, s, n, b, z, p, r) = ("\u{1B}[1;34m", "\u{1B}[0;32m", "\u{1B}[0;39m", "\u{1B}[0;39m", "\u{1B}[0;90m", "\u{1B}[1;39m", "\u{1B}[0m")
        #expect(painted == "\(p){\(r)\(k)\"a\\\"b:\"\(r) \(p):\(r) \(p)[\(r)\(s)\"x:\\\\\"\(r)\(p),\(r) \(n)-1.5e+10\(r)\(p),\(r) "
            + "\(b)true\(r)\(p),\(r) \(b)false\(r)\(p),\(r) \(z)null\(r)\(p),\(r) \(p){},\(r) \(p)[]],\(r) "
            + "\(k)\"c\"\(r) \(p):\(r)\(s)\"d\\\\\\\"}]\"\(r)\(p),\(r) \(k)\"e\"\(r)\(p):\(r)\(n)0\(r)\(p)}\(r)\n")
    }

    /// Every JSON a command colours is the same JSON without its sequences; and colour off
    /// (`never`, or `auto` into a pipe even with a colour terminal's TERM) changes no byte.
    @Test(arguments: [
        ["dump", "valid/defaults/export.binary.plist"],
        ["dump", "--raw", "valid/defaults/export.binary.plist"],
        ["dump", "--objects", "valid/apple-order/unexpected-extras.plist"],
        ["status", "--format", "json", "--now", "2025-02-01T00:00:00Z", "--gate", "rate.prompt=days:30", "valid/defaults/export.binary.plist"],
        ["verify", "--format", "json", "valid/apple-order/no-shared-group.plist", "invalid/wrong-version.plist"],
    ])
    func colouredJSONIsTheSameJSON(_ arguments: [String]) throws {
        let args = arguments.map { $0.hasSuffix(".plist") ? fixture($0) : $0 }
        let plain = try runProcess(ycft, args, environment: [:])
        let coloured = try runProcess(ycft, [args[0], "--color", "always"] + args.dropFirst(), environment: [:])
        #expect(coloured.status == plain.status)
        #expect(coloured.stdout != plain.stdout && coloured.stdout.contains(0x1B))
        #expect(withoutSGR(coloured.stdout) == plain.stdout)
        for off in [["--color", "never"], ["--color=auto"], []] {
            let result = try runProcess(ycft, [args[0]] + off + args.dropFirst(), environment: ["TERM": "xterm-256color"])
            #expect(result.stdout == plain.stdout, "\(off)")
            #expect(result.stderr == plain.stderr, "\(off)")
        }
    }

    @Test func bothSpellingsOfTheValue() throws {
        let file = fixture("valid/defaults/export.binary.plist")
        let spaced = try runProcess(ycft, ["dump", "--color", "always", file], environment: [:])
        let joined = try runProcess(ycft, ["dump", "--color=always", file], environment: [:])
        #expect(spaced.stdout.contains(0x1B))
        #expect(joined.stdout == spaced.stdout)
        let wrong = try runProcess(ycft, ["status", "--color=yes", file], environment: [:])
        #expect(wrong.status == 2)
        #expect(wrong.stderr.hasPrefix("Error: The value 'yes' is invalid for '--color <when>': expected 'auto', 'always' or 'never'\n"))
    }

    /// Into a pipe, auto colours nothing: status, verify and dump's warnings, with TERM of a
    /// colour terminal and no NO_COLOR.
    @Test func autoIntoAPipeColoursNothing() throws {
        for args in [["status", "--gate", "onboarding.v1=once", fixture("valid/defaults/export.binary.plist")],
                     ["verify", fixture("valid/apple-order/no-shared-group.plist"), fixture("invalid/wrong-version.plist")],
                     ["dump", fixture("valid/apple-order/unexpected-extras.plist")]] {
            let result = try runProcess(ycft, args, environment: ["TERM": "xterm-256color"])
            #expect(!result.stdout.contains(0x1B) && !result.stderr.contains(Self.esc), "\(args)")
            #expect(!result.stdout.isEmpty || !result.stderr.isEmpty)
        }
    }

    /// GitHub workflow commands, JUnit XML and git's textconv are never coloured.
    @Test func machineFormatsNeverInColour() throws {
        let files = [fixture("valid/apple-order/no-shared-group.plist"), fixture("invalid/wrong-version.plist")]
        for format in ["github", "junit"] {
            let result = try runProcess(ycft, ["verify", "--color", "always", "--format", format] + files, environment: [:])
            let plain = try runProcess(ycft, ["verify", "--format", format] + files, environment: [:])
            #expect(result.status == 1)
            #expect(!result.stdout.contains(0x1B) && !result.stderr.contains(Self.esc))
            #expect(result.stdout.count > 100 && withoutTimes(result.stdoutText) == withoutTimes(plain.stdoutText))
        }
        let textconv = try runProcess(ycft, ["dump", "--textconv", "--color", "always", fixture("valid/defaults/export.binary.plist")],
                                      environment: [:])
        let plain = try runProcess(ycft, ["dump", "--textconv", fixture("valid/defaults/export.binary.plist")], environment: [:])
        #expect(textconv.stdout == plain.stdout && !plain.stdout.isEmpty)
    }

    /// JUnit's `time` attributes differ from run to run.
    func withoutTimes(_ text: String) -> String { text.replacing(/time="[0-9.]+"/, with: "time") }

    /// Each stream is decided by itself: on a terminal (TERM set) auto colours it; NO_COLOR,
    /// TERM=dumb or no TERM turn auto off; a stream that is not a terminal stays plain.
    @Test func autoDecidesEachStream() {
        let files = ["p.plist": Array((try? readBytes(TestPaths.fixtures.appendingPathComponent("valid/apple-order/unexpected-extras.plist"))) ?? [])]
        func run(_ args: [String], stdout: Bool, stderr: Bool, _ environment: [String: String]) -> FakeIO {
            let fake = FakeIO(files: files, terminal: stdout, stderrTerminal: stderr, environment: environment)
            _ = fake.run(args)
            return fake
        }
        let colourTerminal = ["TERM": "xterm-256color"]
        let status = ["status", "--now", "2025-01-01T00:00:00Z", "--gate", "k=once", "p.plist"]
        let both = run(status, stdout: true, stderr: true, colourTerminal)
        #expect(both.stdoutText.contains("\u{1B}[33mno\u{1B}[0m"))
        #expect(both.stderr.contains(": \u{1B}[1;33mwarning\u{1B}[0m: [record-unknown-key]"))
        let outOnly = run(status, stdout: true, stderr: false, colourTerminal)
        #expect(outOnly.stdoutText == both.stdoutText && outOnly.stderr == withoutSGR(both.stderr))
        let errOnly = run(status, stdout: false, stderr: true, colourTerminal)
        #expect(errOnly.stdoutText == withoutSGR(both.stdoutText) && errOnly.stderr == both.stderr)
        for environment in [["TERM": "xterm-256color", "NO_COLOR": "1"], ["TERM": "dumb"], [:]] {
            let off = run(status, stdout: true, stderr: true, environment)
            #expect(off.stdoutText == withoutSGR(both.stdoutText) && off.stderr == withoutSGR(both.stderr), "\(environment)")
            #expect(!off.stdoutText.contains(Self.esc) && !off.stderr.contains(Self.esc), "\(environment)")
            // always is always.
            let always = run(["status", "--color", "always"] + status.dropFirst(), stdout: true, stderr: true, environment)
            #expect(always.stdoutText == both.stdoutText && always.stderr == both.stderr, "\(environment)")
        }
        let never = run(["status", "--color", "never"] + status.dropFirst(), stdout: true, stderr: true, colourTerminal)
        #expect(!never.stdoutText.contains(Self.esc) && !never.stderr.contains(Self.esc))
    }

    /// Only the palette's own sequences pass to standard error, and only as whole writes: a
    /// message that holds one is escaped as before.
    @Test func standardErrorPassesOnlyThePalettesWholeWrites() {
        let fake = FakeIO()
        let io = Ycft.terminalSafe(fake.io)
        io.writeStderr(Colour.Style.error.sequence)
        io.writeStderr("x\(Colour.Style.error.sequence)y\n")
        io.writeStderr(Colour.reset)
        io.writeStderr("\u{1B}[2J")
        #expect(fake.stderr == "\u{1B}[1;31m" + #"x\u{1B}[1;31my"# + "\n\u{1B}[0m" + #"\u{1B}[2J"#)
    }

    /// The option is in the help, usage, completions and the manual of each command that colours.
    @Test func theOptionIsEverywhereTheCommandsAre() throws {
        for name in ["dump", "status", "verify"] {
            let spec = try #require(CommandSpec.named(name))
            #expect(spec.usageLine.contains("[--color WHEN]"), "\(name)")
            #expect(YcftCLI.Help.text(spec).contains("  --color WHEN"), "\(name)")
        }
        let bash = try #require(Completions.script(for: "bash"))
        #expect(bash.components(separatedBy: #"--color) _ycft_reply -W "auto always never" -- "$cur"; return ;;"#).count == 4)
        // An empty NO_COLOR does not turn colour off (no-color.org): the help and the manual say so.
        #expect(YcftCLI.Help.text(try #require(CommandSpec.named("status"))).contains("NO_COLOR is set to a non-empty value"))
        let manual = Manual.page(date: "2026-01-01")
        #expect(manual.contains("NO_COLOR is set to a non\\-empty value or TERM is dumb;"))
        #expect(manual.contains(".B NO_COLOR\n"))
        #expect(manual.contains("\\fB\\-\\-color\\fR \\fIWHEN\\fR"))
    }
}

/// Colour on a real terminal (tmux): auto colours status's table and verify's findings, and
/// not with NO_COLOR; dump into a pipe colours only its warning, which goes to the terminal.
@Suite(.enabled(if: Tmux.available, "tmux or vi is not installed (Scripts/bootstrap.sh installs them)"))
struct ColourOnATerminal {
    let ycft = TestPaths.executable("ycft").path
    func fixture(_ path: String) -> String { TestPaths.fixtures.appendingPathComponent(path).path }

    func screen(_ command: String) throws -> String {
        let dir = try TestPaths.temporaryDirectory()
        let tmux = try Tmux(in: dir, temporary: dir)
        defer { tmux.kill() }
        try tmux.type("\(command); echo ycft-exit=$?")
        return try tmux.waitFor(escapes: true) { Tmux.exitStatus($0) != nil }
    }

    func line(_ screen: String, containing text: String) -> String {
        screen.split(separator: "\n").map(String.init).first { $0.contains(text) && !$0.contains("ycft-exit") && !$0.hasPrefix("$") } ?? ""
    }

    @Test func statusAndVerifyColourTheTerminal() throws {
        let status = "\(ycft) status --now 2025-02-01T00:00:00Z --gate onboarding.v1=once --gate rate.prompt=days:30 "
            + fixture("valid/defaults/export.binary.plist")
        let verify = "\(ycft) verify \(fixture("valid/apple-order/no-shared-group.plist")) \(fixture("invalid/wrong-version.plist"))"
        let coloured = try screen("env -u NO_COLOR \(status); env -u NO_COLOR \(verify)")
        // tmux writes the screen's colours in its own sequences: SGR 39 ends a colour.
        #expect(line(coloured, containing: "onboarding.v1  once").contains("\u{1B}[33mno\u{1B}[39m"), "\(coloured)")
        #expect(line(coloured, containing: "rate.prompt    days:30").contains("\u{1B}[32myes\u{1B}[39m"), "\(coloured)")
        #expect(line(coloured, containing: "no-shared-group.plist: ").contains("\u{1B}[1m\u{1B}[33mwarning\u{1B}[0m"), "\(coloured)")
        #expect(line(coloured, containing: "wrong-version.plist: ").contains("\u{1B}[1m\u{1B}[31merror\u{1B}[0m"), "\(coloured)")
        #expect(Tmux.exitStatus(coloured) == 1)

        let plain = try screen("NO_COLOR=1 \(status); NO_COLOR=1 \(verify)")
        #expect(!plain.contains("\u{1B}"), "\(plain)")
        #expect(withoutSGR(line(coloured, containing: "rate.prompt    days:30")) == line(plain, containing: "rate.prompt    days:30"))
        #expect(line(plain, containing: "wrong-version.plist: ").hasSuffix(": error: [envelope-version] $version: is 99999, expected 100000"))
    }

    @Test func dumpIntoAPipeColoursOnlyTheTerminal() throws {
        let file = fixture("valid/apple-order/unexpected-extras.plist")
        let shown = try screen("env -u NO_COLOR \(ycft) dump --compact \(file) | cat")
        #expect(line(shown, containing: "{\"format\"") == #"{"format":"ycfirsttime-records","formatVersion":1,"records":{"k":{"lastTime":2.5,"#
                + #""lastTimeUTC":"2001-01-01T00:00:02.500000Z","lastVersion":"1.2.3"}}}"#, "\(shown)")
        #expect(line(shown, containing: "[record-unknown-key]").contains("\u{1B}[1m\u{1B}[33mwarning\u{1B}[0m"), "\(shown)")
    }
}

/// `migrate`'s progress bar on a real terminal (tmux): the bar is gone when the run ends, the
/// summary on its own line after the command (before, `[###...] 40/40` stayed above it); into
/// a pipe, no bar at all.
@Suite(.enabled(if: Tmux.available, "tmux or vi is not installed (Scripts/bootstrap.sh installs them)"))
struct ProgressOnATerminal {
    @Test func theBarIsGoneWhenTheRunEnds() throws {
        let dir = try TestPaths.temporaryDirectory()
        let input = dir.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: false)
        let example = TestPaths.packageRoot.appendingPathComponent("Examples/exported/com.example.notes.plist")
        for i in 0..<40 { try FileManager.default.copyItem(at: example, to: input.appendingPathComponent("\(i).plist")) }
        let tmux = try Tmux(in: dir, temporary: dir)
        defer { tmux.kill() }
        let ycft = TestPaths.executable("ycft").path
        try tmux.type("cd '\(dir.path)' && \(ycft) migrate --to records -o out in; echo ycft-exit=$?")
        let screen = try tmux.waitFor { Tmux.exitStatus($0) != nil }
        let lines = screen.split(separator: "\n").map(String.init)
        let command = try #require(lines.firstIndex { $0.contains("migrate --to records -o out in") })
        #expect(Array(lines[(command + 1)...].prefix(2)) == ["ycft migrate: 40 files: 40 migrated, 0 unchanged, 0 skipped, 0 failed", "ycft-exit=0"],
                "\(screen)")
        #expect(!screen.contains("["), "\(screen)")
        // A terminal narrower than the bar: the bar is narrower (a line that wraps would not be
        // cleared), and gone at the end all the same.
        try tmux.run(["resize-window", "-t", "edit", "-x", "30"])
        try tmux.type("clear; \(ycft) migrate --to records -o narrow in; echo ycft-exit=$?")
        let narrow = try tmux.waitFor { Tmux.exitStatus($0) != nil && !$0.contains("clear;") }
        #expect(!narrow.contains("[") && !narrow.contains("40/40"), "\(narrow)")
        try tmux.run(["resize-window", "-t", "edit", "-x", "300"])
        try tmux.type("clear; \(ycft) migrate --to records -o out2 in 2>&1 | cat; echo ycft-exit=$?")
        let piped = try tmux.waitFor { Tmux.exitStatus($0) != nil && !$0.contains("clear;") }
        #expect(!piped.contains("["), "\(piped)")
        #expect(piped.contains("ycft migrate: 40 files: 40 migrated, 0 unchanged, 0 skipped, 0 failed\nycft-exit=0"), "\(piped)")
    }
}
