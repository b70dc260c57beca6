@_spi(Walker) internal import FirstTimeCore

internal import KeyedArchive
internal import Plist
@_spi(Walker) internal import PlistCore

/// libplist's tree of a binary archive whose envelope is exactly what NSKeyedArchiver writes.
/// Anything else is left to `KeyedArchive`, whose envelope check gives the precise finding.
struct NodeGraph: ArchiveGraph {
    typealias Node = PlistNode
    /// `$objects`, followed as the walker asks (see ``PlistItemCursor``). It keeps the document
    /// alive, which every node the walker reads is borrowed from.
    let objects: PlistItemCursor
    let rootUID: UInt64?

    init?(_ document: PlistDocument) {
        let envelope = document.top
        // Exactly the four keys NSKeyedArchiver writes (more: the checked path names them).
        guard document.format == .binary, envelope.dictionaryCount == 4,
              envelope["$archiver"]?.string == KeyedArchive.archiverName,
              envelope["$version"]?.int64 == KeyedArchive.archiverVersion,
              let top = envelope["$top"], top.dictionaryCount == 1, let rootUID = top["root"]?.uid,
              let array = envelope["$objects"], let objects = PlistItemCursor(array, of: document),
              objects.count > 0, objects[0].string == "$null"
        else { return nil }
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
