import FirstTimeCore

/// The one description of ycft's command line: every subcommand's options, arguments, value
/// names and help text. The parser (``ParsedArguments``) reads it: kinds, choices, defaults; `--help`, the
/// usage lines, the shell completions (`--generate-completion-script`) and the manual page
/// (`--generate-manual`) are all produced from it, so they cannot drift apart. What `ycft`
/// takes in place of a subcommand is described beside it, in ``TopLevel``.
struct CommandSpec: Sendable {
    /// What a shell may complete for a value or an argument.
    enum Completion: Sendable, Equatable {
        case none
        case file
        case directory
        case choices([String])

        /// A file or directory: a path, which may be any bytes.
        var isPath: Bool { self == .file || self == .directory }
    }

    /// One option: its name, its value's kind (which the parser checks), its default and its help.
    struct Option: Sendable {
        /// The key the parser files the option's values under and commands read them by, so a
        /// misspelled option does not compile. Spelled `--` and the raw value; a few also have a
        /// short alias.
        enum Name: String, Sendable, CaseIterable {
            case allowEmpty = "allow-empty", app, appVersion = "app-version", backup, calendar, color, compact
            case dropVersions = "drop-versions", dryRun = "dry-run", firstWeekday = "first-weekday", force, format, gate
            case generateCompletionScript = "generate-completion-script", generateManual = "generate-manual"
            case group, help, inPlace = "in-place", include, into, jobs, keepSource = "keep-source", key, lastTime = "last-time"
            case launchArguments = "launch-arguments"
            case lastVersion = "last-version", legacyDay = "legacy-day", library, locale, maxInputSize = "max-input-size"
            case minimumDaysInFirstWeek = "minimum-days-in-first-week", noAppVersion = "no-app-version"
            case noBackup = "no-backup", noLastTime = "no-last-time", noLastVersion = "no-last-version", now, objects
            case output, outputFormat = "output-format", passwordFile = "password-file", plistFormat = "plist-format", quiet, raw, refs, report
            case seconds, skipStateless = "skip-stateless", strict, textconv, timeZone = "time-zone", to, version

            /// The long spelling (`--output`), which messages about the value use.
            var long: String { "--" + rawValue }

            /// Every spelling, short first (`-o`, `--output`).
            var spellings: [String] {
                switch self {
                case .help: return ["-h", long]
                case .jobs: return ["-j", long]
                case .output: return ["-o", long]
                case .quiet: return ["-q", long]
                default: return [long]
                }
            }
        }

        /// What the value is, and so what the parser accepts.
        enum Kind: Sendable {
            case flag
            /// UTF-8 text (a key, a version, a time the command reads).
            case text
            /// Any bytes: a path, or part of one (a glob, a backup suffix).
            case bytes
            /// One of these words (the completion's choices).
            case choice([String])
            /// Bytes, or a number with K, M or G (binary units), at most 4G less one byte.
            case size
            /// A whole number in the range; `expected` ends the refusal ("a number from 1 to 256").
            case integer(ClosedRange<Int>, expected: String)
            /// An old spelling, refused with what replaced it (`'--format' is now ...`); not shown.
            case renamed(String)
        }

        let name: Name
        /// The value's placeholder in help (`NAME`, `binary|xml`); nil for a flag.
        let value: String?
        let completion: Completion
        /// Help lines (already wrapped to the help column).
        let help: [String]
        let kind: Kind
        /// Whether every value given counts (`--include`, `--gate`); else the last one does.
        let repeats: Bool
        /// The value when the option is not given, checked as a given one would be.
        let defaultValue: String?

        /// A flag.
        init(_ name: Name, _ help: [String]) {
            (self.name, value, completion, self.help, kind, repeats, defaultValue) = (name, nil, .none, help, .flag, false, nil)
        }

        /// An option with a value. Its kind is `kind`, else a choice when completed from
        /// choices, else any bytes when a path (completed as a file or directory) or `anyBytes`,
        /// else UTF-8 text.
        init(_ name: Name, _ value: String, completion: Completion = .none, kind: Kind? = nil, anyBytes: Bool = false,
             repeats: Bool = false, default defaultValue: String? = nil, _ help: [String] = []) {
            (self.name, self.value, self.completion, self.help, self.repeats, self.defaultValue)
                = (name, value, completion, help, repeats, defaultValue)
            if let kind {
                self.kind = kind
            } else if case let .choices(words) = completion {
                self.kind = .choice(words)
            } else {
                self.kind = anyBytes || completion.isPath ? .bytes : .text
            }
        }

        var names: [String] { name.spellings }
        var takesValue: Bool { value != nil }
        /// The value as errors name it, the placeholder of help in swift-argument-parser's
        /// spelling: `--time-zone ZONE` in help is `'--time-zone <zone>'` in an error.
        var placeholder: String { "<" + (value ?? "value").lowercased() + ">" }
        var hidden: Bool { if case .renamed = kind { return true } else { return false } }
        var acceptsBytes: Bool { if case .bytes = kind { return true } else { return false } }
        /// What to give instead of an empty value, for the options that refuse one (`give a
        /// path`); nil where an empty value is a value (`--last-version ""`). A path is never
        /// empty; `--key ""` read the state under the empty key (none: "every gate runs") and
        /// `--include ""` matched no file, most often a variable left empty (`--key "$KEY"`).
        var forEmpty: String? { completion.isPath ? "a path" : name == .key ? "a name" : name == .include ? "a glob" : nil }
    }

    /// Options of which one may be given, like `--last-time` and `--no-last-time` (the usage
    /// shows `[A | B]`): the parser refuses a second after the first, instead of the last one
    /// silently winning.
    struct Exclusive: Sendable {
        /// How the refusal reads.
        enum Wording: Sendable {
            /// `'--no-last-time' cannot be combined with '--last-time'` (the later one first).
            case later
            /// `'--raw' and '--objects' cannot be combined` (in the group's order).
            case both
            /// `Use only one of '-o', '--in-place' and '--dry-run'` (each one's first spelling).
            case oneOf
        }

