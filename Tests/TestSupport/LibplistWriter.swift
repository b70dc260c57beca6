import CLibPlist
import PlistCore

/// libplist's binary writer, as an oracle for the readers: ycft writes property lists itself
/// (``PropertyList/write(_:format:)``); this builds a libplist tree and lets libplist write it.
package enum LibplistWriter {
    /// Serializes a value with libplist's own binary writer (`plist_to_bin`): what ycft used
    /// before, kept to test that ycft reads what libplist writes (3-byte offsets and references,
    /// 4-byte reals, interleaved dictionaries). Test code: the tool only reads through libplist.
    package static func write(_ value: PlistValue) throws(PlistError) -> [UInt8] {
        var builder = NodeBuilder()
        let node = try builder.node(for: value)
        defer { plist_free(node) }
        var length: UInt32 = 0
        guard let buffer = ycft_plist_to_bin(node, &length) else { throw .serializationFailed(format: .binary) }
        defer { ycft_plist_mem_free(buffer) }
        return Array(UnsafeRawBufferPointer(start: buffer, count: Int(length)))
    }
}

/// Builds a libplist tree from a `PlistValue`; the caller frees the root.
private struct NodeBuilder {
    var path = ValuePath()

    mutating func node(for value: PlistValue) throws(PlistError) -> plist_t {
        switch value {
        case let .string(s):
            guard !s.utf8.contains(0) else { throw .unwritable(.containsNUL(inKey: false), at: path.path) }
            return plist_new_string(s)
        case let .integer(.signed(v)):
            return ycft_new_int(v)
        case let .integer(.unsigned(v)):
            guard let node = ycft_new_16_byte_uint(v) else { throw .serializationFailed(format: .binary) }
            return node
        case let .integer(.wide(high, low)):
            // libplist 2.2.0 keeps only the low half of a 16-byte integer.
            guard high == 0, let node = ycft_new_16_byte_uint(low) else {
                throw .unwritable(.integerBeyondLibplist(high: high, low: low), at: path.path)
            }
            return node
        case let .real(d):
            return plist_new_real(d)
        case let .real32(bits):
            // libplist holds a double; its binary writer puts one a float holds in 4 bytes.
            return plist_new_real(Double(Float(bitPattern: bits)))
        case let .bool(b):
            return plist_new_bool(b ? 1 : 0)
        case let .date(d):
            guard let node = ycft_new_date_exact(d) else { throw .serializationFailed(format: .binary) }
            return node
        case let .data(bytes):
            return bytes.withUnsafeBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) { plist_new_data($0.baseAddress, UInt64($0.count)) }
            }
        case let .uid(u):
            // libplist 2.2.0 keeps only the low 32 bits of a larger UID; CoreFoundation's are 32-bit.
            guard u <= UInt64(UInt32.max) else { throw .unwritable(.uidTooLarge(u), at: path.path) }
            return plist_new_uid(u)
        case let .array(items):
            // libplist returns nil only when malloc fails, which no input can cause (the size
            // limits bound every allocation); Swift cannot continue without memory anyway.
            let array = plist_new_array()!
            for (i, item) in items.enumerated() {
                path.push(.index(i))
                do {
                    plist_array_append_item(array, try node(for: item))
                } catch {
                    plist_free(array)
                    throw error
                }
                path.pop()
            }
            return array
        case let .dictionary(dict):
            // As above: nil only when malloc fails.
            let node = plist_new_dict()!
            for (key, item) in dict {
                path.push(.key(key))
                do throws(PlistError) {
                    guard !key.utf8.contains(0) else { throw PlistError.unwritable(.containsNUL(inKey: true), at: path.path) }
                    plist_dict_set_item(node, key, try self.node(for: item))
                } catch {
                    plist_free(node)
                    throw error
                }
                path.pop()
            }
            return node
        }
    }
}
