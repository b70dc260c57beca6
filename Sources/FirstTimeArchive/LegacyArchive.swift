public import KeyedArchive
public import Plist

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
    public static let versionKey = "lastVersion"
    /// Coder key of the time.
    public static let timeKey = "lastTime"

    static let dictionaryClasses: Set<String> = ["NSMutableDictionary", "NSDictionary"]

    // MARK: Decoding

    /// Decodes archive bytes (binary or XML) to records.
    /// - Throws: ``FirstTimeError`` saying what is wrong and where.
    public static func decode(_ bytes: [UInt8], limits: PlistLimits = .default) throws(FirstTimeError) -> FirstTimeRecords {
        if let records = fastDecode(bytes, limits: limits) { return records }
        let archive: KeyedArchive
        do { archive = try KeyedArchive(bytes: bytes, limits: limits) } catch { throw .archive(error) }
        return try decode(archive)
    }

    /// The fast path for a clean binary archive, or nil (then the checked path decides).
    static func fastDecode(_ bytes: [UInt8], limits: PlistLimits) -> FirstTimeRecords? {
        guard PropertyList.detectFormat(bytes) == .binary, let document = try? PlistDocument(bytes, limits: limits) else {
            return nil
        }
        return FastDecoder.records(document)
    }

    /// Decodes an archive to records.
    ///
    /// Accepts what real archives contain: root and group as `NSMutableDictionary` or
    /// `NSDictionary`; strings inline or as `NSString`/`NSMutableString` (`NS.string`); nil
    /// fields as UID 0 or absent; equal strings shared or not; any key order; no `sharedGroup`
    /// (zero records). Non-finite times decode (``ContractChecker`` flags them).
    public static func decode(_ archive: KeyedArchive) throws(FirstTimeError) -> FirstTimeRecords {
        do {
            return try decodeRecords(archive)
        } catch let error as ArchiveError {
            throw .archive(error)
        } catch let error as FirstTimeError {
            throw error
        } catch {
            // decodeRecords throws only the two types above; should that ever change, the
            // error still becomes a message, never a trap.
            throw .contract("unexpected error: \(error)", at: "archive")
        }
    }

    private static func dictionaryInstance(_ archive: KeyedArchive, _ uid: UInt64, role: String) throws -> ArchivedInstance {
        let value = try archive.object(uid, at: "$objects[\(uid)]")
        guard case .dictionary = value, let instance = try? archive.instance(uid),
              dictionaryClasses.contains(instance.archivedClass.name) else {
            throw ArchiveError.unexpected(expected: "NSMutableDictionary (\(role))", found: archive.describe(value),
                                          at: "$objects[\(uid)]")
        }
        return instance
    }

    private static func decodeRecords(_ archive: KeyedArchive) throws -> FirstTimeRecords {
        let rootUID = try archive.topUID("root")
        guard rootUID != 0 else { throw ArchiveError.unexpected(expected: "NSMutableDictionary (root)", found: "nil", at: "$top.root") }
        let root = try dictionaryInstance(archive, rootUID, role: "root")
        var groupUID: UInt64?
        for (i, entry) in try archive.dictionaryEntries(root).enumerated() {
            let keyPath = "$objects[\(root.uid)].NS.keys[\(i)]"
            guard let key = try archive.string(entry.key == 0 ? nil : entry.key, at: keyPath) else {
                throw ArchiveError.unexpected(expected: "NSString", found: "nil", at: keyPath)
            }
            guard exactlyEqual(key, groupKey) else {
                throw FirstTimeError.contract("unexpected root key \(quoted(key)); the root holds only \"sharedGroup\"",
                                              at: "$objects[\(root.uid)]")
            }
            guard groupUID == nil else { throw FirstTimeError.duplicateKey(key, at: "$objects[\(root.uid)]") }
            guard entry.value != 0 else {
                throw ArchiveError.unexpected(expected: "NSMutableDictionary (sharedGroup)", found: "nil",
                                              at: "$objects[\(root.uid)].NS.objects[\(i)]")
            }
            groupUID = entry.value
        }
        guard let groupUID else { return FirstTimeRecords() }
        let group = try dictionaryInstance(archive, groupUID, role: "sharedGroup")
        var entries: [FirstTimeRecords.Entry] = []
        for (i, entry) in try archive.dictionaryEntries(group).enumerated() {
            guard let key = try archive.string(entry.key == 0 ? nil : entry.key, at: "$objects[\(group.uid)].NS.keys[\(i)]") else {
                throw ArchiveError.unexpected(expected: "NSString", found: "nil", at: "$objects[\(group.uid)].NS.keys[\(i)]")
            }
            entries.append((key, try record(archive, entry.value, at: "$objects[\(group.uid)].NS.objects[\(i)]")))
        }
        do {
            return try FirstTimeRecords(entries)
        } catch {
            if case let .duplicateKey(key, _) = error { throw FirstTimeError.duplicateKey(key, at: "$objects[\(group.uid)]") }
            throw error
        }
    }

    private static func record(_ archive: KeyedArchive, _ uid: UInt64, at path: @autoclosure () -> String) throws -> FirstTimeRecord {
        let value = try archive.object(uid, at: path())
        guard uid != 0, case .dictionary = value else {
            throw ArchiveError.unexpected(expected: recordClass, found: archive.describe(value),
                                          at: uid == 0 ? path() : "$objects[\(uid)]")
        }
        let instance = try archive.instance(uid)
        guard instance.archivedClass.name == recordClass else {
            throw ArchiveError.unexpected(expected: recordClass, found: instance.archivedClass.name, at: "$objects[\(uid)]")
        }
        var record = FirstTimeRecord()
        if let field = instance.fields[versionKey] {
            let ref = try archive.reference(field, at: "$objects[\(uid)].\(versionKey)")
            record.lastVersion = try archive.string(ref, at: "$objects[\(uid)].\(versionKey)")
        }
        if let field = instance.fields[timeKey], let ref = try archive.reference(field, at: "$objects[\(uid)].\(timeKey)") {
            record.lastTime = try date(archive, ref, at: "$objects[\(uid)].\(timeKey)")
        }
        return record
    }

    private static func date(_ archive: KeyedArchive, _ uid: UInt64, at path: @autoclosure () -> String) throws -> Double {
        let value = try archive.object(uid, at: path())
        guard case .dictionary = value, let instance = try? archive.instance(uid),
              instance.archivedClass.name == dateClass else {
            throw ArchiveError.unexpected(expected: dateClass, found: archive.describe(value), at: path())
        }
        guard let time = instance.fields["NS.time"] else {
            throw ArchiveError.malformed("NSDate has no NS.time", at: "$objects[\(uid)]")
        }
        guard case let .real(seconds) = time else {
            throw ArchiveError.unexpected(expected: "real", found: time.typeName, at: "$objects[\(uid)].NS.time")
        }
        return seconds
    }

    // MARK: Encoding

    /// Encodes records to the archive value, in Apple's layout.
    ///
    /// Objects are numbered in pre-order: `$null`, root, `"sharedGroup"`, group, every block key
    /// (in ``FirstTimeRecords`` order), then each record followed by its version string (equal
    /// versions share one object) and its `NSDate`. Class descriptors follow their first
    /// instance's children and are reused. Root and group are `NSMutableDictionary`.
    public static func encode(_ records: FirstTimeRecords) -> PlistValue {
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
