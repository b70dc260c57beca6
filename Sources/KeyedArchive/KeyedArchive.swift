public import Plist

/// An NSKeyedArchiver archive: the envelope and the flat `$objects` table.
///
/// This type knows the archiver's generic layout only (UIDs, class descriptors, the common
/// Foundation encodings); it knows nothing of any application's classes.
public struct KeyedArchive: Sendable {
    /// The archiver name NSKeyedArchiver writes.
    public static let archiverName = "NSKeyedArchiver"
    /// The archive version NSKeyedArchiver writes.
    public static let archiverVersion: Int64 = 100_000

    /// `$archiver`.
    public let archiver: String
    /// `$version`.
    public let version: PlistInteger
    /// `$top`: the named roots (usually just `root`), each a UID.
    public let top: PlistDictionary
    /// `$objects`, indexed by UID; `objects[0]` is `"$null"`.
    public let objects: [PlistValue]
    /// Class descriptors parsed once, by UID (every object with a `$classname`).
    private let classes: [UInt64: Result<ArchivedClass, ArchiveError>]

    /// Reads an archive from property-list bytes.
    /// - Throws: ``ArchiveError/plist(_:)`` when the bytes are not a plist, otherwise the first
    ///   envelope problem.
    public init(bytes: [UInt8], limits: PlistLimits = .default) throws(ArchiveError) {
        let value: PlistValue
        do { value = try PropertyList.read(bytes, limits: limits).value } catch { throw .plist(error) }
        try self.init(plist: value)
    }

    /// Interprets a property-list value as an archive, checking its envelope: `$archiver` is
    /// `NSKeyedArchiver`, `$version` is 100000, `$top` is a dictionary of UIDs, `$objects` is an
    /// array whose first element is `"$null"`.
    public init(plist: PlistValue) throws(ArchiveError) {
        guard case let .dictionary(envelope) = plist else {
            throw .envelope("the top level is \(plist.typeName), not an archive dictionary", at: "top level")
        }
        guard let archiverValue = envelope["$archiver"] else { throw .envelope("missing $archiver", at: "$archiver") }
        guard case let .string(archiver) = archiverValue else {
            throw .unexpected(expected: "string", found: archiverValue.typeName, at: "$archiver")
        }
        guard archiver == Self.archiverName else {
            throw .envelope("is \(quoted(archiver)), expected \(quoted(Self.archiverName))", at: "$archiver")
        }
        guard let versionValue = envelope["$version"] else { throw .envelope("missing $version", at: "$version") }
        guard case let .integer(version) = versionValue else {
            throw .unexpected(expected: "integer", found: versionValue.typeName, at: "$version")
        }
        guard version == .signed(Self.archiverVersion) else {
            throw .envelope("is \(version), expected \(Self.archiverVersion)", at: "$version")
        }
        guard let topValue = envelope["$top"] else { throw .envelope("missing $top", at: "$top") }
        guard case let .dictionary(top) = topValue else {
            throw .unexpected(expected: "dictionary", found: topValue.typeName, at: "$top")
        }
        guard let objectsValue = envelope["$objects"] else { throw .envelope("missing $objects", at: "$objects") }
        guard case let .array(objects) = objectsValue else {
            throw .unexpected(expected: "array", found: objectsValue.typeName, at: "$objects")
        }
        guard let first = objects.first, first == .string("$null") else {
            throw .envelope("$objects[0] must be \"$null\"", at: "$objects[0]")
        }
        for (key, value) in top {
            guard case .uid = value else {
                throw .unexpected(expected: "UID", found: value.typeName, at: "$top.\(key)")
            }
        }
        self.archiver = archiver
        self.version = version
        self.top = top
        self.objects = objects
        var classes: [UInt64: Result<ArchivedClass, ArchiveError>] = [:]
        for (index, object) in objects.enumerated() {
            if case let .dictionary(d) = object, d["$classname"] != nil {
                let uid = UInt64(index)
                classes[uid] = Result { () throws(ArchiveError) in try Self.parseDescriptor(d, uid: uid) }
            }
        }
        self.classes = classes
    }

