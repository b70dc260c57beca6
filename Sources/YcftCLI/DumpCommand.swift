import FirstTimeArchive
import FirstTimeCore
import KeyedArchive
import OrderedJSON
import Plist
import PlistCore

/// `ycft dump`: the records of an archive or defaults file as JSON on standard output; with
/// `--raw`, any archive's object graph (or any plist); with `--objects`, the flat object table.
enum DumpCommand {
    enum Mode { case records, raw, objects }

    struct Options {
        let mode: Mode
        /// With `--raw`: each shared object once.
        let refs: Bool
        /// `--key` as given (with `--raw` or `--objects`, the archive under it instead of the file).
        let key: String?
        /// The key the records are read under: `--key`, else the spec's default.
        let stateKey: String
        let compact: Bool
        let limits: PlistLimits
        /// The input (`-` is standard input); with `--backup`, set to the file in the backup.
        var path: String
        let backup: BackupInput?

        init(_ parsed: ParsedArguments) throws(UsageError) {
            let (raw, objects) = (parsed.flag(.raw), parsed.flag(.objects))
            mode = raw ? .raw : objects ? .objects : .records
            (refs, key, compact, limits) = (parsed.flag(.refs), parsed.given(.key), parsed.flag(.compact), parsed.limits)
            (backup, path) = (try BackupInput(parsed), parsed.operands.first ?? "")
            stateKey = parsed.value(.key)
        }
    }

    static func run(_ arguments: [String], io: CommandIO) throws(UsageError) -> Ycft.Exit {
        var options = try Options(ParsedArguments(arguments, spec: .dump))
        do throws(Ycft.Failure) {
            var io = io
            if let backup = options.backup { (options.path, io, _) = try backup.open(limits: options.limits, io: io) }
            let file = Ycft.display(options.path)
            let bytes = try Ycft.readInput(options.path, io: io, limit: options.limits.maxInputSize)
            let json: JSON
            switch options.mode {
            case .records:
                do throws(FirstTimeError) {
                    // As the device reads it: a value the app reads no state from is an empty state, with a warning.
                    guard let state = try StateFile(bytes, key: options.stateKey, limits: options.limits).deviceState() else {
                        throw .keyNotFound(options.stateKey)
                    }
                    Ycft.warn(state.findings, path: options.path, io: io)
                    // In pieces as it is made: no buffer of a large archive's whole text.
                    RecordsFormat.writeJSON(state.records, style: options.compact ? .compact : .pretty) { io.writeStdout($0) }
                    return .success
                } catch {
                    // A readable plist that does not hold a clean YCFirstTime archive: point at --raw.
                    if case .archive(.plist) = error {
                        throw Ycft.Failure(.content, file, error.description + packHint(bytes, options.path))
                    }
                    // Over the node or byte bounds, which grow with --max-input-size: --raw would not see more.
                    let plist: PlistError? = switch error {
                    case let .embeddedNotPlist(_, cause), let .archive(.plist(cause)): cause
                    default: nil
                    }
                    let hint = switch plist {
                    case .tooManyNodes?, .tooManyBytes?: "raise it with --max-input-size"
                    default: "ycft dump --raw shows everything it holds"
                    }
                    throw Ycft.Failure(.content, file, "\(error.description) (\(hint))")
                }
            case .raw, .objects:
                var value: PlistValue
                do { value = try LibPlist.read(bytes, limits: options.limits).value } catch {
                    throw Ycft.Failure(.content, file, error.description + packHint(bytes, options.path))
                }
                if let key = options.key {
                    // With --key, show the archive a defaults file holds under that key.
                    do { value = try StateFile(bytes, key: key, limits: options.limits).archivePlist() } catch {
                        throw Ycft.Failure(.content, file, error.description)
                    }
                }
                do {
                    json = options.mode == .raw ? try ArchiveDump.raw(value, shared: options.refs ? .references : .expand)
                        : try ArchiveDump.objects(value)
                } catch {
                    // A defaults file holding the archive: the way to its object table is --key.
                    if options.mode == .objects, options.key == nil,
                       (try? StateFile(bytes, limits: options.limits))?.forms.contains(.defaultsArchive) == true {
                        throw Ycft.Failure(.content, file, "a defaults file, not an archive; its archive's object table: "
                                           + "ycft dump --objects --key \(LegacyArchive.defaultsKey) \(Ycft.shown(options.path))")
                    }
                    // The library says what is wrong; the way out is a flag, which only this layer knows.
                    let hint = switch error {
                    case .expansionTooLarge: "; use --refs to print each object once"
                    case .notAnArchive: "; use --raw to see the property list"
                    case .graphTooDeep: "; use --objects to see the flat table"
                    }
                    throw Ycft.Failure(.content, file, error.description + hint)
                }
                for warning in ArchiveDump.warnings(in: json) { Ycft.warn(warning, path: options.path, io: io) }
            }
            io.writeStdout(json.bytes(style: options.compact ? .compact : .pretty))
            return .success
        } catch {
            return error.report(io)
        }
    }

    /// For records JSON given to dump (`ycft dump state.json`): the command that was probably
    /// meant; empty for anything else.
    static func packHint(_ bytes: [UInt8], _ path: String) -> String {
        guard PropertyList.detectFormat(bytes) == nil, let document = try? JSON.parse(bytes),
              document.members?.contains(where: { $0.key == "format" && $0.value == .string(RecordsFormat.formatName) }) == true
        else { return "" }
        return "; it holds records JSON: did you mean 'ycft pack \(Ycft.shown(path))'?"
    }
}
