import FirstTimeArchive
import Plist
import SafeFiles

/// `ycft pack`: records in the JSON form to a legacy archive.
enum PackCommand {
    static func run(_ arguments: [String], io: CommandIO) throws(UsageError) -> Ycft.Exit {
        var args = Arguments(arguments, spec: .pack)
        var format = PlistFormat.binary
        var output = "-"
        var limit = PlistLimits.default.maxInputSize
        var force = false
        var into: String?
        var key = LegacyArchive.defaultsKey
        while let option = try args.nextOption() {
            switch option.name {
            case "--format":
                throw UsageError("'--format' is now '--plist-format binary|xml' ('--format' names report formats elsewhere)")
            case "--plist-format":
                let value = try args.value(for: "--plist-format", inline: option.inline)
                guard let f = PlistFormat(rawValue: value) else {
                    throw UsageError("The value '\(value)' is invalid for '--plist-format <format>': expected 'binary' or 'xml'")
                }
                format = f
            case "-o", "--output":
                output = try args.value(for: option.name, inline: option.inline)
            case "--into": into = try args.value(for: "--into", inline: option.inline)
            case "--key": key = try args.value(for: "--key", inline: option.inline)
            case "--force":
                force = true
            case "--max-input-size":
                limit = try Ycft.parseSize(try args.value(for: "--max-input-size", inline: option.inline))
            default: throw UsageError("Unknown option '\(option.name)'")
            }
        }
        guard args.operands.count == 1 else {
            throw UsageError(args.operands.isEmpty ? "Missing expected argument 'FILE.json|-'" : "Unexpected argument '\(args.operands[1])'")
        }
        let path = args.operands[0]
        if into != nil && output != "-" { throw UsageError("Use only one of '-o' and '--into'") }
        do throws(Ycft.Failure) {
            let bytes = try Ycft.readInput(path, io: io, limit: limit)
            let archive: [UInt8]
            do {
                let records = try RecordsFormat.records(fromJSON: bytes)
                archive = try LegacyArchive.encode(records, format: format)
            } catch {
                // A plist or an archive given to pack (`ycft pack prefs.plist`): dump was probably meant.
                let hint = PropertyList.detectFormat(bytes) == nil ? "" : "; it is a property list: did you mean 'ycft dump \(Ycft.shown(path))'?"
                throw Ycft.Failure(.content, Ycft.display(path), error.description + hint)
            }
            if let into {
                // Into a defaults file: the archive under KEY, every other key in place. KEY
                // must hold YCFirstTime's archive or nothing (the library's one judge says).
                let common = EditCommands.Common(key: key, force: force, limits: PlistLimits.default)
                return EditCommands.rewriteState(into, common, io) { (bytes: [UInt8]) throws(Ycft.Failure) -> StateWriter.Rewrite? in
                    let file = try EditCommands.classified(bytes, common)
                    return try EditCommands.judged { () throws(StateWriter.Failure) in try StateWriter.put(archive, into: file) }
                }
            }
            try Ycft.refuseBinaryOnTerminal(archive, to: output, io: io)
            if Ycft.isStandardOutput(output) {
                io.writeStdout(archive)
            } else {
                if !force, let refusal = OutputGuard.refusal(output, replacingWith: archive, key: key, io: io,
                                                            hint: "Use 'ycft pack --into \(Ycft.shown(output))' to put the archive into it, or --force to replace it") {
                    throw Ycft.Failure(.trouble, output, refusal)
                }
                do {
                    _ = try io.writeFile(output, archive, SafeFile.WriteOptions(replaceReadOnly: force))
                } catch {
                    throw Ycft.failure(error)
                }
            }
            return .success
        } catch {
            return error.report(io)
        }
    }
}
