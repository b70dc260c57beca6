/// Property-list bytes: which format they are in, whether ycft would read them (the guards),
/// and ycft's own writers for both formats. Reading goes through libplist, in the `Plist`
/// module (`LibPlist.read`); everything here is pure Swift, so code that only writes needs no
/// libplist.
package enum PropertyList {
    /// The format of `bytes`, or nil when they are not a property list.
    ///
    /// Binary starts with `bplist`; XML starts (after an optional UTF-8 byte-order mark,
    /// ``byteOrderMark``, and white space) with `<?xml`, `<!DOCTYPE` or `<plist`.
    package static func detectFormat<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> PlistFormat? {
        if bytes.starts(with: "bplist".utf8) { return .binary }
        let rest = bytes.dropFirst(bytes.starts(with: byteOrderMark) ? byteOrderMark.count : 0)
            .drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        for opening in ["<?xml", "<!DOCTYPE", "<plist"] where rest.starts(with: opening.utf8) {
            return .xml
        }
        return nil
    }

    /// The UTF-8 byte-order mark (`EF BB BF`), which some editors (Windows Notepad among them)
    /// put before an XML property list. CoreFoundation's parser reads past it
    /// (`CFPropertyList.c`'s `encodingForXMLData` finds it and the parse starts after it); ycft
    /// reads past it too (libplist 2.2.0 refuses it, so it never sees it), and a file ycft
    /// rewrites in XML keeps it (``write(_:format:byteOrderMark:)``).
    package static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// Whether `bytes` are an XML property list that starts with ``byteOrderMark``.
    package static func hasByteOrderMark(_ bytes: [UInt8]) -> Bool {
        bytes.starts(with: byteOrderMark) && detectFormat(bytes) == .xml
    }

    /// The encoding of an XML property list in UTF-16 or UTF-32, which CoreFoundation converts
    /// and reads: told as CoreFoundation tells it, by a byte-order mark (UTF-32's checked before
    /// UTF-16's, whose little-endian mark starts UTF-32's), else by the NUL bytes of ASCII
    /// markup in that encoding (`<` `00`), and only when what follows opens an XML property
    /// list as ``detectFormat(_:)`` asks; nil otherwise.
    static func foreignXMLEncoding(_ bytes: [UInt8]) -> (encoding: XMLTextEncoding, marked: Bool)? {
        let encodings: [XMLTextEncoding] = [.utf32BigEndian, .utf32LittleEndian, .utf16BigEndian, .utf16LittleEndian]
        // The first code units as ASCII (as far as they are ASCII): enough for detectFormat.
        func opensXML(_ text: ArraySlice<UInt8>, _ encoding: XMLTextEncoding) -> Bool {
            var ascii: [UInt8] = []
            var at = text.startIndex
            while ascii.count < 64, at + encoding.unitSize <= text.endIndex {
                let unit = text[at..<at + encoding.unitSize]
                let ordered = encoding.isBigEndian ? Array(unit) : unit.reversed()
                guard ordered.dropLast().allSatisfy({ $0 == 0 }), let last = ordered.last, last < 0x80 else { break }
                ascii.append(last)
                at += encoding.unitSize
            }
            return detectFormat(ascii) == .xml
        }
        if let marked = encodings.first(where: { bytes.starts(with: $0.byteOrderMark) }) {
            return opensXML(bytes.dropFirst(marked.byteOrderMark.count), marked) ? (marked, true) : nil
        }
        return encodings.first { opensXML(ArraySlice(bytes), $0) }.map { ($0, false) }
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
        guard let format = detectFormat(bytes) else {
            if let (encoding, marked) = foreignXMLEncoding(bytes) { throw encoding.error(marked: marked) }
            throw .unknownFormat
        }
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

    /// ``write(_:format:)``, after ``byteOrderMark`` when `byteOrderMark` is true and the format
    /// is XML (``marked(_:format:byteOrderMark:)``): how a file that had the mark is rewritten.
    package static func write(_ value: PlistValue, format: PlistFormat, byteOrderMark: Bool) throws(PlistError) -> [UInt8] {
        marked(try write(value, format: format), format: format, byteOrderMark: byteOrderMark)
    }

    /// Property-list bytes ycft wrote in `format`, as a file that starts with ``byteOrderMark``
    /// (`byteOrderMark` true) is rewritten: XML after the mark, as the file had it (a rewrite
    /// changes nothing it is not asked to); binary, which has no mark, as it is.
    package static func marked(_ written: [UInt8], format: PlistFormat, byteOrderMark: Bool) -> [UInt8] {
        byteOrderMark && format == .xml ? Self.byteOrderMark + written : written
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
