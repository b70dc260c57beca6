internal import KeyedArchive
internal import Plist

/// The records decoder's fast path: reads the libplist tree directly, without building a
/// ``PlistValue`` tree, for the common case of a well-formed binary archive.
///
/// It returns nil as soon as anything is not exactly what the checked decoder accepts, and the
/// caller then runs the checked decoder, which gives the same records or the precise error.
/// So the fast path never changes an answer, only how fast a clean archive is read. (Binary
/// input only: the scanner has already refused duplicate keys, invalid strings, cycles and
/// excessive depth, which the checked path would also refuse.)
enum FastDecoder {
    static func records(_ document: PlistDocument) -> FirstTimeRecords? {
        guard document.format == .binary else { return nil }
        let envelope = document.top
        guard envelope.string("$archiver") == KeyedArchive.archiverName,
              envelope["$version"]?.int64 == KeyedArchive.archiverVersion,
              let top = envelope["$top"], top.dictionaryCount == 1, let rootUID = top["root"]?.uid,
              let objects = envelope["$objects"]?.items, objects.first?.string == "$null"
        else { return nil }
        var reader = Reader(objects: objects)
        return reader.records(root: rootUID)
    }

    private struct Reader {
        let objects: [PlistNode]
        var classNames: [UInt64: String] = [:]

        init(objects: [PlistNode]) { self.objects = objects }

        func object(_ uid: UInt64) -> PlistNode? { uid < UInt64(objects.count) ? objects[Int(uid)] : nil }

        /// The class name of an instance, with its descriptor checked as the archive layer does.
        mutating func className(of node: PlistNode) -> String? {
            guard node.kind == .dictionary, let classUID = node["$class"]?.uid else { return nil }
            if let cached = classNames[classUID] { return cached }
            guard let descriptor = object(classUID), descriptor.kind == .dictionary,
                  let name = descriptor["$classname"]?.string else { return nil }
            if let chain = descriptor["$classes"] {
                guard let items = chain.items, items.allSatisfy({ $0.string != nil }) else { return nil }
            }
            classNames[classUID] = name
            return name
        }

        /// A string object: inline, or NSString/NSMutableString with NS.string; nil for `$null`.
        mutating func string(_ uid: UInt64) -> String?? {
            guard uid != 0, let node = object(uid) else { return uid == 0 ? .some(nil) : nil }
            switch node.kind {
            case .string:
                guard let s = node.string else { return nil }
                return .some(s == "$null" && exactlyEqual(s, "$null") ? nil : s)
            case .dictionary:
                guard let name = className(of: node), name == "NSString" || name == "NSMutableString",
                      let s = node["NS.string"]?.string else { return nil }
                return .some(s)
            default:
                return nil
            }
        }

        /// NS.keys and NS.objects of a dictionary instance as UID pairs.
        func entries(_ node: PlistNode) -> [(key: UInt64, value: UInt64)]? {
            guard let keys = node["NS.keys"]?.items, let values = node["NS.objects"]?.items, keys.count == values.count else {
                return nil
            }
            var out: [(key: UInt64, value: UInt64)] = []
            out.reserveCapacity(keys.count)
            for (k, v) in zip(keys, values) {
                guard let ku = k.uid, let vu = v.uid, ku < UInt64(objects.count), vu < UInt64(objects.count) else { return nil }
                out.append((ku, vu))
            }
            return out
        }

        mutating func dictionary(_ uid: UInt64) -> PlistNode? {
            guard uid != 0, let node = object(uid), let name = className(of: node),
                  name == "NSMutableDictionary" || name == "NSDictionary" else { return nil }
            return node
        }

        mutating func records(root rootUID: UInt64) -> FirstTimeRecords? {
            guard let root = dictionary(rootUID), let rootEntries = entries(root) else { return nil }
            var groupUID: UInt64?
            for entry in rootEntries {
                guard groupUID == nil, entry.value != 0, case let key?? = string(entry.key),
                      exactlyEqual(key, LegacyArchive.groupKey) else { return nil }
                groupUID = entry.value
            }
            guard let groupUID else { return FirstTimeRecords() }
            guard let group = dictionary(groupUID), let groupEntries = entries(group) else { return nil }
            var list: [FirstTimeRecords.Entry] = []
            list.reserveCapacity(groupEntries.count)
            for entry in groupEntries {
                guard case let key?? = string(entry.key), let record = record(entry.value) else { return nil }
                list.append((key, record))
            }
            return try? FirstTimeRecords(list)
        }

        mutating func record(_ uid: UInt64) -> FirstTimeRecord? {
            guard uid != 0, let node = object(uid), className(of: node) == LegacyArchive.recordClass else { return nil }
            var record = FirstTimeRecord()
            if let field = node[LegacyArchive.versionKey] {
                guard let ref = field.uid, ref < UInt64(objects.count), case let version? = string(ref) else { return nil }
                record.lastVersion = version
            }
            if let field = node[LegacyArchive.timeKey] {
                guard let ref = field.uid, ref < UInt64(objects.count) else { return nil }
                if ref != 0 {
                    guard let date = object(ref), className(of: date) == LegacyArchive.dateClass,
                          let time = date["NS.time"]?.real else { return nil }
                    record.lastTime = time
                }
            }
            return record
        }
    }
}

private extension PlistNode {
    func string(_ key: String) -> String? { self[key]?.string }
}
