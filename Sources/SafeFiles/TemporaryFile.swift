internal import FileErrors
#if canImport(Glibc)
import CLinuxCalls
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A folder as the writer reaches it: on Linux with `/proc`, opened once (`O_PATH`: a folder
/// that can be searched but not read is held too) and reached through that descriptor by every
/// later call (`openat`, `fstatat`, `linkat`, `renameat2`), so a folder swapped for a link to
/// somewhere else (an iPhone backup) after it was looked at cannot take a file there;
/// elsewhere, by its path. Where it is (``path``) and its status are read once, for the rules
/// that ask about it: the backup guard and the descriptor-name rule (``SafeFile/Output``).
final class HeldFolder {
    /// The descriptor, or `AT_FDCWD` when the folder is reached by its path.
    let fd: Int32
    /// What a name in the folder is prefixed with for ``fd``: nothing while held, else the folder's path.
    private let prefix: String
    /// Where the folder is: the path the kernel gives for the descriptor (`/proc/self/fd/N`), else `realpath(3)`.
    let path: String
    let status: FileStatus

    /// `O_PATH` on Linux (its value: Glibc's Swift module leaves the constant out), a folder
    /// opened to be reached, not read; elsewhere `O_RDONLY`.
    static let pathOnly: Int32 = {
        #if os(Linux)
        0o10_000_000
        #else
        O_RDONLY
        #endif
    }()

    /// Whether this process can reach a descriptor's folder by path (`/proc` is mounted).
    private static let procDescriptors = access("/proc/self/fd", F_OK) == 0

    private init(fd: Int32, prefix: String, path: String, status: FileStatus) {
        (self.fd, self.prefix, self.path, self.status) = (fd, prefix, path, status)
    }

    deinit { if fd != AT_FDCWD { close(fd) } }

    /// The folder at `directory` (links followed), or why it cannot be reached: not a folder
    /// (`ENOTDIR`), not there, not searchable.
    static func open(_ directory: String) -> Result<HeldFolder, SystemError> {
        #if os(Linux)
        if procDescriptors { return held(PathBytes.withCString(directory) { Glibc.open($0, pathOnly | O_DIRECTORY | O_CLOEXEC) }) }
        // untested: (below) a process without /proc, or not on Linux, reaches the folder by its path
        #endif
        switch FileStatus.of(directory) {
        case let .success(status) where status.kind == .directory:
            // untested: a race, the folder just seen removed before realpath
            guard let path = SafeFile.realPath(directory) else { return .failure(.current) }
            return .success(HeldFolder(fd: AT_FDCWD, prefix: directory + "/", path: path, status: status))
        case .success: return .failure(SystemError(errno: ENOTDIR))
        case let .failure(error): return .failure(error)
        }
    }

    /// The folder `name` in this one, held; with `followLinks` false, only a folder itself (a
    /// symbolic link there is `ENOTDIR`).
    func folder(_ name: String, followLinks: Bool) -> Result<HeldFolder, SystemError> {
        #if os(Linux)
        if fd != AT_FDCWD {
            return Self.held(openat(fd, PathBytes.cString(name), Self.pathOnly | O_DIRECTORY | O_CLOEXEC | (followLinks ? 0 : O_NOFOLLOW)))
        }
        #endif
        return Self.open(at(name))
    }

    #if os(Linux)
    /// The folder open as `fd` (or why it could not be opened, `fd` < 0), where the kernel has it.
    private static func held(_ fd: Int32) -> Result<HeldFolder, SystemError> {
        guard fd >= 0 else { return .failure(.current) }
        // unreachable: readlink and fstat of a descriptor just opened do not fail
        guard let path = SafeFile.linkText("/proc/self/fd/" + String(fd)), case let .success(status) = FileStatus.of(descriptor: fd) else {
            let failure = SystemError.current
            close(fd)
            return .failure(failure)
        }
        return .success(HeldFolder(fd: fd, prefix: "", path: path, status: status))
    }
    #endif

    /// `name` in the folder, as calls take it with ``fd``.
    func at(_ name: String) -> String { prefix.isEmpty ? name : prefix + name }  // untested: by path, without /proc

    /// Flushes the folder's entries (renames) to disk.
    func sync() {
        let directory = openat(fd, PathBytes.cString(at(".")), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directory >= 0 {
            _ = fsync(directory)
            close(directory)
        }
    }
}

/// A temporary file being filled in a held folder (``HeldFolder``), linked into place by
/// `linkNew` or `replace`, or removed by `discard`.
final class Temporary {
    let fd: Int32
    /// The folder it is made in, where the target is.
    let folder: HeldFolder
    /// The target, as messages name it.
    let target: String
    /// The target's name as calls reach it in ``folder``.
    let place: String
    /// The target's own name (for a named temporary beside it).
    private let targetName: String
    /// The name it has (nil while an unnamed `O_TMPFILE`).
    private var name: String?
    private var committed = false
    private var discarded = false

    init(in folder: Result<HeldFolder, SystemError>, name: String, for target: String) throws(FileError) {
        let held: HeldFolder
        do { held = try folder.get() } catch { throw FileError(.write, target, .system(error)) }
        (self.folder, self.target, targetName, place) = (held, target, name, held.at(name))
        #if os(Linux)
        let unnamed = PathBytes.withCString(held.at(".")) { openat(held.fd, $0, YCFT_O_TMPFILE | O_WRONLY | O_CLOEXEC, 0o600) }
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
        self.name = try Temporary.freshName(held.at(".\(Temporary.shortened(name)).ycft-"), for: target) { candidate in
            named = openat(held.fd, PathBytes.cString(candidate), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
            return named >= 0
        }
        fd = named
    }

    /// `0o666` less the process's umask (the temporary file is opened with `0o600`, so nothing
    /// can read it before its final permissions are set; the umask is applied here by hand).
    var defaultPermissions: UInt32 { 0o666 & ~Temporary.umaskValue }

    /// Gives the file `owner` (where the process may; nil: the process's) and `permissions`
    /// (setuid, setgid and sticky bits left out).
    func setOwnerAndPermissions(_ owner: (owner: UInt32, group: UInt32)?, permissions: UInt32) throws(FileError) {
        if let owner, owner.owner != geteuid() || owner.group != getegid(), fchown(fd, uid_t(owner.owner), gid_t(owner.group)) != 0 {
            // Not permitted to give the file away: keep at least the group where we may.
            _ = fchown(fd, uid_t.max, gid_t(owner.group))
        }
        guard fchmod(fd, mode_t(permissions & 0o777)) == 0 else { throw FileError(.write, target, .system(.current)) }
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

    /// The device (file system) the temporary is on: its held folder's (where `O_TMPFILE` made
    /// it); else from `fstat`, nil when that fails.
    var device: UInt64? {
        // untested: (the fstat) a folder reached by its path, without /proc
        folder.fd != AT_FDCWD ? folder.status.identity.device : (try? FileStatus.of(descriptor: fd).get())?.identity.device
    }

    /// Links a new file in where nothing is: `linkat(2)` (`link(2)` for a named temporary),
    /// which never replaces an existing name.
    /// - Throws: ``FileError/Reason/appeared`` when a file appeared at the target meanwhile.
    func linkNew() throws(FileError) {
        guard name.map({ linkat(folder.fd, PathBytes.cString($0), folder.fd, PathBytes.cString(place), 0) == 0 }) ?? linkAt(place) else {
            let failure = SystemError.current
            throw FileError(.write, target, failure.errno == EEXIST ? .appeared : .system(failure))
        }
        if let name { unlinkat(folder.fd, PathBytes.cString(name), 0) }
        name = nil
        committed = true
    }

    /// Gives an unnamed `O_TMPFILE` a name in the target's directory, `.NAME.ycft-XXXXXXXXXXXX`,
    /// by `linkat(2)`, which fails with `EEXIST` rather than replace anything (another random
    /// name is tried then). A named temporary keeps its name.
    private func giveName() throws(FileError) -> String {
        if let name { return name }
        let named = try Temporary.freshName(folder.at(".\(Temporary.shortened(targetName)).ycft-"), for: target, linkAt)
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
            if renameat2(folder.fd, PathBytes.cString(name), folder.fd, PathBytes.cString(place), YCFT_RENAME_EXCHANGE) == 0 {
                if case let .success(swappedOut) = FileStatus.of(name, in: folder.fd, followLinks: false), swappedOut.identity == expected {
                    // The very file that was read: it is replaced; its last name here goes.
                    unlinkat(folder.fd, PathBytes.cString(name), 0)
                    self.name = nil
                    committed = true
                    return
                }
                // Another program's file: put it back. ycft's file (under `name` again) is
                // removed by discard(), which removes the name only while it is ycft's.
                _ = renameat2(folder.fd, PathBytes.cString(name), folder.fd, PathBytes.cString(place), YCFT_RENAME_EXCHANGE)
                throw FileError(.write, target, .changedSinceRead)
            }
            let failure = SystemError.current
            if failure.errno == ENOENT { throw FileError(.write, target, .changedSinceRead) }
            guard [EINVAL, ENOSYS, EOPNOTSUPP].contains(failure.errno) || failure.errno == ENOTSUP else {
                throw FileError(.write, target, .system(failure))
            }
        }
        #endif
        guard renameat(folder.fd, PathBytes.cString(name), folder.fd, PathBytes.cString(place)) == 0 else {
            throw FileError(.write, target, .system(.current))
        }
        self.name = nil
        committed = true
    }

    /// Dropped on an error path: nothing stays behind.
    deinit { discard() }

    /// Closes the descriptor and removes the named temporary file this object created (once).
    func discard() {
        guard !discarded else { return }
        discarded = true
        if !committed, let name, holdsThisFile(name) { unlinkat(folder.fd, PathBytes.cString(name), 0) }
        close(fd)
    }

    /// Whether `path` is this temporary (a swap gone wrong can leave another file under its name).
    private func holdsThisFile(_ path: String) -> Bool {
        guard case let .success(own) = FileStatus.of(descriptor: fd),
              // untested: a race, the temporary's name is gone only when another process removed it
              case let .success(named) = FileStatus.of(path, in: folder.fd, followLinks: false) else { return false }
        return named.identity.sameFile(as: own.identity)
    }

    private func linkAt(_ path: String) -> Bool {
        #if os(Linux)
        if PathBytes.withCString(path, { linkat(AT_FDCWD, "/proc/self/fd/" + String(fd), folder.fd, $0, AT_SYMLINK_FOLLOW) }) == 0 { return true }
        let failure = SystemError.current
        if failure.errno == EEXIST { return false }
        // Without /proc: AT_EMPTY_PATH (needs CAP_DAC_READ_SEARCH).
        if linkat(fd, "", folder.fd, PathBytes.cString(path), 0x1000 /* AT_EMPTY_PATH */) == 0 { return true }
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
        if let status = try? ReadOnlyFolder("/proc/self").read("status", limit: 1 << 16),
           let line = String(decoding: status, as: UTF8.self).split(separator: "\n").first(where: { $0.hasPrefix("Umask:") }),
           let value = UInt32(String(line.dropFirst("Umask:".count).filter { $0 != " " && $0 != "\t" }), radix: 8) {
            return value
        // unreachable: Linux shows Umask in /proc/self/status since 4.7 (every Linux has the file); the fallback is for
        // older kernels and other systems
        }
        let mask = umask(0o022)
        umask(mask)
        return UInt32(mask)
    }()
}
