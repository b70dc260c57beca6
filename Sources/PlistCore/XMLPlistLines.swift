/// Where the elements an ``ObjectPath`` names are in an XML property list, by line: the one
/// locator behind `verify --format github`'s `line=`.
///
/// A path names the deepest element of it that the document holds (`$objects[5].lastTime`: the
/// value element after `<key>lastTime</key>` in that object's `<dict>`, else the `<dict>`). A
/// path of which no step is in the document, the whole file, a binary property list, a document
/// the XML guard refuses and one with a carriage return that ends no line feed (where editors
/// and XML disagree about lines) have no line: none rather than a wrong one.
///
/// ```swift
/// let lines = XMLPlistLines.lines(of: [.object(5).key("lastTime"), .file], in: bytes)
/// // [Optional(23), nil]
/// ```
///
/// The work is one pass of `XMLPlistScanner` over the bytes (bounded as reading is, by
/// `limits`) and one over the line feeds, for all paths together.
package enum XMLPlistLines {
    /// The 1-based line of the start tag of the element each path names, or nil (see the type).
    /// - Parameters:
    ///   - paths: where findings are, as ``ObjectPath``s of this document.
    ///   - bytes: the whole XML property list.
    ///   - limits: the bounds the document was read with.
    package static func lines(of paths: [ObjectPath], in bytes: [UInt8], limits: PlistLimits = .default) -> [Int?] {
        guard PropertyList.detectFormat(bytes) == .xml, !paths.allSatisfy(\.isFile) else { return paths.map { _ in nil } }
        var built = Trie()
        // The trie node of each path's deepest component (outermost first), or nil for none.
        let ends: [[Int]] = paths.map { built.insert($0) }
        var trie: Trie? = built
        let scanned = try? bytes.withPlistBytes { raw throws(PlistError) in
            try XMLPlistScanner(bytes: raw, limits: limits).scan(marking: &trie)
        }
        guard scanned != nil, let trie else { return paths.map { _ in nil } }
        let offsets: [Int?] = ends.map { nodes in nodes.reversed().lazy.compactMap { trie.offsets[$0] }.first }
        return lineNumbers(of: offsets, in: bytes)
    }

    /// Lines of byte offsets, in one pass; all nil when a carriage return ends no line feed.
    static func lineNumbers(of offsets: [Int?], in bytes: [UInt8]) -> [Int?] {
        let wanted = offsets.enumerated().compactMap { item in item.element.map { (offset: $0, index: item.offset) } }
            .sorted { $0.offset < $1.offset }
        var result = [Int?](repeating: nil, count: offsets.count)
        var line = 1, next = 0
        for (i, byte) in bytes.enumerated() {
            while next < wanted.count && wanted[next].offset == i {
                result[wanted[next].index] = line
                next += 1
            }
            if byte == 0x0D && (i + 1 == bytes.count || bytes[i + 1] != 0x0A) { return offsets.map { _ in nil } }
            if byte == 0x0A { line += 1 }
        }
        return result
    }

    /// One step from an element to a child: a dictionary's value by key (its UTF-8 bytes, as
    /// the XML guard compares keys), an array's item by position.
    enum Step: Hashable {
        case key([UInt8])
        case index(Int)
    }

    /// The paths asked for, merged: node ``top`` is the `<plist>`'s value, each other node a
    /// step from its parent. The scanner marks where each node's element starts.
    struct Trie {
        /// The node of the top-level value.
        static let top = 0
        private(set) var children: [[Step: Int]] = [[:]]
        /// Where each node's element starts, when the document holds it.
        private(set) var offsets: [Int?] = [nil]

        /// Adds a path; returns the node of each of its components that maps to an element,
        /// outermost first (empty when none does: the whole file).
        mutating func insert(_ path: ObjectPath) -> [Int] {
            var ends: [Int] = []
            var node = Self.top
            for (i, component) in path.components.enumerated() {
                let steps: [Step]
                switch component {
                case .topLevel where i == 0: steps = []
                case let .object(uid) where i == 0:
                    guard let index = Int(exactly: uid) else { return ends }
                    steps = [.key(Array("$objects".utf8)), .index(index)]
                case let .key(name): steps = [.key(Array(name.utf8))]
                case let .index(index): steps = [.index(index)]
                // A JSON member is text inside a string; `top level` or an object further in is
                // no shape a finding has, nor a binary object or a line: the path is as deep as
                // the steps before it.
                case .member, .topLevel, .object, .binaryObject, .line: return ends
                }
                for step in steps { node = child(node, step) }
                ends.append(node)
            }
            return ends
        }

        /// The node one step below `node`, made when new.
        private mutating func child(_ node: Int, _ step: Step) -> Int {
            if let existing = children[node][step] { return existing }
            children.append([:])
            offsets.append(nil)
            children[node][step] = children.count - 1
            return children.count - 1
        }

        /// Records where the element of `node` starts (the first time: keys and positions are
        /// unique in a document the guard accepts).
        mutating func mark(_ node: Int, at offset: Int) {
            if offsets[node] == nil { offsets[node] = offset }
        }
    }
}
