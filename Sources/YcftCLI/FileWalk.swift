import PlistCore
import SafeFiles
import FileErrors
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The tool's one way from operands to input files (`migrate` and `verify`): a file operand is
/// itself; a directory is searched recursively for files whose name matches an `--include` glob
/// (`*.plist` by default), backups of an earlier `migrate --in-place` excepted; one file named
/// twice (or through a link) counts once.
struct FileWalk {
    /// Globs a file's name must match in a directory walk (`fnmatch`); never empty.
    var includes: [String]

    struct Input {
        let path: String
        /// Its place below an output directory: its path below the directory operand, or a file
        /// operand's own path without a leading `/` or `.`/`..` parts.
        let mirror: String
        let fileOperand: Bool
    }

    /// What the walk found, and what it could not use.
    struct Result {
        var inputs: [Input] = []
        /// Operands that are special files, and directories (operands or below them) that
        /// could not be read: (path, message).
        var problems: [(path: String, message: String)] = []
        /// Directory operands that gave no input, and could be read whole: (path, regular files
        /// below it that did not match). A wrong path in a CI job, an empty export.
        var empty: [(path: String, others: Int)] = []
        /// The files the inputs name (so "is this output one of the inputs?" needs no new look).
        var inodes = InodeSet()
    }

    /// Expands the operands; `-` (standard input) passes through as a file operand.
    func expand(_ operands: [String], io: CommandIO) -> Result {
        var result = Result()
        func add(_ path: String, mirror: String, fileOperand: Bool, status: FileStatus?) {
            if let status, !result.inodes.insert(FileIdentity.Inode(status.identity)) { return }
            result.inputs.append(Input(path: path, mirror: mirror, fileOperand: fileOperand))
        }
        for operand in operands {
            guard operand != "-", let status = io.fileStatus(operand) else {
                // Standard input, or nothing there (or no file system to ask): reading it says what is wrong.
                result.inputs.append(Input(path: operand, mirror: Self.mirrored(operand), fileOperand: true))
                continue
            }
            switch status.kind {
            case .regular:
                add(operand, mirror: Self.mirrored(operand), fileOperand: true, status: status)
            case .directory:
                // An iPhone backup's files have hashed names and no state of their own to check.
                if BackupFolderGuard.isBackupFolder(operand) {
                    result.problems.append((operand, BackupCommand.backupFolderHint(operand)))
                    continue
                }
                let listing: DirectoryListing
                do throws(SystemError) { listing = try io.listFiles(operand) } catch {
                    result.problems.append((operand, Self.unreadableMessage(error)))
                    continue
                }
                func below(_ relative: String) -> String {
                    relative == "." ? operand : operand.hasSuffix("/") ? operand + relative : "\(operand)/\(relative)"
                }
                for unreadable in listing.unreadable {
                    result.problems.append((below(unreadable.path), Self.unreadableMessage(unreadable.error)))
                }
                let patterns = includes.map(PathBytes.cString)
                let matching = listing.files.filter { Self.name($0, matches: patterns) }
                let names = Set(matching.map(ExactKey.init))
                if matching.isEmpty && listing.unreadable.isEmpty { result.empty.append((operand, listing.files.count)) }
                // An iPhone backup below is passed over, said on stderr (its files are no state:
                // an operand that is a backup is a problem, one found in a walk, like `.git`, is not).
                var isBackupFolder: [String: Bool] = [:], backups: [String] = []
                // The answer for the folder of the last file asked about: a folder's files are listed together.
                var lastFolder: (folder: Substring, inBackup: Bool)?
                func inBackup(_ relative: String) -> Bool {
                    let folder = relative.utf8.lastIndex(of: UInt8(ascii: "/")).map { relative[..<$0] } ?? ""
                    if let lastFolder, lastFolder.folder.utf8.elementsEqual(folder.utf8) { return lastFolder.inBackup }
                    let answer = inBackupWalk(relative)
                    lastFolder = (folder, answer)
                    return answer
                }
                func inBackupWalk(_ relative: String) -> Bool {
                    let parts = relative.split(separator: "/", omittingEmptySubsequences: false).dropLast()
                    for depth in parts.indices {
                        let folder = parts[...depth].joined(separator: "/")
                        if let known = isBackupFolder[folder] {
                            if known { return true }
                            continue
                        }
                        let isBackup = BackupFolderGuard.isBackupFolder(below(folder))
                        isBackupFolder[folder] = isBackup
                        if isBackup {
                            backups.append(folder)
                            return true
                        }
                    }
                    return false
                }
                for relative in matching where !Self.isBackup(relative, among: names) && !inBackup(relative) {
                    let path = below(relative)
                    add(path, mirror: relative, fileOperand: false, status: io.fileStatus(path))
                }
                for backup in backups { Ycft.warn("passed over: " + BackupCommand.backupFolderHint(below(backup)), path: below(backup), io: io) }
            default:
                result.problems.append((operand, "not a regular file or directory"))
            }
        }
        return result
    }

