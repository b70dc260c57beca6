import Dispatch
import FirstTimeArchive
import Foundation
import OrderedJSON
import Plist
import SafeFiles
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// `ycft migrate`: moves YCFirstTime state in exported defaults files, one or thousands.
enum MigrateCommand {
    enum Destination: Equatable {
        case output(String)
        case inPlace(backupSuffix: String?)
        case dryRun
    }

    /// One input file and where its result goes.
    struct Job: Sendable {
        let path: String
        let output: String?
    }

    /// The jobs of one run, decided before anything is written.
    struct Plan {
        var jobs: [Job] = []
        /// Directory operands with nothing to migrate, without --allow-empty (trouble, exit 2).
        var emptyDirectories = 0
        /// The files the walk found (inode and device), to tell a report path that is one of them.
        var inputs = Set<FileIdentity.Inode>()

        /// Expands the operands (directories recursively, `*.plist`, backups of earlier runs
        /// excepted), drops a file named twice, and gives each job its output.
        /// - Throws: a failure (exit 2, nothing written) when two inputs would be written to
        ///   one output, or an output is one of the inputs.
        static func make(_ operands: [String], mode: Destination, walk: FileWalk, allowEmpty: Bool, io: CommandIO,
                         reports: inout [FileReport]) throws(Ycft.Failure) -> Plan {
            let walked = walk.expand(operands, io: io)
            for problem in walked.problems {
                reports.append(FileReport(path: problem.path, status: "failed", error: problem.message, trouble: true))
            }
            var plan = Plan()
            for directory in walked.empty {
                guard let message = walk.emptyMessage(others: directory.others, allowed: allowEmpty, nothing: "nothing to migrate") else { continue }
                io.writeStderr("ycft: \(Ycft.shown(directory.path)): \(message)\n")
                if !allowEmpty { plan.emptyDirectories += 1 }
            }
            let found = walked.inputs
            plan.inputs = walked.inodes
            switch mode {
            case .dryRun: plan.jobs = found.map { Job(path: $0.path, output: nil) }
            case .inPlace: plan.jobs = found.map { Job(path: $0.path, output: $0.path) }
            case let .output(out):
                let single = operands.count == 1 && found.count == 1 && found[0].fileOperand
                    && io.fileStatus(out)?.kind != .directory
                if SafeFile.descriptorPath(out) != nil && !single {
                    throw Ycft.Failure(.trouble, nil, "\(Ycft.shown(out)): standard output and other descriptors take one input file; give a directory for several")
                }
                plan.jobs = found.map { item in
                    Job(path: item.path, output: single ? out : (out.hasSuffix("/") ? out + item.mirror : "\(out)/\(item.mirror)"))
                }
            }
            // Refuse outputs that meet, and outputs that are inputs.
            guard case .output = mode else { return plan }
            var byOutput: [String: [String]] = [:]
            for job in plan.jobs { byOutput[normalized(job.output ?? ""), default: []].append(job.path) }
            var problems: [String] = []
            for job in plan.jobs {
                guard let output = job.output, let inputs = byOutput[normalized(output)] else { continue }
                if inputs.count > 1 && inputs[0] == job.path {
                    problems.append("\(Ycft.shown(output)): \(inputs.count) inputs would be written here: \(inputs.map(Ycft.shown).joined(separator: ", "))")
                }
                if let status = io.fileStatus(output), walked.inodes.contains(FileIdentity.Inode(status.identity)) {
                    problems.append("\(Ycft.shown(output)): the output is an input; use --in-place to rewrite a file")
                }
            }
            guard problems.isEmpty else {
                throw Ycft.Failure(.trouble, nil, problems.joined(separator: "\nycft: ") + "\nycft: nothing was written")
            }
            return plan
        }

        /// `a/b/../c` and `a//c` as one spelling, for comparing outputs.
        static func normalized(_ path: String) -> String {
            var parts: [Substring] = []
            for part in path.split(separator: "/") where part != "." {
                if part == "..", let last = parts.last, last != ".." { parts.removeLast() } else { parts.append(part) }
            }
            return (path.hasPrefix("/") ? "/" : "") + parts.joined(separator: "/")
        }
    }

