import FirstTimeCore

/// The manual page, section 1, in roff (`ycft --generate-manual`), produced from ``CommandSpec``
/// and the rule table (``ContractRule/spec``). It renders with `groff -mandoc -ww` and
/// `mandoc -T lint` without a warning (a test runs both where installed).
enum Manual {
    /// Text safe in roff: backslashes as `\e`, hyphens as `\-`, no line starting with `.` or `'`.
    static func escape(_ text: String) -> String {
        safe(text.replacingEach(["\\": "\\e", "-": "\\-"]))
    }

    /// A line that must not read as a request (`.` or `'` first) starts with `\&`.
    static func safe(_ text: String) -> String { text.hasPrefix(".") || text.hasPrefix("'") ? "\\&" + text : text }

    /// Paragraphs: blank lines become `.PP`, each line escaped, leading spaces dropped (roff
    /// would break the line there).
    static func paragraph(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.isEmpty ? ".PP" : escape(String(line).trimmingWhitespace())
        }.joined(separator: "\n")
    }

    /// Help lines: text runs on; lines that start with spaces (a table, `--gate`'s rules) are
    /// kept as they are, indentation and all, in a no-fill block.
    static func helpLines(_ lines: [String]) -> String {
        var out: [String] = []
        var table = false
        for line in lines {
            let row = line.hasPrefix("  ")
            if row != table { out.append(row ? ".nf" : ".fi") }
            table = row
            out.append(row ? escape(String(line.dropFirst(2))) : escape(line))
        }
        if table { out.append(".fi") }
        return out.joined(separator: "\n")
    }

    /// Options as tagged paragraphs: their spellings in bold, the value's placeholder in
    /// italics, then their help (hidden ones left out).
    static func options(_ options: [CommandSpec.Option]) -> String {
        options.filter { !$0.hidden }.map { option in
            let names = option.names.map { "\\fB\(escape($0))\\fR" }.joined(separator: ", ")
            return ".TP\n" + names + (option.value.map { " \\fI\(escape($0))\\fR" } ?? "") + "\n" + helpLines(option.help) + "\n"
        }.joined()
    }

    /// The SYNOPSIS lines of the options that stand alone (``TopLevel``), each after `ycft`,
    /// its value's choices in italics (`bash | zsh | fish`); `--help` is left out, as the
    /// usage leaves it out (`ycft help` is there).
    static var synopsis: String {
        TopLevel.options.filter { $0.name != .help }.map { option in
            var line = ".B ycft\n.B \(escape(option.name.long))"
            if case let .choices(words) = option.completion {
                line += "\n.IR " + words.map(escape).joined(separator: " | ")
            } else if let value = option.value {
                line += "\n.I \(escape(value))"
            }
            return line
        }.joined(separator: "\n.br\n")
    }

    /// A bold term with a tagged paragraph (`.TP`).
    static func item(_ term: String, _ body: String) -> String { ".TP\n.B \(escape(term))\n\(body)\n" }

    /// What a finding of each rule means and what the device does with such a state.
    static var rules: String {
        var out = ".SH RULES\n"
        out += "The rules of the persistence contract, as \\fBycft verify\\fR reports them: a stable id, its severity, "
            + "what it means, and what YCFirstTime does on the device with a state that breaks it.\n"
        for rule in ContractRule.allCases {
            let spec = rule.spec
            out += ".TP\n\\fB\(escape(rule.rawValue))\\fR (\(spec.severity.rawValue))\n"
            out += escape(spec.summary) + "\n.br\nOn the device: " + escape(spec.device.summary) + ".\n"
        }
        return out
    }

    /// Commands worth showing, each with what it does.
    static let examples: [(String, String)] = [
        ("Print the records of a defaults file exported from a device as JSON:",
         "ycft dump Preferences.plist"),
        ("Check every exported file in a directory, warnings failing too, with annotations for GitHub:",
         "ycft verify \\-\\-strict \\-\\-format github exported/"),
        ("Would the onboarding gate run now, and when next?",
         "ycft status \\-\\-gate onboarding.v1=once \\-\\-gate tip=days:7 Preferences.plist"),
        ("Move the state of many files to the plain format, keeping a backup of each:",
         "ycft migrate \\-\\-in\\-place exported/"),
        ("Roll the same files back to the archive, first showing what would change:",
         "ycft migrate \\-\\-to legacy \\-\\-dry\\-run exported/"),
        ("Set one record's version and time, in place:",
         "ycft set Preferences.plist rate.prompt \\-\\-last\\-version 2.1.0 \\-\\-last\\-time 2025\\-03\\-01T10:00:00+01:00"),
        ("Edit the records in an editor:",
         "EDITOR=nano ycft edit Preferences.plist"),
        ("Build an archive from records, and put it into a defaults file:",
         "ycft pack \\-o YCFirstTime.archive state.json\n.br\nycft pack \\-\\-into Preferences.plist state.json"),
        ("Answer a support question from a user's iPhone backup (the device's folder in "
            + "~/Library/Application Support/MobileSync/Backup): the apps with state in it, then one app's gates:",
         "ycft backup apps Backup/UDID\n.br\n"
            + "ycft status \\-\\-gate rate.prompt=days:30 \\-\\-backup Backup/UDID \\-\\-app com.example.app"),
        ("Copy that app's preferences out of the backup, to change them:",
         "ycft backup extract Backup/UDID \\-\\-app com.example.app \\-o prefs.plist"),
    ]

    static func page(date: String) -> String {
        let name = CommandSpec.toolOverview.prefix(1).lowercased() + CommandSpec.toolOverview.dropFirst().dropLast()
        var out = """
        .TH YCFT 1 "\(date)" "ycft \(Ycft.version)" "User Commands"
        .SH NAME
        ycft \\- \(escape(String(name)))
        .SH SYNOPSIS
        .B ycft
        .I subcommand
        .RI [ options ]
        .br
        .B ycft \(escape(TopLevel.HelpCommand.name))
        .RI [ subcommand ]
        .br
        \(synopsis)
        .SH DESCRIPTION
        YCFirstTime keeps its run\\-once state in UserDefaults under the key YCFirstTime as an
        NSKeyedArchiver archive.
        .B ycft
        reads that state off the device (as a bare archive, in an exported defaults file, or in
        the migrated forms), checks it against the persistence contract, migrates it to a plain
        format and back, and writes it in Apple's layout.
        .SH OPTIONS
        Given alone, in place of a subcommand:
        \(options(TopLevel.options)).SH COMMANDS

        """
        for spec in CommandSpec.all {
            out += ".SS \"\(escape("ycft " + spec.name))\"\n"
            out += spec.usage.map { ".B \(escape("ycft " + spec.name))\n" + escape($0.joined(separator: " ")) + "\n" }.joined(separator: ".br\n") + ".PP\n"
            out += escape(spec.overview) + "\n"
            if !spec.discussion.isEmpty { out += ".PP\n" + paragraph(spec.discussion) + "\n" }
            for argument in spec.arguments {
                out += ".TP\n.I \(escape(argument.name))\n" + helpLines(argument.help) + "\n"
            }
            out += options(spec.options)
        }
        out += rules
        out += ".SH EXIT STATUS\n"
        out += item("0", "Success; for verify, no errors (warnings too with \\-\\-strict); for migrate, nothing failed; "
                    + "for edit, also nothing to write.")
        out += item("1", "A negative answer: the input is not a valid archive or records file (a content problem); "
                    + "for verify, a finding fails; for migrate, a file failed on its content.")
        out += item("2", "Trouble: usage, unreadable input, unwritable output; for verify and migrate, a directory "
                    + "with nothing to check (unless \\-\\-allow\\-empty); for edit, an editor that failed or could not start.")
        out += item("128+N", "edit only: ycft ended by signal N (SIGTERM, SIGHUP, or SIGINT when Ctrl\\-C ended the editor) "
                    + "after removing its scratch files, so the shell reports 128+N (143 for SIGTERM).")
        out += """
        .SH ENVIRONMENT
        .TP
        .B VISUAL
        The editor of \\fBycft edit\\fR, run by \\fI/bin/sh\\fR with the file's path as its argument.
        .TP
        .B EDITOR
        The editor when \\fBVISUAL\\fR is unset (else \\fBvi\\fR).
        .TP
        .B TMPDIR
        Where \\fBycft edit\\fR makes its scratch directory (default \\fI/tmp\\fR).
        .TP
        .B COLUMNS
        The width help wraps to; when unset, the terminal's width, or 80 when standard output is
        not a terminal.
        .TP
        .B NO_COLOR
        When set to anything but the empty string, \\fB\\-\\-color auto\\fR (the default) colours
        nothing (no\\-color.org); \\fB\\-\\-color always\\fR still colours.
        .TP
        .B TERM
        When unset, empty or \\fBdumb\\fR, \\fB\\-\\-color auto\\fR colours nothing.
        .TP
        .B TZ
        The time zone that \\fB\\-\\-time\\-zone local\\fR names (else \\fI/etc/localtime\\fR).
        .SH FILES
        .TP
        .I FILE.bak
        The original of a file that \\fBycft migrate \\-\\-in\\-place\\fR replaced (the suffix is
        \\fB\\-\\-backup\\fR's, default \\fI.bak\\fR; none with \\fB\\-\\-no\\-backup\\fR).
        .TP
        .I FILE.bak.N
        A later backup: an existing backup is never replaced, the next free number is used.
        .TP
        .I $TMPDIR/ycft\\-edit\\-XXXXXX/records.json
        The records \\fBycft edit\\fR hands the editor, in a directory only its owner can open,
        removed when edit ends; an edit that could not be written is kept there and named on
        standard error.
        .SH EXAMPLES

        """
        for (index, (what, command)) in examples.enumerated() {
            out += (index == 0 ? "" : ".PP\n") + "\(escape(what))\n.RS 4\n.nf\n\(command)\n.fi\n.RE\n"
        }
        out += """
        .SH SEE ALSO
        .BR defaults (1),
        .BR plutil (1);
        the README, docs/ and MIGRATING.md shipped with ycft, in
        \\fI/usr/share/doc/ycft\\fR (the Debian package) or \\fI/usr/local/share/doc/ycft\\fR
        (the archive); and
        .UR https://github.com/fabioknoedt/YCFirstTime
        the YCFirstTime library
        .UE .

        """
        return fold(out)
    }

    /// Source lines of at most 80 bytes, as `mandoc -T lint` asks: a long text line in fill
    /// mode is split at spaces (which fills the same); macro lines, and lines in a no-fill
    /// block, are left alone.
    static func fold(_ page: String) -> String {
        var out: [String] = []
        var fill = true
        for line in page.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line == ".nf" { fill = false }
            if line == ".fi" { fill = true }
            guard fill, !line.hasPrefix("."), line.utf8.count > 80 else {
                out.append(line)
                continue
            }
            out += Help.wrap(line, width: 80, length: \.utf8.count).map(safe)
        }
        return out.joined(separator: "\n")
    }
}
