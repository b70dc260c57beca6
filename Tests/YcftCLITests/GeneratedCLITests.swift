import Foundation
import Testing
import TestSupport
import FirstTimeArchive
import FirstTimeCore
@testable import YcftCLI

/// The one description of the command line (CommandSpec) and what is produced from it.
@Suite struct GeneratedFromTheSpec {
    static func installed(_ tool: String) -> Bool {
        ["/usr/bin/", "/bin/", "/usr/local/bin/"].contains { FileManager.default.isExecutableFile(atPath: $0 + tool) }
    }

    func generate(_ arguments: [String]) -> String {
        let fake = FakeIO()
        #expect(fake.run(arguments) == 0)
        #expect(fake.stderr.isEmpty)
        return fake.stdoutText
    }

    func check(_ script: String, with shell: String) throws {
        let dir = try TestPaths.temporaryDirectory()
        let file = dir.appendingPathComponent("completion.\(shell)")
        try writeBytes(Array(script.utf8), to: file)
        let result = try runProcess(URL(fileURLWithPath: "/usr/bin/env"), [shell, "-n", file.path])
        #expect(result.status == 0, "\(shell) -n: \(result.stderr)")
    }

    /// Every visible option and every subcommand of the spec is in every script and the manual.
    @Test(arguments: ["bash", "zsh", "fish"])
    func completionsCoverTheSpec(_ shell: String) throws {
        let script = generate(["--generate-completion-script", shell])
        for spec in CommandSpec.all {
            #expect(script.contains(spec.name), "\(shell): \(spec.name)")
            for option in spec.options where !option.hidden {
                let long = option.names.last!
                let spelled = shell == "fish" ? "-l \(long.dropFirst(2))" : long
                #expect(script.contains(spelled), "\(shell): \(spec.name) \(long)")
            }
        }
        // A hidden, replaced spelling is never offered.
        #expect(!script.contains("output-format"))
        if Self.installed(shell) { try check(script, with: shell) }
    }

