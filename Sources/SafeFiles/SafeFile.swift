package import FileErrors
#if canImport(Glibc)
import CLinuxCalls
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
    /// How ``write(_:to:options:hooks:)`` may treat the target.
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
        /// with ``syncDirectories(_:hooks:)``; the rename is atomic either way).
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
            (self.expected, self.backupGuard, self.confidential) = (expected, backupGuard, confidential)
            (self.replaceReadOnly, self.newFilePermissions) = (replaceReadOnly, newFilePermissions)
            (self.newFileOwner, self.syncDirectory, self.mayReplace) = (newFileOwner, syncDirectory, mayReplace)
        }
    }

    /// What ``write(_:to:options:hooks:)`` did, and to which path (a followed link's target).
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
            if case let .replaced(_, notKept, _) = self { notKept } else { [] }
        }

        /// How many other names the replaced file had (0 when nothing was replaced).
        package var otherNames: Int {
            if case let .replaced(_, _, others) = self { others } else { 0 }
        }
    }

    /// Writes `bytes` to `path` by the policy above; `hooks`, the moments a test acts at (none
    /// by default).
    /// - Returns: what was done, and where.
    /// - Throws: ``FileError`` naming the path; the target is then untouched.
    @discardableResult
    package static func write(_ bytes: [UInt8], to path: String, options: WriteOptions = .init(),
                             hooks: WriteHooks = .init()) throws(FileError) -> WriteOutcome {
        switch try stage(bytes, to: Output(path), options: options) {
        case let .done(outcome): return outcome
        case let .pending(write): return try write.finish(hooks: hooks)
        }
    }

    /// The moments of a write at which a test acts, given to ``write(_:to:options:hooks:)`` and
    /// ``commit(_:hooks:)``; none by default. A test in this process injects them directly; a
    /// test of a real `ycft` process, through the tool's debug-only adapter (`TestHooks`).
    package struct WriteHooks: Sendable {
        /// Called with the target's path after the writer's last look at a file it replaces and
        /// before it swaps the new file in: the one moment a race with another program needs.
        /// On the thread that commits (a batch's workers commit at once).
        package var beforeSwap: (@Sendable (String) -> Void)?
        /// Called with the path after ``makeFolders(_:backupGuard:hooks:)`` or
        /// ``keepBackup(of:expected:suffix:bytes:backupGuard:hooks:)`` held its folder and asked
        /// about it, before anything is made there: where a swap of a folder for a link would race.
        var afterLook: (@Sendable (String) -> Void)?
        /// False: behave as on a file system without `RENAME_EXCHANGE` (plain `rename`).
        var exchange = true
        /// Flushes the file system holding a descriptor and answers whether it did: `syncfs(2)`,
        /// which ``commit(_:hooks:)`` calls once per file system of its group (a test counts the
        /// calls, fails them or skips the flush).
        var flushFileSystem: @Sendable (Int32) -> Bool = { fd in
            #if os(Linux)
            return syncfs(fd) == 0
            #else
            return false
            #endif
        }

        /// `beforeSwap`, and the rest as a real write has it.
        package init(beforeSwap: (@Sendable (String) -> Void)? = nil) {
            self.beforeSwap = beforeSwap
        }
    }

    // MARK: - Refusals asked of an existing target before anything is written

    /// Whether the regular file at `target` (with `status`, as read) may be replaced with
    /// `options`: the rules ``write(_:to:options:hooks:)`` applies, for a caller that must know
    /// before it does work the user would lose (`ycft edit` asks before opening the editor).
    /// - Throws: ``FileError``: ``FileError/Reason/insideBackup(folder:)`` inside an iPhone
    ///   backup; ``FileError/Reason/readOnly(permissions:)`` when it is read-only, or `access(2)`
    ///   refuses, and `options.replaceReadOnly` is false.
    package static func checkReplaceable(_ target: String, status: FileStatus, options: WriteOptions) throws(FileError) {
        try options.backupGuard.refuse(target, .write)
        try checkWritePermission(target, status: status, options: options)
    }

    /// Whether ``write(_:to:options:hooks:)`` with default options would write to `path`,
    /// found without writing, for an output whose loss would be lost work (`migrate --report`):
    /// the writer's refusals of a descriptor name, a path inside an iPhone backup (asked of
    /// `backupGuard`), a link to nothing, a directory, socket or block device, a read-only file,
    /// and a directory the file cannot be made in. Standard output and error are writable.
    /// - Throws: ``FileError`` as the writer would throw it, naming `path`.
    package static func checkWritable(_ path: String, backupGuard: BackupFolderGuard) throws(FileError) {
        let output = Output(path)
        if try output.standardStream() != nil { return }
        try backupGuard.refuse(output, .write)
        if let status = try output.reached.get()?.status {
            switch status.kind {
            case .regular: try checkWritePermission(path, status: status, options: WriteOptions())
            case .fifo, .characterDevice: return
            case .directory: throw FileError(.write, path, .isDirectory)
            case .symbolicLink, .blockDevice, .socket, .other: throw FileError(.write, path, .unsupportedKind(status.kind))
            }
        }
        // The replacement or new file is made in the path's directory.
        if case let .failure(error) = output.folder { throw FileError(.write, path, .system(error)) }
        if access(PathBytes.cString(directory(of: path)), W_OK | X_OK) != 0 { throw FileError(.write, path, .system(.current)) }
    }

    /// The rule for secret bytes (``WriteOptions/confidential``) on an existing `target` the
    /// writer would write through (`status`, not followed): a regular file must be this user's
    /// and let no one else in (the replacement keeps its owner and mode); a pipe or a device is
    /// refused (anyone who may open it would receive them).
    /// - Throws: ``FileError/Reason/notOwned(owner:user:)``, ``FileError/Reason/notPrivate(_:permissions:)``.
    static func checkPrivate(_ target: String, status: FileStatus) throws(FileError) {
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
    /// writer follows it, that ``write(_:to:options:hooks:)`` would refuse for them. A path
    /// that does not exist yet passes (the writer creates it 0600); the writer asks again.
    /// - Throws: ``FileError`` with the writer's reason.
    package static func checkPrivate(_ path: String) throws(FileError) {
        let output = Output(path)
        _ = try output.standardStream(confidential: true)
        guard let status = output.status else { return }
        // untested: a race, `?? path` when the path seen a moment ago is removed before realpath
        try checkPrivate(realPath(path) ?? path, status: status)
    }

    /// The permission half of ``checkReplaceable(_:status:options:)`` (the writer has asked the
    /// backup rule already).
    static func checkWritePermission(_ target: String, status: FileStatus, options: WriteOptions) throws(FileError) {
        if !options.replaceReadOnly && (status.isReadOnly || (access(PathBytes.cString(target), W_OK) != 0 && errno == EACCES)) {
            throw FileError(.write, target, .readOnly(permissions: status.permissions))
        }
    }

    // MARK: - Replacing and creating

    /// The complete temporary for `target` in `folder`: a replacement of the regular file with
    /// `status` (which it is refused for first), or a new file (`status` nil).
    fileprivate static func prepare(_ bytes: [UInt8], at target: String, in folder: Result<HeldFolder, SystemError>, replacing status: FileStatus?,
                                    options: WriteOptions) throws(FileError) -> PendingWrite {
        if let status {
            if let expected = options.expected, expected != status.identity { throw FileError(.write, target, .changedSinceRead) }
            guard options.mayReplace else { throw FileError(.write, target, .appeared) }
            // The owner and mode the replacement keeps are these: checked on the same status.
            if options.confidential { try checkPrivate(target, status: status) }
            try checkWritePermission(target, status: status, options: options)
        }
        let temporary = try Temporary(in: folder, name: baseName(target), for: target)
        // The temporary was made 0600 (nothing can read it while it fills): it takes the replaced
        // file's owner and mode, or a new file's (0666 less the umask unless asked otherwise).
        let newPermissions = options.confidential ? 0o600 : options.newFilePermissions ?? temporary.defaultPermissions
        try temporary.setOwnerAndPermissions(status.map { ($0.owner, $0.group) } ?? options.newFileOwner, permissions: status?.permissions ?? newPermissions)
        // After the mode: an ACL sets the group bits from its mask, as they are on the original;
        // a backup's copy takes its original's (what it could not keep is on the original still,
        // which is not replaced yet). Secret bytes get no ACL (nor any other attribute that
        // grants access) from the target: the attributes are read by path, later than the status
        // the privacy check read, so an ACL set in between (`setfacl -m u:1002:r`) would be
        // copied unchecked; nor the ACL the directory's default ACL gave a new file.
        let source = status.map { (path: target, status: $0) } ?? options.attributesFrom
        let notKept = source.map { FileAttributes.copy(from: $0.path, status: $0.status, to: temporary.fd, grantingAccess: !options.confidential) }
        if options.confidential { try temporary.dropAccessGrants() }
        try temporary.write(bytes)
        return PendingWrite(temporary: temporary, target: target, replacing: status, syncDirectory: options.syncDirectory,
                            notKept: notKept ?? [])
    }

    // MARK: - Group commit

    /// What ``stage(_:to:options:)`` did: written already (a stream), or waiting for
    /// ``commit(_:hooks:)``.
    package enum Staged {
        /// Written (pipes, devices, descriptors are written at once).
        case done(WriteOutcome)
        /// A complete temporary file, not yet flushed or in place.
        case pending(PendingWrite)
    }

    /// Like ``write(_:to:options:hooks:)``, to an output looked at (``Output``), but a regular
    /// file's new content is only written to its unnamed temporary, in the folder looked at:
    /// ``commit(_:hooks:)`` then flushes a whole group at once (one `syncfs`) and puts each in
    /// place, with the same guarantees. Keep groups small: each holds two descriptors.
    /// - Throws: ``FileError`` for what ``write(_:to:options:hooks:)`` refuses before writing.
    package static func stage(_ bytes: [UInt8], to output: Output, options: WriteOptions = .init()) throws(FileError) -> Staged {
        let path = output.path
        // Standard output or error by any name are streams; any other descriptor name is refused.
        // A write that replaces the file it read (`expected`) writes nowhere else: not into a
        // stream, a pipe or a device put in its place, and not to a new file where it was removed.
        if let fd = try output.standardStream(confidential: options.confidential) {
            if options.expected != nil { throw FileError(.write, path, .changedSinceRead) }
            do { try writeAll(fd, bytes) } catch { throw FileError(.write, path, .system(error)) }
            return .done(.streamed(path))
        }
        // Nothing inside an iPhone backup: not a new file, not a replacement, not a pipe there.
        // The guard is asked about the folders the look holds, which the file goes into.
        try options.backupGuard.refuse(output, .write)
        guard let reached = try output.reached.get() else {
            if options.expected != nil { throw FileError(.write, path, .changedSinceRead) }
            return .pending(try prepare(bytes, at: path, in: output.folder, replacing: nil, options: options))
        }
        let (target, status) = (reached.target, reached.status)
        switch status.kind {
        case .regular: return .pending(try prepare(bytes, at: target, in: reached.folder, replacing: status, options: options))
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

    /// Flushes every staged file with one `syncfs` per file system the group's temporaries are
    /// on (a group can span several: `migrate --in-place` of files on two mounts), then puts
    /// each in place (refusing one whose target changed), in order; `hooks` as for
    /// ``write(_:to:options:hooks:)``. A file whose file system was not flushed (no `syncfs`,
    /// or its device cannot be read) is flushed on its own (`fsync`) before its rename.
    /// - Returns: each write's outcome or error.
    package static func commit(_ pending: [PendingWrite], hooks: WriteHooks = .init()) -> [Result<WriteOutcome, FileError>] {
        var flushedDevices: [UInt64: Bool] = [:]
        return pending.map { write in
            var flushed = false
            if let device = write.temporary.device {
                flushed = flushedDevices[device] ?? hooks.flushFileSystem(write.temporary.fd)
                flushedDevices[device] = flushed
            }
            do throws(FileError) { return .success(try write.finish(flushed: flushed, hooks: hooks)) } catch { return .failure(error) }
        }
    }
}

/// A staged write (``SafeFile/stage(_:to:options:)``): its complete temporary file, waiting to
/// be flushed and put in place by ``SafeFile/commit(_:hooks:)``. Dropped uncommitted, it leaves nothing
/// (its temporary discards itself).
package final class PendingWrite {
    fileprivate let temporary: Temporary
    /// The path it will be written to (a followed link's target).
    package let target: String
    private let replacing: FileStatus?
    private let syncsDirectory: Bool
    private let notKept: [AttributeNotKept]

    fileprivate init(temporary: Temporary, target: String, replacing: FileStatus?, syncDirectory: Bool, notKept: [AttributeNotKept]) {
        (self.temporary, self.target, self.replacing, syncsDirectory, self.notKept) = (temporary, target, replacing, syncDirectory, notKept)
    }

    /// Flushes (unless the group was) and puts the file in place, as ``SafeFile/write(_:to:options:hooks:)``
    /// does: a new file is linked where nothing is (never over anything); a replacement is
    /// swapped in by `Temporary.replace(expected:exchange:)`, which refuses it, leaving the other
    /// program's file in place, when what it swapped out is not the file that was read.
    package func finish(flushed: Bool = false, hooks: SafeFile.WriteHooks = .init()) throws(FileError) -> SafeFile.WriteOutcome {
        defer { temporary.discard() }
        if !flushed { try temporary.flush() }
        guard let replacing else {
            try temporary.linkNew()
            if syncsDirectory { temporary.folder.sync() }
            return .created(target)
        }
        // A cheap first look: most changed files are refused here, before anything is swapped.
        guard case let .success(now) = FileStatus.of(temporary.place, in: temporary.folder.fd, followLinks: false),
              now.identity == replacing.identity else {
            throw FileError(.write, target, .changedSinceRead)
        }
        hooks.beforeSwap?(target)
        try temporary.replace(expected: replacing.identity, exchange: hooks.exchange)
        if syncsDirectory { temporary.folder.sync() }
        return .replaced(target, notKept: notKept, otherNames: max(0, now.links - 1))
    }
}
