import FirstTimeArchive
import FirstTimeCore
import OrderedJSON
import Plist
import PlistCore

/// `ycft verify`: checks archives against the YCFirstTime contract, for people and CI.
enum VerifyCommand {
    enum Format: String { case text, json, github, junit }

    /// The outcome for one file.
    struct FileResult {
        let path: String
        let findings: [ContractFinding]
        /// Set when the file could not be read at all (trouble, exit 2).
        let trouble: String?
        /// A directory operand with nothing to check (trouble, exit 2; not a file).
        var empty = false
        /// A property list without YCFirstTime state, passed over (`--skip-stateless`).
        var stateless = false
        /// The line of each finding in an XML file (`github` only; nil: none, see ``XMLPlistLines``).
        var lines: [Int?] = []
        /// How long reading and checking the file took, in seconds (`junit`).
        var seconds: Double = 0

        /// Whether ycft could not read the file, or the property list in it that holds the state:
        /// it could not be opened or read (``trouble``, exit 2), or its bytes, or the archive data
        /// under the key, are no readable property list (`plist-unreadable`, exit 1). The
        /// summary's and the JSON report's one meaning of "unreadable", the rule's own.
        var isUnreadable: Bool { !empty && (trouble != nil || findings.contains { $0.rule == .plistUnreadable }) }

        /// Whether the file is a property list that holds no state (`StateFile`'s judgement:
        /// a defaults domain without the state's keys, a top level that is no dictionary).
        var holdsNoState = false

        /// The outcome of a property list that holds no state (``holdsNoState``), passed over:
        /// no finding, counted apart.
        func passedOver() -> FileResult {
            guard holdsNoState, trouble == nil else { return self }
            var over = FileResult(path: path, findings: [], trouble: nil)
            (over.stateless, over.seconds) = (true, seconds)
            return over
        }
    }

    struct Options {
        let format: Format
        let strict: Bool
        let key: String
        let limits: PlistLimits
        /// `--include` globs (the spec's default when none is given).
        let walk: FileWalk
        let compact: Bool
        let allowEmpty: Bool
        let skipStateless: Bool
        let quiet: Bool
        /// `--color`: the text format's severities and the JSON in colour (github and junit never).
        let colour: Colour.When
        /// The operands; with `--backup`, set to the file in the backup.
        var paths: [String]
        let backup: BackupInput?

        init(_ parsed: ParsedArguments) throws(UsageError) {
            (format, strict, key, limits) = (try parsed.choice(.format), parsed.flag(.strict), parsed.value(.key), parsed.limits)
            (walk, compact, allowEmpty, quiet) = (FileWalk(includes: parsed.all(.include)), parsed.flag(.compact), parsed.flag(.allowEmpty), parsed.flag(.quiet))
            (paths, backup, skipStateless) = (parsed.operands, try BackupInput(parsed), parsed.flag(.skipStateless))
            colour = try parsed.choice(.color)
            guard paths.filter({ $0 == "-" }).count <= 1 else { throw UsageError("'-' (standard input) may be given once") }
        }
    }