    /// The message for a directory that could not be read (`ls`'s words).
    static func unreadableMessage(_ error: SystemError) -> String { "cannot open the directory: \(error)" }

    /// Whether a relative path's file name (after its last `/` byte) matches one of the globs,
    /// given as their ``PathBytes`` C strings (byte by byte, as the shell would: both go to
    /// `fnmatch` as their ``PathBytes``).
    static func name(_ relative: String, matches patterns: [[CChar]]) -> Bool {
        let name = relative.utf8.lastIndex(of: UInt8(ascii: "/")).map { String(relative[relative.utf8.index(after: $0)...]) } ?? relative
        return PathBytes.withCString(name) { name in patterns.contains { fnmatch($0, name, 0) == 0 } }
    }

    /// A file operand's place below OUT: its path as given, without a leading `/` or `.`
    /// and `..` parts (`a/x.plist` -> `a/x.plist`, `/data/x.plist` -> `data/x.plist`).
    static func mirrored(_ path: String) -> String {
        // Joined by hand: the standard library's `joined(separator:)` is not specialised, and
        // looks its elements' conformance up at run time on every verify.
        var mirrored = ""
        for part in path.split(separator: "/") where part != "." && part != ".." {
            mirrored += mirrored.isEmpty ? String(part) : "/" + String(part)
        }
        return mirrored
    }

    /// A backup an earlier `--in-place` run left: `x.plist<suffix>` beside `x.plist`
    /// (`x.plist.orig.plist` with `--backup .orig.plist`).
    static func isBackup(_ relative: String, among names: Set<ExactKey>) -> Bool {
        var candidate = Substring(relative)
        while let dot = candidate.utf8.lastIndex(of: UInt8(ascii: ".")) {
            candidate = candidate[..<dot]
            if names.contains(ExactKey(String(candidate))) { return true }
        }
        return false
    }

    /// What to say of a directory operand that gave no input (``Result/empty``): with
    /// `--allow-empty`, a note where other files were seen (nil for an empty directory);
    /// without, the reason the run fails, ending with the flag that accepts it.
    /// - Parameter nothing: `nothing to check`, `nothing to migrate`.
    func emptyMessage(others: Int, allowed: Bool, nothing: String) -> String? {
        let unmatched = "no file matches \(includes.map(UntrustedText.escaped).joined(separator: ", ")) (\(others) other file\(others == 1 ? "" : "s")); "
            + "choose them with --include GLOB"
        if allowed { return others > 0 ? unmatched : nil }
        return others > 0 ? "\(nothing): \(unmatched), or pass --allow-empty"
            : "\(nothing): no regular file below it (links are not followed); pass --allow-empty to accept that"
    }
}

/// A set of files by inode and device, kept in arrays: no `Set`, because a process's first
/// `Set` or `Dictionary` (even one only destroyed) costs a scan of every protocol conformance
/// in the binary, a visible share of a small `verify`'s start (docs/performance.md). The
/// latest inserts stay in a short list; every ``mergeEvery`` of them are merged into a sorted
/// array, searched by halves, so a walk of thousands of files stays fast.
struct InodeSet: Sendable {
    /// How many inodes wait in the short list before a merge.
    static let mergeEvery = 32

    /// Ascending by device, then inode.
    private var sorted: [FileIdentity.Inode] = []
    /// The latest inserts, in no order.
    private var recent: [FileIdentity.Inode] = []

    private static func precedes(_ a: FileIdentity.Inode, _ b: FileIdentity.Inode) -> Bool {
        a.device != b.device ? a.device < b.device : a.inode < b.inode
    }

    /// Whether `inode` is in the set.
    func contains(_ inode: FileIdentity.Inode) -> Bool {
        if recent.contains(where: { $0 == inode }) { return true }
        var low = 0, high = sorted.count
        while low < high {
            let middle = low + (high - low) / 2
            if Self.precedes(sorted[middle], inode) { low = middle + 1 } else { high = middle }
        }
        return low < sorted.count && sorted[low] == inode
    }

    /// Adds `inode`; false when it was in the set already.
    mutating func insert(_ inode: FileIdentity.Inode) -> Bool {
        if contains(inode) { return false }
        recent.append(inode)
        if recent.count == Self.mergeEvery { merge() }
        return true
    }

    private mutating func merge() {
        recent.sort(by: Self.precedes)
        var merged: [FileIdentity.Inode] = []
        merged.reserveCapacity(sorted.count + recent.count)
        var i = 0, j = 0
        while i < sorted.count || j < recent.count {
            if j == recent.count || (i < sorted.count && Self.precedes(sorted[i], recent[j])) {
                merged.append(sorted[i])
                i += 1
            } else {
                merged.append(recent[j])
                j += 1
            }
        }
        sorted = merged
        recent.removeAll(keepingCapacity: true)
    }
}
