package import PlistCore
internal import CLibPlist
internal import Synchronization

/// A parsed property list kept in libplist's own tree, for readers that visit it once and want
/// to skip building a `PlistValue` tree (the fast path of the records decoder).
///
/// The same guards as `LibPlist.read` apply before libplist sees the bytes.
/// Nodes are borrowed from the document: use them only while it is alive.
package final class PlistDocument {
    private let root: plist_t
    package let format: PlistFormat

    /// Parses and guards bytes (binary or XML).
    /// - Throws: ``PlistError`` exactly as `LibPlist.read` does for bad input.
    package init(_ bytes: [UInt8], limits: PlistLimits = .default) throws(PlistError) {
        let parsed = try LibPlist.guardedParse(bytes, limits: limits)
        (root, format) = (parsed.node, parsed.format)
        maxDepth = limits.maxDepth
        // Kept (not copied: an array shares its storage) only when libplist's tree is not exact.
        exactSource = parsed.needsExactReader ? bytes : nil
    }

    private let maxDepth: Int
    /// The bytes of a binary document libplist's tree does not hold exactly
    /// (`BinaryPlistScanner.Summary.needsExactReader`), whose value is built from them; else nil.
    private let exactSource: [UInt8]?

    deinit { PlistTrees.release(root) }

    /// The whole tree as a `PlistValue` (from `exactSource` when there is one): the same value
    /// `LibPlist.read` gives for the same bytes, without parsing them again.
    /// - Throws: ``PlistError`` as `LibPlist.read` does (for example a string libplist cannot
    ///   hold exactly).
    package func value() throws(PlistError) -> PlistValue {
        if let exactSource {
            return exactSource.withUnsafeBytes { BinaryPlistReader.read(scanned: $0) }
        }
        var reader = NodeReader(convertsCFUID: format == .xml, maxDepth: maxDepth)
        return try reader.value(of: root, depth: 0)
    }

    package var top: PlistNode { PlistNode(raw: root) }

    /// Whether an integer node may be a 16-byte one (``PlistNode/int64(mayBeWide:)``): false for
    /// a binary document whose guard pass found none (`exactSource`), true otherwise.
    package var mayHoldWideIntegers: Bool { format != .binary || exactSource != nil }
}

/// What becomes of a ``PlistDocument``'s libplist tree when the document is released: freed at
/// once, unless the process said it will exit soon after reading (``leaveLastToExit()``).
///
/// Freeing a tree is a call to `plist_free` per node, and glibc then coalesces every small
/// block it freed at the next large allocation: for a large archive, a share of a command's
/// time comparable to ycft's own reading of the tree (docs/performance.md, "Left to the
/// exit"). A process that ends right after reading has the kernel take the memory back at
/// once, as compilers do with their own trees.
package enum PlistTrees {
    private static let leavingToExit = Atomic<Bool>(false)
    /// The tree last released while ``leaveLastToExit()`` holds (its address), or 0.
    private static let held = Atomic<UInt>(0)

    /// From now on a released document's tree is kept until the next parse (or the next
    /// release) frees it, or the process exits: the process never holds two trees at once
    /// where a library would hold one, and never frees the last it read. For the `ycft`
    /// executable only; a library frees each tree with its document.
    package static func leaveLastToExit() {
        leavingToExit.store(true, ordering: .releasing)
    }

    /// Frees a tree at once, or keeps it in place of the one kept before (freed then).
    static func release(_ tree: plist_t) {
        guard leavingToExit.load(ordering: .acquiring) else { return plist_free(tree) }
        let previous = held.exchange(UInt(bitPattern: tree), ordering: .acquiringAndReleasing)
        if let previous = plist_t(bitPattern: previous) { plist_free(previous) }
    }

    /// Before a parse: frees the tree kept, if any, so that the new tree can take its memory.
    static func freeKept() {
        let previous = held.exchange(0, ordering: .acquiringAndReleasing)
        if let previous = plist_t(bitPattern: previous) { plist_free(previous) }
    }
}