    /// A real bash completes a path with spaces as one word, whether typed plain, with a
    /// backslash or after an opening quote, for an operand and for an option's value.
    @Test func bashCompletesPathsWithSpacesAsOneWord() throws {
        let dir = try TestPaths.temporaryDirectory()
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("Application Support"), withIntermediateDirectories: true)
        try writeBytes([], to: dir.appendingPathComponent("Application Support/a b.plist"))
        let script = dir.appendingPathComponent("ycft.bash")
        try writeBytes(Array(generate(["--generate-completion-script", "bash"]).utf8), to: script)
        let driver = #"""
        source "$1"; cd "$2"
        complete -p ycft
        t() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=(); _ycft; printf '%s|' "${COMPREPLY[@]}"; echo; }
        t ycft dump Appl
        t ycft dump 'Application\ S'
        t ycft dump '"Application S'
        t ycft verify 'Application\ Support/a'
        t ycft pack -o Appl
        t ycft help ve
        t ycft verify --format j
        """#
        let result = try runProcess(URL(fileURLWithPath: "/usr/bin/env"),
                                    ["bash", "--norc", "--noprofile", "-c", driver, "driver", script.path, dir.path],
                                    environment: ["PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"])
        #expect(result.stderr == "")
        #expect(result.stdoutText == """
        complete -o filenames -F _ycft ycft
        Application Support|
        Application Support|
        Application Support|
        Application Support/a b.plist|
        Application Support|
        verify|
        json|junit|

        """)
    }

    /// zsh and fish show the help text as written: parentheses, colons, apostrophes.
    @Test func zshAndFishKeepTheHelpText() throws {
        let zsh = generate(["--generate-completion-script", "zsh"])
        #expect(zsh.contains("\n        'pack:Write records (JSON) as a legacy archive.'\n"))
        #expect(zsh.contains("\n        'reset:YCFirstTime'\\''s reset(), in place.'\n"))
        #expect(zsh.contains("\n                '--now''[The moment to judge at, like 2025-01-01T09:00:00Z, 2025-01-01T10:00+01:00, "
                             + "'\\''2025-01-01 10:00'\\'' or 2025-01-01 (a time without Z or offset is in --time-zone), or '\\''now'\\'']:TIME: ' \\\n"))
        #expect(zsh.contains("'[The recorded time: ISO 8601 like 2025-01-01T10:00:00+01:00 ('\\''2025-01-01 10:00'\\'' and 2025-01-01 are UTC), "
                             + "'\\''now'\\'', or with --seconds exact seconds since 2001 (757414800.123456)]:TIME: '"))
        // The value's placeholder is help's (OUT|-).
        #expect(zsh.contains("\n                '(-o --output)'{-o,--output}'[Where to write ('\\''-'\\'' and /dev/stdout are standard output, the default)]:OUT|-:_files' \\\n"))
        let fish = generate(["--generate-completion-script", "fish"])
        #expect(fish.contains("-a reset -d 'YCFirstTime\\'s reset(), in place.'\n"))
        #expect(fish.contains("-a pack -d 'Write records (JSON) as a legacy archive.'\n"))
        #expect(fish.contains(" -l now -x -d 'The moment to judge at, like 2025-01-01T09:00:00Z, 2025-01-01T10:00+01:00, "
                              + "\\'2025-01-01 10:00\\' or 2025-01-01 (a time without Z or offset is in --time-zone), or \\'now\\''\n"))
        // `ycft help <TAB>` offers the subcommands.
        #expect(fish.contains("complete -c ycft -n '__fish_seen_subcommand_from help; and not __fish_seen_subcommand_from dump pack verify migrate status diff set unset reset edit backup' -a status -d 'Would each gate run now, and when next?'\n"))
        for shell in ["zsh", "fish"] where Self.installed(shell) {
            try check(shell == "zsh" ? zsh : fish, with: shell)
        }
    }

    /// A description ends at the first sentence or clause outside parentheses: `(default; Swift)`
    /// and `(1 ... 7)` are not cut in the middle (before, zsh and fish showed `2.x (default` and
    /// `first week (1 ..`), and no description of fish's opens a parenthesis it does not close.
    @Test func descriptionsAreNotCutInsideParentheses() throws {
        #expect(Completions.summary(["Whose rules: 2.x (default; Swift) or 1.x. More."]) == "Whose rules: 2.x (default; Swift) or 1.x")
        #expect(Completions.summary(["Override the minimum (1 ... 7). Default: the locale's."]) == "Override the minimum (1 ... 7)")
        #expect(Completions.summary(["Clause one (a. b) here; clause two"]) == "Clause one (a. b) here")
        #expect(Completions.summary(["Short. A longer sentence follows."]) == "Short. A longer sentence follows")
        #expect(Completions.summary(["Calendars: gregorian, hebrew, ... (default: the locale's). More."])
                == "Calendars: gregorian, hebrew, ... (default: the locale's)")
        let zsh = generate(["--generate-completion-script", "zsh"])
        #expect(zsh.contains("'--minimum-days-in-first-week''[Override the minimum days in the first week (1 ... 7)]:N: '"))
        let fish = generate(["--generate-completion-script", "fish"])
        #expect(fish.contains(" -l library -x -a '2.x 1.x' -d 'Whose rules once, per-version and days:<n> follow: 2.x (default; Swift) or 1.x ("))
        // fish's descriptions: each line's text after ` -d `.
        for line in fish.split(separator: "\n") {
            guard let start = line.range(of: " -d '")?.upperBound else { continue }
            let text = line[start...]
            #expect(text.filter { $0 == "(" }.count == text.filter { $0 == ")" }.count, "\(line)")
        }
    }

    /// fish itself, where installed: `ycft help <TAB>` lists the subcommands with their
    /// descriptions intact, and nothing once one is named.
    @Test(.enabled(if: installed("fish"))) func fishCompletesHelp() throws {
        let dir = try TestPaths.temporaryDirectory()
        let script = dir.appendingPathComponent("ycft.fish")
        try writeBytes(Array(generate(["--generate-completion-script", "fish"]).utf8), to: script)
        let result = try runProcess(URL(fileURLWithPath: "/usr/bin/env"),
                                    ["fish", "--no-config", "-c", "source $argv[1]; complete -C 'ycft help '; echo ==; complete -C 'ycft help reset '; echo ==; complete -C 'ycft status --no'",
                                     script.path], environment: ["PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8", "HOME": dir.path])
        #expect(result.stdoutText == CommandSpec.all.sorted { $0.name < $1.name }.map { "\($0.name)\t\($0.abstract)\n" }.joined()
                + "==\n==\n--now\tThe moment to judge at, like 2025-01-01T09:00:00Z, 2025-01-01T10:00+01:00, '2025-01-01 10:00' or 2025-01-01 "
                + "(a time without Z or offset is in --time-zone), or 'now'\n"
                + "--no-app-version\tThe app has no CFBundleShortVersionString\n",
                "\(result.stdoutText)\(result.stderr)")
    }

    @Test func bashScriptIsValid() throws {
        try check(generate(["--generate-completion-script", "bash"]), with: "bash")
    }

    /// The page has every section, every option, the rule table from ``ContractRule/spec``,
    /// and renders without a warning: `groff -mandoc -ww` always (Scripts/bootstrap.sh installs
    /// groff), `mandoc -T lint` where mandoc is installed (bootstrap installs it on Debian).
    @Test func manualPageIsCleanRoff() throws {
        let page = generate(["--generate-manual"])
        #expect(page.hasPrefix(".TH YCFT 1 \"\(Ycft.versionDate)\" \"ycft \(Ycft.version)\" \"User Commands\"\n"))
        let sections = page.split(separator: "\n").filter { $0.hasPrefix(".SH ") }
        #expect(sections == [".SH NAME", ".SH SYNOPSIS", ".SH DESCRIPTION", ".SH OPTIONS", ".SH COMMANDS", ".SH RULES", ".SH EXIT STATUS",
                             ".SH ENVIRONMENT", ".SH FILES", ".SH EXAMPLES", ".SH SEE ALSO"])
        for spec in CommandSpec.all {
            #expect(page.contains(".SS \"ycft \(spec.name)\""))
            for option in spec.options where !option.hidden {
                #expect(page.contains("\\fB\(Manual.escape(option.names.last!))\\fR"), "\(spec.name) \(option.names.last!)")
            }
        }
        for rule in ContractRule.allCases {
            #expect(page.contains(".TP\n\\fB\(Manual.escape(rule.rawValue))\\fR (\(rule.spec.severity.rawValue))\n"), "\(rule)")
        }
        for name in ["VISUAL", "EDITOR", "TMPDIR", "COLUMNS", "TZ"] { #expect(page.contains(".B \(name)\n")) }
        // The backup recipe, and where the installed documents are.
        #expect(page.contains("\nycft backup apps Backup/UDID\n") && page.contains("\\-\\-backup Backup/UDID \\-\\-app com.example.app"))
        #expect(page.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            .contains("\\fI/usr/share/doc/ycft\\fR (the Debian package) or \\fI/usr/local/share/doc/ycft\\fR (the archive)"))
        for file in ["FILE.bak", "FILE.bak.N", "$TMPDIR/ycft\\-edit\\-XXXXXX/records.json"] { #expect(page.contains(".I \(file)\n")) }
        // mandoc -T lint's style: no source line over 80 bytes outside a no-fill block.
        #expect(page.split(separator: "\n").allSatisfy { $0.utf8.count <= 80 || $0.hasPrefix("ycft ") })

        let dir = try TestPaths.temporaryDirectory()
        let file = dir.appendingPathComponent("ycft.1")
        try writeBytes(Array(page.utf8), to: file)
        #expect(Self.installed("groff"), "groff is needed to check the manual: run Scripts/bootstrap.sh")
        let result = try runProcess(URL(fileURLWithPath: "/usr/bin/env"), ["groff", "-mandoc", "-ww", "-rHY=0", "-Tutf8", "-P-cbou", file.path],
                                    environment: ["LC_ALL": "C.UTF-8", "PATH": "/usr/bin:/bin"])
        #expect(result.status == 0)
        #expect(result.stderr == "", "groff warnings: \(result.stderr)")
        let text = result.stdoutText
        // Filled text, its justification undone (-rHY=0: no hyphenation, words whole).
        let words = text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(words.contains("ycft - read, check, migrate and rewrite the state archives of YCFirstTime"))
        // Every rule with its severity, meaning and what the device does, from the one rule table.
        for rule in ContractRule.allCases {
            let spec = rule.spec
            #expect(words.contains("\(rule.rawValue) (\(spec.severity.rawValue)) \(spec.summary) On the device: \(spec.device.summary)."),
                    "\(rule)")
        }
        // The --gate table keeps its indentation, and edit's signal exit is documented.
        #expect(text.contains("""
                      days:<n>      executeOncePerInterval(days:): a
                                    Float of 86,400 s days (days:0.5);
        """), "\(text)")
        #expect(words.contains("128+N edit only: ycft ended by signal N (SIGTERM, SIGHUP, or SIGINT when Ctrl-C ended the editor)"))
        if Self.installed("mandoc") {
            let lint = try runProcess(URL(fileURLWithPath: "/usr/bin/env"), ["mandoc", "-T", "lint", file.path])
            #expect(lint.status == 0)
            #expect(lint.stdoutText + lint.stderr == "", "mandoc -T lint: \(lint.stdoutText)\(lint.stderr)")
        }
    }

    /// The built binary prints the same scripts and page.
    @Test func theBuiltBinaryGeneratesTheSame() throws {
        let ycft = TestPaths.executable("ycft")
        for shell in ["bash", "zsh", "fish"] {
            let result = try runProcess(ycft, ["--generate-completion-script", shell])
            #expect(result.status == 0)
            #expect(result.stdoutText == generate(["--generate-completion-script", shell]))
        }
        let manual = try runProcess(ycft, ["--generate-manual"])
        #expect(manual.status == 0)
        #expect(manual.stdoutText == generate(["--generate-manual"]))
    }

    /// `man -l` renders the built binary's page without warnings, where man and groff are installed.
    @Test(.enabled(if: installed("man") && installed("groff"), "man or groff is not installed"))
    func manRendersTheBuiltPage() throws {
        let manual = try runProcess(TestPaths.executable("ycft"), ["--generate-manual"])
        let dir = try TestPaths.temporaryDirectory()
        let file = dir.appendingPathComponent("ycft.1")
        try writeBytes(manual.stdout, to: file)
        let rendered = try runProcess(URL(fileURLWithPath: "/usr/bin/env"), ["man", "--warnings", "-l", "-P", "cat", file.path],
                                      environment: ["MANWIDTH": "80", "PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"])
        #expect(rendered.status == 0)
        #expect(rendered.stderr == "", "man -l: \(rendered.stderr)")
        #expect(rendered.stdoutText.contains("ycft dump"))
    }

    @Test func badGeneratorArgumentsAreUsageErrors() {
        let fake = FakeIO()
        #expect(fake.run(["--generate-completion-script", "tcsh"]) == 2)
        #expect(fake.stderr.hasPrefix("Error: The value 'tcsh' is invalid for '--generate-completion-script <shell>': expected 'bash', 'zsh' or 'fish'\n"))
    }

    /// The parser takes exactly the spec's options: each command knows every option its spec
    /// lists (none falls through to "Unknown option"), refuses others, and refuses a value
    /// given to a flag.
    @Test(arguments: CommandSpec.all.map(\.name))
    func parserAndSpecAgree(_ name: String) {
        let spec = CommandSpec.all.first { $0.name == name }!
        for option in spec.options where option.names != ["-h", "--help"] {
            for spelling in option.names {
                let fake = FakeIO()
                _ = fake.run([name] + (option.takesValue ? ["\(spelling)=x"] : [spelling]) + ["no-such-file"])
                #expect(!fake.stderr.contains("Unknown option"), "\(name) \(spelling): \(fake.stderr)")
            }
            if !option.takesValue, let long = option.names.last {
                let fake = FakeIO()
                #expect(fake.run([name, "\(long)=1", "f"]) == 2)
                #expect(fake.stderr.hasPrefix("Error: '\(long)' takes no value\n"), "\(name) \(long)")
            }
        }
        let fake = FakeIO()
        #expect(fake.run([name, "--no-such-option", "f"]) == 2)
        #expect(fake.stderr.hasPrefix("Error: Unknown option '--no-such-option'\nUsage: ycft \(name) "))
        // The usage is the spec's, wrapped to the width (80 here) as help wraps it.
        let usage = fake.stderr.split(separator: "\n").dropFirst().prefix { !$0.hasPrefix("  See") }
        #expect(usage.allSatisfy { $0.count <= 80 }, "\(usage)")
        func words(_ text: String) -> String { text.split(whereSeparator: \.isWhitespace).joined(separator: " ") }
        #expect(words(usage.joined(separator: " ")) == words("Usage: " + spec.usageLine))
    }
}
