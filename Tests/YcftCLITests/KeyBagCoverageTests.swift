import Testing
import PhoneBackup
import TestSupport

/// A keybag number that is not four bytes long is refused, naming its tag and length.
@Suite struct KeyBagCoverage {
    @Test func aNumberOfTheWrongLength() {
        let bytes = KeyBagReading.item("VERS", [0, 0, 0, 4]) + KeyBagReading.item("ITER", [0, 1])
        var found: KeyBagError?
        do { _ = try KeyBag(bytes) } catch { found = error }
        #expect(found == .wrongLength(tag: "ITER", length: 2, expected: 4))
    }
}
