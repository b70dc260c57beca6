import Dispatch
import FirstTimeArchive
import Foundation
import OrderedJSON
import Plist

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

    /// What happened to one file, for the summary and the report.
    struct FileReport: Sendable {
        let path: String
        var status: String
        var outcome: DefaultsMigration.Outcome?
        var error: String?
        var trouble = false
    }

    static func run(_ arguments: [String], io: CommandIO) throws(UsageError) -> Ycft.Exit {
        var args = Arguments(arguments)
        var options = DefaultsMigration.Options()
        var destination: Destination?
        var backup: String? = ".bak"
        var backupGiven = false, noBackup = false
        var jobs = ProcessInfo.processInfo.activeProcessorCount
        var report: String?
        func setDestination(_ d: Destination) throws(UsageError) {
            guard destination == nil else { throw UsageError("Use only one of '-o', '--in-place' and '--dry-run'") }
            destination = d
        }
        while let option = args.nextOption() {
            func flag() throws(UsageError) {
                guard option.inline == nil else { throw UsageError("'\(option.name)' takes no value") }
            }
            switch option.name {
            case "--to":
                let value = try args.value(for: "--to", inline: option.inline)
                guard let target = DefaultsMigration.Target(rawValue: value) else {
                    throw UsageError("The value '\(value)' is invalid for '--to <target>': expected 'records', 'interval' or 'legacy'")
                }
                options.target = target
            case "-o", "--output": try setDestination(.output(try args.value(for: option.name, inline: option.inline)))
            case "--in-place": try flag(); try setDestination(.inPlace(backupSuffix: nil))
            case "--dry-run": try flag(); try setDestination(.dryRun)
            case "--backup":
                backup = try args.value(for: "--backup", inline: option.inline)
                guard backup?.isEmpty == false else { throw UsageError("'--backup' needs a non-empty suffix") }
                backupGiven = true
            case "--no-backup": try flag(); noBackup = true
            case "--keep-source": try flag(); options.keepSource = true
            case "--force": try flag(); options.force = true
            case "--drop-versions": try flag(); options.dropVersions = true
            case "--key": options.key = try args.value(for: "--key", inline: option.inline)
            case "--jobs", "-j":
                let value = try args.value(for: option.name, inline: option.inline)
                guard let n = Int(value), n >= 1, n <= 256 else {
                    throw UsageError("The value '\(value)' is invalid for '--jobs <n>': expected a number from 1 to 256")
                }
                jobs = n
            case "--report": report = try args.value(for: "--report", inline: option.inline)
            case "--max-input-size":
                options.limits.maxInputSize = try Ycft.parseSize(try args.value(for: "--max-input-size", inline: option.inline))
            case "--output-format":
                let value = try args.value(for: "--output-format", inline: option.inline)
                switch value {
                case "same": options.outputFormat = nil
                case "binary": options.outputFormat = .binary
                case "xml": options.outputFormat = .xml
                default: throw UsageError("The value '\(value)' is invalid for '--output-format <format>': expected 'same', 'binary' or 'xml'")
                }
            default: throw UsageError("Unknown option '\(option.name)'")
            }
        }
        guard !args.operands.isEmpty else { throw UsageError("Missing expected argument 'PATH...'") }
        guard let chosen = destination else {
            throw UsageError("Say where results go: '-o OUT', '--in-place' or '--dry-run'")
        }
        if backupGiven && noBackup { throw UsageError("'--backup' and '--no-backup' cannot be combined") }
        if (backupGiven || noBackup), case .inPlace = chosen {} else if backupGiven || noBackup {
            throw UsageError("'--backup' and '--no-backup' go with '--in-place'")
        }
        if options.dropVersions && options.target != .interval { throw UsageError("'--drop-versions' goes with '--to interval'") }
        if args.operands.contains("-") { throw UsageError("migrate works on files; '-' (standard input) is not supported") }
        let mode: Destination = {
            if case .inPlace = chosen { return .inPlace(backupSuffix: noBackup ? nil : backup) }
            return chosen
        }()

        // Expand the operands into jobs (directories: every *.plist below them, recursively).
        var jobsList: [Job] = []
        var reports: [FileReport] = []
        let operands = args.operands
        let singleFile = operands.count == 1 && io.fileKind(operands[0]) == .file
        for operand in operands {
            switch io.fileKind(operand) {
            case .file:
                jobsList.append(Job(path: operand, output: outputPath(mode, singleFile: singleFile, root: nil, file: operand, io: io)))
            case .directory:
                let files: [String]
                do { files = try io.listFiles(operand) } catch {
                    reports.append(FileReport(path: operand, status: "failed", error: "cannot list: \(error)", trouble: true))
                    continue
                }
                for relative in files where relative.hasSuffix(".plist") {
                    let path = operand.hasSuffix("/") ? operand + relative : "\(operand)/\(relative)"
                    jobsList.append(Job(path: path, output: outputPath(mode, singleFile: false, root: operand, file: relative, io: io)))
                }
            case .missing, .other:
                reports.append(FileReport(path: operand, status: "failed",
                                          error: io.fileKind(operand) == .missing ? "cannot read: No such file or directory" : "not a regular file or directory",
                                          trouble: true))
            }
        }
        for report in reports { io.writeStderr("ycft: \(report.path): \(report.error!)\n") }

        let results = process(jobsList, mode: mode, options: options, jobs: jobs, io: io)
        reports += results

        var counts: [String: Int] = [:]
        for r in reports { counts[r.status, default: 0] += 1 }
        let summary = "ycft migrate: \(reports.count) file\(reports.count == 1 ? "" : "s"): "
            + "\(counts["migrated", default: 0]) migrated, \(counts["unchanged", default: 0]) unchanged, "
            + "\(counts["skipped", default: 0]) skipped, \(counts["failed", default: 0]) failed"
            + (mode == .dryRun ? " (dry run: nothing written)" : "") + "\n"
        io.writeStderr(summary)

        var trouble = reports.contains { $0.trouble }
        if let report {
            let json = reportJSON(reports, options: options, mode: mode)
            do { try io.writeFileAtomically(report, json.bytes(), nil) } catch {
                io.writeStderr("ycft: \(report): cannot write the report: \(error)\n")
                trouble = true
            }
        }
        if trouble { return .trouble }
        return reports.contains { $0.status == "failed" } ? .content : .success
    }

    static func outputPath(_ mode: Destination, singleFile: Bool, root: String?, file: String, io: CommandIO) -> String? {
        switch mode {
        case .dryRun: return nil
        case .inPlace: return root.map { "\($0)/\(file)" } ?? file
        case let .output(out):
            if singleFile && io.fileKind(out) != .directory { return out }
            let name = root == nil ? (file.split(separator: "/").last.map(String.init) ?? file) : file
            return out.hasSuffix("/") ? out + name : "\(out)/\(name)"
        }
    }

    /// Migrates every job, `jobs` at a time; one bad file never stops the others.
    static func process(_ list: [Job], mode: Destination, options: DefaultsMigration.Options, jobs: Int,
                        io: CommandIO) -> [FileReport] {
        let state = SharedState(count: list.count)
        let progress = Progress(total: list.count, io: io)
        let run = RunState()
        // Messages go through the progress display, which clears its bar before printing them.
        var quietIO = io
        quietIO.writeStderr = { progress.message($0) }
        let workerIO = quietIO
        let workers = max(1, min(jobs, list.count))
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            while let index = state.next() {
                let report = migrateOne(list[index], mode: mode, options: options, io: workerIO, run: run)
                state.store(report, at: index)
                progress.tick()
            }
        }
        progress.finish()
        io.syncDirectories(run.touchedDirectories)
        return state.results()
    }

    static func migrateOne(_ job: Job, mode: Destination, options: DefaultsMigration.Options, io: CommandIO,
                           run: RunState) -> FileReport {
        var report = FileReport(path: job.path, status: "failed")
        // Each file is renamed into place atomically; its directory is flushed once, at the end.
        let write = io.writeFileAtomicallyDeferringSync ?? io.writeFileAtomically
        func writeFile(_ path: String, _ bytes: [UInt8], _ modeOf: String?) throws {
            try write(path, bytes, modeOf)
            run.touch(AtomicFile.directory(of: path))
        }
        let bytes: [UInt8]
        do throws(Ycft.Failure) {
            bytes = try Ycft.readInput(job.path, io: io, limit: options.limits.maxInputSize)
        } catch {
            report.error = error.message
            report.trouble = error.exit == .trouble
            io.writeStderr("ycft: \(job.path): \(error.message)\n")
            return report
        }
        let outcome: DefaultsMigration.Outcome
        do {
            outcome = try DefaultsMigration.migrate(bytes, options: options)
        } catch {
            report.error = error.description
            io.writeStderr("ycft: \(job.path): \(error.description)\n")
            return report
        }
        report.outcome = outcome
        report.status = outcome.status.rawValue
        if !outcome.droppedVersions.isEmpty {
            io.writeStderr("ycft: \(job.path): dropped the versions of \(outcome.droppedVersions.count) record\(outcome.droppedVersions.count == 1 ? "" : "s"): \(listed(outcome.droppedVersions))\n")
        }
        if !outcome.droppedRecords.isEmpty {
            io.writeStderr("ycft: \(job.path): dropped \(outcome.droppedRecords.count) record\(outcome.droppedRecords.count == 1 ? "" : "s") without a time: \(listed(outcome.droppedRecords))\n")
        }
        // What to write where: nothing for a dry run; the new bytes (and a backup) in place; with
        // -o, unchanged and skipped files are copied as they are, so OUT holds the whole batch.
        let target: String
        var writes: [(path: String, bytes: [UInt8])] = []
        switch mode {
        case .dryRun:
            io.writeStdout(Array(dryRunLine(job.path, outcome).utf8))
            return report
        case let .inPlace(backupSuffix):
            guard let output = outcome.output, let path = job.output else { return report }
            target = path
            if let backupSuffix { writes.append((job.path + backupSuffix, bytes)) }
            writes.append((path, output))
        case .output:
            guard let path = job.output else { return report }
            target = path
            writes.append((path, outcome.output ?? bytes))
        }
        do {
            if case .output = mode, let slash = target.lastIndex(of: "/"), slash != target.startIndex {
                try run.makeDirectoryOnce(String(target[..<slash]), io: io)
            }
            for write in writes { try writeFile(write.path, write.bytes, job.path) }
        } catch {
            report.status = "failed"
            report.error = "cannot write: \(error)"
            report.trouble = true
            io.writeStderr("ycft: \(target): cannot write: \(error)\n")
        }
        return report
    }

    static func listed(_ keys: [String]) -> String {
        let shown = keys.prefix(10).map { quoted($0) }.joined(separator: ", ")
        return keys.count > 10 ? shown + ", and \(keys.count - 10) more" : shown
    }

    static func quoted(_ s: String) -> String {
        var out = ""
        JSON.writeString(s, into: &out)
        return out
    }

    static func dryRunLine(_ path: String, _ outcome: DefaultsMigration.Outcome) -> String {
        switch outcome.status {
        case .unchanged: return "\(path): unchanged\n"
        case .skipped: return "\(path): skipped (no source state)\n"
        case .migrated:
            var parts: [String] = []
            parts += outcome.added.map { "+\(quoted($0))" }
            parts += outcome.removed.map { "-\(quoted($0))" }
            parts += outcome.changed.map { "~\(quoted($0))" }
            return "\(path): would migrate \(outcome.recordCount) record\(outcome.recordCount == 1 ? "" : "s"): \(parts.joined(separator: " "))\n"
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
                    .init("path", .string(r.path)),
                    .init("status", .string(r.status)),
                    .init("added", .array((r.outcome?.added ?? []).map { .string($0) })),
                    .init("removed", .array((r.outcome?.removed ?? []).map { .string($0) })),
                    .init("changed", .array((r.outcome?.changed ?? []).map { .string($0) })),
                    .init("records", r.outcome.map { .integer($0.recordCount) } ?? .null),
                    .init("error", r.error.map { .string($0) } ?? .null),
                ])
            })),
        ])
    }
}

