package import OrderedJSON
package import PlistCore

/// Renders any property list, and any NSKeyedArchiver archive's object graph, as JSON that
/// loses nothing: class names and chains, exact numbers, data, dates and UIDs, cycles marked.
///
/// The value mapping is docs/json-format.md's (`{"$data": base64}`, `{"$uid": n}`, exact numbers).
package enum ArchiveDump {
    /// How shared objects are printed.
    package enum SharedObjects: Sendable {
        /// Expanded wherever they occur (the default), up to a bound proportional to the input.
        case expand
        /// Printed once; later occurrences are `{"$ref": uid}`, and objects referenced more than
        /// once carry `"$uid"`.
        case references
    }

    /// Why an archive could not be rendered.
    package enum DumpError: Error, Equatable, Sendable, CustomStringConvertible {
        /// Expanding shared objects would print more than `limit` values.
        case expansionTooLarge(limit: Int)
        /// `--objects` was asked of a plist that is not an archive.
        case notAnArchive
        /// References nest deeper than `limit` objects (a long UID chain).
        case graphTooDeep(limit: Int)

        package var description: String {
            switch self {
            case let .expansionTooLarge(limit):
                return "expanding shared objects would print more than \(limit) values (a reference bomb?)"
            case .notAnArchive:
                return "not an NSKeyedArchiver archive (no $archiver, $version, $top or $objects)"
            case let .graphTooDeep(limit):
                return "the object graph nests more than \(limit) objects deep"
            }
        }
    }

    /// The warnings a ``raw(_:shared:)`` dump lists under `"$warnings"` (empty when none).
    package static func warnings(in dump: JSON) -> [String] {
        guard case let .object(members) = dump, let last = members.last, last.key == "$warnings",
              case let .array(items) = last.value else { return [] }
        return items.compactMap { if case let .string(s) = $0 { return s }; return nil }
    }

    /// What is wrong with an archive's envelope, in NSKeyedArchiver's terms.
    static func envelopeWarnings(_ envelope: PlistDictionary, objects: [PlistValue], top: PlistDictionary) -> [String] {
        var out: [String] = []
        switch envelope["$archiver"] {
        case nil: out.append("$archiver: missing")
        case .string(KeyedArchive.archiverName)?: break
        case let other?: out.append("$archiver: is \(describe(other)), expected \"\(KeyedArchive.archiverName)\"")
        }
        switch envelope["$version"] {
        case nil: out.append("$version: missing")
        case let .integer(version)? where version.int64 == KeyedArchive.archiverVersion: break
        case let other?: out.append("$version: is \(describe(other)), expected \(KeyedArchive.archiverVersion)")
        }
        for (name, ref) in top where ref.uidValue == nil {
            out.append("$top.\(UntrustedText.escaped(name)): is \(ref.typeName), not a UID")
        }
        switch envelope["$top"] {
        case nil: out.append("$top: missing")
        case .dictionary?: break
        case let other?: out.append("$top: is \(other.typeName), not a dictionary")
        }
        switch envelope["$objects"] {
        case nil: out.append("$objects: missing")
        case .array?: if objects.first != .string("$null") { out.append("$objects[0]: is not \"$null\"") }
        case let other?: out.append("$objects: is \(other.typeName), not an array")
        }
        return out
    }

    static func describe(_ value: PlistValue) -> String {
        switch value {
        case let .string(s): return UntrustedText.quoted(s)
        case let .integer(i): return i.description
        default: return value.typeName
        }
    }

    /// A plist value as JSON, UIDs as `{"$uid": n}`.
    package static func json(_ value: PlistValue) -> JSON {
        switch value {
        case let .string(s): return .string(s)
        case let .integer(i): return .number(i.description)
        case let .real(d): return real(d)
        case let .real32(bits): return .object([.init("$real32", real32(Float(bitPattern: bits)))])
        case let .bool(b): return .bool(b)
        case let .data(bytes): return .object([.init("$data", .string(Base64.encode(bytes)))])
        case let .date(d): return .object([.init("$date", real(d))])
        case let .uid(u): return .object([.init("$uid", .integer(u))])
        case let .array(items): return .array(items.map(json))
        case let .dictionary(dict): return .object(dict.map { .init($0.key, json($0.value)) })
        }
    }

    /// A 4-byte real's value: its shortest round-trip form as a `Float`, or its name.
    static func real32(_ f: Float) -> JSON {
        guard f.isFinite else { return .string(f.isNaN ? "NaN" : f < 0 ? "-Infinity" : "Infinity") }
        return .number(f.description)
    }

    static func real(_ d: Double) -> JSON {
        if let number = JSON.number(d) { return number }
        return .object([.init("$real", .string(d.isNaN ? "NaN" : d < 0 ? "-Infinity" : "Infinity"))])
    }

    /// `ycft dump --raw`: an archive's resolved graph, or any other plist with the value mapping.
    ///
    /// Nothing is dropped: an absent envelope key stays absent, a malformed `$classes` is shown
    /// as it is, a known Foundation class takes its short form only when its object and class
    /// chain are exactly what Apple writes. What breaks NSKeyedArchiver's layout (`$archiver`,
    /// `$version`, `$top`, `$objects[0]`, class references, dangling UIDs) is listed, one line
    /// each, under a last member `"$warnings"` (read it with ``warnings(in:)``).
    /// - Throws: ``DumpError/expansionTooLarge(limit:)`` when expanding shared objects would
    ///   exceed the bound; use ``SharedObjects/references`` then.
    package static func raw(_ value: PlistValue, shared: SharedObjects = .expand) throws(DumpError) -> JSON {
        // An archive, possibly a broken one: what its envelope lacks is a warning, not another kind of file.
        guard case let .dictionary(envelope) = value, KeyedArchive.isEnvelope(envelope) else { return json(value) }
        // A broken envelope is rendered as far as it goes: no graph without an `$objects`
        // array, no roots without a `$top` dictionary, each said under `"$warnings"`.
        var objects: [PlistValue] = [], top = PlistDictionary()
        let graphed: Bool
        if case let .array(items)? = envelope["$objects"] { (objects, graphed) = (items, true) } else { graphed = false }
        if case let .dictionary(roots)? = envelope["$top"] { top = roots }
        var renderer = GraphRenderer(objects: objects, shared: shared)
        renderer.warnings = envelopeWarnings(envelope, objects: objects, top: top)
        var topMembers: [JSON.Member] = []
        for (name, ref) in top {
            topMembers.append(.init(name, try renderer.value(ref)))
        }
        var members: [JSON.Member] = []
        // What the envelope holds, and nothing it does not: an absent key stays absent.
        for key in ["$archiver", "$version"] { if let present = envelope[key] { members.append(.init(key, json(present))) } }
        switch envelope["$top"] {
        case .dictionary?: members.append(.init("$top", .object(topMembers)))
        case let other?: members.append(.init("$top", json(other)))
        case nil: break
        }
        // Anything else in the envelope is kept too (an `$objects` that is not an array among it).
        for (key, extra) in envelope where key == "$objects" ? !graphed : !KeyedArchive.envelopeKeys.contains(key) {
            members.append(.init(key, json(extra)))
        }
        if !renderer.warnings.isEmpty { members.append(.init("$warnings", .array(renderer.warnings.map { .string($0) }))) }
        return .object(members)
    }

    /// `ycft dump --objects`: the flat `$objects` table with UIDs as `{"$uid": n}`, plus
    /// `$archiver`, `$version` and `$top`.
    package static func objects(_ value: PlistValue) throws(DumpError) -> JSON {
        guard case let .dictionary(envelope) = value, KeyedArchive.isEnvelope(envelope) else { throw .notAnArchive }
        let known = KeyedArchive.envelopeKeys.compactMap { key in envelope[key].map { JSON.Member(key, json($0)) } }
        return .object(known + envelope.filter { !KeyedArchive.envelopeKeys.contains($0.key) }.map { .init($0.key, json($0.value)) })
    }
}

