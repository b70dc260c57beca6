import Plist

/// A small, conventional argument cursor: `--long value`, `--long=value`, short aliases such as
/// `-o` with the value separate or attached (`-j1`), `--` ends options, a lone `-` is an operand (standard input or output), and options and
/// operands may interleave.
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
        guard let option = next() else { return nil }
        guard let known = spec.option(option.name) else { throw UsageError("Unknown option '\(option.name)'") }
        if !known.takesValue, option.inline != nil { throw UsageError("'\(option.name)' takes no value") }
        return option
    }

    private mutating func next() -> (name: String, inline: String?)? {
        while !rest.isEmpty {
            let arg = rest.removeFirst()
            if optionsEnded || arg == "-" || !arg.hasPrefix("-") {
                operands.append(arg)
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
    mutating func value(for name: String, inline: String?) throws(UsageError) -> String {
        if let inline { return inline }
        guard !rest.isEmpty else { throw UsageError("Missing value for '\(name) <value>'") }
        return rest.removeFirst()
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

    /// A usage message: literal text as written, interpolations escaped.
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
            mutating func appendInterpolation(_ value: some Any) { text += UntrustedText.escaped(String(describing: value)) }
        }
    }
}
