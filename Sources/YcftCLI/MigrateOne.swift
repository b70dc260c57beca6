import FirstTimeArchive
import FirstTimeCore
import Plist
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

    static func migrateOne(_ job: Job, mode: Destination, target: Migration.Target, options: Migration.Options, io: CommandIO,
                           run: RunState) -> (FileReport, StagedJob?) {
        var report = FileReport(path: job.path, status: "failed")
        func fail(_ message: String, path: String? = nil, trouble: Bool) -> (FileReport, StagedJob?) {
            (report.status, report.error, report.trouble) = ("failed", message, trouble)
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
        let outcome: Migration.Outcome
        do {
            outcome = try Migration.migrate(bytes, to: target, options: options)
        } catch {
            // An XML plist cannot hold every string (control characters): binary can.
            let writesXML = options.outputFormat == .xml || (options.outputFormat == nil && PropertyList.detectFormat(bytes) == .xml)
            switch error {
            case .unwritable where writesXML, .unwritablePlist where writesXML:
                return fail(error.description + " (--plist-format binary writes it)", trouble: false)
            default: break
            }
            if case .conflict = error { return fail(error.description + "; use --force to let the source win", trouble: false) }
            if case .intervalGate = error { return fail(error.description + ": migrate without --drop-versions", trouble: false) }
            if case .onlyOtherData = error { return fail(error.description + " (--keep-source)", trouble: false) }
            return fail(error.description, trouble: false)
        }
        Ycft.warn(outcome.findings, path: job.path, io: io)
        Ycft.warnDropped(outcome.dropped, path: job.path, io: io, dryRun: mode == .dryRun)
        report.outcome = outcome
        report.status = outcome.status.rawValue
        if !outcome.droppedVersions.isEmpty {
            io.writeStderr("ycft: \(Ycft.shown(job.path)): dropped the versions of \(outcome.droppedVersions.count) record\(outcome.droppedVersions.count == 1 ? "" : "s"): \(listed(outcome.droppedVersions))\n")
        }
        if !outcome.roundedTimes.isEmpty {
            let count = outcome.roundedTimes.count
            io.writeStderr("ycft: \(Ycft.shown(job.path)): the interval.* keys count seconds since 1970 and hold the time\(count == 1 ? "" : "s") of "
                           + "\(count) record\(count == 1 ? "" : "s") only to \(count == 1 ? "its" : "their") nearest value: \(listed(outcome.roundedTimes))\n")
        }
        if !outcome.droppedRecords.isEmpty {
            io.writeStderr("ycft: \(Ycft.shown(job.path)): dropped \(outcome.droppedRecords.count) record\(outcome.droppedRecords.count == 1 ? "" : "s") without a time: \(listed(outcome.droppedRecords))\n")
        }
        // What to write where: nothing for a dry run; the new bytes (after a backup) in place;
        // with -o, unchanged and skipped files are copied as they are, so OUT holds the whole batch.
        var backup: (made: SafeFile.Backup, of: FileStatus)?
        do throws(FileError) {
            let staged: SafeFile.Staged
            switch mode {
            case .dryRun:
                report.listing = dryRunLine(job.path, outcome)
                return (report, nil)
            case let .inPlace(backupSuffix):
                guard let output = outcome.output else { return (report, nil) }
                guard let status = input.status else { throw FileError(.write, job.path, .unsupportedKind(.other)) }
                // Refuse before making a backup what the writer would refuse anyway.
                if status.isReadOnly && !options.force { throw FileError(.write, job.path, .readOnly(permissions: status.permissions)) }
                if let backupSuffix {
                    // A backup that already holds this very file (a killed run's) is reused, not made twice.
                    let kept = try io.keepBackup(job.path, status, backupSuffix, bytes)
                    backup = (kept, status)
                    (report.backup, report.backupReused) = (kept.path, kept.reused)
                    if kept.path != job.path + backupSuffix {
                        io.writeStderr("ycft: \(Ycft.shown(job.path)): \(Ycft.shown(job.path + backupSuffix)) exists; the backup is \(Ycft.shown(kept.path))\n")
                    }
                }
                do {
                    staged = try io.stageFile(job.path, output, SafeFile.WriteOptions(
                        expected: status.identity, replaceReadOnly: options.force, syncDirectory: false))
                } catch {
                    // The file is as it was (no space, a file-size limit): the backup made for it goes.
                    if let backup {
                        SafeFile.discardBackup(backup.made, expected: backup.of)
                        report.backup = nil
                    }
                    throw error
                }
            case .output:
                guard let path = job.output else { return (report, nil) }
                let slash = path.lastIndex(of: "/")
                if let slash, slash != path.startIndex {
                    do { try run.makeDirectoryOnce(String(path[..<slash]), io: io) } catch let error as FileError {
                        // The folder would be inside an iPhone backup: said as the writer says it.
                        return fail(Ycft.failure(error).message, path: error.path, trouble: true)
                    } catch {
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
                staged = try io.stageFile(path, written, SafeFile.WriteOptions(
                    replaceReadOnly: options.force, newFilePermissions: input.status.map { $0.permissions & 0o777 },
                    syncDirectory: false))
            }
            switch staged {
            case let .done(written): run.touch(SafeFile.directory(of: written.path))
            case let .pending(pending):
                // Without --in-place the input holds no lock, so keeping it changes nothing.
                keepLock = true
                return (report, StagedJob(pending: pending, input: input, backup: backup))
            }
        } catch {
            return fail(Ycft.failure(error).message, path: error.path, trouble: true)
        }
        return (report, nil)
    }
}
