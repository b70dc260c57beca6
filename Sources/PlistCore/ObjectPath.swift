/// Where in a file something is, as a structured value: an archive object and its coder keys
/// (`$objects[5].lastTime`), an envelope key (`$top.root`, `$objects[0]`), a defaults key and
/// what lies below it (`YCFirstTime.records.records.k`), a value in a property list
/// (`a.b[3]`), a chain of binary property-list objects (`object 0 > object 2`), an XML line
/// (`line 2`), or the whole file.
///
/// Errors and findings carry one, so a program can tell where by comparing it with a path it
/// builds, without parsing text; its ``description`` is the form messages print.
///
/// ```swift
/// let path = ObjectPath.object(5).key("lastTime")
/// path.description                                      // "$objects[5].lastTime"
/// path == ObjectPath.object(5).key("lastTime")          // true
/// ```
public struct ObjectPath: Sendable, Hashable, CustomStringConvertible {
    /// One step of a path.
    package enum Component: Sendable, Hashable {
        /// The top-level value of a file that should have been an archive dictionary.
        case topLevel
        /// An object of an archive's `$objects` table, by UID.
        case object(UInt64)
        /// A dictionary key, coder key, envelope key or defaults key.
        case key(String)
        /// An array element.
        case index(Int)
        /// A JSON object member (printed quoted, `["k"]`, since block keys may hold dots).
        case member(String)
        /// An object of a binary property list, by its index in the offset table (printed
        /// `object 2`; a chain from the top object `object 0 > object 2`).
        case binaryObject(Int)
        /// A line of an XML property list, 1-based (printed `line 2`).
        case line(Int)
    }

    /// The steps, outermost first; empty for the whole file.
    package var components: [Component]

    /// A path of these steps.
    package init(_ components: [Component]) { self.components = components }

    /// The whole input (printed `file`).
    public static let file = ObjectPath([])
    /// The top-level value (printed `top level`).
    public static let topLevel = ObjectPath([.topLevel])
    /// `$objects[uid]`.
    public static func object(_ uid: UInt64) -> ObjectPath { ObjectPath([.object(uid)]) }
    /// A key at the top: an envelope key (`$archiver`) or a defaults key (`interval.k`).
    public static func key(_ name: String) -> ObjectPath { ObjectPath([.key(name)]) }

    /// This path, then a key.
    public func key(_ name: String) -> ObjectPath { ObjectPath(components + [.key(name)]) }
    /// This path, then an array element.
    public func index(_ i: Int) -> ObjectPath { ObjectPath(components + [.index(i)]) }
    /// This path, then a JSON member.
    public func member(_ name: String) -> ObjectPath { ObjectPath(components + [.member(name)]) }

    /// Whether this is the whole file.
    public var isFile: Bool { components.isEmpty }

    /// `$objects[5].lastTime`, `$top.root`, `records["k"].lastTime`, `object 0 > object 2`,
    /// `line 2`, `top level`, or `file`;
    /// keys and members through ``UntrustedText`` (a key's control characters escaped).
    public var description: String {
        guard !components.isEmpty else { return "file" }
        var out = ""
        for (i, component) in components.enumerated() {
            switch component {
            case .topLevel: out += i == 0 ? "top level" : ".top level"
            case let .object(uid): out += (i == 0 ? "" : ".") + "$objects[\(uid)]"
            // Keys come from the file: escaped, so a key cannot act on the terminal (`interval.a\u{1B}]0;`).
            case let .key(name): out += (i == 0 ? "" : ".") + UntrustedText.escaped(name)
            case let .index(n): out += "[\(n)]"
            case let .member(name): out += "[\(UntrustedText.quoted(name))]"
            case let .binaryObject(index): out += (i == 0 ? "" : " > ") + "object \(index)"
            case let .line(n): out += (i == 0 ? "" : ", ") + "line \(n)"
            }
        }
        return out
    }
}
