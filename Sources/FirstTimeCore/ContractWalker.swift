internal import KeyedArchive
internal import PlistCore

/// The records and findings of a stored state: what one walk of an archive found, and what
/// reading any form of state gives (`LegacyArchive.read`, `StateFile.read(_:)`, the interval
/// keys).
package struct ArchiveJudgement: Sendable, Equatable {
    /// The records as ycft reads them; none when a fatal rule (``ContractRule/Spec/isFatal``)
    /// was broken (see ``fatal``).
    package var records: FirstTimeRecords
    /// The findings, in walk order. A read, which throws for a fatal finding, returns only
    /// those that leave the records readable but say what the device does differently (see
    /// ``ContractRule/Spec/device``).
    package var findings: [ContractFinding]

    /// The first finding of a fatal rule, if any.
    package var fatal: ContractFinding? { findings.first { $0.rule.spec.isFatal } }

    /// Creates a judgement of readable records.
    package init(records: FirstTimeRecords, findings: [ContractFinding] = []) {
        self.records = records
        self.findings = findings
    }
}

/// A class descriptor the walker resolved.
struct ClassInfo {
    let name: String
    /// Where the descriptor is.
    let uid: UInt64
    /// Whether the class is `YCFirstTimeObject`, and whether `NSDate`: told once a descriptor,
    /// not once an object (a record and its date each asked). By bytes, as the Objective-C
    /// runtime looks a class up by name; no other text is canonically equivalent to either
    /// name, so `==` would answer the same.
    let isRecord: Bool
    let isDate: Bool

    init(name: String, uid: UInt64) {
        self.name = name
        self.uid = uid
        isRecord = exactlyEqual(name, LegacyArchive.recordClass)
        isDate = exactlyEqual(name, LegacyArchive.dateClass)
    }
}

/// The two dictionaries the walker checks as dictionaries, and the rules their classes answer to.
enum DictionaryRole: String {
    case root
    case group = "sharedGroup"

    /// An `NSDictionary` where YCFirstTime keeps an `NSMutableDictionary`.
    var immutable: ContractRule { self == .root ? .rootImmutable : .groupImmutable }
    /// Not a dictionary class at all.
    var wrongClass: ContractRule { self == .root ? .rootClass : .groupClass }
}

