import SafeFiles
import PlistCore

/// A command's arguments parsed against its ``CommandSpec``, the one description of the command
/// line: `--long value`, `--long=value`, short aliases such as `-o` with the value separate or
/// attached (`-j1`), `--` ends options, a lone `-` is an operand (standard input or output), and
/// options and operands may interleave.
///
/// The spec decides everything the parser refuses, with the same words in every command.
///
/// Arguments arrive as ``PathBytes`` strings (the process's raw `argv`). Paths may be any bytes;
/// every other value and operand (keys, versions, times, zones, rules, formats) must be UTF-8,
/// as the spec says (``CommandSpec/Option/acceptsBytes``, ``CommandSpec/Completion/isPath``):
/// one that is not is a usage error naming it, never stored as U+FFFD.
///
/// ```swift
/// let parsed = try ParsedArguments(["--compact", "a.plist"], spec: .dump)
/// parsed.flag(.compact)       // true
/// parsed.value(.key)          // "YCFirstTime", the spec's default
/// parsed.operands             // ["a.plist"]
/// ```
final class ParsedArguments {
    /// One option's value as given (a flag's is empty) or its default, and its number for a
    /// size or an integer.
    fileprivate struct Value {
        let name: CommandSpec.Option.Name
        let text: String
        var number: Int?
    }

    let spec: CommandSpec
    /// The operands, in order; as many as the spec's arguments take.
    private(set) var operands: [String] = []
    /// The options' values as given, in order; the spec's defaults; the options a command asked for.
    /// (A command line holds a handful: arrays, without a hashed collection's start-up cost.)
    private var given: [Value] = [], defaults: [Value] = [], read: [CommandSpec.Option.Name] = []

    /// - Throws: a usage error in the tool's words for anything the spec refuses.
    init(_ arguments: [String], spec: CommandSpec) throws(UsageError) {
        self.spec = spec
        var rest = arguments[...]
        var optionsEnded = false
        while let arg = rest.popFirst() {
            if optionsEnded || arg == "-" || !arg.hasPrefix("-") {
                operands.append(try operand(arg, at: operands.count))
                continue
            }
            if arg == "--" {
                optionsEnded = true
                continue
            }
            let (spelling, inline) = Self.split(arg)
            guard let option = spec.option(spelling) else {
                // `-raw` for `--raw`: read as `-r` with `aw` attached, it would be named as `-r`.
                if !arg.hasPrefix("--"), arg.count > 2, let long = spec.option(Self.split("-" + arg).spelling), !long.hidden {
                    throw UsageError("Unknown option '\(arg)'. Did you mean '\(long.name.long)'?")
                }
                throw UsageError.unknown("option", spelling, among: spec.options.filter { !$0.hidden }.flatMap(\.names))
            }
            if case let .renamed(replacement) = option.kind { throw UsageError("'\(spelling)' is now \(replacement)") }
            if !option.takesValue, inline != nil { throw UsageError("'\(spelling)' takes no value") }
            try refuseExclusive(option.name)
            guard option.takesValue else {
                given.append(Value(name: option.name, text: ""))
                continue
            }
            // The next argument is the value unless it is one of the command's own options
            // (`-o --force` is a forgotten value, not a file named `--force`): such a value is
            // given attached, `--output=--force`.
            if inline == nil, let next = rest.first, next.hasPrefix("-"), next != "-", spec.option(Self.split(next).spelling) != nil {
                throw UsageError("Missing value for '\(spelling) \(option.placeholder)' ('\(next)' is an option; "
                                 + "give such a value as '\(option.name.long)=\(next)')")
            }
            guard let text = inline ?? rest.popFirst() else {
                throw UsageError("Missing value for '\(spelling) \(option.placeholder)'")
            }
            if text.isEmpty, let instead = option.forEmpty {
                throw UsageError("The value for '\(spelling) \(option.placeholder)' is empty: give \(instead)")
            }
            given.append(try Self.value(text, of: option, as: spelling))
        }
        if operands.count < spec.arguments.count, spec.arguments[operands.count].unlessGiven.map({ !isGiven($0) }) ?? true {
            throw UsageError("Missing expected argument '\(spec.arguments[operands.count].name)'")
        }
        if operands.count > spec.arguments.count, spec.arguments.last?.repeats != true {
            throw UsageError("Unexpected argument '\(operands[spec.arguments.count])'")
        }
        for option in spec.options {
            guard let text = option.defaultValue else { continue }
            defaults.append(try Self.value(text, of: option, as: option.name.long))
        }
        for requirement in spec.requires where isGiven(requirement.option) {
            // Met when `needs` was given (its last value being the one asked for, if any).
            if let value = given.last(where: { $0.name == requirement.needs })?.text, requirement.value == nil || requirement.value == value { continue }
            throw UsageError("'\(requirement.option.long)' goes with '\(requirement.needs.long)\(requirement.value.map { " " + $0 } ?? "")'")
        }
        // An action takes its own options (`backup apps --force` is refused, naming `extract`).
        if let word = operands.first, let action = spec.actions.first(where: { $0.name == word }) {
            for value in given where value.name != .help && !action.options.contains(value.name) {
                let others = spec.actions.filter { $0.options.contains(value.name) }.map { "'\($0.name)'" }
                throw UsageError("'\(value.name.long)' goes with \(others.joined(separator: " or "))")
            }
        }
    }

