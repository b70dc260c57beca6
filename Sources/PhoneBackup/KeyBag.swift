/// An encrypted backup's keybag (`BackupKeyBag` in `Manifest.plist`): a sequence of items, each a
/// 4-byte tag, a 4-byte big-endian length and the value. The header (up to the second `UUID`)
/// holds the password's salts and iteration counts (`SALT`, `ITER`, and from iOS 10.2 on
/// `DPSL`, `DPIC`); each class
/// key follows as a group starting at a `UUID`, with `CLAS` (the protection class), `WRAP` and
/// `WPKY` (the wrapped class key).
///
/// Reading is bounded and total: every length is checked against what is left, and anything
/// malformed is a ``KeyBagError``. The iteration counts are bounded too (``maxDPIC``,
/// ``maxITER``), checked before any work, so a hostile keybag cannot ask for hours of it.
///
/// ```swift
/// let keyBag = try KeyBag(bytes)                  // the structure only
/// let classKeys = try keyBag.unlock(password)     // PBKDF2, then RFC 3394 unwraps
/// ```
package struct KeyBag: Sendable {
    /// The most PBKDF2-SHA256 rounds (`DPIC`) a keybag may ask for: iOS writes 10,000,000.
    package static let maxDPIC = 50_000_000
    /// The most PBKDF2-SHA1 rounds (`ITER`) a keybag may ask for: iOS writes 10,000.
    package static let maxITER = 10_000_000
    /// `WRAP`'s bit for a class key wrapped with the key derived from the password.
    package static let wrappedWithPassword: UInt32 = 2

    /// One class key's group: its protection class, how it is wrapped, the wrapped key.
    package struct ClassKey: Sendable, Equatable {
        package let protectionClass: UInt32
        package let wrap: UInt32
        package let wrappedKey: [UInt8]
    }

    package let salt: [UInt8]
    package let iterations: Int
    /// `DPSL` and `DPIC`, the first round's salt and count (iOS 10.2 and later); nil and 0 in a
    /// keybag of iOS 10.0 or 10.1, which derives the key with `ITER` rounds of SHA-1 alone.
    package let dpsl: [UInt8]?
    package let dpic: Int
    /// In the keybag's order, each class once.
    package let classKeys: [ClassKey]

    /// The items the reader uses; others (`VERS`, `TYPE`, `HMCK`, `DPWT`, `KTYP`, ...) are passed over.
    static let used = ["UUID", "CLAS", "WRAP", "WPKY", "SALT", "ITER", "DPIC", "DPSL"]

    /// Reads the structure of `bytes` (no cryptography).
    /// - Throws: ``KeyBagError``: an item cut short or longer than what is left, an item twice in
    ///   the header or in one class, a header item missing or of the wrong length, a class
    ///   without `CLAS` or `WPKY`, a class twice, an iteration count over its bound.
    package init(_ bytes: [UInt8]) throws(KeyBagError) {
        var header: [(tag: String, value: [UInt8])] = []
        var groups: [(offset: Int, items: [(tag: String, value: [UInt8])])] = []
        var uuids = 0
        var offset = 0
        while offset < bytes.count {
            guard bytes.count - offset >= 8 else { throw .truncated(offset: offset) }
            let tag = KeyBagError.tag(bytes[offset..<offset + 4])
            let length = bytes[offset + 4..<offset + 8].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            guard Int(length) <= bytes.count - offset - 8 else { throw .pastEnd(tag: tag, offset: offset, length: length) }
            // Only the items the reader uses are kept (and checked for repeats): a keybag of
            // millions of other tags costs one pass, not a search of all earlier ones per item.
            guard Self.used.contains(tag) else {
                offset += 8 + Int(length)
                continue
            }
            let value = Array(bytes[offset + 8..<offset + 8 + Int(length)])
            if tag == "UUID" { uuids += 1 }
            if uuids >= 2 {
                if tag == "UUID" { groups.append((offset, [])) }
                guard !groups[groups.count - 1].items.contains(where: { $0.tag == tag }) else { throw .twice(tag: tag, offset: offset) }
                groups[groups.count - 1].items.append((tag, value))
            } else {
                guard !header.contains(where: { $0.tag == tag }) else { throw .twice(tag: tag, offset: offset) }
                guard !["CLAS", "WPKY"].contains(tag) else { throw .outsideClass(tag: tag, offset: offset) }
                header.append((tag, value))
            }
            offset += 8 + Int(length)
        }
        func item(_ tag: String, in items: [(tag: String, value: [UInt8])]) throws(KeyBagError) -> [UInt8] {
            guard let value = items.first(where: { $0.tag == tag })?.value else { throw .missing(tag) }
            return value
        }
        func number(_ tag: String, in items: [(tag: String, value: [UInt8])]) throws(KeyBagError) -> UInt32 {
            let value = try item(tag, in: items)
            guard value.count == 4 else { throw .wrongLength(tag: tag, length: value.count, expected: 4) }
            return value.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        }
        // The bounds first: nothing is derived from a keybag that asks too much.
        let iterations = try number("ITER", in: header)
        guard iterations <= Self.maxITER, iterations > 0 else { throw .iterations(tag: "ITER", count: iterations, limit: Self.maxITER) }
        salt = try item("SALT", in: header)
        // iOS 10.0 and 10.1 wrote neither DPSL nor DPIC (the password's first, SHA-256 round
        // came with 10.2): both or neither.
        let hasDPIC = header.contains { $0.tag == "DPIC" }
        if hasDPIC || header.contains(where: { $0.tag == "DPSL" }) {
            let dpic = try number("DPIC", in: header)
            guard dpic <= Self.maxDPIC, dpic > 0 else { throw .iterations(tag: "DPIC", count: dpic, limit: Self.maxDPIC) }
            (self.dpic, dpsl) = (Int(dpic), try item("DPSL", in: header))
        } else {
            (dpic, dpsl) = (0, nil)
        }
        self.iterations = Int(iterations)
        var classKeys: [ClassKey] = []
        var classes = Set<UInt32>()
        for group in groups {
            guard group.items.contains(where: { $0.tag == "CLAS" }) else { throw .classWithoutNumber(offset: group.offset) }
            let protectionClass = try number("CLAS", in: group.items)
            guard classes.insert(protectionClass).inserted else { throw .duplicateClass(protectionClass) }
            guard group.items.contains(where: { $0.tag == "WPKY" }) else { throw .classWithoutKey(protectionClass) }
            let wrappedKey = try item("WPKY", in: group.items)
            guard wrappedKey.count == 40 else { throw .wrongLength(tag: "WPKY", length: wrappedKey.count, expected: 40) }
            classKeys.append(ClassKey(protectionClass: protectionClass, wrap: try number("WRAP", in: group.items), wrappedKey: wrappedKey))
        }
        guard classKeys.contains(where: { $0.wrap & Self.wrappedWithPassword != 0 }) else { throw .noPasswordClass }
        self.classKeys = classKeys
    }

    /// The class keys the password opens: `PBKDF2-HMAC-SHA256(password, DPSL, DPIC)`, then
    /// `PBKDF2-HMAC-SHA1(that, SALT, ITER)` gives the key that unwraps (RFC 3394) every class key
    /// whose `WRAP` has bit 2 set. A keybag of iOS 10.0 or 10.1 (no `DPSL`, `DPIC`) has the
    /// second round only: `PBKDF2-HMAC-SHA1(password, SALT, ITER)`.
    ///
    /// The password is wrong when no class key unwraps: a wrong key passes the unwrap's 64-bit
    /// integrity check by chance about once in 2^64 tries, so one that unwraps proves the
    /// password, and a class key that then does not was altered. Those are left out (a file of
    /// that class then says so, ``BackupError/classKeyAltered(_:of:)``) and the rest still open.
    ///
    /// ```swift
    /// let keys = try keyBag.unlock(Array("1234".utf8))   // [(protectionClass: 1, key: ...), ...]
    /// ```
    /// - Returns: each protection class with its 32-byte key (classes wrapped otherwise, with the
    ///   device's key, and altered ones, are left out).
    /// - Throws: ``BackupError/wrongPassword`` when no class key's unwrap passes its integrity check;
    ///   ``BackupError/libcrypto(_:)`` when libcrypto fails, ``BackupError/missingLibrary(_:)``
    ///   when it cannot be loaded.
    package func unlock(_ password: [UInt8]) throws(BackupError) -> [(protectionClass: UInt32, key: [UInt8])] {
        let key: [UInt8]
        do throws(BackupCrypto.Failure) {
            let first = if let dpsl { try BackupCrypto.pbkdf2(password, salt: dpsl, iterations: dpic, digest: .sha256) } else { password }
            key = try BackupCrypto.pbkdf2(first, salt: salt, iterations: iterations, digest: .sha1)
        } catch {
            throw error.backupError
        }
        var keys: [(protectionClass: UInt32, key: [UInt8])] = []
        for classKey in classKeys where classKey.wrap & Self.wrappedWithPassword != 0 {
            if let unwrapped = try BackupCrypto.unwrapping(classKey.wrappedKey, with: key) {
                keys.append((classKey.protectionClass, unwrapped))
            }
        }
        // The initialiser made sure there is a class wrapped with the password.
        guard !keys.isEmpty else { throw .wrongPassword }
        return keys
    }

    /// Whether the keybag holds a key for `protectionClass` wrapped with the password (one that
    /// ``unlock(_:)`` left out did not unwrap: altered).
    package func wrapsWithPassword(_ protectionClass: UInt32) -> Bool {
        classKeys.contains { $0.protectionClass == protectionClass && $0.wrap & Self.wrappedWithPassword != 0 }
    }
}

