#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import FirstTimeCore
import PlistCore
import SafeFiles

/// `ycft migrate`: its options, then the run; the batch, the workers, one file's migration, the
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
        /// The report goes to standard output (`-`, `/dev/stdout`, descriptor 1).
        let reportToStdout: Bool
        let compact: Bool
        let quiet: Bool
        let paths: [String]

        init(_ parsed: ParsedArguments) throws(UsageError) {
            target = try parsed.choice(.to)
            migration = Migration.Options(keepSource: parsed.flag(.keepSource), force: parsed.flag(.force), key: parsed.value(.key),
                                          dropVersions: parsed.flag(.dropVersions), limits: parsed.limits,
                                          outputFormat: try parsed.value(.plistFormat) == "same" ? nil : parsed.choice(.plistFormat, as: PlistFormat.self))
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
            // The report takes standard output: the dry-run listing goes to standard error, and no
            // migrated file may go to standard output too.
            reportToStdout = report.map { Ycft.isStandardOutput($0) || SafeFile.descriptorPath($0) == 1 } ?? false
            if reportToStdout, case let .output(out) = mode, SafeFile.descriptorPath(out) == 1 {
                throw UsageError("'-o -' and '--report -' cannot both write standard output")
            }
        }
    }

    /// The options, the batch, each file through the library (`process`), then the listing, the
    /// summary and the report.
    static func run(_ arguments: [String], io: CommandIO) throws(UsageError) -> Ycft.Exit {
        let command = try Options(ParsedArguments(arguments, spec: .migrate))
        var report: ReportFile?
        let batch: Batch
        do throws(Ycft.Failure) {
            if let path = command.report { report = try ReportFile(path, toStdout: command.reportToStdout, io: io) }
            batch = try Batch(command.paths, mode: command.mode, walk: command.walk, allowEmpty: command.allowEmpty, io: io)
            try report?.check(against: batch, mode: command.mode, key: command.migration.key, io: io)
        } catch {
            return error.report(io)
        }
        for failed in batch.unreadable { io.writeStderr("ycft: \(Ycft.shown(failed.path)): \(failed.error ?? "failed")\n") }
        let results = process(batch.jobs, mode: command.mode, target: command.target, options: command.migration, jobs: command.jobs,
                              quiet: command.quiet, io: io)
        // The dry-run listing comes in input order (sorted within each directory), whatever the
        // jobs did first; on standard error when the report takes standard output.
        for listing in command.mode == .dryRun ? results.compactMap(dryRunLine) : [] {
            if command.reportToStdout { io.writeStderr(listing) } else { Ycft.writeText(listing, to: io) }
        }
        let reports = batch.unreadable + results
        if !command.quiet { io.writeStderr(summary(reports, mode: command.mode)) }
        var trouble = reports.contains { $0.trouble } || batch.emptyDirectories > 0
        if let report, !report.write(reportJSON(reports, target: command.target, mode: command.mode).bytes(style: command.compact ? .compact : .pretty), io: io) {
            trouble = true
        }
        if trouble { return .trouble }
        return reports.contains { $0.status == nil } ? .content : .success
    }
}