    static func run(_ arguments: [String], io: CommandIO) throws(UsageError) -> Ycft.Exit {
        var options = try Options(ParsedArguments(arguments, spec: .verify))
        var io = io
        io.colour = Colour(options.colour, io: io)
        if let backup = options.backup {
            do throws(Ycft.Failure) {
                let opened = try backup.open(limits: options.limits, io: io)
                (options.paths, io) = ([opened.path], opened.io)
            } catch {
                return error.report(io)
            }
        }
        // Directories are searched like migrate's (one walk); the whole run is one document.
        let walked = options.walk.expand(options.paths, io: io)
        var results: [FileResult] = walked.problems.map { FileResult(path: Ycft.display($0.path), findings: [], trouble: $0.message) }
        // A directory with nothing to check fails the run (a wrong path in CI must not pass)
        // unless --allow-empty; it is reported in every format, as trouble is.
        for directory in walked.empty {
            guard let message = options.walk.emptyMessage(others: directory.others, allowed: options.allowEmpty, nothing: "nothing to check") else { continue }
            if options.allowEmpty {
                io.writeStderr("ycft: \(Ycft.shown(directory.path)): \(message)\n")
            } else {
                results.append(FileResult(path: Ycft.display(directory.path), findings: [], trouble: message, empty: true))
            }
        }
        let clock = ContinuousClock()
        for path in walked.inputs.map(\.path) {
            let started = clock.now
            var result: FileResult
            do throws(Ycft.Failure) {
                let bytes = try Ycft.readInput(path, io: io, limit: options.limits.maxInputSize)
                let (placed, holdsNoState) = StateFile.verifyPlaced(bytes, key: options.key, limits: options.limits)
                result = FileResult(path: Ycft.display(path), findings: placed.map(\.finding), trouble: nil)
                result.holdsNoState = holdsNoState
                if options.format == .github {
                    // An archive held as data under a key has no lines of its own: the data's element stands for its paths.
                    let located = placed.map { $0.finding.path.isFile ? ObjectPath.file : $0.archiveKey.map { ObjectPath.key($0) } ?? $0.finding.path }
                    result.lines = XMLPlistLines.lines(of: located, in: bytes, limits: options.limits)
                }
            } catch {
                if error.exit == .trouble {
                    result = FileResult(path: Ycft.display(path), findings: [], trouble: error.message)
                } else {
                    // Over --max-input-size: the rule and its words are the library's; the hint is ours.
                    let tooLarge = FirstTimeError.archive(.plist(.inputTooLarge(size: options.limits.maxInputSize + 1, limit: options.limits.maxInputSize)))
                    var finding = tooLarge.finding
                    finding.message = error.message
                    result = FileResult(path: Ycft.display(path), findings: [finding], trouble: nil)
                }
            }
            let elapsed = (clock.now - started).components
            result.seconds = Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
            results.append(options.skipStateless ? result.passedOver() : result)
        }

        func fails(_ finding: ContractFinding) -> Bool { finding.severity == .error || options.strict }
        // Trouble (an unreadable file) is reported on standard error in every format.
        for result in results where result.trouble != nil { io.writeStderr("ycft: \(Ycft.shown(result.path)): \(result.trouble ?? "")\n") }
        switch options.format {
        case .text:
            for result in results {
                for finding in result.findings {
                    var line = StyledText("\(Ycft.shown(result.path)): ")
                    line.append(finding.severity.rawValue, Colour.Style(finding.severity))
                    line += ": [\(finding.rule.rawValue)] \(finding.path): \(finding.message)\n"
                    Ycft.writeStderr(line, io: io)
                }
            }
        case .json:
            Ycft.writeJSON(json(results, strict: options.strict).bytes(style: options.compact ? .compact : .pretty), io: io)
        case .github:
            var out = ""
            for result in results {
                // The file name as the text format shows it (a CI log is a terminal too).
                let file = property(Ycft.shown(result.path))
                if let trouble = result.trouble {
                    out += "::error file=\(file),title=\(result.empty ? "nothing to check" : "unreadable")::\(data(trouble))\n"
                }
                for (index, finding) in result.findings.enumerated() {
                    let command = finding.severity == .error ? "error" : "warning"
                    let line = index < result.lines.count ? result.lines[index].map { ",line=\($0)" } ?? "" : ""
                    out += "::\(command) file=\(file)\(line),title=\(property(finding.rule.rawValue))::"
                        + data("\(finding.path): \(finding.message)") + "\n"
                }
            }
            Ycft.writeText(out, to: io)
        case .junit:
            Ycft.writeText(junit(results, strict: options.strict), to: io)
        }
        // The text form ends with the run in one line; json, github and junit carry their own counts.
        if options.format == .text && !options.quiet { io.writeStderr(summary(results, strict: options.strict)) }
        if results.contains(where: { $0.trouble != nil }) { return .trouble }
        return results.contains(where: { $0.findings.contains(where: fails) }) ? .content : .success
    }

