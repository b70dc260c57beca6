import Plist
import SafeFiles
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
    var includes: [String] = ["*.plist"]

    /// One input.
    struct Input {
        /// The path to read.
        let path: String
        /// Its place below an output directory: its path below the directory operand, or a file
        /// operand's own path without a leading `/` or `.`/`..` parts.
        let mirror: String
        /// Whether it was given as a file operand.
        let fileOperand: Bool
    }

    /// What the walk found, and what it could not use.
    struct Result {
        var inputs: [Input] = []
        /// Operands that are missing, unreadable directories or special files: (path, message).
        var problems: [(path: String, message: String)] = []
        /// Directories in which no file matched but others exist: (path, files seen).
        var unmatched: [(path: String, others: Int)] = []
        /// The files the inputs name (so "is this output one of the inputs?" needs no new look).
        var inodes = Set<FileIdentity.Inode>()
    }

    /// Expands the operands; `-` (standard input) passes through as a file operand.
    func expand(_ operands: [String], io: CommandIO) -> Result {
        var result = Result()
        func add(_ path: String, mirror: String, fileOperand: Bool, status: FileStatus?) {
            if let status, !result.inodes.insert(FileIdentity.Inode(status.identity)).inserted { return }
            result.inputs.append(Input(path: path, mirror: mirror, fileOperand: fileOperand))
        }
        for operand in operands {
            if operand == "-" {
                result.inputs.append(Input(path: operand, mirror: operand, fileOperand: true))
                continue
            }
            guard let status = io.fileStatus(operand) else {
                // Nothing there (or no file system to ask): reading it says what is wrong.
                result.inputs.append(Input(path: operand, mirror: Self.mirrored(operand), fileOperand: true))
                continue
            }
            switch status.kind {
            case .regular:
                add(operand, mirror: Self.mirrored(operand), fileOperand: true, status: status)
            case .directory:
                let files: [String]
                do { files = try io.listFiles(operand) } catch {
                    result.problems.append((operand, "cannot list: \(error)"))
                    continue
                }
                let matching = files.filter(matches)
                let names = Set(matching)
                if matching.isEmpty && !files.isEmpty { result.unmatched.append((operand, files.count)) }
                for relative in matching where !Self.isBackup(relative, among: names) {
                    let path = operand.hasSuffix("/") ? operand + relative : "\(operand)/\(relative)"
                    add(path, mirror: relative, fileOperand: false, status: io.fileStatus(path))
                }
            default:
                result.problems.append((operand, "not a regular file or directory"))
            }
        }
        return result
    }

    /// Whether a relative path's file name matches one of the globs.
    func matches(_ relative: String) -> Bool {
        let name = relative.split(separator: "/").last.map(String.init) ?? relative
        return includes.contains { fnmatch($0, name, 0) == 0 }
    }

    /// A file operand's place below OUT: its path as given, without a leading `/` or `.`
    /// and `..` parts (`a/x.plist` -> `a/x.plist`, `/data/x.plist` -> `data/x.plist`).
    static func mirrored(_ path: String) -> String {
        path.split(separator: "/").filter { $0 != "." && $0 != ".." }.joined(separator: "/")
    }

    /// A backup an earlier `--in-place` run left: `x.plist<suffix>` beside `x.plist`
    /// (`x.plist.orig.plist` with `--backup .orig.plist`).
    static func isBackup(_ relative: String, among names: Set<String>) -> Bool {
        var candidate = Substring(relative)
        while let dot = candidate.lastIndex(of: ".") {
            candidate = candidate[..<dot]
            if names.contains(String(candidate)) { return true }
        }
        return false
    }

    /// The stderr line for a directory where nothing matched.
    func unmatchedNote(_ path: String, others: Int) -> String {
        "ycft: \(Ycft.shown(path)): no file matches \(includes.map(UntrustedText.escaped).joined(separator: ", ")) (\(others) other file\(others == 1 ? "" : "s")); "
            + "choose them with --include GLOB\n"
    }
}