    /// The UID stored under `$top[name]`.
    /// - Throws: when `name` is missing.
    public func topUID(_ name: String = "root") throws(ArchiveError) -> UInt64 {
        guard let value = top[name] else { throw .envelope("missing $top.\(name)", at: "$top.\(name)") }
        guard case let .uid(uid) = value else { throw .unexpected(expected: "UID", found: value.typeName, at: "$top.\(name)") }
        return uid
    }

    /// The object a UID names.
    /// - Parameter at: where the UID was found, for the error message.
    /// - Throws: ``ArchiveError/danglingUID(_:objectCount:at:)``.
    public func object(_ uid: UInt64, at path: @autoclosure () -> String) throws(ArchiveError) -> PlistValue {
        guard uid < UInt64(objects.count) else {
            throw .danglingUID(uid, objectCount: objects.count, at: path())
        }
        return objects[Int(uid)]
    }

    /// Follows a field value that must be a UID; nil for UID 0 (`$null`).
    /// - Throws: when the value is not a UID or the UID dangles.
    public func reference(_ value: PlistValue, at path: @autoclosure () -> String) throws(ArchiveError) -> UInt64? {
        guard case let .uid(uid) = value else { throw .unexpected(expected: "UID", found: value.typeName, at: path()) }
        guard uid < UInt64(objects.count) else { throw .danglingUID(uid, objectCount: objects.count, at: path()) }
        return uid == 0 ? nil : uid
    }

    /// The object at `uid` as a class instance: its coder keys and its class descriptor.
    /// - Throws: when it is not a dictionary with a `$class` UID naming a class descriptor.
    public func instance(_ uid: UInt64) throws(ArchiveError) -> ArchivedInstance {
        let value = try object(uid, at: "$objects[\(uid)]")
        guard case let .dictionary(fields) = value, let classRef = fields["$class"] else {
            throw .unexpected(expected: "an archived object", found: describe(value), at: "$objects[\(uid)]")
        }
        guard case let .uid(classUID) = classRef else {
            throw .unexpected(expected: "UID", found: classRef.typeName, at: "$objects[\(uid)].$class")
        }
        let archivedClass = try classDescriptor(classUID, at: "$objects[\(uid)].$class")
        return ArchivedInstance(uid: uid, archivedClass: archivedClass, fields: fields)
    }

    /// The class descriptor `{$classname, $classes}` at `uid`.
    public func classDescriptor(_ uid: UInt64, at path: @autoclosure () -> String) throws(ArchiveError) -> ArchivedClass {
        if let cached = classes[uid] { return try cached.get() }
        let value = try object(uid, at: path())
        guard case let .dictionary(descriptor) = value else {
            throw .unexpected(expected: "a class descriptor", found: describe(value), at: "$objects[\(uid)]")
        }
        return try Self.parseDescriptor(descriptor, uid: uid)
    }

    private static func parseDescriptor(_ descriptor: PlistDictionary, uid: UInt64) throws(ArchiveError) -> ArchivedClass {
        let here = "$objects[\(uid)]"
        guard case let .string(name)? = descriptor["$classname"] else {
            throw .malformed("class descriptor has no $classname string", at: here)
        }
        var chain: [String]?
        if let classes = descriptor["$classes"] {
            guard case let .array(items) = classes else {
                throw .unexpected(expected: "array", found: classes.typeName, at: "\(here).$classes")
            }
            var names: [String] = []
            for (i, item) in items.enumerated() {
                guard case let .string(s) = item else {
                    throw .unexpected(expected: "string", found: item.typeName, at: "\(here).$classes[\(i)]")
                }
                names.append(s)
            }
            chain = names
        }
        return ArchivedClass(name: name, chain: chain, uid: uid)
    }

