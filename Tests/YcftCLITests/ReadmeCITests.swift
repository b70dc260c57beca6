import Foundation
import Testing
import TestSupport

/// The README's GitHub Actions example: its `ycft verify` commands run on a tree and do what the
/// README says (annotations, one JUnit document, a line per finding), so the example stays true.
@Suite struct ReadmeGitHubActionsExample {
    let ycft = TestPaths.executable("ycft")

    /// The `ycft ...` commands of the README's workflow block, as written.
    func commands() throws -> [String] {
        let readme = String(decoding: try readBytes(TestPaths.packageRoot.appendingPathComponent("README.md")), as: UTF8.self)
        guard let start = readme.range(of: "```yaml\nname: YCFirstTime contract"),
              let end = readme.range(of: "```\n", range: start.upperBound..<readme.endIndex) else { return [] }
        return readme[start.upperBound..<end.lowerBound].split(separator: "\n")
            .compactMap { line in line.trimmingCharacters(in: .whitespaces).hasPrefix("- run: ycft ")
                ? String(line.trimmingCharacters(in: .whitespaces).dropFirst("- run: ".count)) : nil }
    }

    @Test func itsVerifyCommandsWorkOnATree() throws {
        let listed = try commands()
        #expect(listed == ["ycft verify --format github --strict TestData/",
                           "ycft verify --format junit TestData/ > ycft-verify.xml",
                           "ycft verify TestData/"])
        let dir = try TestPaths.temporaryDirectory()
        let tree = dir.appendingPathComponent("TestData")
        try FileManager.default.createDirectory(at: tree.appendingPathComponent("app"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: TestPaths.fixtures.appendingPathComponent("valid/defaults/export.binary.plist"),
                                         to: tree.appendingPathComponent("app/com.example.plist"))
        try FileManager.default.copyItem(at: TestPaths.fixtures.appendingPathComponent("invalid/wrong-record-class.plist"),
                                         to: tree.appendingPathComponent("broken.plist"))
        func run(_ command: String) throws -> ProcessResult {
            // The workflow's PATH holds the built ycft; here, the test's build.
            try runProcess(URL(fileURLWithPath: "/bin/sh"), ["-c", "cd '\(dir.path)' && PATH='\(ycft.deletingLastPathComponent().path)':$PATH \(command)"])
        }
        let github = try run(listed[0])
        #expect(github.status == 1)
        #expect(github.stdoutText.hasPrefix("::error file=TestData/broken.plist,title="))
        let junit = try run(listed[1])
        #expect(junit.status == 1)
        let report = String(decoding: try readBytes(dir.appendingPathComponent("ycft-verify.xml")), as: UTF8.self)
        #expect(report.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"ycft verify\" tests=\"2\" failures=\"1\""))
        let text = try run(listed[2])
        #expect(text.status == 1)
        #expect(text.stderr.hasPrefix("TestData/broken.plist: error: ["))
    }
}

/// The README is the first screen, not the manual (issue 47): at most 200 lines, counted as
/// `wc -l` counts them. Detail goes to a page under docs/ that the README links to.
@Suite struct ReadmeLength {
    static let limit = 200

    @Test func theReadmeIsAtMostTwoHundredLines() throws {
        let readme = try readBytes(TestPaths.packageRoot.appendingPathComponent("README.md"))
        let lines = readme.filter { $0 == UInt8(ascii: "\n") }.count
        #expect(lines <= Self.limit, "README.md has \(lines) lines, more than \(Self.limit): move detail to docs/")
    }
}
