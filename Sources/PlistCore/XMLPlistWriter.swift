/// Writes Apple's XML property-list form exactly.
///
/// ycft writes XML itself because libplist 2.2.0's writer turns `-0.0` into `0.0`. Reals use
/// the shortest text that reads back to the same double; XML dates hold whole seconds, so a
/// date with a fraction is refused rather than rounded.
struct XMLPlistWriter {
    private var out = ""
    private var path = ValuePath()

    mutating func document(_ value: PlistValue) throws(PlistError) -> [UInt8] {
        out = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">

        """
        try write(value, indent: 0)
        out += "</plist>\n"
        return Array(out.utf8)
    }

    /// The NaN an XML `nan` reads back as (CoreFoundation reads no other: it refuses `-nan`).
    static let xmlNaN: UInt64 = 0x7FF8_0000_0000_0000

    /// A real's text, which reads back as the same bits: a NaN other than the one `nan` reads
    /// back as is refused.
    private func realText(_ d: Double) throws(PlistError) -> String {
        if d.isNaN {
            guard d.bitPattern == Self.xmlNaN else { throw .unwritable(.nanOutsideXML(bits: d.bitPattern), at: path.path) }
            return "nan"
        }
        if d.isInfinite { return d < 0 ? "-infinity" : "+infinity" }
        return d.description
    }

    private func escaped(_ s: String) throws(PlistError) -> String {
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
                    throw .unwritable(.characterOutsideXML(scalar), at: path.path)
                }
                text.unicodeScalars.append(scalar)
            }
        }
        return text
    }

    private mutating func write(_ value: PlistValue, indent: Int) throws(PlistError) {
        let pad = String(repeating: "\t", count: indent)
        switch value {
        case let .string(s):
            out += "\(pad)<string>\(try escaped(s))</string>\n"
        case let .integer(i):
            // Apple's XML parser reads -2^63 ... 2^64-1 and refuses anything beyond as an
            // overflow (its writer would write it all the same): refused here, never changed.
            // XML has one kind of integer, so a 16-byte integer in that range reads back as the
            // same value (a 16-byte -1 as -1); a binary file keeps its size.
            guard i.fitsXML else {
                let (high, low) = i.bits
                throw .unwritable(.integerOutsideXML(high: high, low: low), at: path.path)
            }
            out += "\(pad)<integer>\(i)</integer>\n"
        case let .real(d):
            out += "\(pad)<real>\(try realText(d))</real>\n"
        case let .real32(bits):
            // XML has one kind of real: a 4-byte one is written as its exact (widened) value.
            out += "\(pad)<real>\(try realText(Double(Float(bitPattern: bits))))</real>\n"
        case let .bool(b):
            out += b ? "\(pad)<true/>\n" : "\(pad)<false/>\n"
        case let .date(d):
            // Whole seconds: the microseconds utcString shows are then zeros.
            guard d == d.rounded(.down), d != 0 || d.sign == .plus, let text = ExactTime.utcString(secondsSince2001: d) else {
                throw .unwritable(.dateOutsideXML(d), at: path.path)
            }
            out += "\(pad)<date>\(text.prefix(19))Z</date>\n"
        case let .data(bytes):
            out += "\(pad)<data>\(Base64.encode(bytes))</data>\n"
        case let .uid(u):
            guard u <= UInt64(UInt32.max) else {
                throw .unwritable(.uidTooLarge(u), at: path.path)
            }
            out += "\(pad)<dict>\n\(pad)\t<key>CF$UID</key>\n\(pad)\t<integer>\(u)</integer>\n\(pad)</dict>\n"
        case let .array(items):
            if items.isEmpty { out += "\(pad)<array/>\n"; return }
            out += "\(pad)<array>\n"
            for (i, item) in items.enumerated() {
                path.push(.index(i))
                try write(item, indent: indent + 1)
                path.pop()
            }
            out += "\(pad)</array>\n"
        case let .dictionary(dict):
            if dict.count == 0 { out += "\(pad)<dict/>\n"; return }
            out += "\(pad)<dict>\n"
            for (key, item) in dict {
                path.push(.key(key))
                out += "\(pad)\t<key>\(try escaped(key))</key>\n"
                try write(item, indent: indent + 1)
                path.pop()
            }
            out += "\(pad)</dict>\n"
        }
    }
}
