/// Property-list bytes: which format they are in, whether ycft would read them (the guards),
/// and ycft's own writers for both formats. Reading goes through libplist, in the `Plist`
/// module (`LibPlist.read`); everything here is pure Swift, so code that only writes needs no
/// libplist.
package enum PropertyList {
    /// The format of `bytes`, or nil when they are not a property list.
    ///
    /// Binary starts with `bplist`; XML starts (after an optional UTF-8 byte-order mark and
    /// white space) with `<?xml`, `<!DOCTYPE` or `<plist`.
    package static func detectFormat<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> PlistFormat? {
        if bytes.starts(with: "bplist".utf8) { return .binary }
        // unreachable: `...` is UnboundedRange, an operator function never called; coverage counts it as a region
        var rest = bytes[...]
        if rest.starts(with: [0xEF, 0xBB, 0xBF]) { rest = rest.dropFirst(3) }
        rest = rest.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        for opening in ["<?xml", "<!DOCTYPE", "<plist"] where rest.starts(with: opening.utf8) {
            return .xml
        }
        return nil
    }

    /// What the XML guard finds in an XML property list without handing it to libplist: the
    /// values libplist would build (keys not counted) and the deepest nesting of arrays and
    /// dictionaries. For tests and fuzzing: whenever this succeeds, libplist's read builds
    /// exactly that many values.
    /// - Throws: ``PlistError`` as a read would for the same bytes.
    package static func xmlShape(_ bytes: [UInt8], limits: PlistLimits = .default) throws(PlistError) -> (values: Int, depth: Int) {
        guard !bytes.isEmpty else { throw .empty }
        let summary = try bytes.withPlistBytes { raw throws(PlistError) in try XMLPlistScanner(bytes: raw, limits: limits).scan() }
        return (summary.values, summary.depth)
    }

    /// Whether ycft would read `bytes` with `limits`: the checks every read makes before
    /// libplist sees the bytes (size, format, and the binary or XML guard with its node and
    /// depth bounds), without parsing. libplist's reading path runs them before every
    /// parse, and a writer asks them so that it never writes what the reader would then refuse.
    /// `needsExactReader` is ``BinaryPlistScanner/Summary/needsExactReader``.
    /// - Throws: the ``PlistError`` a read would throw.
    @discardableResult
    package static func checkReadable(_ bytes: [UInt8], limits: PlistLimits) throws(PlistError)
        -> (format: PlistFormat, needsExactReader: Bool)
    {
        let format = try checkedFormat(bytes, limits: limits)
        let needsExactReader = try bytes.withPlistBytes { raw throws(PlistError) -> Bool in
            switch format {
            case .binary:
                var scanner = BinaryPlistScanner(bytes: raw, limits: limits)
                return try scanner.scan().needsExactReader
            case .xml:
                try XMLPlistScanner(bytes: raw, limits: limits).scan()
                return false
            }
        }
        return (format, needsExactReader)
    }

    /// The format of `bytes` once the checks that need no scan pass: not empty, not over the
    /// size limit, a property list.
    static func checkedFormat(_ bytes: [UInt8], limits: PlistLimits) throws(PlistError) -> PlistFormat {
        guard !bytes.isEmpty else { throw .empty }
        let maxSize = min(limits.maxInputSize, Int(UInt32.max))
        guard bytes.count <= maxSize else { throw .inputTooLarge(size: bytes.count, limit: maxSize) }
        guard let format = detectFormat(bytes) else { throw .unknownFormat }
        return format
    }

    /// Serializes a value, in either format by ycft's own writer (`BinaryPlistWriter` and
    /// `XMLPlistWriter` say why not libplist's). Every file ycft writes reads back through
    /// libplist to the same value.
    /// - Throws: ``PlistError/unwritable(_:at:)`` for a string holding NUL (libplist stores C
    ///   strings), a UID above 2^32-1, or a value XML cannot hold exactly.
    package static func write(_ value: PlistValue, format: PlistFormat) throws(PlistError) -> [UInt8] {
        switch format {
        case .xml:
            var writer = XMLPlistWriter()
            return try writer.document(value)
        case .binary:
            return try BinaryPlistWriter.write(value)
        }
    }
}

extension [UInt8] {
    /// `withUnsafeBytes` for a body that throws ``PlistError`` (the standard library's rethrows
    /// it as `any Error`).
    package func withPlistBytes<R>(_ body: (UnsafeRawBufferPointer) throws(PlistError) -> R) throws(PlistError) -> R {
        try withUnsafeBytes { raw in Result { () throws(PlistError) in try body(raw) } }.get()
    }
}

/// Where a reader or writer is in a value, kept as components and made an ``ObjectPath`` only
/// for an error (building a path for every node was most of the work).
package struct ValuePath {
    private var components: [ObjectPath.Component] = []

    package init() {}

    package mutating func push(_ component: ObjectPath.Component) { components.append(component) }
    package mutating func pop() { components.removeLast() }

    /// `key.sub[3]`, or `top level` at the top.
    package var path: ObjectPath { components.isEmpty ? .topLevel : ObjectPath(components) }
}