    func flag(_ name: CommandSpec.Option.Name) -> Bool { values(name) != nil }

    /// The option's value as given (the last one given), or nil.
    func given(_ name: CommandSpec.Option.Name) -> String? { values(name)?.last?.text }

    /// The option's value: the last one given, else the spec's default (empty for an option
    /// without one: read such an option with ``given(_:)``).
    func value(_ name: CommandSpec.Option.Name) -> String { given(name) ?? byDefault(name)?.text ?? "" }

    /// Every value given for a repeatable option, in order; else the spec's default alone.
    func all(_ name: CommandSpec.Option.Name) -> [String] {
        values(name)?.map(\.text) ?? byDefault(name).map { [$0.text] } ?? []
    }

    /// A size or integer option's number: the last one given, else the spec's default.
    func number(_ name: CommandSpec.Option.Name) -> Int? { (values(name)?.last ?? byDefault(name))?.number }

    /// A choice option's value (given, else the spec's default) as `T`, whose raw values are
    /// the spec's choices (a test holds them equal).
    /// - Throws: a usage error naming the value, should `T` not take it.
    func choice<T: RawRepresentable>(_ name: CommandSpec.Option.Name, as type: T.Type = T.self) throws(UsageError) -> T
        where T.RawValue == String {
        let text = value(name)
        guard let chosen = T(rawValue: text) else {
            throw UsageError("The value '\(text)' is invalid for '\(name.long)'")
        }
        return chosen
    }

    /// The input limits, with `--max-input-size` (every command that reads a file has it).
    var limits: PlistLimits {
        var limits = PlistLimits.default
        if let size = number(.maxInputSize) { limits.maxInputSize = size }
        return limits
    }

    /// The options given that the command never read: empty once a command has taken its
    /// options (a test holds every command to that, so no option of the spec goes unhandled).
    var unread: [CommandSpec.Option.Name] { given.map(\.name).filter { !read.contains($0) } }

    /// Every value given for `name`, in order; nil when it was not given.
    private func values(_ name: CommandSpec.Option.Name) -> [Value]? {
        read.append(name)
        let values = given.filter { $0.name == name }
        return values.isEmpty ? nil : values
    }

    private func byDefault(_ name: CommandSpec.Option.Name) -> Value? { defaults.first { $0.name == name } }

    private func isGiven(_ name: CommandSpec.Option.Name) -> Bool { given.contains { $0.name == name } }