/// Resolves UIDs from `$top` through `$objects`, with cycle marks and an expansion bound.
private struct GraphRenderer {
    let objects: [PlistValue]
    let shared: ArchiveDump.SharedObjects
    let limit: Int
    var printed = 0
    var onPath = Set<UInt64>()
    var done = Set<UInt64>()
    var referenceCounts: [UInt64: Int] = [:]
    /// What breaks the archive's layout, in the order found, each once.
    var warnings: [String] = []
    private var warned = Set<String>()
    /// Objects nested deeper than this fail: rendering recurses a few frames per level, and must
    /// fit the 512 KiB stacks of secondary threads (and AddressSanitizer's larger frames).
    static let maxDepth = 256
    /// At most this many values are printed (about 100 MiB of JSON and 1 GiB of memory at worst).
    static let maxPrinted = 2_000_000

    init(objects: [PlistValue], shared: ArchiveDump.SharedObjects) {
        self.objects = objects
        self.shared = shared
        // Proportional to the input (a plain tree prints each object about once), counting only
        // objects that print something ($null padding buys nothing), and never above
        // maxPrinted, which bounds memory and output whatever the input.
        let substantial = objects.count { $0 != .string("$null") }
        self.limit = min(Self.maxPrinted, max(200_000, 32 * substantial))
        if shared == .references {
            for object in objects { object.forEachUID { referenceCounts[$0, default: 0] += 1 } }
        }
    }