        let names: [Option.Name]
        let wording: Wording
        /// Whether one of them must be given (the usage shows `(A | B)`); the command says
        /// what is missing in its own words.
        let required: Bool

        init(_ names: [Option.Name], _ wording: Wording = .later, required: Bool = false) {
            (self.names, self.wording, self.required) = (names, wording, required)
        }
    }

    /// An option that means something only with another one, or with one of its values:
    /// `'--compact' goes with '--format json'` when given without it (it used to be ignored).
    struct Requirement: Sendable {
        let option: Option.Name
        let needs: Option.Name
        /// The value `needs` must have (the last one given), or nil for any.
        let value: String?

        init(_ option: Option.Name, needs: Option.Name, _ value: String? = nil) { (self.option, self.needs, self.value) = (option, needs, value) }
    }

    /// What a command's first argument chooses (`backup apps|extract`): each action takes its
    /// own options, and the usage has a line for each.
    struct Action: Sendable {
        let name: String
        /// The options it takes, in the spec's order (`--help` is every action's).
        let options: [Option.Name]
        /// Those of them it needs (shown without brackets; the command says what is missing).
        var required: [Option.Name] = []
    }

    /// The first argument of a command with ``actions``: one of their names (`apps|extract`).
    static func actionArgument(_ actions: [Action], _ help: [String]) -> Argument {
        let names = actions.map(\.name)
        return Argument(name: names.joined(separator: "|"), completion: .choices(names), help: help)
    }

    struct Argument: Sendable {
        let name: String
        let completion: Completion
        let help: [String]
        /// An option that stands for the argument: given, the argument is not (`--backup`).
        var unlessGiven: Option.Name? = nil

        /// Whether it may be repeated (`PATH...`, `KEY...`).
        var repeats: Bool { name.hasSuffix("...") }
    }

    /// The positional argument an operand at `index` stands for (the last one repeats), or nil
    /// for an operand the command does not take.
    func argument(at index: Int) -> Argument? {
        if index < arguments.count { return arguments[index] }
        return arguments.last.flatMap { $0.repeats ? $0 : nil }
    }

    let name: String
    /// Runs the command on the arguments after its name.
    let run: @Sendable (_ arguments: [String], _ io: CommandIO) throws(UsageError) -> Ycft.Exit
    /// One line for the subcommand list.
    let abstract: String
    /// The OVERVIEW line.
    let overview: String
    /// Paragraphs after the overview (may be empty).
    let discussion: String
    /// The usage: a line for the command (one for each of its ``actions``), each in pieces
    /// (bracketed groups) that wrapping keeps whole where it can, made from the options, their
    /// exclusive groups and requirements, and the arguments (``Usage``), so it cannot leave an
    /// option out or show one the command does not take.
    var usage: [[String]] { Usage.lines(self) }
    let arguments: [Argument]
    let options: [Option]
    /// Sections after OPTIONS (RULES, EXIT STATUS), made only when help is shown: verify's
    /// lays out the whole rule table, which no other use of the spec needs.
    /// Given the width help wraps to; ``Help/table(_:width:)`` wraps its tables' rows.
    let footer: @Sendable (_ width: Int) -> String
    var exclusive: [Exclusive] = []
    var requires: [Requirement] = []
    /// The actions the first argument chooses between, if it does (``Action``).
    var actions: [Action] = []

    /// The action named `word`, if the command has actions and one is called that.
    func action(_ word: String) -> Action? { actions.first { $0.name == word } }

    /// The options an action takes, `--help` with them, in the spec's order.
    func options(of action: Action) -> [Option] { options.filter { action.options.contains($0.name) || $0.name == .help } }

    /// The usage unwrapped, a line for each action: `ycft NAME ...`.
    var usageLine: String { usage.map { "ycft \(name) " + $0.joined(separator: " ") }.joined(separator: "\n") }

    /// Only that command's spec is made (``byName``): a process runs one command, and making
    /// all ten (``all``) was a noticeable share of a small `ycft dump` (docs/performance.md).
    static func named(_ name: String) -> CommandSpec? { byName.first { $0.name == name }?.spec() }

    /// The option named `name` (any spelling), if the command has it.
    func option(_ name: String) -> Option? { options.first { $0.names.contains(name) } }
}

/// A command's usage made from its ``CommandSpec``: each option in the spec's order as
/// `[--name VALUE]` (`[--include GLOB]...` when it repeats), an option that goes with another
/// inside that one's brackets (`[--format FORMAT [--compact]]`), the options of an exclusive
/// group as one `[A | B]` (`(A | B)` when one is needed) where its first one stands, `--help`
/// left out, then the arguments, an option that stands for one beside it (`FILE|- | --backup
/// BACKUP [--app BUNDLE_ID]`). With ``CommandSpec/actions``, a line for each, of its options.
enum Usage {
    static func lines(_ spec: CommandSpec) -> [[String]] {
        let shown = spec.options.filter { !$0.hidden && $0.name != .help }
        guard !spec.actions.isEmpty else { return [line(spec, shown, arguments: spec.arguments, required: [])] }
        return spec.actions.map { action in
            [action.name] + line(spec, shown.filter { action.options.contains($0.name) }, arguments: Array(spec.arguments.dropFirst()),
                                 required: action.required)
        }
    }

