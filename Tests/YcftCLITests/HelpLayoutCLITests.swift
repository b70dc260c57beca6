import Foundation
import Testing
import PlistCore
import TestSupport
@testable import YcftCLI

/// Help wraps to the terminal's width, and names every value with the one placeholder that
/// usage, errors and completions use (issue 26 item 8).
@Suite struct HelpLayout {
    func help(_ arguments: [String], width: Int) -> String {
        let fake = FakeIO(width: width)
        #expect(fake.run(arguments) == 0)
        return fake.stdoutText
    }

    /// No line is longer than the width, except one whose only word (after a table row's
    /// code) is longer than the room: the footers, `--gate`'s table and the usage wrap too;
    /// narrower widths give more lines.
    @Test(arguments: CommandSpec.all.map(\.name))
    func wrapsToTheWidth(_ name: String) {
        var counts: [Int] = []
        for width in [50, 80, 132] {
            let text = help([name, "--help"], width: width)
            #expect(text == help(["help", name], width: width))
            counts.append(text.split(separator: "\n").count)
            for line in text.split(separator: "\n") where line.count > width {
                #expect(line.split(separator: " ").count <= 2, "\(name) at \(width): \(line)")
            }
        }
        #expect(counts[0] > counts[1] && counts[1] > counts[2], "\(name): \(counts)")
    }

