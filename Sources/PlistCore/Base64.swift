/// Standard base64 (RFC 4648, with padding), without Foundation.
package enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    package static func encode(_ bytes: [UInt8]) -> String {
        var out = [UInt8]()
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        let pad = UInt8(ascii: "=")
        var i = 0
        // Three bytes a group of four digits; a last group of one or two bytes ends in padding.
        while i < bytes.count {
            let rest = bytes.count - i
            let n = UInt32(bytes[i]) << 16 | (rest > 1 ? UInt32(bytes[i + 1]) << 8 : 0) | (rest > 2 ? UInt32(bytes[i + 2]) : 0)
            out += [alphabet[Int(n >> 18)], alphabet[Int(n >> 12 & 63)], rest > 1 ? alphabet[Int(n >> 6 & 63)] : pad, rest > 2 ? alphabet[Int(n & 63)] : pad]
            i += 3
        }
        return String(decoding: out, as: UTF8.self)
    }
}
