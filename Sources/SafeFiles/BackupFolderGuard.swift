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
/// Each instance remembers its answers, so a batch asks about each folder once: for a folder
/// by its path and its device and inode (the same inode under a bind mount can have other
/// folders above it), for whether a folder is marked by its device and inode alone. Keep one
/// for a run, not for a process's life: a folder can become a backup later.
///
/// ```swift
/// let backups = BackupFolderGuard()
/// try backups.refuse("Backup/3f/copy.plist", .write)   // FileError: ... inside the iPhone backup "Backup" ...
/// ```
package final class BackupFolderGuard: @unchecked Sendable {
    /// A backup folder found: its path with every link resolved, and its inode.
    private struct Found {
        let path: String
        let inode: FileIdentity.Inode
    }

    /// A folder as a path spells it, and the inode the path reached when it was asked.
    private struct SpelledFolder: Hashable {
        let path: String
        let inode: FileIdentity.Inode
    }

    /// The backup folder at or above each folder asked about (nil: none).
    private var above: [SpelledFolder: Found?] = [:]
    /// Whether each folder looked at is itself a backup folder.
    private var marked: [FileIdentity.Inode: Bool] = [:]
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

    private func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body()
    }

    /// The rule: whether a folder is an iPhone backup folder, given which names it holds
    /// (`holds`: is there an entry of that name, of any kind, a link included).
    package static func marksBackup(_ holds: (String) -> Bool) -> Bool {
        if holds("Manifest.db") || holds("Manifest.mbdb") { return true }
        return ["Manifest.plist", "Status.plist", "Info.plist"].filter(holds).count >= 2
    }

    /// Whether the folder at `path` is an iPhone backup folder by ``marksBackup(_:)``, its
    /// entries looked at without following links.
    package static func isBackupFolder(_ path: String) -> Bool {
        marksBackup { name in
            if case .success = FileStatus.of(path == "/" ? "/" + name : path + "/" + name, followLinks: false) { return true }
            return false
        }
    }

    /// Refuses a write to `path` inside an iPhone backup (``folder(holding:)``).
    /// - Throws: ``FileError`` with `operation`, `path` and reason ``FileError/Reason/insideBackup(folder:)``.
    package func refuse(_ path: String, _ operation: FileError.Operation) throws(FileError) {
        if let folder = folder(holding: path) { throw FileError(operation, path, .insideBackup(folder: folder)) }
    }

    /// The iPhone backup folder a file written at `path` would be in, named as `path` spells it
    /// where one of the folders above it is that folder; nil when there is none. The folders
    /// looked at: those above `path` as spelled, then, when `path` is a symbolic link, those
    /// above the file it names (the writer follows it). A folder that does not exist yet counts
    /// as the nearest one above it that does (`mkdir -p` would make it there).
    package func folder(holding path: String) -> String? {
        let spelled = SafeFile.directory(of: path)
        if let found = backup(above: spelled) { return Self.named(found, spelled) }
        guard case let .success(status) = FileStatus.of(path, followLinks: false), status.kind == .symbolicLink,
              let resolved = SafeFile.realPath(path) else { return nil }
        let target = SafeFile.directory(of: resolved)
        return backup(above: target).map { Self.named($0, target) }
    }

    /// The backup folder at or above `directory` (or the nearest folder above it that exists).
    private func backup(above directory: String) -> Found? {
        var existing = directory
        var status: FileStatus
        while true {
            if case let .success(seen) = FileStatus.of(existing) {
                status = seen
                break
            }
            let parent = SafeFile.directory(of: existing)
            // At "/" or "." (a relative path): "." cannot be looked at in a working folder the user may not search.
            if parent == existing { return nil }
            existing = parent
        }
        let key = SpelledFolder(path: existing, inode: FileIdentity.Inode(status.identity))
        if let known = locked({ above[key] }) { return known }
        // The folders above, as the kernel reaches them: from the path with every link resolved.
        var found: Found?
        if var current = SafeFile.realPath(existing) {
            while true {
                // untested: a race, a folder realpath just resolved is gone only when removed in between
                guard case let .success(seen) = FileStatus.of(current) else { break }
                let inode = FileIdentity.Inode(seen.identity)
                let isBackup = locked({ marked[inode] }) ?? {
                    let answer = Self.isBackupFolder(current)
                    locked { marked[inode] = answer }
                    return answer
                }()
                if isBackup {
                    found = Found(path: current, inode: inode)
                    break
                }
                let parent = SafeFile.directory(of: current)
                if parent == current { break }
                current = parent
            }
        }
        locked { above[key] = .some(found) }
        return found
    }

    /// `found` as the path's folders spell it: the first of `directory` and the folders above
    /// it by its text that is `found` (by inode), else `found`'s resolved path.
    private static func named(_ found: Found, _ directory: String) -> String {
        var current = directory
        while true {
            if case let .success(seen) = FileStatus.of(current), FileIdentity.Inode(seen.identity) == found.inode { return current }
            let parent = SafeFile.directory(of: current)
            if parent == current { return found.path }
            current = parent
        // unreachable: the loop only returns
        }
    }
}