    @Test func mainHelpWraps() {
        let narrow = help(["--help"], width: 60)
        #expect(narrow.contains("""
        OVERVIEW: Read, check, migrate and rewrite the state
        archives of YCFirstTime.
        """))
        #expect(narrow.contains("""
          migrate                 Move state in defaults files to
                                  the plain format and back.
        """))
        #expect(help(["--help"], width: 80) == YcftCLI.Help.main())
    }

    /// Exact text at two widths: paragraphs and option help run on, an item ending in ';'
    /// starts a line, the usage breaks between bracketed groups.
    @Test func exactLayout() {
        let wide = help(["verify", "--help"], width: 100)
        #expect(wide.contains("""
        USAGE: ycft verify [--format FORMAT [--compact]] [--strict] [--key NAME] [--include GLOB]...
                           [--allow-empty] [--skip-stateless] [--quiet] [--color WHEN]
                           [--max-input-size SIZE] PATH... | --backup BACKUP [--app BUNDLE_ID]
                           [--group GROUP_ID] [--password-file FILE]

        ARGUMENTS:
          PATH...                 Archives, defaults files or directories ('-' reads standard input).

        OPTIONS:
          --format FORMAT         text: compiler-style lines on standard error (default);
                                  json: one document on standard output;
                                  github: workflow commands (::error ...) on standard output;
                                  junit: JUnit XML on standard output, a testsuite per file.
        """), "\(wide)")
        let narrow = help(["migrate", "--help"], width: 60)
        #expect(narrow.contains("""
        USAGE: ycft migrate [--to TARGET [--drop-versions]] (-o OUT
                            | --in-place [--backup SUFFIX |
                            --no-backup] | --dry-run)
                            [--keep-source] [--force] [--key NAME]
                            [--include GLOB]... [--allow-empty]
                            [--jobs N] [--report FILE|- [--compact]]
                            [--quiet] [--plist-format FORMAT]
                            [--max-input-size SIZE] PATH...
        """), "\(narrow)")
    }

    @Test func widthComesFromColumnsElseEighty() {
        #expect(CommandIO.terminalWidth(columns: "100") == 100)
        // Not a number, or not positive: the terminal's, and 80 when standard output is not one
        // (as under `swift test` with output captured).
        if isatty(1) == 0 {
            #expect(CommandIO.terminalWidth(columns: nil) == 80)
            #expect(CommandIO.terminalWidth(columns: "0") == 80)
            #expect(CommandIO.terminalWidth(columns: "wide") == 80)
        }
    }

    /// The built binary reads COLUMNS.
    @Test func theBinaryReadsColumns() throws {
        let ycft = TestPaths.executable("ycft")
        let narrow = try runProcess(ycft, ["help", "status"], environment: ["COLUMNS": "50"])
        let plain = try runProcess(ycft, ["help", "status"], environment: [:])
        #expect(narrow.stdoutText == help(["status", "--help"], width: 50))
        #expect(plain.stdoutText == help(["status", "--help"], width: 80))
    }

    /// Every option's placeholder is the same in help (`--time-zone ZONE`), in the usage, and
    /// in errors (`'--time-zone <zone>'`), wherever the source writes one by hand.
    @Test func onePlaceholderEverywhere() throws {
        for spec in CommandSpec.all {
            let usage = spec.usage.joined().joined(separator: " ").split(separator: " ").map {
                String($0.filter { !"[]()".contains($0) })
            }
            for (index, word) in usage.enumerated() where index + 1 < usage.count {
                guard let option = spec.option(word), let value = option.value else { continue }
                let shown = usage[index + 1]
                let rest = shown.hasPrefix(value) ? shown.dropFirst(value.count) : Substring(shown)
                #expect(rest.isEmpty || rest == "..." || rest.hasPrefix("|-"), "\(spec.name) usage: \(word) \(usage[index + 1]), help says \(value)")
            }
            let help = YcftCLI.Help.text(spec)
            for option in spec.options where !option.hidden && option.takesValue {
                #expect(help.contains("  \(YcftCLI.Help.label(option))"))
            }
        }
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Sources/YcftCLI").standardizedFileURL
        let pattern = try NSRegularExpression(pattern: "for '(--[a-z-]+) (<[^>]+>)'")
        var checked = 0
        for file in try FileManager.default.contentsOfDirectory(atPath: sources.path) where file.hasSuffix(".swift") {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                guard let name = Range(match.range(at: 1), in: text).map({ String(text[$0]) }),
                      let shown = Range(match.range(at: 2), in: text).map({ String(text[$0]) }) else { continue }
                let specs = CommandSpec.all.filter { $0.option(name) != nil }
                guard !specs.isEmpty else { continue }  // --generate-completion-script <shell>
                checked += 1
                #expect(specs.contains { $0.option(name)?.placeholder == shown }, "\(file): '\(name) \(shown)'")
            }
        }
        // The parser spells the rest from the spec (kinds, choices, sizes); these are the
        // values commands read themselves (--now, --time-zone, --gate, --calendar, --locale, --last-time).
        #expect(checked >= 7)
    }

    /// An error for a missing argument names the first one missing as help and usage do
    /// (`set` with no operand: 'FILE'; with FILE: 'KEY', tested with the papercuts).
    @Test(arguments: CommandSpec.all.map(\.name))
    func missingArgumentsAsHelpNamesThem(_ name: String) throws {
        let spec = try #require(CommandSpec.all.first { $0.name == name })
        let fake = FakeIO()
        #expect(fake.run([name]) == 2)
        let names = try #require(spec.arguments.first).name
        #expect(fake.stderr.hasPrefix("Error: Missing expected argument '\(names)'\n"), "\(fake.stderr)")
        // An action's name starts its line (`ycft backup apps ...`).
        #expect(spec.actions.isEmpty ? spec.usageLine.contains(" " + names)
                : spec.actions.allSatisfy { spec.usageLine.contains("ycft \(name) \($0.name) ") })
    }

    /// The usage is made from the spec: every option a command takes (but `--help`) is in it,
    /// once per line, in each action's line that takes it and no other. Typed by hand, it had
    /// drifted: `--max-input-size` showed in status's usage only, `--quiet` was missing from
    /// verify's and migrate's.
    @Test(arguments: CommandSpec.all.map(\.name))
    func theUsageNamesEveryOptionOnce(_ name: String) throws {
        let spec = try #require(CommandSpec.all.first { $0.name == name })
        let lines = spec.usageLine.split(separator: "\n").map { $0.split(separator: " ").map { String($0.filter { !"[]()".contains($0) }) } }
        #expect(lines.count == max(spec.actions.count, 1))
        for option in spec.options where !option.hidden && option.name != .help {
            for (index, words) in lines.enumerated() {
                let takes = spec.actions.isEmpty || spec.actions[index].options.contains(option.name)
                let count = words.filter { option.names.contains($0) }.count
                #expect(count == (takes ? 1 : 0), "\(name) line \(index): \(option.name.long) \(count) times")
            }
        }
        #expect(CommandSpec.verify.usageLine.contains(" [--quiet] ") && CommandSpec.migrate.usageLine.contains(" [--quiet] "))
        #expect(CommandSpec.dump.usageLine.contains(" [--max-input-size SIZE] "))
    }

    @Test func missingValueNamesThePlaceholder() {
        let fake = FakeIO()
        #expect(fake.run(["status", "x", "--time-zone"]) == 2)
        #expect(fake.stderr.hasPrefix("Error: Missing value for '--time-zone <zone>'\n"))
    }
}

/// "Did you mean" (issue 26 item 9): the edit distance and when a word is close enough.
@Suite struct DidYouMean {
    @Test func distance() {
        #expect(Suggestion.distance("--compat", "--compact") == 1)
        #expect(Suggestion.distance("verfy", "verify") == 1)
        #expect(Suggestion.distance("kitten", "sitting") == 3)
        #expect(Suggestion.distance("", "abc") == 3)
    }

    @Test func onlyCloseWordsAreSuggested() {
        #expect(Suggestion.closest(to: "--compat", among: ["--compact", "--key"]) == "--compact")
        #expect(Suggestion.closest(to: "--nope", among: ["--key", "--raw", "--refs", "--objects", "--compact"]) == nil)
        // Long words are not compared (the distance takes time in the product of the lengths).
        let long = String(repeating: "a", count: 100_000)
        #expect(Suggestion.closest(to: long + "b", among: [long, "abc"]) == nil)
        #expect(Suggestion.closest(to: "whats-nwe", among: [long, "whats-new"]) == "whats-new")
        #expect(Suggestion.closest(to: "foo", among: ["dump", "set", "pack"]) == nil)
        // A short option is never suggested.
        #expect(Suggestion.closest(to: "-p", among: ["-o", "--output"]) == nil)
        // Of two, the closer; of equals, the first.
        #expect(Suggestion.closest(to: "--strct", among: ["--format", "--strict"]) == "--strict")
        #expect(Suggestion.closest(to: "sat", among: ["set", "sit"]) == "set")
    }

    /// The banded distance is the full one wherever that is within its limit, nil elsewhere:
    /// 20,000 pairs of random words over a small alphabet (so that many are close), every limit.
    @Test func theBandedDistanceIsTheFullOneWithinItsLimit() {
        var random = SplitMix64(seed: 29)
        func word() -> [Character] { (0..<Int(random.next() % 9)).map { _ in Array("abcé")[Int(random.next() % 4)] } }
        var within = 0
        for _ in 0..<20_000 {
            let (a, b) = (word(), word())
            let full = Suggestion.distance(String(a), String(b))
            for limit in 0...4 {
                #expect(Suggestion.distance(a, b, atMost: limit) == (full <= limit ? full : nil), "\(String(a)) \(String(b)) \(limit)")
                if full <= limit { within += 1 }
            }
        }
        #expect(within > 20_000, "many pairs within the limits")
    }

    /// The characters below U+0300 that show as nothing or as a space, told without Unicode's
    /// tables, are those the tables name.
    @Test func theShortcutBelowU0300AgreesWithUnicode() {
        for value in UInt32(0)..<0x300 {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let tables = !scalar.isASCII && (scalar.properties.isDefaultIgnorableCodePoint || scalar.properties.isWhitespace)
            #expect(Suggestion.showsOtherwise(scalar) == tables, "U+\(String(value, radix: 16))")
        }
        #expect(Suggestion.looks("caf\u{E9}") == "caf\u{E9}")
        #expect(Suggestion.looks("a\u{A0}b\u{AD}c\u{200B}d\u{3000}e") == "a bcd e")
    }

    /// Within a number of edits: a longer candidate that begins with the word (the first
    /// choice otherwise) does not hide a nearer one, and nothing further is suggested.
    @Test func closestWithinEdits() {
        let ids = ["com.example.notes.widget", "com.example.notes", "com.example.weather"]
        #expect(Suggestion.closest(to: "com.example.note", among: ids) == "com.example.notes.widget")
        #expect(Suggestion.closest(to: "com.example.note", among: ids, within: 2) == "com.example.notes")
        #expect(Suggestion.closest(to: "com.exmple.weathr", among: ids, within: 2) == "com.example.weather")
        #expect(Suggestion.closest(to: "com.example.nothere", among: ids, within: 2) == nil)
        #expect(Suggestion.closest(to: "com.example.notes.widge", among: ids, within: 2) == "com.example.notes.widget")
    }

    /// A record key that looks the same as the name asked for but is other scalars (composed
    /// and decomposed; a zero-width space, a soft hyphen, a byte-order mark, a tag character; a
    /// no-break space) is named with both spelled out: `did you mean "café"?` after `"café"`
    /// would show no difference, and the edit distance of a composed and a decomposed é is 0,
    /// so that key got no hint at all.
    @Test func aKeyThatLooksTheSameIsSpelledOut() {
        let composed = "caf\u{E9}", decomposed = "cafe\u{301}"
        #expect(Suggestion.hint(for: decomposed, among: ["tea", composed])
                == #" (a record has "caf\u{E9}", which looks the same but is not: this is "cafe\u{301}")"#)
        #expect(Suggestion.hint(for: "rate.prompt", among: ["rate\u{200B}.prompt"])
                == #" (a record has "rate\u{200B}.prompt", which looks the same but is not: this is "rate.prompt")"#)
        #expect(Suggestion.hint(for: "rate\u{AD}.prompt\u{FEFF}\u{E0041}", among: ["rate.prompt"])
                == #" (a record has "rate.prompt", which looks the same but is not: this is "rate\u{AD}.prompt\u{FEFF}\u{E0041}")"#)
        #expect(Suggestion.hint(for: "whats new", among: ["whats\u{A0}new"])
                == #" (a record has "whats\u{A0}new", which looks the same but is not: this is "whats new")"#)
        // Before a merely close key; and a typo is still a typo.
        #expect(Suggestion.hint(for: decomposed, among: ["cafe", composed]).hasPrefix(#" (a record has "caf\u{E9}""#))
        #expect(Suggestion.hint(for: "whats-nwe", among: ["whats-new"]) == #" (did you mean "whats-new"?)"#)
        #expect(Suggestion.hint(for: "x", among: ["whats-new"]) == "")
        // A close key that differs beyond ASCII (a Cyrillic а, an è for an é) is spelled out too.
        #expect(Suggestion.hint(for: "pl\u{430}in", among: ["plain", "other"]) == #" (did you mean "plain"? this is "pl\u{430}in")"#)
        #expect(Suggestion.hint(for: "caf\u{E8}.v2", among: ["caf\u{E9}.v2"]) == #" (did you mean "caf\u{E9}.v2"? this is "caf\u{E8}.v2")"#)
        #expect(Suggestion.hint(for: "b\u{FC}cher.onbaording", among: ["b\u{FC}cher.onboarding"]) == " (did you mean \"b\u{FC}cher.onboarding\"?)")
        // A key that differs only in case, however many letters.
        #expect(Suggestion.hint(for: "WHATS-NEW", among: ["rate", "whats-new"]) == #" (did you mean "whats-new"?)"#)
        #expect(Suggestion.hint(for: "CAF\u{C9}", among: ["caf\u{E9}"]) == #" (did you mean "caf\u{E9}"? this is "CAF\u{C9}")"#)
        // Text that shows differently is not a look-alike: an ASCII tab, an escape.
        #expect(Suggestion.hint(for: "a\tb", among: ["a b"]) == #" (did you mean "a b"?)"#)
        #expect(UntrustedText.spelledOut("a\u{1B}\"\n\u{1F600}") == #""a\u{1B}\"\n\u{1F600}""#)
    }
}