/// The one walker over an archive's object graph: root → group → records. It applies every
/// rule of the table (``ContractRule/spec``) and is the only code that does. `collect` walks as
/// far as it can (`StateFile.verify`); `decode` stops at the first fatal finding (decoding).
///
/// Not generic: it reads the graph through `any ArchiveGraph`, a node being a one-word handle
/// (``ArchiveNode``), so this one compiled walker serves the resolved archive here and
/// libplist's tree (`NodeGraph`, in FirstTimeArchive) at one indirect call per access. A
/// generic walker would need specialising for `NodeGraph` across modules, which a package's
/// release build does not do (docs/performance.md, "Why the code is shaped this way").
package struct ContractWalker {
    /// `collect` walks as far as it can; `decode` stops at the first fatal finding.
    package enum Mode { case collect, decode }
    /// Thrown to stop the walk at a fatal finding in `decode` mode.
    struct Stop: Error {}

    let graph: any ArchiveGraph
    /// The graph's number of objects, asked once.
    let objectCount: Int
    let mode: Mode
    var findings: [ContractFinding] = []
    var fatal = false
    /// For each object, 1 + the index of its class in `classes`, `chains` and `checked` once an instance
    /// named it as its class (0 before): made at the first instance. An array, not a dictionary
    /// by UID: UIDs are dense, and a program's first dictionary of a key type costs a
    /// conformance lookup at start-up.
    var classSlots: [Int] = []
    /// The class descriptors looked up, in order: nil when malformed.
    var classes: [ClassInfo?] = []
    /// Their `$classes` chains (nil when absent), kept apart so that a lookup copies one string.
    var chains: [[String]?] = []
    /// Whether a class's chain has been checked (each is reported once, however many
    /// instances share it).
    var checked: [Bool] = []

    init(_ graph: any ArchiveGraph, mode: Mode) {
        self.graph = graph
        objectCount = graph.objectCount
        self.mode = mode
    }

    /// Walks the archive: its records (nil when a fatal rule was broken) and every finding.
    package static func judge(_ graph: any ArchiveGraph, mode: Mode) -> ArchiveJudgement {
        var walker = ContractWalker(graph, mode: mode)
        // None where the walk stopped (decode mode) or a fatal rule was broken.
        let records = try? walker.walk()
        return ArchiveJudgement(records: (walker.fatal ? nil : records) ?? FirstTimeRecords(), findings: walker.findings)
    }

    mutating func add(_ rule: ContractRule, _ path: ObjectPath, _ message: String, record: String? = nil) throws(Stop) {
        findings.append(ContractFinding(rule, at: path, message, record: record))
        if rule.isFatal {
            fatal = true
            if mode == .decode { throw Stop() }
        }
    }

    // MARK: Reading the graph

    func node(_ uid: UInt64) -> ArchiveNode? { uid < UInt64(objectCount) ? graph.object(at: Int(uid)) : nil }

    /// Resolves a UID, or records that it dangles.
    mutating func resolve(_ uid: UInt64, at path: @autoclosure () -> ObjectPath) throws(Stop) -> ArchiveNode? {
        if let found = node(uid) { return found }
        try add(.uidDangling, path(), "UID \(uid) is outside $objects (\(objectCount) objects)")
        return nil
    }

    /// The class of an instance, nil when the node is not one (or its descriptor is malformed).
    mutating func classInfo(_ node: ArchiveNode) -> ClassInfo? {
        // `field` is nil for anything but a dictionary: no separate kind check (each one is a
        // call into libplist on the fast path).
        guard let ref = graph.field(node, named: "$class"), let classUID = graph.uid(ref), classUID < UInt64(objectCount) else { return nil }
        if classSlots.isEmpty {
            classSlots = Array(repeating: 0, count: objectCount)
            // YCFirstTime's archive names three classes, the dictionary, the record and the date:
            // room for them at once, not three arrays grown one class at a time.
            classes.reserveCapacity(4)
            chains.reserveCapacity(4)
            checked.reserveCapacity(4)
        }
        let slot = classSlots[Int(classUID)]
        if slot > 0 { return classes[slot - 1] }
        var info: ClassInfo?
        var chain: [String]?
        if let descriptor = self.node(classUID), let nameNode = graph.field(descriptor, named: "$classname"), let name = graph.string(nameNode) {
            if let chainNode = graph.field(descriptor, named: "$classes") {
                if let items = graph.items(chainNode) {
                    let names = items.compactMap { graph.string($0) }
                    if names.count == items.count {
                        info = ClassInfo(name: name, uid: classUID)
                        chain = names
                    }
                }
            } else {
                info = ClassInfo(name: name, uid: classUID)
            }
        }
        classes.append(info)
        chains.append(chain)
        checked.append(false)
        classSlots[Int(classUID)] = classes.count
        return info
    }

    /// An object as messages name it: `nil`, `NSString`, `NSNumber`, a class name, ...
    mutating func describe(_ node: ArchiveNode) -> String {
        switch graph.kind(node) {
        case .string: return graph.string(node).map { exactlyEqual($0, "$null") } == true ? "nil" : "NSString"
        case .integer, .real, .bool: return "NSNumber"
        case .data: return "NSData"
        case .date: return "a plist date"
        case .uid: return "a UID"
        case .array: return "an array"
        // unreachable: both guards refuse every object outside the other kinds (libplist's null, a set), so no node is .other
        case .other: return "an unknown node"
        case .dictionary:
            if let info = classInfo(node) { return UntrustedText.escaped(info.name) }
            if graph.field(node, named: "$class") != nil { return "an object with a malformed class" }
            if graph.field(node, named: "$classname") != nil { return "a class descriptor" }
            return "a dictionary without $class"
        }
    }

    mutating func checkChain(_ info: ClassInfo, expected: @autoclosure () -> [String]) throws(Stop) {
        let uid = info.uid
        // An instance named the class (that is where `info` came from), so it has a slot.
        let index = classSlots[Int(uid)] - 1
        guard !checked[index] else { return }
        checked[index] = true
        let expected = expected()
        guard let chain = chains[index] else {
            return try add(.classChain, .object(uid),
                           "class \(UntrustedText.escaped(info.name)) has no $classes chain; Apple writes \(expected)")
        }
        if chain != expected {
            // Quoted one by one: an array's own description would escape the escapes again (`\\u{1B}`).
            let shown = "[" + chain.map(UntrustedText.quoted).joined(separator: ", ") + "]"
            try add(.classChain, .object(uid), "$classes is \(shown), Apple writes \(expected)")
        }
    }

    /// A string object (inline, or `NSString`/`NSMutableString` with `NS.string`); `.some(nil)`
    /// for `$null`; nil (with a finding of `rule`) for anything else.
    mutating func string(_ uid: UInt64, rule: ContractRule, at path: @autoclosure () -> ObjectPath) throws(Stop) -> String?? {
        guard uid != 0 else { return .some(nil) }
        guard let found = try resolve(uid, at: path()) else { return nil }
        if let text = graph.string(found) {
            // By bytes (`exactlyEqual` compares lengths first): `==` compares by Unicode
            // equivalence, which costs more and adds nothing here.
            return .some(exactlyEqual(text, "$null") ? nil : text)
        }
        if let info = classInfo(found), info.name == "NSString" || info.name == "NSMutableString" {
            guard let inner = graph.field(found, named: "NS.string"), let text = graph.string(inner) else {
                try add(rule, .object(uid), "\(UntrustedText.escaped(info.name)) has no NS.string string")
                return nil
            }
            return .some(text)
        }
        try add(rule, path(), "expected NSString, found \(describe(found))")
        return nil
    }

    /// `NS.keys`/`NS.objects` of a dictionary instance as UID pairs, or nil with a finding.
    mutating func pairs(_ node: ArchiveNode, uid: UInt64) throws(Stop) -> [(key: UInt64, value: UInt64)]? {
        func here() -> ObjectPath { .object(uid) }
        // A local: read through `self` in the nested function, the graph is retained per item.
        let graph = graph
        func uids(_ name: String) throws(Stop) -> [UInt64]? {
            guard let field = graph.field(node, name) else {
                try add(.dictionaryStructure, here(), "missing \(name)")
                return nil
            }
            guard let items = graph.items(field) else {
                try add(.dictionaryStructure, here().key(name), "expected array, found \(graph.kind(field).typeName)")
                return nil
            }
            var out: [UInt64] = []
            out.reserveCapacity(items.count)
            for (i, item) in items.enumerated() {
                guard let ref = graph.uid(item) else {
                    try add(.dictionaryStructure, here().key(name).index(i), "expected UID, found \(graph.kind(item).typeName)")
                    return nil
                }
                guard ref < UInt64(objectCount) else {
                    try add(.uidDangling, here().key(name).index(i), "UID \(ref) is outside $objects (\(objectCount) objects)")
                    return nil
                }
                out.append(ref)
            }
            return out
        }
        guard let keys = try uids("NS.keys"), let values = try uids("NS.objects") else { return nil }
        guard keys.count == values.count else {
            try add(.dictionaryStructure, here(), "NS.keys has \(keys.count) entries but NS.objects has \(values.count)")
            return nil
        }
        return zip(keys, values).map { (key: $0, value: $1) }
    }

    /// The root or the group: an `NSMutableDictionary` (its chain checked) or an `NSDictionary`
    /// (a finding), as its pairs; nil, with a finding, when the walk cannot go into it.
    mutating func dictionary(_ uid: UInt64, role: DictionaryRole,
                                     at path: @autoclosure () -> ObjectPath) throws(Stop) -> [(key: UInt64, value: UInt64)]? {
        guard let found = try resolve(uid, at: path()) else { return nil }
        func here() -> ObjectPath { .object(uid) }
        guard let info = classInfo(found) else {
            try add(role.wrongClass, here(), "expected NSMutableDictionary (\(role.rawValue)), found \(describe(found))")
            return nil
        }
        switch info.name {
        case LegacyArchive.mutableDictionaryClass:
            try checkChain(info, expected: LegacyArchive.mutableDictionaryChain)
        case "NSDictionary":
            let consequence = role == .root
                ? "YCFirstTime keeps only an NSMutableDictionary and would reset all state"
                : "YCFirstTime's next save would replace it and drop every other block key"
            try add(role.immutable, here(), "\(role.rawValue) is NSDictionary: \(consequence)")
        default:
            try add(role.wrongClass, here(), "expected NSMutableDictionary (\(role.rawValue)), found \(UntrustedText.escaped(info.name))")
            return nil
        }
        return try pairs(found, uid: uid)
    }

    // MARK: The walk

    mutating func walk() throws(Stop) -> FirstTimeRecords? {
        for path in graph.envelopeExtras {
            try add(.envelopeExtraKey, path, "NSKeyedArchiver does not write this key; the unarchiver ignores it, and the next save (YCFirstTime's, or a ycft write) drops it")
        }
        guard let rootUID = graph.rootUID else {
            try add(.envelopeRoot, .key("$top").key("root"), "missing $top.root")
            return nil
        }
        guard rootUID != 0 else {
            try add(.envelopeRoot, .key("$top").key("root"), "root is nil")
            return nil
        }
        guard let rootPairs = try dictionary(rootUID, role: .root, at: .key("$top").key("root")) else { return nil }
        let rootPath = ObjectPath.object(rootUID)
        var groupUID: UInt64?
        // Other root keys are judged after the loop: with no "sharedGroup" beside them the
        // dictionary is another program's, not YCFirstTime state (one finding, not one a key).
        var extraKeys: [(key: String, index: Int, value: UInt64)] = []
        for (i, pair) in rootPairs.enumerated() {
            guard case let key?? = try string(pair.key, rule: .keyType, at: rootPath.key("NS.keys").index(i)) else {
                if pair.key == 0 { try add(.keyType, rootPath.key("NS.keys").index(i), "key is nil") }
                continue
            }
            if exactlyEqual(key, LegacyArchive.groupKey) {
                if groupUID != nil {
                    try add(.keyDuplicate, rootPath, "\"sharedGroup\" appears twice")
                    continue
                }
                groupUID = pair.value
            } else {
                extraKeys.append((key, i, pair.value))
            }
        }
        if groupUID == nil, !extraKeys.isEmpty {
            // YCFirstTime reads such a root as no records and its next save adds the group
            // beside the keys: one finding, not one a key; their values must be of classes the
            // loader allows, as beside a group.
            let named = extraKeys.prefix(3).map { quoted($0.key) }.joined(separator: ", ") + (extraKeys.count > 3 ? ", ..." : "")
            let keys = extraKeys.count == 1 ? "1 key" : "\(extraKeys.count) keys"
            try add(.rootForeign, rootPath, "the root dictionary holds \(keys) (\(named)) and no \"sharedGroup\": "
                    + "YCFirstTime reads no records from it (every gate runs) and its next save adds the group beside them")
            for extra in extraKeys { try allowedClasses(extra.value, at: rootPath.key("NS.objects").index(extra.index)) }
            return FirstTimeRecords()
        }
        for extra in extraKeys {
            try add(.rootExtraKey, rootPath, "root key \(quoted(extra.key)) is not \"sharedGroup\": YCFirstTime ignores it and keeps it")
            try allowedClasses(extra.value, at: rootPath.key("NS.objects").index(extra.index))
        }
        guard let groupUID else {
            try add(.groupMissing, rootPath, "no \"sharedGroup\": the archive records nothing")
            return FirstTimeRecords()
        }
        if groupUID == rootUID {
            try add(.uidCycle, rootPath.key("sharedGroup"), "sharedGroup is the root itself")
            return nil
        }
        guard groupUID != 0 else {
            try add(.groupClass, rootPath, "sharedGroup is nil")
            return nil
        }
        // unreachable: (the path) the root's pairs were found in range (pairs(_:uid:)), so the group resolves
        guard let groupPairs = try dictionary(groupUID, role: .group, at: rootPath.key("sharedGroup")) else { return nil }
        var entries: [(key: String, record: FirstTimeRecord)] = []
        entries.reserveCapacity(groupPairs.count)
        for (i, pair) in groupPairs.enumerated() {
            let key = try string(pair.key, rule: .keyType, at: ObjectPath.object(groupUID).key("NS.keys").index(i))
            if case .some(nil) = key { try add(.keyType, ObjectPath.object(groupUID).key("NS.keys").index(i), "block key is nil") }
            let record = try record(pair.value, root: rootUID, group: groupUID, index: i, key: key ?? nil)
            if case let key?? = key, let record { entries.append((key, record)) }
        }
        let (records, duplicates) = FirstTimeRecords.sortingKeys(entries)
        for key in duplicates { try add(.keyDuplicate, .object(groupUID), "duplicate block key \(quoted(key))") }
        return records
    }

    /// The record at `uid`, the value of block key `key` (nil when the key is not a string).
    mutating func record(_ uid: UInt64, root: UInt64, group: UInt64, index: Int, key blockKey: String?) throws(Stop) -> FirstTimeRecord? {
        func path() -> ObjectPath { ObjectPath.object(group).key("NS.objects").index(index) }
        if uid == root || uid == group {
            try add(.uidCycle, path(), "record UID \(uid) points back to the \(uid == root ? "root" : "group") that contains it")
            return nil
        }
        // unreachable: pairs(_:uid:) checked every UID of NS.objects against the object count, so resolve finds the
        // record
        guard let found = try resolve(uid, at: path()) else { return nil }
        func here() -> ObjectPath { .object(uid) }
        guard uid != 0, let info = classInfo(found) else {
            try add(.recordClass, uid == 0 ? path() : here(), "expected YCFirstTimeObject, found \(describe(found))")
            return nil
        }
        guard info.isRecord else {
            try add(.recordClass, here(), "expected YCFirstTimeObject, found \(UntrustedText.escaped(info.name))")
            return nil
        }
        try checkChain(info, expected: LegacyArchive.recordChain)
        var record = FirstTimeRecord()
        var known = 1
        var sound = true
        if let field = graph.field(found, named: LegacyArchive.versionKeyLiteral) {
            known += 1
            if let ref = graph.uid(field) {
                if case let version? = try string(ref, rule: .versionType, at: here().key(LegacyArchive.versionKey)) {
                    record.lastVersion = version
                } else {
                    sound = false
                }
            } else {
                try add(.versionType, here().key(LegacyArchive.versionKey), "expected a UID, found \(graph.kind(field).typeName)")
                sound = false
            }
        }
        if let field = graph.field(found, named: LegacyArchive.timeKeyLiteral) {
            known += 1
            if let ref = graph.uid(field) {
                if ref != 0 {
                    if let time = try time(ref, at: here().key(LegacyArchive.timeKey), record: blockKey) { record.lastTime = time } else { sound = false }
                }
            } else {
                try add(.timeType, here().key(LegacyArchive.timeKey), "expected a UID, found \(graph.kind(field).typeName)")
                sound = false
            }
        }
        if graph.fieldCount(found) != known {
            for key in graph.fieldKeys(found) where key != "$class" && key != LegacyArchive.versionKey && key != LegacyArchive.timeKey {
                let owner = blockKey.map { " in record \(quoted($0))" } ?? ""
                try add(.recordUnknownKey, here(), "unknown coder key \(quoted(key))\(owner) (YCFirstTime ignores it)")
            }
        }
        return sound ? record : nil
    }

    /// The time of the date at `uid`, as YCFirstTime's `NSDate(coder:)` reads it:
    /// `decodeDouble(forKey: "NS.time")`, which both Foundations answer with the number as a
    /// double (`Double(n)` for an integer) and 0.0 when the key is missing. Nil, with a finding,
    /// for anything else, and for an integer no double holds exactly (`record` names the block
    /// key, when it is a string).
    mutating func time(_ uid: UInt64, at path: @autoclosure () -> ObjectPath, record blockKey: String? = nil) throws(Stop) -> Double? {
        guard let found = try resolve(uid, at: path()) else { return nil }
        guard let info = classInfo(found), info.isDate else {
            try add(.timeType, path(), "expected NSDate, found \(describe(found))")
            return nil
        }
        try checkChain(info, expected: LegacyArchive.dateChain)
        // Made only for a finding, not for every record (docs/performance.md).
        var owner: String { blockKey.map { "record \(quoted($0)): " } ?? "" }
        guard let field = graph.field(found, named: "NS.time") else {
            try add(.timeNotReal, .object(uid), "\(owner)NSDate has no NS.time, which YCFirstTime reads as 0.0 "
                    + "(2001-01-01T00:00:00Z: decodeDouble(forKey:) of a missing key); a write stores that real", record: blockKey)
            return 0.0
        }
        guard let seconds = graph.real(field) else {
            let path = ObjectPath.object(uid).key("NS.time")
            guard graph.kind(field) == .integer else {
                try add(.timeType, path, "expected real, found \(graph.kind(field).typeName)")
                return nil
            }
            // An integer: decodeDouble(forKey:) converts it, exactly when a double holds it.
            guard case let .signed(integer)? = graph.integer(field) else {
                try add(.timeType, path, "NS.time is a 16-byte integer, which ycft does not read as a time")
                return nil
            }
            let converted = Double(integer)
            guard Double(exactly: integer) != nil else {
                try add(.timeType, path, "NS.time is the integer \(integer), which no double holds exactly "
                        + "(YCFirstTime reads it rounded, as \(converted))")
                return nil
            }
            try add(.timeNotReal, path, "\(owner)NS.time is the integer \(integer), which YCFirstTime reads as the double \(converted) "
                    + "(decodeDouble(forKey:)); a write stores that real", record: blockKey)
            return converted
        }
        if let finding = ContractRule.nonFiniteTime(seconds, named: "NS.time", at: ObjectPath.object(uid).key("NS.time"), record: blockKey) {
            try add(finding.rule, finding.path, finding.message, record: finding.record)
        }
        return seconds
    }

    /// An unrelated root value must be made only of the classes YCFirstTime's loader allows
    /// (`NSMutableDictionary`, `NSDictionary`, `NSString`, `NSDate`, `YCFirstTimeObject`), or
    /// the secure unarchive fails and the app resets all state.
    mutating func allowedClasses(_ start: UInt64, at path: ObjectPath) throws(Stop) {
        let allowed: Set<String> = ["NSMutableDictionary", "NSDictionary", "NSString", "NSMutableString", "NSDate",
                                    LegacyArchive.recordClass]
        var pending: [(uid: UInt64, path: ObjectPath)] = [(start, path)]
        var seen = Set<UInt64>()
        while let (uid, at) = pending.popLast() {
            guard uid != 0, seen.insert(uid).inserted else { continue }
            guard let found = try resolve(uid, at: at) else { continue }
            if graph.kind(found) == .string { continue }
            guard let info = classInfo(found), allowed.contains(info.name) else {
                try add(.classNotAllowed, .object(uid),
                        "\(describe(found)) is not a class YCFirstTime's loader allows: its secure unarchive fails and the app resets all state")
                continue
            }
            for key in graph.fieldKeys(found) where key != "$class" {
                // unreachable: the key was just listed by fieldKeys of the same node
                guard let field = graph.field(found, key) else { continue }
                if let ref = graph.uid(field) { pending.append((ref, ObjectPath.object(uid).key(key))) }
                for (i, item) in (graph.items(field) ?? []).enumerated() {
                    if let ref = graph.uid(item) { pending.append((ref, ObjectPath.object(uid).key(key).index(i))) }
                }
            }
        }
    }
}
