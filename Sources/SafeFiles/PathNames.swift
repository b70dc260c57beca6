package import FileErrors
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// What a path names: an output looked at once (``SafeFile/Output``), names that reach an open
// descriptor (`/dev/stdin`, `/proc/self/fd/N`) and where output may go through them, links
// resolved, a path's directory and base name.
extension SafeFile {
    /// An output path looked at once, for every question asked of it before and during a write:
    /// whether it names an open descriptor (``namesDescriptor``), what is there (``status``), and
    /// the folder its file goes into, held (``HeldFolder``), which the iPhone-backup rule and the
    /// writer then ask about and which no later change of the path can move. A caller that checks
    /// an output before it writes (`migrate -o`: a terminal, preferences it would lose) looks once
    /// and gives the look to ``stage(_:to:options:)``; the file goes into the folder looked at.
    ///
    /// The descriptor-name rule: a path reaches a file through an open descriptor of this process,
    /// not by the file's own name, when it is `/dev/stdin`, `/dev/stdout`, `/dev/stderr`,
    /// `/dev/fd/N`, `/proc/self/fd/N` (any `/proc/PID/fd` or `/proc/PID/task/TID/fd` folder, by
    /// the path's text or where the kernel has its folder), or a symbolic link (chain) to one of
    /// those. Such a name means whatever the descriptor is at the moment (`ycft set /dev/stdin <
    /// prefs.plist` would rewrite prefs.plist), so it is never changed in place. Decided from
    /// names, links and folders: no file is opened.
    package final class Output {
        /// The path, as given.
        package let path: String
        /// Whether the path names an open descriptor (the rule above).
        package let namesDescriptor: Bool
        /// The descriptor of this process it names; nil when it names none, or another process's.
        let descriptor: Int32?
        /// The path's folder, held, or why it could not be opened.
        let folder: Result<HeldFolder, SystemError>
        /// What the path names, not followed (nil: nothing).
        let entry: Result<FileStatus?, SystemError>
        /// The file a write reaches, not followed (the path's own, or a symbolic link's resolved
        /// target) and its folder; nil when nothing is there.
        let reached: Result<Reached?, FileError>

        /// A file a write reaches.
        struct Reached {
            let target: String
            let status: FileStatus
            let folder: Result<HeldFolder, SystemError>
        }

        /// Looks at `path`.
        package init(_ path: String) {
            let folder = HeldFolder.open(directory(of: path))
            let entry = Self.entry(path, in: folder)
            let named = Self.descriptor(path, folder, entry)
            (self.path, self.folder, self.entry, namesDescriptor, descriptor) = (path, folder, entry, named != nil, named ?? nil)
            guard case let .success(seen?) = entry, seen.kind == .symbolicLink else {
                reached = entry.map { $0.map { Reached(target: path, status: $0, folder: folder) } }.mapError { FileError(.write, path, .system($0)) }
                return
            }
            guard let target = realPath(path) else {
                let failure = SystemError.current
                // untested: a race, `?? "?"` when the dangling link is removed between realpath and readlink
                reached = .failure(FileError(.write, path, failure.errno == ENOENT ? .danglingLink(target: linkText(path) ?? "?") : .system(failure)))
                return
            }
            let held = HeldFolder.open(directory(of: target))
            // untested: a race, the file realpath resolved removed, or a folder on its way closed to search, in between
            let status: Result<FileStatus, SystemError> = Self.entry(target, in: held).flatMap { $0.map { .success($0) } ?? .failure(SystemError(errno: ENOENT)) }
            // untested: as above
            reached = status.map { Reached(target: target, status: $0, folder: held) }.mapError { FileError(.write, target, .system($0)) }
        }

        /// An output nothing is known of: no descriptor name, nothing there (an in-memory file system's).
        package init(unlooked path: String) {
            (self.path, namesDescriptor, descriptor) = (path, false, nil)
            (folder, entry, reached) = (.failure(SystemError(errno: ENOENT)), .success(nil), .success(nil))
        }

        /// The status of the file a write reaches (a link followed); nil when there is none.
        package var status: FileStatus? { if case let .success(reached?) = reached { reached.status } else { nil } }

        /// Whether the output may be a terminal: a descriptor name, or a character device.
        package var mayBeTerminal: Bool { namesDescriptor || status?.kind == .characterDevice }

        /// Where output to a descriptor name may go (``SafeFile/standardStream(forOutput:confidential:)``).
        package func standardStream(confidential: Bool = false) throws(FileError) -> Int32? {
            guard namesDescriptor else { return nil }
            if confidential { throw FileError(.write, path, .descriptorNotPrivate) }
            if let descriptor, descriptor == 1 || descriptor == 2 { return descriptor }
            throw FileError(.write, path, .descriptorName)
        }

        /// What `path` names, not followed: looked at in its folder where that is held, else by the path.
        private static func entry(_ path: String, in folder: Result<HeldFolder, SystemError>) -> Result<FileStatus?, SystemError> {
            let seen: Result<FileStatus, SystemError>
            let name = path.utf8.lastIndex(of: UInt8(ascii: "/")).map { Substring(path.utf8[path.utf8.index(after: $0)...]) } ?? Substring(path)
            if case let .success(held) = folder, !name.isEmpty, name != ".", name != ".." {
                seen = FileStatus.of(held.at(String(name)), in: held.fd, followLinks: false)
            } else {
                seen = FileStatus.of(path, followLinks: false)
            }
            if case let .failure(error) = seen, error.errno == ENOENT { return .success(nil) }
            return seen.map { $0 }
        }

        /// The rule along the chain of links from `path` (40 names, as the kernel follows them):
        /// nil when it names no descriptor, else the descriptor of this process it names, if any.
        private static func descriptor(_ path: String, _ folder: Result<HeldFolder, SystemError>,
                                       _ entry: Result<FileStatus?, SystemError>) -> Int32?? {
            var (current, folder, entry) = (path, folder, entry)
            for _ in 0..<40 {
                if let named = descriptor(named: current, in: folder) { return named }
                guard case let .success(seen?) = entry, seen.kind == .symbolicLink,
                      // untested: a race, the link removed or replaced between the lstat and the readlink
                      let text = linkText(current) else { return nil }
                current = text.hasPrefix("/") ? text : directory(of: current) + "/" + text
                folder = HeldFolder.open(directory(of: current))
                entry = Self.entry(current, in: folder)
            }
            return nil  // a loop of links: opening it fails (ELOOP)
        }

        /// Whether `path`, in `folder`, is a descriptor name by its text or by where the kernel has
        /// its folder: nil when not, else the descriptor of this process it names, if any.
        private static func descriptor(named path: String, in folder: Result<HeldFolder, SystemError>) -> Int32?? {
            var byText = false
            if startsAtDevOrProc(path) {
                let name = lexicallyNormalized(path)
                if let number = descriptorPath(name) { return number }
                if name.hasPrefix("/dev/fd/") { return .some(nil) }
                byText = isDescriptorDirectory(directory(of: name))
            }
            guard case let .success(held) = folder, isDescriptorDirectory(held.path) else { return byText ? .some(nil) : nil }
            let process = held.path.split(separator: "/")[1]
            guard process == "self" || process == "thread-self" || Int32(process) == getpid() else { return .some(nil) }
            return .some(descriptorNumber(baseName(path)))
        }

        /// Whether the first part of `path` that is not empty or `.` is `dev` or `proc`, as that of
        /// every descriptor name by its text is (on the bytes, no `String` made).
        private static func startsAtDevOrProc(_ path: String) -> Bool {
            var rest = Substring(path).utf8
            while rest.first == UInt8(ascii: "/") || rest.starts(with: "./".utf8) || rest.elementsEqual(".".utf8) { rest = rest.dropFirst() }
            func part(_ name: String) -> Bool { rest.starts(with: name.utf8) && rest.dropFirst(name.utf8.count).first.map { $0 == UInt8(ascii: "/") } ?? true }
            return part("dev") || part("proc")
        }
    }

