internal import CLibPlist

package import PlistCore
package import KeyedArchive

/// Reading property lists through libplist, guarded against hostile input: the package's one
/// adapter over the C library. The guards it runs first (`PropertyList.checkReadable`) and
/// ycft's own writers are pure Swift, in PlistCore.
package enum LibPlist {
    /// Parses binary or XML property-list bytes, after checking them against `limits`.
    ///
    /// XML `{CF$UID: n}` dictionaries become `PlistValue.uid(_:)`. Dates keep their exact
    /// seconds, integers their sign, strings their exact scalars, dictionaries their key order.
    /// - Parameters:
    ///   - bytes: the whole input.
    ///   - limits: size, depth and expansion bounds.
    /// - Returns: the value and the format it was read from.
    /// - Throws: ``PlistError`` naming the first problem; nothing reaches libplist unchecked.
    ///   Calls `plist_from_bin` or `plist_from_xml`.
    package static func read(_ bytes: [UInt8], limits: PlistLimits = .default) throws(PlistError)
        -> (value: PlistValue, format: PlistFormat)
    {
        let document = try PlistDocument(bytes, limits: limits)
        return (try document.value(), document.format)
    }

    /// Reads an NSKeyedArchiver archive from property-list bytes.
    /// - Throws: ``ArchiveError/plist(_:)`` when the bytes are not a plist, otherwise the first
    ///   envelope problem.
    package static func keyedArchive(_ bytes: [UInt8], limits: PlistLimits = .default) throws(ArchiveError) -> KeyedArchive {
        let value: PlistValue
        do { value = try read(bytes, limits: limits).value } catch { throw .plist(error) }
        return try KeyedArchive(plist: value)
    }

    /// Checks the bytes (`PropertyList.checkReadable`), then parses them with libplist. The
    /// caller frees the returned tree.
    static func guardedParse(_ bytes: [UInt8], limits: PlistLimits) throws(PlistError)
        -> (node: plist_t, format: PlistFormat, needsExactReader: Bool)
    {
        let (format, needsExactReader) = try PropertyList.checkReadable(bytes, limits: limits)
        PlistTrees.freeKept()
        // libplist 2.2.0 refuses XML after the UTF-8 byte-order mark, which CoreFoundation reads
        // past: it is handed the bytes after the mark (the guard, which gives every position,
        // read the whole file). What follows the mark is not empty: detectFormat found `<`.
        let skip = format == .xml && bytes.starts(with: PropertyList.byteOrderMark) ? PropertyList.byteOrderMark.count : 0
        // `bytes` is not empty (checked), so `baseAddress` is not nil.
        let node: plist_t? = bytes.withUnsafeBytes { raw in
            let start = (raw.baseAddress! + skip).assumingMemoryBound(to: CChar.self)
            switch format {
            case .binary: return ycft_plist_from_bin(start, UInt32(raw.count - skip))
            case .xml: return ycft_plist_from_xml(start, UInt32(raw.count - skip))
            }
        }
        guard let node else { throw .libplistRejected(format: format) }
        return (node, format, needsExactReader)
    }
}

/// The one conversion of libplist's strings (NUL-terminated UTF-8 of `length` bytes), keys and
/// values alike: nil when not valid UTF-8 or holding a NUL (the guards refuse both). Through the
/// non-generic validator: `String(validating:as:)` took a costlier generic path (docs/performance.md).
@inline(__always)
func libplistString(_ pointer: UnsafePointer<CChar>, length: Int) -> String? {
    guard let s = String(validatingCString: pointer), s.utf8.count == length else { return nil }
    return s
}

struct NodeReader {
    let convertsCFUID: Bool
    let maxDepth: Int
    var path = ValuePath()

    func string(_ pointer: UnsafePointer<CChar>, length: Int) throws(PlistError) -> String {
        guard let s = libplistString(pointer, length: length) else {
            throw .unrepresentableString(.invalidUTF8, at: path.path)
        }
        return s
    }

    mutating func value(of node: plist_t, depth: Int) throws(PlistError) -> PlistValue {
        guard depth <= maxDepth else { throw .tooDeep(limit: maxDepth) }
        switch ycft_node_kind(node) {
        case YCFT_BOOLEAN:
            return .bool(ycft_get_bool(node) != 0)
        case YCFT_INTEGER:
            // A document holding a 16-byte integer is built from its bytes (`PlistDocument.value`),
            // so every integer here is libplist's exactly: 1 to 8 bytes, or (built by ycft,
            // never read) 16 bytes with the high half zero.
            let bits = ycft_get_uint(node)
            if bits > UInt64(Int64.max) && ycft_int_is_16_bytes(node) != 0 { return .integer(.unsigned(bits)) }
            return .integer(.signed(Int64(bitPattern: bits)))
        case YCFT_REAL:
            return .real(ycft_get_real(node))
        case YCFT_DATE:
            var exact = 0.0
            if ycft_date_exact(node, &exact) != 0 { return .date(exact) }
            var sec: Int32 = 0, usec: Int32 = 0
            ycft_get_date(node, &sec, &usec)
            return .date(Double(sec) + Double(usec) / 1_000_000)
        case YCFT_STRING, YCFT_KEY:
            var length: UInt64 = 0
            guard let pointer = plist_get_string_ptr(node, &length) else { return .string("") }
            return .string(try string(pointer, length: Int(length)))
        case YCFT_DATA:
            var length: UInt64 = 0
            guard let pointer = plist_get_data_ptr(node, &length), length > 0 else { return .data([]) }
            return .data(Array(UnsafeRawBufferPointer(start: pointer, count: Int(length))))
        case YCFT_UID:
            return .uid(ycft_get_uid(node))
        case YCFT_ARRAY:
            var items: [PlistValue] = []
            items.reserveCapacity(Int(plist_array_get_size(node)))
            guard let iter = ycft_array_iter(node) else { return .array([]) }
            defer { ycft_plist_mem_free(iter) }
            while let item = ycft_array_next(node, iter) {
                path.push(.index(items.count))
                items.append(try value(of: item, depth: depth + 1))
                path.pop()
            }
            return .array(items)
        case YCFT_DICT:
            var entries: [(key: String, value: PlistValue)] = []
            entries.reserveCapacity(Int(plist_dict_get_size(node)))
            guard let iter = ycft_dict_iter(node) else { return .dictionary(PlistDictionary()) }
            defer { ycft_plist_mem_free(iter) }
            while true {
                var keyPointer: UnsafeMutablePointer<CChar>?
                guard let item = ycft_dict_next(node, iter, &keyPointer) else {
                    ycft_plist_mem_free(keyPointer)
                    break
                }
                defer { ycft_plist_mem_free(keyPointer) }
                guard let keyPointer else { throw .libplistRejected(format: .binary) }
                // No duplicate check here: the guard refused equal keys before libplist ran
                // (binary: equal UTF-16 units; XML: equal text after entity decoding).
                let key = try string(keyPointer, length: strlen(keyPointer))
                path.push(.key(key))
                entries.append((key, try value(of: item, depth: depth + 1)))
                path.pop()
            }
            // CoreFoundation's UIDs are 32-bit; a larger CF$UID value stays a plain dictionary.
            if convertsCFUID, entries.count == 1, entries[0].key == "CF$UID",
               case let .integer(.signed(uid)) = entries[0].value, uid >= 0, uid <= Int64(UInt32.max) {
                return .uid(UInt64(uid))
            }
            return .dictionary(PlistDictionary(entries))
        default:
            throw .libplistRejected(format: .binary)
        }
    }
}
