import FirstTimeArchive
import FirstTimeCore
import PlistCore
import SafeFiles
import FileErrors

extension MigrateCommand {
    /// A staged write and the input it came from (whose lock is held until the commit).
    struct StagedJob {
        let pending: PendingWrite
        let input: InputFile
        /// The backup this run made for the file, removed if the commit fails.
        var backup: (made: SafeFile.Backup, of: FileStatus)? = nil
    }

    /// One file: read it, migrate its bytes (the library's one call), say what the outcome says,
    /// then write it or stage it for the group commit. A failure is the file's own, said on
    /// standard error and in its report; the batch goes on.
    static func migrateOne(_ job: Job, mode: Destination, target: Migration.Target, options: Migration.Options, io: CommandIO,
                           run: RunState) -> (FileReport, StagedJob?) {
        var report = FileReport(path: job.path)
        do throws(Ycft.Failure) {
            // In place, the file stays locked (flock) from this read to its replacement, so two ycft
            // runs never work on one file; the writer also refuses a file another program changed.
            let input = try read(job.path, lock: mode != .dryRun && job.output == job.path, limit: options.limits.maxInputSize, io: io)
            var staged: StagedJob?
            defer { if staged == nil { input.release() } }
            io.hooks.afterRead?(job.path)
            let outcome = try migrate(input.bytes, of: job.path, to: target, options: options)
            report.outcome = outcome
            warn(outcome, path: job.path, dryRun: mode == .dryRun, io: io)
            var backup: (made: SafeFile.Backup, of: FileStatus)?
            let written: SafeFile.Staged
            switch mode {
            case .dryRun: return (report, nil)
            case let .inPlace(backupSuffix):
                guard let output = outcome.output else { return (report, nil) }
                do throws(FileError) {
                    written = try stageInPlace(output, over: input, at: job.path, backupSuffix: backupSuffix, options: options, io: io,
                                               backup: &backup, report: &report)
                } catch { throw Ycft.failure(error) }
            case .output:
                guard let path = job.output else { return (report, nil) }
                // Unchanged and skipped files are copied as they are, so OUT holds the whole batch.
                written = try stageCopy(outcome.output ?? input.bytes, of: input, to: path, options: options, io: io, run: run)
            }
            // Staged, the input is kept (without --in-place it holds no lock: keeping it changes nothing).
            switch written {
            case let .done(result): run.touch(SafeFile.directory(of: result.path))
            case let .pending(pending): staged = StagedJob(pending: pending, input: input, backup: backup)
            }
            return (report, staged)
        } catch {
            (report.error, report.trouble) = (error.message, error.exit == .trouble)
            _ = error.report(io)
            return (report, nil)
        }
    }

    /// The file, within the size limit (locked when `lock`).
    private static func read(_ path: String, lock: Bool, limit: Int, io: CommandIO) throws(Ycft.Failure) -> InputFile {
        let input: InputFile
        do { input = try io.readFile(path, limit, lock) } catch { throw Ycft.Failure(.trouble, path, Ycft.failure(error).message) }
        guard input.bytes.count <= limit else {
            input.release()
            throw Ycft.tooLarge(path, limit: limit)
        }
        return input
    }

    /// The library's migration of the bytes; a failure with the flag that would change the answer.
    private static func migrate(_ bytes: [UInt8], of path: String, to target: Migration.Target,
                                options: Migration.Options) throws(Ycft.Failure) -> Migration.Outcome {
        do { return try Migration.migrate(bytes, to: target, options: options) } catch {
            // An XML plist cannot hold every string (control characters): binary can.
            let writesXML = options.outputFormat == .xml || (options.outputFormat == nil && PropertyList.detectFormat(bytes) == .xml)
            let hint: String
            switch error {
            case .unwritable where writesXML, .unwritablePlist where writesXML: hint = " (--plist-format binary writes it)"
            case .conflict: hint = "; use --force to let the source win"
            case .intervalGate: hint = ": migrate without --drop-versions"
            case .onlyOtherData: hint = " (--keep-source)"
            // A bare archive, not the defaults file holding it: what reads it.
            case .notDefaults(found: .dictionary): hint = "; 'ycft dump \(Ycft.shown(path))' reads an archive itself"
            default: hint = ""
            }
            throw Ycft.Failure(.content, path, error.description + hint)
        }
    }