    mutating func warn(_ text: String) {
        if warned.insert(text).inserted { warnings.append(text) }
    }

    mutating func tick() throws(ArchiveDump.DumpError) {
        printed += 1
        if printed > limit { throw .expansionTooLarge(limit: limit) }
    }

    /// A field value: UIDs resolve, containers recurse, scalars map.
    mutating func value(_ value: PlistValue) throws(ArchiveDump.DumpError) -> JSON {
        try tick()
        switch value {
        case let .uid(u): return try object(u)
        case let .array(items):
            var out: [JSON] = []
            out.reserveCapacity(items.count)
            for item in items { out.append(try self.value(item)) }
            return .array(out)
        case let .dictionary(d):
            var out: [JSON.Member] = []
            for (k, v) in d { out.append(.init(k, try self.value(v))) }
            return .object(out)
        default:
            return ArchiveDump.json(value)
        }
    }

    mutating func object(_ uid: UInt64) throws(ArchiveDump.DumpError) -> JSON {
        guard uid < UInt64(objects.count) else {
            warn("UID \(uid) is outside $objects (\(objects.count) objects)")
            return .object([.init("$dangling", .integer(uid))])
        }
        if case .string("$null") = objects[Int(uid)] { return .null }
        if onPath.contains(uid) { return .object([.init("$ref", .integer(uid))]) }
        if shared == .references, done.contains(uid) { return .object([.init("$ref", .integer(uid))]) }
        guard onPath.count < Self.maxDepth else { throw .graphTooDeep(limit: Self.maxDepth) }
        onPath.insert(uid)
        defer {
            onPath.remove(uid)
            done.insert(uid)
        }
        var rendered = try render(objects[Int(uid)], uid: uid)
        if shared == .references, (referenceCounts[uid] ?? 0) > 1, case let .object(members) = rendered {
            rendered = .object([.init("$uid", .integer(uid))] + members)
        }
        return rendered
    }

    /// The class an instance names: its `$classname` and its `$classes` (nil when absent; the
    /// value itself when it is not an array of strings). Nil, with a warning, when `$class`
    /// does not lead to a class descriptor.
    mutating func className(_ fields: PlistDictionary, uid: UInt64) -> (name: String, chain: PlistValue?)? {
        guard let ref = fields["$class"] else { return nil }
        guard case let .uid(c) = ref, c < UInt64(objects.count), case let .dictionary(descriptor) = objects[Int(c)],
              case let .string(name)? = descriptor["$classname"] else {
            warn("$objects[\(uid)].$class: does not name a class descriptor ({$classname, $classes})")
            return nil
        }
        if let chain = descriptor["$classes"], !Self.isStringArray(chain) {
            warn("$objects[\(c)].$classes: is \(chain.typeName), not an array of class names")
        }
        return (name, descriptor["$classes"])
    }

    static func isStringArray(_ value: PlistValue) -> Bool {
        guard case let .array(items) = value else { return false }
        return items.allSatisfy { if case .string = $0 { return true }; return false }
    }

    /// The chains Apple writes for the classes with a short form.
    static let appleChains: [String: [String]] = [
        "NSDictionary": ["NSDictionary", "NSObject"],
        "NSMutableDictionary": ["NSMutableDictionary", "NSDictionary", "NSObject"],
        "NSArray": ["NSArray", "NSObject"], "NSMutableArray": ["NSMutableArray", "NSArray", "NSObject"],
        "NSSet": ["NSSet", "NSObject"], "NSMutableSet": ["NSMutableSet", "NSSet", "NSObject"],
        "NSOrderedSet": ["NSOrderedSet", "NSObject"], "NSMutableOrderedSet": ["NSMutableOrderedSet", "NSOrderedSet", "NSObject"],
        "NSString": ["NSString", "NSObject"], "NSMutableString": ["NSMutableString", "NSString", "NSObject"],
        "NSDate": ["NSDate", "NSObject"],
        "NSData": ["NSData", "NSObject"], "NSMutableData": ["NSMutableData", "NSData", "NSObject"],
        "NSUUID": ["NSUUID", "NSObject"], "NSURL": ["NSURL", "NSObject"], "NSNull": ["NSNull", "NSObject"],
    ]

