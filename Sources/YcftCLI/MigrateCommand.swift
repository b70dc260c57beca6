#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import FirstTimeArchive
import FirstTimeCore
import Plist
import PlistCore
import SafeFiles
import FileErrors

/// `ycft migrate`: its options, then the run; the plan, the workers, one file's migration, the
/// progress display and the report live in the other `Migrate*.swift` files.
enum MigrateCommand {
    enum Destination: Equatable {
        case output(String)
        case inPlace(backupSuffix: String?)
        case dryRun
    }

    struct Options {
        /// Where the state goes (`--to`).
        let target: Migration.Target
        /// The library's options: key, force, keep-source, drop-versions, limits, format.
        let migration: Migration.Options
        let mode: Destination
        let walk: FileWalk
        let allowEmpty: Bool
        /// Files at once (`--jobs`, else the number of cores).
        let jobs: Int
        let report: String?
        let compact: Bool
        let quiet: Bool
        let paths: [String]

        init(_ parsed: ParsedArguments) throws(UsageError) {
            var migration = Migration.Options()
            target = try parsed.choice(.to)
            (migration.keepSource, migration.force, migration.dropVersions) = (parsed.flag(.keepSource), parsed.flag(.force), parsed.flag(.dropVersions))
            (migration.key, migration.limits) = (parsed.value(.key), parsed.limits)
            migration.outputFormat = try parsed.value(.plistFormat) == "same" ? nil : parsed.choice(.plistFormat, as: PlistFormat.self)
            let (output, inPlace, dryRun) = (parsed.given(.output), parsed.flag(.inPlace), parsed.flag(.dryRun))
            let (backup, backupGiven, noBackup) = (parsed.value(.backup), parsed.flag(.backup), parsed.flag(.noBackup))
            (walk, allowEmpty, jobs) = (FileWalk(includes: parsed.all(.include)), parsed.flag(.allowEmpty),
                                        parsed.number(.jobs) ?? ProcessInfo.processInfo.activeProcessorCount)
            (report, compact, quiet, paths) = (parsed.given(.report), parsed.flag(.compact), parsed.flag(.quiet), parsed.operands)
            if let output {
                mode = .output(output == "-" ? "/dev/stdout" : output)
            } else if inPlace {
                mode = .inPlace(backupSuffix: noBackup ? nil : backup)
            } else if dryRun {
                mode = .dryRun
            } else {
                throw UsageError("Say where results go: '-o OUT', '--in-place' or '--dry-run'")
            }
            if backupGiven && backup.isEmpty { throw UsageError("'--backup' needs a non-empty suffix") }
            // `--backup` names an iPhone backup on dump, status and verify; here it is the suffix
            // of the saved original. A path (or a folder's name) given here was meant as the former.
            if backupGiven, backup.contains("/") || FileStatus.of(backup).map({ $0.kind == .directory }) == .success(true) {
                throw UsageError("'--backup \(backup)' on migrate is the suffix of each saved original (like .bak), not a folder; "
                                 + "an iPhone backup is read with 'ycft backup extract BACKUP --app ID -o FILE' and migrated as that file")
            }
            if paths.contains("-") { throw UsageError("migrate works on files; '-' (standard input) is not supported") }
            self.migration = migration
        }
    }

