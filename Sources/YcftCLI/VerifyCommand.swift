import FirstTimeArchive
import FirstTimeCore
import PlistCore

/// `ycft verify`: checks archives against the YCFirstTime contract, for people and CI.
enum VerifyCommand {
    struct Options {
        let format: VerifyReport.Format
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
        let report = VerifyReport(results: check(options, io: io), strict: options.strict)
        report.write(options.format, compact: options.compact, quiet: options.quiet, io: io)
        return report.exit
    }

    /// The outcome of each operand: directories are searched like migrate's (one walk), and
    /// the whole run is one report. A directory with nothing to check fails the run (a wrong
    /// path in CI must not pass) unless `--allow-empty`, which says so on standard error.
    static func check(_ options: Options, io: CommandIO) -> [VerifyReport.FileResult] {
        let walked = options.walk.expand(options.paths, io: io)
        var results = walked.problems.map { VerifyReport.FileResult(path: Ycft.display($0.path), findings: [], trouble: $0.message) }
        for directory in walked.empty {
            guard let message = options.walk.emptyMessage(others: directory.others, allowed: options.allowEmpty, nothing: "nothing to check") else { continue }
            if options.allowEmpty {
                io.writeStderr("ycft: \(Ycft.shown(directory.path)): \(message)\n")
            } else {
                results.append(.init(path: Ycft.display(directory.path), findings: [], trouble: message, empty: true))
            }
        }
        for path in walked.inputs.map(\.path) {
            let result = check(path, options, io: io)
            results.append(options.skipStateless ? result.passedOver() : result)
        }
        return results
    }

    /// One file's outcome (`StateFile.verifyPlaced`'s findings), timed.
    static func check(_ path: String, _ options: Options, io: CommandIO) -> VerifyReport.FileResult {
        let clock = ContinuousClock()
        let started = clock.now
        var result: VerifyReport.FileResult
        do throws(Ycft.Failure) {
            let bytes = try Ycft.readInput(path, io: io, limit: options.limits.maxInputSize)
            let (placed, holdsNoState) = StateFile.verifyPlaced(bytes, key: options.key, limits: options.limits)
            result = .init(path: Ycft.display(path), findings: placed.map(\.finding), trouble: nil)
            result.holdsNoState = holdsNoState
            if options.format == .github {
                // An archive held as data under a key has no lines of its own: the data's element stands for its paths.
                let located = placed.map { $0.finding.path.isFile ? ObjectPath.file : $0.archiveKey.map { ObjectPath.key($0) } ?? $0.finding.path }
                result.lines = XMLPlistLines.lines(of: located, in: bytes, limits: options.limits)
            }
        } catch {
            if error.exit == .trouble {
                result = .init(path: Ycft.display(path), findings: [], trouble: error.message)
            } else {
                // Over --max-input-size: the rule and its words are the library's; the hint is ours.
                let tooLarge = FirstTimeError.archive(.plist(.inputTooLarge(size: options.limits.maxInputSize + 1, limit: options.limits.maxInputSize)))
                var finding = tooLarge.finding
                finding.message = error.message
                result = .init(path: Ycft.display(path), findings: [finding], trouble: nil)
            }
        }
        let elapsed = (clock.now - started).components
        result.seconds = Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
        return result
    }
}
