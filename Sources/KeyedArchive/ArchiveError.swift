public import PlistCore

/// Why bytes are not a usable NSKeyedArchiver archive: what, and where in the object graph.
///
/// `path` reads like `$objects[12].lastTime` or `$top.root`, so a user can find the spot with
/// `ycft dump --objects`.
///
/// ```swift
/// let error = ArchiveError.missing(at: .key("$objects"))
/// print(error)         // $objects: missing $objects
/// print(error.path!)   // $objects
/// ```
public enum ArchiveError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The bytes are not a readable property list.
    case plist(PlistError)
    /// A key NSKeyedArchiver always writes is absent: `$archiver`, `$version`, `$top`,
    /// `$objects`, or `$top.root`.
    case missing(at: ObjectPath)
    /// `$archiver` names another archiver than `NSKeyedArchiver` (`found`, as written).
    case wrongArchiver(found: String)
    /// `$version` is another number than 100000 (`found`, as written).
    case wrongVersion(found: String)
    /// `$objects[0]` is not the string `$null`.
    case missingNull
    /// A value has another property-list type than the archive needs there.
    case unexpected(expected: PlistKind, found: PlistKind, at: ObjectPath)

    /// `path: message`.
    public var description: String { path.map { "\($0): \(reason)" } ?? reason }

    /// What is wrong, without where (`path` says where).
    package var reason: String {
        switch self {
        case let .plist(error): return error.description
        case let .missing(at): return "missing \(at)"
        case let .wrongArchiver(found): return "is \(quoted(found)), expected \(quoted(KeyedArchive.archiverName))"
        case let .wrongVersion(found): return "is \(found), expected \(KeyedArchive.archiverVersion)"
        case .missingNull: return "$objects[0] must be \"$null\""
        case let .unexpected(.dictionary, found, .topLevel):
            return "the top level is \(found.typeName), not an archive dictionary"
        case let .unexpected(expected, found, _): return "expected \(expected.typeName), found \(found.typeName)"
        }
    }

    /// The object path the error points at, when it has one.
    public var path: ObjectPath? {
        switch self {
        case .plist: return nil
        case let .missing(at), let .unexpected(_, _, at): return at
        case .wrongArchiver: return .key("$archiver")
        case .wrongVersion: return .key("$version")
        case .missingNull: return ObjectPath.key("$objects").index(0)
        }
    }
}
