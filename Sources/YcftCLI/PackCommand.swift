import FirstTimeArchive
import FirstTimeCore
import Plist
import PlistCore
import SafeFiles
import FileErrors

/// `ycft pack`: records in the JSON form to a legacy archive.
enum PackCommand {
    struct Options {
        let format: PlistFormat
        /// `-o`: the archive's destination (`-` is standard output).
        let output: String
        /// `--into`: the defaults file to put the archive into, under `common.key`.
        let into: String?
        /// `--key`, `--force` and `--max-input-size`, as the edit commands take them.
        let common: EditCommands.Common
        /// The records JSON (`-` is standard input).
        let path: String

        init(_ parsed: ParsedArguments) throws(UsageError) {
            (format, output, into) = (try parsed.choice(.plistFormat), parsed.value(.output), parsed.given(.into))
            (common, path) = (EditCommands.Common(parsed), parsed.operands[0])
        }
    }

    static func run(_ arguments: [String], io: CommandIO) throws(UsageError) -> Ycft.Exit {
        let options = try Options(ParsedArguments(arguments, spec: .pack))
        do throws(Ycft.Failure) {
            let bytes = try Ycft.readInput(options.path, io: io, limit: options.common.limits.maxInputSize)
            let archive: [UInt8], records: FirstTimeRecords
            do {
                records = try RecordsFormat.records(fromJSON: bytes)
                archive = try LegacyArchive.encode(records, format: options.format)
            } catch {
                // A plist or an archive given to pack (`ycft pack prefs.plist`): dump was probably meant.
                let hint = PropertyList.detectFormat(bytes) == nil ? "" : "; it is a property list: did you mean 'ycft dump \(Ycft.shown(options.path))'?"
                throw Ycft.Failure(.content, Ycft.display(options.path), error.description + hint)
            }
            // Never write an archive that ycft itself would refuse to read with these limits
            // (many records: more values than the node ceiling of --max-input-size allows).
            func checkReadable(_ archive: [UInt8]) throws(Ycft.Failure) {
                do throws(PlistError) { try PropertyList.checkReadable(archive, limits: options.common.limits) } catch {
                    throw Ycft.Failure(.content, Ycft.display(options.path),
                                       "the archive would not be read back with these limits: \(error.description) (raise it with --max-input-size); nothing was written")
                }
            }
            if let into = options.into {
                // Into a defaults file: the archive under KEY, every other key in place. KEY
                // must hold YCFirstTime's archive or nothing (the library's one judge says).
                return EditCommands.rewriteState(into, options.common, io) { (bytes: [UInt8]) throws(Ycft.Failure) -> StateWriter.Rewrite? in
                    let file = try EditCommands.classified(bytes, options.common)
                    func refusal(_ error: FirstTimeError) -> Ycft.Failure {
                        EditCommands.writeRefusal(error, in: file) { error, _ in Ycft.Failure(.content, nil, error.description) }
                    }
                    // The archive there keeps its root's other keys, as YCFirstTime's save does.
                    let placed: [UInt8]
                    do throws(FirstTimeError) {
                        placed = try StateWriter.archive(of: records, format: options.format, for: file, force: options.common.force)
                    } catch { throw refusal(error) }
                    try checkReadable(placed)
                    do throws(FirstTimeError) { return try StateWriter.put(placed, of: records, into: file, force: options.common.force) } catch {
                        throw refusal(error)
                    }
                }
            }
            try checkReadable(archive)
            try Ycft.refuseBinaryOnTerminal(archive, to: options.output, io: io)
            // `pack -o records.json records.json` would replace the records with their archive.
            if options.path != "-", !Ycft.isStandardOutput(options.output), let target = io.fileStatus(options.output), let source = io.fileStatus(options.path),
               FileIdentity.Inode(target.identity) == FileIdentity.Inode(source.identity) {
                throw Ycft.Failure(.trouble, options.output, "the output is the input \(Ycft.shown(options.path)); nothing was written")
            }
            if Ycft.isStandardOutput(options.output) {
                io.writeStdout(archive)
            } else {
                let hint = "Use 'ycft pack --into \(Ycft.shown(options.output))' to put the archive into it, or --force to replace it"
                if !options.common.force, let refusal = OutputGuard.refusal(options.output, replacingWith: archive, key: options.common.key, io: io, hint: hint) {
                    throw Ycft.Failure(.trouble, options.output, refusal)
                }
                do {
                    _ = try io.writeFile(options.output, archive, SafeFile.WriteOptions(replaceReadOnly: options.common.force))
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
