public import KeyedArchive
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

    @usableFromInline package static let dictionaryClasses: Set<String> = ["NSMutableDictionary", "NSDictionary"]

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
        do {
            switch format {
            case .binary: return try encodeBinary(records)
            case .xml: return try PropertyList.write(encode(records), format: .xml)
            }
        } catch { throw .plist(error) }
    }
}

// MARK: Reading without libplist

extension LegacyArchive {
    /// Decodes a binary archive with ycft's pure-Swift reader: the same guard, the same
    /// `ContractWalker` and so the same records, findings and errors as the libplist path
    /// (`read(_:limits:)` in FirstTimeArchive), for code that cannot link libplist.
    /// - Throws: ``FirstTimeError/archive(_:)`` when the bytes are not a binary plist archive
    ///   (an XML archive included), ``FirstTimeError/contract(_:)`` for the first fatal finding.
    public static func read(binary bytes: [UInt8], limits: PlistLimits = .default) throws(FirstTimeError) -> ArchiveJudgement {
        let value: PlistValue
        do { value = try BinaryPlistReader.read(bytes, limits: limits) } catch { throw .archive(.plist(error)) }
        return try read(plist: value)
    }

    /// Decodes an archive's property-list value (the checked path, whichever reader built it).
    /// - Throws: ``FirstTimeError/archive(_:)`` for the envelope, ``FirstTimeError/contract(_:)``
    ///   for the first fatal finding.
    public static func read(plist value: PlistValue) throws(FirstTimeError) -> ArchiveJudgement {
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
    public static func read(_ archive: KeyedArchive) throws(FirstTimeError) -> ArchiveJudgement {
        let judgement = ContractWalker.judge(ResolvedGraph(archive), mode: .decode)
        if let fatal = judgement.fatal { throw .contract(fatal) }
        return judgement
    }

    /// Decodes an archive to records.
    public static func decode(_ archive: KeyedArchive) throws(FirstTimeError) -> FirstTimeRecords {
        try read(archive).records
    }
}

// MARK: Encoding straight to bytes

extension LegacyArchive {
    /// The binary archive of `records`, written object by object: the same bytes as
    /// `PropertyList.write(encode(records), format: .binary)` without building the archive's
    /// value tree first (that tree was most of `ycft pack`'s time).
    ///
    /// A first pass numbers the objects as ``encode(_:)`` does (pre-order; a class descriptor
    /// after its first instance's children); the second writes them in that order.
    static func encodeBinary(_ records: FirstTimeRecords) throws(PlistError) -> [UInt8] {
        let n = records.count
        // UIDs: 0 $null, 1 root, 2 "sharedGroup", 3 group, then the n block keys.
        var next = UInt64(4 + n)
        var recordUIDs = [UInt64](repeating: 0, count: n)
        var versionUIDs = [UInt64](repeating: 0, count: n)
        var timeUIDs = [UInt64](repeating: 0, count: n)
        var newVersion = [Bool](repeating: false, count: n)
        var shared: [ExactKey: UInt64] = [:]
        var dateClass: UInt64 = 0, dateClassAt = -1, recordClass: UInt64 = 0
        for (i, entry) in records.entries.enumerated() {
            recordUIDs[i] = next
            next += 1
            if let version = entry.record.lastVersion {
                if let uid = shared[ExactKey(version)] {
                    versionUIDs[i] = uid
                } else {
                    versionUIDs[i] = next
                    shared[ExactKey(version)] = next
                    newVersion[i] = true
                    next += 1
                }
            }
            if entry.record.lastTime != nil {
                timeUIDs[i] = next
                next += 1
                if dateClass == 0 {
                    dateClass = next
                    dateClassAt = i
                    next += 1
                }
            }
            if recordClass == 0 {
                recordClass = next
                next += 1
            }
        }
        let dictionaryClass = next
        next += 1

        var out = BinaryPlistStream(expectedObjects: Int(next) * 3 + 16)
        func uidArray(_ uids: some Sequence<UInt64>) throws(PlistError) -> Int {
            let index = out.open()
            var items: [Int] = []
            for uid in uids { items.append(try out.uid(uid)) }
            out.closeArray(index, items: items)
            return index
        }
        func classDescriptor(_ name: String, _ chain: [String]) throws(PlistError) -> Int {
            let index = out.open()
            let keys = [try out.key("$classname"), try out.key("$classes")]
            let nameRef = try out.string(name)
            let list = out.open()
            var items: [Int] = []
            for link in chain { items.append(try out.string(link)) }
            out.closeArray(list, items: items)
            out.closeDictionary(index, keys: keys, values: [nameRef, list])
            return index
        }
        func mutableDictionary(keys keyUIDs: some Sequence<UInt64>, objects: some Sequence<UInt64>) throws(PlistError) -> Int {
            let index = out.open()
            let keys = [try out.key("NS.keys"), try out.key("NS.objects"), try out.key("$class")]
            let values = [try uidArray(keyUIDs), try uidArray(objects), try out.uid(dictionaryClass)]
            out.closeDictionary(index, keys: keys, values: values)
            return index
        }

        let top = out.open()
        let topKeys = [try out.key("$version"), try out.key("$objects"), try out.key("$archiver"), try out.key("$top")]
        let version = out.integer(KeyedArchive.archiverVersion)
        out.enter(.key("$objects"))
        let objects = out.open()
        var items: [Int] = []
        items.reserveCapacity(Int(next))
        func string(_ s: String) throws(PlistError) -> Int {
            out.enter(.index(items.count))
            defer { out.leave() }
            return try out.string(s)
        }
        items.append(try out.string("$null"))
        items.append(try mutableDictionary(keys: [2], objects: [3]))
        items.append(try out.string(groupKey))
        items.append(try mutableDictionary(keys: (0..<UInt64(n)).lazy.map { $0 + 4 }, objects: recordUIDs))
        for entry in records.entries { items.append(try string(entry.key)) }
        for (i, entry) in records.entries.enumerated() {
            let record = out.open()
            let keys = [try out.key(versionKey), try out.key(timeKey), try out.key("$class")]
            let values = [try out.uid(versionUIDs[i]), try out.uid(timeUIDs[i]), try out.uid(recordClass)]
            out.closeDictionary(record, keys: keys, values: values)
            items.append(record)
            if newVersion[i], let text = entry.record.lastVersion { items.append(try string(text)) }
            if let time = entry.record.lastTime {
                let date = out.open()
                let dateKeys = [try out.key("NS.time"), try out.key("$class")]
                let dateValues = [out.real(time), try out.uid(dateClass)]
                out.closeDictionary(date, keys: dateKeys, values: dateValues)
                items.append(date)
                if i == dateClassAt { items.append(try classDescriptor(LegacyArchive.dateClass, dateChain)) }
            }
            if i == 0 { items.append(try classDescriptor(LegacyArchive.recordClass, recordChain)) }
        }
        items.append(try classDescriptor(mutableDictionaryClass, mutableDictionaryChain))
        out.closeArray(objects, items: items)
        out.leave()
        let archiver = try out.string(KeyedArchive.archiverName)
        let topDictionary = out.open()
        let rootKey = try out.key("root")
        let root = try out.uid(1)
        out.closeDictionary(topDictionary, keys: [rootKey], values: [root])
        out.closeDictionary(top, keys: topKeys, values: [version, objects, archiver, topDictionary])
        return out.bytes(top: top)
    }
}