    private static func line(_ spec: CommandSpec, _ options: [CommandSpec.Option], arguments: [CommandSpec.Argument],
                             required: [CommandSpec.Option.Name]) -> [String] {
        let names = options.map(\.name)
        // Under another option: one that goes with an option shown here.
        func inside(_ name: CommandSpec.Option.Name) -> [CommandSpec.Option] {
            options.filter { option in spec.requires.contains { $0.option == option.name && $0.needs == name } }
        }
        let nested = Set(options.filter { option in spec.requires.contains { $0.option == option.name && names.contains($0.needs) } }.map(\.name))
        let standing = Set(arguments.compactMap(\.unlessGiven))
        func token(_ option: CommandSpec.Option) -> String {
            let spelling = option.name == .output ? "-o" : option.name.long
            let head = spelling + (option.value.map { " " + $0 } ?? "")
            let within = groups(inside(option.name), optional: true)
            return ([head] + within).joined(separator: " ")
        }
        // Options as groups: exclusive ones together where the first stands.
        func groups(_ list: [CommandSpec.Option], optional: Bool) -> [String] {
            var out: [String] = []
            var done: Set<CommandSpec.Option.Name> = []
            for option in list where !done.contains(option.name) {
                if let group = spec.exclusive.first(where: { $0.names.contains(option.name) }) {
                    let members = list.filter { group.names.contains($0.name) }
                    done.formUnion(members.map(\.name))
                    let body = members.map(token).joined(separator: " | ")
                    out.append(group.required ? "(\(body))" : optional ? "[\(body)]" : body)
                } else {
                    done.insert(option.name)
                    let body = token(option)
                    out.append(required.contains(option.name) || !optional ? body : "[\(body)]" + (option.repeats ? "..." : ""))
                }
            }
            return out
        }
        let top = options.filter { !nested.contains($0.name) && !standing.contains($0.name) }
        // An option in place of an argument, and those inside it, as groups of their own.
        let operands = arguments.flatMap { argument in
            guard let name = argument.unlessGiven, let option = options.first(where: { $0.name == name }) else { return [argument.name] }
            return [argument.name, "|", option.name.long + (option.value.map { " " + $0 } ?? "")] + groups(inside(name), optional: true)
        }
        return groups(top, optional: true) + operands
    }
}

// MARK: The commands

extension CommandSpec {
    /// What ycft does, in one line (the main help's OVERVIEW and the manual's NAME).
    static let toolOverview = "Read, check, migrate and rewrite the state archives of YCFirstTime."

    static let help = Option(.help, ["Show help information."])
    static let maxInputSize = Option(.maxInputSize, "SIZE", kind: .size, default: "32M", [
        "Refuse inputs larger than SIZE bytes (K, M, G allowed).", "(default: 32M)",
    ])
    /// `--color WHEN`: the one option, of every command that colours (``Colour``).
    static let color = Option(.color, "WHEN", completion: .choices(Colour.When.allCases.map(\.rawValue)), default: Colour.When.auto.rawValue, [
        "When to colour: auto (default) on a terminal, unless",
        "NO_COLOR is set to a non-empty value or TERM is dumb;",
        "always, also into a pipe or file (for less -R); never.",
    ])
    static func key(_ help: [String]) -> Option { Option(.key, "NAME", default: LegacyArchive.defaultsKey, help) }
    static let defaultKey = key(["The defaults key of the archive. (default: YCFirstTime)"])
    /// `--compact`, which goes with `--format json`.
    static let compact = Option(.compact, ["With --format json, JSON on one line."])
    /// `--format text|json` and `--compact` (`status`, `diff`).
    static let textOrJSON = [Option(.format, "FORMAT", completion: .choices(["text", "json"]), default: "text", ["text (default) or json."]), compact]

    /// `--backup BACKUP --app ID [--group ID]`: an app's preferences in an iPhone backup in
    /// place of the FILE operand (``BackupInput``).
    static let fromBackup = [
        Option(.backup, "BACKUP", completion: .directory, [
            "Read an app's preferences from this iPhone backup folder",
            "(see 'ycft backup --help') instead of FILE.",
        ]),
        Option(.app, "BUNDLE_ID", anyBytes: true, ["With --backup: the app (its Library/Preferences/<id>.plist)."]),
        Option(.group, "GROUP_ID", anyBytes: true, ["With --backup: an app group's preferences instead (an",
                                    "--app beside it must be in the backup)."]),
        passwordFile(["With --backup: an encrypted backup's password, the first line",
                      "of FILE ('-' reads standard input). (default: asked on the",
                      "terminal, not echoed)"]),
    ]
    /// `--app`, `--group` and `--password-file` say which app of which backup: alone, nothing.
    static let fromBackupRequires = [Requirement(.app, needs: .backup), Requirement(.group, needs: .backup),
                                     Requirement(.passwordFile, needs: .backup)]
    /// `--password-file FILE`: an encrypted backup's password (never on the command line).
    static func passwordFile(_ help: [String]) -> Option { Option(.passwordFile, "FILE", completion: .file, help) }
    static func include(_ help: [String]) -> Option { Option(.include, "GLOB", anyBytes: true, repeats: true, default: "*.plist", help) }

    static let exitStatus = """
    EXIT STATUS:
      0  success
      1  the input is not a valid archive or records file (a content problem)
      2  trouble: usage, unreadable input, unwritable output

    """

    static let editWriting = """
    FILE is anything 'ycft dump' reads: an archive, a defaults file holding one, or a
    migrated defaults file. It is written back in the same form (an archive stays an
    archive; a defaults file keeps every other key, in place) through ycft's one writer:
    atomically, mode and owner kept, refused if another program changed the file
    meanwhile, or if it is read-only (unless --force). A file or --key that holds
    anything but YCFirstTime state is refused (exit 1, nothing written); a defaults
    file with no state yet (a fresh install's, or after reset) is where the device
    starts, and set creates the state in it as YCFirstTime's first save does. The
    archive's other root keys are kept beside the records, as YCFirstTime's save keeps
    them. What a write drops that the records cannot hold (a record's unknown coder
    key) is said on standard error, one line each.
    """