/// What is wrong with a backup's keybag (``KeyBag``); offsets count bytes from its start.
package enum KeyBagError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Fewer than the 8 bytes of an item's tag and length left at `offset`.
    case truncated(offset: Int)
    /// The item at `offset` says it is longer than what is left.
    case pastEnd(tag: String, offset: Int, length: UInt32)
    /// A header item the password needs (`SALT`, `ITER`, `DPSL`, `DPIC`) is not there, or a
    /// class lacks `WRAP`.
    case missing(String)
    /// An item of the wrong length (a number is 4 bytes, a wrapped key 40).
    case wrongLength(tag: String, length: Int, expected: Int)
    /// An item given twice in the header or in one class.
    case twice(tag: String, offset: Int)
    /// A class key's item in the header, before any class.
    case outsideClass(tag: String, offset: Int)
    /// A class (from its `UUID` at `offset`) without `CLAS`.
    case classWithoutNumber(offset: Int)
    /// A class without its wrapped key (`WPKY`).
    case classWithoutKey(UInt32)
    /// Two groups for the same class.
    case duplicateClass(UInt32)
    /// `DPIC` or `ITER` zero or over its bound (``KeyBag/maxDPIC``, ``KeyBag/maxITER``).
    case iterations(tag: String, count: UInt32, limit: Int)
    /// No class key is wrapped with the password (none has `WRAP` bit 2).
    case noPasswordClass

    package var description: String {
        switch self {
        case let .truncated(offset): return "cut short at byte \(offset) (an item needs 8 bytes of tag and length)"
        case let .pastEnd(tag, offset, length): return "\(tag) at byte \(offset) says \(length) bytes, more than the keybag holds"
        case let .missing(tag): return "no \(tag)"
        case let .wrongLength(tag, length, expected): return "\(tag) is \(length) bytes, not \(expected)"
        case let .twice(tag, offset): return "\(tag) at byte \(offset) is given twice"
        case let .outsideClass(tag, offset): return "\(tag) at byte \(offset) comes before any class key"
        case let .classWithoutNumber(offset): return "the class key at byte \(offset) has no CLAS"
        case let .classWithoutKey(number): return "class \(number) has no wrapped key (WPKY)"
        case let .duplicateClass(number): return "class \(number) is given twice"
        case let .iterations(tag, count, limit) where count == 0: return "\(tag) asks for 0 iterations (at most \(Self.grouped(limit)))"
        case let .iterations(tag, count, limit):
            return "\(tag) asks for \(Self.grouped(Int(count))) iterations, more than ycft's limit of \(Self.grouped(limit))"
        case .noPasswordClass: return "no class key is wrapped with the password"
        }
    }

    /// A tag as shown: its four characters when printable ASCII, else its hex digits.
    static func tag(_ bytes: ArraySlice<UInt8>) -> String {
        if bytes.allSatisfy({ (0x21...0x7E).contains($0) }) { return String(decoding: bytes, as: UTF8.self) }
        let digits = Array("0123456789abcdef".utf8)
        return "0x" + String(decoding: bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0xF)]] }, as: UTF8.self)
    }

    /// A count with its thousands grouped by commas: `10,000,000`.
    package static func grouped(_ number: Int) -> String {
        var digits = Array(String(number))
        var index = digits.count - 3
        while index > 0 {
            digits.insert(",", at: index)
            index -= 3
        }
        return String(digits)
    }
}
