import SafeFiles
import FileErrors

extension MigrateCommand {
    /// One input file and where its result goes.
    struct Job: Sendable {
        let path: String
        let output: String?
    }

    /// The jobs of one run, decided before anything is written.
    struct Plan {
        var jobs: [Job] = []
        /// Directory operands with nothing to migrate, without --allow-empty (trouble, exit 2).
        var emptyDirectories = 0
        /// The files the walk found (inode and device), to tell a report path that is one of them.
        var inputs = InodeSet()

        /// Expands the operands (directories recursively, `*.plist`, backups of earlier runs
        /// excepted), drops a file named twice, and gives each job its output.
        /// - Throws: a failure (exit 2, nothing written) when two inputs would be written to
        ///   one output, or an output is one of the inputs.
        static func make(_ operands: [String], mode: Destination, walk: FileWalk, allowEmpty: Bool, io: CommandIO,
                         reports: inout [FileReport]) throws(Ycft.Failure) -> Plan {
            let walked = walk.expand(operands, io: io)
            for problem in walked.problems {
                reports.append(FileReport(path: problem.path, status: "failed", error: problem.message, trouble: true))
            }
            var plan = Plan()
            for directory in walked.empty {
                guard let message = walk.emptyMessage(others: directory.others, allowed: allowEmpty, nothing: "nothing to migrate") else { continue }
                io.writeStderr("ycft: \(Ycft.shown(directory.path)): \(message)\n")
                if !allowEmpty { plan.emptyDirectories += 1 }
            }
            let found = walked.inputs
            plan.inputs = walked.inodes
            switch mode {
            case .dryRun: plan.jobs = found.map { Job(path: $0.path, output: nil) }
            case .inPlace: plan.jobs = found.map { Job(path: $0.path, output: $0.path) }
            case let .output(out):
                let single = operands.count == 1 && found.count == 1 && found[0].fileOperand
                    && io.fileStatus(out)?.kind != .directory && !out.hasSuffix("/")
                // (Nothing found: the walk's problems say why, as for any output.)
                if SafeFile.descriptorPath(out) != nil && !single && !found.isEmpty {
                    throw Ycft.Failure(.trouble, nil, "\(Ycft.shown(out)): standard output and other descriptors take one input file; give a directory for several")
                }
                plan.jobs = found.map { item in
                    Job(path: item.path, output: single ? out : (out.hasSuffix("/") ? out + item.mirror : "\(out)/\(item.mirror)"))
                }
            }
            // Refuse outputs that meet, and outputs that are inputs.
            guard case .output = mode else { return plan }
            var byOutput: [String: [String]] = [:]
            for job in plan.jobs { byOutput[normalized(job.output ?? ""), default: []].append(job.path) }
            var problems: [String] = []
            for job in plan.jobs {
                guard let output = job.output, let inputs = byOutput[normalized(output)] else { continue }
                if inputs.count > 1 && inputs[0] == job.path {
                    problems.append("\(Ycft.shown(output)): \(inputs.count) inputs would be written here: \(inputs.map(Ycft.shown).joined(separator: ", "))")
                }
                if let status = io.fileStatus(output), walked.inodes.contains(FileIdentity.Inode(status.identity)) {
                    problems.append("\(Ycft.shown(output)): the output is an input; use --in-place to rewrite a file")
                }
            }
            guard problems.isEmpty else {
                throw Ycft.Failure(.trouble, nil, problems.joined(separator: "\nycft: ") + "\nycft: nothing was written")
            }
            return plan
        }

        /// `a/b/../c` and `a//c` as one spelling, for comparing outputs.
        static func normalized(_ path: String) -> String {
            var parts: [Substring] = []
            for part in path.split(separator: "/") where part != "." {
                if part == "..", let last = parts.last, last != ".." { parts.removeLast() } else { parts.append(part) }
            }
            return (path.hasPrefix("/") ? "/" : "") + parts.joined(separator: "/")
        }
    }
}
