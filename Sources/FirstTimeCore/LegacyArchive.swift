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
    package static func encode(_ records: FirstTimeRecords) -> PlistValue {
        var builder = KeyedArchiveBuilder()
        let root = builder.reserve()
        let groupKeyUID = builder.append(.string(groupKey))
        let group = builder.reserve()
        let keyUIDs = records.entries.map { builder.append(.string($0.key)) }
        var versionUIDsByBytes: [[UInt8]: UInt64] = [:]
        var recordUIDs: [UInt64] = []
        for (_, record) in records {
            let uid = builder.reserve()
            recordUIDs.append(uid)
            var versionUID: UInt64 = 0
            if let version = record.lastVersion {
                let bytes = Array(version.utf8)
                if let shared = versionUIDsByBytes[bytes] {
                    versionUID = shared
                } else {
                    versionUID = builder.append(.string(version))
                    versionUIDsByBytes[bytes] = versionUID
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
        let dictionaryClassUID = builder.classUID(mutableDictionaryClass, chain: mutableDictionaryChain)
        builder.fill(group, with: .dictionary(PlistDictionary([
            ("NS.keys", .array(keyUIDs.map { .uid($0) })),
            ("NS.objects", .array(recordUIDs.map { .uid($0) })),
            ("$class", .uid(dictionaryClassUID)),
        ])))
        builder.fill(root, with: .dictionary(PlistDictionary([
            ("NS.keys", .array([.uid(groupKeyUID)])),
            ("NS.objects", .array([.uid(group)])),
            ("$class", .uid(dictionaryClassUID)),
        ])))
        return builder.archive(root: root)
    }

    /// Encodes records to archive bytes.
    /// - Throws: ``FirstTimeError/plist(_:)`` when a key or version holds NUL (libplist stores
    ///   C strings) or, for XML, a character XML 1.0 cannot hold.
    public static func encode(_ records: FirstTimeRecords, format: PlistFormat) throws(FirstTimeError) -> [UInt8] {
        do { return try PropertyList.write(encode(records), format: format) } catch { throw .plist(error) }
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
