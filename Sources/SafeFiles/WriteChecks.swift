package import FileErrors
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// The refusals asked of an existing target before anything is written: read-only, and not
// private enough for secret bytes.
extension SafeFile {
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
        _ = try standardStream(forOutput: path, confidential: true)
        guard case let .success(status) = FileStatus.of(path) else { return }
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
}
