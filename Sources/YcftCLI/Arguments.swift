import SafeFiles
import Plist

/// A small, conventional argument cursor: `--long value`, `--long=value`, short aliases such as
/// `-o` with the value separate or attached (`-j1`), `--` ends options, a lone `-` is an operand (standard input or output), and options and
/// operands may interleave.
///
/// Arguments arrive as ``PathBytes`` strings (the process's raw `argv`). Paths may be any bytes;
/// every other value and operand (keys, versions, times, zones, rules, formats) must be UTF-8,
/// which the spec decides (``CommandSpec/Option/acceptsBytes``, ``CommandSpec/Argument/acceptsBytes``):
/// one that is not is a usage error naming it, never stored as U+FFFD.
struct Arguments {
    private var rest: [String]
    private(set) var operands: [String] = []
    private var optionsEnded = false
    /// The command's description: which options exist and which take a value.
    let spec: CommandSpec

    init(_ arguments: [String], spec: CommandSpec) {
        rest = arguments
        self.spec = spec
    }

    /// The next option (operands are collected as they pass); nil at the end.
    /// - Throws: for an option the command does not have, or a value given to a flag.
    mutating func nextOption() throws(UsageError) -> (name: String, inline: String?)? {
        guard let option = try next() else { return nil }
        guard let known = spec.option(option.name) else {
            throw UsageError.unknownOption(option.name, among: spec.options.filter { !$0.hidden }.flatMap(\.names))
        }
        if !known.takesValue, option.inline != nil { throw UsageError("'\(option.name)' takes no value") }
        return option
    }

    private mutating func next() throws(UsageError) -> (name: String, inline: String?)? {
        while !rest.isEmpty {
            let arg = rest.removeFirst()
            if optionsEnded || arg == "-" || !arg.hasPrefix("-") {
                operands.append(try operand(arg, at: operands.count))
                continue
            }
            if arg == "--" {
                optionsEnded = true
                continue
            }
            if arg.hasPrefix("--"), let eq = arg.firstIndex(of: "=") {
                return (String(arg[..<eq]), String(arg[arg.index(after: eq)...]))
            }
            // A short option with its value attached: `-j1`, `-oOUT`.
            if !arg.hasPrefix("--"), arg.count > 2 {
                return (String(arg.prefix(2)), String(arg.dropFirst(2)))
            }
            return (arg, nil)
        }
        return nil
    }

    /// The value of an option: its inline `=value` or the next argument.
    /// - Throws: when it is missing, or is not UTF-8 and the option takes no path.
    mutating func value(for name: String, inline: String?) throws(UsageError) -> String {
        let value: String
        if let inline {
            value = inline
        } else {
            guard !rest.isEmpty else { throw UsageError("Missing value for '\(name) \(spec.placeholder(name))'") }
            value = rest.removeFirst()
        }
        guard let option = spec.option(name), !option.acceptsBytes else { return value }
        return try Self.text(value, for: "\(name) \(spec.placeholder(name))")
    }

    /// An operand as the command's argument at `index` takes it: a path as it is, anything
    /// else only as UTF-8. An operand the command does not take is left to the command to refuse.
    private func operand(_ arg: String, at index: Int) throws(UsageError) -> String {
        guard let argument = spec.argument(at: index), !argument.acceptsBytes else { return arg }
        return try Self.text(arg, for: "<\(argument.name.replacingOccurrences(of: "...", with: ""))>")
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

    /// The candidate closest to `word` (the first of equals), if it is close: fewer than 4
    /// edits (swift-argument-parser's floor) and about half the candidate's letters at most, so
    /// that a short word is not "corrected" into an unrelated one. Short options (`-o`) are
    /// never suggested.
    static func closest(to word: String, among candidates: [String]) -> String? {
        var best: (candidate: String, distance: Int)?
        for candidate in candidates where candidate.hasPrefix("--") || !candidate.hasPrefix("-") {
            let d = distance(word, candidate)
            let letters = candidate.drop { $0 == "-" }.count
            guard d > 0, d < 4, 2 * d <= letters + 1 else { continue }
            if best.map({ d < $0.distance }) ?? true { best = (candidate, d) }
        }
        return best?.candidate
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

    /// `Unknown option '--compat'. Did you mean '--compact'?` (the suggestion only when close).
    static func unknownOption(_ name: String, among names: [String]) -> UsageError {
        guard let suggestion = Suggestion.closest(to: name, among: names) else { return UsageError("Unknown option '\(name)'") }
        return UsageError("Unknown option '\(name)'. Did you mean '\(suggestion)'?")
    }

    /// `Unknown subcommand 'verfy'. Did you mean 'verify'?` (the suggestion only when close).
    static func unknownSubcommand(_ name: String, among names: [String]) -> UsageError {
        guard let suggestion = Suggestion.closest(to: name, among: names) else { return UsageError("Unknown subcommand '\(name)'") }
        return UsageError("Unknown subcommand '\(name)'. Did you mean '\(suggestion)'?")
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

/// Two (or more) options of which one may be given, like `--last-time` and `--no-last-time`:
/// the usage shows them as `[A | B]`, and giving a second after the first is a usage error
/// instead of the last one silently winning.
struct ExclusiveOptions {
    private var given: String?

    /// Notes `name`; throws when another option of the group was given before it.
    mutating func note(_ name: String) throws(UsageError) {
        if let given, given != name { throw UsageError("'\(name)' cannot be combined with '\(given)'") }
        given = name
    }
}
