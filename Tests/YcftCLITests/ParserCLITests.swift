import Foundation
import Testing
import FirstTimeArchive
import FirstTimeCore
import Plist
import PlistCore
import TestSupport
@testable import YcftCLI

/// The parser reads the command description (CommandSpec): every option of every command is
/// parsed from it and read by its command, with the spec's choices, kinds and defaults.
@Suite struct CommandLineParser {
    /// Each command's options as the command takes them, by name: a spec without an entry fails.
    static let takers: [String: @Sendable (ParsedArguments) throws -> Void] = [
        "dump": { _ = try DumpCommand.Options($0) },
        "pack": { _ = try PackCommand.Options($0) },
        "verify": { _ = try VerifyCommand.Options($0) },
        "migrate": { _ = try MigrateCommand.Options($0) },
        "status": { _ = try StatusCommand.Options($0, clock: { 0 }) },
        "diff": { _ = try StatusCommand.Options($0, clock: { 0 }) },
        "set": { _ = try EditCommands.SetOptions($0, clock: { 0 }) },
        "unset": { _ = EditCommands.Common($0) },
        "reset": { _ = EditCommands.Common($0) },
        "edit": { _ = EditCommands.Common($0) },
        "backup": { _ = try BackupCommand.Options($0) },
    ]

    /// Operands each command accepts (by the spec's argument names).
    static func operands(_ spec: CommandSpec, for option: CommandSpec.Option.Name? = nil) -> [String] {
        spec.arguments.map { argument in
            // An argument of fixed words (`backup`'s action) takes one of them: the parser refuses
            // others, and an action takes only its options (the first action that takes `option`).
            if case let .choices(words) = argument.completion, let first = words.first {
                return spec.actions.first { action in option.map(action.options.contains) ?? false }?.name ?? first
            }
            return argument.name.hasPrefix("KEY") ? "k" : "in.plist"
        }
    }

    /// The values to give an option: every choice, or one value of its kind.
    static func samples(_ option: CommandSpec.Option) -> [[String]] {
        switch option.kind {
        case .flag: return [[]]
        case let .choice(words): return words.map { [$0] }
        case .size: return [["1K"]]
        case let .integer(range, _): return [["\(range.lowerBound)"], ["\(range.upperBound)"]]
        case .text, .bytes: return [["x"]]
        case .renamed: return []
        }
    }

    @Test func everyCommandHasItsOptionsTaker() {
        #expect(Set(Self.takers.keys) == Set(CommandSpec.all.map(\.name)))
    }

