package import KeyedArchiveCore
package import PlistCore

/// An archive's `$objects` table, as ``ContractWalker`` reads it. Two conformers: the resolved
/// ``KeyedArchive`` (any plist format, every finding) and ``NodeGraph`` (libplist's tree of a
/// binary archive, the fast path). The walker is generic over this, so the rules are applied by
/// one piece of code whichever tree holds the objects.
package protocol ArchiveGraph {
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
    package typealias Node = PlistValue

    package var rootUID: UInt64? { top["root"]?.uidValue }
    package var objectCount: Int { objects.count }
    package func object(at index: Int) -> PlistValue { objects[index] }
    package func kind(_ node: PlistValue) -> PlistKind { node.kind }
    package func string(_ node: PlistValue) -> String? { node.stringValue }
    package func uid(_ node: PlistValue) -> UInt64? { node.uidValue }
    package func real(_ node: PlistValue) -> Double? { if case let .real(d) = node { return d }; return nil }
    package func items(_ node: PlistValue) -> [PlistValue]? { node.arrayValue }
    package func field(_ node: PlistValue, _ key: String) -> PlistValue? { node.dictionaryValue?[key] }
    package func field(_ node: PlistValue, named key: StaticString) -> PlistValue? { node.dictionaryValue?[key.description] }
    package func fieldCount(_ node: PlistValue) -> Int { node.dictionaryValue?.count ?? 0 }
    package func fieldKeys(_ node: PlistValue) -> [String] { node.dictionaryValue?.map(\.key) ?? [] }
}