    static func run(_ arguments: [String], io: CommandIO) throws(UsageError) -> Ycft.Exit {
        let command = try Options(ParsedArguments(arguments, spec: .migrate))
        // The report takes standard output: the dry-run listing goes to standard error, and no
        // migrated file may go to standard output too.
        let reportToStdout = command.report.map { Ycft.isStandardOutput($0) || SafeFile.descriptorPath($0) == 1 } ?? false
        if reportToStdout, case let .output(out) = command.mode, SafeFile.descriptorPath(out) == 1 {
            throw UsageError("'-o -' and '--report -' cannot both write standard output")
        }
        // A report that cannot be written is refused before anything is migrated: it is the
        // run's record, and a batch whose record is lost cannot be audited.
        if let report = command.report, !reportToStdout {
            do throws(FileError) { try io.checkWritable(report) } catch {
                io.writeStderr("ycft: --report \(Ycft.shown(report)): \(error.description); nothing was migrated\n")
                return .trouble
            }
        }

        var reports: [FileReport] = []
        let plan: Plan
        do throws(Ycft.Failure) {
            plan = try Plan.make(command.paths, mode: command.mode, walk: command.walk, allowEmpty: command.allowEmpty, io: io, reports: &reports)
        } catch {
            return error.report(io)
        }
        // The report is an output like any other: never an input, another output, or a
        // preferences file whose keys it would lose (a name mistaken for an input: the report
        // once replaced such a file, in a dry run too). Checked before anything is written.
        // What the report's path held then is all it may replace: a file that appears there
        // meanwhile (a backup this run makes, as `.bak.1`) is not written over.
        var reportOptions = SafeFile.WriteOptions()
        if let report = command.report, !reportToStdout, SafeFile.descriptorPath(report) == nil {
            var problem: String?
            let seen = io.fileStatus(report)
            if let seen, plan.inputs.contains(FileIdentity.Inode(seen.identity)) {
                problem = "it is one of the inputs"
            } else if plan.jobs.contains(where: { $0.output.map(Plan.normalized) == Plan.normalized(report) }) {
                problem = "it is one of the outputs"
            } else if case let .inPlace(suffix?) = command.mode,
                      let job = plan.jobs.first(where: { Plan.normalized($0.path + suffix) == Plan.normalized(report) }) {
                problem = "it is where the backup of \(Ycft.shown(job.path)) goes"
            } else if let refusal = OutputGuard.refusal(report, replacingWith: [], key: command.migration.key, io: io,
                                                        hint: "Give the report a path of its own") {
                problem = refusal
            }
            if let problem {
                io.writeStderr("ycft: --report \(Ycft.shown(report)): \(problem); nothing was migrated\n")
                return .trouble
            }
            switch seen?.kind {
            case nil: reportOptions.mayReplace = false
            case .regular?: reportOptions.expected = seen?.identity
            default: break
            }
        }
        for report in reports { io.writeStderr("ycft: \(Ycft.shown(report.path)): \(report.error ?? "failed")\n") }

        let results = process(plan.jobs, mode: command.mode, target: command.target, options: command.migration, jobs: command.jobs,
                              quiet: command.quiet, io: io)
        // The listing comes in input order (sorted within each directory), whatever the jobs did
        // first; on standard error when the report takes standard output.
        for result in results {
            guard let listing = result.listing else { continue }
            if reportToStdout { io.writeStderr(listing) } else { Ycft.writeText(listing, to: io) }
        }
        reports += results

        if !command.quiet { io.writeStderr(summary(reports, mode: command.mode)) }

        var trouble = reports.contains { $0.trouble } || plan.emptyDirectories > 0
        if let report = command.report {
            let json = reportJSON(reports, target: command.target, options: command.migration, mode: command.mode)
                .bytes(style: command.compact ? .compact : .pretty)
            if Ycft.isStandardOutput(report) {
                io.writeStdout(json)
            } else {
                do { _ = try io.writeFile(report, json, reportOptions) } catch {
                    let why: String
                    switch error.reason {
                    case .appeared: why = "a file appeared at this path during the run (a backup the run made?) and was not replaced"
                    case .changedSinceRead: why = "the file at this path changed during the run and was not replaced"
                    default: why = Ycft.failure(error).message
                    }
                    io.writeStderr("ycft: \(Ycft.shown(error.path)): cannot write the report: \(why)\n")
                    trouble = true
                }
            }
        }
        if trouble { return .trouble }
        return reports.contains { $0.status == "failed" } ? .content : .success
    }
}
