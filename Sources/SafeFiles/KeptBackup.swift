package import FileErrors
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// The copy of a file kept before it is replaced (`migrate --in-place`'s `FILE.bak`): a hard link, or a copy.
extension SafeFile {
    /// A backup kept by ``keepBackup(of:expected:suffix:bytes:)``.
    package struct Backup: Sendable, Equatable {
        /// The backup's path.
        package let path: String
        /// True when the backup was there already: the very file that was read (a hard link to
        /// it) or a file with its exact bytes, left by an earlier run that stopped before the
        /// file was replaced. Nothing was written then.
        package let reused: Bool

        package init(path: String, reused: Bool) { (self.path, self.reused) = (path, reused) }
    }

    /// Removes a backup ``keepBackup(of:expected:suffix:bytes:)`` made in this run when the
    /// replace it guarded failed (the file is then as it was, and a backup of it is clutter):
    /// only a new one, and only while its name still holds the very file it linked.
    package static func discardBackup(_ backup: Backup, expected: FileStatus) {
        guard !backup.reused, case let .success(now) = FileStatus.of(backup.path, followLinks: false),
              now.identity == expected.identity else { return }
        unlink(PathBytes.cString(backup.path))
    }

    /// Keeps the file at `path` under `path + suffix` before it is replaced: a hard link to the
    /// very file that was read, or, where the file system has no hard links, a copy with `bytes`
    /// and the original's mode, owner, extended attributes and ACLs. An existing backup is never
    /// replaced: `SUFFIX`, `SUFFIX.1` ... `SUFFIX.99` are tried in turn, and one that already
    /// holds this original (what a run killed before its rename leaves) is reused.
    /// - Parameters:
    ///   - expected: the file that was read; the backup is refused if `path` is no longer it.
    ///   - bytes: the file's content, for the copy and for recognising an existing backup.
    ///   - backupGuard: where the iPhone-backup rule's answers are kept (a batch's one guard).
    /// - Returns: the backup's path, and whether it was there already.
    /// - Throws: ``FileError``; no backup exists then (unless one was reused). Inside an iPhone
    ///   backup: ``FileError/Reason/insideBackup(folder:)``, before anything is made.
    package static func keepBackup(of path: String, expected: FileStatus, suffix: String, bytes: [UInt8],
                                   backupGuard: BackupFolderGuard = BackupFolderGuard()) throws(FileError) -> Backup {
        try backupGuard.refuse(path, .backup)
        let source = realPath(path) ?? path
        for n in 0..<100 {
            let candidate = n == 0 ? path + suffix : "\(path)\(suffix).\(n)"
            if link(PathBytes.cString(source), PathBytes.cString(candidate)) == 0 {
                if case let .success(made) = FileStatus.of(candidate, followLinks: false), made.identity == expected.identity {
                    return Backup(path: candidate, reused: false)
                }
                unlink(PathBytes.cString(candidate))  // just linked by this call: the file changed in between
                throw FileError(.backup, path, .changedSinceRead)
            }
            let failure = SystemError.current
            switch failure.errno {
            case EEXIST:
                if holdsOriginal(candidate, expected: expected, bytes: bytes) { return Backup(path: candidate, reused: true) }
                continue
            case EXDEV, EPERM, EMLINK, ENOTSUP, EOPNOTSUPP, ENOSYS:
                var options = WriteOptions(newFilePermissions: expected.permissions, newFileOwner: (expected.owner, expected.group),
                                           syncDirectory: false, mayReplace: false, backupGuard: backupGuard)
                options.attributesFrom = (source, expected)
                do {
                    try write(bytes, to: candidate, options: options)
                    return Backup(path: candidate, reused: false)
                } catch where error.reason == .appeared || error.reason == .system(SystemError(errno: EEXIST)) {
                    if holdsOriginal(candidate, expected: expected, bytes: bytes) { return Backup(path: candidate, reused: true) }
                    continue
                } catch {
                    throw FileError(.backup, path, error.reason)
                }
            default: throw FileError(.backup, path, .system(failure))
            }
        }
        throw FileError(.backup, path, .noFreeBackupName)
    }

    /// Whether the existing `candidate` already is a backup of the file read (`expected`, with
    /// `bytes`): the same inode, unchanged, or a regular file (not a link) with exactly `bytes`.
    static func holdsOriginal(_ candidate: String, expected: FileStatus, bytes: [UInt8]) -> Bool {
        guard case let .success(existing) = FileStatus.of(candidate, followLinks: false), existing.kind == .regular else { return false }
        if existing.identity == expected.identity { return true }
        guard existing.identity.size == Int64(bytes.count) else { return false }
        guard case let .success((fd, opened)) = FileStatus.open(candidate, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC) else {
            return false
        }
        defer { close(fd) }
        // untested: a race, the name replaced between the lstat and the open
        guard opened.kind == .regular, opened.identity.sameFile(as: existing.identity) else { return false }
        guard let content = try? readAll(fd, limit: bytes.count) else { return false }
        return content == bytes
    }
}