    /// Whether `path` reaches a file through an open descriptor of this process rather than by
    /// the file's own name (``Output``'s rule).
    package static func namesDescriptor(_ path: String) -> Bool { Output(path).namesDescriptor }

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
        try Output(path).standardStream(confidential: confidential)
    }

    /// Whether `path` (a link followed) is a terminal device (`/dev/tty`, `/dev/pts/3`,
    /// `/dev/console`): a character device that `isatty(3)` calls a terminal. Only a character
    /// device is opened to ask its driver, write-only with `O_NOCTTY` (it never becomes the
    /// controlling terminal) and `O_NONBLOCK` (the open never waits), and closed at once. A
    /// descriptor name is not asked here (``standardStream(forOutput:confidential:)`` says
    /// which stream it is); false when the device cannot be opened.
    package static func isTerminalDevice(_ path: String) -> Bool {
        let output = Output(path)
        guard output.status?.kind == .characterDevice, !output.namesDescriptor else { return false }
        let fd = open(PathBytes.cString(path), O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return isatty(fd) != 0
    }

    private static func descriptorNumber(_ text: String) -> Int32? {
        guard let n = Int32(text), n >= 0, !text.hasPrefix("+") else { return nil }
        return n
    }

    /// `/proc/self/fd`, `/proc/thread-self/fd`, `/proc/PID/fd`, `/proc/PID/task/TID/fd`.
    private static func isDescriptorDirectory(_ directory: String) -> Bool {
        // Most folders are told by their last two bytes.
        guard directory.utf8.suffix(2).elementsEqual("fd".utf8) else { return false }
        let parts = directory.split(separator: "/", omittingEmptySubsequences: true)
        guard parts.first == "proc", parts.last == "fd" else { return false }
        return parts.count == 3 || (parts.count == 5 && parts[2] == "task")
    }

    /// `a//b/./c` as `a/b/c` (`..` kept: it depends on links).
    private static func lexicallyNormalized(_ path: String) -> String {
        let parts = path.split(separator: "/", omittingEmptySubsequences: true).filter { $0 != "." }
        return (path.hasPrefix("/") ? "/" : "") + parts.joined(separator: "/")
    }

    /// The directory part of a path (`.` when there is none), cut at its last `/` byte: a name
    /// that starts with a combining mark makes one character with the slash before it.
    package static func directory(of path: String) -> String {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return "." }
        return slash == path.utf8.startIndex ? "/" : String(Substring(path.utf8[..<slash]))
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
            for prefix in ["/dev/fd/", "/proc/self/fd/"] where path.hasPrefix(prefix) { return descriptorNumber(String(path.dropFirst(prefix.count))) }
            return nil
        }
    }

    /// The last part of a path (trailing `/`s left out), cut at `/` bytes; `/` for the root.
    static func baseName(_ path: String) -> String {
        let bytes = path.utf8
        guard let last = bytes.lastIndex(where: { $0 != UInt8(ascii: "/") }) else { return path }
        let start = bytes[...last].lastIndex(of: UInt8(ascii: "/")).map(bytes.index(after:)) ?? bytes.startIndex
        return String(Substring(bytes[start...last]))
    }

    /// `realpath(3)` of `path` (every link resolved), nil when it does not resolve.
    package static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(PathBytes.cString(path), nil) else { return nil }
        defer { free(resolved) }
        return PathBytes.decode(cString: resolved)
    }

    /// The text of the symbolic link at `path` (`readlink(2)`), nil when it is none.
    package static func linkText(_ path: String) -> String? {
        // Most texts fit in 1 KiB, which lives on the stack (no allocation large enough to make
        // glibc merge the small blocks freed so far); a text that fills it is read again whole.
        for size in [1024, Int(PATH_MAX)] {
            let (count, text): (Int, String) = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: size) { buffer in
                // unreachable: an allocation of at least 1 KiB has an address
                guard let base = buffer.baseAddress else { return (-1, "") }
                let n = base.withMemoryRebound(to: CChar.self, capacity: size) { out in PathBytes.withCString(path) { readlink($0, out, size) } }
                return (n, n < 0 ? "" : PathBytes.decode(UnsafeBufferPointer(rebasing: buffer[..<n])))
            }
            if count < size || size == PATH_MAX { return count < 0 ? nil : text }
        // unreachable: (the end below) the loop returns at PATH_MAX
        }
        return nil
    }
}
