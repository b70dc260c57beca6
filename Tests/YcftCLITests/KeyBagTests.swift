import Foundation
import PhoneBackup
import Testing
import TestSupport

/// The keybag reader (`KeyBag`) on hand-made keybags: bounded and total, every malformed
/// keybag a typed error, the iteration counts refused over their bounds before any work; and on
/// the generator's keybag, the password opens every class key and a wrong one is told apart.
@Suite struct KeyBagReading {
    static func item(_ tag: String, _ value: [UInt8]) -> [UInt8] {
        let count = UInt32(value.count)
        return Array(tag.utf8) + [UInt8(count >> 24), UInt8(count >> 16 & 0xFF), UInt8(count >> 8 & 0xFF), UInt8(count & 0xFF)] + value
    }

    static func number(_ tag: String, _ value: UInt32) -> [UInt8] {
        item(tag, [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)])
    }

    static func header(dpic: UInt32 = 1000, iter: UInt32 = 100) -> [UInt8] {
        item("VERS", [0, 0, 0, 4]) + number("TYPE", 1) + item("UUID", Array(repeating: 1, count: 16))
            + item("HMCK", Array(repeating: 2, count: 40)) + number("WRAP", 0) + item("SALT", Array(repeating: 3, count: 20))
            + number("ITER", iter) + number("DPWT", 1) + number("DPIC", dpic) + item("DPSL", Array(repeating: 4, count: 20))
    }

    static func classKey(_ number: UInt32, wrap: UInt32 = 2, key: [UInt8]? = Array(repeating: 5, count: 40)) -> [UInt8] {
        item("UUID", Array(repeating: UInt8(number), count: 16)) + Self.number("CLAS", number) + Self.number("WRAP", wrap)
            + Self.number("KTYP", 0) + (key.map { item("WPKY", $0) } ?? [])
    }

    static let valid = header() + classKey(1) + classKey(3) + classKey(4)

    func error(_ bytes: [UInt8]) -> KeyBagError? {
        do { _ = try KeyBag(bytes) } catch { return error }
        return nil
    }

    @Test func aWellFormedKeyBagReads() throws {
        let keyBag = try KeyBag(Self.valid)
        #expect(keyBag.dpic == 1000 && keyBag.iterations == 100)
        #expect(keyBag.salt == Array(repeating: 3, count: 20) && keyBag.dpsl == Array(repeating: 4, count: 20))
        #expect(keyBag.classKeys.map(\.protectionClass) == [1, 3, 4])
    }

    /// A keybag of iOS 10.0 or 10.1: `SALT` and `ITER` only, no `DPWT`, `DPSL` or `DPIC` (the
    /// SHA-256 round came with 10.2). Half of the pair is a keybag cut wrong, not an old one.
    @Test func anIOS10KeyBagHasOneRound() throws {
        let old = Self.item("VERS", [0, 0, 0, 3]) + Self.number("TYPE", 1) + Self.item("UUID", Array(repeating: 1, count: 16))
            + Self.item("HMCK", Array(repeating: 2, count: 40)) + Self.number("WRAP", 0) + Self.item("SALT", Array(repeating: 3, count: 20))
            + Self.number("ITER", 10_000)
        let keyBag = try KeyBag(old + Self.classKey(1) + Self.classKey(3))
        #expect(keyBag.dpic == 0 && keyBag.dpsl == nil && keyBag.iterations == 10_000)
        #expect(keyBag.classKeys.map(\.protectionClass) == [1, 3])
        #expect(error(old + Self.number("DPIC", 1000) + Self.classKey(1)) == .missing("DPSL"))
        #expect(error(old + Self.item("DPSL", Array(repeating: 4, count: 20)) + Self.classKey(1)) == .missing("DPIC"))
    }

    /// Items the reader does not use are passed over, however many and however often repeated
    /// (each is not searched for among the earlier ones: a keybag of millions cost hours).
    @Test func itemsTheReaderDoesNotUseArePassedOver() throws {
        var padded = Self.header()
        for index in 0..<50_000 { padded += Self.number(String(format: "X%03X", index % 4096), UInt32(index)) }
        padded += Self.number("DPWT", 2) + Self.classKey(1) + Self.number("KTYP", 1) + Self.classKey(3)
        let keyBag = try KeyBag(padded)
        #expect(keyBag.dpic == 1000 && keyBag.iterations == 100)
        #expect(keyBag.classKeys.map(\.protectionClass) == [1, 3])
    }

    @Test func malformedKeyBagsAreTypedErrors() {
        let cases: [([UInt8], KeyBagError, String)] = [
            (Self.valid + [0x41, 0x42, 0x43], .truncated(offset: Self.valid.count),
             "cut short at byte \(Self.valid.count) (an item needs 8 bytes of tag and length)"),
            (Self.valid + Array("WPKY".utf8) + [0, 0, 1, 0] + [1, 2], .pastEnd(tag: "WPKY", offset: Self.valid.count, length: 256),
             "WPKY at byte \(Self.valid.count) says 256 bytes, more than the keybag holds"),
            (Self.valid + Array("ITER".utf8) + [0xFF, 0xFF, 0xFF, 0xFF], .pastEnd(tag: "ITER", offset: Self.valid.count, length: 0xFFFF_FFFF),
             "ITER at byte \(Self.valid.count) says 4294967295 bytes, more than the keybag holds"),
            (Self.header() + Self.classKey(1) + Self.classKey(3, key: nil), .classWithoutKey(3), "class 3 has no wrapped key (WPKY)"),
            (Self.header() + Self.classKey(3) + Self.classKey(3), .duplicateClass(3), "class 3 is given twice"),
            (Self.header(dpic: 50_000_001) + Self.classKey(1), .iterations(tag: "DPIC", count: 50_000_001, limit: 50_000_000),
             "DPIC asks for 50,000,001 iterations, more than ycft's limit of 50,000,000"),
            (Self.header(iter: 4_000_000_000) + Self.classKey(1), .iterations(tag: "ITER", count: 4_000_000_000, limit: 10_000_000),
             "ITER asks for 4,000,000,000 iterations, more than ycft's limit of 10,000,000"),
            (Self.header(iter: 0) + Self.classKey(1), .iterations(tag: "ITER", count: 0, limit: 10_000_000),
             "ITER asks for 0 iterations (at most 10,000,000)"),
            (Self.header() + Self.number("ITER", 5) + Self.classKey(1), .twice(tag: "ITER", offset: Self.header().count),
             "ITER at byte \(Self.header().count) is given twice"),
            (Self.header() + Self.classKey(1, key: [1, 2, 3]), .wrongLength(tag: "WPKY", length: 3, expected: 40), "WPKY is 3 bytes, not 40"),
            (Self.header() + Self.classKey(1, wrap: 1), .noPasswordClass, "no class key is wrapped with the password"),
            (Self.header() + Self.item("UUID", []) + Self.number("WRAP", 2), .classWithoutNumber(offset: Self.header().count),
             "the class key at byte \(Self.header().count) has no CLAS"),
            (Self.item("UUID", Array(repeating: 1, count: 16)) + Self.number("DPIC", 10) + Self.number("ITER", 10) + Self.classKey(1),
             .missing("SALT"), "no SALT"),
            (Self.number("CLAS", 1) + Self.valid, .outsideClass(tag: "CLAS", offset: 0), "CLAS at byte 0 comes before any class key"),
            (Array(Self.header().prefix(3)), .truncated(offset: 0), "cut short at byte 0 (an item needs 8 bytes of tag and length)"),
            ([0, 1, 2, 3, 0, 0, 0, 9], .pastEnd(tag: "0x00010203", offset: 0, length: 9),
             "0x00010203 at byte 0 says 9 bytes, more than the keybag holds"),
        ]
        for (bytes, expected, message) in cases {
            let found = error(bytes)
            #expect(found == expected, "\(message)")
            #expect(found?.description == message)
        }
    }

    /// The limits themselves are accepted (the structure only: nothing is derived).
    @Test func theBoundsThemselvesAreAccepted() throws {
        let keyBag = try KeyBag(Self.header(dpic: 50_000_000, iter: 10_000_000) + Self.classKey(1))
        #expect(keyBag.dpic == KeyBag.maxDPIC && keyBag.iterations == KeyBag.maxITER)
    }

    /// Total: every prefix, and every single-byte change of the valid keybag, reads or is an error.
    @Test func everyPrefixAndEveryChangedByteIsAnswered() {
        var answered = 0
        for end in 0...Self.valid.count {
            _ = error(Array(Self.valid.prefix(end)))
            answered += 1
        }
        for index in Self.valid.indices {
            for flip: UInt8 in [0x01, 0x80, 0xFF] {
                var bytes = Self.valid
                bytes[index] ^= flip
                _ = error(bytes)
                answered += 1
            }
        }
        #expect(answered == Self.valid.count + 1 + Self.valid.count * 3)
    }

    /// The generator's keybag (iOS's structure): the password unwraps all eleven class keys; a
    /// wrong one fails the unwrap's integrity check.
    @Test func theGeneratorsKeyBagOpensWithItsPasswordOnly() throws {
        let backup = try Backups.make(password: Backups.password)
        let data = try Data(contentsOf: backup.appendingPathComponent("Manifest.plist"))
        let manifest = try #require(try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any])
        let keyBag = try KeyBag(Array(try #require(manifest["BackupKeyBag"] as? Data)))
        #expect(keyBag.classKeys.map(\.protectionClass) == Array(1...11))
        let keys = try keyBag.unlock(Array(Backups.password.utf8))
        #expect(keys.map(\.protectionClass) == Array(1...11) && keys.allSatisfy { $0.key.count == 32 })
        #expect(throws: BackupError.wrongPassword) { try keyBag.unlock(Array("correct horse".utf8)) }
    }

    /// One class key altered: the password still opens the other ten, and the keybag still says
    /// it wraps the altered class with the password (so a file of it is told apart from a class
    /// the keybag does not hold).
    @Test func anAlteredClassKeyIsLeftOutAndTheRestOpen() throws {
        let backup = try Backups.make("altered-unused-class", password: Backups.password)
        let data = try Data(contentsOf: backup.appendingPathComponent("Manifest.plist"))
        let manifest = try #require(try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any])
        let keyBag = try KeyBag(Array(try #require(manifest["BackupKeyBag"] as? Data)))
        let keys = try keyBag.unlock(Array(Backups.password.utf8))
        #expect(keys.map(\.protectionClass) == [1, 2, 3, 4, 5, 6, 8, 9, 10, 11])
        #expect(keyBag.wrapsWithPassword(7) && !keyBag.wrapsWithPassword(12))
        #expect(throws: BackupError.wrongPassword) { try keyBag.unlock(Array("correct horse".utf8)) }
    }
}
