/// The one escaper for text that comes from a file (keys, versions, class names, paths) and
/// is shown to a person: in messages, `verify`'s text, `status`'s table and `migrate`'s listing.
/// JSON, JUnit and GitHub outputs keep exact strings in their own escaping instead.
///
/// Style: `\\` for a backslash, `\n`, `\t`, `\r`, and `\u{1B}` (Swift's form, hexadecimal,
/// upper case) for every other C0 or C1 control character, DEL, the line and paragraph
/// separators U+2028/U+2029, and the bidirectional controls (U+200E, U+200F, U+202A-U+202E,
/// U+2066-U+2069) that can make a terminal show text other than what the file holds. So an ESC
/// from a file never reaches the terminal, and one line of output stays one line.
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

    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        let v = scalar.value
        return v < 0x20 || v == 0x5C || (0x7F...0x9F).contains(v) || v == 0x2028 || v == 0x2029
            || v == 0x200E || v == 0x200F || (0x202A...0x202E).contains(v) || (0x2066...0x2069).contains(v)
    }

    private static func append(_ scalar: Unicode.Scalar, to out: inout String, quote: Bool) {
        switch scalar {
        case "\"" where quote: out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case "\t": out += "\\t"
        case "\r": out += "\\r"
        default:
            if needsEscape(scalar) {
                out += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
    }
}
