/// Why property-list bytes could not be read or written.
///
/// Every case says what is wrong and where (a byte offset for binary input, a path for values),
/// so a message can be shown to a user as it is.
public enum PlistError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The input is empty.
    case empty
    /// The input is larger than ``PlistLimits/maxInputSize``.
    case inputTooLarge(size: Int, limit: Int)
    /// The bytes are neither a binary (`bplist00`) nor an XML property list.
    case unknownFormat
    /// A binary property list breaks the format; `offset` is where (a byte offset into the input).
    case malformedBinary(String, offset: Int)
    /// An XML property list is not well-formed or is not a plist; `line` is 1-based when known.
    case malformedXML(String, line: Int?)
    /// Nesting deeper than ``PlistLimits/maxDepth``.
    case tooDeep(limit: Int)
    /// Shared references would expand to more nodes than the budget allows (a "reference bomb");
    /// `expanded` is the count where reading stopped, just over `limit`, not the total.
    case tooManyNodes(expanded: UInt64, limit: Int)
    /// Shared references would copy more string and data bytes than ``PlistLimits/maxExpandedBytes``.
    case tooManyBytes(expanded: UInt64, limit: Int)
    /// A string that libplist would silently change (embedded NUL, lone surrogate, invalid UTF-8).
    case unrepresentableString(String, at: String)
    /// A dictionary holds the same key twice.
    case duplicateKey(String, at: String)
    /// libplist rejected input that passed ycft's own checks.
    case libplistRejected(format: PlistFormat)
    /// libplist failed to serialize a value.
    case serializationFailed(format: PlistFormat)
    /// A value cannot be written in the requested format (for example NUL inside a string).
    case unwritable(String, at: String)

    /// A one-line, human-readable account of the problem.
    public var description: String {
        switch self {
        case .empty:
            return "empty input: not a property list"
        case let .inputTooLarge(size, limit):
            return "input is \(size) bytes, over the limit of \(limit) bytes"
        case .unknownFormat:
            return "not a property list (neither binary 'bplist00' nor XML)"
        case let .malformedBinary(why, offset):
            return "malformed binary plist: \(why) (at byte \(offset))"
        case let .malformedXML(why, line):
            if let line { return "malformed XML plist: \(why) (at line \(line))" }
            return "malformed XML plist: \(why)"
        case let .tooDeep(limit):
            return "nesting is deeper than the limit of \(limit) levels"
        case let .tooManyNodes(_, limit):
            // Counting stops at the first node over the limit: the total is not known.
            return "the values expand to more than \(limit) nodes, the limit for this input"
        case let .tooManyBytes(expanded, limit):
            return "shared references copy strings and data to \(expanded) bytes, over the limit of \(limit)"
        case let .unrepresentableString(why, at):
            return "string \(why) (at \(at)): libplist would change it silently"
        case let .duplicateKey(key, at):
            return "duplicate dictionary key \(quoted(key)) (at \(at))"
        case let .libplistRejected(format):
            return "libplist could not parse this \(format) property list"
        case let .serializationFailed(format):
            return "libplist could not write a \(format) property list"
        case let .unwritable(why, at):
            return "cannot write value: \(why) (at \(at))"
        }
    }
}

/// The two on-disk forms of a property list.
public enum PlistFormat: String, Sendable, Equatable, CaseIterable, CustomStringConvertible {
    /// Apple's binary form, starting with `bplist00`.
    case binary
    /// Apple's XML form.
    case xml

    /// `binary` or `xml`.
    public var description: String { rawValue }
}

/// Quotes untrusted text for a message: ``UntrustedText/quoted(_:)``.
@usableFromInline package func quoted(_ s: String) -> String { UntrustedText.quoted(s) }
