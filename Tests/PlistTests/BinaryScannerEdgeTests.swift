import Testing
@testable import PlistCore
import TestSupport

/// Binary property lists crafted to stop the guard (`BinaryPlistScanner`) at each of its rarer
/// refusals: a length marker cut by the offset table, keys that are not strings or run past the
/// object area as the duplicate-key check meets them, and the walk's expansion budgets where
/// a leaf, a shared container's height or a finished container crosses them.
@Suite struct BinaryScannerEdges {
    func check(_ objects: [[UInt8]], _ limits: PlistLimits = .default) throws(PlistError) {
        try PropertyList.checkReadable(rawBinaryPlist(objects), limits: limits)
    }

    /// A data object of `count` bytes (`4F 10 count` then the bytes).
    func data(_ count: UInt8) -> [UInt8] { [0x4F, 0x10, count] + [UInt8](repeating: 0xAB, count: Int(count)) }

    /// The marker `4F` (a length follows) is the last byte before the offset table (at 11).
    @Test func aLengthMarkerWithNothingAfterIt() {
        #expect(throws: PlistError.malformedBinary(.lengthRunsIntoOffsetTable, offset: 11)) {
            try check([[0xA1, 0x01], [0x4F]])
        }
    }

    /// The length's own marker `13` asks for 8 bytes the object area does not have.
    @Test func aLengthWhoseBytesRunIntoTheOffsetTable() {
        #expect(throws: PlistError.malformedBinary(.lengthRunsIntoOffsetTable, offset: 11)) {
            try check([[0xA1, 0x01], [0x4F, 0x13]])
        }
    }

    /// The second key claims 20 characters from offset 18, past the table at 20: the duplicate
    /// check finds no text to compare, and the walk names the object.
    @Test func aKeyRunningPastTheObjectAreaIsNotADuplicate() {
        #expect(throws: PlistError.malformedBinary(.objectRunsIntoOffsetTable(object: 2), offset: 15)) {
            try check([[0xD2, 1, 2, 3, 4], [0x51, 0x61], [0x5F, 0x10, 20], [0x08], [0x09]])
        }
    }

    /// Both keys are the same integer object: a duplicate, found before the walk would say the
    /// key is not a string, and shown as `?` since it has no text.
    @Test func aRepeatedKeyThatIsNoStringIsADuplicateWithoutText() {
        #expect(throws: PlistError.duplicateKey("?", at: ObjectPath([.binaryObject(0)]))) {
            try check([[0xD2, 1, 1, 2, 2], [0x10, 0x05], [0x09]])
        }
    }

    /// Nine keys go through the hash table; the integer key hashes as its reference, is no
    /// duplicate, and the walk refuses it.
    @Test func anIntegerKeyAmongNineIsRefusedByTheWalk() {
        let dict: [UInt8] = [0xDF, 0x10, 9] + Array(1...9) + [UInt8](repeating: 10, count: 9)
        let keys: [[UInt8]] = (0..<8).map { [0x51, UInt8(ascii: "a") + $0] }
        // The dictionary is 21 bytes at 8, the keys 2 bytes each: the integer is at 45.
        #expect(throws: PlistError.malformedBinary(.keyNotString(object: 9), offset: 45)) {
            try check([dict] + keys + [[0x10, 0x07], [0x09]])
        }
    }

    /// Five references to one 100-byte data object fill 500 of the 504 bytes a 252-byte limit
    /// allows; the next leaf, 10 bytes more, crosses it.
    @Test func aLeafCrossesTheByteBudget() {
        #expect(throws: PlistError.tooManyBytes(expanded: 510, limit: 504)) {
            try check([[0xA6, 1, 1, 1, 1, 1, 2], data(100), data(10)], PlistLimits(maxInputSize: 252))
        }
    }

    /// A 57-byte limit allows 3 nodes (one per 16 bytes): the array and its first two leaves.
    @Test func aLeafCrossesTheNodeBudget() {
        #expect(throws: PlistError.tooManyNodes(expanded: 4, limit: 3)) {
            try check([[0xA5, 1, 2, 3, 4, 5], [0x09], [0x09], [0x09], [0x09], [0x09]], PlistLimits(maxInputSize: 57))
        }
    }

    /// X (two levels) fits under the top array at depth 3; met again inside Y, its height
    /// (already known) takes it to depth 4.
    @Test func aSharedContainerMetDeeperCrossesTheDepthLimit() {
        #expect(throws: PlistError.tooDeep(limit: 3)) {
            try check([[0xA2, 1, 3], [0xA1, 2], [0xA1, 4], [0xA1, 1], [0x09]], PlistLimits(maxDepth: 3))
        }
        // The same file reads with one level more.
        #expect(throws: Never.self) { try check([[0xA2, 1, 3], [0xA1, 2], [0xA1, 4], [0xA1, 1], [0x09]], PlistLimits(maxDepth: 4)) }
    }

    /// A holds the 100-byte data three times (300 of the 320 bytes a 160-byte limit allows);
    /// A2 holds it once more, and adding A2's total to the top array crosses the budget.
    @Test func aFinishedContainerCrossesTheByteBudget() {
        #expect(throws: PlistError.tooManyBytes(expanded: 400, limit: 320)) {
            try check([[0xA2, 1, 2], [0xA3, 3, 3, 3], [0xA1, 3], data(100)], PlistLimits(maxInputSize: 160))
        }
    }
}

/// The rarer answers of the XML declaration and the instant parser.
@Suite struct PlistCoreCoverage2 {
    /// The declaration's name is read only from a file that starts with `<?xml`.
    @Test func noDeclarationWithoutItsOpening() {
        #expect(Array("<?xm".utf8).withUnsafeBytes { XMLPlistScanner.declaredEncoding($0) } == nil)
        #expect(Array(#"<plist encoding="latin1">"#.utf8).withUnsafeBytes { XMLPlistScanner.declaredEncoding($0) } == nil)
    }

    /// A name whose closing quote never comes names nothing, as in CoreFoundation: the file
    /// reads as UTF-8.
    @Test func aNameWithoutItsClosingQuoteDeclaresNothing() {
        #expect(Array("<?xml version=\"1.0\" encoding='latin1?>\n<plist/>".utf8).withUnsafeBytes {
            XMLPlistScanner.declaredEncoding($0)
        } == nil)
    }

    @Test func anOffsetOfTwentyFourHoursIsMalformed() {
        #expect(throws: ExactTime.InstantDefect.malformed) { try ExactTime.exactInstant("2025-01-01T00:00:00+24:00") }
        #expect(throws: ExactTime.InstantDefect.malformed) { try ExactTime.exactInstant("2025-01-01T00:00:00+01:60") }
        #expect(ExactTime.InstantDefect.malformed.description == "not a time like 2025-01-01T09:00:00Z")
    }
}