    /// An option argument as its spelling and its attached value: `--key=x` is `--key` and
    /// `x`; a short option with its value attached (`-j1`, `-oOUT`) is `-j` and `1`.
    fileprivate static func split(_ argument: String) -> (spelling: String, inline: String?) {
        if argument.hasPrefix("--"), let eq = argument.firstIndex(of: "=") {
            return (String(argument[..<eq]), String(argument[argument.index(after: eq)...]))
        }
        if !argument.hasPrefix("--"), argument.count > 2 { return (String(argument.prefix(2)), String(argument.dropFirst(2))) }
        return (argument, nil)
    }

    /// Refuses `name` when another option of one of its exclusive groups was given, and a
    /// second one of a `.oneOf` group (where results go: two `-o` are as ambiguous as `-o` and
    /// `--into`).
    private func refuseExclusive(_ name: CommandSpec.Option.Name) throws(UsageError) {
        for group in spec.exclusive where group.names.contains(name) {
            if group.wording == .oneOf, isGiven(name) { throw UsageError("'\(name.long)' may be given only once") }
            guard let earlier = group.names.first(where: { $0 != name && isGiven($0) }) else { continue }
            switch group.wording {
            case .later: throw UsageError("'\(name.long)' cannot be combined with '\(earlier.long)'")
            case .both: throw UsageError("'\(group.names[0].long)' and '\(group.names[1].long)' cannot be combined")
            case .oneOf: throw UsageError("Use only one of \(Self.listed(group.names.map(\.spellings[0]), and: "and"))")
            }
        }
    }

    /// A value checked against its option's kind; `spelling` is how it was given.
    fileprivate static func value(_ given: String, of option: CommandSpec.Option, as spelling: String) throws(UsageError) -> Value {
        if option.acceptsBytes { return Value(name: option.name, text: given) }
        let text = try Self.text(given, for: "\(spelling) \(option.placeholder)")
        let named = "\(option.name.long) \(option.placeholder)"
        switch option.kind {
        case let .choice(words):
            guard words.contains(text) else {
                throw UsageError("The value '\(text)' is invalid for '\(named)': expected \(listed(words, and: "or"))")
            }
        case let .integer(range, expected):
            guard let n = Int(text), range.contains(n) else {
                throw UsageError("The value '\(text)' is invalid for '\(named)': expected \(expected)")
            }
            return Value(name: option.name, text: text, number: n)
        case .size:
            return Value(name: option.name, text: text, number: try size(text, for: named))
        case .flag, .text, .bytes, .renamed:
            break
        }
        return Value(name: option.name, text: text)
    }

    /// `'a', 'b' or 'c'`.
    fileprivate static func listed(_ words: [String], and conjunction: String) -> String {
        let quoted = words.map { "'\($0)'" }
        return quoted.dropLast().joined(separator: ", ") + (quoted.count > 1 ? " \(conjunction) " : "") + (quoted.last ?? "")
    }

    /// A size: bytes, or a number with K, M or G (binary units), at most libplist's 32-bit lengths.
    private static func size(_ text: String, for named: String) throws(UsageError) -> Int {
        // A switch, not a dictionary literal: every command parses --max-input-size's default,
        // and a program's first dictionary of a key type costs a conformance lookup at start-up.
        let scale: Int? = switch text.last {
        case "K", "k": 1 << 10
        case "M", "m": 1 << 20
        case "G", "g": 1 << 30
        default: nil
        }
        guard let n = Int(scale == nil ? Substring(text) : text.dropLast()), n > 0 else {
            throw UsageError("The value '\(text)' is invalid for '\(named)': expected bytes, or a number with K, M or G")
        }
        let (size, overflow) = n.multipliedReportingOverflow(by: scale ?? 1)
        guard !overflow, size <= Int(UInt32.max) else {
            throw UsageError("The value '\(text)' is invalid for '\(named)': at most 4294967295 bytes (4G less one byte; libplist reads 32-bit lengths)")
        }
        return size
    }

