internal import FirstTimeCore
internal import KeyedArchive
internal import Plist
internal import PlistCore

/// libplist's tree of a binary archive whose envelope is exactly what NSKeyedArchiver writes.
/// Anything else is left to `KeyedArchive`, whose envelope check gives the precise finding.
///
/// A node's handle is its address in libplist's tree (``PlistAddress``): the walker holds it
/// without a table, and an access is a call here and one into `Plist`, which calls libplist.
final class NodeGraph: ArchiveGraph {
    /// `$objects`, followed as the walker asks (see ``PlistItemCursor``). It keeps the document
    /// alive, which every node the walker reads is borrowed from.
    let objects: PlistItemCursor
    let rootUID: UInt64?
    /// Whether an integer may be a 16-byte one (``PlistDocument/mayHoldWideIntegers``).
    private let mayHoldWideIntegers: Bool

    init?(_ document: PlistDocument) {
        let envelope = document.top
        mayHoldWideIntegers = document.mayHoldWideIntegers
        // Exactly the four keys NSKeyedArchiver writes (more: the checked path names them).
        guard document.format == .binary, envelope.dictionaryCount == 4,
              envelope[literal: "$archiver"]?.string == KeyedArchive.archiverName,
              envelope[literal: "$version"]?.int64(mayBeWide: mayHoldWideIntegers) == KeyedArchive.archiverVersion,
              let top = envelope[literal: "$top"], top.dictionaryCount == 1, let rootUID = top[literal: "root"]?.uid,
              let array = envelope[literal: "$objects"], let objects = PlistItemCursor(array, of: document),
              objects.count > 0, objects[0].string == "$null"
        else { return nil }
        self.objects = objects
        self.rootUID = rootUID
    }

    var objectCount: Int { objects.count }
    func object(at index: Int) -> ArchiveNode { ArchiveNode(objects.address(at: index)) }
    func kind(_ node: ArchiveNode) -> PlistKind { PlistAddress.kind(node.handle) }
    func string(_ node: ArchiveNode) -> String? { PlistAddress.string(node.handle) }
    func uid(_ node: ArchiveNode) -> UInt64? { PlistAddress.uid(node.handle) }
    func real(_ node: ArchiveNode) -> Double? { PlistAddress.real(node.handle) }
    /// An integer of 1 to 8 bytes; nil for a 16-byte one (libplist keeps only its low half), which
    /// the checked path then reads exactly.
    func integer(_ node: ArchiveNode) -> PlistInteger? {
        PlistAddress.int64(node.handle, mayBeWide: mayHoldWideIntegers).map { .signed($0) }
    }
    func items(_ node: ArchiveNode) -> [ArchiveNode]? { PlistAddress.items(node.handle)?.map(ArchiveNode.init) }
    func field(_ node: ArchiveNode, _ key: String) -> ArchiveNode? { PlistAddress.field(node.handle, key).map(ArchiveNode.init) }
    func field(_ node: ArchiveNode, named key: StaticString) -> ArchiveNode? {
        PlistAddress.field(node.handle, literal: key).map(ArchiveNode.init)
    }
    func fieldCount(_ node: ArchiveNode) -> Int { PlistAddress.dictionaryCount(node.handle) }
    // unreachable: the walker lists the fields only of a node classInfo found to be an instance, a dictionary, which
    // always has keys
    func fieldKeys(_ node: ArchiveNode) -> [String] { PlistAddress.keys(node.handle) ?? [] }
}
