// The README's "Library" example, compiled and run: it depends only on the package's products
// (FirstTimeArchive, Plist), as an adopter's code would.
import FirstTimeArchive
import Foundation
import Plist
import Testing

/// README: read the state of an exported preferences file, whatever form it holds, and change
/// it in place.
func libraryExample(_ path: String) throws(FirstTimeError) -> (forms: [StateFile.Form], before: FirstTimeRecord?, after: FirstTimeRecord?) {
    // Read: one call classifies the file, one reads the state.
    let file = try StateFile(contentsOf: path)
    let state = try file.state()
    if let reset = state.resetsAll { print("YCFirstTime would start afresh: \(reset)") }
    for finding in state.findings where finding.isNotable { print("warning: \(finding)") }
    let before = state.records["onboarding.v1"]

    // Change in place: locked, atomic, every other key kept, in the file's own form.
    try StateFile.update(at: path) { records in
        records["onboarding.v1"] = FirstTimeRecord(lastVersion: "3.0", lastTime: ExactTime.parseInstant("2025-03-01T09:00:00Z"))
    }
    return (file.forms, before, try StateFile(contentsOf: path).state().records["onboarding.v1"])
}

@Suite struct LibraryExample {
    @Test func readAndUpdateAnExportedDefaultsFile() throws {
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fixtures/valid/defaults/export.binary.plist")
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("ycft-library-example-\(getpid()).plist")
        defer { try? FileManager.default.removeItem(at: copy) }
        try? FileManager.default.removeItem(at: copy)
        try FileManager.default.copyItem(at: fixture, to: copy)
        let result = try libraryExample(copy.path)
        #expect(result.forms == [.defaultsArchive])
        #expect(result.before == FirstTimeRecord(lastVersion: "2.1.0", lastTime: 757_414_800.123456))
        #expect(result.after == FirstTimeRecord(lastVersion: "3.0", lastTime: 762_512_400))
        // Every other key is where it was.
        let keys = { (url: URL) throws -> [String] in try PropertyList.read(Array(Data(contentsOf: url))).value.dictionaryValue?.map(\.key) ?? [] }
        #expect(try keys(copy) == keys(fixture))
    }
}