    /// An operand as the command's argument at `index` takes it: a path as it is, anything
    /// else only as UTF-8. An operand the command does not take is refused after the walk.
    private func operand(_ arg: String, at index: Int) throws(UsageError) -> String {
        let argument = spec.argument(at: index)
        if arg.isEmpty, argument?.completion.isPath == true {
            throw UsageError("The argument '\(argument?.name ?? "")' is empty: give a path")
        }
        guard let argument, !argument.completion.isPath else { return arg }
        let text = try Self.text(arg, for: "<\(argument.name.replacing("...", with: ""))>")
        if case let .choices(words) = argument.completion, !words.contains(text) {
            throw Self.notAChoice(text, of: argument, words, then: spec.arguments.dropFirst(index + 1).first)
        }
        return text
    }

    /// An operand that is none of its argument's words (`backup list`): the words, the closest
    /// one when it is close (`extrct`), else, when an argument follows, that the word comes
    /// before it (`ycft backup BACKUP` left the action out: the backup is no action).
    private static func notAChoice(_ text: String, of argument: CommandSpec.Argument, _ words: [String],
                           then next: CommandSpec.Argument?) -> UsageError {
        let said: UsageError.Message = "The value '\(text)' is invalid for '<\(argument.name)>': expected \(listed(words, and: "or"))"
        if let suggestion = Suggestion.closest(to: text, among: words) { return UsageError(said + ". Did you mean '\(suggestion)'?") }
        guard let next else { return UsageError(said) }
        return UsageError(said + ", then \(next.name)")
    }

    /// The argument as text (``PathBytes/text(_:)``).
    /// - Throws: a usage error naming the argument and showing its bytes, when it is not UTF-8.
    static func text(_ value: String, for what: String) throws(UsageError) -> String {
        guard let text = PathBytes.text(value) else {
            throw UsageError("The value '\(value)' is invalid for '\(what)': it is not valid UTF-8 "
                             + "(only paths may hold other bytes)")
        }
        return text
    }
}

extension TopLevel {
    /// The option `arguments` starts with (``options``) and its value, read as a command's
    /// options are read (`--generate-completion-script=bash` or `... bash`, the value one of
    /// its choices; a flag given a value is refused), and nothing after it: `ycft --version
    /// junk` is a mistake. `-h`/`--help` is the main help whatever follows.
    /// - Throws: a usage error in the tool's words.
    static func parse(_ arguments: [String]) throws(UsageError) -> (name: Option.Name, value: String?) {
        guard let first = arguments.first else { return (.help, nil) }
        var rest = arguments.dropFirst()
        // No short option takes a value attached here (`-hx` is no `-h`).
        let (spelling, inline) = first.hasPrefix("--") ? ParsedArguments.split(first) : (first, nil)
        guard let option = option(spelling) else {
            throw UsageError.unknown("option", spelling, among: options.flatMap(\.names))
        }
        if !option.takesValue, inline != nil { throw UsageError("'\(spelling)' takes no value") }
        if option.name == .help { return (.help, nil) }
        var value: String?
        if option.takesValue {
            guard let given = inline ?? rest.popFirst() else {
                let expected: UsageError.Message = if case let .choice(words) = option.kind {
                    ": expected \(ParsedArguments.listed(words, and: "or"))"
                } else { "" }
                throw UsageError("Missing value for '\(spelling) \(option.placeholder)'" + expected)
            }
            value = try ParsedArguments.value(given, of: option, as: spelling).text
        }
        if let extra = rest.first { throw UsageError("Unexpected argument '\(extra)'") }
        return (option.name, value)
    }
}