    mutating func render(_ value: PlistValue, uid: UInt64) throws(ArchiveDump.DumpError) -> JSON {
        guard case let .dictionary(fields) = value, let cls = className(fields, uid: uid) else {
            // Inline scalars, plain containers, and objects whose class cannot be resolved.
            return try self.value(value)
        }
        // The short form only for exactly Apple's object: anything else keeps every detail.
        if let chain = cls.chain, case let .array(items) = chain, items == Self.appleChains[cls.name]?.map({ PlistValue.string($0) }),
           let natural = try natural(cls.name, fields) {
            return natural
        }
        var members: [JSON.Member] = [.init("$class", .string(cls.name))]
        if let chain = cls.chain {
            // A class chain is printed with every instance: each name counts.
            if case let .array(items) = chain { for _ in items { try tick() } }
            members.append(.init("$classes", ArchiveDump.json(chain)))
        }
        for (key, field) in fields where key != "$class" {
            members.append(.init(key, try self.value(field)))
        }
        return .object(members)
    }

    /// The natural shape of a known Foundation class, or nil when the object's keys are not
    /// exactly the ones that shape covers (then the generic form keeps everything).
    mutating func natural(_ name: String, _ fields: PlistDictionary) throws(ArchiveDump.DumpError) -> JSON? {
        let keys = Set(fields.map(\.key)).subtracting(["$class"])
        func uidList(_ key: String) -> [PlistValue]? {
            guard case let .array(items)? = fields[key], items.allSatisfy({ if case .uid = $0 { return true }; return false }) else {
                return nil
            }
            return items
        }
        let head = JSON.Member("$class", .string(name))
        switch name {
        case "NSDictionary", "NSMutableDictionary":
            guard keys == ["NS.keys", "NS.objects"], let k = uidList("NS.keys"), let v = uidList("NS.objects"), k.count == v.count else {
                return nil
            }
            var entries: [JSON] = []
            for (key, value) in zip(k, v) { entries.append(.array([try self.value(key), try self.value(value)])) }
            return .object([head, .init("entries", .array(entries))])
        case "NSArray", "NSMutableArray", "NSSet", "NSMutableSet":
            guard keys == ["NS.objects"], let items = uidList("NS.objects") else { return nil }
            var out: [JSON] = []
            for item in items { out.append(try self.value(item)) }
            return .object([head, .init("items", .array(out))])
        case "NSOrderedSet", "NSMutableOrderedSet":
            // Apple writes NS.object.0, NS.object.1, ... (none at all when empty).
            let count = keys.count
            guard keys == Set((0..<count).map { "NS.object.\($0)" }) else { return nil }
            var out: [JSON] = []
            for i in 0..<count { out.append(try self.value(fields["NS.object.\(i)"]!)) }
            return .object([head, .init("items", .array(out))])
        case "NSString", "NSMutableString":
            guard keys == ["NS.string"], case let .string(s)? = fields["NS.string"] else { return nil }
            return .object([head, .init("string", .string(s))])
        case "NSDate":
            guard keys == ["NS.time"], case let .real(t)? = fields["NS.time"] else { return nil }
            let utc = ExactTime.utcString(secondsSince2001: t)
            return .object([head, .init("time", ArchiveDump.real(t)), .init("utc", utc.map { .string($0) } ?? .null)])
        case "NSData", "NSMutableData":
            guard keys == ["NS.data"], case let .data(bytes)? = fields["NS.data"] else { return nil }
            return .object([head, .init("data", .string(Base64.encode(bytes)))])
        case "NSUUID":
            guard keys == ["NS.uuidbytes"], case let .data(b)? = fields["NS.uuidbytes"], b.count == 16 else { return nil }
            let hex = b.map { $0 < 16 ? "0" + String($0, radix: 16) : String($0, radix: 16) }
            let text = [0..<4, 4..<6, 6..<8, 8..<10, 10..<16].map { hex[$0].joined() }.joined(separator: "-").uppercased()
            return .object([head, .init("uuid", .string(text))])
        case "NSURL":
            guard keys == ["NS.base", "NS.relative"] else { return nil }
            return .object([head, .init("base", try value(fields["NS.base"]!)), .init("relative", try value(fields["NS.relative"]!))])
        case "NSNull":
            guard keys.isEmpty else { return nil }
            return .object([head])
        // unreachable: render(_:uid:) asks only for a class of `appleChains`, and each of those has a case above
        default:
            return nil
        }
    }
}