    /// A short description of an object for messages: `NSString` for inline strings, `NSNumber`
    /// for numbers, a class name for instances, `nil` for `$null`.
    public func describe(_ value: PlistValue) -> String {
        switch value {
        case .string("$null"): return "nil"
        case .string: return "NSString"
        case .integer, .real, .bool: return "NSNumber"
        case .data: return "NSData"
        case .date: return "a plist date"
        case .uid: return "a UID"
        case .array: return "an array"
        case let .dictionary(fields):
            if case let .uid(classUID)? = fields["$class"], classUID < UInt64(objects.count),
               case let .dictionary(descriptor) = objects[Int(classUID)],
               case let .string(name)? = descriptor["$classname"] {
                return UntrustedText.escaped(name)
            }
            if fields["$classname"] != nil { return "a class descriptor" }
            return "a dictionary without $class"
        }
    }

    /// Reads a string object: an inline string, or an `NSString`/`NSMutableString` instance
    /// with `NS.string`. Nil for UID 0.
    public func string(_ uid: UInt64?, at path: @autoclosure () -> String) throws(ArchiveError) -> String? {
        guard let uid else { return nil }
        let value = try object(uid, at: path())
        switch value {
        case .string("$null"):
            return nil
        case let .string(s):
            return s
        case .dictionary:
            let instance = try instance(uid)
            guard ["NSString", "NSMutableString"].contains(instance.archivedClass.name) else {
                throw .unexpected(expected: "NSString", found: instance.archivedClass.name, at: path())
            }
            guard case let .string(s)? = instance.fields["NS.string"] else {
                throw .malformed("\(UntrustedText.escaped(instance.archivedClass.name)) has no NS.string string", at: "$objects[\(uid)]")
            }
            return s
        default:
            throw .unexpected(expected: "NSString", found: describe(value), at: path())
        }
    }

    /// Reads an `NSDictionary`/`NSMutableDictionary` instance's `NS.keys` and `NS.objects` as
    /// pairs of UIDs, in archive order.
    public func dictionaryEntries(_ instance: ArchivedInstance) throws(ArchiveError) -> [(key: UInt64, value: UInt64)] {
        let path = "$objects[\(instance.uid)]"
        func uids(_ name: String) throws(ArchiveError) -> [UInt64] {
            guard let value = instance.fields[name] else { throw .malformed("missing \(name)", at: path) }
            guard case let .array(items) = value else {
                throw .unexpected(expected: "array", found: value.typeName, at: "\(path).\(name)")
            }
            var out: [UInt64] = []
            out.reserveCapacity(items.count)
            for (i, item) in items.enumerated() {
                guard case let .uid(uid) = item else {
                    throw .unexpected(expected: "UID", found: item.typeName, at: "\(path).\(name)[\(i)]")
                }
                guard uid < UInt64(objects.count) else {
                    throw .danglingUID(uid, objectCount: objects.count, at: "\(path).\(name)[\(i)]")
                }
                out.append(uid)
            }
            return out
        }
        let keys = try uids("NS.keys")
        let values = try uids("NS.objects")
        guard keys.count == values.count else {
            throw .malformed("NS.keys has \(keys.count) entries but NS.objects has \(values.count)", at: path)
        }
        return Array(zip(keys, values)).map { (key: $0.0, value: $0.1) }
    }
}

/// A class descriptor: `$classname` and, when present, the `$classes` chain.
public struct ArchivedClass: Sendable, Equatable {
    /// `$classname`.
    public let name: String
    /// `$classes`, most specific first; nil when the descriptor has none.
    public let chain: [String]?
    /// Where the descriptor sits in `$objects`.
    public let uid: UInt64
}

/// An archived object: its coder keys (including `$class`) and its class.
public struct ArchivedInstance: Sendable {
    /// The object's UID.
    public let uid: UInt64
    /// Its class descriptor.
    public let archivedClass: ArchivedClass
    /// Its coder keys and values, in archive order, `$class` included.
    public let fields: PlistDictionary
}
