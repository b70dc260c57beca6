internal import CLibPlist
internal import KeyedArchive
internal import Plist

/// An archive's `$objects` table, as ``ContractWalker`` reads it. Two conformers: the resolved
/// ``KeyedArchive`` (any plist format, every finding) and ``NodeGraph`` (libplist's tree of a
/// binary archive, the fast path). The walker is generic over this, so the rules are applied by
/// one piece of code whichever tree holds the objects.
protocol ArchiveGraph {
    associatedtype Node
    /// `$top.root`; nil when absent.
    var rootUID: UInt64? { get }
    /// The number of objects.
    var objectCount: Int { get }
    /// The object at `index` (`index < objectCount`).
    func object(at index: Int) -> Node
    func kind(_ node: Node) -> PlistKind
    /// A string node's text.
    func string(_ node: Node) -> String?
    func uid(_ node: Node) -> UInt64?
    func real(_ node: Node) -> Double?
    func items(_ node: Node) -> [Node]?
    /// A dictionary node's value for `key`.
    func field(_ node: Node, _ key: String) -> Node?
    /// The same for a key the walker spells literally (no string is built for it).
    func field(_ node: Node, named key: StaticString) -> Node?
    /// A dictionary node's number of entries.
    func fieldCount(_ node: Node) -> Int
    /// A dictionary node's keys, in order.
    func fieldKeys(_ node: Node) -> [String]
}

extension KeyedArchive: ArchiveGraph {
    typealias Node = PlistValue

    var rootUID: UInt64? { top["root"]?.uidValue }
    var objectCount: Int { objects.count }
    func object(at index: Int) -> PlistValue { objects[index] }
    func kind(_ node: PlistValue) -> PlistKind { node.kind }
    func string(_ node: PlistValue) -> String? { node.stringValue }
    func uid(_ node: PlistValue) -> UInt64? { node.uidValue }
    func real(_ node: PlistValue) -> Double? { if case let .real(d) = node { return d }; return nil }
    func items(_ node: PlistValue) -> [PlistValue]? { node.arrayValue }
    func field(_ node: PlistValue, _ key: String) -> PlistValue? { node.dictionaryValue?[key] }
    func field(_ node: PlistValue, named key: StaticString) -> PlistValue? { node.dictionaryValue?[key.description] }
    func fieldCount(_ node: PlistValue) -> Int { node.dictionaryValue?.count ?? 0 }
    func fieldKeys(_ node: PlistValue) -> [String] { node.dictionaryValue?.map(\.key) ?? [] }
}

/// libplist's tree of a binary archive whose envelope is exactly what NSKeyedArchiver writes.
/// Anything else is left to ``KeyedArchive``, whose envelope check gives the precise finding.
struct NodeGraph: ArchiveGraph {
    typealias Node = PlistNode
    let document: PlistDocument
    let objects: [PlistNode]
    let rootUID: UInt64?

    init?(_ document: PlistDocument) {
        let envelope = document.top
        guard document.format == .binary,
              envelope["$archiver"]?.string == KeyedArchive.archiverName,
              envelope["$version"]?.int64 == KeyedArchive.archiverVersion,
              let top = envelope["$top"], top.dictionaryCount == 1, let rootUID = top["root"]?.uid,
              let objects = envelope["$objects"]?.items, objects.first?.string == "$null"
        else { return nil }
        self.document = document
        self.objects = objects
        self.rootUID = rootUID
    }

    var objectCount: Int { objects.count }
    func object(at index: Int) -> PlistNode { objects[index] }
    func kind(_ node: PlistNode) -> PlistKind { node.kind }
    func string(_ node: PlistNode) -> String? { node.string }
    func uid(_ node: PlistNode) -> UInt64? { node.uid }
    func real(_ node: PlistNode) -> Double? { node.real }
    func items(_ node: PlistNode) -> [PlistNode]? { node.items }
    func field(_ node: PlistNode, _ key: String) -> PlistNode? { node[key] }
    func field(_ node: PlistNode, named key: StaticString) -> PlistNode? { node[literal: key] }
    func fieldCount(_ node: PlistNode) -> Int { node.dictionaryCount }
    func fieldKeys(_ node: PlistNode) -> [String] { node.keys ?? [] }
}
