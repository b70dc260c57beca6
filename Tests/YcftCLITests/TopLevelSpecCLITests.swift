import Foundation
import Testing
import TestSupport
@testable import YcftCLI

/// The options given in place of a subcommand (`--version`, `--generate-completion-script`,
/// `--generate-manual`, `-h/--help`) are described once, in ``TopLevel``: the dispatch parses
/// them from there, and the main help, the manual and the completion scripts are made from
/// there (issue 47, item 5).
@Suite struct TopLevelFromTheSpec {
    func run(_ arguments: [String]) -> FakeIO {
        let fake = FakeIO()
        _ = fake.run(arguments)
        return fake
    }

    /// Each option of the spec is handled: with its first choice for a value, it prints its
    /// own answer (only `--help` the main help).
    @Test func everyOptionIsDispatched() {
        for option in TopLevel.options {
            var arguments = [option.name.long]
            if case let .choices(words) = option.completion, let first = words.first { arguments.append(first) }
            let fake = FakeIO()
            #expect(fake.run(arguments) == 0, "\(arguments)")
            #expect(fake.stderr.isEmpty, "\(arguments): \(fake.stderr)")
            #expect(!fake.stdout.isEmpty)
            #expect((fake.stdoutText == YcftCLI.Help.main()) == (option.name == .help), "\(arguments)")
        }
    }

    /// The main help's OPTIONS are the spec's, in its order, with its spellings and placeholders.
    @Test func theMainHelpListsTheSpecsOptions() {
        let help = YcftCLI.Help.main()
        let section = help.components(separatedBy: "OPTIONS:\n").dropFirst().first?.components(separatedBy: "\n\n").first ?? ""
        let labels = section.split(separator: "\n").filter { $0.hasPrefix("  -") }
            .map { String($0.dropFirst(2)).components(separatedBy: "  ").first ?? "" }
        #expect(labels == ["--version", "--generate-completion-script SHELL", "--generate-manual", "-h, --help"])
        #expect(labels == TopLevel.options.map(YcftCLI.Help.label))
    }

