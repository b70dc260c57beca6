import Foundation
import Testing
import TestSupport

/// Every example in the documents runs: the shell sessions of README.md, MIGRATING.md,
/// Fixtures/README.md, Examples/README.md and docs/*.md are run against the built `ycft`, and what they show is
/// what it prints. The convention (docs/development.md, "Examples that run"):
///
/// - A ```sh block is a session. A line starting with `$ ` is a command; a command whose line
///   ends with `\` continues on the next line. The lines up to the next `$ ` (or the end of the
///   block) are what the command prints, standard output and standard error together, as a
///   terminal shows them; none means it prints nothing. A line of exactly `...` stands for any
///   number of lines. Lines before the first `$ ` must be `#` comments.
/// - A command exits 0 unless its last line ends with a comment saying `exit N`
///   (`$ ycft verify broken.plist   # exit 1`).
/// - Where the output shown holds `time="…"` (JUnit's seconds, which vary from run to run),
///   each `time="S"` printed matches it if S is a non-negative decimal number; nowhere else.
/// - Each document runs in order in its own scratch copy of `Examples/` beside a copy of
///   `Fixtures/`, from `Examples/`, with the built `ycft` first on PATH, TZ=UTC.
/// - A ```sh no-run block is not run (installing, building, CI); the test counts those, per
///   document, so none is added silently. Every other block names its language
///   (swift, json, yaml, text); a block without one fails.
@Suite struct DocExamples {
    static let root = TestPaths.packageRoot

