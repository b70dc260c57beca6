// docs/library.md's examples, compiled and run: they import only modules the FirstTimeArchive
// product lists (FirstTimeArchive, FirstTimeCore, PlistCore), as an adopter's code would.
import FirstTimeArchive
import FirstTimeCore
import Foundation
import PlistCore   // PlistFormat (.binary), ObjectPath, PlistError
import Testing

/// docs/library.md: read the state of an exported preferences file, whatever form it holds, and
/// change it in place.
func libraryExample(_ path: String) throws(FirstTimeError) -> (forms: [StateForm], before: FirstTimeRecord?, after: FirstTimeRecord?) {
    // Read: one call classifies the file, one reads the state.
    let file = try StateFile(contentsOf: path)
    let state = try file.state()
    if let reset = state.resetsAll { print("YCFirstTime would start afresh: \(reset)") }
    for finding in state.findings where finding.isNotable { print("warning: \(finding)") }
    let before = state.records["onboarding.v1"]

    // Change in place: locked, atomic, every other key kept, in the file's own form.
    try StateFile.update(at: path) { records in
        records["onboarding.v1"] = FirstTimeRecord(lastVersion: "3.0", lastTime: ISO8601DateFormatter().date(from: "2025-03-01T09:00:00Z")?.timeIntervalSinceReferenceDate)
    }
    return (file.forms, before, try StateFile(contentsOf: path).state().records["onboarding.v1"])
}

/// docs/library.md's entry points, word for word (a test compares them): `path` names a copy of
/// an exported defaults file, `bytes` are its bytes.
func libraryEntryPoints(_ path: String, _ bytes: [UInt8]) throws -> (findings: [ContractFinding], archive: [UInt8], outcome: Migration.Outcome, back: FirstTimeRecords) {
    // Read: what the file holds (StateForm: archive, defaults-archive, plain-records,
    // interval-keys; several, or none), then its state as the device would read it.
    let file = try StateFile(contentsOf: path)          // or StateFile(bytes); throws FirstTimeError
    let state = try file.state()                        // records, form, findings
    if let reset = state.resetsAll { print("YCFirstTime would start afresh: \(reset)") }
    for finding in state.findings where finding.isNotable { print("warning: \(finding)") }
    print(state.records["onboarding.v1"]?.lastVersion ?? "never run")

    // Change in place, in the file's own form (locked, atomic, every other key kept):
    try StateFile.update(at: path) { records in
        records["onboarding.v1"] = FirstTimeRecord(lastVersion: "3.0", lastTime: ISO8601DateFormatter().date(from: "2025-03-01T09:00:00Z")?.timeIntervalSinceReferenceDate)
    }

    // Check, as `ycft verify` does; encode, as `ycft pack` does; migrate, as `ycft migrate` does.
    let findings = StateFile.verify(bytes)                            // [ContractFinding]
    let archive = try LegacyArchive.encode(state.records, format: .binary)  // Apple's layout
    let outcome = try Migration.migrate(bytes, to: .records)
    let text = state.records.json                                     // the plain JSON, as `ycft dump` prints it
    let back = try FirstTimeRecords(json: Array(text.utf8))          // as `ycft pack` reads it
    return (findings, archive, outcome, back)
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
        let keys = { (url: URL) throws -> [String] in try StateFile(contentsOf: url.path).preferences.map(\.key) }
        #expect(try keys(copy) == keys(fixture))
    }

    @Test func theEntryPointsDoWhatTheySay() throws {
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fixtures/valid/defaults/export.binary.plist")
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("ycft-library-entry-points-\(getpid()).plist")
        defer { try? FileManager.default.removeItem(at: copy) }
        try? FileManager.default.removeItem(at: copy)
        try FileManager.default.copyItem(at: fixture, to: copy)
        let bytes = Array(try Data(contentsOf: fixture))
        let result = try libraryEntryPoints(copy.path, bytes)
        #expect(result.findings.filter { $0.severity == .error }.isEmpty)
        #expect(try LegacyArchive.read(binary: result.archive).records["onboarding.v1"]?.lastVersion == "2.1.0")
        #expect(result.outcome.status == .migrated)
        #expect(result.back == (try StateFile(bytes).state().records))
    }

    /// docs/library.md shows `libraryEntryPoints`'s body, word for word.
    @Test func theDocumentShowsThisCode() throws {
        let here = URL(fileURLWithPath: #filePath)
        let root = here.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let page = try String(contentsOf: root.appendingPathComponent("docs/library.md"), encoding: .utf8)
        let opening = "```swift\nimport FirstTimeArchive\nimport FirstTimeCore\nimport Foundation\nimport PlistCore   // PlistFormat (.binary), ObjectPath, PlistError\n\n"
        let start = try #require(page.range(of: opening))
        let end = try #require(page.range(of: "\n```", range: start.upperBound..<page.endIndex))
        let shown = page[start.upperBound..<end.lowerBound].split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.isEmpty ? "" : "    " + $0 }.joined(separator: "\n")
        #expect(shown.count > 500)
        let source = try String(contentsOf: here, encoding: .utf8)
        #expect(source.contains(shown + "\n    return (findings, archive, outcome, back)\n"), "docs/library.md's entry points differ from LibraryExample.swift")
    }
}
