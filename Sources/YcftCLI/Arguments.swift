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
struct UsageError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}