    /// The run in one line on standard error, as migrate ends:
    /// `ycft verify: 3 files: 2 passed, 1 failed, 0 unreadable (1 error, 0 warnings)`: each file
    /// counted once, unreadable (``FileResult/isUnreadable``) before failed. A directory with
    /// nothing to check is not a file (it was named already).
    static func summary(_ results: [FileResult], strict: Bool) -> String {
        func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }
        let files = results.filter { !$0.empty }
        let unreadable = files.filter(\.isUnreadable).count
        let failed = files.filter { r in !r.isUnreadable && r.findings.contains { $0.severity == .error || strict } }.count
        let stateless = files.filter(\.stateless).count
        let errors = files.reduce(0) { $0 + $1.findings.filter { $0.severity == .error }.count }
        let warnings = files.reduce(0) { $0 + $1.findings.count } - errors
        return "ycft verify: \(count(files.count, "file")): \(files.count - unreadable - failed - stateless) passed, \(failed) failed, "
            + "\(unreadable) unreadable\(stateless > 0 ? ", \(stateless) without state" : "") "
            + "(\(count(errors, "error")), \(count(warnings, "warning")))\n"
    }

    static func json(_ results: [FileResult], strict: Bool) -> JSON {
        var errors = 0, warnings = 0
        let files: [JSON] = results.map { result in
            let e = result.findings.filter { $0.severity == .error }.count
            let w = result.findings.count - e
            errors += e
            warnings += w
            let failed = result.trouble != nil || e > 0 || (strict && w > 0)
            return .object([
                .init("file", .string(Ycft.reported(result.path))),
                .init("status", .string(result.empty ? "empty" : result.isUnreadable ? "unreadable" : result.stateless ? "stateless"
                                        : failed ? "fail" : "pass")),
                .init("error", result.trouble.map { .string($0) } ?? .null),
                .init("errors", .integer(e)),
                .init("warnings", .integer(w)),
                .init("findings", .array(result.findings.map { finding in
                    .object([
                        .init("rule", .string(finding.rule.rawValue)),
                        .init("severity", .string(finding.severity.rawValue)),
                        .init("path", .string(finding.path.description)),
                        .init("message", .string(finding.message)),
                    ])
                })),
            ])
        }
        return .object([
            .init("formatVersion", .integer(1)),
            .init("strict", .bool(strict)),
            .init("errors", .integer(errors)),
            .init("warnings", .integer(warnings)),
            .init("files", .array(files)),
        ])
    }

    /// GitHub workflow-command escaping for the message.
    static func data(_ s: String) -> String {
        s.replacingEach(["%": "%25", "\r": "%0D", "\n": "%0A"])
    }

    /// GitHub workflow-command escaping for a property value.
    static func property(_ s: String) -> String {
        data(s).replacingEach([":": "%3A", ",": "%2C"])
    }

    /// XML escaping for an attribute or text. Control characters have no place in XML 1.0
    /// (`&#27;` is not well-formed) nor in a CI log: they are written in ``UntrustedText``'s
    /// form (`\u{1B}`); a line feed is `&#10;`.
    static func xml(_ s: String) -> String {
        UntrustedText.sanitized(s).replacingEach(["&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "\n": "&#10;"])
    }

    /// JUnit XML: a `<testsuite>` per file (its name the file, `time` the seconds reading and
    /// checking it took) with a `<testcase>` per finding, failing ones holding a `<failure>`,
    /// the others their text in `<system-out>`; a file without findings is one passing case
    /// `contract`, an unreadable one a case holding an `<error>`. Each case's `classname` is
    /// the file too: GitLab shows a case's classname as its suite and not the testsuite's name
    /// (https://docs.gitlab.com/ci/testing/unit_test_reports), and keys cases by classname and
    /// name, so findings group by file there too.
    static func junit(_ results: [FileResult], strict: Bool) -> String {
        func seconds(_ value: Double) -> String {  // a measured duration, to the millisecond
            let milliseconds = Int((min(max(0, value), 1e9) * 1000).rounded())
            return "\(milliseconds / 1000)." + String(String(1000 + milliseconds % 1000).dropFirst())
        }
        func line(_ finding: ContractFinding) -> String { "[\(finding.rule.rawValue)] \(finding.path): \(finding.message)" }
        func fails(_ finding: ContractFinding) -> Bool { finding.severity == .error || strict }
        var suites = "", tests = 0, failures = 0, errors = 0, skippedCount = 0, time = 0.0
        for result in results {
            let file = xml(Ycft.shown(result.path))
            var cases = ""
            let failing = result.findings.filter(fails).count
            let count = result.trouble != nil ? 1 : max(1, result.findings.count)
            if let trouble = result.trouble {
                let kind = result.empty ? "empty" : "unreadable"
                cases += "    <testcase classname=\"\(file)\" name=\"\(result.empty ? "nothing to check" : kind)\">\n"
                cases += "      <error message=\"\(xml(trouble))\" type=\"\(kind)\"/>\n"
                cases += "    </testcase>\n"
            } else if result.stateless {
                cases += "    <testcase classname=\"\(file)\" name=\"contract\">\n"
                cases += "      <skipped message=\"no YCFirstTime state\"/>\n"
                cases += "    </testcase>\n"
            } else if result.findings.isEmpty {
                cases += "    <testcase classname=\"\(file)\" name=\"contract\"/>\n"
            }
            for finding in result.trouble == nil ? result.findings : [] {
                cases += "    <testcase classname=\"\(file)\" name=\"\(xml(line(finding)))\">\n"
                if fails(finding) {
                    cases += "      <failure message=\"\(xml(line(finding)))\" type=\"\(finding.rule.rawValue)\">"
                        + "\(xml("\(finding.severity.rawValue): \(line(finding))"))</failure>\n"
                } else {
                    cases += "      <system-out>\(xml("\(finding.severity.rawValue): \(line(finding))"))</system-out>\n"
                }
                cases += "    </testcase>\n"
            }
            let troubled = result.trouble != nil ? 1 : 0
            let skipped = result.stateless ? " skipped=\"1\"" : ""
            suites += "  <testsuite name=\"\(file)\" tests=\"\(count)\" failures=\"\(failing)\" errors=\"\(troubled)\"\(skipped) "
                + "time=\"\(seconds(result.seconds))\">\n"
            suites += cases + "  </testsuite>\n"
            tests += count
            failures += failing
            errors += troubled
            skippedCount += result.stateless ? 1 : 0
            time += result.seconds
        }
        return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            + "<testsuites name=\"ycft verify\" tests=\"\(tests)\" failures=\"\(failures)\" errors=\"\(errors)\""
            + (skippedCount > 0 ? " skipped=\"\(skippedCount)\"" : "") + " time=\"\(seconds(time))\">\n"
            + suites + "</testsuites>\n"
    }
}
