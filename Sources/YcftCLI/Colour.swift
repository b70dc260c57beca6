import FirstTimeCore

/// ycft's colour: the one decision whether a stream is coloured (``init(_:io:)``) and the one
/// palette (``Style``). Only what a person reads is coloured: `status`'s table, `verify`'s
/// findings, the warnings beside them, and the JSON of `dump`, `status` and `verify` (as jq
/// colours it); GitHub workflow commands, JUnit XML and `dump --textconv` never are, and with
/// colour off every byte is what it was without it.
struct Colour: Sendable, Equatable {
    /// `--color WHEN`.
    enum When: String, CaseIterable, Sendable {
        /// When the stream is a terminal, `NO_COLOR` is unset or empty (no-color.org) and `TERM`
        /// is set and not `dumb` (as ripgrep decides).
        case auto
        /// Into a pipe or file too (for `less -R`), whatever `NO_COLOR` and `TERM` say.
        case always
        case never
    }

    /// Whether standard output is coloured (the table or JSON written there).
    var stdout: Bool
    /// Whether standard error is coloured (findings and warnings written there).
    var stderr: Bool

    static let off = Colour(stdout: false, stderr: false)

    init(stdout: Bool, stderr: Bool) { (self.stdout, self.stderr) = (stdout, stderr) }

    /// The decision for each stream: `when`, the environment (``CommandIO/environment``) and
    /// whether that stream is a terminal.
    init(_ when: When, io: CommandIO) {
        let (noColor, term) = (io.environment("NO_COLOR"), io.environment("TERM"))
        stdout = Self.colours(when, terminal: io.stdoutIsTerminal(), noColor: noColor, term: term)
        stderr = Self.colours(when, terminal: io.stderrIsTerminal(), noColor: noColor, term: term)
    }

    /// Whether a stream is coloured, as ``When`` says.
    static func colours(_ when: When, terminal: Bool, noColor: String?, term: String?) -> Bool {
        switch when {
        case .never: false
        case .always: true
        case .auto: terminal && (noColor ?? "").isEmpty && !(term ?? "").isEmpty && term != "dumb"
        }
    }

    /// The palette: what ycft colours, and how (SGR parameters).
    enum Style: CaseIterable, Sendable {
        /// `error` in a finding: bold red.
        case error
        /// `warning` in a finding or a warning line: bold yellow.
        case warning
        /// `yes` under RUNS NOW: green.
        case runs
        /// `no` under RUNS NOW: yellow.
        case waits
        // JSON in jq's default colours (its JQ_COLORS): keys bold blue, strings green, numbers,
        // true and false the default colour, null grey, brackets, commas and colons bold.
        case jsonKey, jsonString, jsonNumber, jsonBoolean, jsonNull, jsonPunctuation

        var parameters: String {
            switch self {
            case .error: "1;31"
            case .warning: "1;33"
            case .runs: "32"
            case .waits: "33"
            case .jsonKey: "1;34"
            case .jsonString: "0;32"
            case .jsonNumber, .jsonBoolean: "0;39"
            case .jsonNull: "0;90"
            case .jsonPunctuation: "1;39"
            }
        }

        /// A finding's severity: ``error`` or ``warning``.
        init(_ severity: Severity) { self = severity == .error ? .error : .warning }

        /// The sequence that starts the style.
        var sequence: String { "\u{1B}[" + parameters + "m" }
    }

    /// The sequence that ends a style.
    static let reset = "\u{1B}[0m"

    /// Whether `text` is exactly one of the palette's sequences, or ``reset``: the only control
    /// sequences besides ``Ycft/TerminalControl`` that ``Ycft/terminalSafe(_:)`` passes, and
    /// only as whole writes, which no message is.
    static func isSequence(_ text: String) -> Bool {
        text == reset || Style.allCases.contains { $0.sequence == text }
    }

    /// JSON text with each token in its ``Style``: without the SGR sequences, `json` itself,
    /// byte for byte. A string is a key when a colon follows it.
    static func json(_ json: [UInt8]) -> [UInt8] {
        let (quote, backslash, colon) = (UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: ":"))
        func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 }
        func isPunctuation(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "{"), UInt8(ascii: "}"), UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: ","), colon: true
            default: false
            }
        }
        func isNumber(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"): true
            default: false
            }
        }
        var out: [UInt8] = []
        out.reserveCapacity(json.count * 2)
        var i = 0
        func paint(to end: Int, _ style: Style) {
            out.append(contentsOf: style.sequence.utf8)
            out.append(contentsOf: json[i..<end])
            out.append(contentsOf: reset.utf8)
            i = end
        }
        func end(from start: Int, while matches: (UInt8) -> Bool) -> Int {
            var j = start
            while j < json.count, matches(json[j]) { j += 1 }
            return j
        }
        while i < json.count {
            let byte = json[i]
            if byte == quote {
                var j = i + 1
                while j < json.count, json[j] != quote { j += json[j] == backslash ? 2 : 1 }
                let close = min(j + 1, json.count)
                let next = end(from: close, while: isBlank)
                paint(to: close, next < json.count && json[next] == colon ? .jsonKey : .jsonString)
            } else if isPunctuation(byte) {
                paint(to: end(from: i, while: isPunctuation), .jsonPunctuation)
            } else if byte == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
                paint(to: end(from: i, while: isNumber), .jsonNumber)
            } else if (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) {
                paint(to: end(from: i) { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) }, byte == UInt8(ascii: "n") ? .jsonNull : .jsonBoolean)
            } else {
                out.append(byte)
                i += 1
            }
        }
        return out
    }
}

/// Text in pieces, each plain or in one ``Colour/Style``; its ``plain`` text is the pieces
/// joined, which is what is written when colour is off (``Ycft/writeText(_:to:)-(StyledText,_)``,
/// ``Ycft/writeStderr(_:io:)``).
struct StyledText: Sendable {
    private(set) var pieces: [(text: String, style: Colour.Style?)] = []

    init(_ text: String = "", _ style: Colour.Style? = nil) {
        if !text.isEmpty { pieces = [(text, style)] }
    }

    var plain: String { pieces.map(\.text).joined() }

    mutating func append(_ text: String, _ style: Colour.Style? = nil) {
        if !text.isEmpty { pieces.append((text, style)) }
    }

    static func += (text: inout StyledText, more: String) { text.append(more) }
    static func += (text: inout StyledText, more: StyledText) { text.pieces += more.pieces }

    /// Rows as a table: each cell padded to its column's width, two spaces apart (the last
    /// column unpadded); a cell of a column in `styles` in the style it names for its text (the
    /// first row, the header, never).
    static func table(_ rows: [[String]], styles: [Int: [String: Colour.Style]] = [:]) -> StyledText {
        let widths = rows[0].indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        var out = StyledText()
        for (r, row) in rows.enumerated() {
            for (i, cell) in row.enumerated() {
                out += i == 0 ? "" : "  "
                out.append(cell, r == 0 ? nil : styles[i]?[cell])
                out += i == row.count - 1 ? "" : String(repeating: " ", count: max(0, widths[i] - cell.count))
            }
            out += "\n"
        }
        return out
    }

    /// Each piece's text passed through `safe` (``UntrustedText/sanitized(_:)``), each styled
    /// piece between its style's sequence and ``Colour/reset``.
    func painted(_ safe: (String) -> String) -> String {
        pieces.map { piece in piece.style.map { $0.sequence + safe(piece.text) + Colour.reset } ?? safe(piece.text) }.joined()
    }
}
