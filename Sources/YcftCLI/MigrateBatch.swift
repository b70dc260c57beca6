import PlistCore
import SafeFiles
import FileErrors

extension MigrateCommand {
    /// One input file and where its result goes.
    struct Job: Sendable {
        let path: String
        let output: String?
    }

    /// The files of one run and where each goes, decided before anything is written.
    struct Batch {
        var jobs: [Job] = []
        /// The operands the walk could not read, each a failed file (trouble).
        var unreadable: [FileReport] = []
        /// Directory operands with nothing to migrate, without --allow-empty (trouble, exit 2).
        var emptyDirectories = 0
        /// The files the walk found (inode and device), to tell a report path that is one of them.
        var inputs = InodeSet()

        /// Expands the operands (directories recursively, `*.plist`, backups of earlier runs
        /// excepted), drops a file named twice, and gives each job its output.
        /// - Throws: a failure (exit 2, nothing written) when two inputs would be written to
        ///   one output, or an output is one of the inputs.
        init(_ operands: [String], mode: Destination, walk: FileWalk, allowEmpty: Bool, io: CommandIO) throws(Ycft.Failure) {
            let walked = walk.expand(operands, io: io)
            unreadable = walked.problems.map { FileReport(path: $0.path, error: $0.message, trouble: true) }
            for directory in walked.empty {
                guard let message = walk.emptyMessage(others: directory.others, allowed: allowEmpty, nothing: "nothing to migrate") else { continue }
                io.writeStderr("ycft: \(Ycft.shown(directory.path)): \(message)\n")
                if !allowEmpty { emptyDirectories += 1 }
            }
            let found = walked.inputs
            inputs = walked.inodes
            // OUT as it is before the run (nil: not there), looked at once.
            var outStatus: FileStatus?
            switch mode {
            case .dryRun: jobs = found.map { Job(path: $0.path, output: nil) }
            case .inPlace: jobs = found.map { Job(path: $0.path, output: $0.path) }
            case let .output(out):
                outStatus = io.fileStatus(out)
                let single = operands.count == 1 && found.count == 1 && found[0].fileOperand
                    && outStatus?.kind != .directory && !out.hasSuffix("/")
                // (Nothing found: the walk's problems say why, as for any output.)
                if SafeFile.descriptorPath(out) != nil && !single && !found.isEmpty {
                    throw Ycft.Failure(.trouble, nil, "\(Ycft.shown(out)): standard output and other descriptors take one input file; give a directory for several")
                }
                // An existing file there: one refusal, not one "cannot create the directory" a file.
                if !single && !found.isEmpty, let status = outStatus, status.kind != .directory {
                    throw Ycft.Failure(.trouble, nil, "\(Ycft.shown(out)): not a directory; several inputs, or a directory operand, go into -o DIRECTORY")
                }
                jobs = found.map { item in
                    Job(path: item.path, output: single ? out : (out.hasSuffix("/") ? out + item.mirror : "\(out)/\(item.mirror)"))
                }
            }
            // Refuse outputs that meet, and outputs that are inputs (none is below an OUT that is not there).
            guard case .output = mode else { return }
            let outExists = outStatus != nil
            // Each output's spelling normalized once (a string walk per job).
            let spellings = jobs.map { Self.normalized($0.output ?? "") }
            // By bytes, as the kernel names files (`é` and `e` + U+0301 are two outputs); each
            // spelling's first job, and the inputs of those that several jobs share.
            var firstJob: [ExactKey: Int] = [:]
            firstJob.reserveCapacity(jobs.count)
            var shared: [Int: [String]] = [:]
            for (i, spelling) in spellings.enumerated() {
                if let first = firstJob[ExactKey(spelling)] {
                    shared[first, default: [jobs[first].path]].append(jobs[i].path)
                } else {
                    firstJob[ExactKey(spelling)] = i
                }
            }
            var problems: [String] = []
            for (i, job) in jobs.enumerated() {
                guard let output = job.output else { continue }
                if let inputs = shared[i] {
                    problems.append("\(Ycft.shown(output)): \(inputs.count) inputs would be written here: \(inputs.map(Ycft.shown).joined(separator: ", "))")
                }
                if outExists, let status = io.fileStatus(output), walked.inodes.contains(FileIdentity.Inode(status.identity)) {
                    problems.append("\(Ycft.shown(output)): the output is an input; use --in-place to rewrite a file")
                }
            }
            guard problems.isEmpty else {
                throw Ycft.Failure(.trouble, nil, problems.joined(separator: "\nycft: ") + "\nycft: nothing was written")
            }
        }

        /// `a/b/../c` and `a//c` as one spelling, for comparing outputs by bytes (`exactlyEqual`):
        /// split at each `/` byte, as the kernel splits a path (not at each `/` character: a
        /// combining mark after a slash makes one character of the two).
        static func normalized(_ path: String) -> String {
            let slash = UInt8(ascii: "/"), dot = UInt8(ascii: ".")
            var text = path
            return text.withUTF8 { bytes in
                // Most spellings are one already (no empty, `.` or `..` part): kept as they are.
                var start = 0, plain = true
                for i in 0...bytes.count where i == bytes.count || bytes[i] == slash {
                    let n = i - start
                    if n == 0 ? i != 0 : n <= 2 && bytes[start] == dot && (n == 1 || bytes[start + 1] == dot) {
                        plain = false
                        break
                    }
                    start = i + 1
                }
                if plain { return path }
                var parts: [Slice<UnsafeBufferPointer<UInt8>>] = []
                // `a//b`, `a/./b`: nothing; `a/../b`: `b`.
                for part in bytes.split(separator: slash) where !part.elementsEqual(".".utf8) {
                    if part.elementsEqual("..".utf8), let last = parts.last, !last.elementsEqual("..".utf8) { parts.removeLast() } else { parts.append(part) }
                }
                var joined: [UInt8] = bytes.first == slash ? [slash] : []
                for (i, part) in parts.enumerated() {
                    if i > 0 { joined.append(slash) }
                    joined.append(contentsOf: part)
                }
                // Cut only at `/` bytes, so the bytes are the text's own, whole scalars.
                return String(decoding: joined, as: UTF8.self)
            }
        }
    }
}
