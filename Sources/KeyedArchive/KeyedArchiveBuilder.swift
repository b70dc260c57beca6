package import PlistCore

/// Builds an archive the way Apple's NSKeyedArchiver lays one out.
///
/// Callers number objects in pre-order: ``reserve()`` an object's UID when it is first
/// referenced, encode its children, then ``fill(_:with:)`` it. Class descriptors are created on
/// first use by ``classUID(_:chain:)`` (so they land after the first instance's children) and
/// reused after that, by every instance and every equal descriptor ``copy(_:from:copied:)``
/// brings from another archive.
package struct KeyedArchiveBuilder: Sendable {
    private var objects: [PlistValue] = [.string("$null")]
    /// The descriptor of each class name ``classUID(_:chain:)`` was asked for.
    private var classes: [String: UInt64] = [:]
    /// Every class descriptor here, to share an equal one (few: a linear search).
    private var descriptors: [(value: PlistValue, uid: UInt64)] = []

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
        let uid = descriptorUID(.dictionary(PlistDictionary([
            ("$classname", .string(name)),
            ("$classes", .array(chain.map { .string($0) })),
        ])))
        classes[name] = uid
        return uid
    }

    /// The UID of a class descriptor equal to `descriptor` (bit for bit), appended when there
    /// is none yet.
    private mutating func descriptorUID(_ descriptor: PlistValue) -> UInt64 {
        if let found = descriptors.first(where: { $0.value == descriptor }) { return found.uid }
        let uid = append(descriptor)
        descriptors.append((descriptor, uid))
        return uid
    }

    /// Copies object `uid` of another archive's objects, `source`, and every object it
    /// references, and returns its UID here. Each object is copied once (`copied` maps the
    /// source's UIDs to this builder's: seed it to point a reference at an object of this
    /// archive instead), each value exactly as the source holds it (a real bit for bit, an
    /// integer in its size, a dictionary's keys in their order); UID 0 stays `$null`, and a
    /// class descriptor equal to one here is shared. Iterative: a long chain of references
    /// takes no stack.
    /// - Precondition: every UID reachable from `uid` is below `source.count`.
    package mutating func copy(_ uid: UInt64, from source: [PlistValue], copied: inout [UInt64: UInt64]) -> UInt64 {
        var pending: [(new: UInt64, old: UInt64)] = []
        func assign(_ old: UInt64, _ builder: inout KeyedArchiveBuilder) -> UInt64 {
            if old == 0 { return 0 }
            if let done = copied[old] { return done }
            let value = source[Int(old)]
            var holdsUID = false
            value.forEachUID { _ in holdsUID = true }
            let new: UInt64
            if Self.isClassDescriptor(value) {
                new = builder.descriptorUID(value)
            } else if holdsUID {
                new = builder.reserve()
                pending.append((new, old))
            } else {
                new = builder.append(value)
            }
            copied[old] = new
            return new
        }
        func remap(_ value: PlistValue, _ builder: inout KeyedArchiveBuilder) -> PlistValue {
            switch value {
            case let .uid(old): return .uid(assign(old, &builder))
            case let .array(items): return .array(items.map { remap($0, &builder) })
            case let .dictionary(entries):
                // The class last, as an archiver numbers it: after the instance's children.
                var values = entries.map(\.value)
                for (i, entry) in entries.enumerated() where entry.key != "$class" { values[i] = remap(entry.value, &builder) }
                for (i, entry) in entries.enumerated() where entry.key == "$class" { values[i] = remap(entry.value, &builder) }
                return .dictionary(PlistDictionary(zip(entries, values).map { (key: $0.key, value: $1) }))
            default: return value
            }
        }
        let top = assign(uid, &self)
        while let (new, old) = pending.popLast() { fill(new, with: remap(source[Int(old)], &self)) }
        return top
    }

    /// A class descriptor: `$classname` beside no `$class`.
    private static func isClassDescriptor(_ value: PlistValue) -> Bool {
        guard case let .dictionary(entries) = value else { return false }
        return entries["$classname"] != nil && entries["$class"] == nil
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
