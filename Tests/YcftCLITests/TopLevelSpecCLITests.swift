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
}
