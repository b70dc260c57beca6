/// A JSON value that keeps what Foundation's JSON types lose: the order of object members,
/// members whose keys are canonically equivalent (`"é"` and `"e\u{301}"` stay two keys), and
/// the exact text of numbers.
public indirect enum JSON: Sendable, Equatable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number, as its JSON text (for example `757414800.123456` or `-0.0`).
    case number(String)
    /// A string.
    case string(String)
    /// An array.
    case array([JSON])
    /// An object's members in order (duplicates are kept; readers decide what they mean).
    case object([Member])

    /// One member of an object.
    public struct Member: Sendable, Equatable {
        /// The key.
        public var key: String
        /// The value.
        public var value: JSON
        /// Creates a member.
        public init(_ key: String, _ value: JSON) {
            self.key = key
            self.value = value
        }
        /// Keys compare by exact Unicode scalars.
        public static func == (a: Member, b: Member) -> Bool {
            a.key.utf8.elementsEqual(b.key.utf8) && a.value == b.value
        }
    }

    /// A number from a double, in the shortest text that reads back to the same double,
    /// always with a `.` or an exponent. Non-finite doubles have no JSON text: nil.
    public static func number(_ d: Double) -> JSON? {
        guard d.isFinite else { return nil }
        return .number(d.description)
    }

    /// A number from an integer.
    public static func integer<I: BinaryInteger>(_ i: I) -> JSON { .number(String(i)) }

    /// Exact equality: strings by scalars, numbers by text, members in order.
    public static func == (a: JSON, b: JSON) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case let (.bool(x), .bool(y)): return x == y
        case let (.number(x), .number(y)): return x == y
        case let (.string(x), .string(y)): return x.utf8.elementsEqual(y.utf8)
        case let (.array(x), .array(y)): return x == y
        case let (.object(x), .object(y)): return x == y
        default: return false
        }
    }

    /// The members when this is an object.
    public var members: [Member]? { if case let .object(m) = self { return m }; return nil }

    /// A short name of the value's kind for messages.
    public var kindName: String {
        switch self {
        case .null: return "null"
        case .bool: return "boolean"
        case .number: return "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }
}

// MARK: - Writing

extension JSON {
    /// How ``JSON/text(style:)`` lays out the text.
    public enum Style: Sendable {
        /// Two-space indentation, `"key" : value`, one member or item per line.
        case pretty
        /// No white space at all.
        case compact
    }

    /// The JSON text, with a trailing newline.
    public func text(style: Style = .pretty) -> String {
        var out = ""
        write(into: &out, style: style, indent: 0)
        out += "\n"
        return out
    }

    private func write(into out: inout String, style: Style, indent: Int) {
        switch self {
        case .null: out += "null"
        case let .bool(b): out += b ? "true" : "false"
        case let .number(n): out += n
        case let .string(s): JSON.writeString(s, into: &out)
        case let .array(items):
            if items.isEmpty { out += "[]"; return }
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                if style == .pretty { out += "\n" + String(repeating: "  ", count: indent + 1) }
                item.write(into: &out, style: style, indent: indent + 1)
            }
            if style == .pretty { out += "\n" + String(repeating: "  ", count: indent) }
            out += "]"
        case let .object(members):
            if members.isEmpty { out += "{}"; return }
            out += "{"
            for (i, member) in members.enumerated() {
                if i > 0 { out += "," }
                if style == .pretty { out += "\n" + String(repeating: "  ", count: indent + 1) }
                JSON.writeString(member.key, into: &out)
                out += style == .pretty ? " : " : ":"
                member.value.write(into: &out, style: style, indent: indent + 1)
            }
            if style == .pretty { out += "\n" + String(repeating: "  ", count: indent) }
            out += "}"
        }
    }

    /// Appends `s` as a JSON string literal (only `"`, `\` and control characters are escaped).
    public static func writeString(_ s: String, into out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }
}