    /// The documents, by path from the package root.
    static var documents: [String] {
        let docs = (try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("docs").path)) ?? []
        return ["README.md", "MIGRATING.md", "Fixtures/README.md", "Examples/README.md"]
            + docs.filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
    }

    /// The no-run blocks each document may have. Change a count only with the block it counts.
    static let noRun: [String: Int] = [
        "README.md": 3,
        "Fixtures/README.md": 1,
        "docs/development.md": 3,
        // Installing a package, building from source, and the completions into a user's home
        // (TopLevelFromTheSpec.zshScriptRegistersItselfEitherWay sources the zsh script as the block says).
        "docs/install.md": 3,
        "docs/performance.md": 1,
        // Configuring git (Workflows.gitDiffShowsTheRecordThatChanged runs the recipe with the real git).
        "docs/workflows.md": 1,
    ]

    @Test(arguments: documents) func itsShellSessionsPrintWhatTheyShow(document: String) throws {
        let text = try String(contentsOf: Self.root.appendingPathComponent(document), encoding: .utf8)
        let blocks = try Self.blocks(of: text, in: document)
        let sessions = blocks.filter { $0.language == "sh" && !$0.noRun }
        #expect(blocks.filter(\.noRun).count == Self.noRun[document, default: 0],
                "\(document): the number of ```sh no-run blocks changed; update DocExamples.noRun with the reason")
        guard !sessions.isEmpty else { return }

        let scratch = try TestPaths.temporaryDirectory()
        try FileManager.default.copyItem(at: TestPaths.examples,
                                         to: scratch.appendingPathComponent("Examples"))
        try FileManager.default.copyItem(at: TestPaths.fixtures, to: scratch.appendingPathComponent("Fixtures"))
        let cwd = scratch.appendingPathComponent("Examples")
        var commands = 0
        for session in sessions {
            for command in try Self.commands(of: session, in: document) {
                commands += 1
                var result = try Self.run(command.text, in: cwd)
                if command.expected.contains(where: { $0.contains(#"time="…""#) }), let untimed = junitTimesHidden(result.output) {
                    result.output = untimed
                }
                let place = "\(document):\(command.line): $ \(command.text)"
                #expect(result.status == command.status, "\(place)\nexit status \(result.status), the document implies \(command.status); it printed:\n\(result.output)")
                #expect(Self.matches(result.output, command.expected),
                        "\(place)\nprinted:\n\(result.output)\nthe document shows:\n\(command.expected.joined(separator: "\n"))")
            }
        }
        #expect(commands > 0)
    }

    /// The convention can fail: a wrong output, a wrong status and an untagged block are caught.
    @Test func theConventionCatchesMistakes() throws {
        let wrongOutput = try Self.commands(of: .init(language: "sh", noRun: false, line: 1, lines: ["$ echo one", "two"]), in: "x")
        #expect(!Self.matches(try Self.run(wrongOutput[0].text, in: TestPaths.packageRoot).output, wrongOutput[0].expected))
        let status = try Self.commands(of: .init(language: "sh", noRun: false, line: 1, lines: ["$ false   # exit 1", "$ true \\", "  # a comment: exit 3"]), in: "x")
        #expect(status.map(\.status) == [1, 3])
        #expect(throws: DocError.self) { try Self.blocks(of: "```\nls\n```\n", in: "x") }
        #expect(throws: DocError.self) { try Self.commands(of: .init(language: "sh", noRun: false, line: 1, lines: ["ls"]), in: "x") }
        #expect(Self.matches("a\nb\nc\n", ["a", "...", "c"]) && Self.matches("a\nc\n", ["a", "...", "c"]))
        #expect(!Self.matches("a\nb\n", ["a"]) && !Self.matches("a\n", ["a", "b"]) && !Self.matches("", ["a"]))
    }

    /// `Examples/` is what `Examples/make.sh` writes, byte for byte.
    @Test func examplesAreWhatMakeWrites() throws {
        let scratch = try TestPaths.temporaryDirectory()
        let examples = scratch.appendingPathComponent("Examples")
        try FileManager.default.copyItem(at: TestPaths.examples, to: examples)
        try FileManager.default.copyItem(at: TestPaths.fixtures, to: scratch.appendingPathComponent("Fixtures"))
        // make.sh writes Backup/ with the backup generator, which reads Examples/ and Fixtures/ beside it.
        try FileManager.default.createDirectory(at: scratch.appendingPathComponent("Scripts"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: Backups.generator, to: scratch.appendingPathComponent("Scripts/make-backup.py"))
        let made = try runProcess(URL(fileURLWithPath: "/bin/bash"), [examples.appendingPathComponent("make.sh").path],
                                  environment: ["PATH": "/usr/bin:/bin", "YCFT": TestPaths.executable("ycft").path])
        #expect(made.status == 0, "make.sh: \(made.stderr)")
        let committed = try Self.files(under: TestPaths.examples)
        #expect(committed.count > 5)
        #expect(try Self.files(under: examples) == committed, "Examples/ differs from what Examples/make.sh writes: run it and commit")
    }

    /// Every relative link between the documents names a file that exists, and a `#fragment`
    /// a heading of that file.
    @Test(arguments: documents + ["Fuzz/README.md"]) func itsLinksResolve(document: String) throws {
        let url = Self.root.appendingPathComponent(document)
        try #require(FileManager.default.fileExists(atPath: url.path), "\(document): no such file")
        let text = try String(contentsOf: url, encoding: .utf8)
        let prose = Self.outsideBlocks(text)
        let links = prose.matches(of: /\]\(([^)\s]+)\)/).map { String($0.output.1) }
            .filter { !$0.contains("://") && !$0.hasPrefix("mailto:") }
        for link in links {
            let parts = link.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            let target = parts[0].isEmpty ? url : url.deletingLastPathComponent().appendingPathComponent(parts[0])
            #expect(FileManager.default.fileExists(atPath: target.path), "\(document): link \(link): no such file")
            if parts.count == 2, target.pathExtension == "md", let linked = try? String(contentsOf: target, encoding: .utf8) {
                #expect(Self.anchors(of: linked).contains(parts[1]), "\(document): link \(link): no such heading")
            }
        }
    }

    /// A pre-commit `rev:` in the documents is a commit's full hash: ycft has no release tags,
    /// and pre-commit fails on a tag that does not exist (`pathspec 'v0.1.0' did not match`).
    @Test(arguments: documents) func aHookRevisionIsACommit(document: String) throws {
        let text = try String(contentsOf: Self.root.appendingPathComponent(document), encoding: .utf8)
        for match in text.matches(of: /\n\s*rev:\s*(\S+)/) {
            #expect(String(match.output.1).wholeMatch(of: /[0-9a-f]{40}/) != nil, "\(document): rev: \(match.output.1) is no commit hash")
        }
    }

    /// What the repository's documents and scripts name as their sources is in the repository:
    /// no path of the machine they were written on (`/work/shared/reference/...`).
    @Test func sourcesNamedAreInTheRepository() throws {
        let scripts = try FileManager.default.contentsOfDirectory(atPath: Self.root.appendingPathComponent("Scripts").path)
        for file in Self.documents + scripts.sorted().map({ "Scripts/" + $0 }) {
            let text = try String(contentsOf: Self.root.appendingPathComponent(file), encoding: .utf8)
            #expect(!text.contains("/work/"), "\(file) names a path outside the repository")
        }
    }

    // MARK: - The convention

    struct DocError: Error, CustomStringConvertible { var description: String }

    struct Block { var language: String; var noRun: Bool; var line: Int; var lines: [String] }

    struct Command { var text: String; var line: Int; var status: Int32; var expected: [String] }

    /// The fenced blocks of a document; an untagged block, or a language outside the known
    /// ones, is an error.
    static func blocks(of text: String, in document: String) throws -> [Block] {
        var blocks: [Block] = [], current: Block?
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if line.hasPrefix("```") {
                if let block = current { blocks.append(block); current = nil; continue }
                let info = line.dropFirst(3).split(separator: " ").map(String.init)
                guard let language = info.first, ["sh", "swift", "json", "yaml", "text"].contains(language) else {
                    throw DocError(description: "\(document):\(index + 1): a block needs a language: sh, sh no-run, swift, json, yaml or text")
                }
                current = Block(language: language, noRun: info.dropFirst().contains("no-run"), line: index + 1, lines: [])
            } else if current != nil {
                current!.lines.append(String(line))
            }
        }
        if current != nil { throw DocError(description: "\(document): a block is not closed") }
        return blocks
    }

    /// A session's commands, each with the status it implies and the output it shows.
    static func commands(of block: Block, in document: String) throws -> [Command] {
        var commands: [Command] = []
        var index = 0
        while index < block.lines.count {
            let line = block.lines[index]
            guard line.hasPrefix("$ ") else {
                guard commands.isEmpty, line.hasPrefix("#") || line.isEmpty else {
                    throw DocError(description: "\(document):\(block.line + index + 1): a session starts with a command (`$ `) or `#` comments")
                }
                index += 1
                continue
            }
            var text = String(line.dropFirst(2))
            let start = block.line + index + 1
            while text.hasSuffix("\\"), index + 1 < block.lines.count {
                index += 1
                text += "\n" + block.lines[index]
            }
            index += 1
            var expected: [String] = []
            while index < block.lines.count, !block.lines[index].hasPrefix("$ ") {
                expected.append(block.lines[index])
                index += 1
            }
            let last = text.split(separator: "\n").last.map(String.init) ?? text
            let status = last.firstMatch(of: /#[^'"]*\bexit ([0-9]+)\s*$/).flatMap { Int32($0.output.1) } ?? 0
            commands.append(Command(text: text, line: start, status: status, expected: expected))
        }
        if commands.isEmpty { throw DocError(description: "\(document):\(block.line): a sh block without a `$ ` command: mark it ```sh no-run") }
        return commands
    }

    /// Runs a command with `/bin/sh` in `directory`, standard output and error in one pipe.
    static func run(_ command: String, in directory: URL) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        process.currentDirectoryURL = directory
        process.environment = childEnvironment(["PATH": TestPaths.productsDirectory.path + ":/usr/bin:/bin", "HOME": directory.path,
                                                "TZ": "UTC", "LC_ALL": "C.UTF-8", "NO_COLOR": "1",
                                                "TMPDIR": FileManager.default.temporaryDirectory.path])
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// Whether `output` is the lines shown, a `...` line standing for any number of lines.
    static func matches(_ output: String, _ expected: [String]) -> Bool {
        guard expected.contains("...") else {
            return output == (expected.isEmpty ? "" : expected.joined(separator: "\n") + "\n")
        }
        guard output.isEmpty || output.hasSuffix("\n") else { return false }
        let lines = output.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
        func match(_ i: Int, _ j: Int) -> Bool {
            if j == expected.count { return i == lines.count }
            if expected[j] == "..." { return (i...lines.count).contains { match($0, j + 1) } }
            return i < lines.count && lines[i] == expected[j] && match(i + 1, j + 1)
        }
        return match(0, 0)
    }

    /// The text outside fenced blocks.
    static func outsideBlocks(_ text: String) -> String {
        var inside = false
        return text.split(separator: "\n", omittingEmptySubsequences: false).filter { line in
            if line.hasPrefix("```") { inside.toggle(); return false }
            return !inside
        }.joined(separator: "\n")
    }

    /// The fragments GitHub gives a document's headings: lowercased, punctuation but `-` and
    /// `_` dropped, spaces as `-`.
    static func anchors(of text: String) -> Set<String> {
        Set(outsideBlocks(text).split(separator: "\n").filter { $0.hasPrefix("#") }.map { heading in
            String(heading.drop { $0 == "#" }.dropFirst().lowercased().unicodeScalars.compactMap { scalar -> Character? in
                if scalar == " " { return "-" }
                return CharacterSet.alphanumerics.contains(scalar) || scalar == "-" || scalar == "_" ? Character(scalar) : nil
            })
        })
    }

    /// Every file below a directory, by relative path, with its bytes.
    static func files(under directory: URL) throws -> [String: [UInt8]] {
        var files: [String: [UInt8]] = [:]
        let base = directory.standardizedFileURL.path + "/"
        for case let url as URL in FileManager.default.enumerator(at: directory, includingPropertiesForKeys: [.isRegularFileKey])! {
            guard (try url.resourceValues(forKeys: [.isRegularFileKey])).isRegularFile == true else { continue }
            files[String(url.standardizedFileURL.path.dropFirst(base.count))] = try readBytes(url)
        }
        return files
    }
}
