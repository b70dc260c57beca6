package import FileErrors
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// ycft never writes into an iPhone backup folder (a write there would corrupt the backup, and
/// it is evidence): the one rule, asked by ``SafeFile``'s every write, backup and
/// replaceability check, and by a caller that must refuse before it works (a folder it would
/// create, an output it is about to compute).
///
/// What marks a backup folder (``marksBackup(_:)``): an entry named `Manifest.db` (iOS 10 and
/// later) or `Manifest.mbdb` (iOS 4 to 9), or two of the three property lists Finder, iTunes
/// and `idevicebackup2` write beside them, `Manifest.plist`, `Status.plist` and `Info.plist` (a
/// backup still being written, or one of iOS 3). One `Info.plist` alone marks nothing: every app
/// bundle and Xcode project has one.
///
/// A file is inside a backup when that folder, or any folder above it, is marked: as the path is
/// spelled, and as the writer reaches it (a link at the path followed to the file it names; a
/// folder still to be made, by the nearest one that exists). Messages name the backup folder as
/// the path spells it where it can.
///
/// The guard asks about folders as the writer holds them (``SafeFile/Output``, ``HeldFolder``):
/// the folder a file goes into, opened once, and walked up from by descriptors. Each instance
/// remembers its answers, so a batch asks about each folder once: for a folder by its device and
/// inode and where the kernel says it is (the same inode under a bind mount can have other
/// folders above it); for whether a folder is marked, by its device and inode. So another folder
/// put where one was (a link, a new folder: another inode) and a folder moved, or below a folder
/// moved (another path), are looked at again. Keep one for a run, not for a process's life: a
/// folder can become a backup later, and one moved into a folder put in place of one above it,
/// under the same names, keeps its answer.
///
/// ```swift
/// let backups = BackupFolderGuard()
/// try backups.refuse("Backup/3f/copy.plist", .write)   // FileError: ... inside the iPhone backup "Backup" ...
/// ```
package final class BackupFolderGuard: @unchecked Sendable {
    /// A folder where the kernel has it (every link resolved), and its inode.
    private struct Folder: Hashable {
        let path: String
        let inode: FileIdentity.Inode
    }

    /// The backup folder at or above each folder asked about (nil: none).
    private var above: [Folder: Folder?] = [:]
    /// Whether each folder looked at is itself a backup folder.
    private var marked: [FileIdentity.Inode: Bool] = [:]
    /// The folders of the backups the run reads (``remember(backup:)``): each its backup folder.
    private var known: [FileIdentity.Inode: Folder] = [:]
    /// The walks made (``walked``).
    private var walks = 0
    /// Guards both tables (`migrate`'s workers share one guard). A pthread mutex rather than a
    /// `Synchronization.Mutex`: SafeFiles builds for iOS 15, and `Mutex` needs iOS 18.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    /// A guard that has asked about no folder yet.
    package init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// How many times the guard walked up from a folder it had no answer for (for tests).
    var walked: Int { locked { walks } }

    private func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body()
    }

    /// Takes `folder` as an iPhone backup the run reads: it and its two-digit folders are backup
    /// folders by device and inode under any path, so a write into one seen elsewhere through a
    /// bind mount (`mount --bind BACKUP/3f /mnt/x`: no folder above `/mnt/x` is marked) is
    /// refused too, named as `folder`. Looked at now; a two-digit folder is not followed through
    /// a link. Answers given before are asked again; a backup already taken is not looked at again.
    package func remember(backup folder: String) {
        let fd = Self.openFolder(folder)
        guard fd >= 0 else { return }
        defer { close(fd) }
        // unreachable: fstat of an open descriptor does not fail
        guard case let .success(root) = FileStatus.of(descriptor: fd) else { return }
        let backup = Folder(path: folder, inode: FileIdentity.Inode(root.identity))
        if locked({ known[backup.inode] }) != nil { return }
        let digits = Array("0123456789abcdef")
        var folders = [backup.inode]
        for high in digits {
            for low in digits {
                if case let .success(seen) = FileStatus.of(String(high) + String(low), in: fd, followLinks: false), seen.kind == .directory {
                    folders.append(FileIdentity.Inode(seen.identity))
                }
            }
        }
        locked {
            for inode in folders { known[inode] = backup }
            above = [:]
        }
    }

    /// The rule: whether a folder is an iPhone backup folder, given which names it holds
    /// (`holds`: is there an entry of that name, of any kind, a link included).
    package static func marksBackup(_ holds: (String) -> Bool) -> Bool {
        if holds("Manifest.db") || holds("Manifest.mbdb") { return true }
        return ["Manifest.plist", "Status.plist", "Info.plist"].filter(holds).count >= 2
    }

    /// Whether the folder at `path` is a backup folder by ``marksBackup(_:)``, its entries looked
    /// at as the writer's walk looks at them (a link is a mark, followed or not); false when the
    /// folder cannot be opened. For what a command says of a backup given as its input.
    package static func isBackupFolder(_ path: String) -> Bool {
        let fd = openFolder(path)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return (try? isBackupFolder(descriptor: fd).get()) ?? false
    }

    /// The folder at `path` (links followed), opened to look at its entries by descriptor; -1
    /// with `errno` set when it cannot be.
    private static func openFolder(_ path: String) -> Int32 {
        PathBytes.withCString(path) { open($0, HeldFolder.pathOnly | O_DIRECTORY | O_CLOEXEC) }
    }

    /// Whether the folder open as `fd` is a backup folder by ``marksBackup(_:)``; an entry that
    /// cannot be looked at for another reason than its absence is the error.
    private static func isBackupFolder(descriptor fd: Int32) -> Result<Bool, SystemError> {
        var failure: SystemError?
        let answer = marksBackup { name in
            var status = stat()
            if fstatat(fd, name, &status, AT_SYMLINK_NOFOLLOW) == 0 { return true }
            if errno != ENOENT, failure == nil { failure = .current }
            return false
        }
        if let failure, !answer { return .failure(failure) }
        return .success(answer)
    }

    /// Refuses a write to `path` inside an iPhone backup (``folder(holding:)``), and one whose
    /// folders ycft cannot look at: it writes nowhere it cannot check.
    /// - Throws: ``FileError`` with `operation`, `path` and reason ``FileError/Reason/insideBackup(folder:)``
    ///   or ``FileError/Reason/backupUnknown(_:)``.
    package func refuse(_ path: String, _ operation: FileError.Operation) throws(FileError) {
        try refuse(SafeFile.Output(path), operation)
    }

    /// The same refusal for an output looked at, asked about the folders the look holds.
    package func refuse(_ output: SafeFile.Output, _ operation: FileError.Operation) throws(FileError) {
        switch answer(output) {
        case .success(nil): return
        case let .success(folder?): throw FileError(operation, output.path, .insideBackup(folder: folder))
        case let .failure(error): throw FileError(operation, output.path, .backupUnknown(error))
        }
    }

    /// The same refusal for a folder held (``SafeFile/makeFolders(_:backupGuard:hooks:)``), `spelled`
    /// as the path names it.
    func refuse(_ folder: HeldFolder, spelled: String, for path: String, _ operation: FileError.Operation) throws(FileError) {
        switch backup(in: folder) {
        case .success(nil): return
        case let .success(found?): throw FileError(operation, path, .insideBackup(folder: Self.named(found, spelled)))
        case let .failure(error): throw FileError(operation, path, .backupUnknown(error))
        }
    }

    /// The iPhone backup folder a file written at `path` would be in, named as `path` spells it
    /// where one of the folders above it is that folder; nil when there is none, or when the
    /// folders cannot be looked at (``refuse(_:_:)`` refuses that too).
    package func folder(holding path: String) -> String? { (try? answer(SafeFile.Output(path)).get()) ?? nil }

    /// The backup folder a write to the output lands in, named as its path spells it where it
    /// can (nil: none), or why a folder above could not be looked at (a path longer than
    /// `PATH_MAX`, a folder that cannot be searched). The folders looked at: those above the
    /// output's path as spelled, then, when it is a symbolic link, those above the file it names
    /// (the writer follows it); each as the look holds it. A folder that does not exist yet
    /// counts as the nearest one above it that does, as `mkdir -p` would make it there (so
    /// `new/../B/sub` is `B/sub`).
    private func answer(_ output: SafeFile.Output) -> Result<String?, SystemError> {
        let spelled = SafeFile.directory(of: output.path)
        // A folder the look could not open, as the nearest folder of the path that exists.
        switch (try? output.folder.get()).map(backup(in:)) ?? backup(above: spelled) {
        case let .success(found?): return .success(Self.named(found, spelled))
        case let .failure(error): return .failure(error)
        case .success(nil): break
        }
        guard case let .success(status?) = output.entry, status.kind == .symbolicLink else { return .success(nil) }
        switch output.reached {
        case let .success(reached?):
            let target = SafeFile.directory(of: reached.target)
            // untested: as below, a folder above a link's target that cannot be looked at
            return ((try? reached.folder.get()).map(backup(in:)) ?? backup(above: target)).map { $0.map { Self.named($0, target) } }
        // A link to nothing, or a loop of links: the writer refuses to write through it. One
        // that cannot be resolved for another reason cannot be checked.
        case let .failure(error):
            // untested: a link that cannot be resolved for another reason (a folder on its way not searchable)
            if case let .system(failure) = error.reason, failure.errno != ELOOP { return .failure(failure) }
            return .success(nil)
        // unreachable: a link's look reaches a file or fails
        case .success(nil): return .success(nil)
        }
    }

    /// The backup folder at or above `directory` (or the nearest folder above it that exists).
    private func backup(above directory: String) -> Result<Folder?, SystemError> {
        var existing = directory
        var missing: [String] = []
        while true {
            switch FileStatus.of(existing) {
            case let .success(seen) where seen.kind != .directory:
                // A file where a folder is needed: nothing is written below it (the writer
                // fails there); its folder is the one to judge.
                let parent = SafeFile.directory(of: existing)
                // unreachable: "/" and "." are folders, never a file where a folder is needed
                if parent == existing { return .success(nil) }
                existing = parent
                continue
            case .success:
                break
            case let .failure(error) where error.errno == ENOENT || error.errno == ENOTDIR:
                let parent = SafeFile.directory(of: existing)
                // untested: a working folder removed while ycft runs in it ("." does not exist)
                if parent == existing { return .success(nil) }
                let name = existing.utf8.lastIndex(of: UInt8(ascii: "/")).map { existing.utf8[existing.utf8.index(after: $0)...] }
                missing.insert(name.map { String(Substring($0)) } ?? existing, at: 0)
                existing = parent
                continue
            case let .failure(error):
                return .failure(error)
            }
            break
        }
        // `mkdir -p` goes back up from a folder it made: `new/../B` is made as `B`.
        if missing.contains("..") { return backup(above: ([existing] + Self.folded(missing)).joined(separator: "/")) }
        return HeldFolder.open(existing).flatMap { backup(in: $0) }
    }

    /// The backup folder at or above the held `folder`, walked up by descriptors (`..` from each
    /// folder, as the kernel reaches it: no path is resolved, so a path longer than `PATH_MAX`
    /// is walked too).
    private func backup(in folder: HeldFolder) -> Result<Folder?, SystemError> {
        let key = Folder(path: folder.path, inode: FileIdentity.Inode(folder.status.identity))
        if let known = locked({ above[key] }) { return .success(known) }
        locked { walks += 1 }
        return walk(from: folder).map { found in
            locked { above[key] = .some(found) }
            return found
        }
    }

    /// Folders still to make as `mkdir -p` makes them: each `name/..` taken out, each `.` left
    /// out, the `..`s that climb above the folder they start from first (`new/../B` is `B`).
    /// The one folding of the guard's answer and of ``SafeFile/makeFolders(_:backupGuard:hooks:)``.
    static func folded(_ missing: [String]) -> [String] {
        var (kept, climbs) = ([String](), 0)
        for name in missing where name != "." && !name.isEmpty {
            if name != ".." {
                kept.append(name)
            } else if kept.isEmpty {
                climbs += 1
            } else {
                kept.removeLast()
            }
        }
        return Array(repeating: "..", count: climbs) + kept
    }

    /// From `start` up to the root: the first backup folder.
    private func walk(from start: HeldFolder) -> Result<Folder?, SystemError> {
        // A folder that can be searched but not read is walked too.
        let flags = HeldFolder.pathOnly | O_DIRECTORY | O_CLOEXEC
        var fd = openat(start.fd, PathBytes.cString(start.at(".")), flags)
        // untested: a race, the folder just seen removed before it is opened
        guard fd >= 0 else { return .failure(.current) }
        defer { close(fd) }
        var levels = 0
        var previous: FileIdentity.Inode?
        while true {
            // unreachable: fstat of an open descriptor does not fail
            guard case let .success(seen) = FileStatus.of(descriptor: fd) else { return .failure(.current) }
            let inode = FileIdentity.Inode(seen.identity)
            // `..` of the root is the root.
            if inode == previous { return .success(nil) }
            if let backup = locked({ known[inode] }) { return .success(backup) }
            // A folder above that was asked about (the one a new folder was made in): its answer,
            // by where the kernel has it, is this one's.
            if levels > 0, let path = SafeFile.linkText("/proc/self/fd/" + String(fd)), let known = locked({ above[Folder(path: path, inode: inode)] }) {
                return .success(known)
            }
            let isBackup: Bool
            if let known = locked({ marked[inode] }) {
                isBackup = known
            } else {
                switch Self.isBackupFolder(descriptor: fd) {
                case let .success(answer): isBackup = answer
                case let .failure(error): return .failure(error)
                }
                locked { marked[inode] = isBackup }
            }
            if isBackup {
                let climbed = ([start.path] + Array(repeating: "..", count: levels)).joined(separator: "/")
                // untested: realpath failing on a path it walked (glibc resolves these through getcwd)
                return .success(Folder(path: SafeFile.realPath(climbed) ?? climbed, inode: inode))
            }
            let parent = openat(fd, "..", flags)
            // untested: a race, `..` of a folder just looked at closed to search before it is opened
            guard parent >= 0 else { return .failure(.current) }
            close(fd)
            fd = parent
            previous = inode
            levels += 1
        // unreachable: the end of `while true`, which only returns
        }
    }

    /// `found` as the path's folders spell it: the first of `directory` and the folders above
    /// it by its text that is `found` (by inode), else `found`'s resolved path.
    private static func named(_ found: Folder, _ directory: String) -> String {
        var current = directory
        while true {
            if case let .success(seen) = FileStatus.of(current), FileIdentity.Inode(seen.identity) == found.inode { return current }
            let parent = SafeFile.directory(of: current)
            if parent == current { return found.path }
            current = parent
        // unreachable: the end of `while true`, which only returns
        }
    }
}