/// What one run of `migrate` remembers across its workers: the output directories it created
/// (each once) and the directories it wrote into (flushed once at the end).
final class RunState: @unchecked Sendable {
    private let lock = NSLock()
    private var made = Set<String>()
    private var touched = Set<String>()

    /// Creates `directory` unless this run already did; the lock is held while creating, so
    /// another worker never writes into a directory that is still being made.
    func makeDirectoryOnce(_ directory: String, io: CommandIO) throws {
        lock.lock()
        defer { lock.unlock() }
        guard !made.contains(directory) else { return }
        try io.makeDirectory(directory)
        made.insert(directory)
    }

    func touch(_ directory: String) { lock.withLock { _ = touched.insert(directory) } }

    var touchedDirectories: [String] { lock.withLock { touched.sorted() } }
}

/// The work queue and results shared by the workers.
private final class SharedState: @unchecked Sendable {
    private let lock = NSLock()
    private var cursor = 0
    private let count: Int
    private var slots: [MigrateCommand.FileReport?]

    init(count: Int) {
        self.count = count
        slots = Array(repeating: nil, count: count)
    }

    func next() -> Int? {
        lock.withLock {
            guard cursor < count else { return nil }
            defer { cursor += 1 }
            return cursor
        }
    }

    func store(_ report: MigrateCommand.FileReport, at index: Int) {
        lock.withLock { slots[index] = report }
    }

