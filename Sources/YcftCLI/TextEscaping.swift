// The string operations the output needs that only the whole of Foundation has (not linked).

extension String {
    /// Every occurrence of each scalar replaced by its text, scalar by scalar (a `\r` is replaced
    /// inside `\r\n` too, where `Character`-based replacing would see one character).
    func replacingEach(_ replacements: KeyValuePairs<Unicode.Scalar, String>) -> String {
        var out = ""
        for scalar in unicodeScalars {
            if let replacement = replacements.first(where: { $0.key == scalar }) {
                out += replacement.value
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// Without leading and trailing tabs and space separators (Unicode category Zs), the set
    /// Foundation calls `whitespaces`.
    func trimmingWhitespace() -> String {
        func isSpace(_ scalar: Unicode.Scalar) -> Bool { scalar == "\t" || scalar.properties.generalCategory == .spaceSeparator }
        guard let first = unicodeScalars.firstIndex(where: { !isSpace($0) }),
              let last = unicodeScalars.lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(unicodeScalars[first...last])
    }

    /// Padded with spaces to `width` characters (never cut).
    func padded(to width: Int) -> String { self + String(repeating: " ", count: Swift.max(0, width - count)) }
}
