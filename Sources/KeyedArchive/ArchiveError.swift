public import PlistCore

/// Why bytes are not a usable NSKeyedArchiver archive: what, and where in the object graph.
///
/// `path` reads like `$objects[12].lastTime` or `$top.root`, so a user can find the spot with
/// `ycft dump --objects`.
public enum ArchiveError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The bytes are not a readable property list.
    case plist(PlistError)
    /// The property list is not an NSKeyedArchiver archive (no `$objects`, wrong envelope).
    case envelope(String, at: ObjectPath)
    /// A UID points past the end of `$objects`.
    case danglingUID(UInt64, objectCount: Int, at: ObjectPath)
    /// A value has the wrong type or class.
    case unexpected(expected: String, found: String, at: ObjectPath)
    /// A structural problem inside an object (for example `NS.keys` and `NS.objects` differ in length).
    case malformed(String, at: ObjectPath)

    /// `path: message`.
    public var description: String {
        switch self {
        case let .plist(error): return error.description
        case let .envelope(why, at): return "\(at): \(why)"
        case let .danglingUID(uid, count, at): return "\(at): UID \(uid) is outside $objects (\(count) objects)"
        case let .unexpected(expected, found, at): return "\(at): expected \(expected), found \(UntrustedText.escaped(found))"
        case let .malformed(why, at): return "\(at): \(why)"
        }
    }

    /// The object path the error points at, when it has one.
    public var path: ObjectPath? {
        switch self {
        case .plist: return nil
        case let .envelope(_, at), let .danglingUID(_, _, at), let .unexpected(_, _, at), let .malformed(_, at): return at
        }
    }
}
