package import KeyedArchive
public import PlistCore

/// The legacy YCFirstTime archive: what `UserDefaults` holds under `YCFirstTime`.
///
/// Layout: `NSMutableDictionary { "sharedGroup": NSMutableDictionary { blockKey:
/// YCFirstTimeObject { lastVersion: NSString?, lastTime: NSDate? } } }`, archived by
/// `NSKeyedArchiver`.
public enum LegacyArchive {
    /// The `UserDefaults` key YCFirstTime stores its archive under.
    public static let defaultsKey = "YCFirstTime"
    /// The root dictionary's only key.
    public static let groupKey = "sharedGroup"
    /// The record class name (`@objc(YCFirstTimeObject)`).
    public static let recordClass = "YCFirstTimeObject"
    /// The record class chain Apple writes.
    public static let recordChain = ["YCFirstTimeObject", "NSObject"]
    /// The dictionary class the contract requires for the root and the group.
    public static let mutableDictionaryClass = "NSMutableDictionary"
    /// Its chain.
    public static let mutableDictionaryChain = ["NSMutableDictionary", "NSDictionary", "NSObject"]
    /// The date class and chain.
    public static let dateClass = "NSDate"
    /// The date class chain Apple writes.
    public static let dateChain = ["NSDate", "NSObject"]
    /// Coder keys of `YCFirstTimeObject`.
    public static let versionKey = versionKeyLiteral.description
    /// Coder key of the time.
    public static let timeKey = timeKeyLiteral.description
    /// The coder keys as literals, for lookups that build no string (the walker's fast path).
    @usableFromInline package static let versionKeyLiteral: StaticString = "lastVersion"
    @usableFromInline package static let timeKeyLiteral: StaticString = "lastTime"

    // MARK: Encoding

    /// Encodes records to the archive value, in Apple's layout.
    ///
    /// Objects are numbered in pre-order: `$null`, root, `"sharedGroup"`, group, every block key
    /// (in ``FirstTimeRecords`` order), then each record followed by its version string (equal
    /// versions share one object) and its `NSDate`. Class descriptors follow their first
    /// instance's children and are reused. Root and group are `NSMutableDictionary`.
    ///
    /// With `root`, the root's other entries it holds are kept beside the group (each key and
    /// value copied exactly, the group in its place or, where there was none, after them), as
    /// YCFirstTime's save archives its whole root again.
    package static func encode(_ records: FirstTimeRecords, keeping root: RootEntries? = nil) -> PlistValue {
        var builder = KeyedArchiveBuilder()
        let rootUID = builder.reserve()
        // A reference to the root from within an entry is to the new root. No root entries: the group alone.
        var copied: [UInt64: UInt64] = root.map { [$0.root: rootUID] } ?? [:]
        let (entries, objects, hasGroup) = (root?.entries ?? [], root?.objects ?? [], root?.hasGroup == true)
        var keys: [UInt64] = [], values: [UInt64] = []
        for entry in entries {
            keys.append(entry.isGroup ? builder.append(.string(groupKey)) : builder.copy(entry.key, from: objects, copied: &copied))
        }
        if !hasGroup { keys.append(builder.append(.string(groupKey))) }
        for entry in entries {
            values.append(entry.isGroup ? encodeGroup(records, into: &builder) : builder.copy(entry.value, from: objects, copied: &copied))
        }
        if !hasGroup { values.append(encodeGroup(records, into: &builder)) }
        builder.fill(rootUID, with: dictionaryObject(keys: keys, values: values, into: &builder))
        return builder.archive(root: rootUID)
    }

    /// An `NSMutableDictionary` object of these keys and values.
    private static func dictionaryObject(keys: [UInt64], values: [UInt64], into builder: inout KeyedArchiveBuilder) -> PlistValue {
        .dictionary(PlistDictionary([
            ("NS.keys", .array(keys.map { .uid($0) })),
            ("NS.objects", .array(values.map { .uid($0) })),
            ("$class", .uid(builder.classUID(mutableDictionaryClass, chain: mutableDictionaryChain))),
        ]))
    }

    /// The group of `records` and everything in it, in pre-order; its UID.
    private static func encodeGroup(_ records: FirstTimeRecords, into builder: inout KeyedArchiveBuilder) -> UInt64 {
        let group = builder.reserve()
        let keyUIDs = records.entries.map { builder.append(.string($0.key)) }
        var versionUIDs: [ExactKey: UInt64] = [:]
        var recordUIDs: [UInt64] = []
        for (_, record) in records {
            let uid = builder.reserve()
            recordUIDs.append(uid)
            var versionUID: UInt64 = 0
            if let version = record.lastVersion {
                if let shared = versionUIDs[ExactKey(version)] {
                    versionUID = shared
                } else {
                    versionUID = builder.append(.string(version))
                    versionUIDs[ExactKey(version)] = versionUID
                }
            }
            var timeUID: UInt64 = 0
            if let time = record.lastTime {
                timeUID = builder.reserve()
                let dateClassUID = builder.classUID(dateClass, chain: dateChain)
                builder.fill(timeUID, with: .dictionary(PlistDictionary([
                    ("NS.time", .real(time)),
                    ("$class", .uid(dateClassUID)),
                ])))
            }
            let recordClassUID = builder.classUID(recordClass, chain: recordChain)
            builder.fill(uid, with: .dictionary(PlistDictionary([
                (versionKey, .uid(versionUID)),
                (timeKey, .uid(timeUID)),
                ("$class", .uid(recordClassUID)),
            ])))
        }
        builder.fill(group, with: dictionaryObject(keys: keyUIDs, values: recordUIDs, into: &builder))
        return group
    }

