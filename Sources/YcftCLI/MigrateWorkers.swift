import Dispatch
import FirstTimeCore
import SafeFiles
import FileErrors
import Synchronization

extension MigrateCommand {
    /// Migrates every job, `jobs` at a time; one bad file never stops the others.
    static func process(_ list: [Job], mode: Destination, target: Migration.Target, options: Migration.Options, jobs: Int, quiet: Bool = false,
                        io: CommandIO) -> [FileReport] {
        let state = SharedState(count: list.count)
        let progress = MigrateProgress(total: list.count, quiet: quiet, io: io)
        let run = RunState()
        // Messages go through the progress display, which clears its bar before printing them.
        var quietIO = io
        quietIO.writeStderr = { progress.message($0) }
        let workerIO = quietIO
        let workers = max(1, min(jobs, list.count))
        // Group commit: each worker stages up to 128 files (complete, unnamed, not yet flushed),
        // fewer with many workers (each staged file holds a descriptor, two in place; within a
        // 1,024-descriptor limit), then flushes them with one syncfs and puts each in place.
        let groupSize = max(4, min(128, 384 / workers))
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            var group: [(index: Int, report: FileReport, staged: StagedJob)] = []
            func commitGroup() {
                let results = workerIO.commitFiles(group.map(\.staged.pending))
                for (item, result) in zip(group, results) {
                    var report = item.report
                    switch result {
                    case let .success(written):
                        run.touch(SafeFile.directory(of: written.path))
                        // A backup made as a hard link is one of the original's names, and meant to be
                        // (looked at only when the original had other names).
                        var ownNames = 0
                        if written.otherNames > 0, let backup = item.staged.backup,
                           case let .success(made) = FileStatus.of(backup.made.path, followLinks: false),
                           FileIdentity.Inode(made.identity) == FileIdentity.Inode(backup.of.identity) { ownNames = 1 }
                        if let warning = CommandIO.replacementWarnings(written, ownNames: ownNames) { workerIO.writeStderr(warning) }
                    case let .failure(error):
                        report.discard(item.staged.backup)
                        (report.error, report.trouble) = (Ycft.failure(error).message, true)
                        workerIO.writeStderr("ycft: \(Ycft.shown(error.path)): \(Ycft.failure(error).message)\n")
                    }
                    item.staged.input.release()
                    state.store(report, at: item.index)
                    progress.tick()
                }
                group.removeAll()
            }
            while let index = state.next() {
                let (report, staged) = migrateOne(list[index], mode: mode, target: target, options: options, io: workerIO, run: run)
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
