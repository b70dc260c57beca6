import FirstTimeCore

/// Help texts, produced from ``CommandSpec`` (the main help is locked by a golden test).
enum Help {
    /// The width help wraps to when it is not told (not a terminal, no `COLUMNS`).
    static let defaultWidth = 80
    /// The column option and subcommand help starts at.
    static let gutter = 26

    /// `ycft --help`, wrapped to `width` columns.
    static func main(width: Int = defaultWidth) -> String {
        let commands = CommandSpec.all.map { row($0.name, [$0.abstract], width: width) }
            + [row(TopLevel.HelpCommand.name, [TopLevel.HelpCommand.abstract], width: width)]
        return """
        \(wrap("OVERVIEW: " + CommandSpec.toolOverview, width: width).joined(separator: "\n"))

        USAGE: \(TopLevel.usage)

        OPTIONS:
        \(TopLevel.options.map { row(label($0), $0.help, width: width) }.joined(separator: "\n"))

        SUBCOMMANDS:
        \(commands.joined(separator: "\n"))

        \(table(CommandSpec.exitStatus, width: width))
          See 'ycft help <subcommand>' for detailed help.

        """
    }

    /// Words wrapped greedily to `width` columns (a word longer than the line stands alone),
    /// `length` measuring a line (the manual counts bytes).
    static func wrap(_ text: String, width: Int, length: (String) -> Int = { $0.count }) -> [String] {
        wrap(words: text.split(separator: " ").map(String.init), width: width, length: length)
    }

    /// ``wrap(_:width:length:)`` for words that may hold spaces (the usage's bracketed groups).
    static func wrap(words: [String], width: Int, length: (String) -> Int = { $0.count }) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in words {
            if !line.isEmpty, length(line) + 1 + length(word) > width {
                lines.append(line)
                line = word
            } else {
                line += line.isEmpty ? word : " " + word
            }
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }

    /// Help lines as paragraphs to wrap: a line starting with a space is laid out already (a
    /// table row) and kept; a line ending in ';' ends an item; other lines run on.
    static func reflow(_ lines: [String], width: Int) -> [String] {
        var out: [String] = []
        var paragraph: [String] = []
        var table: [String] = []
        func flush() {
            if !paragraph.isEmpty { out += wrap(paragraph.joined(separator: " "), width: width) }
            paragraph = []
            if !table.isEmpty { out += Help.table(table.joined(separator: "\n"), width: width, joinIndented: true).split(separator: "\n").map(String.init) }
            table = []
        }
        for line in lines {
            if line.hasPrefix(" ") {
                if !paragraph.isEmpty { flush() }
                table.append(line)
            } else {
                if !table.isEmpty { flush() }
                paragraph.append(line)
                if line.hasSuffix(";") { flush() }
            }
        }
        flush()
        return out
    }

    /// Text of paragraphs separated by blank lines, each wrapped to `width`.
    static func paragraphs(_ text: String, width: Int) -> String {
        text.components(separatedBy: "\n\n").map { paragraph in
            reflow(paragraph.split(separator: "\n").map(String.init), width: width).joined(separator: "\n")
        }.joined(separator: "\n\n")
    }

