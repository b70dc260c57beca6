package import KeyedArchive
@_spi(Walker) public import PlistCore

/// An archive's `$objects` table, as ``ContractWalker`` reads it. Two conformers: the resolved
/// `KeyedArchive` (any plist format, every finding) and ``NodeGraph`` (libplist's tree of a
/// binary archive, the fast path). The walker is generic over this, so the rules are applied by
/// one piece of code whichever tree holds the objects. SPI (`@_spi(Walker)`), public only so
/// that the walker can be specialized for `NodeGraph` in FirstTimeArchive.
@_spi(Walker) public protocol ArchiveGraph {
    /// One object of the table, as the conformer holds it.
    associatedtype Node
    /// `$top.root`; nil when absent.
    var rootUID: UInt64? { get }
    /// Where the envelope holds more than NSKeyedArchiver writes: a key beside `$archiver`,
    /// `$version`, `$top` and `$objects`, or a `$top` key beside `root`.
    var envelopeExtras: [ObjectPath] { get }
    /// The number of objects.
    var objectCount: Int { get }
    /// The object at `index` (`index < objectCount`).
    func object(at index: Int) -> Node
    /// A node's property-list kind.
    func kind(_ node: Node) -> PlistKind
    /// A string node's text.
    func string(_ node: Node) -> String?
    /// A UID node's value.
    func uid(_ node: Node) -> UInt64?
    /// A real node's value.
    func real(_ node: Node) -> Double?
    /// An array node's items.
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

extension ArchiveGraph {
    /// None (a graph that only exists for an envelope exactly as NSKeyedArchiver writes it).
    public var envelopeExtras: [ObjectPath] { [] }
}

/// A resolved `KeyedArchive` as the walker reads it (any plist format, every finding).
package struct ResolvedGraph: ArchiveGraph {
    /// The archive walked.
    package let archive: KeyedArchive

    /// A graph over `archive`'s objects.
    package init(_ archive: KeyedArchive) { self.archive = archive }

    /// A resolved value.
    package typealias Node = PlistValue

    /// `$top.root`; nil when absent.
    package var rootUID: UInt64? { archive.top["root"]?.uidValue }
    /// The keys beside NSKeyedArchiver's own in the envelope and in `$top`.
    package var envelopeExtras: [ObjectPath] {
        archive.otherEnvelopeKeys.map { ObjectPath.key($0) }
            + archive.top.map(\.key).filter { !exactlyEqual($0, "root") }.map { ObjectPath.key("$top").key($0) }
    }
    /// The number of objects.
    package var objectCount: Int { archive.objects.count }
    /// The object at `index`.
    package func object(at index: Int) -> PlistValue { archive.objects[index] }
    /// The value's kind.
    package func kind(_ node: PlistValue) -> PlistKind { node.kind }
    /// A string value's text.
    package func string(_ node: PlistValue) -> String? { node.stringValue }
    /// A UID value's number.
    package func uid(_ node: PlistValue) -> UInt64? { node.uidValue }
    /// A real value's number.
    package func real(_ node: PlistValue) -> Double? { node.realValue }
    /// An array value's items.
    package func items(_ node: PlistValue) -> [PlistValue]? { node.arrayValue }
    /// A dictionary value's value for `key`.
    package func field(_ node: PlistValue, _ key: String) -> PlistValue? { node.dictionaryValue?[key] }
    /// A dictionary value's value for `key`.
    package func field(_ node: PlistValue, named key: StaticString) -> PlistValue? { node.dictionaryValue?[key.description] }
    /// A dictionary value's number of entries.
    package func fieldCount(_ node: PlistValue) -> Int { node.dictionaryValue?.count ?? 0 }
    /// A dictionary value's keys, in order.
    package func fieldKeys(_ node: PlistValue) -> [String] { node.dictionaryValue?.map(\.key) ?? [] }
}
