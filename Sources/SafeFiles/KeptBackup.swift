package import FileErrors
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// The copy of a file kept before it is replaced (`migrate --in-place`'s `FILE.bak`): a hard link, or a copy.
extension SafeFile {
    /// A backup kept by ``keepBackup(of:expected:suffix:bytes:backupGuard:hooks:)``.
    package struct Backup: Sendable, Equatable {
        /// The backup's path.
        package let path: String
        /// True when the backup was there already: the very file that was read (a hard link to
        /// it) or a file with its exact bytes, left by an earlier run that stopped before the
        /// file was replaced. Nothing was written then.
        package let reused: Bool
        /// The folder it was made in (nil: reused), which ``discardBackup(_:expected:)`` removes it from.
        let folder: FileIdentity.Inode?

        package init(path: String, reused: Bool) { (self.path, self.reused, folder) = (path, reused, nil) }

        /// Equal when the path and `reused` are (where it was made is the discard's to check).
        package static func == (a: Backup, b: Backup) -> Bool { a.path == b.path && a.reused == b.reused }

        init(path: String, madeIn folder: HeldFolder) { (self.path, reused, self.folder) = (path, false, FileIdentity.Inode(folder.status.identity)) }
    }

    /// Removes a backup ``keepBackup(of:expected:suffix:bytes:backupGuard:hooks:)`` made in this run when the
    /// replace it guarded failed (the file is then as it was, and a backup of it is clutter):
    /// only a new one, and only while its name still holds the very file it linked.
    /// It is removed from the folder it was made in (reached by its path again, and only when
    /// that is still the folder), never from one a link of the path now leads to.
    package static func discardBackup(_ backup: Backup, expected: FileStatus) {
        guard !backup.reused, case let .success(folder) = HeldFolder.open(directory(of: backup.path)),
              backup.folder == FileIdentity.Inode(folder.status.identity) else { return }
        let name = folder.at(baseName(backup.path))
        guard case let .success(now) = FileStatus.of(name, in: folder.fd, followLinks: false), now.identity == expected.identity else { return }
        unlinkat(folder.fd, PathBytes.cString(name), 0)
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
                                   backupGuard: BackupFolderGuard = BackupFolderGuard(), hooks: WriteHooks = WriteHooks()) throws(FileError) -> Backup {
        // The folder held and asked about as held: the link goes there, wherever a link of
        // the path leads meanwhile (a folder swapped for a link to a backup).
        let output = Output(path)
        try backupGuard.refuse(output, .backup)
        let folder: HeldFolder
        do { folder = try output.folder.get() } catch { throw FileError(.backup, path, .system(error)) }
        // The file looked at (a link's target), linked from its folder as held.
        var (from, source) = (folder, path)
        if case let .success(reached?) = output.reached, case let .success(held) = reached.folder { (from, source) = (held, reached.target) }
        hooks.afterLook?(path)
        for n in 0..<100 {
            let candidate = n == 0 ? path + suffix : "\(path)\(suffix).\(n)"
            let name = folder.at(baseName(candidate))
            if linkat(from.fd, PathBytes.cString(from.at(baseName(source))), folder.fd, PathBytes.cString(name), 0) == 0 {
                if case let .success(made) = FileStatus.of(name, in: folder.fd, followLinks: false), made.identity == expected.identity {
                    return Backup(path: candidate, madeIn: folder)
                }
                unlinkat(folder.fd, PathBytes.cString(name), 0)  // just linked by this call: the file changed in between
                throw FileError(.backup, path, .changedSinceRead)
            }
            let failure = SystemError.current
            switch failure.errno {
            case EEXIST:
                if holdsOriginal(name, in: folder, expected: expected, bytes: bytes) { return Backup(path: candidate, reused: true) }
                continue
            case EXDEV, EPERM, EMLINK, ENOTSUP, EOPNOTSUPP, ENOSYS:
                var options = WriteOptions(newFilePermissions: expected.permissions, newFileOwner: (expected.owner, expected.group),
                                           syncDirectory: false, mayReplace: false, backupGuard: backupGuard)
                options.attributesFrom = (source, expected)
                do {
                    try write(bytes, to: candidate, options: options)
                    return Backup(path: candidate, madeIn: folder)
                } catch where error.reason == .appeared || error.reason == .system(SystemError(errno: EEXIST)) {
                    if holdsOriginal(name, in: folder, expected: expected, bytes: bytes) { return Backup(path: candidate, reused: true) }
                    continue
                } catch {
                    throw FileError(.backup, path, error.reason)
                }
            default: throw FileError(.backup, path, .system(failure))
            }
        }
        throw FileError(.backup, path, .noFreeBackupName)
    }

    /// Whether the existing `candidate` (a name in `folder`, as ``HeldFolder/at(_:)`` gives it) already is a backup of the file read (`expected`, with
    /// `bytes`): the same inode, unchanged, or a regular file (not a link) with exactly `bytes`.
    static func holdsOriginal(_ candidate: String, in folder: HeldFolder, expected: FileStatus, bytes: [UInt8]) -> Bool {
        guard case let .success(existing) = FileStatus.of(candidate, in: folder.fd, followLinks: false), existing.kind == .regular else { return false }
        if existing.identity == expected.identity { return true }
        guard existing.identity.size == Int64(bytes.count) else { return false }
        guard case let .success((fd, opened)) = FileStatus.open(candidate, in: folder.fd, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC) else {
            return false
        }
        defer { close(fd) }
        // untested: a race, the name replaced between the lstat and the open
        guard opened.kind == .regular, opened.identity.sameFile(as: existing.identity) else { return false }
        guard let content = try? readAll(fd, limit: bytes.count) else { return false }
        return content == bytes
    }
}