    static let editOptions = [defaultKey, Option(.force, ["Replace FILE even when it is read-only, or holds a",
                                                                      "state the app discards but ycft reads (see 'ycft",
                                                                      "status'); reset: also one it cannot read."]), maxInputSize, help]

    static let dump = CommandSpec(
        name: "dump", run: DumpCommand.run, abstract: "Print the records of an archive as JSON.",
        overview: "Print the records of a YCFirstTime archive, or any archive or plist, as JSON.",
        discussion: """
        FILE is anything that holds YCFirstTime state: an NSKeyedArchiver archive (binary or
        XML), an exported defaults file holding one as data under the key YCFirstTime, or a
        migrated one (YCFirstTime.records, or interval.* keys); which one is detected. The
        JSON goes to standard output; errors, and warnings about what the app would read
        differently, to standard error.

        With --raw, any archive's object graph is resolved from $top and printed with
        class names and chains, exact numbers, {"$data": base64}, {"$date": seconds since
        2001} and {"$real": "NaN"}; a reference back into the current path (a cycle) is
        {"$ref": uid}; layout problems are listed under "$warnings". A plist that is not an
        archive (a whole defaults file) is printed with the same mapping. --objects prints
        the flat $objects table with UIDs as {"$uid": n}.

        --textconv is for git's diff.<driver>.textconv: every property list becomes stable,
        readable text and the exit status is 0 whatever the file holds: the records of
        an archive, a defaults file with its archive's records in place of the data, any
        other plist as --raw prints it, and one line for a file not shown: no property
        list, over --max-input-size, unreadable, or not a regular file (a named pipe or
        a device is never opened).
        """,
        arguments: [Argument(name: "FILE|-", completion: .file, help: ["The archive, defaults file or plist ('-' reads standard input)."],
                             unlessGiven: .backup)],
        options: [
            Option(.raw, ["Print the whole object graph (any archive, any plist)."]),
            Option(.refs, ["With --raw: print each object once, later occurrences as",
                                "{\"$ref\": uid}; objects referenced more than once carry",
                                "\"$uid\". Needed when shared objects would expand too far."]),
            Option(.objects, ["Print the flat $objects table, UIDs as {\"$uid\": n}."]),
            Option(.textconv, ["For git diff: any file as readable text, exit 0 (see",
                               "docs/workflows.md)."]),
            key(["The defaults key holding the archive. (default: YCFirstTime;",
                 "with --raw or --objects, show the archive under NAME",
                 "instead of the whole file)"]),
            Option(.compact, ["Print the JSON on one line."]),
            color,
        ] + fromBackup + [maxInputSize, help],
        footer: { _ in exitStatus }, exclusive: [Exclusive([.raw, .objects, .textconv], .both)],
        requires: [Requirement(.refs, needs: .raw)] + fromBackupRequires)

    static let pack = CommandSpec(
        name: "pack", run: PackCommand.run, abstract: "Write records (JSON) as a legacy archive.",
        overview: "Write records in ycft's JSON form as a legacy YCFirstTime archive.",
        discussion: """
        The archive has Apple's NSKeyedArchiver layout, with NSMutableDictionary root and
        group, so YCFirstTime loads it and keeps every key on its next save. lastTime is
        used as given; when only lastTimeUTC is given it is parsed; when both are given
        and disagree beyond the precision of lastTimeUTC, pack refuses.

        --launch-arguments prints the archive as launch arguments instead: -YCFirstTime
        <hex> (old-style property-list data), which UserDefaults' argument domain reads as
        the key's data for that run, ahead of what the app saved. 'shell' prints them quoted
        for a command line (paste them, or eval "xcrun simctl launch booted BUNDLE_ID
        $(ycft pack --launch-arguments shell FILE.json)"), 'swift' as an array literal for
        XCUIApplication().launchArguments.
        """,
        arguments: [Argument(name: "FILE.json|-", completion: .file, help: ["The records ('-' reads standard input)."])],
        options: [
            Option(.plistFormat, "FORMAT", completion: .choices(["binary", "xml"]), default: "binary",
                   ["binary or xml: the archive's property-list format.", "(default: binary; was --format)"]),
            Option(.format, "FORMAT", kind: .renamed("'--plist-format binary|xml' ('--format' names report formats elsewhere)")),
            Option(.output, "OUT|-", completion: .file, default: "-", [
                "Where to write ('-' and /dev/stdout are standard output,",
                "the default). A file is replaced atomically, keeping its",
                "mode and owner; through a symbolic link, the file it",
                "points to is replaced; a pipe or device is written to.",
            ]),
            Option(.into, "DEFAULTS_FILE", completion: .file, [
                "Put the archive into a defaults file under --key (in",
                "place of the old one; every other key stays), through",
                "the same writer. Refused when --key holds anything but",
                "YCFirstTime's archive, or the file holds the state in",
                "another form (after migrate): use set or edit there.",
            ]),
            Option(.launchArguments, "STYLE", completion: .choices(["shell", "swift"]), [
                "Print the archive as launch arguments that start an app",
                "in this state for one run: shell (a command line's words)",
                "or swift (an array for XCUIApplication().launchArguments).",
            ]),
            key(["The defaults key for --into and --launch-arguments.",
                 "(default: YCFirstTime)"]),
            Option(.force, ["Replace OUT even when it is read-only."]),
            maxInputSize, help,
        ],
        footer: { _ in exitStatus }, exclusive: [Exclusive([.output, .into, .launchArguments], .oneOf)])

