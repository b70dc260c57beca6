package import FileErrors
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one way ycft writes a file. Its policy, decided once:
///
/// | the path names | what happens |
/// |---|---|
/// | nothing | a new file: written in full, flushed, then linked into place; if a file appeared there meanwhile, nothing is replaced (``FileError/Reason/appeared``) |
/// | a regular file | replaced atomically: a temporary file in the same directory (on Linux an unnamed `O_TMPFILE`), flushed, swapped with it (`RENAME_EXCHANGE` on Linux, `rename` where that is unsupported) and the old file's name removed; its permission bits, owner and group are kept (owner and group where the process may set them), and on Linux its extended attributes and POSIX ACLs (those the process may set; the others are named in the outcome, ``WriteOutcome/attributesNotKept``) |
/// | a read-only regular file (no write bit, or `access(2)` says no) | refused unless ``WriteOptions/replaceReadOnly`` |
/// | no file, a pipe, a device or a stream where the file read (``WriteOptions/expected``) was | refused, nothing created or opened |
/// | a regular file that is not the one that was read (``WriteOptions/expected``) | refused: another program changed it, also when it put its version in place in the instant before the swap (on Linux the new file is swapped in with `RENAME_EXCHANGE` and swapped back if what came out is not the file read; see `Temporary/replace(expected:exchange:)` for the fallback's limit) |
/// | a symbolic link | the file it points to is written by these rules; the link stays a link. A link to nothing is refused |
/// | a named pipe or character device (`/dev/null`, a terminal) | written to as a stream, never replaced |
/// | this process's standard output or error by a descriptor name (`/dev/stdout`, `/dev/fd/2`, `/proc/self/fd/1`, a link to one) | written to that descriptor (refused for secret bytes, ``WriteOptions/confidential``) |
/// | any other descriptor name (`/dev/stdin`, `/dev/fd/0`, `/dev/fd/3`, `/proc/self/fd/0`, a link to one) | refused (``FileError/Reason/descriptorName``): the file behind it is never replaced |
/// | a directory, socket or block device | refused |
/// | anything inside an iPhone backup folder (``BackupFolderGuard``), also through a link | refused (``FileError/Reason/insideBackup(folder:)``), nothing created or opened; so is a backup of a file there |
///
/// Changing a file in place starts with ``read(_:limit:lock:)`` with `lock`, which accepts only a
/// regular file (or a link to one) named by its own path: a pipe, device, socket or descriptor
/// name (`/dev/stdin`, `/dev/fd/N`) is refused before it is opened. A replacement cannot keep
/// the original's inode number nor its other hard links (they keep the old content).
///
/// Setuid, setgid and sticky bits are never given to a file ycft writes. On any failure the
/// target is untouched and ycft's temporary file is gone; a process killed mid-write leaves at
/// most a `.NAME.ycft-XXXXXXXXXXXX` file (between `link` and the swap, or on file systems without
/// `O_TMPFILE`; just after the swap, that name holds the old version), which ycft never deletes
/// later: it deletes nothing it did not create in the same call but the file it replaced.
///
/// ```swift
/// let input = try SafeFile.read("prefs.plist", limit: 1 << 20, lock: true)
/// var options = SafeFile.WriteOptions()
/// options.expected = input.status?.identity      // refuse if an app rewrote it meanwhile
/// try SafeFile.write(newBytes, to: "prefs.plist", options: options)
/// ```
package enum SafeFile {
    /// How ``write(_:to:options:beforeSwap:)`` may treat the target.
    package struct WriteOptions: Sendable {
        /// Replace the target only while it is still this file, unchanged (from ``InputFile``).
        package var expected: FileIdentity?
        /// Replace a read-only file too.
        package var replaceReadOnly: Bool
        /// Permission bits for a new file (only `0o777` is used); nil: `0o666` less the umask.
        package var newFilePermissions: UInt32?
        /// Owner and group for a new file, where the process may set them; nil: the process's.
        package var newFileOwner: (owner: UInt32, group: UInt32)?
        /// Flush the directory after the rename (a batch may flush each directory once at the end
        /// with ``syncDirectory(_:)``; the rename is atomic either way).
        package var syncDirectory: Bool
        /// False: only create a new file, never replace one (``FileError/Reason/appeared``).
        package var mayReplace: Bool
        /// The bytes are secret (a decrypted backup's file): they go only to a new file made
        /// `0600`, or over a regular file that the process's effective user owns and no one else
        /// may read or write (its mode is kept), in either case without an ACL. Refused, where
        /// the decision is made so that nothing swapped in meanwhile receives them: a named pipe,
        /// a device, or a regular file whose mode lets its group or others in
        /// (``FileError/Reason/notPrivate(_:permissions:)``); a file another user owns
        /// (``FileError/Reason/notOwned(owner:user:)``); and any descriptor name, standard output
        /// and error included (``FileError/Reason/descriptorNotPrivate``; see
        /// ``standardStream(forOutput:confidential:)``). Standard output is the caller's to offer
        /// by its own name (`-`).
        package var confidential: Bool
        /// A new file takes the extended attributes and ACLs of this regular file (a resolved
        /// path and its status): a backup made as a copy keeps what a hard link would.
        var attributesFrom: (path: String, status: FileStatus)?
        /// Where the answers of the iPhone-backup rule are kept (the rule itself is not an
        /// option: every write refuses a path inside a backup). A new guard for each write by
        /// default; a batch gives all its writes one, so each folder is asked about once.
        package var backupGuard: BackupFolderGuard


        /// The defaults: replace a writable regular file or create a new one, flush the directory.
        package init(expected: FileIdentity? = nil, replaceReadOnly: Bool = false, newFilePermissions: UInt32? = nil,
                    newFileOwner: (owner: UInt32, group: UInt32)? = nil, syncDirectory: Bool = true, mayReplace: Bool = true,
                    confidential: Bool = false, backupGuard: BackupFolderGuard = BackupFolderGuard()) {
            self.expected = expected
            self.backupGuard = backupGuard
            self.confidential = confidential
            self.replaceReadOnly = replaceReadOnly
            self.newFilePermissions = newFilePermissions
            self.newFileOwner = newFileOwner
            self.syncDirectory = syncDirectory
            self.mayReplace = mayReplace
        }
    }

    /// What ``write(_:to:options:beforeSwap:)`` did, and to which path (a followed link's target).
    package enum WriteOutcome: Sendable, Equatable {
        /// An existing regular file was replaced; `notKept` names the extended attributes (ACLs
        /// included) of the original that the replacement could not be given; `otherNames`, how
        /// many other names (hard links) the original had when it was swapped out, which keep
        /// the old content.
        case replaced(String, notKept: [AttributeNotKept] = [], otherNames: Int = 0)
        /// A new file was created.
        case created(String)
        /// The bytes were written to a pipe, device or descriptor.
        case streamed(String)

        /// The path written.
        package var path: String {
            switch self {
            case let .replaced(p, _, _), let .created(p), let .streamed(p): return p
            }
        }

        /// The original's extended attributes that the replacement could not keep (empty when
        /// all were kept, or nothing was replaced).
        package var attributesNotKept: [AttributeNotKept] {
            if case let .replaced(_, notKept, _) = self { return notKept }
            return []
        }

        /// How many other names the replaced file had (0 when nothing was replaced).
        package var otherNames: Int {
            if case let .replaced(_, _, others) = self { return others }
            return 0
        }
    }

    /// Writes `bytes` to `path` by the policy above. `beforeSwap`, when given, is called with the
    /// target's path between the last look at the target and the swap: for tests that race a
    /// real process there (the tool's debug-only test hooks).
    /// - Returns: what was done, and where.
    /// - Throws: ``FileError`` naming the path; the target is then untouched.
    @discardableResult
    package static func write(_ bytes: [UInt8], to path: String, options: WriteOptions = .init(),
                             beforeSwap: ((String) -> Void)? = nil) throws(FileError) -> WriteOutcome {
        try write(bytes, to: path, options: options, hooks: CommitHooks(beforeSwap: beforeSwap))
    }

    /// ``write(_:to:options:beforeSwap:)`` with test seams (``CommitHooks``).
    static func write(_ bytes: [UInt8], to path: String, options: WriteOptions, hooks: CommitHooks) throws(FileError) -> WriteOutcome {
        switch try stage(bytes, to: path, options: options) {
        case let .done(outcome): return outcome
        case let .pending(write): return try write.finish(flushed: false, hooks: hooks)
        }
    }

    /// Seams for tests that must act at the one moment a race needs: after the writer's last
    /// look at the target and before it swaps the new file in.
    struct CommitHooks {
        var beforeSwap: ((String) -> Void)?
        /// False: behave as on a file system without `RENAME_EXCHANGE` (plain `rename`).
        var exchange = true
    }

    /// A backup kept by ``keepBackup(of:expected:suffix:bytes:)``.
    package struct Backup: Sendable, Equatable {
        /// The backup's path.
        package let path: String
        /// True when the backup was there already: the very file that was read (a hard link to
        /// it) or a file with its exact bytes, left by an earlier run that stopped before the
        /// file was replaced. Nothing was written then.
        package let reused: Bool

        package init(path: String, reused: Bool) {
            self.path = path
            self.reused = reused
        }
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
        let fd = open(PathBytes.cString(candidate), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        guard case let .success(opened) = FileStatus.of(descriptor: fd), opened.kind == .regular,
              opened.identity.sameFile(as: existing.identity) else { return false }
        guard let content = try? readAll(fd, limit: bytes.count) else { return false }
        return content == bytes
    }

    /// `flock(LOCK_EX | LOCK_NB)`, tried twenty times a few milliseconds apart (a tenth of a
    /// second in all) while it is held: a lock is also held, for an instant, by a child another
    /// thread of this process is starting (its copy of a descriptor lives until its `exec`,
    /// close-on-exec or not), and by another ycft finishing a write. False with `errno` set
    /// when it stays held (or cannot be taken).
    static func lockBriefly(_ fd: Int32) -> Bool {
        for attempt in 0..<20 {
            if flock(fd, LOCK_EX | LOCK_NB) == 0 { return true }
            guard errno == EWOULDBLOCK, attempt < 19 else { return false }
            usleep(5_000)
        // unreachable: the loop returns at its 20th attempt (attempt < 19 fails)
        }
        return false
    }

    /// Reads a file (at most `limit + 1` bytes, so the caller can tell that it is larger),
    /// with its status.
    ///
    /// With `lock`, the file is read to be changed in place (only a regular file, see
    /// `openForChange(_:)`) under an exclusive `flock`, held until ``InputFile/release()`` or
    /// the value's end: two ycft processes never work on one file at once. With `regularOnly`,
    /// only a regular file is read, and anything else is refused by its kind before it is
    /// opened (`openRegular(_:refusing:)`: a named pipe is never waited on, a device never
    /// read). Without either, pipes, devices and `/dev/stdin` are read as streams.
    /// - Throws: ``FileError`` (``FileError/Reason/locked`` when another process holds the lock;
    ///   with `lock`, ``FileError/Reason/notRegularFile(_:)`` and
    ///   ``FileError/Reason/descriptorName`` for what is not changed in place; with
    ///   `regularOnly`, ``FileError/Reason/unsupportedKind(_:)`` or
    ///   ``FileError/Reason/isDirectory`` for what is not a regular file).
    package static func read(_ path: String, limit: Int, lock: Bool = false, regularOnly: Bool = false) throws(FileError) -> InputFile {
        let fd: Int32
        let before: FileStatus
        if lock {
            (fd, before) = try openForChange(path)
        } else if regularOnly {
            (fd, before) = try openRegular(path) { FileError(.read, path, .unsupportedKind($0)) }
        } else {
            fd = open(PathBytes.cString(path), O_RDONLY | O_CLOEXEC | O_NOCTTY)
            guard fd >= 0 else { throw FileError(.read, path, .system(.current)) }
            do { before = try FileStatus.of(descriptor: fd).get() } catch {
                close(fd)
                throw FileError(.read, path, .system(error))
            }
        }
        let handle = FileLock(fd)
        if before.kind == .directory { throw FileError(.read, path, .isDirectory) }
        if lock && !lockBriefly(fd) {
            let failure = SystemError.current
            // Only a held lock is an answer; a file system without locks is read unlocked.
            if failure.errno == EWOULDBLOCK { throw FileError(.read, path, .locked) }
        }
        let bytes: [UInt8]
        let size = before.kind == .regular ? Int(clamping: before.identity.size) : 0
        do { bytes = try readAll(fd, limit: limit, expectedSize: size) } catch { throw FileError(.read, path, .system(error)) }
        guard before.kind == .regular else { return InputFile(path: path, bytes: bytes, status: nil, lock: nil) }
        guard case let .success(after) = FileStatus.of(descriptor: fd), after.identity == before.identity else {
            throw FileError(.read, path, .changedWhileReading)
        }
        return InputFile(path: path, bytes: bytes, status: before, lock: lock ? handle : nil)
    }

    /// Opens a file that is to be changed in place, for reading, refusing what is not a regular
    /// file (a descriptor name, then whatever `stat(2)` does not call regular) before opening
    /// it, as ``openRegular(_:refusing:)`` opens it. Links are followed, as the writer follows them.
    /// - Returns: the open descriptor (the caller closes it) and its status.
    /// - Throws: ``FileError`` with operation ``FileError/Operation/inPlace`` and reason
    ///   ``FileError/Reason/descriptorName`` or ``FileError/Reason/notRegularFile(_:)``;
    ///   ``FileError/Reason/isDirectory`` for a directory; the system error of `stat` or `open`.
    static func openForChange(_ path: String) throws(FileError) -> (Int32, FileStatus) {
        if namesDescriptor(path) { throw FileError(.inPlace, path, .descriptorName) }
        return try openRegular(path) { FileError(.inPlace, path, .notRegularFile($0)) }
    }

    /// Opens a regular file for reading, refusing anything else before opening it: a directory
    /// (``FileError/Reason/isDirectory``), else `refusal` of the kind `stat(2)` gives. The open
    /// is non-blocking and `fstat(2)` checks it got the file `stat` saw, so a pipe put in its
    /// place meanwhile is refused, not waited on. Links are followed.
    /// - Returns: the open descriptor (the caller closes it) and its status.
    /// - Throws: ``FileError``: `refusal`'s, ``FileError/Reason/isDirectory``, the system error of
    ///   `stat` or `open`, or ``FileError/Reason/changedWhileReading``.
    static func openRegular(_ path: String, refusing refusal: (FileKind) -> FileError) throws(FileError) -> (Int32, FileStatus) {
        let seen: FileStatus
        do { seen = try FileStatus.of(path).get() } catch { throw FileError(.read, path, .system(error)) }
        if seen.kind == .directory { throw FileError(.read, path, .isDirectory) }
        guard seen.kind == .regular else { throw refusal(seen.kind) }
        let fd = open(PathBytes.cString(path), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
        guard fd >= 0 else { throw FileError(.read, path, .system(.current)) }
        let opened: FileStatus
        do { opened = try FileStatus.of(descriptor: fd).get() } catch {
            close(fd)
            throw FileError(.read, path, .system(error))
        }
        // untested: a race, the name replaced by a file of another kind between the stat and the open
        guard opened.kind == .regular else {
            close(fd)
            throw refusal(opened.kind)
        }
        // untested: a race, the name replaced by another regular file between the stat and the open
        guard opened.identity.sameFile(as: seen.identity) else {
            close(fd)
            throw FileError(.read, path, .changedWhileReading)
        }
        // Reads of a regular file never wait; the flag is cleared all the same.
        let flags = fcntl(fd, F_GETFL)
        if flags >= 0 { _ = fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) }
        return (fd, opened)
    }

    /// Whether `path` reaches a file through an open descriptor of this process rather than by
    /// the file's own name: `/dev/stdin`, `/dev/stdout`, `/dev/stderr`, `/dev/fd/N`,
    /// `/proc/self/fd/N` (any `/proc/PID/fd` or `/proc/PID/task/TID/fd` directory), or a symbolic
    /// link (chain) to one of those. Such a name means whatever the descriptor is at the moment
    /// (`ycft set /dev/stdin < prefs.plist` would rewrite prefs.plist), so it is never changed
    /// in place. Decided from names and links alone: nothing is opened.
    package static func namesDescriptor(_ path: String) -> Bool {
        var current = path
        for _ in 0..<40 {
            if descriptorName(lexicallyNormalized(current)) { return true }
            // The directory it is in, resolved: /dev/fd and /proc/self/fd are /proc/PID/fd.
            if let parent = realPath(directory(of: current)), isDescriptorDirectory(parent) { return true }
            guard case let .success(status) = FileStatus.of(current, followLinks: false), status.kind == .symbolicLink,
                  let text = linkText(current) else { return false }
            current = text.hasPrefix("/") ? text : directory(of: current) + "/" + text
        }
        return false  // a loop of links: opening it fails (ELOOP)
    }

    /// Where an output path that names an open descriptor (``namesDescriptor(_:)``) may be
    /// written: the one place that decides it for every command that writes. This process's
    /// standard output and error (by any such name, or a link to one) are written as streams;
    /// any other descriptor name is refused, because the file behind it would be replaced
    /// (`ycft pack -o /dev/stdin r.json < v.plist` would replace v.plist). Nothing is opened.
    ///
    /// Secret bytes (`confidential`, ``WriteOptions/confidential``) go to no descriptor name at
    /// all. `/dev/stderr` is a link to `/proc/self/fd/2`, which the kernel resolves to whatever
    /// the descriptor is open on: a terminal (`/dev/pts/3`) others may be watching, a pipe
    /// (`pipe:[N]`) into a logger, or a log file another user reads; this process did not open
    /// it and cannot tell who reads it. So `/dev/stderr`, `/dev/fd/N`, `/proc/self/fd/N` and a
    /// link to one are refused for them, standard output's names too: a caller that offers
    /// standard output for secret bytes does so by its own name (`-`), not through this.
    /// - Returns: 1 or 2 for standard output or standard error; nil when `path` names no descriptor.
    /// - Throws: ``FileError`` with operation ``FileError/Operation/write`` and reason
    ///   ``FileError/Reason/descriptorNotPrivate`` for any descriptor name when `confidential`,
    ///   else ``FileError/Reason/descriptorName`` for any but standard output and error.
    package static func standardStream(forOutput path: String, confidential: Bool = false) throws(FileError) -> Int32? {
        guard namesDescriptor(path) else { return nil }
        if confidential { throw FileError(.write, path, .descriptorNotPrivate) }
        if let fd = ownDescriptorNumber(path), fd == 1 || fd == 2 { return fd }
        throw FileError(.write, path, .descriptorName)
    }

    /// Whether `path` (a link followed) is a terminal device (`/dev/tty`, `/dev/pts/3`,
    /// `/dev/console`): a character device that `isatty(3)` calls a terminal. Only a character
    /// device is opened to ask its driver, write-only with `O_NOCTTY` (it never becomes the
    /// controlling terminal) and `O_NONBLOCK` (the open never waits), and closed at once. A
    /// descriptor name is not asked here (``standardStream(forOutput:confidential:)`` says
    /// which stream it is); false when the device cannot be opened.
    package static func isTerminalDevice(_ path: String) -> Bool {
        guard !namesDescriptor(path), case let .success(status) = FileStatus.of(path), status.kind == .characterDevice else { return false }
        let fd = open(PathBytes.cString(path), O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return isatty(fd) != 0
    }

    /// The descriptor of this process that `path` (or the link chain it starts) names, or nil
    /// when it names none or another process's.
    static func ownDescriptorNumber(_ path: String) -> Int32? {
        var current = path
        for _ in 0..<40 {
            switch lexicallyNormalized(current) {
            case "/dev/stdin": return 0
            case "/dev/stdout": return 1
            case "/dev/stderr": return 2
            case let name where name.hasPrefix("/dev/fd/"): return descriptorNumber(String(name.dropFirst("/dev/fd/".count)))
            default: break
            }
            if let parent = realPath(directory(of: current)), isDescriptorDirectory(parent) {
                let parts = parent.split(separator: "/", omittingEmptySubsequences: true)
                guard parts[1] == "self" || parts[1] == "thread-self" || Int32(parts[1]) == getpid() else { return nil }
                return descriptorNumber(baseName(current))
            }
            guard case let .success(status) = FileStatus.of(current, followLinks: false), status.kind == .symbolicLink,
                  // untested: a race, the link removed or replaced between the lstat and the readlink
                  let text = linkText(current) else { return nil }
            current = text.hasPrefix("/") ? text : directory(of: current) + "/" + text
        }
        return nil
    }

    private static func descriptorNumber(_ text: String) -> Int32? {
        guard let n = Int32(text), n >= 0, !text.hasPrefix("+") else { return nil }
        return n
    }

    private static func descriptorName(_ path: String) -> Bool {
        ["/dev/stdin", "/dev/stdout", "/dev/stderr"].contains(path) || path.hasPrefix("/dev/fd/") || isDescriptorDirectory(directory(of: path))
    }

    /// `/proc/self/fd`, `/proc/thread-self/fd`, `/proc/PID/fd`, `/proc/PID/task/TID/fd`.
    private static func isDescriptorDirectory(_ directory: String) -> Bool {
        let parts = directory.split(separator: "/", omittingEmptySubsequences: true)
        guard parts.first == "proc", parts.last == "fd" else { return false }
        return parts.count == 3 || (parts.count == 5 && parts[2] == "task")
    }

    /// `a//b/./c` as `a/b/c` (`..` kept: it depends on links).
    private static func lexicallyNormalized(_ path: String) -> String {
        let parts = path.split(separator: "/", omittingEmptySubsequences: true).filter { $0 != "." }
        return (path.hasPrefix("/") ? "/" : "") + parts.joined(separator: "/")
    }

    /// Flushes a directory's entries (renames) to disk.
    package static func syncDirectory(_ directory: String) {
        let fd = open(PathBytes.cString(directory), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd >= 0 {
            _ = fsync(fd)
            close(fd)
        }
    }

    /// The directory part of a path (`.` when there is none).
    package static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// The descriptor that `/dev/stdin`, `/dev/stdout`, `/dev/stderr`, `/dev/fd/N` or
    /// `/proc/self/fd/N` names, by the name alone (links are not followed: see
    /// ``standardStream(forOutput:)`` for what may be written).
    package static func descriptorPath(_ path: String) -> Int32? {
        switch path {
        case "/dev/stdin": return 0
        case "/dev/stdout": return 1
        case "/dev/stderr": return 2
        default:
            for prefix in ["/dev/fd/", "/proc/self/fd/"] where path.hasPrefix(prefix) {
                return Int32(path.dropFirst(prefix.count)).flatMap { $0 >= 0 ? $0 : nil }
            }
            return nil
        }
    }

    // MARK: - Replacing and creating

    /// Whether the regular file at `target` (with `status`, as read) may be replaced with
    /// `options`: the rules ``write(_:to:options:beforeSwap:)`` applies, for a caller that must know
    /// before it does work the user would lose (`ycft edit` asks before opening the editor).
    /// - Throws: ``FileError``: ``FileError/Reason/insideBackup(folder:)`` inside an iPhone
    ///   backup; ``FileError/Reason/readOnly(permissions:)`` when it is read-only, or `access(2)`
    ///   refuses, and `options.replaceReadOnly` is false.
    package static func checkReplaceable(_ target: String, status: FileStatus, options: WriteOptions) throws(FileError) {
        try options.backupGuard.refuse(target, .write)
        try checkWritePermission(target, status: status, options: options)
    }

    /// The rule for secret bytes (``WriteOptions/confidential``) on an existing `target` the
    /// writer would write through (`status`, not followed): a regular file must be this user's
    /// and let no one else in (the replacement keeps its owner and mode); a pipe or a device is
    /// refused (anyone who may open it would receive them).
    /// - Throws: ``FileError/Reason/notOwned(owner:user:)``, ``FileError/Reason/notPrivate(_:permissions:)``.
    private static func checkPrivate(_ target: String, status: FileStatus) throws(FileError) {
        switch status.kind {
        case .regular:
            // Root gives the replacement back to the file's owner, who would read the secret.
            let user = UInt32(geteuid())
            if status.owner != user { throw FileError(.write, target, .notOwned(owner: status.owner, user: user)) }
            if status.permissions & 0o077 != 0 { throw FileError(.write, target, .notPrivate(.regular, permissions: status.permissions)) }
        case .fifo, .characterDevice:
            throw FileError(.write, target, .notPrivate(status.kind, permissions: status.permissions))
        case .directory, .symbolicLink, .blockDevice, .socket, .other:
            break
        }
    }

    /// Whether secret bytes may be written to `path` (``WriteOptions/confidential``), asked
    /// before the work whose result they are, so that this refusal comes before any other a
    /// caller makes (`backup extract -o FILE` over a file others may read): a descriptor name
    /// (``standardStream(forOutput:confidential:)``), or an existing file, through a link as the
    /// writer follows it, that ``write(_:to:options:beforeSwap:)`` would refuse for them. A path
    /// that does not exist yet passes (the writer creates it 0600); the writer asks again.
    /// - Throws: ``FileError`` with the writer's reason.
    package static func checkPrivate(_ path: String) throws(FileError) {
        _ = try standardStream(forOutput: path, confidential: true)
        guard case let .success(status) = FileStatus.of(path) else { return }
        // untested: a race, `?? path` when the path seen a moment ago is removed before realpath
        try checkPrivate(realPath(path) ?? path, status: status)
    }

    /// The permission half of ``checkReplaceable(_:status:options:)`` (the writer has asked the
    /// backup rule already).
    private static func checkWritePermission(_ target: String, status: FileStatus, options: WriteOptions) throws(FileError) {
        if !options.replaceReadOnly && (status.isReadOnly || (access(PathBytes.cString(target), W_OK) != 0 && errno == EACCES)) {
            throw FileError(.write, target, .readOnly(permissions: status.permissions))
        }
    }

    fileprivate static func prepareReplace(_ bytes: [UInt8], at target: String, status: FileStatus,
                                           options: WriteOptions) throws(FileError) -> PendingWrite {
        if let expected = options.expected, expected != status.identity { throw FileError(.write, target, .changedSinceRead) }
        guard options.mayReplace else { throw FileError(.write, target, .appeared) }
        // The owner and mode the replacement keeps are these: checked on the same status.
        if options.confidential { try checkPrivate(target, status: status) }
        try checkWritePermission(target, status: status, options: options)
        let temporary = try Temporary(directory: directory(of: target), name: baseName(target), for: target)
        try temporary.setOwnerAndPermissions(owner: status.owner, group: status.group, permissions: status.permissions)
        // After the mode: an ACL sets the group bits from its mask, as they are on the original.
        // Secret bytes get no ACL (nor any other attribute that grants access) from the target:
        // the attributes are read by path, later than the status the privacy check read, so an
        // ACL set in between (`setfacl -m u:1002:r`) would be copied unchecked.
        let notKept = FileAttributes.copy(from: target, status: status, to: temporary.fd, grantingAccess: !options.confidential)
        if options.confidential { try temporary.dropAccessGrants() }
        try temporary.write(bytes)
        return PendingWrite(temporary: temporary, target: target, replacing: status, syncDirectory: options.syncDirectory,
                            notKept: notKept)
    }

    fileprivate static func prepareCreate(_ bytes: [UInt8], at target: String, options: WriteOptions) throws(FileError) -> PendingWrite {
        let temporary = try Temporary(directory: directory(of: target), name: baseName(target), for: target)
        if let owner = options.newFileOwner {
            try temporary.setOwnerAndPermissions(owner: owner.owner, group: owner.group,
                                                 permissions: options.confidential ? 0o600
                                                     : options.newFilePermissions ?? temporary.defaultPermissions)
        } else {
            // The temporary was made 0600 (nothing can read it while it fills): give the new
            // file its permissions, 0666 less the umask unless asked otherwise.
            try temporary.setPermissions(options.confidential ? 0o600 : options.newFilePermissions ?? temporary.defaultPermissions)
        }
        // A backup's copy: what it could not keep is on the original still, which is not replaced yet.
        if let original = options.attributesFrom {
            _ = FileAttributes.copy(from: original.path, status: original.status, to: temporary.fd, grantingAccess: !options.confidential)
        }
        // Secret bytes: not the ACL the directory's default ACL gave the new file either.
        if options.confidential { try temporary.dropAccessGrants() }
        try temporary.write(bytes)
        return PendingWrite(temporary: temporary, target: target, replacing: nil, syncDirectory: options.syncDirectory)
    }

    // MARK: - Group commit

    /// What ``stage(_:to:options:)`` did: written already (a stream), or waiting for
    /// ``commit(_:beforeSwap:)``.
    package enum Staged {
        /// Written (pipes, devices, descriptors are written at once).
        case done(WriteOutcome)
        /// A complete temporary file, not yet flushed or in place.
        case pending(PendingWrite)
    }

    /// Like ``write(_:to:options:beforeSwap:)``, but a regular file's new content is only written
    /// to its unnamed temporary: ``commit(_:beforeSwap:)`` then flushes a whole group at once (one
    /// `syncfs`) and puts each in place, with the same guarantees. Keep groups small: each holds
    /// a descriptor.
    /// - Throws: ``FileError`` for what ``write(_:to:options:beforeSwap:)`` refuses before writing.
    package static func stage(_ bytes: [UInt8], to path: String, options: WriteOptions = .init()) throws(FileError) -> Staged {
        // Standard output or error by any name are streams; any other descriptor name is refused.
        // A write that replaces the file it read (`expected`) writes nowhere else: not into a
        // stream, a pipe or a device put in its place, and not to a new file where it was removed.
        if let fd = try standardStream(forOutput: path, confidential: options.confidential) {
            if options.expected != nil { throw FileError(.write, path, .changedSinceRead) }
            do { try writeAll(fd, bytes) } catch { throw FileError(.write, path, .system(error)) }
            return .done(.streamed(path))
        }
        // Nothing inside an iPhone backup: not a new file, not a replacement, not a pipe there.
        try options.backupGuard.refuse(path, .write)
        var target = path
        var status: FileStatus
        switch FileStatus.of(path, followLinks: false) {
        case let .success(s): status = s
        case let .failure(error) where error.errno == ENOENT:
            if options.expected != nil { throw FileError(.write, path, .changedSinceRead) }
            return .pending(try prepareCreate(bytes, at: path, options: options))
        case let .failure(error): throw FileError(.write, path, .system(error))
        }
        if status.kind == .symbolicLink {
            guard let resolved = realPath(path) else {
                let failure = SystemError.current
                // untested: a race, `?? "?"` when the dangling link is removed between realpath and readlink
                if failure.errno == ENOENT { throw FileError(.write, path, .danglingLink(target: linkText(path) ?? "?")) }
                throw FileError(.write, path, .system(failure))
            }
            target = resolved
            // untested: a race, the lstat fails only when the path realpath resolved is removed in between
            do { status = try FileStatus.of(target, followLinks: false).get() } catch { throw FileError(.write, target, .system(error)) }
        }
        switch status.kind {
        case .regular: return .pending(try prepareReplace(bytes, at: target, status: status, options: options))
        case .fifo, .characterDevice:
            if options.expected != nil { throw FileError(.write, target, .changedSinceRead) }
            // untested: a race, the output became a pipe or device after `checkPrivate(_:)` found none
            if options.confidential { try checkPrivate(target, status: status) }
            let fd = open(PathBytes.cString(target), O_WRONLY | O_NOCTTY | O_CLOEXEC)
            guard fd >= 0 else { throw FileError(.write, target, .system(.current)) }
            defer { close(fd) }
            do { try writeAll(fd, bytes) } catch { throw FileError(.write, target, .system(error)) }
            return .done(.streamed(target))
        case .directory: throw FileError(.write, target, .isDirectory)
        case .symbolicLink, .blockDevice, .socket, .other: throw FileError(.write, target, .unsupportedKind(status.kind))
        }
    }

    /// Flushes every staged file with one `syncfs` (an `fsync` each where there is none), then
    /// puts each in place (refusing one whose target changed), in order; `beforeSwap` as for
    /// ``write(_:to:options:beforeSwap:)``.
    /// - Returns: each write's outcome or error.
    package static func commit(_ pending: [PendingWrite], beforeSwap: ((String) -> Void)? = nil) -> [Result<WriteOutcome, FileError>] {
        commit(pending, flushFileSystem: flushAll, hooks: CommitHooks(beforeSwap: beforeSwap))
    }

    /// ``commit(_:beforeSwap:)`` with the file-system flush given: one call per file system the group's
    /// temporaries are on (a group can span several: `migrate --in-place` of files on two
    /// mounts), each answering whether that flush covered its files. A file whose file system was
    /// not flushed (or whose device cannot be read) is flushed on its own before its rename.
    static func commit(_ pending: [PendingWrite], flushFileSystem: (Int32) -> Bool,
                       hooks: CommitHooks = CommitHooks()) -> [Result<WriteOutcome, FileError>] {
        var flushedDevices: [UInt64: Bool] = [:]
        return pending.map { write in
            var flushed = false
            if let device = write.temporary.device {
                flushed = flushedDevices[device] ?? flushFileSystem(write.temporary.fd)
                flushedDevices[device] = flushed
            }
            do throws(FileError) { return .success(try write.finish(flushed: flushed, hooks: hooks)) } catch { return .failure(error) }
        }
    }

    /// `syncfs(2)` on the file system holding `fd`: every file's data reaches the disk at once.
    private static func flushAll(_ fd: Int32) -> Bool {
        #if os(Linux)
        return linuxSyncfs(fd) == 0
        #else
        return false
        #endif
    }

    static func baseName(_ path: String) -> String {
        path.split(separator: "/", omittingEmptySubsequences: true).last.map(String.init) ?? path
    }

    /// `realpath(3)` of `path` (every link resolved), nil when it does not resolve.
    package static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(PathBytes.cString(path), nil) else { return nil }
        defer { free(resolved) }
        return PathBytes.decode(cString: resolved)
    }

    package static func linkText(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink(PathBytes.cString(path), &buffer, buffer.count - 1)
        guard n >= 0 else { return nil }
        return PathBytes.decode(buffer[..<n].map { UInt8(bitPattern: $0) })
    }
}

/// A file's bytes and status as ``SafeFile/read(_:limit:lock:)`` found them, holding the file's
/// lock (when asked for) until ``release()`` or until the last copy is gone.
package struct InputFile: Sendable {
    package let path: String
    /// The bytes read (at most the limit plus one).
    package let bytes: [UInt8]
    /// The status of a regular file when it was read; nil for standard input, pipes and devices.
    package let status: FileStatus?
    let lock: FileLock?

    /// An input with no file behind it (standard input, a test's bytes).
    package init(path: String, bytes: [UInt8], status: FileStatus? = nil) {
        self.init(path: path, bytes: bytes, status: status, lock: nil)
    }

    init(path: String, bytes: [UInt8], status: FileStatus?, lock: FileLock?) {
        self.path = path
        self.bytes = bytes
        self.status = status
        self.lock = lock
    }

    /// Releases the file's lock now (it is released anyway when the last copy is gone).
    package func release() { lock?.release() }
}

/// A staged write (``SafeFile/stage(_:to:options:)``): its complete temporary file, waiting to
/// be flushed and put in place by ``SafeFile/commit(_:beforeSwap:)``. Dropped uncommitted, it leaves nothing
/// (its temporary discards itself).
package final class PendingWrite {
    fileprivate let temporary: Temporary
    /// The path it will be written to (a followed link's target).
    package let target: String
    private let replacing: FileStatus?
    private let syncsDirectory: Bool
    private let notKept: [AttributeNotKept]

    fileprivate init(temporary: Temporary, target: String, replacing: FileStatus?, syncDirectory: Bool,
                     notKept: [AttributeNotKept] = []) {
        self.temporary = temporary
        self.target = target
        self.replacing = replacing
        syncsDirectory = syncDirectory
        self.notKept = notKept
    }

    /// Flushes (unless the group was) and puts the file in place: a new file is linked where
    /// nothing is (never over anything); a replacement is swapped in by
    /// ``Temporary/replace(expected:exchange:)``, which refuses it, leaving the other program's
    /// file in place, when what it swapped out is not the file that was read.
    fileprivate func finish(flushed: Bool, hooks: SafeFile.CommitHooks) throws(FileError) -> SafeFile.WriteOutcome {
        defer { temporary.discard() }
        if !flushed { try temporary.flush() }
        guard let replacing else {
            try temporary.linkNew()
            if syncsDirectory { SafeFile.syncDirectory(SafeFile.directory(of: target)) }
            return .created(target)
        }
        // A cheap first look: most changed files are refused here, before anything is swapped.
        guard case let .success(now) = FileStatus.of(target, followLinks: false), now.identity == replacing.identity else {
            throw FileError(.write, target, .changedSinceRead)
        }
        hooks.beforeSwap?(target)
        try temporary.replace(expected: replacing.identity, exchange: hooks.exchange)
        if syncsDirectory { SafeFile.syncDirectory(SafeFile.directory(of: target)) }
        return .replaced(target, notKept: notKept, otherNames: max(0, now.links - 1))
    }
}

/// An open descriptor, closed (and so unlocked) once, whichever thread releases it.
///
/// `@unchecked Sendable` because the descriptor sits behind a pthread mutex rather than a
/// `Synchronization.Mutex`: the package's products build for iOS 15 (SafeFiles among them),
/// and `Mutex` needs iOS 18 / macOS 15.
final class FileLock: @unchecked Sendable {
    private var fd: Int32
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    init(_ fd: Int32) {
        self.fd = fd
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    func release() {
        pthread_mutex_lock(mutex)
        if fd >= 0 {
            close(fd)
            fd = -1
        }
        pthread_mutex_unlock(mutex)
    }

    deinit {
        release()
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }
}

/// A temporary file being filled, linked into place by `commit`, or removed by `discard`.
private final class Temporary {
    let fd: Int32
    let directory: String
    let stem: String
    let target: String
    /// The name it has (nil while an unnamed `O_TMPFILE`).
    private var name: String?
    private var committed = false
    private var discarded = false

    init(directory: String, name: String, for target: String) throws(FileError) {
        self.directory = directory
        self.target = target
        stem = "\(directory)/.\(Temporary.shortened(name)).ycft-"
        #if os(Linux)
        let unnamed = open(PathBytes.cString(directory), linuxTemporaryFileFlag | O_WRONLY | O_CLOEXEC, 0o600)
        if unnamed >= 0 {
            fd = unnamed
            return
        }
        let failure = SystemError.current
        // Only "this file system has no O_TMPFILE" falls back to a named file (ENOENT: no directory).
        guard [EOPNOTSUPP, EISDIR, EINVAL].contains(failure.errno) || failure.errno == ENOTSUP else {
            throw FileError(.write, target, .system(failure))
        }
        #endif
        var named: Int32 = -1
        self.name = try Temporary.freshName(stem, for: target) { candidate in
            named = open(PathBytes.cString(candidate), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
            return named >= 0
        }
        fd = named
    }

    /// `0o666` less the process's umask (the temporary file is opened with `0o600`, so nothing
    /// can read it before its final permissions are set; the umask is applied here by hand).
    var defaultPermissions: UInt32 { 0o666 & ~Temporary.umaskValue }

    func setPermissions(_ permissions: UInt32) throws(FileError) {
        guard fchmod(fd, mode_t(permissions & 0o777)) == 0 else { throw FileError(.write, target, .system(.current)) }
    }

    func setOwnerAndPermissions(owner: UInt32, group: UInt32, permissions: UInt32) throws(FileError) {
        if owner != geteuid() || group != getegid(), fchown(fd, uid_t(owner), gid_t(group)) != 0 {
            // Not permitted to give the file away: keep at least the group where we may.
            _ = fchown(fd, uid_t.max, gid_t(group))
        }
        try setPermissions(permissions)
    }

    func write(_ bytes: [UInt8]) throws(FileError) {
        do { try writeAll(fd, bytes) } catch { throw FileError(.write, target, .system(error)) }
    }

    /// Removes every attribute that grants access (``FileAttributes/grantsAccess(_:)``: an ACL
    /// inherited from the directory's default ACL) from the file, for secret bytes.
    func dropAccessGrants() throws(FileError) {
        do { try FileAttributes.removeAccessGrants(from: fd) } catch { throw FileError(.write, target, .system(error)) }
    }

    func flush() throws(FileError) {
        guard fsync(fd) == 0 else { throw FileError(.write, target, .system(.current)) }
    }

    /// The device (file system) the temporary is on, or nil when `fstat` fails.
    var device: UInt64? { (try? FileStatus.of(descriptor: fd).get())?.identity.device }

    /// Links a new file in where nothing is: `linkat(2)` (`link(2)` for a named temporary),
    /// which never replaces an existing name.
    /// - Throws: ``FileError/Reason/appeared`` when a file appeared at the target meanwhile.
    func linkNew() throws(FileError) {
        guard name.map({ link(PathBytes.cString($0), PathBytes.cString(target)) == 0 }) ?? linkAt(target) else {
            let failure = SystemError.current
            throw FileError(.write, target, failure.errno == EEXIST ? .appeared : .system(failure))
        }
        if let name { unlink(PathBytes.cString(name)) }
        name = nil
        committed = true
    }

    /// Gives an unnamed `O_TMPFILE` a name in the target's directory, `.NAME.ycft-XXXXXXXXXXXX`,
    /// by `linkat(2)`, which fails with `EEXIST` rather than replace anything (another random
    /// name is tried then). A named temporary keeps its name.
    private func giveName() throws(FileError) -> String {
        if let name { return name }
        let named = try Temporary.freshName(stem, for: target, linkAt)
        name = named
        return named
    }

    /// The first of up to 16 random names `STEM` + `XXXXXXXXXXXX` that `create` makes (it
    /// fails with `errno` set; `EEXIST`, a name taken, tries the next).
    private static func freshName(_ stem: String, for target: String, _ create: (String) -> Bool) throws(FileError) -> String {
        var failure = SystemError(errno: EEXIST)
        for _ in 0..<16 {
            let candidate = stem + randomSuffix()
            if create(candidate) { return candidate }
            failure = .current
            if failure.errno != EEXIST { break }
        }
        throw FileError(.write, target, .system(failure))
    }

    /// Replaces the target with this file, but only the very file that was read (`expected`).
    ///
    /// On Linux `renameat2(2)` with `RENAME_EXCHANGE` swaps the two atomically; the file swapped
    /// out is then looked at under the temporary's name: the file read (device, inode, size and
    /// modification time) loses its name; another program's is swapped back at once and the
    /// write fails with ``FileError/Reason/changedSinceRead`` (so does a target that is gone).
    /// Where the swap is unsupported (`EINVAL`, `ENOSYS`, `EOPNOTSUPP`: old kernels, some NFS or
    /// FUSE) the file is renamed over the target, and a file put in place after the last look is
    /// overwritten undetected.
    ///
    /// Limits even with the swap: a file put in place in the instant between swap and swap back
    /// stays under the temporary's name, kept; a file equal in inode, size and modification time
    /// to the one read is taken for it.
    /// - Parameters:
    ///   - expected: the identity of the file that was read.
    ///   - exchange: false forces the plain `rename` (for tests of the fallback).
    /// - Throws: ``FileError/Reason/changedSinceRead``, or the system error of a failed call.
    func replace(expected: FileIdentity, exchange: Bool) throws(FileError) {
        let name = try giveName()
        #if os(Linux)
        if exchange {
            if linuxRenameat2(AT_FDCWD, PathBytes.cString(name), AT_FDCWD, PathBytes.cString(target), linuxRenameExchange) == 0 {
                if case let .success(swappedOut) = FileStatus.of(name, followLinks: false), swappedOut.identity == expected {
                    // The very file that was read: it is replaced; its last name here goes.
                    unlink(PathBytes.cString(name))
                    self.name = nil
                    committed = true
                    return
                }
                // Another program's file: put it back. ycft's file (under `name` again) is
                // removed by discard(), which removes the name only while it is ycft's.
                _ = linuxRenameat2(AT_FDCWD, PathBytes.cString(name), AT_FDCWD, PathBytes.cString(target), linuxRenameExchange)
                throw FileError(.write, target, .changedSinceRead)
            }
            let failure = SystemError.current
            if failure.errno == ENOENT { throw FileError(.write, target, .changedSinceRead) }
            guard [EINVAL, ENOSYS, EOPNOTSUPP].contains(failure.errno) || failure.errno == ENOTSUP else {
                throw FileError(.write, target, .system(failure))
            }
        }
        #endif
        guard rename(PathBytes.cString(name), PathBytes.cString(target)) == 0 else { throw FileError(.write, target, .system(.current)) }
        self.name = nil
        committed = true
    }

    /// Dropped on an error path: nothing stays behind.
    deinit { discard() }

    /// Closes the descriptor and removes the named temporary file this object created (once).
    func discard() {
        guard !discarded else { return }
        discarded = true
        if !committed, let name, holdsThisFile(name) { unlink(PathBytes.cString(name)) }
        close(fd)
    }

    /// Whether `path` is this temporary (a swap gone wrong can leave another file under its name).
    private func holdsThisFile(_ path: String) -> Bool {
        guard case let .success(own) = FileStatus.of(descriptor: fd),
              // untested: a race, the temporary's name is gone only when another process removed it
              case let .success(named) = FileStatus.of(path, followLinks: false) else { return false }
        return named.identity.sameFile(as: own.identity)
    }

    private func linkAt(_ path: String) -> Bool {
        #if os(Linux)
        if linkat(AT_FDCWD, "/proc/self/fd/\(fd)", AT_FDCWD, PathBytes.cString(path), AT_SYMLINK_FOLLOW) == 0 { return true }
        let failure = SystemError.current
        if failure.errno == EEXIST { return false }
        // Without /proc: AT_EMPTY_PATH (needs CAP_DAC_READ_SEARCH).
        if linkat(fd, "", AT_FDCWD, PathBytes.cString(path), 0x1000 /* AT_EMPTY_PATH */) == 0 { return true }
        errno = failure.errno
        #endif
        return false
    }

    /// The name's first 64 bytes (whole characters), so `.NAME.ycft-XXXXXXXXXXXX` stays within
    /// NAME_MAX whatever the target's name.
    static func shortened(_ name: String) -> String {
        var out = ""
        var bytes = 0
        for character in name {
            bytes += character.utf8.count
            if bytes > 64 { break }
            out.append(character)
        }
        return out
    }

    static func randomSuffix() -> String {
        let hex = String(UInt64.random(in: 0..<(1 << 48)), radix: 16)
        return String(repeating: "0", count: 12 - hex.count) + hex
    }

    /// The process's umask: from `/proc/self/status` where Linux shows it (reading it with
    /// `umask(2)` means setting it, which races with threads creating files), else set back at once.
    static let umaskValue: UInt32 = {
        let fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC)
        if fd >= 0 {
            defer { close(fd) }
            if let status = try? readAll(fd, limit: 1 << 16),
               let line = String(decoding: status, as: UTF8.self).split(separator: "\n").first(where: { $0.hasPrefix("Umask:") }),
               let value = UInt32(String(line.dropFirst("Umask:".count).filter { $0 != " " && $0 != "\t" }), radix: 8) {
                return value
            // unreachable: Linux shows Umask in /proc/self/status since 4.7; the fallback is for older kernels and
            // other systems
            }
            // unreachable: (the fallback below) as above, and every Linux has /proc/self/status
        }
        let mask = umask(0o022)
        umask(mask)
        return UInt32(mask)
    }()
}

#if os(Linux)
/// `syncfs(2)` (Glibc declares it only under `_GNU_SOURCE`).
@_silgen_name("syncfs") private func linuxSyncfs(_ fd: Int32) -> Int32

/// `renameat2(2)` (Linux 3.15, Glibc 2.28; declared only under `_GNU_SOURCE`).
@_silgen_name("renameat2") private func linuxRenameat2(_ oldDirectory: Int32, _ old: UnsafePointer<CChar>, _ newDirectory: Int32,
                                                      _ new: UnsafePointer<CChar>, _ flags: UInt32) -> Int32

/// `RENAME_EXCHANGE`: swap the two names atomically (both must exist).
private let linuxRenameExchange: UInt32 = 1 << 1

/// `O_TMPFILE` (`__O_TMPFILE | O_DIRECTORY`; Glibc exports it only under `_GNU_SOURCE`). The value
/// of `__O_TMPFILE` is the generic one (x86, ARM, RISC-V, ...).
private let linuxTemporaryFileFlag: Int32 = 0o20000000 | O_DIRECTORY
#endif

/// Writes all of `bytes` to a descriptor, retrying short writes and `EINTR`.
/// - Throws: ``SystemError`` from `write(2)` (`EPIPE`, `ENOSPC`, `EBADF`, `EIO`...).
package func writeAll(_ fd: Int32, _ bytes: [UInt8]) throws(SystemError) {
    var offset = 0
    while offset < bytes.count {
        let n = bytes.withUnsafeBytes { raw in write(fd, raw.baseAddress.map { $0 + offset }, raw.count - offset) }
        if n < 0 {
            if errno == EINTR { continue }
            throw .current
        }
        offset += n
    }
}

/// Reads a descriptor to its end, or until `limit` bytes and one more were read, or (with
/// `untilLineFeed`) until a read brought a line feed: a first line is all there is to read from
/// a writer that may keep its end open (a password manager's pipe).
///
/// `expectedSize`, a regular file's size from `fstat(2)`, lets the bytes be read straight into
/// an array of that size and one byte more (to see the end, or that the file grew): no growing
/// copies, and the memory of the file once (an 18 MB file read in 64 KiB pieces went through
/// arrays of 1 to 32 MB, each copied and faulted in anew). A file that turns out longer
/// goes on being read in pieces; 0 (pipes, devices, files whose size says nothing, as in
/// `/proc`) reads in pieces from the start.
/// - Throws: ``SystemError`` from `read(2)`.
package func readAll(_ fd: Int32, limit: Int, untilLineFeed: Bool = false, expectedSize: Int = 0) throws(SystemError) -> [UInt8] {
    var out: [UInt8] = []
    if expectedSize > 0, !untilLineFeed, limit >= 0 {
        let capacity = min(expectedSize, limit, Int.max - 1) + 1
        var failure: SystemError?
        out = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
            count = 0
            // unreachable: the capacity is at least 1, so the buffer has an address
            guard let base = buffer.baseAddress else { return }
            while count < buffer.count {
                let n = read(fd, base + count, buffer.count - count)
                if n < 0 {
                    if errno == EINTR { continue }
                    failure = .current
                    return
                }
                if n == 0 { return }
                count += n
            }
        }
        if let failure { throw failure }
        // Short of the capacity: the end was reached. Full: more than the limit, or the file grew.
        if out.count < capacity || out.count > limit { return out }
    }
    let chunk = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 1 << 16)
    defer { chunk.deallocate() }
    while out.count <= limit {
        // Never more than one byte over the limit.
        let n = read(fd, chunk.baseAddress, min(chunk.count - 1, limit - out.count) + 1)
        if n < 0 {
            if errno == EINTR { continue }
            throw .current
        }
        if n == 0 { break }
        let piece = UnsafeBufferPointer(rebasing: chunk[..<n])
        out.append(contentsOf: piece)
        if untilLineFeed, piece.contains(0x0A) { break }
    }
    return out
}
