import FirstTimeCore
import OrderedJSON
import PlistCore

/// What `ycft verify` found, file by file, and the one place that writes it in each
/// `--format`: text (a line per finding and the run in one line, on standard error), JSON,
/// GitHub workflow commands and JUnit XML (on standard output). A file that could not be read
/// (trouble) is said on standard error in every format, and counted in each.
struct VerifyReport {
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
        /// The findings that are errors, and the others.
        var errors: Int { findings.filter { $0.severity == .error }.count }
        var warnings: Int { findings.count - errors }

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

    /// Each file's outcome, in the order checked.
    let results: [FileResult]
    /// `--strict`: a warning fails the run as an error does.
    let strict: Bool

    /// Whether a finding fails its file: an error, or any finding under `--strict`.
    func fails(_ finding: ContractFinding) -> Bool { finding.severity == .error || strict }

    /// Exit 2 when a file could not be read, 1 when a finding fails, 0 otherwise.
    var exit: Ycft.Exit {
        if results.contains(where: { $0.trouble != nil }) { return .trouble }
        return results.contains(where: { $0.findings.contains(where: fails) }) ? .content : .success
    }

    /// Writes the report in `format` (`compact`: the JSON on one line; `quiet`: no summary
    /// line after the text format).
    func write(_ format: Format, compact: Bool, quiet: Bool, io: CommandIO) {
        for result in results where result.trouble != nil { io.writeStderr("ycft: \(Ycft.shown(result.path)): \(result.trouble ?? "")\n") }
        switch format {
        case .text:
            for line in text() { Ycft.writeStderr(line, io: io) }
            // The text form ends with the run in one line; json, github and junit carry their own counts.
            if !quiet { io.writeStderr(summary()) }
        case .json: Ycft.writeJSON(json().bytes(style: compact ? .compact : .pretty), io: io)
        case .github: Ycft.writeText(github(), to: io)
        case .junit: Ycft.writeText(junit(), to: io)
        }
    }

    /// The text format: `FILE: severity: [rule] path: message`, a line per finding, the
    /// severity in its colour.
    func text() -> [StyledText] {
        results.flatMap { result in
            result.findings.map { finding in
                var line = StyledText("\(Ycft.shown(result.path)): ")
                line.append(finding.severity.rawValue, Colour.Style(finding.severity))
                line += ": [\(finding.rule.rawValue)] \(finding.path): \(finding.message)\n"
                return line
            }
        }
    }