    static let verify = CommandSpec(
        name: "verify", run: VerifyCommand.run, abstract: "Check archives against the YCFirstTime contract.",
        overview: "Check YCFirstTime archives against the persistence contract.",
        discussion: """
        Each PATH is an archive, an exported defaults file holding the state (the archive,
        the plain records or IntervalClient keys), or a directory searched recursively for
        files matching --include (*.plist by default). Every form a file holds is judged,
        and copies that disagree are reported. Every finding has a stable rule id, a
        severity, the object path and a message; each rule also says what YCFirstTime
        does with such a state on the device. All files are checked before the exit
        status is decided; json and junit print one document for the whole run. A
        directory that cannot be read, or that holds nothing to check (empty, no file
        matching, only links), is trouble (exit 2) unless --allow-empty accepts the latter.
        """,
        arguments: [Argument(name: "PATH...", completion: .file, help: ["Archives, defaults files or directories ('-' reads",
                                                                        "standard input)."], unlessGiven: .backup)],
        options: [
            Option(.format, "FORMAT", completion: .choices(["text", "json", "github", "junit"]), default: "text", [
                "text: compiler-style lines on standard error (default);",
                "json: one document on standard output;",
                "github: workflow commands (::error ...) on standard output;",
                "junit: JUnit XML on standard output, a testsuite per file.",
            ]),
            Option(.strict, ["Warnings fail too."]),
            compact,
            key(["The defaults key holding the archive. (default: YCFirstTime)"]),
            include(["In directories, check files whose name matches GLOB;",
                                                          "repeatable. (default: *.plist)"]),
            Option(.allowEmpty, ["Exit 0 when a directory holds nothing to check (by",
                                       "default that is trouble, exit 2: a wrong path)."]),
            Option(.skipStateless, ["Pass over a property list that holds no YCFirstTime",
                                    "state (an Info.plist) instead of failing it with",
                                    "state-missing: for a hook that sees every *.plist."]),
            Option(.quiet, ["No summary line on standard error (findings and",
                                       "errors still print)."]),
            color,
        ] + fromBackup + [maxInputSize, help],
        footer: { verifyFooter(width: $0) }, requires: [Requirement(.compact, needs: .format, "json")] + fromBackupRequires)

    /// The rules (from the rule table) and verify's exit statuses.
    static func verifyFooter(width: Int) -> String {
        // The id on its line, the meaning and the device below it, wrapped to the width.
        let room = max(width - 6, 20)
        let rules = ContractRule.allCases.map { rule in
            let lines = ["  \(rule.rawValue) (\(rule.severity.rawValue))"]
                + Help.wrap(rule.summary, width: room).map { "      " + $0 }
                + Help.wrap("device: " + rule.spec.device.summary, width: room).map { "      " + $0 }
            return lines.joined(separator: "\n")
        }.joined(separator: "\n")
        return """
        RULES:
        \(rules)

        EXIT STATUS:
          0  no errors (warnings allowed unless --strict)
          1  a finding fails
          2  trouble: usage, a file or directory that cannot be read, a
             directory with nothing to check (unless --allow-empty)

        """
    }

    static let migrate = CommandSpec(
        name: "migrate", run: MigrateCommand.run, abstract: "Move state in defaults files to the plain format and back.",
        overview: "Move YCFirstTime state in exported defaults files, one or thousands.",
        discussion: """
        Each PATH is a defaults file (binary or XML; what 'defaults export' writes, or an
        app's Library/Preferences/<id>.plist) or a directory searched recursively for
        files matching --include, *.plist by default (backups of an earlier --in-place
        run excepted; a directory that cannot be read, or holds nothing to migrate, is
        named on standard error and is trouble, exit 2, unless --allow-empty).
        Every other key keeps its type, exact value and position, and a file keeps its
        format unless --plist-format says otherwise. A file already in the target state
        is 'unchanged' and not rewritten; one without source state is 'skipped'; target
        keys that exist with other content make the file 'fail' unless --force. Files are
        replaced atomically, keeping mode and owner; a file another program changed while
        ycft worked on it is not replaced (it fails); one bad file never stops the rest.
        """,
        arguments: [Argument(name: "PATH...", completion: .file, help: ["Defaults files or directories."])],
        options: [
            Option(.to, "TARGET", completion: .choices(["records", "interval", "legacy"]), default: "records", [
                "records: YCFirstTime.records, the plain format (default);",
                "interval: interval.<key> = seconds since 1970, plus",
                "YCFirstTime.records for the versions;",
                "legacy: rebuild the YCFirstTime archive (rollback) from",
                "YCFirstTime.records, or else from interval.* keys.",
            ]),
            Option(.output, "OUT", completion: .file, [
                "Write results to OUT (a file for one input file, '-' for",
                "standard output, else a directory: a file found in",
                "directory D lands at OUT/<its path below D>, a file",
                "operand at OUT/<the operand's path>). Inputs are",
                "untouched; two inputs meeting at one output, or an",
                "output that is an input, are refused before anything",
                "is written.",
            ]),
            Option(.inPlace, ["Replace each file, keeping FILE.bak unless --no-backup.",
                                    "An existing backup is never replaced: FILE.bak.1, ..."]),
            Option(.backup, "SUFFIX", anyBytes: true, default: ".bak", ["The backup suffix with --in-place. (default: .bak)"]),
            Option(.noBackup, ["No backup with --in-place."]),
            Option(.dryRun, ["Write nothing; print what would change per file."]),
            Option(.keepSource, ["Keep the source keys (the archive, or on rollback the",
                                       "plain and interval keys)."]),
            Option(.force, ["Overwrite target keys that hold other content, and",
                                 "replace read-only files."]),
            Option(.dropVersions, ["With --to interval: do not write YCFirstTime.records;",
                                         "the versions are lost (each file says which)."]),
            key(["The key of the legacy archive. (default: YCFirstTime)"]),
            include(["In directories, take files whose name matches GLOB;",
                                                          "repeatable. (default: *.plist)"]),
            Option(.allowEmpty, ["Exit 0 when a directory holds nothing to migrate (by",
                                       "default that is trouble, exit 2: a wrong path)."]),
            Option(.jobs, "N", kind: .integer(1...256, expected: "a number from 1 to 256"), ["Files processed at once. (default: the number of cores)"]),
            Option(.report, "FILE|-", completion: .file, ["Write a JSON report, one entry per file ('-' is",
                                                               "standard output)."]),
            Option(.compact, ["With --report, its JSON on one line."]),
            Option(.quiet, ["No progress and no summary on standard error (errors",
                                       "and warnings still print)."]),
            Option(.plistFormat, "FORMAT", completion: .choices(["same", "binary", "xml"]), default: "same",
                   ["same, binary or xml. (default: same; was --output-format)"]),
            Option(.outputFormat, "FORMAT", kind: .renamed("'--plist-format same|binary|xml'")),
            maxInputSize, help,
        ],
        footer: { _ in
            """
            EXIT STATUS:
              0  nothing failed
              1  a file failed on its content
              2  trouble: usage, an unreadable or unwritable path, a directory
                 with nothing to migrate (unless --allow-empty)

            """
        },
        exclusive: [Exclusive([.output, .inPlace, .dryRun], .oneOf, required: true), Exclusive([.backup, .noBackup], .both)],
        requires: [Requirement(.compact, needs: .report), Requirement(.dropVersions, needs: .to, "interval"),
                   Requirement(.backup, needs: .inPlace), Requirement(.noBackup, needs: .inPlace)])

