/// Why property-list bytes could not be read or written.
///
/// Every case says what is wrong, as a `Defect` value, and where: a byte offset for binary
/// input, a line and key path for XML, an `ObjectPath` for values. ``description`` is a
/// message that can be shown to a user as it is.
///
/// ```swift
/// let error = PlistError.unwritable(.containsNUL(inKey: false), at: .key("name"))
/// error.description   // "cannot write value: string contains NUL (at name)"
/// ```
public enum PlistError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The input is empty.
    case empty
    /// The input is larger than ``PlistLimits/maxInputSize``.
    case inputTooLarge(size: Int, limit: Int)
    /// The bytes are neither a binary (`bplist00`) nor an XML property list.
    case unknownFormat
    /// An XML property list in UTF-16 or UTF-32 (`unitBits` 16 or 32; most significant byte
    /// first when `bigEndian`), told by its byte-order mark (`marked`) or by the NUL bytes
    /// around its ASCII markup. CoreFoundation converts such a file to UTF-8 and reads it;
    /// libplist, and so ycft, reads XML in UTF-8 only (with or without the UTF-8 mark).
    case xmlNotUTF8(unitBits: Int, bigEndian: Bool, marked: Bool)
    /// An XML property list whose declaration names an encoding other than UTF-8
    /// (`encoding="ISO-8859-1"`), as CoreFoundation finds it (`XMLPlistScanner.declaredEncoding(_:)`):
    /// CoreFoundation converts such a file from the encodings it knows and refuses the others;
    /// libplist would read its bytes as UTF-8, so ycft refuses it. `name` is the declared name,
    /// each byte a character as CoreFoundation reads it (ISO Latin 1), at most 64 of them
    /// (`truncated` when there were more).
    case xmlDeclaredEncoding(name: String, truncated: Bool)
    /// A binary property list breaks the format; `offset` is where (a byte offset into the input).
    case malformedBinary(Defect, offset: Int)
    /// An XML property list is not well-formed or is not a plist: `at` is the key path of the
    /// value concerned when there is one, `line` is 1-based when known.
    case malformedXML(Defect, at: ObjectPath?, line: Int?)
    /// Nesting deeper than ``PlistLimits/maxDepth``.
    case tooDeep(limit: Int)
    /// Shared references would expand to more nodes than the budget allows (a "reference bomb");
    /// `expanded` is the count where reading stopped, just over `limit`, not the total.
    case tooManyNodes(expanded: UInt64, limit: Int)
    /// Shared references would copy more string and data bytes than ``PlistLimits/maxExpandedBytes``.
    case tooManyBytes(expanded: UInt64, limit: Int)
    /// A string that libplist would silently change (embedded NUL, lone surrogate, invalid
    /// UTF-8); `at` is the chain of binary objects leading to it, the XML line, or the key path.
    case unrepresentableString(Defect, at: ObjectPath)
    /// A dictionary holds the same key twice (the key itself, and the binary object holding it).
    case duplicateKey(String, at: ObjectPath)
    /// libplist rejected input that passed ycft's own checks.
    case libplistRejected(format: PlistFormat)
    /// libplist failed to serialize a value.
    case serializationFailed(format: PlistFormat)
    /// A value cannot be written in the requested format (for example NUL inside a string).
    case unwritable(Defect, at: ObjectPath)

    /// A one-line, human-readable account of the problem.
    public var description: String {
        switch self {
        case .empty:
            return "empty input: not a property list"
        case let .inputTooLarge(size, limit):
            return "input is \(size) bytes, over the limit of \(limit) bytes"
        case .unknownFormat:
            return "not a property list (neither binary 'bplist00' nor XML)"
        case let .xmlNotUTF8(unitBits, bigEndian, marked):
            // unreachable: (the `??`) ycft makes this error only from an XMLTextEncoding (its `error(marked:)`), 16 or 32 bits
            let (name, mark) = XMLTextEncoding(unitBits: unitBits, bigEndian: bigEndian).map { ($0.rawValue, $0.byteOrderMark) } ?? ("\(unitBits)-bit units", [])
            let told = marked ? "(byte-order mark \(mark.map { hex($0, digits: 2) }.joined(separator: " ")))"
                : "without a byte-order mark"
            return "an XML property list in \(name) \(told): ycft reads XML property lists in UTF-8 only; "
                + "convert it first (iconv -f \(name) -t UTF-8)"
        case let .xmlDeclaredEncoding(name, truncated):
            let said = "an XML property list declared in encoding \(quoted(name))\(truncated ? "..." : ""): "
                + "ycft reads XML property lists in UTF-8 only"
            // The command only for a name XML allows (`[A-Za-z] ([A-Za-z0-9._] | '-')*`): one word for a shell.
            guard !truncated, XMLPlistScanner.isEncodingName(name) else { return said }
            return said + "; convert it first (iconv -f \(name) -t UTF-8) and declare encoding=\"UTF-8\""
        case .malformedBinary(.uidTooLarge, let offset):
            // The guard's wording, which names no value (unlike a writer's).
            return "malformed binary plist: UID larger than 2^32-1 (at byte \(offset))"
        case let .malformedBinary(defect, offset):
            return "malformed binary plist: \(defect) (at byte \(offset))"
        case let .malformedXML(defect, path, line):
            let why = path.map { "\($0): \(defect)" } ?? defect.description
            if let line { return "malformed XML plist: \(why) (at line \(line))" }
            return "malformed XML plist: \(why)"
        case let .tooDeep(limit):
            return "nesting is deeper than the limit of \(limit) levels"
        case let .tooManyNodes(_, limit):
            // Counting stops at the first node over the limit: the total is not known.
            return "the values expand to more than \(limit) nodes, the limit for this input"
        case let .tooManyBytes(expanded, limit):
            return "shared references copy strings and data to \(expanded) bytes, over the limit of \(limit)"
        case let .unrepresentableString(defect, at):
            return "\(defect) (at \(at)): libplist would change it silently"
        case let .duplicateKey(key, at):
            return "duplicate dictionary key \(quoted(key)) (at \(at))"
        case let .libplistRejected(format):
            return "libplist could not parse this \(format) property list"
        case let .serializationFailed(format):
            return "libplist could not write a \(format) property list"
        case let .unwritable(defect, at):
            return "cannot write value: \(defect) (at \(at))"
        }
    }

    /// What is wrong with property-list bytes or with a value to write: the cause inside
    /// ``PlistError/malformedBinary(_:offset:)``, ``PlistError/malformedXML(_:at:line:)``,
    /// ``PlistError/unrepresentableString(_:at:)`` and ``PlistError/unwritable(_:at:)``, with
    /// the numbers, bytes and names it concerns. ``description`` is the reason as the error's
    /// message shows it.
    ///
    /// ```swift
    /// PlistError.Defect.referenceCycle(object: 3).description   // "reference cycle through object 3"
    /// PlistError.Defect.badObjectMarker(0x15).description       // "integer of 2^5 bytes"
    /// ```
    public enum Defect: Sendable, Equatable, CustomStringConvertible {
        // Binary structure: the header, the trailer and the offset table.

        /// The input does not start with `bplist00`.
        case missingHeader
        /// The input is too short to hold the 32-byte trailer.
        case tooShortForTrailer
        /// The trailer's offset size (bytes per offset-table entry) is not 1 to 8.
        case badOffsetSize(Int)
        /// The trailer's reference size (bytes per object reference) is not 1 to 8.
        case badReferenceSize(Int)
        /// The trailer's object count is zero or more than the file has room for.
        case objectCountTooLarge(UInt64)
        /// The trailer's object count is more than references of `referenceSize` bytes can name.
        case objectCountTooLargeForReferences(UInt64, referenceSize: Int)
        /// The trailer's top object is not below the object count.
        case topObjectOutOfRange(UInt64, objectCount: UInt64)
        /// The trailer's offset-table offset is outside the object area.
        case offsetTableOutOfRange(UInt64)
        /// The offset table, with this many entries, would run into the trailer.
        case offsetTableOverlapsTrailer(entries: UInt64)
        /// The offset-table entry of `object` points outside the object area.
        case objectOffsetOutOfRange(object: Int, offset: UInt64)

        // Binary objects.

        /// An object's marker byte (its high nibble the type, its low nibble a size or length)
        /// names no type, or a size that type does not have: an integer of more than 16 bytes,
        /// a real other than 4 or 8, a date marker other than `0x33`, a UID of more than 8 bytes.
        case badObjectMarker(UInt8)
        /// The marker of a length that follows an object's marker is not an integer of 1 to 8 bytes.
        case badLengthMarker(UInt8)
        /// A length runs into the offset table.
        case lengthRunsIntoOffsetTable
        /// A length is larger than the file.
        case lengthTooLarge(UInt64)
        /// The object's contents run into the offset table.
        case objectRunsIntoOffsetTable(object: Int)
        /// The byte count of a string, array or dictionary (its length times its unit) overflows.
        case lengthOverflows(PlistKind)
        /// A UTF-16 string of length zero, which libplist 2.2.0 cannot read (CoreFoundation
        /// reads it as "").
        case emptyUTF16String
        /// A UID above 2^32-1, CoreFoundation's limit (in a file, or in a value to write).
        case uidTooLarge(UInt64)
        /// A reference is not below the object count.
        case referenceOutOfRange(UInt64, objectCount: Int)
        /// A dictionary key's object is not a string.
        case keyNotString(object: Int)
        /// A container refers back to `object`, one of the containers it lies in.
        case referenceCycle(object: Int)

        // Strings libplist would change, or that a format cannot hold.

        /// A string (or, when writing, a dictionary key) holds U+0000, where libplist keeps C strings.
        case containsNUL(inKey: Bool)
        /// An ASCII string object holds this byte, which is not ASCII.
        case notASCII(UInt8)
        /// A UTF-16 string object holds this surrogate without its partner.
        case loneSurrogate(UInt16)
        /// libplist holds a string whose bytes are not valid UTF-8.
        case invalidUTF8
        /// An XML character reference names this value, which is not a character a string can
        /// hold (zero, a surrogate, or beyond U+10FFFF).
        case badCharacterReference(UInt32)

        // Values a format or libplist cannot hold.

        /// XML 1.0 cannot hold this character (a control character other than tab, line feed
        /// and carriage return, U+FFFE or U+FFFF).
        case characterOutsideXML(Unicode.Scalar)
        /// A 16-byte integer, as its two's-complement halves, outside -2^63 ... 2^64-1: the range
        /// of an XML `<integer>` as Apple reads it.
        case integerOutsideXML(high: Int64, low: UInt64)
        /// A date with a fraction of a second or outside years 1-9999, as seconds since
        /// 2001-01-01T00:00:00Z: XML dates hold whole seconds.
        case dateOutsideXML(Double)
        /// A NaN other than the one XML's `nan` reads back as (`0x7FF8000000000000`; Apple's
        /// parser refuses `-nan`): its bits, as an 8-byte real (a 4-byte one widened).
        case nanOutsideXML(bits: UInt64)
        /// A 16-byte integer, as its two's-complement halves, beyond 64 bits or negative, which
        /// libplist 2.2.0 cannot hold.
        case integerBeyondLibplist(high: Int64, low: UInt64)

        // XML documents.

        /// A NUL byte, which XML does not allow anywhere.
        case nulByte
        /// Text other than white space outside any value.
        case textOutsideValue
        /// A value before `<plist>` or after it closed.
        case valueOutsidePlist
        /// `<plist>` holds a second value.
        case plistHoldsSeveralValues
        /// `<plist>` closes without a value.
        case plistHoldsNoValue
        /// The document has no `<plist>` element.
        case noPlist
        /// A second `<plist>`, or one inside another element, or an empty `<plist/>`.
        case misplacedPlist
        /// Markup after `</plist>`.
        case contentAfterPlist
        /// A value in a `<dict>` without a `<key>` before it.
        case valueWithoutKey
        /// A `<key>` as the last item of a `<dict>`.
        case keyWithoutValue
        /// A `<key>` outside a `<dict>`, or right after another.
        case misplacedKey
        /// A `<dict>` holds this key twice (compared after entity decoding).
        case duplicateKey(String)
        /// A processing instruction other than the XML declaration at the start.
        case processingInstruction
        /// A DOCTYPE declaration after `<plist>`.
        case doctypeAfterPlist
        /// A DOCTYPE with an internal subset (entity declarations).
        case internalSubset
        /// CDATA outside `<string>` and `<key>`.
        case cdataOutsideText
        /// `<!` markup other than a comment, DOCTYPE or CDATA section.
        case unsupportedMarkup
        /// A closing tag of this element with attributes, or written `</name/>`.
        case malformedClosingTag(String)
        /// A closing tag of this element that matches no open element.
        case unmatchedClosingTag(String)
        /// Attributes on this element (only `<plist>` may have them).
        case attributes(element: String)
        /// An element that is not part of a property list.
        case unknownElement(String)
        /// `<true>` or `<false>` (this element) with content.
        case notEmpty(element: String)
        /// Markup inside this text element.
        case markupInText(element: String)
        /// An entity or character reference inside this element, which holds plain characters only.
        case referenceInText(element: String)
        /// This element (`plist`, or one holding text) is not closed.
        case unterminated(element: String)
        /// A comment is not closed.
        case unterminatedComment
        /// A CDATA section is not closed.
        case unterminatedCDATA
        /// A processing instruction (the XML declaration) is not closed.
        case unterminatedInstruction
        /// A tag is not closed.
        case unterminatedTag
        /// Double-quoted text in markup is not closed.
        case unterminatedQuote
        /// `'<'` or `'>'` inside double-quoted text in markup.
        case angleBracketInQuotes
        /// `'<'` inside markup.
        case angleBracketInMarkup
        /// An `&` that starts no reference.
        case bareAmpersand
        /// An entity other than the five XML predefines, by its name.
        case unknownEntity(String)
        /// A character reference without digits, or with a character that is not one.
        case malformedCharacterReference
        /// The text of an `<integer>`, `<real>`, `<date>` or `<data>` element is not a value of
        /// that kind as Apple's parser reads it: its first 64 bytes, and whether there were more.
        case malformedValue(PlistKind, text: String, truncated: Bool)

        /// The reason as a message shows it: `reference cycle through object 3`,
        /// `string contains NUL`, `unterminated <string>`.
        public var description: String {
            switch self {
            case .missingHeader: return "missing 'bplist00' header"
            case .tooShortForTrailer: return "file too short for a trailer"
            case let .badOffsetSize(size): return "trailer offset size \(size) is not between 1 and 8"
            case let .badReferenceSize(size): return "trailer reference size \(size) is not between 1 and 8"
            case let .objectCountTooLarge(count): return "trailer object count \(count) does not fit the file"
            case let .objectCountTooLargeForReferences(count, size): return "object count \(count) does not fit \(size)-byte references"
            case let .topObjectOutOfRange(top, count): return "top object \(top) is not below object count \(count)"
            case let .offsetTableOutOfRange(table): return "offset table at \(table) is outside the object area"
            case let .offsetTableOverlapsTrailer(entries): return "offset table of \(entries) entries runs into the trailer"
            case let .objectOffsetOutOfRange(object, offset): return "offset of object \(object) (\(offset)) is outside the object area"
            case let .badObjectMarker(marker):
                let nibble = marker & 0x0F
                switch marker >> 4 {
                case 0x1: return "integer of 2^\(nibble) bytes"
                case 0x2: return "real of 2^\(nibble) bytes"
                case 0x3: return "bad date marker"
                case 0x8: return "UID of \(nibble + 1) bytes"
                default: return "unsupported object marker 0x\(String(marker, radix: 16))"
                }
            case .badLengthMarker: return "bad length marker"
            case .lengthRunsIntoOffsetTable: return "length runs into the offset table"
            case let .lengthTooLarge(length): return "length \(length) is larger than the file"
            case let .objectRunsIntoOffsetTable(object): return "object \(object) runs into the offset table"
            case let .lengthOverflows(kind): return "\(kind.typeName) length overflows"
            case .emptyUTF16String: return "an empty UTF-16 string, which libplist 2.2.0 cannot read"
            case let .uidTooLarge(uid): return "UID \(uid) is larger than 2^32-1"
            case let .referenceOutOfRange(ref, count): return "reference \(ref) is not below object count \(count)"
            case let .keyNotString(object): return "dictionary key (object \(object)) is not a string"
            case let .referenceCycle(object): return "reference cycle through object \(object)"
            case let .containsNUL(inKey): return inKey ? "key contains NUL" : "string contains NUL"
            case .notASCII: return "string is not ASCII in an ASCII object"
            case .loneSurrogate: return "string has a lone surrogate"
            case .invalidUTF8: return "string is not valid UTF-8"
            case let .badCharacterReference(value): return "string has character reference U+\(hex(value))"
            case let .characterOutsideXML(scalar): return "XML 1.0 cannot hold character U+\(hex(scalar.value))"
            case let .integerOutsideXML(high, low):
                return "integer \(PlistInteger.wide(high: high, low: low)) lies outside -2^63 ... 2^64-1, which XML <integer> holds as Apple reads it"
            case let .dateOutsideXML(date) where date == 0:
                return "date -0.0 (negative zero) would read back from XML as 0.0; XML dates have no sign of zero"
            case let .dateOutsideXML(date):
                return "date \(date) has a fraction of a second or lies outside years 1-9999; XML dates hold whole seconds"
            case let .nanOutsideXML(bits):
                return "real NaN 0x\(hex(bits)) has a sign or payload XML cannot hold; "
                    + "XML's one NaN, nan, reads back as 0x7FF8000000000000"
            case let .integerBeyondLibplist(high, low):
                return "libplist 2.2.0 cannot hold the 16-byte integer \(PlistInteger.wide(high: high, low: low))"
            case .nulByte: return "NUL byte in XML"
            case .textOutsideValue: return "text outside a value"
            case .valueOutsidePlist: return "a value outside <plist>"
            case .plistHoldsSeveralValues: return "<plist> holds more than one value"
            case .plistHoldsNoValue: return "<plist> holds no value"
            case .noPlist: return "no <plist> element"
            case .misplacedPlist: return "a second <plist>, or one not at the top"
            case .contentAfterPlist: return "content after </plist>"
            case .valueWithoutKey: return "a value without a <key> in <dict>"
            case .keyWithoutValue: return "a <key> without a value in <dict>"
            case .misplacedKey: return "<key> outside a <dict>, or two keys in a row"
            case let .duplicateKey(key): return "duplicate dictionary key \(quoted(key))"
            case .processingInstruction:
                return "processing instructions other than the XML declaration at the start are not supported"
            case .doctypeAfterPlist: return "DOCTYPE after <plist>"
            case .internalSubset: return "DTD internal subsets (entity declarations) are not supported"
            case .cdataOutsideText: return "CDATA outside <string> or <key>"
            case .unsupportedMarkup: return "unsupported markup"
            case let .malformedClosingTag(name): return "malformed closing tag </\(UntrustedText.escaped(name))>"
            case let .unmatchedClosingTag(name): return "</\(UntrustedText.escaped(name))> closes nothing"
            case let .attributes(name): return "attributes on <\(UntrustedText.escaped(name))> are not supported"
            case let .unknownElement(name): return "unknown element <\(UntrustedText.escaped(name))>"
            case let .notEmpty(name): return "<\(UntrustedText.escaped(name))> must be empty"
            case let .markupInText(name): return "<\(UntrustedText.escaped(name))> holds markup; only text is allowed"
            case let .referenceInText(name): return "<\(UntrustedText.escaped(name))> holds a reference; only plain characters are allowed"
            case let .unterminated(name): return "unterminated <\(UntrustedText.escaped(name))>"
            case .unterminatedComment: return "unterminated comment"
            case .unterminatedCDATA: return "unterminated CDATA section"
            case .unterminatedInstruction: return "unterminated processing instruction"
            case .unterminatedTag: return "unterminated tag"
            case .unterminatedQuote: return "unterminated quoted text in markup"
            case .angleBracketInQuotes: return "'<' or '>' inside quoted text in markup is not supported"
            case .angleBracketInMarkup: return "'<' inside markup"
            case .bareAmpersand: return "'&' that starts no reference (write &amp;)"
            case let .unknownEntity(name): return "unknown entity &\(UntrustedText.escaped(name));"
            case .malformedCharacterReference: return "malformed character reference"
            case let .malformedValue(kind, text, truncated):
                let shown = quoted(text) + (truncated ? "..." : "")
                switch kind {
                case .integer where XMLPlistScanner.readsAsOctal(Array(text.utf8)):
                    return "\(shown) starts with a zero, which libplist reads as octal where Apple reads decimal; write it without the zero"
                case .integer: return "\(shown) is not an integer as Apple reads it"
                case .date: return "\(shown) is not a date like 2025-01-01T09:00:00Z"
                case .data: return "\(shown) is not base64"
                default: return "\(shown) is not a \(kind.typeName) as Apple reads it"
                }
            }
        }
    }
}