/// A node borrowed from a ``PlistDocument``. Accessors return nil when the node is of another
/// kind, or when a string is not valid UTF-8 (the caller then takes the checked path).
package struct PlistNode {
    let raw: plist_t

    package var kind: PlistKind {
        switch ycft_node_kind(raw) {
        case YCFT_STRING, YCFT_KEY: return .string
        case YCFT_INTEGER: return .integer
        case YCFT_REAL: return .real
        case YCFT_BOOLEAN: return .bool
        case YCFT_DATE: return .date
        case YCFT_DATA: return .data
        case YCFT_UID: return .uid
        case YCFT_ARRAY: return .array
        case YCFT_DICT: return .dictionary
        default: return .other
        }
    }

    /// The string, validated as UTF-8.
    package var string: String? {
        guard kind == .string else { return nil }
        var length: UInt64 = 0
        guard let pointer = plist_get_string_ptr(raw, &length) else { return "" }
        return libplistString(pointer, length: Int(length))
    }

    package var real: Double? { kind == .real ? ycft_get_real(raw) : nil }

    package var uid: UInt64? {
        var value: UInt64 = 0
        return ycft_uid_value(raw, &value) != 0 ? value : nil
    }

    /// The integer, when it is one of 1 to 8 bytes; nil for a 16-byte integer, of which libplist
    /// keeps only the low half (``PlistDocument/value()`` reads it exactly). Asking libplist which
    /// it is costs a copy and a serialization of the node (a 32 KiB table zeroed and walked), so
    /// it is asked only when the node's document may hold one
    /// (``PlistDocument/mayHoldWideIntegers``, given as `mayBeWide`).
    package func int64(mayBeWide: Bool) -> Int64? {
        guard kind == .integer, !mayBeWide || ycft_int_is_16_bytes(raw) == 0 else { return nil }
        return Int64(bitPattern: ycft_get_uint(raw))
    }

    /// The number of entries of a dictionary.
    package var dictionaryCount: Int { kind == .dictionary ? Int(plist_dict_get_size(raw)) : 0 }

    /// The value for `key` in a dictionary (libplist compares keys byte for byte).
    package subscript(key: String) -> PlistNode? {
        // plist_dict_get_item checks the node's type itself: nil for anything but a dictionary.
        guard let item = plist_dict_get_item(raw, key) else { return nil }
        return PlistNode(raw: item)
    }

    /// The same for a literal key: its NUL-terminated bytes go to libplist as they are.
    package subscript(literal key: StaticString) -> PlistNode? {
        let pointer = UnsafeRawPointer(key.utf8Start).assumingMemoryBound(to: CChar.self)
        guard key.hasPointerRepresentation, let item = plist_dict_get_item(raw, pointer) else { return nil }
        return PlistNode(raw: item)
    }

    /// The keys of a dictionary, in order (nil for another kind, or a key that is not UTF-8).
    package var keys: [String]? {
        guard kind == .dictionary else { return nil }
        var out: [String] = []
        guard let iter = ycft_dict_iter(raw) else { return out }
        defer { ycft_plist_mem_free(iter) }
        while true {
            var keyPointer: UnsafeMutablePointer<CChar>?
            guard ycft_dict_next(raw, iter, &keyPointer) != nil, let keyPointer else {
                ycft_plist_mem_free(keyPointer)
                return out
            }
            defer { ycft_plist_mem_free(keyPointer) }
            guard let key = libplistString(keyPointer, length: strlen(keyPointer)) else {
                return nil
            }
            out.append(key)
        }
    }

    /// The items of an array, walked with libplist's iterator (never an index loop).
    package var items: [PlistNode]? { items(PlistNode.init(raw:)) }

    /// The items of an array, each as `transform` makes it.
    fileprivate func items<Item>(_ transform: (plist_t) -> Item) -> [Item]? {
        guard kind == .array else { return nil }
        var out: [Item] = []
        out.reserveCapacity(Int(plist_array_get_size(raw)))
        guard let iter = ycft_array_iter(raw) else { return out }
        defer { ycft_plist_mem_free(iter) }
        while let item = ycft_array_next(raw, iter) { out.append(transform(item)) }
        return out
    }
}