    /// A footer's tables rewrapped to `width`: a row `  CODE  TEXT` (`  2  trouble: ...`), and
    /// the lines under it indented to its TEXT, are one item, wrapped with its TEXT's indent;
    /// with `joinIndented`, so are the lines indented alike under a line kept as it is (the
    /// text of `  every:<n><unit>` in `--gate`'s help); every other line is kept.
    static func table(_ text: String, width: Int, joinIndented: Bool = false) -> String {
        var out: [String] = []
        var item: (head: String, words: String)?
        func flush() {
            guard let (head, words) = item else { return }
            item = nil
            let code = head.drop { $0 == " " }
            // Too narrow for the text beside its code: the code on its line, the text under it.
            if width - head.count < 16, !code.isEmpty {
                let indent = String(repeating: " ", count: head.count - code.count + 4)
                out.append(String(head.prefix { $0 == " " }) + code.prefix { $0 != " " })
                out += wrap(words, width: max(width - indent.count, 12)).map { indent + $0 }
                return
            }
            // An indented paragraph too narrow at its indent: indented less.
            let start = width - head.count < 16 && code.isEmpty ? String(head.prefix(6)) : head
            let lines = wrap(words, width: max(width - start.count, 12))
            out += lines.enumerated().map { index, line in (index == 0 ? start : String(repeating: " ", count: start.count)) + line }
        }
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            let spaces = line.prefix { $0 == " " }.count
            if let (head, words) = item, spaces == head.count {
                item = (head, words + " " + line.dropFirst(spaces))
                continue
            }
            flush()
            // `  CODE  TEXT`: two spaces, a word, two spaces or more, the text.
            let code = line.dropFirst(2).prefix { $0 != " " }
            let gap = line.dropFirst(2 + code.count).prefix { $0 == " " }.count
            if spaces == 2, !code.isEmpty, gap >= 2, line.count > 2 + code.count + gap {
                item = (String(line.prefix(2 + code.count + gap)), String(line.dropFirst(2 + code.count + gap)))
            } else if joinIndented, spaces > 2 {
                item = (String(line.prefix(spaces)), String(line.dropFirst(spaces)))
            } else {
                out.append(line)
            }
        }
        flush()
        return out.joined(separator: "\n")
    }

    /// A help row: the label in a 24-column gutter, the text from column 27 wrapped to
    /// `width` (a longer label gets a line of its own).
    static func row(_ label: String, _ lines: [String], width: Int = defaultWidth) -> String {
        let head = "  " + label
        var out: [String] = []
        var text = reflow(lines, width: max(width - gutter, 20))[...]
        if head.count <= gutter - 2, let first = text.first {
            out.append(head.padded(to: gutter) + first)
            text = text.dropFirst()
        } else {
            out.append(head)
        }
        out += text.map { String(repeating: " ", count: gutter) + $0 }
        return out.joined(separator: "\n")
    }

    /// An option's label: its spellings and value name (`-o, --output OUT|-`).
    static func label(_ option: CommandSpec.Option) -> String {
        option.names.joined(separator: ", ") + (option.value.map { " " + $0 } ?? "")
    }

    /// The usage wrapped to `width`: `label` (`USAGE: `) and `ycft NAME ` before each line (an
    /// action's line under the first), continuation lines under its first word; a bracketed
    /// group breaks only when it cannot fit on a line of its own.
    static func usage(_ spec: CommandSpec, label: String, width: Int) -> String {
        let command = "ycft \(spec.name) "
        let indent = String(repeating: " ", count: label.count)
        return spec.usage.enumerated().map { index, groups in
            let start = (index == 0 ? label : indent) + command
            let room = max(width - start.count, 20)
            let words = groups.flatMap { $0.count > room ? $0.split(separator: " ").map(String.init) : [$0] }
            return start + wrap(words: words, width: room).joined(separator: "\n" + String(repeating: " ", count: start.count))
        }.joined(separator: "\n")
    }

    /// `ycft CMD --help`, wrapped to `width` columns.
    static func text(_ spec: CommandSpec, width: Int = defaultWidth) -> String {
        var out = wrap("OVERVIEW: \(spec.overview)", width: width).joined(separator: "\n") + "\n\n"
        if !spec.discussion.isEmpty { out += paragraphs(spec.discussion, width: width) + "\n\n" }
        out += usage(spec, label: "USAGE: ", width: width) + "\n\n"
        if !spec.arguments.isEmpty {
            out += "ARGUMENTS:\n" + spec.arguments.map { row($0.name, $0.help, width: width) }.joined(separator: "\n") + "\n\n"
        }
        out += "OPTIONS:\n" + spec.options.filter { !$0.hidden }.map { row(label($0), $0.help, width: width) }.joined(separator: "\n") + "\n\n"
        let footer = table(spec.footer(width), width: width)
        out += footer
        return footer.isEmpty ? String(out.dropLast()) : out
    }

    /// The rule table as the README shows it (a test keeps the README equal to this).
    static var ruleTableMarkdown: String {
        var out = "| rule id | severity | reads records | on the device | meaning |\n|---|---|---|---|---|\n"
        for rule in FirstTimeCore.ContractRule.allCases {
            let spec = rule.spec
            out += "| `\(rule.rawValue)` | \(spec.severity.rawValue) | \(spec.isFatal ? "no" : "yes") | \(spec.device.summary) | \(spec.summary) |\n"
        }
        return out
    }
}