    /// Encodes records to archive bytes.
    /// - Throws: ``FirstTimeError/plist(_:)`` when a key or version holds NUL (libplist stores
    ///   C strings) or, for XML, a character XML 1.0 cannot hold.
    public static func encode(_ records: FirstTimeRecords, format: PlistFormat) throws(FirstTimeError) -> [UInt8] {
        try encode(records, keeping: nil, format: format)
    }

    /// Encodes records to archive bytes, with the root's other entries (``encode(_:keeping:)``).
    /// - Throws: as ``encode(_:format:)``.
    package static func encode(_ records: FirstTimeRecords, keeping root: RootEntries?, format: PlistFormat) throws(FirstTimeError) -> [UInt8] {
        do { return try PropertyList.write(encode(records, keeping: root), format: format) } catch { throw .plist(error) }
    }
}

// MARK: The root's other entries

extension LegacyArchive {
    /// The entries of an archive's root besides `sharedGroup` (rules `root-extra-key` and
    /// `root-foreign`), as the archive holds them: YCFirstTime reads the root as a whole and its
    /// save archives the whole root again, so a write keeps them (``encode(_:keeping:)``).
    package struct RootEntries: Sendable {
        /// The archive's objects, which the entries reference.
        let objects: [PlistValue]
        /// The root's UID.
        let root: UInt64
        /// The root's entries in order, as the UIDs of their key and value; `isGroup` marks
        /// `sharedGroup`'s.
        let entries: [(key: UInt64, value: UInt64, isGroup: Bool)]
        /// Whether one of them is the group.
        var hasGroup: Bool { entries.contains(where: \.isGroup) }

        /// The root's entries besides the group, from `archive`; nil when it has none (or no
        /// dictionary root, which the contract walker refuses first).
        /// - Throws: ``FirstTimeError/contract(_:)`` (`uid-dangling`) when an entry reaches a UID
        ///   outside `$objects`: it could not be copied as it is.
        package init?(_ archive: KeyedArchive) throws(FirstTimeError) {
            let objects = archive.objects
            func object(_ uid: UInt64?) -> PlistValue? { uid.flatMap { $0 < UInt64(objects.count) ? objects[Int($0)] : nil } }
            guard let root = archive.top["root"]?.uidValue, let dictionary = object(root)?.dictionaryValue,
                  let keys = dictionary["NS.keys"]?.arrayValue?.compactMap(\.uidValue),
                  let values = dictionary["NS.objects"]?.arrayValue?.compactMap(\.uidValue), keys.count == values.count
            else { return nil }
            var entries: [(key: UInt64, value: UInt64, isGroup: Bool)] = []
            var grouped = false
            for (key, value) in zip(keys, values) {
                // A key inline, or an NSString/NSMutableString object: the first "sharedGroup" is the group.
                let name = object(key).flatMap { $0.stringValue ?? $0.dictionaryValue?["NS.string"]?.stringValue }
                let isGroup = !grouped && name.map { exactlyEqual($0, groupKey) } == true
                grouped = grouped || isGroup
                entries.append((key, value, isGroup))
            }
            guard entries.contains(where: { !$0.isGroup }) else { return nil }
            // Every UID the other entries reach must be an object: they are copied as they are.
            var pending = entries.filter { !$0.isGroup }.flatMap { [$0.key, $0.value] }
            var seen = Set<UInt64>()
            while let uid = pending.popLast() {
                guard uid != 0, seen.insert(uid).inserted else { continue }
                guard let value = object(uid) else {
                    throw .contract(ContractFinding(.uidDangling, at: .object(root), "UID \(uid) is outside $objects (\(objects.count) objects)"))
                }
                value.forEachUID { pending.append($0) }
            }
            (self.objects, self.root, self.entries) = (objects, root, entries)
        }
    }
}

// MARK: Reading without libplist

extension LegacyArchive {
    /// Decodes a binary archive with ycft's pure-Swift reader: the same guard, the same
    /// `ContractWalker` and so the same records, findings and errors as the libplist path
    /// (`read(_:limits:)` in FirstTimeArchive), for code that cannot link libplist.
    /// - Throws: ``FirstTimeError/archive(_:)`` when the bytes are not a binary plist archive
    ///   (an XML archive included), ``FirstTimeError/contract(_:)`` for the first fatal finding.
    package static func read(binary bytes: [UInt8], limits: PlistLimits = .default) throws(FirstTimeError) -> ArchiveJudgement {
        let value: PlistValue
        do { value = try BinaryPlistReader.read(bytes, limits: limits) } catch { throw .archive(.plist(error)) }
        return try read(plist: value)
    }

    /// Decodes an archive's property-list value (the checked path, whichever reader built it).
    /// - Throws: ``FirstTimeError/archive(_:)`` for the envelope, ``FirstTimeError/contract(_:)``
    ///   for the first fatal finding.
    package static func read(plist value: PlistValue) throws(FirstTimeError) -> ArchiveJudgement {
        let archive: KeyedArchive
        do { archive = try KeyedArchive(plist: value) } catch { throw .archive(error) }
        return try read(archive)
    }

    /// Decodes an archive to records and its non-fatal findings.
    ///
    /// Accepts what real archives contain: root and group as `NSMutableDictionary` or
    /// `NSDictionary`; strings inline or as `NSString`/`NSMutableString` (`NS.string`); nil
    /// fields as UID 0 or absent; equal strings shared or not; any key order; no `sharedGroup`
    /// (zero records); unrelated root keys (YCFirstTime's loader ignores them).
    package static func read(_ archive: KeyedArchive) throws(FirstTimeError) -> ArchiveJudgement {
        let judgement = ContractWalker.judge(ResolvedGraph(archive), mode: .decode)
        if let fatal = judgement.fatal { throw .contract(fatal) }
        return judgement
    }
}
