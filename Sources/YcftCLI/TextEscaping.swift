#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

// The few string operations the tool's output needs, without Foundation: the tool links only
// FoundationEssentials (and FoundationInternationalization for calendars and time zones), since
// the whole of Foundation is what a process spends most of its start-up on.

extension String {
    /// Every occurrence of each scalar replaced by its text, scalar by scalar (a `\r` is replaced
    /// inside `\r\n` too, where `Character`-based replacing would see one character).
    func replacingEach(_ replacements: KeyValuePairs<Unicode.Scalar, String>) -> String {
        var out = ""
        out.reserveCapacity(utf8.count)
        for scalar in unicodeScalars {
            if let replacement = replacements.first(where: { $0.key == scalar })?.value {
                out += replacement
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

    /// `value` with `places` decimals, as C's `%.*f` writes it (correctly rounded).
    init(_ value: Double, places: Int) {
        var buffer = [CChar](repeating: 0, count: 32)
        while true {
            let written = withVaList([value]) { vsnprintf(&buffer, buffer.count, "%.\(places)f", $0) }
            if written < buffer.count { break }
            buffer = [CChar](repeating: 0, count: Int(written) + 1)
        }
        self.init(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