/// "Did you mean": the known word closest to a mistyped one, when it is close (as
/// swift-argument-parser suggests long options: by edit distance, never a short option).
enum Suggestion {
    /// The Levenshtein distance between `a` and `b`, in characters.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        var row = Array(0...b.count)
        for i in a.indices {
            var previous = row[0]
            row[0] = i + 1
            for j in b.indices {
                let substitute = previous + (a[i] == b[j] ? 0 : 1)
                previous = row[j + 1]
                row[j + 1] = min(substitute, row[j] + 1, row[j + 1] + 1)
            }
        }
        return row[b.count]
    }

    /// The Levenshtein distance between `a` and `b` when it is at most `limit`, else nil: only
    /// the band of the table within `limit` of its diagonal, and no further than the first row
    /// whose every value is over `limit` (a key against 100,000 others of about its length
    /// took half a second in full).
    static func distance<C: RandomAccessCollection>(_ a: C, _ b: C, atMost limit: Int) -> Int?
    where C.Element: Equatable, C.Index == Int {
        let (n, m) = (a.count, b.count)
        guard abs(n - m) <= limit else { return nil }
        let over = limit + 1
        return withUnsafeTemporaryAllocation(of: Int.self, capacity: m + 1) { row -> Int? in
            for j in 0...m { row[j] = min(j, over) }
            for i in stride(from: 1, through: n, by: 1) {
                let (low, high) = (max(1, i - limit), min(m, i + limit))
                var diagonal = row[low - 1]
                row[low - 1] = low == 1 ? min(i, over) : over
                var least = row[low - 1]
                if low <= high {
                    for j in low...high {
                        let up = row[j]
                        let same = a[a.startIndex + i - 1] == b[b.startIndex + j - 1]
                        row[j] = min(diagonal + (same ? 0 : 1), row[j - 1] + 1, up + 1, over)
                        diagonal = up
                        least = min(least, row[j])
                    }
                }
                // The next row's band reaches one column further, where this row has no value.
                if high < m { row[high + 1] = over }
                if least > limit { return nil }
            }
            return row[m] <= limit ? row[m] : nil
        }
    }

    /// The longest word (in characters) compared by edit distance.
    static let maxCompared = 256

    /// The candidate closest to `word` (the first of equals), if it is close: the first that
    /// begins with it (`--drop` is `--drop-versions` cut short), else one fewer than 4 edits
    /// away (swift-argument-parser's floor) and about half the candidate's letters at most, so
    /// that a short word is not "corrected" into an unrelated one. `--force`, which makes a
    /// command replace what it would keep, is suggested only one edit away (`--format` is not a
    /// misspelled `--force`). Short options (`-o`) are never suggested.
    static func closest(to word: String, among candidates: [String]) -> String? {
        let named = candidates.filter { $0.hasPrefix("--") || !$0.hasPrefix("-") }
        if word.drop(while: { $0 == "-" }).count >= 2, let longer = named.first(where: { $0 != word && $0.hasPrefix(word) }) {
            return longer
        }
        // Fewer than 4 edits apart means lengths fewer than 4 apart; and the distance of long
        // words (record keys of any length) is not computed at all: it takes time in the
        // product of the lengths, minutes for a 100,000-character key.
        // Text in ASCII is compared byte for byte, in place; other text by Unicode scalars,
        // decoded into a buffer on the stack (an array of characters for each of 100,000 keys
        // took a tenth of a second a word).
        let asciiWord = isASCII(word)
        let wordBytes = Array(word.utf8), wordScalars = Array(word.unicodeScalars)
        let length = asciiWord ? wordBytes.count : wordScalars.count
        guard length <= maxCompared else { return nil }
        var best: (candidate: String, distance: Int)?
        for candidate in named {
            // Its bytes first, so that a huge candidate is not counted scalar by scalar.
            guard candidate.utf8.count <= 4 * maxCompared else { continue }
            let ascii = isASCII(candidate)
            let count = ascii ? candidate.utf8.count : candidate.unicodeScalars.count
            guard count <= maxCompared, abs(count - length) < 4 else { continue }
            let found: Int?
            if asciiWord && ascii {
                let inPlace = wordBytes.withUnsafeBufferPointer { word in
                    candidate.utf8.withContiguousStorageIfAvailable { distance(word, $0, atMost: 3) }
                }
                found = inPlace ?? distance(wordBytes, Array(candidate.utf8), atMost: 3)
            } else {
                found = withUnsafeTemporaryAllocation(of: Unicode.Scalar.self, capacity: count) { buffer in
                    for (i, scalar) in candidate.unicodeScalars.enumerated() { buffer.initializeElement(at: i, to: scalar) }
                    return wordScalars.withUnsafeBufferPointer { distance($0, UnsafeBufferPointer(buffer), atMost: 3) }
                }
            }
            guard let found, found > 0, 2 * found <= candidate.drop(while: { $0 == "-" }).count + 1,
                  candidate != "--force" || found == 1, found < best?.distance ?? 4 else { continue }
            best = (candidate, found)
        }
        return best?.candidate
    }

    /// Whether every character of `text` is ASCII.
    private static func isASCII(_ text: String) -> Bool { text.utf8.allSatisfy { $0 < 0x80 } }

    /// ``closest(to:among:)`` at most `edits` edits away: among the candidates whose lengths
    /// are that close, so that one that begins with `word` but is longer by more (the first
    /// choice of ``closest(to:among:)``, `com.example.notes.widget` for `com.example.note`)
    /// does not hide a nearer one (`com.example.notes`).
    static func closest(to word: String, among candidates: [String], within edits: Int) -> String? {
        let length = word.count
        let near = candidates.filter { $0.utf8.count <= 4 * maxCompared && abs($0.count - length) <= edits }
        guard let closest = closest(to: word, among: near), distance(word, closest) <= edits else { return nil }
        return closest
    }

    /// ` (did you mean "NEAR"?)` after a name no record has, when a key of `keys` is close to
    /// it (``closest(to:among:)``), both escaped as every key is; else empty. A key that looks
    /// the same on a terminal (``looks(_:)``) is named first, both spelled out
    /// (``UntrustedText/spelledOut(_:)``), since `did you mean "café"?` after `"café"` shows
    /// nothing: ` (a record has "caf\u{E9}", which looks the same but is not: this is
    /// "cafe\u{301}")`. A close key that differs in characters beyond ASCII (a Cyrillic `а` for
    /// a Latin `a`, `è` for `é`) is spelled out too: ` (did you mean "plain"? this is
    /// "pl\u{430}in")`.
    static func hint(for key: String, among keys: [String]) -> String {
        if key.utf8.count <= 4 * maxCompared {
            let seen = looks(key)
            // A key in ASCII looks like itself: only one beyond ASCII can look like another.
            if let twin = keys.first(where: { $0.utf8.count <= 4 * maxCompared && (isASCII($0) ? $0 == seen : looks($0) == seen) }) {
                return " (a record has \(UntrustedText.spelledOut(twin)), which looks the same but is not: "
                    + "this is \(UntrustedText.spelledOut(key)))"
            }
        }
        // A key that differs only in case first (keys are compared case by case on the device):
        // `WHATS-NEW` is nine edits from `whats-new`.
        let lowered = key.lowercased(), size = key.utf8.count
        let sameButCase = keys.first { $0.utf8.count == size && $0.lowercased() == lowered }
        guard let near = sameButCase ?? closest(to: key, among: keys) else { return "" }
        func beyondASCII(_ text: String) -> [UInt32] { text.unicodeScalars.filter { !$0.isASCII }.map(\.value).sorted() }
        guard beyondASCII(near) != beyondASCII(key) else { return " (did you mean \(UntrustedText.quoted(near))?)" }
        return " (did you mean \(UntrustedText.spelledOut(near))? this is \(UntrustedText.spelledOut(key)))"
    }

    /// Which of `keys` look like another of them on a terminal (``looks(_:)``) that is not the
    /// same characters, for a list of them all: two rows `café` that are one composed and one
    /// decomposed key. (The same key twice, a record and a gate, is not a look-alike.)
    static func lookAlike(_ keys: [String]) -> [Bool] {
        var alike = [Bool](repeating: false, count: keys.count)
        guard keys.contains(where: { !isASCII($0) }) else { return alike }
        // Keyed by String, whose equality and hash take composed and decomposed forms as one.
        var groups: [String: [Int]] = [:]
        for (i, key) in keys.enumerated() { groups[looks(key), default: []].append(i) }
        for members in groups.values where members.count > 1 {
            let first = keys[members[0]]
            guard members.contains(where: { !exactlyEqual(keys[$0], first) }) else { continue }
            for i in members { alike[i] = true }
        }
        return alike
    }

    /// The text as a terminal shows it, for comparing with `==` (which already takes composed
    /// and decomposed forms as equal): without the characters that show as nothing (Unicode's
    /// default-ignorable code points: zero-width spaces and joiners, soft hyphens, byte-order
    /// marks, tag characters) and with every space character outside ASCII a space.
    /// Text with no such character is itself, made without a copy (most keys).
    static func looks(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: showsOtherwise) else { return text }
        var shown = String.UnicodeScalarView()
        for scalar in text.unicodeScalars where !scalar.properties.isDefaultIgnorableCodePoint {
            shown.append(showsOtherwise(scalar) ? " " : scalar)
        }
        return String(shown)
    }

    /// Whether a character shows as nothing or as a space but is not one: below U+0300 (ASCII,
    /// Latin-1, Latin Extended, spacing modifiers) only U+0085, U+00A0 and U+00AD are, without
    /// asking Unicode's tables (which, for every character of 100,000 keys, took seconds).
    static func showsOtherwise(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        if value < 0x300 { return value == 0x85 || value == 0xA0 || value == 0xAD }
        return scalar.properties.isDefaultIgnorableCodePoint || scalar.properties.isWhitespace
    }
}