    /// Every option of every command parses with every value its kind allows, and the command
    /// reads it (a spec option no command handles fails here), whatever it then says of it.
    @Test(arguments: CommandSpec.all.map(\.name))
    func everyOptionParsesAndIsRead(_ name: String) throws {
        let spec = try #require(CommandSpec.all.first { $0.name == name })
        let take = try #require(Self.takers[name])
        for option in spec.options where option.name != .help {
            for value in Self.samples(option) {
                for spelling in option.names {
                    // With what it goes with (`--compact` with `--format json`).
                    let needed = spec.requires.filter { $0.option == option.name }.flatMap { requirement in
                        [requirement.needs.long] + (requirement.value.map { [$0] }
                            ?? (spec.option(requirement.needs.long)?.takesValue == true ? ["x"] : []))
                    }
                    let arguments = [spelling] + value + needed + Self.operands(spec, for: option.name)
                    let parsed = try ParsedArguments(arguments, spec: spec)
                    do { try take(parsed) } catch let error as UsageError {
                        // The command may refuse a combination or a text, never a choice its spec offers.
                        if case .choice = option.kind {
                            #expect(!error.message.hasPrefix("The value '\(value.first ?? "")' is invalid for '\(option.name.long)"),
                                    "\(name) \(arguments): \(error.message)")
                        }
                    }
                    #expect(parsed.unread.isEmpty, "\(name) \(arguments): never read \(parsed.unread.map(\.long))")
                }
            }
        }
    }

    /// Every choice option refuses a word not in its list, naming the list, in every command.
    @Test(arguments: [
        ("pack", "--plist-format", "'--plist-format <format>': expected 'binary' or 'xml'"),
        ("pack", "--launch-arguments", "'--launch-arguments <style>': expected 'shell' or 'swift'"),
        ("verify", "--format", "'--format <format>': expected 'text', 'json', 'github' or 'junit'"),
        ("migrate", "--to", "'--to <target>': expected 'records', 'interval' or 'legacy'"),
        ("migrate", "--plist-format", "'--plist-format <format>': expected 'same', 'binary' or 'xml'"),
        ("status", "--library", "'--library <version>': expected '2.x' or '1.x'"),
        ("status", "--format", "'--format <format>': expected 'text' or 'json'"),
        ("diff", "--library", "'--library <version>': expected '2.x' or '1.x'"),
        ("diff", "--format", "'--format <format>': expected 'text' or 'json'"),
        ("backup", "--format", "'--format <format>': expected 'text' or 'json'"),
        ("dump", "--color", "'--color <when>': expected 'auto', 'always' or 'never'"),
        ("status", "--color", "'--color <when>': expected 'auto', 'always' or 'never'"),
        ("verify", "--color", "'--color <when>': expected 'auto', 'always' or 'never'"),
    ])
    func aChoiceNotInTheListIsRefusedWithTheList(_ command: String, _ option: String, _ said: String) throws {
        let spec = try #require(CommandSpec.all.first { $0.name == command })
        let fake = FakeIO()
        #expect(fake.run([command, option, "bogus"] + Self.operands(spec)) == 2)
        #expect(fake.stderr.hasPrefix("Error: The value 'bogus' is invalid for \(said)\nUsage: ycft \(command) "))
        #expect(fake.stdout.isEmpty)
    }

    /// The table above covers every choice option of every command.
    @Test func everyChoiceOptionIsInTheRefusalTable() {
        let listed: Set<String> = ["pack --plist-format", "pack --launch-arguments", "diff --library", "diff --format", "verify --format", "migrate --to", "migrate --plist-format",
                                   "status --library", "status --format", "backup --format", "dump --color", "status --color", "verify --color"]
        var choices = Set<String>()
        for spec in CommandSpec.all {
            for option in spec.options {
                if case .choice = option.kind { choices.insert("\(spec.name) \(option.name.long)") }
            }
        }
        #expect(choices == listed)
    }

    /// What the parser refuses, in the tool's words, from the spec: kinds, old spellings,
    /// exclusive groups, values given to flags.
    @Test(arguments: [
        (["migrate", "--jobs", "0", "--dry-run", "a"], "The value '0' is invalid for '--jobs <n>': expected a number from 1 to 256"),
        (["migrate", "-j257", "--dry-run", "a"], "The value '257' is invalid for '--jobs <n>': expected a number from 1 to 256"),
        (["status", "--first-weekday", "8", "a"], "The value '8' is invalid for '--first-weekday <n>': expected 1 ... 7 (1 is Sunday)"),
        (["status", "--minimum-days-in-first-week=x", "a"],
         "The value 'x' is invalid for '--minimum-days-in-first-week <n>': expected 1 ... 7 (days)"),
        (["set", "--max-input-size", "12Q", "a", "k"],
         "The value '12Q' is invalid for '--max-input-size <size>': expected bytes, or a number with K, M or G"),
        // A unit whose capital is two letters ("SS") once trapped forming a Character.
        (["dump", "--max-input-size", "1ß", "a"],
         "The value '1ß' is invalid for '--max-input-size <size>': expected bytes, or a number with K, M or G"),
        (["migrate", "--output-format", "xml", "--dry-run", "a"], "'--output-format' is now '--plist-format same|binary|xml'"),
        (["pack", "-o", "a.plist", "--into", "b.plist", "a.json"], "Use only one of '-o', '--into' and '--launch-arguments'"),
        (["migrate", "--dry-run", "--in-place", "a"], "Use only one of '-o', '--in-place' and '--dry-run'"),
        (["migrate", "-o", "x", "--output", "y", "a"], "'--output' may be given only once"),
        (["migrate", "--dry-run", "--dry-run", "a"], "'--dry-run' may be given only once"),
        (["pack", "-o", "a.plist", "-o", "b.plist", "a.json"], "'--output' may be given only once"),
        (["pack", "-o", "--force", "a.json"],
         "Missing value for '-o <out|->' ('--force' is an option; give such a value as '--output=--force')"),
        (["migrate", "--dry-run", "--report", "-q", "a"],
         "Missing value for '--report <file|->' ('-q' is an option; give such a value as '--report=-q')"),
        (["status", "--app-version", "--now=0", "a"],
         "Missing value for '--app-version <version>' ('--now=0' is an option; give such a value as '--app-version=--now=0')"),
        (["migrate", "--in-place", "--report", "", "a"], "The value for '--report <file|->' is empty: give a path"),
        (["pack", "--into=", "a.json"], "The value for '--into <defaults_file>' is empty: give a path"),
        (["dump", ""], "The argument 'FILE|-' is empty: give a path"),
        (["migrate", "--dry-run", "--include", "", "a"], "The value for '--include <glob>' is empty: give a glob"),
        (["pack", "--key", "K", "a.json"], "'--key' goes with '--into' or '--launch-arguments'"),
        (["set", "a", "k", "--seconds", "--no-last-time"], "'--seconds' goes with '--last-time'"),
        (["status", "--compact", "a"], "'--compact' goes with '--format json'"),
        (["verify", "--format", "junit", "--compact", "a"], "'--compact' goes with '--format json'"),
        (["verify", "--compact", "--format", "json", "--format", "text", "a"], "'--compact' goes with '--format json'"),
        (["backup", "apps", "--compact", "b"], "'--compact' goes with '--format json'"),
        (["migrate", "--dry-run", "--compact", "a"], "'--compact' goes with '--report'"),
        (["migrate", "--dry-run", "--drop-versions", "a"], "'--drop-versions' goes with '--to interval'"),
        (["migrate", "--dry-run", "--drop-versions", "--to", "legacy", "a"], "'--drop-versions' goes with '--to interval'"),
        (["dump", "--refs", "a"], "'--refs' goes with '--raw'"),
        (["status", "--password-file", "p", "a"], "'--password-file' goes with '--backup'"),
        (["migrate", "--in-place", "--no-backup", "--backup", ".b", "a"], "'--backup' and '--no-backup' cannot be combined"),
        (["dump", "--objects", "--raw", "a"], "'--raw' and '--objects' cannot be combined"),
        (["verify", "--strict=yes", "a"], "'--strict' takes no value"),
        (["reset", "--force", "a", "b"], "Unexpected argument 'b'"),
        (["unset", "a"], "Missing expected argument 'KEY...'"),
        (["status", "--time-zone"], "Missing value for '--time-zone <zone>'"),
    ])
    func refusals(_ arguments: [String], _ said: String) {
        let fake = FakeIO()
        #expect(fake.run(arguments) == 2)
        #expect(fake.stderr.hasPrefix("Error: \(said)\nUsage: ycft \(arguments[0]) "), "\(fake.stderr)")
    }

    /// A shared option (--key, --max-input-size, --include, --force ...) takes the same kind of
    /// value with the same default in every command that has it; only the report and plist
    /// formats and -o differ by command, by design. So does --backup, which the issue names
    /// (issue 30): an iPhone backup folder on dump, status and verify, migrate's suffix for
    /// the files it keeps; the two commands never share it.
    @Test func sharedOptionsBehaveAlike() {
        var seen: [CommandSpec.Option.Name: (command: String, shape: String)] = [:]
        var shared = 0
        for spec in CommandSpec.all {
            for option in spec.options where ![.format, .plistFormat, .output].contains(option.name)
                && !(option.name == .backup && spec.name == "migrate") {
                let shape = "\(option.kind) \(option.value ?? "-") \(option.repeats) \(option.defaultValue ?? "-")"
                guard let first = seen[option.name] else {
                    seen[option.name] = (spec.name, shape)
                    continue
                }
                shared += 1
                #expect(first.shape == shape, "\(option.name.long): \(first.command) \(first.shape), \(spec.name) \(shape)")
            }
        }
        #expect(shared >= 20)
    }

    /// Each exclusive group names options its command has (else it could never refuse).
    @Test func exclusiveGroupsNameTheCommandsOptions() {
        for spec in CommandSpec.all {
            for group in spec.exclusive {
                #expect(group.names.count >= 2)
                for name in group.names { #expect(spec.options.contains { $0.name == name }, "\(spec.name) \(name.long)") }
            }
        }
    }

    /// An option's default is the spec's, and its help says so.
    @Test func defaultsComeFromTheDescription() throws {
        for spec in CommandSpec.all {
            for option in spec.options {
                guard let value = option.defaultValue else { continue }
                let help = option.help.joined(separator: " ")
                #expect(help.contains("default: \(value)") || help.contains("\(value) (default") || help.contains("\(value): ")
                        && help.contains("(default)") || help.contains("'\(value)'") && help.contains("the default"),
                        "\(spec.name) \(option.name.long): default \(value) but help says \(help)")
            }
            let parsed = try ParsedArguments(Self.operands(spec), spec: spec)
            #expect(parsed.limits.maxInputSize == PlistLimits.default.maxInputSize)
            if spec.option("--key") != nil { #expect(parsed.value(.key) == LegacyArchive.defaultsKey) }
        }
    }

    /// `--max-input-size` is honoured by every command that lists it, on every file it reads
    /// (`pack --into` once read its defaults file with the default limit).
    @Test func everyCommandHonoursMaxInputSize() throws {
        let dir = try TestPaths.temporaryDirectory()
        let big = dir.appendingPathComponent("big.plist").path
        try FileManager.default.copyItem(atPath: TestPaths.fixtures.appendingPathComponent("valid/defaults/export.binary.plist").path,
                                         toPath: big)
        let empty = Array(RecordsFormat.jsonText(FirstTimeRecords()).utf8)
        let small = dir.appendingPathComponent("small.json"), records = dir.appendingPathComponent("records.json")
        try writeBytes(empty, to: small)
        try writeBytes(Array(sampleJSON.utf8), to: records)
        let limit = "\(empty.count)"
        let runs: [String: [[String]]] = [
            "dump": [["dump", big]],
            "pack": [["pack", records.path], ["pack", "--into", big, small.path]],
            "verify": [["verify", big]],
            "migrate": [["migrate", "--dry-run", big]],
            "status": [["status", big]],
            "diff": [["diff", big, big]],
            "set": [["set", "--last-version", "1", big, "k"]],
            "unset": [["unset", big, "k"]],
            "reset": [["reset", big]],
            "edit": [["edit", big]],
            "backup": [["backup", "apps", try Backups.make().path]],
        ]
        #expect(Set(runs.keys) == Set(CommandSpec.all.filter { $0.option("--max-input-size") != nil }.map(\.name)))
        let before = try readBytes(URL(fileURLWithPath: big))
        for arguments in runs.values.joined() {
            let result = try runProcess(TestPaths.executable("ycft"), Array(arguments.prefix(1)) + ["--max-input-size", limit]
                                        + arguments.dropFirst(), environment: ["EDITOR": "false", "PATH": "/usr/bin:/bin"])
            #expect(result.status != 0, "\(arguments)")
            #expect(result.stderr.contains("input is larger than the limit of \(limit) bytes (raise it with --max-input-size)"),
                    "\(arguments): \(result.stderr)")
        }
        #expect(try readBytes(URL(fileURLWithPath: big)) == before)
    }
}

/// `CommandSpec.named` makes only the command it is asked for: every command of `all` is found
/// under its own name, and nothing else is a command.
@Suite struct CommandSpecNames {
    @Test func everyCommandIsFoundByItsNameAndNothingElse() {
        for spec in CommandSpec.all {
            #expect(CommandSpec.named(spec.name)?.name == spec.name)
            #expect(CommandSpec.named(spec.name)?.abstract == spec.abstract)
        }
        #expect(CommandSpec.all.map(\.name) == ["dump", "pack", "verify", "migrate", "status", "diff", "set", "unset", "reset", "edit", "backup"])
        for word in ["help", "", "Dump", "dump ", "from-backup", "--help"] { #expect(CommandSpec.named(word) == nil, "\(word)") }
    }
}
