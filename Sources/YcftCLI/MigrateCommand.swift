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

/// `ycft migrate`: moves YCFirstTime state in exported defaults files, one or thousands: its
/// options, then the run. The plan (``MigrateCommand/Plan``), the workers
/// (``MigrateCommand/process(_:mode:options:jobs:quiet:io:)``), one file's migration
/// (``MigrateCommand/migrateOne(_:mode:options:io:run:)``), the progress display
/// (``MigrateProgress``) and the report (``MigrateCommand/FileReport``) live in files of their own.
enum MigrateCommand {
    enum Destination: Equatable {
        case output(String)
        case inPlace(backupSuffix: String?)
        case dryRun
    }

    /// What `migrate` was asked, from its command line.
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
            let format = parsed.value(.plistFormat)
            migration.outputFormat = try format == "same" ? nil : parsed.choice(.plistFormat, as: PlistFormat.self)
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
            if backupGiven || noBackup, !inPlace { throw UsageError("'--backup' and '--no-backup' go with '--in-place'") }
            if backupGiven && backup.isEmpty { throw UsageError("'--backup' needs a non-empty suffix") }
            if migration.dropVersions && target != .interval { throw UsageError("'--drop-versions' goes with '--to interval'") }
            if paths.contains("-") { throw UsageError("migrate works on files; '-' (standard input) is not supported") }
            self.migration = migration
        }
    }

    static func run(_ arguments: [String], io: CommandIO) throws(UsageError) -> Ycft.Exit {
        let command = try Options(ParsedArguments(arguments, spec: .migrate))
        let (target, options, mode, walk, allowEmpty, jobs) = (command.target, command.migration, command.mode, command.walk, command.allowEmpty, command.jobs)
        let (report, compact, quiet) = (command.report, command.compact, command.quiet)
        // The report takes standard output: the dry-run listing goes to standard error, and no
        // migrated file may go to standard output too.
        let reportToStdout = report.map { Ycft.isStandardOutput($0) || SafeFile.descriptorPath($0) == 1 } ?? false
        if reportToStdout, case let .output(out) = mode, SafeFile.descriptorPath(out) == 1 {
            throw UsageError("'-o -' and '--report -' cannot both write standard output")
        }
        // A report that cannot be written is refused before anything is migrated: it is the
        // run's record, and a batch whose record is lost cannot be audited.
        if let report, !reportToStdout {
            do throws(FileError) { try io.checkWritable(report) } catch {
                io.writeStderr("ycft: --report \(Ycft.shown(report)): \(error.description); nothing was migrated\n")
                return .trouble
            }
        }

        // Plan every path before anything is written: expand directories, drop duplicates
        // (one file named twice, or through a link), decide each output, refuse collisions.
        var reports: [FileReport] = []
        let plan: Plan
        do throws(Ycft.Failure) {
            plan = try Plan.make(command.paths, mode: mode, walk: walk, allowEmpty: allowEmpty, io: io, reports: &reports)
        } catch {
            return error.report(io)
        }
        // The report is an output like any other: never an input, another output, or a
        // preferences file whose keys it would lose (a name mistaken for an input: the report
        // once replaced such a file, in a dry run too). Checked before anything is written.
        if let report, !reportToStdout, SafeFile.descriptorPath(report) == nil {
            var problem: String?
            if let status = io.fileStatus(report), plan.inputs.contains(FileIdentity.Inode(status.identity)) {
                problem = "it is one of the inputs"
            } else if plan.jobs.contains(where: { $0.output.map(Plan.normalized) == Plan.normalized(report) }) {
                problem = "it is one of the outputs"
            } else if let refusal = OutputGuard.refusal(report, replacingWith: [], key: options.key, io: io, hint: "Give the report a path of its own") {
                problem = refusal
            }
            if let problem {
                io.writeStderr("ycft: --report \(Ycft.shown(report)): \(problem); nothing was migrated\n")
                return .trouble
            }
        }
        let jobsList = plan.jobs
        for report in reports { io.writeStderr("ycft: \(Ycft.shown(report.path)): \(report.error ?? "failed")\n") }

        let results = process(jobsList, mode: mode, target: target, options: options, jobs: jobs, quiet: quiet, io: io)
        // The listing comes in input order (sorted within each directory), whatever the jobs did
        // first; on standard error when the report takes standard output.
        for result in results {
            guard let listing = result.listing else { continue }
            if reportToStdout { io.writeStderr(listing) } else { Ycft.writeText(listing, to: io) }
        }
        reports += results

        if !quiet { io.writeStderr(summary(reports, mode: mode)) }

        var trouble = reports.contains { $0.trouble } || plan.emptyDirectories > 0
        if let report {
            let json = reportJSON(reports, target: target, options: options, mode: mode).bytes(style: compact ? .compact : .pretty)
            if Ycft.isStandardOutput(report) {
                io.writeStdout(json)
            } else {
                do { _ = try io.writeFile(report, json, SafeFile.WriteOptions()) } catch {
                    io.writeStderr("ycft: \(Ycft.shown(error.path)): cannot write the report: \(Ycft.failure(error).message)\n")
                    trouble = true
                }
            }
        }
        if trouble { return .trouble }
        return reports.contains { $0.status == "failed" } ? .content : .success
    }
}
