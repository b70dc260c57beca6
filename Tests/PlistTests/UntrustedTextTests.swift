import Testing
import PlistCore

/// The one escaper for text shown to people: every bidirectional control, the Arabic letter
/// mark U+061C among them (a review found it passed raw), is written as `\u{...}`.
@Suite struct UntrustedTextEscapes {
    @Test func everyBidirectionalControlIsEscaped() {
        let controls: [UInt32] = [0x061C, 0x200E, 0x200F, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069]
        for value in controls {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let hex = String(value, radix: 16, uppercase: true)
            #expect(UntrustedText.escaped("a\(Character(scalar))b") == "a\\u{\(hex)}b", "U+\(hex)")
        }
        // Letters of right-to-left scripts are text, not controls.
        #expect(UntrustedText.escaped("\u{0627}\u{05D0}") == "\u{0627}\u{05D0}")
    }

    /// Noncharacters, which XML 1.0 refuses (U+FFFE, U+FFFF: a JUnit report holding one did not
    /// parse), are escaped; the characters next to them are text.
    @Test func noncharactersAreEscaped() {
        for value: UInt32 in [0xFFFE, 0xFFFF, 0xFDD0, 0xFDEF, 0x1FFFE, 0x10FFFF] {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let hex = String(value, radix: 16, uppercase: true)
            #expect(UntrustedText.escaped("a\(Character(scalar))b") == "a\\u{\(hex)}b", "U+\(hex)")
        }
        #expect(UntrustedText.escaped("\u{FFFD}\u{FDCF}\u{FDF0}") == "\u{FFFD}\u{FDCF}\u{FDF0}")
    }
}
