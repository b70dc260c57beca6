import Foundation
import Testing
import TestSupport
@testable import YcftCLI

/// The one description of the command line (CommandSpec) and what is produced from it.
@Suite struct GeneratedFromTheSpec {
    static func installed(_ tool: String) -> Bool {
        ["/usr/bin/", "/bin/", "/usr/local/bin/"].contains { FileManager.default.isExecutableFile(atPath: $0 + tool) }
    }

    func generate(_ arguments: [String]) -> String {
        let fake = FakeIO()
        #expect(fake.run(arguments) == 0)
        #expect(fake.stderr.isEmpty)
        return fake.stdoutText
    }

    func check(_ script: String, with shell: String) throws {
        let dir = try TestPaths.temporaryDirectory()
        let file = dir.appendingPathComponent("completion.\(shell)")
        try writeBytes(Array(script.utf8), to: file)
        let result = try runProcess(URL(fileURLWithPath: "/usr/bin/env"), [shell, "-n", file.path])
        #expect(result.status == 0, "\(shell) -n: \(result.stderr)")
    }

    /// Every visible option and every subcommand of the spec is in every script and the manual.
    @Test(arguments: ["bash", "zsh", "fish"])
    func completionsCoverTheSpec(_ shell: String) throws {
        let script = generate(["--generate-completion-script", shell])
        for spec in CommandSpec.all {
            #expect(script.contains(spec.name), "\(shell): \(spec.name)")
            for option in spec.options where !option.hidden {
                let long = option.names.last!
                let spelled = shell == "fish" ? "-l \(long.dropFirst(2))" : long
                #expect(script.contains(spelled), "\(shell): \(spec.name) \(long)")
            }
        }
        // A hidden, replaced spelling is never offered.
        #expect(!script.contains("output-format"))
        if Self.installed(shell) { try check(script, with: shell) }
    }

    @Test func bashScriptIsValid() throws {
        try check(generate(["--generate-completion-script", "bash"]), with: "bash")
    }

    @Test func manualPageIsCleanRoff() throws {
        let page = generate(["--generate-manual"])
        #expect(page.hasPrefix(".TH YCFT 1 \"\(Ycft.versionDate)\" \"ycft \(Ycft.version)\" \"User Commands\"\n"))
        for spec in CommandSpec.all {
            #expect(page.contains(".SS \"ycft \(spec.name)\""))
            for option in spec.options where !option.hidden {
                #expect(page.contains("\\fB\(Manual.escape(option.names.last!))\\fR"), "\(spec.name) \(option.names.last!)")
            }
        }
        guard Self.installed("groff") else { return }
        let dir = try TestPaths.temporaryDirectory()
        let file = dir.appendingPathComponent("ycft.1")
        try writeBytes(Array(page.utf8), to: file)
        let result = try runProcess(URL(fileURLWithPath: "/usr/bin/env"), ["groff", "-ww", "-man", "-Tutf8", file.path])
        #expect(result.status == 0)
        #expect(result.stderr == "", "groff warnings: \(result.stderr)")
        #expect(result.stdoutText.contains("read, check, migrate and rewrite"))
    }

    /// The built binary prints the same scripts and page, and `man -l` renders the page
    /// without warnings where man is installed.
    @Test func theBuiltBinaryGeneratesTheSame() throws {
        let ycft = TestPaths.executable("ycft")
        for shell in ["bash", "zsh", "fish"] {
            let result = try runProcess(ycft, ["--generate-completion-script", shell])
            #expect(result.status == 0)
            #expect(result.stdoutText == generate(["--generate-completion-script", shell]))
        }
        let manual = try runProcess(ycft, ["--generate-manual"])
        #expect(manual.status == 0)
        #expect(manual.stdoutText == generate(["--generate-manual"]))
        guard Self.installed("man"), Self.installed("groff") else { return }
        let dir = try TestPaths.temporaryDirectory()
        let file = dir.appendingPathComponent("ycft.1")
        try writeBytes(manual.stdout, to: file)
        let rendered = try runProcess(URL(fileURLWithPath: "/usr/bin/env"), ["man", "--warnings", "-l", "-P", "cat", file.path],
                                      environment: ["MANWIDTH": "80", "PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"])
        #expect(rendered.status == 0)
        #expect(rendered.stderr == "", "man -l: \(rendered.stderr)")
        #expect(rendered.stdoutText.contains("ycft dump"))
    }

    @Test func badGeneratorArgumentsAreUsageErrors() {
        let fake = FakeIO()
        #expect(fake.run(["--generate-completion-script", "tcsh"]) == 2)
        #expect(fake.stderr.hasPrefix("Error: The value 'tcsh' is invalid for '--generate-completion-script <shell>': expected 'bash', 'zsh' or 'fish'\n"))
    }

    /// The parser takes exactly the spec's options: each command knows every option its spec
    /// lists (none falls through to "Unknown option"), refuses others, and refuses a value
    /// given to a flag.
    @Test(arguments: CommandSpec.all.map(\.name))
    func parserAndSpecAgree(_ name: String) {
        let spec = CommandSpec.all.first { $0.name == name }!
        for option in spec.options where option.names != ["-h", "--help"] {
            for spelling in option.names {
                let fake = FakeIO()
                _ = fake.run([name] + (option.takesValue ? ["\(spelling)=x"] : [spelling]) + ["no-such-file"])
                #expect(!fake.stderr.contains("Unknown option"), "\(name) \(spelling): \(fake.stderr)")
            }
            if !option.takesValue, let long = option.names.last {
                let fake = FakeIO()
                #expect(fake.run([name, "\(long)=1", "f"]) == 2)
                #expect(fake.stderr.hasPrefix("Error: '\(long)' takes no value\n"), "\(name) \(long)")
            }
        }
        let fake = FakeIO()
        #expect(fake.run([name, "--no-such-option", "f"]) == 2)
        #expect(fake.stderr.hasPrefix("Error: Unknown option '--no-such-option'\nUsage: \(spec.usageLine)\n"))
    }
}