    static let status = CommandSpec(
        name: "status", run: StatusCommand.run, abstract: "Would each gate run now, and when next?",
        overview: "Would each gate run now, and when next?",
        discussion: """
        FILE is anything 'ycft dump' reads, or a migrated defaults file (YCFirstTime.records,
        or interval.* keys). Prints one row per record and, for each --gate, whether its
        block would run now and the earliest moment it becomes eligible. It answers as the
        device would: a stored state YCFirstTime would discard makes every gate run, and
        the output says why; so does a defaults file with no state yet (a fresh install's,
        or after reset).
        """,
        arguments: [Argument(name: "FILE|-", completion: .file, help: ["The archive or defaults file ('-' reads standard input)."],
                             unlessGiven: .backup)],
        options: judging + textOrJSON + [defaultKey, color] + fromBackup + [maxInputSize, help],
        footer: { _ in exitStatus }, exclusive: [Exclusive([.appVersion, .noAppVersion]), Exclusive([.library, .legacyDay])],
        requires: [Requirement(.compact, needs: .format, "json")] + fromBackupRequires)

    /// The options that say how gates are judged (`status`, `diff`): the app's version, the
    /// moment, the zone, whose rules, the calendar, and the gates.
    static let judging: [Option] = [
            Option(.appVersion, "VERSION", ["The running app's version (CFBundleShortVersionString);",
                                           "needed by per-version gates."]),
            Option(.noAppVersion, ["The app has no CFBundleShortVersionString."]),
            Option(.now, "TIME", ["The moment to judge at, like 2025-01-01T09:00:00Z,",
                                         "2025-01-01T10:00+01:00, '2025-01-01 10:00' or 2025-01-01 (a",
                                         "time without Z or offset is in --time-zone), or 'now'.",
                                         "(default: now)"]),
            Option(.timeZone, "ZONE", ["IANA time zone for calendar rules, and a column of local",
                                           "times; 'local' is the system's (TZ, /etc/localtime).",
                                           "(default: UTC, and no local column)"]),
            Option(.library, "VERSION", completion: .choices(["2.x", "1.x"]), default: "2.x", [
                "Whose rules once, per-version and days:<n> follow:",
                "2.x (default; Swift) or 1.x (Objective-C: versions by",
                "UTF-16 units, a missing one runs; days in float over",
                "84,600 s; any non-zero days, NaN and negative run)."]),
            Option(.legacyDay, ["The same as --library 1.x (its earlier name)."]),
            Option(.calendar, "ID", ["IntervalClient's calendar (Calendar.current's identifier):",
                                          "gregorian, hebrew, islamic-civil, japanese, ...",
                                          "(default: the locale's, else gregorian)"]),
            Option(.locale, "ID", ["The user's locale, which sets the week rules (and the",
                                        "calendar with @calendar=), like de_DE or",
                                        "he_IL@calendar=hebrew."]),
            Option(.firstWeekday, "N", kind: .integer(1...7, expected: "1 ... 7 (1 is Sunday)"), ["Override the first weekday (1 is Sunday)."]),
            Option(.minimumDaysInFirstWeek, "N", kind: .integer(1...7, expected: "1 ... 7 (days)"), ["Override the minimum days in the first week (1 ... 7)."]),
            Option(.gate, "KEY=RULE", repeats: true, [
                "A gate to judge; repeatable. RULE is one of:",
                "  once          executeOnce (YCFirstTime)",
                "  per-version   executeOncePerVersion (2.x: Swift",
                "                String ==; 1.x: UTF-16 units)",
                "  days:<n>      executeOncePerInterval(days:): a",
                "                Float of 86,400 s days (days:0.5);",
                "                days <= 0 is once; a record without",
                "                a time never runs again; runs at",
                "                the boundary",
                "  hourly, daily, weekly,",
                "  monthly, yearly",
                "  every:<n><unit>",
                "                IntervalClient's calendar rules",
                "                (every:1day is a calendar day, not",
                "                days:1), any integer n; unit: a",
                "                Calendar.Component: era, year,",
                "                quarter, month, weekOfYear,",
                "                weekOfMonth, weekday, weekdayOrdinal,",
                "                yearForWeekOfYear, day, dayOfYear,",
                "                hour, minute, second, nanosecond;",
                "                calendar, timeZone, isLeapMonth,",
                "                isRepeatedDay add nothing (Foundation",
                "                returns nil): runs every time",
            ]),
    ]

