/// Writes Apple's XML property-list form exactly.
///
/// ycft writes XML itself because libplist 2.2.0's writer turns `-0.0` into `0.0`. Reals use
/// the shortest text that reads back to the same double; XML dates hold whole seconds, so a
/// date with a fraction is refused rather than rounded.
struct XMLPlistWriter {
    private var out = ""

    mutating func document(_ value: PlistValue) throws(PlistError) -> [UInt8] {
        out = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">

        """
        try write(value, indent: 0, path: "")
        out += "</plist>\n"
        return Array(out.utf8)
    }

    private static func realText(_ d: Double) -> String {
        if d.isNaN { return "nan" }
        if d.isInfinite { return d < 0 ? "-infinity" : "+infinity" }
        return d.description
    }

    private func escaped(_ s: String, path: String) throws(PlistError) -> String {
        var text = ""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "&": text += "&amp;"
            case "<": text += "&lt;"
            case ">": text += "&gt;"
            case "\r": text += "&#13;"
            case "\t", "\n": text.unicodeScalars.append(scalar)
            default:
                if scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF {
                    throw .unwritable("XML 1.0 cannot hold character U+\(String(scalar.value, radix: 16, uppercase: true))",
                                      at: path.isEmpty ? "top level" : path)
                }
                text.unicodeScalars.append(scalar)
            }
        }
        return text
    }

    private mutating func write(_ value: PlistValue, indent: Int, path: String) throws(PlistError) {
        let pad = String(repeating: "\t", count: indent)
        switch value {
        case let .string(s):
            out += "\(pad)<string>\(try escaped(s, path: path))</string>\n"
        case let .integer(i):
            // Apple's XML parser reads -2^63 ... 2^64-1 and refuses anything beyond as an
            // overflow (its writer would write it all the same): refused here, never changed.
            // XML has one kind of integer, so a 16-byte integer in that range reads back as the
            // same value (a 16-byte -1 as -1); a binary file keeps its size.
            guard i.fitsXML else {
                throw .unwritable("integer \(i) lies outside -2^63 ... 2^64-1, which XML <integer> holds as Apple reads it",
                                  at: path.isEmpty ? "top level" : path)
            }
            out += "\(pad)<integer>\(i)</integer>\n"
        case let .real(d):
            out += "\(pad)<real>\(Self.realText(d))</real>\n"
        case let .real32(bits):
            // XML has one kind of real: a 4-byte one is written as its exact (widened) value.
            out += "\(pad)<real>\(Self.realText(Double(Float(bitPattern: bits))))</real>\n"
        case let .bool(b):
            out += b ? "\(pad)<true/>\n" : "\(pad)<false/>\n"
        case let .date(d):
            guard d.isFinite, d == d.rounded(.down), d.magnitude < 1e15,
                  let text = CivilTime.isoDateTime(secondsSince2001: Int64(d)) else {
                throw .unwritable("date \(d) has a fraction of a second or lies outside years 1-9999; XML dates hold whole seconds",
                                  at: path.isEmpty ? "top level" : path)
            }
            out += "\(pad)<date>\(text)Z</date>\n"
        case let .data(bytes):
            out += "\(pad)<data>\(Base64.encode(bytes))</data>\n"
        case let .uid(u):
            guard u <= UInt64(UInt32.max) else {
                throw .unwritable("UID \(u) is larger than 2^32-1", at: path.isEmpty ? "top level" : path)
            }
            out += "\(pad)<dict>\n\(pad)\t<key>CF$UID</key>\n\(pad)\t<integer>\(u)</integer>\n\(pad)</dict>\n"
        case let .array(items):
            if items.isEmpty { out += "\(pad)<array/>\n"; return }
            out += "\(pad)<array>\n"
            for (i, item) in items.enumerated() { try write(item, indent: indent + 1, path: "\(path)[\(i)]") }
            out += "\(pad)</array>\n"
        case let .dictionary(dict):
            if dict.count == 0 { out += "\(pad)<dict/>\n"; return }
            out += "\(pad)<dict>\n"
            for (key, item) in dict {
                let itemPath = appendPath(path, key: key)
                out += "\(pad)\t<key>\(try escaped(key, path: itemPath))</key>\n"
                try write(item, indent: indent + 1, path: itemPath)
            }
            out += "\(pad)</dict>\n"
        }
    }
}