    func results() -> [MigrateCommand.FileReport] { lock.withLock { slots.compactMap { $0 } } }
}

/// Progress on standard error: a bar on a terminal, a plain line every two seconds otherwise.
private final class Progress: @unchecked Sendable {
    private let lock = NSLock()
    private let total: Int
    private let io: CommandIO
    private let terminal: Bool
    private var done = 0
    private var last = DispatchTime.now()
    private var drew = false

    init(total: Int, io: CommandIO) {
        self.total = total
        self.io = io
        terminal = io.stderrIsTerminal()
    }

    func tick() {
        lock.withLock {
            done += 1
            let now = DispatchTime.now()
            let interval: UInt64 = terminal ? 100_000_000 : 2_000_000_000
            guard now.uptimeNanoseconds - last.uptimeNanoseconds >= interval || (terminal && done == total) else { return }
            last = now
            if terminal {
                let width = 30
                let filled = total == 0 ? width : width * done / total
                io.writeStderr("\r[\(String(repeating: "#", count: filled))\(String(repeating: " ", count: width - filled))] \(done)/\(total)")
                drew = true
            } else {
                io.writeStderr("ycft migrate: \(done)/\(total) files\n")
            }
        }
    }

    /// Prints a message on its own line, first clearing the bar (it is redrawn on the next tick).
    func message(_ text: String) {
        lock.withLock {
            if drew {
                io.writeStderr("\r\u{1B}[K")
                drew = false
            }
            io.writeStderr(text)
        }
    }

    func finish() {
        lock.withLock { if drew { io.writeStderr("\n") } }
    }
}