    static let diff = CommandSpec(
        name: "diff", run: DiffCommand.run, abstract: "Compare two states as the device reads them.",
        overview: "Compare two YCFirstTime states as the device reads them.",
        discussion: """
        A and B are anything 'ycft status' reads, in any form (an archive, a defaults file
        holding one, plain records, interval.* keys; '-' is standard input, for one of
        them: 'ycft backup extract ... -o -' gives a backup's). Each is read as the device
        reads it (a state YCFirstTime discards is no records), and the records are compared:
        added, removed, and changed versions or times (exactly: the double's every bit).
        With --gate, the gates whose answer at --now differs are listed too. Prints
        nothing when they are the same. A migration and its rollback, and the archive and
        records forms of one state, compare equal.
        """,
        arguments: [Argument(name: "A", completion: .file, help: ["The first state ('-' reads standard input)."]),
                    Argument(name: "B", completion: .file, help: ["The second state ('-' reads standard input)."])],
        options: judging + textOrJSON + [defaultKey, maxInputSize, help],
        footer: { _ in
            """
            EXIT STATUS:
              0  the same records (and gate answers)
              1  they differ
              2  trouble: usage, a file that cannot be read, or that holds no state
                 ycft can read as the device would

            """
        },
        exclusive: [Exclusive([.appVersion, .noAppVersion]), Exclusive([.library, .legacyDay])],
        requires: [Requirement(.compact, needs: .format, "json")])

    static let set = CommandSpec(
        name: "set", run: EditCommands.set, abstract: "Set one record's version or time, in place.",
        overview: "Set one record's version or time, in place.",
        discussion: editWriting,
        arguments: [Argument(name: "FILE", completion: .file, help: ["The file to change."]),
                    Argument(name: "KEY", completion: .none, help: ["The block key (created when no record has it,", "and said on standard error)."])],
        options: [
            Option(.lastVersion, "VERSION", ["The recorded version."]),
            Option(.noLastVersion, ["No recorded version (nil)."]),
            Option(.lastTime, "TIME", ["The recorded time: ISO 8601 like 2025-01-01T10:00:00+01:00",
                                         "('2025-01-01 10:00' and 2025-01-01 are UTC), 'now', or with",
                                         "--seconds exact seconds since 2001 (757414800.123456)."]),
            Option(.noLastTime, ["No recorded time (nil)."]),
            Option(.seconds, ["--last-time is seconds since 2001."]),
        ] + editOptions,
        footer: { _ in exitStatus }, exclusive: [Exclusive([.lastVersion, .noLastVersion]), Exclusive([.lastTime, .noLastTime])],
        requires: [Requirement(.seconds, needs: .lastTime)])

    static let unset = CommandSpec(
        name: "unset", run: EditCommands.unset, abstract: "Remove records, in place.", overview: "Remove records, in place.",
        discussion: editWriting,
        arguments: [Argument(name: "FILE", completion: .file, help: ["The file to change."]),
                    Argument(name: "KEY...", completion: .none, help: ["The block keys to remove."])],
        options: editOptions, footer: { _ in exitStatus })

    static let reset = CommandSpec(
        name: "reset", run: EditCommands.reset, abstract: "YCFirstTime's reset(), in place.", overview: "YCFirstTime's reset(), in place.",
        discussion: """
        Removes the YCFirstTime key from a defaults file (YCFirstTime.records from a
        migrated one, every interval.* number from a file of IntervalClient keys); a bare
        archive becomes an empty one. Every other key stays. A defaults file without
        the state is left as it is, and standard error says so. Data under
        YCFirstTime that the app discards unread (a record of another class, data that
        is no archive) is removed only with --force, as the app's reset() removes it;
        under another --key, never.

        \(editWriting)
        """,
        arguments: [Argument(name: "FILE", completion: .file, help: ["The file to change."])],
        options: editOptions, footer: { _ in exitStatus })

    static let edit = CommandSpec(
        name: "edit", run: EditCommands.edit, abstract: "Edit the records in $VISUAL or $EDITOR, in place.",
        overview: "Edit the records in $VISUAL or $EDITOR, in place.",
        discussion: """
        The records open as ycft's JSON form (what 'ycft dump' prints) in $VISUAL, else
        $EDITOR, else vi, run by /bin/sh in the foreground with the terminal. Saved with
        a mistake, the editor opens again with the error on top; saved unchanged or empty,
        nothing is written. A valid change is written back as 'ycft set' writes.

        The editor gets $TMPDIR/ycft-edit-XXXXXX/records.json ($TMPDIR: /tmp by default),
        in a directory only its owner can open, made anew each round and read back only
        as a regular file of at most --max-input-size bytes. It is removed at the end, also
        when SIGTERM or SIGHUP comes (it is passed on to the editor) or Ctrl-C ends the
        editor; ycft then ends by that signal. An edit that could not be written (FILE
        changed meanwhile, or saved twice with the same mistake) is kept there and named
        on standard error.

        \(editWriting)
        """,
        arguments: [Argument(name: "FILE", completion: .file, help: ["The file to change."])],
        options: editOptions,
        footer: { _ in
            """
            EXIT STATUS:
              0  success, or nothing to write
              1  FILE or the edit is not valid records (a content problem)
              2  trouble: usage, I/O, an editor that failed or could not start
              128+N  ended by signal N (SIGTERM, SIGHUP, SIGINT), its files removed

            """
        })