/// A text encoding of an XML property list other than UTF-8, which CoreFoundation reads
/// (converting it to UTF-8 first) and ycft does not: ``PlistError/xmlNotUTF8(unitBits:bigEndian:marked:)``.
package enum XMLTextEncoding: String, Sendable, Equatable, CaseIterable, CustomStringConvertible {
    /// UTF-16, most significant byte first (byte-order mark `FE FF`).
    case utf16BigEndian = "UTF-16BE"
    /// UTF-16, least significant byte first (byte-order mark `FF FE`).
    case utf16LittleEndian = "UTF-16LE"
    /// UTF-32, most significant byte first (byte-order mark `00 00 FE FF`).
    case utf32BigEndian = "UTF-32BE"
    /// UTF-32, least significant byte first (byte-order mark `FF FE 00 00`).
    case utf32LittleEndian = "UTF-32LE"

    /// The encoding's name as `iconv` takes it: `UTF-16LE`.
    package var description: String { rawValue }

    /// The encoding of code units of `unitBits` bits in that byte order, if it is one of these.
    package init?(unitBits: Int, bigEndian: Bool) {
        guard let found = Self.allCases.first(where: { $0.unitSize * 8 == unitBits && $0.isBigEndian == bigEndian }) else { return nil }
        self = found
    }

    /// Bytes per code unit.
    var unitSize: Int {
        switch self {
        case .utf16BigEndian, .utf16LittleEndian: return 2
        case .utf32BigEndian, .utf32LittleEndian: return 4
        }
    }

    var isBigEndian: Bool { self == .utf16BigEndian || self == .utf32BigEndian }

    /// The error for an XML property list in this encoding.
    package func error(marked: Bool) -> PlistError {
        .xmlNotUTF8(unitBits: unitSize * 8, bigEndian: isBigEndian, marked: marked)
    }

    /// The encoding of U+FEFF at the start of a file, which says the encoding.
    var byteOrderMark: [UInt8] {
        let mark: [UInt8] = unitSize == 2 ? [0xFE, 0xFF] : [0x00, 0x00, 0xFE, 0xFF]
        return isBigEndian ? mark : mark.reversed()
    }
}

/// The two on-disk forms of a property list.
public enum PlistFormat: String, Sendable, Equatable, CaseIterable, CustomStringConvertible {
    /// Apple's binary form, starting with `bplist00`.
    case binary
    /// Apple's XML form.
    case xml

    /// `binary` or `xml`.
    public var description: String { rawValue }
}

/// A number in uppercase hex digits, at least `digits` of them: `FE`, `1F600`.
private func hex(_ value: some BinaryInteger, digits: Int = 1) -> String {
    let text = String(value, radix: 16, uppercase: true)
    return String(repeating: "0", count: max(0, digits - text.count)) + text
}

/// Quotes untrusted text for a message: ``UntrustedText/quoted(_:)``.
@usableFromInline package func quoted(_ s: String) -> String { UntrustedText.quoted(s) }
