package import FileErrors
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// `mkdir -p` for an output folder (`migrate -o OUT`), by held folders.
extension SafeFile {
    /// Makes the folder `path` and its missing parents (`0777` less the umask), never inside an
    /// iPhone backup, also under a race: the nearest folder that exists is held
    /// (``HeldFolder``) and asked about as held, each missing folder is made in the one held
    /// above it (`mkdirat`) and then held itself, only as the folder just made (a link put in its
    /// place is refused), and a folder that was there already (`new/..`, one another program
    /// made meanwhile) is asked about before anything is made in it. So no swap of a folder on
    /// the way for a link to a backup takes a new folder there. A folder *moved* into a backup
    /// meanwhile is outside what a check can stop.
    /// - Throws: ``FileError`` (``FileError/Operation/write``, `path`):
    ///   ``FileError/Reason/insideBackup(folder:)``, ``FileError/Reason/backupUnknown(_:)``, or the
    ///   system's error (`EEXIST`: a part is not a folder).
    package static func makeFolders(_ path: String, backupGuard: BackupFolderGuard, hooks: WriteHooks = WriteHooks()) throws(FileError) {
        func trimmed(_ path: String) -> String {
            var path = path
            while path.utf8.count > 1, path.hasSuffix("/") { path.removeLast() }
            return path
        }
        var (spelled, missing) = (trimmed(path), [String]())
        var held: HeldFolder
        while true {
            switch HeldFolder.open(spelled) {
            case let .success(folder): held = folder
            case let .failure(error) where error.errno == ENOENT && directory(of: spelled) != spelled:
                missing.insert(baseName(spelled), at: 0)
                spelled = trimmed(directory(of: spelled))
                continue
            case let .failure(error):
                // A file where the folder is to be: `EEXIST`, as `mkdir` says it.
                let exists = error.errno == ENOTDIR && (try? FileStatus.of(spelled).get()) != nil
                throw FileError(.write, path, .system(exists ? SystemError(errno: EEXIST) : error))
            }
            break
        }
        // `mkdir -p` goes back up from a folder it makes: `new/../B` is made as `B`.
        let folded = BackupFolderGuard.folded(missing)
        // Nothing to make: the writer asks about the folder for the file it writes there.
        guard !folded.isEmpty else { return }
        try backupGuard.refuse(held, spelled: spelled, for: path, .write)
        hooks.afterLook?(path)
        for name in folded {
            spelled = spelled == "." ? name : spelled + (spelled.hasSuffix("/") ? "" : "/") + name
            let made = name != ".." && mkdirat(held.fd, PathBytes.cString(held.at(name)), 0o777) == 0
            if !made, name != "..", errno != EEXIST { throw FileError(.write, path, .system(.current)) }
            switch held.folder(name, followLinks: !made) {
            case let .success(next): held = next
            case let .failure(error): throw FileError(.write, path, .system(error.errno == ENOTDIR ? SystemError(errno: EEXIST) : error))
            }
            if !made { try backupGuard.refuse(held, spelled: spelled, for: path, .write) }
        }
    }
}