    static let backup = CommandSpec(
        name: "backup", run: BackupCommand.run, abstract: "List or copy out the state in an iPhone backup.",
        overview: "Find YCFirstTime state in an iPhone backup, which ycft only reads.",
        discussion: """
        BACKUP is the folder Finder, iTunes or idevicebackup2 writes for a device (named
        after its UDID, holding Manifest.db), of iOS 10 or later; those of iOS 9 and earlier
        (Manifest.mbdb) are not supported. Given the folder of all backups
        (MobileSync/Backup), ycft lists the device backups in it to pick one from.

        An encrypted backup needs its password: the first line of --password-file FILE
        (- is standard input), or, when standard input is a terminal (with - too), typed
        at a prompt (not echoed); never on the command line. Its keybag may ask for at most 50,000,000 rounds of
        PBKDF2-SHA256 (DPIC) and 10,000,000 of PBKDF2-SHA1 (ITER). A wrong password
        typed at the prompt is asked again (three tries in all); from a file, it is one
        line, exit 2. Manifest.db and the preferences are decrypted in memory only, and
        'extract -o FILE' writes a new FILE with mode 0600 and no ACL (and refuses an
        existing FILE another user owns or its group or others may read or write, a
        named pipe or device, and /dev/stderr or any other descriptor name; standard
        output is -o -), --force or not.

        'backup apps' lists the apps and app groups whose preferences hold YCFirstTime
        state or IntervalClient keys: the form the state is in, and its record count.
        'backup extract' copies one app's preferences (with --group, that app group's)
        out to FILE, for migrate, set and edit to work on. dump, status and verify read
        them in place with --backup BACKUP --app BUNDLE_ID (or --group GROUP_ID).

        A backup is evidence: ycft never writes into it, nor into any folder holding
        Manifest.db or Manifest.mbdb, or two of Manifest.plist, Status.plist and
        Info.plist (an Info.plist alone is no backup). Manifest.db is read into memory
        and queried there (no journal or WAL file appears); a non-empty Manifest.db-wal
        or a hot Manifest.db-journal beside it (changes ycft would misread), or a link in
        their place, is refused, with how to settle it on a copy. A file is opened only
        by its fileID (40 hex digits, checked) as BACKUP/<first two digits>/<fileID>,
        never by a path taken from the database, and never through a link.
        """,
        arguments: [actionArgument(backupActions, ["apps: list the apps with state; extract: copy one app's",
                                                   "preferences out."]),
                    Argument(name: "BACKUP", completion: .directory, help: ["The backup folder (holding Manifest.db)."])],
        options: [
            Option(.format, "FORMAT", completion: .choices(["text", "json"]), default: "text", ["apps: text (default) or json."]),
            Option(.compact, ["apps: with --format json, JSON on one line."]),
            Option(.app, "BUNDLE_ID", anyBytes: true, ["extract: the app whose preferences to copy."]),
            Option(.group, "GROUP_ID", anyBytes: true, ["extract: an app group's preferences instead (an --app",
                                        "beside it must be in the backup)."]),
            Option(.output, "FILE|-", completion: .file, [
                "extract: where to write ('-' is standard output). A file",
                "is replaced atomically, keeping its mode and owner; never",
                "one inside BACKUP.",
            ]),
            Option(.force, ["extract: replace FILE even when it is read-only, or",
                            "holds other bytes than the copy (an edited copy,",
                            "another app's preferences)."]),
            passwordFile(["An encrypted backup's password, the first line of FILE",
                          "('-' reads standard input). (default: asked on the terminal,",
                          "not echoed)"]),
            maxInputSize, help,
        ],
        footer: { _ in
            """
            EXIT STATUS:
              0  success
              1  apps: preferences that cannot be read (each named on standard error)
              2  trouble: usage, a backup that cannot be read (old, a broken
                 Manifest.db, a missing file, a wrong password or none), an
                 unwritable output

            """
        },
        requires: [Requirement(.compact, needs: .format, "json")], actions: backupActions)

    /// `backup apps` and `backup extract`, which backup's first argument names.
    static let backupActions = [Action(name: "apps", options: [.format, .compact, .passwordFile, .maxInputSize]),
                                Action(name: "extract", options: [.app, .group, .output, .force, .passwordFile, .maxInputSize],
                                       required: [.output])]

    /// Every subcommand under its name, in the order help lists them, each spec made only when
    /// asked for (`CommandSpecNames` checks each name is its spec's).
    static let byName: [(name: String, spec: @Sendable () -> CommandSpec)] = [
        ("dump", { dump }), ("pack", { pack }), ("verify", { verify }), ("migrate", { migrate }), ("status", { status }),
        ("diff", { diff }), ("set", { set }), ("unset", { unset }), ("reset", { reset }), ("edit", { edit }), ("backup", { backup }),
    ]

    /// Every subcommand, in the order help lists them.
    static let all: [CommandSpec] = byName.map { $0.spec() }
}

/// What `ycft` takes in place of a subcommand, described as a command's options are: options
/// that stand alone (`ycft --version`, `ycft --generate-completion-script bash`: nothing
/// follows but the option's value), and the `help` subcommand. The dispatch (``Ycft``) parses
/// them from here, and the main help, the manual (its SYNOPSIS and OPTIONS) and the
/// completion scripts are made from here.
enum TopLevel {
    typealias Option = CommandSpec.Option

    static let options: [Option] = [
        Option(.version, ["Show the version."]),
        Option(.generateCompletionScript, "SHELL", completion: .choices(shells),
               ["Print a completion script for " + shells.dropLast().joined(separator: ", ") + " or " + (shells.last ?? "") + "."]),
        Option(.generateManual, ["Print the manual page (roff, section 1)."]),
        CommandSpec.help,
    ]

    /// The shells ``Completions`` writes a script for, in its order.
    static var shells: [String] { Completions.scripts.map(\.shell) }

    /// `help [SUBCOMMAND [ACTION]]`: a subcommand's help (an action's is its command's page).
    enum HelpCommand {
        static let name = "help"
        static let abstract = "Show help for a subcommand."
        static let usage = "ycft help [<subcommand>]"
    }

    /// The usage before a subcommand, which a mistake there is shown with.
    static let usage = "ycft <subcommand>"

    /// The option spelled `spelling` (`-h`, `--version`), if there is one.
    static func option(_ spelling: String) -> Option? { options.first { $0.names.contains(spelling) } }
}