    /// The run in one line on standard error, as migrate ends:
    /// `ycft verify: 3 files: 2 passed, 1 failed, 0 unreadable (1 error, 0 warnings)`: each file
    /// counted once, unreadable (``FileResult/isUnreadable``) before failed. A directory with
    /// nothing to check is not a file (it was named already).
    func summary() -> String {
        func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }
        let files = results.filter { !$0.empty }
        let unreadable = files.filter(\.isUnreadable).count
        let failed = files.filter { r in !r.isUnreadable && r.findings.contains(where: fails) }.count
        let stateless = files.filter(\.stateless).count
        let (errors, warnings) = (files.reduce(0) { $0 + $1.errors }, files.reduce(0) { $0 + $1.warnings })
        return "ycft verify: \(count(files.count, "file")): \(files.count - unreadable - failed - stateless) passed, \(failed) failed, "
            + "\(unreadable) unreadable\(stateless > 0 ? ", \(stateless) without state" : "") "
            + "(\(count(errors, "error")), \(count(warnings, "warning")))\n"
    }

    /// The JSON format: the counts of the run, and each file's status, counts and findings
    /// (``Ycft/json(_:severity:)``).
    func json() -> JSON {
        let files: [JSON] = results.map { result in
            let failed = result.trouble != nil || result.findings.contains(where: fails)
            return .object([
                .init("file", .string(Ycft.reported(result.path))),
                .init("status", .string(result.empty ? "empty" : result.isUnreadable ? "unreadable" : result.stateless ? "stateless"
                                        : failed ? "fail" : "pass")),
                .init("error", result.trouble.map { .string($0) } ?? .null),
                .init("errors", .integer(result.errors)),
                .init("warnings", .integer(result.warnings)),
                .init("findings", .array(result.findings.map { Ycft.json($0) })),
            ])
        }
        return .object([
            .init("formatVersion", .integer(1)),
            .init("strict", .bool(strict)),
            .init("errors", .integer(results.reduce(0) { $0 + $1.errors })),
            .init("warnings", .integer(results.reduce(0) { $0 + $1.warnings })),
            .init("files", .array(files)),
        ])
    }

    /// The GitHub format: a workflow command (`::error` or `::warning`) per finding, with its
    /// file as the text format shows it (a CI log is a terminal too) and, in an XML file, its
    /// line; one `::error` per file that could not be read.
    func github() -> String {
        var out = ""
        for result in results {
            let file = Self.property(Ycft.shown(result.path))
            if let trouble = result.trouble {
                out += "::error file=\(file),title=\(result.empty ? "nothing to check" : "unreadable")::\(Self.data(trouble))\n"
            }
            for (index, finding) in result.findings.enumerated() {
                let command = finding.severity == .error ? "error" : "warning"
                let line = index < result.lines.count ? result.lines[index].map { ",line=\($0)" } ?? "" : ""
                out += "::\(command) file=\(file)\(line),title=\(Self.property(finding.rule.rawValue))::"
                    + Self.data("\(finding.path): \(finding.message)") + "\n"
            }
        }
        return out
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
    func junit() -> String {
        func seconds(_ value: Double) -> String {  // a measured duration, to the millisecond
            let milliseconds = Int((min(max(0, value), 1e9) * 1000).rounded())
            return "\(milliseconds / 1000)." + String(String(1000 + milliseconds % 1000).dropFirst())
        }
        func line(_ finding: ContractFinding) -> String { "[\(finding.rule.rawValue)] \(finding.path): \(finding.message)" }
        let xml = Self.xml
        var suites = "", tests = 0, failures = 0, errors = 0, skippedCount = 0, time = 0.0
        for result in results {
            let file = xml(Ycft.shown(result.path))
            // A case of the file, holding `element` (one line) if there is one.
            func testcase(_ name: String, _ element: String? = nil) -> String {
                "    <testcase classname=\"\(file)\" name=\"\(name)\"" + (element.map { ">\n      \($0)\n    </testcase>\n" } ?? "/>\n")
            }
            var cases = ""
            let failing = result.findings.filter(fails).count
            let count = result.trouble != nil ? 1 : max(1, result.findings.count)
            if let trouble = result.trouble {
                let kind = result.empty ? "empty" : "unreadable"
                cases += testcase(result.empty ? "nothing to check" : kind, "<error message=\"\(xml(trouble))\" type=\"\(kind)\"/>")
            } else if result.stateless {
                cases += testcase("contract", "<skipped message=\"no YCFirstTime state\"/>")
            } else if result.findings.isEmpty {
                cases += testcase("contract")
            }
            for finding in result.trouble == nil ? result.findings : [] {
                cases += testcase(xml(line(finding)), fails(finding)
                    ? "<failure message=\"\(xml(line(finding)))\" type=\"\(finding.rule.rawValue)\">\(xml(finding.description))</failure>"
                    : "<system-out>\(xml(finding.description))</system-out>")
            }
            let troubled = result.trouble != nil ? 1 : 0
            let skipped = result.stateless ? " skipped=\"1\"" : ""
            suites += "  <testsuite name=\"\(file)\" tests=\"\(count)\" failures=\"\(failing)\" errors=\"\(troubled)\"\(skipped) "
                + "time=\"\(seconds(result.seconds))\">\n"
            suites += cases + "  </testsuite>\n"
            (tests, failures, errors) = (tests + count, failures + failing, errors + troubled)
            (skippedCount, time) = (skippedCount + (result.stateless ? 1 : 0), time + result.seconds)
        }
        return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            + "<testsuites name=\"ycft verify\" tests=\"\(tests)\" failures=\"\(failures)\" errors=\"\(errors)\""
            + (skippedCount > 0 ? " skipped=\"\(skippedCount)\"" : "") + " time=\"\(seconds(time))\">\n"
            + suites + "</testsuites>\n"
    }
}
