import FirstTimeArchive
import Foundation

/// Help texts, produced from ``CommandSpec`` (the main help is locked by a golden test).
enum Help {
    static let main: String = {
        let commands = CommandSpec.all.map { row($0.name, [$0.abstract]) } + [row("help", ["Show help for a subcommand."])]
        return """
        OVERVIEW: Read, check and rewrite the state archives of YCFirstTime.

        USAGE: ycft <subcommand>

        OPTIONS:
        \(row("--version", ["Show the version."]))
        \(row("--generate-completion-script SHELL", ["Print a completion script for bash, zsh or fish."]))
        \(row("--generate-manual", ["Print the manual page (roff, section 1)."]))
        \(row("-h, --help", ["Show help information."]))

        SUBCOMMANDS:
        \(commands.joined(separator: "\n"))

        \(CommandSpec.exitStatus)
          See 'ycft help <subcommand>' for detailed help.

        """
    }()

    /// A help row: the label in a 24-column gutter, the text from column 27 (a longer label
    /// gets a line of its own).
    static func row(_ label: String, _ lines: [String]) -> String {
        let head = "  " + label
        var out: [String] = []
        var text = lines[...]
        if head.count <= 24, let first = text.first {
            out.append(head.padding(toLength: 26, withPad: " ", startingAt: 0) + first)
            text = text.dropFirst()
        } else {
            out.append(head)
        }
        out += text.map { String(repeating: " ", count: 26) + $0 }
        return out.joined(separator: "\n")
    }

    /// An option's label: its spellings and value name (`-o, --output OUT|-`).
    static func label(_ option: CommandSpec.Option) -> String {
        option.names.joined(separator: ", ") + (option.value.map { " " + $0 } ?? "")
    }

    /// `ycft CMD --help`.
    static func text(_ spec: CommandSpec) -> String {
        var out = "OVERVIEW: \(spec.overview)\n\n"
        if !spec.discussion.isEmpty { out += spec.discussion + "\n\n" }
        let head = "USAGE: ycft \(spec.name) "
        out += head + spec.usage.joined(separator: "\n" + String(repeating: " ", count: head.count)) + "\n\n"
        if !spec.arguments.isEmpty {
            out += "ARGUMENTS:\n" + spec.arguments.map { row($0.name, $0.help) }.joined(separator: "\n") + "\n\n"
        }
        out += "OPTIONS:\n" + spec.options.filter { !$0.hidden }.map { row(label($0), $0.help) }.joined(separator: "\n") + "\n\n"
        out += spec.footer
        return spec.footer.isEmpty ? String(out.dropLast()) : out
    }

    static var verify: String { text(.verify) }

    /// The rule table as the README shows it (a test keeps the README equal to this).
    static var ruleTableMarkdown: String {
        var out = "| rule id | severity | reads records | on the device | meaning |\n|---|---|---|---|---|\n"
        for rule in FirstTimeArchive.ContractRule.allCases {
            let spec = rule.spec
            out += "| `\(rule.rawValue)` | \(spec.severity.rawValue) | \(spec.isFatal ? "no" : "yes") | \(spec.device.summary) | \(spec.summary) |\n"
        }
        return out
    }
}
