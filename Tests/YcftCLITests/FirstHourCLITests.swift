import Foundation
import Testing
import TestSupport

/// Issue 48's first-hour papercuts, on the built binary: exact output and exit status.
@Suite struct FirstHourCLI {
    let ycft = TestPaths.executable("ycft")

    /// "Unreadable" has one meaning in verify's summary and JSON report: no property list could
    /// be read from the file, whether it cannot be opened (exit 2) or its bytes are no property
    /// list (`plist-unreadable`, exit 1). Before, the second counted as failed.
    @Test func unreadableMeansOneThing() throws {
        let dir = try TestPaths.temporaryDirectory()
        let notes = dir.appendingPathComponent("README.md")
        try writeBytes(Array("# Notes\n".utf8), to: notes)
        let good = TestPaths.fixtures.appendingPathComponent("valid/ycft/three-records.plist").path
        let content = try runProcess(ycft, ["verify", notes.path, good])
        #expect(content.status == 1)
        #expect(content.stderr == "\(notes.path): error: [plist-unreadable] file: not a property list (neither binary 'bplist00' nor XML)\n"
                + "ycft verify: 2 files: 1 passed, 0 failed, 1 unreadable (1 error, 0 warnings)\n")
        let missing = dir.appendingPathComponent("nothere").path
        let both = try runProcess(ycft, ["verify", notes.path, missing])
        #expect(both.status == 2)
        #expect(both.stderr.hasSuffix("ycft verify: 2 files: 0 passed, 0 failed, 2 unreadable (1 error, 0 warnings)\n"), "\(both.stderr)")
        let json = try runProcess(ycft, ["verify", "--format", "json", "--compact", notes.path, missing])
        let statuses = json.stdoutText.components(separatedBy: #""status":""#).dropFirst().map { $0.prefix { $0 != "\"" } }
        #expect(statuses == ["unreadable", "unreadable"], "\(json.stdoutText)")
    }
}
