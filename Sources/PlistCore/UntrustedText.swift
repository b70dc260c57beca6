/// The one escaper for text that comes from a file (keys, versions, class names), a file name
/// or an argument and is shown to a person; ``sanitized(_:)`` is the last pass of every writer
/// of terminal-facing text. JSON keeps exact strings in its own escaping (`\u001b`).
///
/// Style: `\\`, `\n`, `\t`, `\r`, and `\u{1B}` (Swift's form) for every other character
/// `needsEscape` names (docs/commands.md lists them), so an ESC from a file never reaches the
/// terminal, and one line of output stays one line.
///
/// ```swift
/// UntrustedText.escaped("a\u{1B}[31mb")   // a\u{1B}[31mb
/// UntrustedText.quoted("say \"hi\"")      // "say \"hi\""
/// ```
@usableFromInline package enum UntrustedText {
    /// The text with every character that could act on a terminal escaped.
    @usableFromInline package static func escaped(_ text: String) -> String {
        // The common case (plain printable text) is returned as it is.
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var out = ""
        for scalar in text.unicodeScalars { append(scalar, to: &out, quote: false) }
        return out
    }

    /// The text in double quotes, escaped as ``escaped(_:)`` plus `\"` for a quote.
    @usableFromInline package static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars { append(scalar, to: &out, quote: true) }
        return out + "\""
    }

    /// The text in double quotes with every character outside printable ASCII written as
    /// `\u{HEX}`: for two keys that look alike on a terminal but are not the same scalars (one
    /// composed, one decomposed; a zero-width space; a no-break space), so the difference shows.
    ///
    /// ```swift
    /// UntrustedText.spelledOut("cafe\u{301}")   // "cafe\u{301}"
    /// ```
    @usableFromInline package static func spelledOut(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars { append(scalar, to: &out, quote: true, spellingOut: true) }
        return out + "\""
    }

    /// The last line of defence, for the writers of terminal-facing text: what ``escaped(_:)``
    /// escapes but the line feed (which ends the tool's own lines) and the backslash (so
    /// `sanitized(escaped(s))` is `escaped(s)`). Whatever a message forgot to escape never
    /// reaches the terminal raw.
    ///
    /// ```swift
    /// UntrustedText.sanitized("a\u{1B}]0;t\u{7}\n")   // a\u{1B}]0;t\u{7} and a line feed
    /// ```
    @usableFromInline package static func sanitized(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0 != "\n" && $0 != "\\" && needsEscape($0) }) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            if scalar == "\n" || scalar == "\\" { out.unicodeScalars.append(scalar) } else { append(scalar, to: &out, quote: false) }
        }
        return out
    }

    /// Whether a character acts on a terminal or on the layout of a line (C0 and C1 controls,
    /// DEL, U+2028/U+2029, bidirectional controls), is a noncharacter (U+FDD0-U+FDEF and the
    /// last two of every plane: XML 1.0, and so JUnit readers, refuse U+FFFE and U+FFFF), or
    /// is the escape character itself.
    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        let v = scalar.value
        return v < 0x20 || v == 0x5C || (0x7F...0x9F).contains(v) || v == 0x2028 || v == 0x2029
            || v == 0x061C || v == 0x200E || v == 0x200F || (0x202A...0x202E).contains(v) || (0x2066...0x2069).contains(v)
            || (0xFDD0...0xFDEF).contains(v) || v & 0xFFFE == 0xFFFE
    }

    /// `scalar` as it is, or escaped when it ``needsEscape(_:)`` (with `spellingOut`, also when
    /// it is not ASCII), a quote too when `quote`.
    private static func append(_ scalar: Unicode.Scalar, to out: inout String, quote: Bool, spellingOut: Bool = false) {
        switch scalar {
        case "\"" where quote: out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case "\t": out += "\\t"
        case "\r": out += "\\r"
        default:
            if needsEscape(scalar) || spellingOut && !scalar.isASCII {
                out += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
    }
}
