package import PlistCore

/// An NSKeyedArchiver archive: the envelope and the flat `$objects` table.
///
/// This type knows the archiver's generic layout only (UIDs, class descriptors, the common
/// Foundation encodings); it knows nothing of any application's classes.
package struct KeyedArchive: Sendable {
    /// The archiver name NSKeyedArchiver writes.
    package static let archiverName = "NSKeyedArchiver"
    /// The archive version NSKeyedArchiver writes.
    package static let archiverVersion: Int64 = 100_000
    /// The envelope's keys, in the order NSKeyedArchiver writes them.
    package static let envelopeKeys = ["$archiver", "$version", "$top", "$objects"]

    /// The one answer to "is this dictionary an archive, or something else (a defaults
    /// domain)?": an archive, possibly a broken one, when it carries any of the envelope keys
    /// (``envelopeKeys``). A broken one (`{"$objects": [...]}` alone) is still an archive, judged
    /// by what its envelope lacks, never read as a defaults domain.
    /// - Parameter dictionary: a property list's top-level dictionary.
    package static func isEnvelope(_ dictionary: PlistDictionary) -> Bool {
        // One pass over the keys: a defaults domain may hold many.
        dictionary.contains { entry in envelopeKeys.contains { exactlyEqual($0, entry.key) } }
    }

    /// `$top`: the named roots (usually just `root`), each a UID.
    package let top: PlistDictionary
    /// `$objects`, indexed by UID; `objects[0]` is `"$null"`.
    package let objects: [PlistValue]
    /// The envelope's keys other than `$archiver`, `$version`, `$top` and `$objects`, in order
    /// (NSKeyedUnarchiver ignores them).
    package let otherEnvelopeKeys: [String]

    /// Interprets a property-list value as an archive, checking its envelope: `$archiver` is
    /// `NSKeyedArchiver`, `$version` is 100000, `$top` is a dictionary of UIDs, `$objects` is an
    /// array whose first element is `"$null"`.
    package init(plist: PlistValue) throws(ArchiveError) {
        guard case let .dictionary(envelope) = plist else {
            throw .unexpected(expected: .dictionary, found: plist.kind, at: .topLevel)
        }
        /// The envelope's `key` as `kind` (`extract` says whether it is one).
        func member<T>(_ key: String, _ kind: PlistKind, _ extract: (PlistValue) -> T?) throws(ArchiveError) -> T {
            guard let value = envelope[key] else { throw .missing(at: .key(key)) }
            guard let member = extract(value) else { throw .unexpected(expected: kind, found: value.kind, at: .key(key)) }
            return member
        }
        let archiver = try member("$archiver", .string, \.stringValue)
        guard archiver == Self.archiverName else { throw .wrongArchiver(found: archiver) }
        let version = try member("$version", .integer) { if case let .integer(v) = $0 { return v }; return nil }
        // By value, as NSKeyedUnarchiver reads it: a 16-byte 100000 is 100000.
        guard version.int64 == Self.archiverVersion else { throw .wrongVersion(found: "\(version)") }
        let top = try member("$top", .dictionary, \.dictionaryValue)
        let objects = try member("$objects", .array, \.arrayValue)
        guard objects.first == .string("$null") else { throw .missingNull }
        if let (key, value) = top.first(where: { $0.value.uidValue == nil }) {
            throw .unexpected(expected: .uid, found: value.kind, at: .key("$top").key(key))
        }
        self.top = top
        self.objects = objects
        otherEnvelopeKeys = envelope.map(\.key).filter { key in
            !Self.envelopeKeys.contains { exactlyEqual($0, key) }
        }
    }
}