    /// What happened to one file, for the summary and the report.
    struct FileReport: Sendable {
        let path: String
        var status: String
        var outcome: DefaultsMigration.Outcome?
        var error: String?
        var trouble = false
        var backup: String?
        /// The backup was there already (left by a run that stopped before replacing the file).
        var backupReused = false
        /// The dry-run line, printed in input order once the batch is done.
        var listing: String?
    }

    /// What `migrate` was asked, from its command line.
    struct Options {
        /// The library's options: target, key, force, keep-source, drop-versions, limits, format.
        let migration: DefaultsMigration.Options
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
            var migration = DefaultsMigration.Options()
            migration.target = try parsed.choice(.to)
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
            if migration.dropVersions && migration.target != .interval { throw UsageError("'--drop-versions' goes with '--to interval'") }
            if paths.contains("-") { throw UsageError("migrate works on files; '-' (standard input) is not supported") }
            self.migration = migration
        }
    }

    static func run(_ arguments: [String], io: CommandIO) throws(UsageError) -> Ycft.Exit {
        let parsed = try Options(ParsedArguments(arguments, spec: .migrate))
        let (options, mode, walk, allowEmpty, jobs) = (parsed.migration, parsed.mode, parsed.walk, parsed.allowEmpty, parsed.jobs)
        let (report, compact, quiet) = (parsed.report, parsed.compact, parsed.quiet)
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
            plan = try Plan.make(parsed.paths, mode: mode, walk: walk, allowEmpty: allowEmpty, io: io, reports: &reports)
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

        let results = process(jobsList, mode: mode, options: options, jobs: jobs, quiet: quiet, io: io)
        // The listing comes in input order (sorted within each directory), whatever the jobs did
        // first; on standard error when the report takes standard output.
        for result in results {
            guard let listing = result.listing else { continue }
            if reportToStdout { io.writeStderr(listing) } else { Ycft.writeText(listing, to: io) }
        }
        reports += results

        var counts: [String: Int] = [:]
        for r in reports { counts[r.status, default: 0] += 1 }
        let summary = "ycft migrate: \(reports.count) file\(reports.count == 1 ? "" : "s"): "
            + "\(counts["migrated", default: 0]) \(mode == .dryRun ? "would migrate" : "migrated"), "
            + "\(counts["unchanged", default: 0]) unchanged, "
            + "\(counts["skipped", default: 0]) skipped, \(counts["failed", default: 0]) failed"
            + (mode == .dryRun ? " (dry run: nothing written)" : "") + "\n"
        if !quiet { io.writeStderr(summary) }

        var trouble = reports.contains { $0.trouble } || plan.emptyDirectories > 0
        if let report {
            let json = reportJSON(reports, options: options, mode: mode).bytes(style: compact ? .compact : .pretty)
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

    /// Migrates every job, `jobs` at a time; one bad file never stops the others.
    static func process(_ list: [Job], mode: Destination, options: DefaultsMigration.Options, jobs: Int, quiet: Bool = false,
                        io: CommandIO) -> [FileReport] {
        let state = SharedState(count: list.count)
        let progress = Progress(total: list.count, quiet: quiet, io: io)
        let run = RunState()
        // Messages go through the progress display, which clears its bar before printing them.
        var quietIO = io
        quietIO.writeStderr = { progress.message($0) }
        let workerIO = quietIO
        let workers = max(1, min(jobs, list.count))
        let groupSize = Self.groupSize(workers: workers)
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            // Group commit: each worker stages up to `groupSize` files (complete, unnamed, not yet
            // flushed), then flushes them with one syncfs and puts each in place.
            var group: [(index: Int, report: FileReport, staged: StagedJob)] = []
            func commitGroup() {
                let results = workerIO.commitFiles(group.map(\.staged.pending))
                for (item, result) in zip(group, results) {
                    var report = item.report
                    switch result {
                    case let .success(written):
                        run.touch(SafeFile.directory(of: written.path))
                        if let warning = CommandIO.attributesWarning(written) { workerIO.writeStderr(warning) }
                    case let .failure(error):
                        // The file is as it was: a backup made for it in this run goes.
                        if let backup = item.staged.backup {
                            SafeFile.discardBackup(backup.made, expected: backup.of)
                            report.backup = nil
                        }
                        report.status = "failed"
                        report.error = Ycft.failure(error).message
                        report.trouble = true
                        workerIO.writeStderr("ycft: \(Ycft.shown(error.path)): \(Ycft.failure(error).message)\n")
                    }
                    item.staged.input.release()
                    state.store(report, at: item.index)
                    progress.tick()
                }
                group.removeAll()
            }
            while let index = state.next() {
                let (report, staged) = migrateOne(list[index], mode: mode, options: options, io: workerIO, run: run)
                if let staged {
                    group.append((index, report, staged))
                    if group.count >= groupSize { commitGroup() }
                } else {
                    state.store(report, at: index)
                    progress.tick()
                }
            }
            commitGroup()
        }
        progress.finish()
        io.syncDirectories(run.touchedDirectories)
        return state.results()
    }

    /// Files a worker stages before one flush puts them all in place: up to 128, fewer with many
    /// workers (each staged file holds a descriptor, two in place), within a 1,024-descriptor limit.
    static func groupSize(workers: Int) -> Int { max(4, min(128, 384 / max(1, workers))) }

    /// A staged write and the input it came from (whose lock is held until the commit).
    struct StagedJob {
        let pending: PendingWrite
        let input: InputFile
        /// The backup this run made for the file, removed if the commit fails.
        var backup: (made: SafeFile.Backup, of: FileStatus)? = nil
    }

    static func migrateOne(_ job: Job, mode: Destination, options: DefaultsMigration.Options, io: CommandIO,
                           run: RunState) -> (FileReport, StagedJob?) {
        var report = FileReport(path: job.path, status: "failed")
        func fail(_ message: String, path: String? = nil, trouble: Bool) -> (FileReport, StagedJob?) {
            report.status = "failed"
            report.error = message
            report.trouble = trouble
            io.writeStderr("ycft: \(Ycft.shown(path ?? job.path)): \(message)\n")
            return (report, nil)
        }
        // In place, the file stays locked (flock) from this read to its replacement, so two ycft
        // runs never work on one file; the writer also refuses a file another program changed.
        let input: InputFile
        do {
            input = try io.readFile(job.path, options.limits.maxInputSize, mode != .dryRun && job.output == job.path)
        } catch {
            return fail(Ycft.failure(error).message, trouble: true)
        }
        var keepLock = false
        defer { if !keepLock { input.release() } }
        let bytes = input.bytes
        guard bytes.count <= options.limits.maxInputSize else {
            return fail("input is larger than the limit of \(options.limits.maxInputSize) bytes (raise it with --max-input-size)",
                        trouble: false)
        }
        TestHooks.afterRead(job.path)
        let outcome: DefaultsMigration.Outcome
        do {
            outcome = try DefaultsMigration.migrate(bytes, options: options)
        } catch {
            // An XML plist cannot hold every string (control characters): binary can.
            let writesXML = options.outputFormat == .xml || (options.outputFormat == nil && PropertyList.detectFormat(bytes) == .xml)
            if case .unwritable = error, writesXML {
                return fail(error.description + " (--plist-format binary writes it)", trouble: false)
            }
            if case .conflict = error { return fail(error.description + "; use --force to let the source win", trouble: false) }
            return fail(error.description, trouble: false)
        }
        Ycft.warn(outcome.findings, path: job.path, io: io)
        Ycft.warnDropped(outcome.dropped, path: job.path, io: io, dryRun: mode == .dryRun)
        report.outcome = outcome
        report.status = outcome.status.rawValue
        if !outcome.droppedVersions.isEmpty {
            io.writeStderr("ycft: \(Ycft.shown(job.path)): dropped the versions of \(outcome.droppedVersions.count) record\(outcome.droppedVersions.count == 1 ? "" : "s"): \(listed(outcome.droppedVersions))\n")
        }
        if !outcome.droppedRecords.isEmpty {
            io.writeStderr("ycft: \(Ycft.shown(job.path)): dropped \(outcome.droppedRecords.count) record\(outcome.droppedRecords.count == 1 ? "" : "s") without a time: \(listed(outcome.droppedRecords))\n")
        }
        // What to write where: nothing for a dry run; the new bytes (after a backup) in place;
        // with -o, unchanged and skipped files are copied as they are, so OUT holds the whole batch.
        do throws(FileError) {
            switch mode {
            case .dryRun:
                report.listing = dryRunLine(job.path, outcome)
            case let .inPlace(backupSuffix):
                guard let output = outcome.output else { break }
                guard let status = input.status else { throw FileError(.write, job.path, .unsupportedKind(.other)) }
                // Refuse before making a backup what the writer would refuse anyway.
                if status.isReadOnly && !options.force { throw FileError(.write, job.path, .readOnly(permissions: status.permissions)) }
                var made: SafeFile.Backup?
                if let backupSuffix {
                    // A backup that already holds this very file (a killed run's) is reused, not made twice.
                    let kept = try io.keepBackup(job.path, status, backupSuffix, bytes)
                    made = kept
                    let backup = kept.path
                    report.backup = backup
                    report.backupReused = kept.reused
                    if backup != job.path + backupSuffix {
                        io.writeStderr("ycft: \(Ycft.shown(job.path)): \(Ycft.shown(job.path + backupSuffix)) exists; the backup is \(Ycft.shown(backup))\n")
                    }
                }
                let staged: SafeFile.Staged
                do {
                    staged = try io.stageFile(job.path, output, SafeFile.WriteOptions(
                        expected: status.identity, replaceReadOnly: options.force, syncDirectory: false))
                } catch {
                    // The file is as it was (no space, a file-size limit): the backup made for it goes.
                    if let made {
                        SafeFile.discardBackup(made, expected: status)
                        report.backup = nil
                    }
                    throw error
                }
                switch staged {
                case let .done(written): run.touch(SafeFile.directory(of: written.path))
                case let .pending(pending):
                    keepLock = true
                    return (report, StagedJob(pending: pending, input: input, backup: made.map { ($0, status) }))
                }
            case .output:
                guard let path = job.output else { break }
                let slash = path.lastIndex(of: "/")
                if let slash, slash != path.startIndex {
                    do { try run.makeDirectoryOnce(String(path[..<slash]), io: io) } catch {
                        return fail("cannot create the directory: \(error)", path: path, trouble: true)
                    }
                }
                let written = outcome.output ?? bytes
                do throws(Ycft.Failure) { try Ycft.refuseBinaryOnTerminal(written, to: path, io: io) } catch {
                    (report.status, report.error, report.trouble) = ("failed", error.message, true)
                    _ = error.report(io)
                    return (report, nil)
                }
                if !options.force, let refusal = OutputGuard.refusal(path, replacingWith: written, key: options.key, io: io,
                                                                    hint: "Use --force to replace it") {
                    return fail(refusal, path: path, trouble: true)
                }
                let staged = try io.stageFile(path, written, SafeFile.WriteOptions(
                    replaceReadOnly: options.force, newFilePermissions: input.status.map { $0.permissions & 0o777 },
                    syncDirectory: false))
                switch staged {
                case let .done(written): run.touch(SafeFile.directory(of: written.path))
                case let .pending(pending): return (report, StagedJob(pending: pending, input: input))
                }
            }
        } catch {
            return fail(Ycft.failure(error).message, path: error.path, trouble: true)
        }
        return (report, nil)
    }

    static func listed(_ keys: [String]) -> String {
        let shown = keys.prefix(10).map { quoted($0) }.joined(separator: ", ")
        return keys.count > 10 ? shown + ", and \(keys.count - 10) more" : shown
    }

    static func quoted(_ s: String) -> String { UntrustedText.quoted(s) }

    static func dryRunLine(_ path: String, _ outcome: DefaultsMigration.Outcome) -> String {
        switch outcome.status {
        case .unchanged: return "\(Ycft.shown(path)): unchanged\n"
        case .skipped: return "\(Ycft.shown(path)): skipped (no source state)\n"
        case .migrated:
            var parts: [String] = []
            parts += outcome.added.map { "+\(quoted($0))" }
            parts += outcome.removed.map { "-\(quoted($0))" }
            parts += outcome.changed.map { "~\(quoted($0))" }
            return "\(Ycft.shown(path)): would migrate \(outcome.recordCount) record\(outcome.recordCount == 1 ? "" : "s"): \(parts.joined(separator: " "))\n"
        }
    }

    static func reportJSON(_ reports: [FileReport], options: DefaultsMigration.Options, mode: Destination) -> JSON {
        var counts: [String: Int] = [:]
        for r in reports { counts[r.status, default: 0] += 1 }
        return .object([
            .init("formatVersion", .integer(1)),
            .init("target", .string(options.target.rawValue)),
            .init("dryRun", .bool(mode == .dryRun)),
            .init("summary", .object(["migrated", "unchanged", "skipped", "failed"].map { .init($0, .integer(counts[$0, default: 0])) })),
            .init("files", .array(reports.map { r in
                .object([
                    .init("path", .string(Ycft.reported(r.path))),
                    .init("status", .string(r.status)),
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
}

/// What one run of `migrate` remembers across its workers: the output directories it created
/// (each once) and the directories it wrote into (flushed once at the end).
final class RunState: Sendable {
    private let state = Mutex<(made: Set<String>, touched: Set<String>)>(([], []))

    /// Creates `directory` unless this run already did; the lock is held while creating, so
    /// another worker never writes into a directory that is still being made.
    func makeDirectoryOnce(_ directory: String, io: CommandIO) throws {
        try state.withLock { state in
            guard !state.made.contains(directory) else { return }
            try io.makeDirectory(directory)
            state.made.insert(directory)
        }
    }

    func touch(_ directory: String) { state.withLock { _ = $0.touched.insert(directory) } }

    var touchedDirectories: [String] { state.withLock { $0.touched.sorted() } }
}

/// The work queue and results shared by the workers.
private final class SharedState: Sendable {
    private let state: Mutex<(cursor: Int, slots: [MigrateCommand.FileReport?])>

    init(count: Int) { state = Mutex((0, Array(repeating: nil, count: count))) }

    func next() -> Int? {
        state.withLock { state in
            guard state.cursor < state.slots.count else { return nil }
            defer { state.cursor += 1 }
            return state.cursor
        }
    }

    func store(_ report: MigrateCommand.FileReport, at index: Int) {
        state.withLock { $0.slots[index] = report }
    }

    func results() -> [MigrateCommand.FileReport] { state.withLock { $0.slots.compactMap { $0 } } }
}

/// Progress on standard error: a bar on a terminal, a plain line every two seconds otherwise.
private final class Progress: Sendable {
    private struct Counter {
        var done = 0
        var last = DispatchTime.now()
        var drew = false
    }

    private let counter = Mutex(Counter())
    private let total: Int
    private let io: CommandIO
    private let terminal: Bool
    /// `--quiet`: no bar and no progress lines (messages still pass).
    private let quiet: Bool

    init(total: Int, quiet: Bool, io: CommandIO) {
        self.total = total
        self.io = io
        self.quiet = quiet
        terminal = io.stderrIsTerminal()
    }

    func tick() {
        if quiet { return }
        counter.withLock { c in
            c.done += 1
            let now = DispatchTime.now()
            let interval: UInt64 = terminal ? 100_000_000 : 2_000_000_000
            guard now.uptimeNanoseconds - c.last.uptimeNanoseconds >= interval || (terminal && c.done == total) else { return }
            c.last = now
            if terminal {
                let width = 30
                let filled = total == 0 ? width : width * c.done / total
                io.writeStderr(Ycft.TerminalControl.lineStart)
                io.writeStderr("[\(String(repeating: "#", count: filled))\(String(repeating: " ", count: width - filled))] \(c.done)/\(total)")
                c.drew = true
            } else {
                io.writeStderr("ycft migrate: \(c.done)/\(total) files\n")
            }
        }
    }

    /// Prints a message on its own line, first clearing the bar (it is redrawn on the next tick).
    func message(_ text: String) {
        counter.withLock { c in
            if c.drew {
                io.writeStderr(Ycft.TerminalControl.clearLine)
                c.drew = false
            }
            io.writeStderr(text)
        }
    }

    func finish() {
        counter.withLock { c in if c.drew { io.writeStderr("\n") } }
    }
}