/// A command-line mistake: printed with the command's usage line, exit status 2.
///
/// The message is written as a string literal whose every interpolated value (an argument, an
/// option's name or value) goes through ``UntrustedText/escaped(_:)``: an argument cannot act
/// on the terminal (`ycft help $'\e[2J'` says `Unknown subcommand '\u{1B}[2J'`), and no call
/// site can forget to escape one.
struct UsageError: Error {
    let message: String
    init(_ message: Message) { self.message = message.text }

    /// `Unknown option '--compat'. Did you mean '--compact'?`, `Unknown subcommand 'verfy'. Did
    /// you mean 'verify'?` (`what` is `option` or `subcommand`; the suggestion only when close).
    static func unknown(_ what: String, _ name: String, among names: [String]) -> UsageError {
        guard let suggestion = Suggestion.closest(to: name, among: names) else { return UsageError("Unknown \(what) '\(name)'") }
        return UsageError("Unknown \(what) '\(name)'. Did you mean '\(suggestion)'?")
    }

    /// A usage message: literal text as written, interpolations escaped. Every value comes from
    /// the command line, decoded by ``PathBytes``: its bytes that are not UTF-8 show as `\xNN`,
    /// the rest through ``UntrustedText/escaped(_:)``.
    struct Message: ExpressibleByStringInterpolation {
        let text: String
        init(stringLiteral value: String) { text = value }
        init(stringInterpolation: Interpolation) { text = stringInterpolation.text }
        /// Two messages, one after the other (a long message written in parts).
        static func + (a: Message, b: Message) -> Message { Message(text: a.text + b.text) }
        private init(text: String) { self.text = text }

        struct Interpolation: StringInterpolationProtocol {
            var text = ""
            init(literalCapacity: Int, interpolationCount: Int) { text.reserveCapacity(literalCapacity) }
            mutating func appendLiteral(_ literal: String) { text += literal }
            mutating func appendInterpolation(_ value: some Any) {
                text += PathBytes.displayed(String(describing: value), other: UntrustedText.escaped)
            }
        }
    }
}