    /// What the outcome says beyond its status, on standard error: its findings, what it drops
    /// or converts, the versions dropped, the times rounded, the records without a time.
    private static func warn(_ outcome: Migration.Outcome, path: String, dryRun: Bool, io: CommandIO) {
        Ycft.warn(outcome.findings, path: path, io: io)
        Ycft.warnDropped(outcome.dropped, path: path, io: io, dryRun: dryRun)
        func say(_ text: String) { io.writeStderr("ycft: \(Ycft.shown(path)): \(text)\n") }
        func records(_ keys: [String]) -> String { "\(keys.count) record\(keys.count == 1 ? "" : "s")" }
        func listed(_ keys: [String]) -> String {
            let shown = keys.prefix(10).map(UntrustedText.quoted).joined(separator: ", ")
            return keys.count > 10 ? shown + ", and \(keys.count - 10) more" : shown
        }
        let (versions, rounded, timeless) = (outcome.droppedVersions, outcome.roundedTimes, outcome.droppedRecords)
        if !versions.isEmpty { say("dropped the versions of \(records(versions)): \(listed(versions))") }
        if !rounded.isEmpty {
            say("the interval.* keys count seconds since 1970 and hold the time\(rounded.count == 1 ? "" : "s") of \(records(rounded)) "
                + "only to \(rounded.count == 1 ? "its" : "their") nearest value: \(listed(rounded))")
        }
        if !timeless.isEmpty { say("dropped \(records(timeless)) without a time: \(listed(timeless))") }
    }

    /// In place: the new bytes, after a backup (`backup`).
    private static func stageInPlace(_ output: [UInt8], over input: InputFile, at path: String, backupSuffix: String?,
                                     options: Migration.Options, io: CommandIO, backup: inout (made: SafeFile.Backup, of: FileStatus)?,
                                     report: inout FileReport) throws(FileError) -> SafeFile.Staged {
        guard let status = input.status else { throw FileError(.write, path, .unsupportedKind(.other)) }
        // Refuse before making a backup what the writer would refuse anyway.
        if status.isReadOnly && !options.force { throw FileError(.write, path, .readOnly(permissions: status.permissions)) }
        if let backupSuffix {
            // A backup that already holds this very file (a killed run's) is reused, not made twice.
            let kept = try io.keepBackup(path, status, backupSuffix, input.bytes)
            backup = (kept, status)
            (report.backup, report.backupReused) = (kept.path, kept.reused)
            if kept.path != path + backupSuffix {
                io.writeStderr("ycft: \(Ycft.shown(path)): \(Ycft.shown(path + backupSuffix)) exists; the backup is \(Ycft.shown(kept.path))\n")
            }
        }
        do {
            return try io.stageFile(io.lookAtOutput(path), output,
                                    SafeFile.WriteOptions(expected: status.identity, replaceReadOnly: options.force, syncDirectory: false))
        } catch {
            report.discard(backup)   // no space, a file-size limit
            throw error
        }
    }

    /// With -o: `bytes` to `path`, in a folder made once per run, over no preferences file unless
    /// forced.
    private static func stageCopy(_ bytes: [UInt8], of input: InputFile, to path: String, options: Migration.Options, io: CommandIO,
                                  run: RunState) throws(Ycft.Failure) -> SafeFile.Staged {
        // Its folder by bytes, as SafeFile.directory(of:) cuts it.
        if let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")), slash != path.utf8.startIndex {
            do { try run.makeDirectoryOnce(String(Substring(path.utf8[..<slash])), io: io) } catch let error as FileError {
                if case let .system(failure) = error.reason { throw Ycft.Failure(.trouble, path, "cannot create the directory: \(failure)") }
                // The folder would be inside an iPhone backup: said as the writer says it.
                throw Ycft.failure(error)
            } catch {
                throw Ycft.Failure(.trouble, path, "cannot create the directory: \(error)")
            }
        }
        // Looked at once: the checks below and the writer ask the look, not the path again.
        let output = io.lookAtOutput(path)
        if output.mayBeTerminal { try Ycft.refuseBinaryOnTerminal(bytes, to: path, io: io) }
        if !options.force, let refusal = OutputGuard.refusal(output, replacingWith: bytes, key: options.key, io: io, hint: "Use --force to replace it") {
            throw Ycft.Failure(.trouble, path, refusal)
        }
        do {
            return try io.stageFile(output, bytes, SafeFile.WriteOptions(
                replaceReadOnly: options.force, newFilePermissions: input.status.map { $0.permissions & 0o777 }, syncDirectory: false))
        } catch { throw Ycft.failure(error) }
    }
}
