package import FileErrors
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// What a path names: names that reach an open descriptor (`/dev/stdin`, `/proc/self/fd/N`) and
// where output may go through them, links resolved, a path's directory and base name.
extension SafeFile {
    /// Whether `path` reaches a file through an open descriptor of this process rather than by
    /// the file's own name: `/dev/stdin`, `/dev/stdout`, `/dev/stderr`, `/dev/fd/N`,
    /// `/proc/self/fd/N` (any `/proc/PID/fd` or `/proc/PID/task/TID/fd` directory), or a symbolic
    /// link (chain) to one of those. Such a name means whatever the descriptor is at the moment
    /// (`ycft set /dev/stdin < prefs.plist` would rewrite prefs.plist), so it is never changed
    /// in place. Decided from names and links alone: nothing is opened.
    package static func namesDescriptor(_ path: String) -> Bool {
        if isOrdinaryPath(path) { return false }
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

    /// True when `path` certainly names no open descriptor (``namesDescriptor(_:)`` is false),
    /// found with two `lstat`s and a look at its text, where the rule itself resolves every
    /// folder above the path (`realpath`, a `readlink` for each): a batch asks it of every
    /// output, several times. False says nothing; the rule then decides.
    ///
    /// It answers for each of the rule's three looks at the path:
    /// - the path's text: a descriptor name's first part (past `/`, `.` and empty parts) is
    ///   `dev` or `proc`;
    /// - its folder, resolved: a descriptor folder's last part is `fd`, and a folder whose last
    ///   part is a name other than `fd`, `.` and `..`, and not a link, resolves to a path that
    ///   ends in that name;
    /// - the path a link: the rule follows it, so a link is left to the rule.
    static func isOrdinaryPath(_ path: String) -> Bool {
        let slash = UInt8(ascii: "/"), dot = UInt8(ascii: ".")
        let bytes = Array(path.utf8)
        // The text: its first part that is not empty or `.`.
        var start = 0
        while start < bytes.count {
            var end = start
            while end < bytes.count && bytes[end] != slash { end += 1 }
            let part = bytes[start..<end]
            if !(part.isEmpty || part.elementsEqual([dot])) {
                if part.elementsEqual("dev".utf8) || part.elementsEqual("proc".utf8) { return false }
                break
            }
            start = end + 1
        }
        // The folder, as the rule resolves it (`directory(of:)`): none means `.`, which may be anywhere.
        guard let last = bytes.lastIndex(of: slash) else { return false }
        var folderEnd = last
        while folderEnd > 0 && bytes[folderEnd - 1] == slash { folderEnd -= 1 }
        // Past the root's slashes, the folder is the root: no descriptor folder.
        if folderEnd > 0 {
            let nameStart = (bytes[..<folderEnd].lastIndex(of: slash) ?? -1) + 1
            let name = bytes[nameStart..<folderEnd]
            if name.elementsEqual("fd".utf8) || name.elementsEqual([dot]) || name.elementsEqual([dot, dot]) { return false }
            // The text up to a slash, so whole scalars (a byte that is not UTF-8 is one, PathBytes).
            let folder = String(path[..<path.utf8.index(path.utf8.startIndex, offsetBy: folderEnd)])
            guard case let .success(status) = FileStatus.of(folder, followLinks: false),
                  status.kind != .symbolicLink else { return false }
        }
        // The path itself: a link is followed by the rule.
        if case let .success(status) = FileStatus.of(path, followLinks: false), status.kind == .symbolicLink { return false }
        return true
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
        guard case let .success(status) = FileStatus.of(path), status.kind == .characterDevice, !namesDescriptor(path) else { return false }
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
            for prefix in ["/dev/fd/", "/proc/self/fd/"] where path.hasPrefix(prefix) {
                return Int32(path.dropFirst(prefix.count)).flatMap { $0 >= 0 ? $0 : nil }
            }
            return nil
        }
    }

    static func baseName(_ path: String) -> String {
        path.utf8.split(separator: UInt8(ascii: "/")).last.map { String(Substring($0)) } ?? path
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