/// An array's items, followed only as far as they are asked for.
///
/// libplist keeps an array as a linked list: reaching item `n` follows the `n` links before it.
/// ``PlistNode/items`` follows them all at once; this follows them as far as the highest index
/// asked for, and keeps the nodes it passed, so a later item below it costs no link.
///
/// The archive walker reads `$objects` through it. It checks the root's class first, and
/// NSKeyedArchiver writes that class descriptor last, so on a whole archive every link is
/// followed at that first check (docs/performance.md, "Second implementations").
///
/// It keeps its document alive; the ``PlistNode``s it gives are borrowed from that document.
package final class PlistItemCursor {
    private let document: PlistDocument
    private let array: plist_t
    private let iterator: plist_array_iter
    private let nodes: UnsafeMutablePointer<plist_t>
    package let count: Int
    /// How many items have been reached (their nodes are in `nodes`).
    private var reached = 0

    /// The items of `node`, an array node of `document`; nil for another kind.
    package init?(_ node: PlistNode, of document: PlistDocument) {
        guard node.kind == .array, let iterator = ycft_array_iter(node.raw) else { return nil }
        self.document = document
        array = node.raw
        self.iterator = iterator
        count = Int(plist_array_get_size(node.raw))
        nodes = .allocate(capacity: max(count, 1))
    }

    deinit {
        ycft_plist_mem_free(iterator)
        nodes.deallocate()
    }

    /// Item `index` (`0 <= index < count`, checked: anything else stops the program, as an
    /// array's subscript does), following the links up to it when not yet reached.
    @inline(__always) package subscript(index: Int) -> PlistNode {
        // One unsigned comparison rules out a negative index too.
        PlistNode(raw: UInt(bitPattern: index) < UInt(bitPattern: reached) ? nodes[index] : reach(index))
    }

    /// The address of item `index` (``PlistAddress``), as the subscript checks it.
    package func address(at index: Int) -> UInt { UInt(bitPattern: self[index].raw) }

    private func reach(_ index: Int) -> plist_t {
        precondition(index >= 0 && index < count, "PlistItemCursor: index \(index) is outside 0..<\(count)")
        while reached <= index {
            // libplist's count and its list agree; should they not, the array node stands in
            // for a missing item (the walker then reports a wrong kind, never reads past).
            nodes[reached] = ycft_array_next(array, iterator) ?? array
            reached += 1
        }
        return nodes[index]
    }
}

/// libplist's nodes named by their addresses, for a reader that keeps nodes as plain numbers:
/// the archive walker's handles (`ArchiveNode`, in FirstTimeCore, which cannot name libplist's
/// types). Each function is ``PlistNode``'s accessor of the same name, for the node at
/// `address`, which must come from a node of a document that is still alive (the cursor's
/// ``PlistItemCursor/address(at:)``, or one of these); address zero is no node.
package enum PlistAddress {
    private static func node(_ address: UInt) -> PlistNode? { plist_t(bitPattern: address).map(PlistNode.init(raw:)) }
    private static func address(_ node: plist_t) -> UInt { UInt(bitPattern: node) }

    /// ``PlistNode/kind`` (`.other` for no node).
    package static func kind(_ address: UInt) -> PlistKind { node(address)?.kind ?? .other }
    /// ``PlistNode/string``.
    package static func string(_ address: UInt) -> String? { node(address)?.string }
    /// ``PlistNode/uid``.
    package static func uid(_ address: UInt) -> UInt64? { node(address)?.uid }
    /// ``PlistNode/real``.
    package static func real(_ address: UInt) -> Double? { node(address)?.real }
    /// ``PlistNode/int64(mayBeWide:)``.
    package static func int64(_ address: UInt, mayBeWide: Bool) -> Int64? { node(address)?.int64(mayBeWide: mayBeWide) }
    /// ``PlistNode/dictionaryCount``.
    package static func dictionaryCount(_ address: UInt) -> Int { node(address)?.dictionaryCount ?? 0 }
    /// ``PlistNode/keys``.
    package static func keys(_ address: UInt) -> [String]? { node(address)?.keys }
    /// The addresses of ``PlistNode/items``.
    package static func items(_ address: UInt) -> [UInt]? { node(address)?.items(Self.address(_:)) }
    /// The address of `PlistNode[key]`.
    package static func field(_ address: UInt, _ key: String) -> UInt? { node(address)?[key].map { Self.address($0.raw) } }
    /// The address of `PlistNode[literal: key]`.
    package static func field(_ address: UInt, literal key: StaticString) -> UInt? {
        node(address)?[literal: key].map { Self.address($0.raw) }
    }
}
