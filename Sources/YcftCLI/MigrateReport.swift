import FirstTimeCore
import OrderedJSON
import PlistCore
import SafeFiles
import FileErrors

extension MigrateCommand {
    /// What happened to one file, for the summary and the report.
    struct FileReport: Sendable {
        let path: String
        /// The library's outcome (kept when the file then fails to be written: its keys are reported).
        var outcome: Migration.Outcome?
        /// Why the file failed.
        var error: String?
        var trouble = false
        var backup: String?
        /// The backup was there already (left by a run that stopped before replacing the file).
        var backupReused = false

        /// The outcome's status; nil when the file failed.
        var status: Migration.Status? { error == nil ? outcome?.status : nil }

        /// The file's write failed, so the file is as it was: the backup this run made for it goes.
        mutating func discard(_ made: (made: SafeFile.Backup, of: FileStatus)?) {
            guard let made else { return }
            SafeFile.discardBackup(made.made, expected: made.of)
            backup = nil
        }

        /// How the summary and the report name a status (`failed` for nil).
        static func word(_ status: Migration.Status?) -> String { status?.rawValue ?? "failed" }
    }

    /// The run in one line on standard error: `ycft migrate: 3 files: 1 migrated, 1 unchanged,
    /// 1 skipped, 0 failed`.
    static func summary(_ reports: [FileReport], mode: Destination) -> String {
        func count(_ status: Migration.Status?) -> Int { reports.count(where: { $0.status == status }) }
        return "ycft migrate: \(reports.count) file\(reports.count == 1 ? "" : "s"): "
            + "\(count(.migrated)) \(mode == .dryRun ? "would migrate" : "migrated"), \(count(.unchanged)) unchanged, "
            + "\(count(.skipped)) skipped, \(count(nil)) failed" + (mode == .dryRun ? " (dry run: nothing written)" : "") + "\n"
    }

    /// A file's line in the dry-run listing; one that would fail is listed in its place with
    /// the reason (said on standard error too, as it happened: in a long listing it scrolled
    /// away above it).
    static func dryRunLine(_ report: FileReport) -> String? {
        if let error = report.error { return "\(Ycft.shown(report.path)): would fail: \(error)\n" }
        guard let outcome = report.outcome else { return nil }
        switch outcome.status {
        case .unchanged: return "\(Ycft.shown(report.path)): unchanged\n"
        case .skipped: return "\(Ycft.shown(report.path)): skipped (no source state)\n"
        case .migrated:
            let parts = outcome.added.map { "+\(UntrustedText.quoted($0))" } + outcome.removed.map { "-\(UntrustedText.quoted($0))" }
                + outcome.changed.map { "~\(UntrustedText.quoted($0))" }
            return "\(Ycft.shown(report.path)): would migrate \(outcome.recordCount) record\(outcome.recordCount == 1 ? "" : "s"): \(parts.joined(separator: " "))\n"
        }
    }

    static func reportJSON(_ reports: [FileReport], target: Migration.Target, mode: Destination) -> JSON {
        let statuses: [Migration.Status?] = [.migrated, .unchanged, .skipped, nil]
        return .object([
            .init("formatVersion", .integer(1)),
            .init("target", .string(target.rawValue)),
            .init("dryRun", .bool(mode == .dryRun)),
            .init("summary", .object(statuses.map { status in .init(FileReport.word(status), .integer(reports.count(where: { $0.status == status }))) })),
            .init("files", .array(reports.map { r in
                .object([
                    .init("path", .string(Ycft.reported(r.path))),
                    .init("status", .string(FileReport.word(r.status))),
                    .init("added", .array((r.outcome?.added ?? []).map { .string($0) })),
                    .init("removed", .array((r.outcome?.removed ?? []).map { .string($0) })),
                    .init("changed", .array((r.outcome?.changed ?? []).map { .string($0) })),
                    .init("records", r.outcome.map { .integer($0.recordCount) } ?? .null),
                    .init("error", r.error.map { .string($0) } ?? .null),
                    .init("backup", r.backup.map { .string(Ycft.reported($0)) } ?? .null),
                    .init("backupReused", .bool(r.backupReused)),
                ])
            })),
        ])
    }

    /// `--report PATH`, checked before anything is migrated (it is the run's record, and a batch
    /// whose record is lost cannot be audited) and written once the batch is done.
    struct ReportFile {
        let path: String
        /// Standard output (`-`, `/dev/stdout`, descriptor 1): the dry-run listing goes to standard error.
        let toStdout: Bool
        /// What the path held when checked is all the report may replace.
        private var options = SafeFile.WriteOptions()

        /// - Throws: trouble when the path cannot be written.
        init(_ path: String, toStdout: Bool, io: CommandIO) throws(Ycft.Failure) {
            (self.path, self.toStdout) = (path, toStdout)
            guard !toStdout else { return }
            do throws(FileError) { try io.checkWritable(path) } catch { throw refusal(error.description) }
        }

        private func refusal(_ problem: String) -> Ycft.Failure {
            Ycft.Failure(.trouble, nil, "--report \(Ycft.shown(path)): \(problem); nothing was migrated")
        }

        /// The report is an output like any other: never an input, another output, or a
        /// preferences file whose keys it would lose (a name mistaken for an input: the report
        /// once replaced such a file, in a dry run too). What the path holds now is all it may
        /// replace: a file that appears there meanwhile (a backup this run makes, as `.bak.1`)
        /// is not written over.
        mutating func check(against batch: Batch, mode: Destination, key: String, io: CommandIO) throws(Ycft.Failure) {
            guard !toStdout, SafeFile.descriptorPath(path) == nil else { return }
            let seen = io.fileStatus(path)
            if let seen, batch.inputs.contains(FileIdentity.Inode(seen.identity)) { throw refusal("it is one of the inputs") }
            let spelling = Batch.normalized(path)
            if batch.jobs.contains(where: { $0.output.map { exactlyEqual(Batch.normalized($0), spelling) } == true }) { throw refusal("it is one of the outputs") }
            if case let .inPlace(suffix?) = mode, let job = batch.jobs.first(where: { exactlyEqual(Batch.normalized($0.path + suffix), spelling) }) {
                throw refusal("it is where the backup of \(Ycft.shown(job.path)) goes")
            }
            if let refusal = OutputGuard.refusal(io.lookAtOutput(path), replacingWith: [], key: key, io: io, hint: "Give the report a path of its own") {
                throw self.refusal(refusal)
            }
            switch seen?.kind {
            case nil: options.mayReplace = false
            case .regular?: options.expected = seen?.identity
            default: break
            }
        }

        /// Writes the report; false, said on standard error, when it could not be written.
        func write(_ json: [UInt8], io: CommandIO) -> Bool {
            guard !Ycft.isStandardOutput(path) else {
                io.writeStdout(json)
                return true
            }
            do { _ = try io.writeFile(path, json, options) } catch {
                let why = switch error.reason {
                case .appeared: "a file appeared at this path during the run (a backup the run made?) and was not replaced"
                case .changedSinceRead: "the file at this path changed during the run and was not replaced"
                default: Ycft.failure(error).message
                }
                io.writeStderr("ycft: \(Ycft.shown(error.path)): cannot write the report: \(why)\n")
                return false
            }
            return true
        }
    }
}