    /// The manual's SYNOPSIS has a line for each option but `--help` (as usage leaves it out),
    /// its choices in italics; its OPTIONS describe every one, as the commands' options are.
    /// Before, the synopsis was typed by hand and the options were described nowhere.
    @Test func theManualSynopsisAndOptionsComeFromTheSpec() {
        let page = Manual.page(date: "2026-01-01")
        let synopsis = page.components(separatedBy: ".SH SYNOPSIS\n").dropFirst().first?.components(separatedBy: ".SH DESCRIPTION\n").first
        #expect(synopsis == #"""
        .B ycft
        .I subcommand
        .RI [ options ]
        .br
        .B ycft help
        .RI [ subcommand ]
        .br
        .B ycft
        .B \-\-version
        .br
        .B ycft
        .B \-\-generate\-completion\-script
        .IR bash | zsh | fish
        .br
        .B ycft
        .B \-\-generate\-manual

        """#)
        #expect(page.contains(#"""
        .SH OPTIONS
        Given alone, in place of a subcommand:
        .TP
        \fB\-\-version\fR
        Show the version.
        .TP
        \fB\-\-generate\-completion\-script\fR \fISHELL\fR
        Print a completion script for bash, zsh or fish.
        .TP
        \fB\-\-generate\-manual\fR
        Print the manual page (roff, section 1).
        .TP
        \fB\-h\fR, \fB\-\-help\fR
        Show help information.
        .SH COMMANDS

        """#))
    }

    /// The parser takes the spec's options as the commands' parser takes theirs: an attached
    /// value, a value checked against the choices, nothing after the option, "did you mean".
    @Test(arguments: [
        (["--generate-completion-script"], "Missing value for '--generate-completion-script <shell>': expected 'bash', 'zsh' or 'fish'"),
        (["--generate-completion-script=tcsh"], "The value 'tcsh' is invalid for '--generate-completion-script <shell>': expected 'bash', 'zsh' or 'fish'"),
        (["--generate-completion-script=bash", "zsh"], "Unexpected argument 'zsh'"),
        (["--generate-manual=roff"], "'--generate-manual' takes no value"),
        (["--help=x"], "'--help' takes no value"),
        (["--generate-compl"], "Unknown option '--generate-compl'. Did you mean '--generate-completion-script'?"),
        (["-v"], "Unknown option '-v'"),
        (["-"], "Unknown option '-'"),
    ])
    func mistakes(_ arguments: [String], _ message: String) {
        let fake = run(arguments)
        #expect(fake.stderr == "Error: \(message)\nUsage: ycft <subcommand>\n  See 'ycft --help' for more information.\n")
        #expect(fake.stdout.isEmpty)
    }

    /// `-h` and `--help` are the main help whatever follows, as before.
    @Test func helpTakesAnythingAfterIt() {
        for arguments in [["-h", "junk"], ["--help", "--version"]] {
            let fake = run(arguments)
            #expect(fake.stdoutText == YcftCLI.Help.main() && fake.stderr.isEmpty, "\(arguments)")
        }
    }

    /// Every script offers every spelling of the spec's options in place of a subcommand
    /// (before, zsh and fish left `-h`/`--help` out).
    @Test(arguments: ["bash", "zsh", "fish"])
    func everyScriptOffersThem(_ shell: String) throws {
        let script = try #require(Completions.script(for: shell))
        for option in TopLevel.options {
            for spelling in option.names {
                let spelled = switch shell {
                case "fish": spelling.hasPrefix("--") ? "-l \(spelling.dropFirst(2))" : "-s \(spelling.dropFirst())"
                case "zsh": option.names.count > 1 ? "'(- *)'{\(option.names.joined(separator: ","))}" : "'(- *)''\(spelling)''"
                default: spelling
                }
                #expect(script.contains(spelled), "\(shell): \(spelling)")
            }
        }
    }
}

/// Completion follows the spec's actions (`backup apps|extract`): before an action, the
/// actions and every option of the command; after one, only that action's options (and
/// `--help`); `help backup <TAB>` offers the actions too. Each script runs in its shell.
@Suite struct CompletionPerAction {
    let ycft = TestPaths.executable("ycft")

    /// A folder with `BackupDir/` and `Backup.txt`, and the script for `shell` in it.
    func folder(_ shell: String) throws -> (dir: URL, script: URL) {
        let dir = try TestPaths.temporaryDirectory()
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("BackupDir"), withIntermediateDirectories: true)
        try writeBytes([], to: dir.appendingPathComponent("Backup.txt"))
        let script = dir.appendingPathComponent("ycft.\(shell)")
        let generated = try runProcess(ycft, ["--generate-completion-script", shell])
        #expect(generated.status == 0)
        try writeBytes(generated.stdout, to: script)
        return (dir, script)
    }

    /// The spellings of the options `ycft backup ACTION --<TAB>` should offer: the action's,
    /// `--help`'s, in the spec's order; long ones only (the word typed is `--`).
    static func offered(_ action: String?) throws -> [String] {
        let spec = try #require(CommandSpec.named("backup"))
        let options = try action.map { name in spec.options(of: try #require(spec.action(name))) } ?? spec.options
        return options.flatMap(\.names).filter { $0.hasPrefix("--") }
    }

    /// bash's `_ycft` with the words as bash splits them (`--format=json` is three words).
    @Test func bash() throws {
        let (dir, script) = try folder("bash")
        let driver = #"""
            source "$1"; cd "$2"
            t() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=(); _ycft; echo "${COMPREPLY[*]}"; }
            t ycft backup apps --
            t ycft backup extract --
            t ycft backup --
            t ycft backup --password-file f extract --f
            t ycft backup --format = json apps --c
            t ycft backup ''
            t ycft backup --password-file f ''
            t ycft backup --password-file apps ''
            t ycft backup apps Ba
            t ycft backup extract --app x Ba
            t ycft help backup ''
            t ycft help dump ''
            t ycft help ba
            t ycft -
            t ycft --generate-completion-script ''
            t ycft --generate-completion-script bash ''
            t ycft --version ''
            """#
        let result = try runProcess(URL(fileURLWithPath: "/usr/bin/env"), ["bash", "--norc", "--noprofile", "-c", driver, "bash", script.path, dir.path],
                                    environment: ["PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"])
        #expect(result.stderr == "")
        #expect(result.stdoutText.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) == [
            "--format --compact --password-file --max-input-size --help",
            "--app --group --output --force --password-file --max-input-size --help",
            "--format --compact --app --group --output --force --password-file --max-input-size --help",
            "--force",
            "--compact",
            "apps extract",
            "apps extract",
            "apps extract",
            "BackupDir",
            "BackupDir",
            "apps extract",
            "",
            "backup",
            "--version --generate-completion-script --generate-manual -h --help",
            "bash zsh fish",
            "",
            "",
            "",
        ])
        #expect(try Self.offered("apps").joined(separator: " ") == "--format --compact --password-file --max-input-size --help")
        #expect(try Self.offered("extract").joined(separator: " ") == "--app --group --output --force --password-file --max-input-size --help")
    }

    /// bash offers names as they are (compgen's lines, no glob expanded: `x[1].plist` matched
    /// only `x1.plist` before, twice) and completes under `set -e` when nothing matches (a
    /// failed compgen ended the shell's function before).
    @Test func bashTakesNamesAsTheyAreAndNoMatchIsNoError() throws {
        let (dir, script) = try folder("bash")
        for name in ["x[1].plist", "x1.plist", "q?z", "qaz"] { try writeBytes([], to: dir.appendingPathComponent(name)) }
        let driver = #"""
            set -e; source "$1"; cd "$2"
            t() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=(); _ycft; printf '[%s]' "${COMPREPLY[@]}"; echo; }
            t ycft dump x
            t ycft dump q
            t ycft backup apps --nothing
            t ycft dump --color zz
            echo done
            """#
        let result = try runProcess(URL(fileURLWithPath: "/usr/bin/env"), ["bash", "--norc", "--noprofile", "-c", driver, "bash", script.path, dir.path],
                                    environment: ["PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"])
        #expect(result.status == 0 && result.stderr == "", "\(result.stderr)")
        #expect(result.stdoutText == "[x[1].plist][x1.plist]\n[qaz][q?z]\n[]\n[]\ndone\n")
    }

    /// fish's `complete -C`, the completions without their descriptions.
    @Test(.enabled(if: GeneratedFromTheSpec.installed("fish"), "fish is not installed"))
    func fish() throws {
        let (dir, script) = try folder("fish")
        let lines = ["ycft backup apps --", "ycft backup extract --", "ycft backup --", "ycft backup --password-file f extract --f",
                     "ycft backup ", "ycft backup apps Ba", "ycft help backup ", "ycft help dump ", "ycft -", "ycft --generate-completion-script "]
        let driver = "source $argv[1]; cd $argv[2]; for line in $argv[3..]; echo (complete -C $line | string replace -r '\\t.*' '' | string join ' '); end"
        let result = try runProcess(URL(fileURLWithPath: "/usr/bin/env"), ["fish", "--no-config", "-c", driver, script.path, dir.path] + lines,
                                    environment: ["PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8", "HOME": dir.path])
        #expect(result.stderr == "")
        // fish sorts what it offers.
        #expect(result.stdoutText.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) == [
            "--compact --format --help --max-input-size --password-file",
            "--app --force --group --help --max-input-size --output --password-file",
            "--app --compact --force --format --group --help --max-input-size --output --password-file",
            "--force",
            "apps extract",
            "BackupDir/",
            "apps extract",
            "",
            "-h --generate-completion-script --generate-manual --help --version",
            "bash fish zsh",
            "",
        ], "\(result.stdoutText)")
    }

    /// The words a shell listed under the prompt after TAB (the first word of each line, or
    /// every word for bash's columns), without the prompt's own lines.
    static func listed(_ screen: String, everyWord: Bool) -> [String] {
        screen.split(separator: "\n").filter { !$0.hasPrefix("$") }.flatMap { line in
            let words = line.split(separator: " ").map(String.init)
            return everyWord ? words : Array(words.prefix(1))
        }
    }

    /// Whether the screen is the prompt alone (capture-pane drops trailing blanks: `$`).
    static func promptOnly(_ screen: String) -> Bool { screen.split(separator: "\n") == ["$"] }

    /// Types `line`, presses TAB (`tabs` times), and returns the screen once it has more than
    /// the prompt's line or the line changed; then clears the line and the screen.
    static func complete(_ line: String, tabs: Int, in tmux: Tmux) throws -> String {
        try tmux.type(line, then: Array(repeating: "Tab", count: tabs))
        // capture-pane drops a line's trailing blanks.
        let typed = String(("$ " + line).reversed().drop { $0 == " " }.reversed())
        var screen = try tmux.waitFor { screen in
            let lines = screen.split(separator: "\n")
            return lines.count > 1 || lines.first.map { $0.hasPrefix(typed) && $0.count > typed.count } ?? false
        }
        // A list is written at once; a moment more for its last line to be captured.
        usleep(200_000)
        screen = try tmux.waitFor { _ in true }
        try tmux.type("", then: ["C-u", "C-l"])
        try tmux.waitFor(Self.promptOnly)
        return screen
    }

    /// A real bash on a terminal: TAB TAB lists what `_ycft` offers.
    @Test(.enabled(if: Tmux.available, "tmux is not installed"))
    func bashOnATerminal() throws {
        let (dir, script) = try folder("bash")
        let tmux = try Tmux(in: dir, temporary: dir)
        defer { tmux.kill() }
        try tmux.type("source '\(script.path)'; cd '\(dir.path)'; clear")
        try tmux.waitFor(Self.promptOnly)
        var results: [[String]] = []
        for line in ["ycft backup apps --", "ycft backup extract --", "ycft backup "] {
            // The first TAB completes what all share (nothing more here), the second lists them.
            try tmux.type(line, then: ["Tab", "Tab"])
            try tmux.waitFor { $0.split(separator: "\n").count >= 3 }
            usleep(200_000)
            results.append(Self.listed(try tmux.waitFor { _ in true }, everyWord: true).sorted())
            try tmux.type("", then: ["C-u"])
            try tmux.type("clear")
            try tmux.waitFor(Self.promptOnly)
        }
        #expect(results == [try Self.offered("apps").sorted(), try Self.offered("extract").sorted(), ["apps", "extract"]])
    }

    /// The zsh script is installed either way its header says: autoloaded from `$fpath` as
    /// `_ycft`, or sourced after compinit (before, sourcing it registered nothing and TAB
    /// completed file names).
    @Test(.enabled(if: GeneratedFromTheSpec.installed("zsh"), "zsh is not installed"))
    func zshScriptRegistersItselfEitherWay() throws {
        let (dir, script) = try folder("zsh")
        let functions = dir.appendingPathComponent("functions")
        try FileManager.default.createDirectory(at: functions, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: script, to: functions.appendingPathComponent("_ycft"))
        for setup in ["fpath=('\(functions.path)' $fpath); autoload -U compinit; compinit -u -D",
                      "autoload -U compinit; compinit -u -D; source '\(script.path)'"] {
            let result = try runProcess(URL(fileURLWithPath: "/usr/bin/env"), ["zsh", "-f", "-c", setup + "; print -r -- $_comps[ycft]"])
            #expect(result.status == 0 && result.stderr.isEmpty, "\(setup): \(result.stderr)")
            #expect(result.stdoutText == "_ycft\n", "\(setup)")
        }
    }

    /// A real zsh on a terminal (compinit, the script as `_ycft`): TAB lists what `_arguments`
    /// offers, the options with their help, and completes BACKUP as a folder.
    @Test(.enabled(if: Tmux.available && GeneratedFromTheSpec.installed("zsh"), "tmux or zsh is not installed"))
    func zshOnATerminal() throws {
        let (dir, script) = try folder("zsh")
        let home = dir.appendingPathComponent("home")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        try writeBytes(Array("""
            PS1='$ '
            autoload -U compinit; compinit -u -D
            source '\(script.path)'
            cd '\(dir.path)'

            """.utf8), to: home.appendingPathComponent(".zshrc"))
        // -d: no global start-up files, only home/.zshrc.
        let tmux = try Tmux(in: dir, temporary: dir, shell: "zsh -d -i")
        defer { tmux.kill() }
        var results: [[String]] = []
        for line in ["ycft backup apps --", "ycft backup extract --", "ycft backup --", "ycft backup ", "ycft help backup ",
                     "ycft --generate-completion-script "] {
            results.append(Self.listed(try Self.complete(line, tabs: 1, in: tmux), everyWord: !line.hasSuffix("--")).sorted())
        }
        #expect(results == [try Self.offered("apps").sorted(), try Self.offered("extract").sorted(), try Self.offered(nil).sorted(),
                            ["apps", "extract"], ["apps", "extract"], ["bash", "fish", "zsh"]])
        let folder = try Self.complete("ycft backup apps Ba", tabs: 1, in: tmux)
        #expect(folder.hasPrefix("$ ycft backup apps BackupDir/"), "\(folder)")
    }
}
