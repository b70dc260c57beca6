import FirstTimeArchive
import FirstTimeCore
import PlistCore
import SafeFiles

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
        /// `--launch-arguments`: print the archive as launch arguments in this style instead.
        let launchArguments: LaunchArguments.Style?
        /// The records JSON (`-` is standard input).
        let path: String

        init(_ parsed: ParsedArguments) throws(UsageError) {
            (format, output, into) = (try parsed.choice(.plistFormat), parsed.value(.output), parsed.given(.into))
            (common, path) = (EditCommands.Common(parsed), parsed.operands[0])
            launchArguments = parsed.given(.launchArguments) == nil ? nil : try parsed.choice(.launchArguments)
            if parsed.given(.key) != nil, into == nil, launchArguments == nil {
                throw UsageError("'--key' goes with '--into' or '--launch-arguments'")
            }
        }
    }

    static func run(_ arguments: [String], io: CommandIO) throws(UsageError) -> Ycft.Exit {
        let options = try Options(ParsedArguments(arguments, spec: .pack))
        do throws(Ycft.Failure) {
            let bytes = try Ycft.readInput(options.path, io: io, limit: options.common.limits.maxInputSize)
            let archive: [UInt8], records: FirstTimeRecords, findings: [ContractFinding]
            do {
                let judged = try RecordsFormat.judged(fromJSON: bytes)
                (records, findings) = (judged.records, judged.findings)
                archive = try LegacyArchive.encode(records, format: options.format)
            } catch {
                // A plist or an archive given to pack (`ycft pack prefs.plist`): dump was probably meant.
                let hint = PropertyList.detectFormat(bytes) == nil ? "" : "; it is a property list: did you mean 'ycft dump \(Ycft.shown(options.path))'?"
                throw Ycft.Failure(.content, options.path, error.description + hint)
            }
            // Never write an archive that ycft itself would refuse to read with these limits
            // (many records: more values than the node ceiling of --max-input-size allows).
            func checkReadable(_ archive: [UInt8]) throws(Ycft.Failure) {
                do throws(PlistError) { try PropertyList.checkReadable(archive, limits: options.common.limits) } catch {
                    throw Ycft.Failure(.content, options.path,
                                       "the archive would not be read back with these limits: \(error.description) (raise it with --max-input-size); nothing was written")
                }
            }
            // Stored as written (a dump of a device's archive may hold one), but said.
            Ycft.warn(findings, path: options.path, io: io)
            if let into = options.into {
                // Into a defaults file: the archive under KEY, every other key in place. KEY
                // must hold YCFirstTime's archive or nothing (the library's one judge says).
                return EditCommands.rewriteState(into, options.common, io) { (bytes: [UInt8]) throws(Ycft.Failure) -> StateEdit.Report? in
                    // A state the device discards is not refused (StateEdit's put replaces it whole).
                    let edit = try EditCommands.editing(bytes, options.common)
                    func refusal(_ error: FirstTimeError) -> Ycft.Failure {
                        EditCommands.writeRefusal(error, in: edit.file) { error, _ in Ycft.Failure(.content, nil, error.description) }
                    }
                    // The archive there keeps its root's other keys, as YCFirstTime's save does.
                    let placed: [UInt8]
                    do throws(FirstTimeError) { placed = try edit.archive(of: records, format: options.format) } catch { throw refusal(error) }
                    try checkReadable(placed)
                    do throws(FirstTimeError) { return try edit.apply(.put(placed, of: records)) } catch { throw refusal(error) }
                }
            }
            try checkReadable(archive)
            if let style = options.launchArguments {
                io.writeStdout(Array(LaunchArguments.text(archive, key: options.common.key, style: style).utf8))
                return .success
            }
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
                if !options.common.force, let refusal = OutputGuard.refusal(io.lookAtOutput(options.output), replacingWith: archive, key: options.common.key, io: io, hint: hint) {
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

/// Launch arguments that put an app in a state for one run: UserDefaults' argument domain
/// (`NSArgumentDomain`) reads `-KEY VALUE` pairs from the process's arguments, a value in
/// old-style property-list syntax as what it spells (`<62706c69...>` is data), and comes first
/// in the search list, ahead of what the app saved (docs/workflows.md).
enum LaunchArguments {
    enum Style: String { case shell, swift }

    /// `-KEY <hex>` for a shell's command line (each word quoted where the shell would take it
    /// apart), or `["-KEY", "<hex>"]` as a Swift array literal; with a line feed.
    static func text(_ data: [UInt8], key: String, style: Style) -> String {
        let digits = Array("0123456789abcdef".utf8)
        let value = "<" + String(decoding: data.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0xF)]] }, as: UTF8.self) + ">"
        switch style {
        case .shell: return shellWord("-" + key) + " " + shellWord(value) + "\n"
        case .swift: return "[" + swiftString("-" + key) + ", " + swiftString(value) + "]\n"
        }
    }

    /// `word` as one shell word: as it is when every character is one the shell takes
    /// literally, else in single quotes (`'` as `'\''`).
    static func shellWord(_ word: String) -> String {
        let plain = !word.isEmpty && word.unicodeScalars.allSatisfy {
            $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "-_.,:/=+@%".unicodeScalars.contains($0))
        }
        return plain ? word : "'" + word.replacingEach(["'": "'\\''"]) + "'"
    }

    /// `text` as a Swift string literal: `"` and `\` escaped, any other character that is not
    /// printable ASCII as `\u{...}`.
    static func swiftString(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case " "..."~": out.unicodeScalars.append(scalar)
            default: out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            }
        }
        return out + "\""
    }
}
