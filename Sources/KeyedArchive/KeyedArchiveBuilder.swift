package import PlistCore

/// Builds an archive the way Apple's NSKeyedArchiver lays one out.
///
/// Callers number objects in pre-order: ``reserve()`` an object's UID when it is first
/// referenced, encode its children, then ``fill(_:with:)`` it. Class descriptors are created on
/// first use by ``classUID(_:chain:)`` (so they land after the first instance's children) and
/// reused after that.
package struct KeyedArchiveBuilder: Sendable {
    private var objects: [PlistValue] = [.string("$null")]
    private var classes: [String: UInt64] = [:]

    /// An empty builder; UID 0 is `$null`.
    package init() {}

    /// Reserves the next UID for an object whose value is filled in later.
    package mutating func reserve() -> UInt64 { append(.string("$null")) }

    package mutating func fill(_ uid: UInt64, with value: PlistValue) {
        objects[Int(uid)] = value
    }

    /// Appends an object that has no children (a string, a number) and returns its UID.
    package mutating func append(_ value: PlistValue) -> UInt64 {
        objects.append(value)
        return UInt64(objects.count - 1)
    }

    /// The UID of the class descriptor for `name`, created with `chain` on first use.
    package mutating func classUID(_ name: String, chain: [String]) -> UInt64 {
        if let uid = classes[name] { return uid }
        let uid = append(.dictionary(PlistDictionary([
            ("$classname", .string(name)),
            ("$classes", .array(chain.map { .string($0) })),
        ])))
        classes[name] = uid
        return uid
    }

    /// The finished archive with `root` as `$top.root`, top-level keys in the order
    /// Apple's archives show (`$version`, `$objects`, `$archiver`, `$top`).
    package func archive(root: UInt64) -> PlistValue {
        .dictionary(PlistDictionary([
            ("$version", .integer(.signed(KeyedArchive.archiverVersion))),
            ("$objects", .array(objects)),
            ("$archiver", .string(KeyedArchive.archiverName)),
            ("$top", .dictionary(PlistDictionary([("root", .uid(root))]))),
        ]))
    }
}
