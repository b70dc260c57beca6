package import KeyedArchive
package import PlistCore

/// One node of an archive's object graph as ``ContractWalker`` holds it: a handle that only the
/// ``ArchiveGraph`` which gave it can read. A handle is one machine word, so the walker copies
/// nodes without knowing how a conformer keeps them (libplist's tree or resolved values).
package struct ArchiveNode {
    /// The conformer's own number for the node (an address, an index, ...).
    package let handle: UInt

    package init(_ handle: UInt) { self.handle = handle }
}

/// An archive's `$objects` table, as ``ContractWalker`` reads it. Two conformers: the resolved
/// `KeyedArchive` (``ResolvedGraph``: any plist format, every finding) and `NodeGraph`
/// (libplist's tree of a binary archive, the fast path, in FirstTimeArchive). The walker reads
/// nodes only through this protocol, so the rules are applied by one piece of code whichever
/// tree holds the objects. A class protocol over handles: ``ContractWalker`` says why.
package protocol ArchiveGraph: AnyObject {
    /// `$top.root`; nil when absent.
    var rootUID: UInt64? { get }
    /// Where the envelope holds more than NSKeyedArchiver writes: a key beside `$archiver`,
    /// `$version`, `$top` and `$objects`, or a `$top` key beside `root`.
    var envelopeExtras: [ObjectPath] { get }
    /// The number of objects.
    var objectCount: Int { get }
    /// The object at `index` (`index < objectCount`).
    func object(at index: Int) -> ArchiveNode
    /// A node's property-list kind.
    func kind(_ node: ArchiveNode) -> PlistKind
    /// A string node's text.
    func string(_ node: ArchiveNode) -> String?
    /// A UID node's value.
    func uid(_ node: ArchiveNode) -> UInt64?
    /// A real node's value.
    func real(_ node: ArchiveNode) -> Double?
    /// An integer node's value, exactly; nil for anything else (or an integer the conformer
    /// cannot read exactly, which then counts as no number).
    func integer(_ node: ArchiveNode) -> PlistInteger?
    /// An array node's items.
    func items(_ node: ArchiveNode) -> [ArchiveNode]?
    /// A dictionary node's value for `key`.
    func field(_ node: ArchiveNode, _ key: String) -> ArchiveNode?
    /// The same for a key the walker spells literally (no string is built for it).
    func field(_ node: ArchiveNode, named key: StaticString) -> ArchiveNode?
    /// A dictionary node's number of entries.
    func fieldCount(_ node: ArchiveNode) -> Int
    /// A dictionary node's keys, in order.
    func fieldKeys(_ node: ArchiveNode) -> [String]
}

extension ArchiveGraph {
    /// None (a graph that only exists for an envelope exactly as NSKeyedArchiver writes it).
    package var envelopeExtras: [ObjectPath] { [] }
}

/// A resolved `KeyedArchive` as the walker reads it (any plist format, every finding).
///
/// Node `n` is object `n` below the object count. A value the walker reaches inside an object (a
/// field, an item) is most often a UID, which is its own node (its number with the top bit set);
/// any other is kept in a table when it is handed out, and numbered after the objects.
package final class ResolvedGraph: ArchiveGraph {
    package let archive: KeyedArchive
    /// The number of objects: the first node of `inner`.
    private let count: Int
    /// The values handed out that are not objects, in the order they were.
    private var inner: [PlistValue] = []

    package init(_ archive: KeyedArchive) {
        self.archive = archive
        count = archive.objects.count
    }

    /// The bit that marks a node holding a UID itself.
    private static let uidBit: UInt = 1 << (UInt.bitWidth - 1)

    /// The number of a node that holds a UID itself.
    private func inlineUID(_ node: ArchiveNode) -> UInt64? {
        node.handle & Self.uidBit != 0 ? UInt64(node.handle & ~Self.uidBit) : nil
    }

    /// The value of a node this graph handed out; nil for a node that holds a UID itself (which
    /// is no string, real, array or dictionary; a `PlistValue` for it would be allocated).
    private func value(_ node: ArchiveNode) -> PlistValue? {
        guard node.handle & Self.uidBit == 0 else { return nil }
        let index = Int(bitPattern: node.handle)
        return index < count ? archive.objects[index] : inner[index - count]
    }

    /// A node for a value inside an object.
    private func node(_ value: PlistValue) -> ArchiveNode {
        if case let .uid(uid) = value, let bits = UInt(exactly: uid), bits & Self.uidBit == 0 {
            return ArchiveNode(bits | Self.uidBit)
        }
        inner.append(value)
        return ArchiveNode(UInt(bitPattern: count + inner.count - 1))
    }

    // The requirements, as ArchiveGraph documents them.
    package var rootUID: UInt64? { archive.top["root"]?.uidValue }
    package var envelopeExtras: [ObjectPath] {
        archive.otherEnvelopeKeys.map { ObjectPath.key($0) }
            + archive.top.map(\.key).filter { !exactlyEqual($0, "root") }.map { ObjectPath.key("$top").key($0) }
    }
    package var objectCount: Int { count }
    package func object(at index: Int) -> ArchiveNode { ArchiveNode(UInt(bitPattern: index)) }
    package func kind(_ node: ArchiveNode) -> PlistKind { value(node)?.kind ?? .uid }
    package func string(_ node: ArchiveNode) -> String? { value(node)?.stringValue }
    package func uid(_ node: ArchiveNode) -> UInt64? { inlineUID(node) ?? value(node)?.uidValue }
    package func real(_ node: ArchiveNode) -> Double? { value(node)?.realValue }
    package func integer(_ node: ArchiveNode) -> PlistInteger? {
        // unreachable: (the nil) the walker asks for the integer only of a node whose kind is .integer
        if case let .integer(integer)? = value(node) { integer } else { nil }
    }
    package func items(_ node: ArchiveNode) -> [ArchiveNode]? { value(node)?.arrayValue?.map { self.node($0) } }
    package func field(_ node: ArchiveNode, _ key: String) -> ArchiveNode? {
        value(node)?.dictionaryValue?[key].map { self.node($0) }
    }
    package func field(_ node: ArchiveNode, named key: StaticString) -> ArchiveNode? { field(node, key.description) }
    // unreachable: (both lines) the walker counts and lists the fields only of a node classInfo found to be an
    // instance, a dictionary
    package func fieldCount(_ node: ArchiveNode) -> Int { value(node)?.dictionaryValue?.count ?? 0 }
    // unreachable: as above
    package func fieldKeys(_ node: ArchiveNode) -> [String] { value(node)?.dictionaryValue?.map(\.key) ?? [] }
}
