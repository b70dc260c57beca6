import FileErrors
import FirstTimeArchive
import FirstTimeCore
import KeyedArchive
import OrderedJSON
import Plist
import PlistCore

/// `ycft dump`: the records of an archive or defaults file as JSON on standard output; with
/// `--raw`, any archive's object graph (or any plist); with `--objects`, the flat object table.
enum DumpCommand {
    enum Mode { case records, raw, objects, textconv }

    struct Options {
        let mode: Mode
        /// With `--raw`: each shared object once.
        let refs: Bool
        /// `--key` as given (with `--raw` or `--objects`, the archive under it instead of the file).
        let key: String?
        /// The key the records are read under: `--key`, else the spec's default.
        let stateKey: String
        let compact: Bool
        /// `--color`: the JSON in colour (never `--textconv`'s, which is git's to colour).
        let colour: Colour.When
        let limits: PlistLimits
        /// The input (`-` is standard input); with `--backup`, set to the file in the backup.
        var path: String
        let backup: BackupInput?

        init(_ parsed: ParsedArguments) throws(UsageError) {
            let (raw, objects) = (parsed.flag(.raw), parsed.flag(.objects))
            mode = raw ? .raw : objects ? .objects : parsed.flag(.textconv) ? .textconv : .records
            (refs, key, compact, limits) = (parsed.flag(.refs), parsed.given(.key), parsed.flag(.compact), parsed.limits)
            (backup, path) = (try BackupInput(parsed), parsed.operands.first ?? "")
            (stateKey, colour) = (parsed.value(.key), try parsed.choice(.color))
        }
    }

    static func run(_ arguments: [String], io: CommandIO) throws(UsageError) -> Ycft.Exit {
        var options = try Options(ParsedArguments(arguments, spec: .dump))
        do throws(Ycft.Failure) {
            var io = io
            if options.mode == .textconv, options.backup == nil {
                io.writeStdout(textconv(path: options.path, key: options.stateKey, limits: options.limits, compact: options.compact, io: io))
                return .success
            }
            io.colour = Colour(options.colour, io: io)
            if let backup = options.backup { (options.path, io, _) = try backup.open(limits: options.limits, io: io) }
            let file = Ycft.display(options.path)
            let bytes = try Ycft.readInput(options.path, io: io, limit: options.limits.maxInputSize)
            let json: JSON
            switch options.mode {
            case .textconv:
                io.writeStdout(textconv(bytes, key: options.stateKey, limits: options.limits, compact: options.compact))
                return .success
            case .records:
                do throws(FirstTimeError) {
                    // As the device reads it: a value the app reads no state from is an empty state, with a warning.
                    guard let state = try StateFile(bytes, key: options.stateKey, limits: options.limits).deviceState() else {
                        throw .keyNotFound(options.stateKey)
                    }
                    Ycft.warn(state.findings, path: options.path, io: io)
                    // In pieces as it is made: no buffer of a large archive's whole text (in colour, one).
                    let style: JSON.Style = options.compact ? .compact : .pretty
                    if io.colour.stdout {
                        Ycft.writeJSON(RecordsFormat.json(state.records, style: style), io: io)
                    } else {
                        RecordsFormat.writeJSON(state.records, style: style) { io.writeStdout($0) }
                    }
                    return .success
                } catch {
                    // A readable plist that does not hold a clean YCFirstTime archive: point at --raw.
                    if error.isNotPropertyList { throw Ycft.Failure(.content, file, error.description + packHint(bytes, options.path)) }
                    // Over the node or byte bounds, which grow with --max-input-size: --raw would not see more.
                    let hint = switch error.plistReadError {
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
            Ycft.writeJSON(json.bytes(style: options.compact ? .compact : .pretty), io: io)
            return .success
        } catch {
            return error.report(io)
        }
    }

    /// `dump --textconv FILE`: the file's bytes as ``textconv(_:key:limits:compact:)`` shows
    /// them, or one line for a file it does not read: one larger than `--max-input-size` (its
    /// size), what is not a regular file (refused by its kind before it is opened: a named pipe
    /// would keep git waiting for a writer, a device may never end), a file that cannot be read.
    /// Standard input (`-`) is read as a stream. The line does not name the file: git gives a
    /// temporary file's name for an older version, which would differ on every run.
    static func textconv(path: String, key: String, limits: PlistLimits, compact: Bool, io: CommandIO) -> [UInt8] {
        let limit = limits.maxInputSize
        let bytes: [UInt8]
        var size: Int64?
        do throws(FileError) {
            if path == "-" {
                bytes = try io.readStdin(limit, false)
            } else {
                let file = try io.readRegularFile(path, limit)
                (bytes, size) = (file.bytes, file.status?.identity.size)
            }
        } catch {
            let line = switch error.reason {
            case let .unsupportedKind(kind): "(\(kind.phrase), not shown: only a regular file is read)"
            case .isDirectory: "(a directory, not shown: only a regular file is read)"
            default: "(not shown: \(error.description))"
            }
            return Array((line + "\n").utf8)
        }
        guard bytes.count <= limit else {
            let what = if let size, size > Int64(limit) { "\(size) bytes" } else { "more than \(limit) bytes" }
            return Array("(\(what), not shown: over --max-input-size, \(limit) bytes)\n".utf8)
        }
        return textconv(bytes, key: key, limits: limits, compact: compact)
    }

    /// `dump --textconv`: `bytes` as stable, readable text for git's diff, whatever they hold
    /// (git shows a textconv that fails as an error): the records of an archive that holds
    /// state; a dictionary (a defaults file) as `--raw` prints it, with the records in place
    /// of the archive data under `key` where they read; any other property list as `--raw`
    /// prints it (each shared object once where expanding would be too large); and one line
    /// for bytes that are no property list, or no JSON can be made of.
    static func textconv(_ bytes: [UInt8], key: String, limits: PlistLimits, compact: Bool) -> [UInt8] {
        let style: JSON.Style = compact ? .compact : .pretty
        let value: PlistValue
        do { value = try LibPlist.read(bytes, limits: limits).value } catch {
            return Array("(\(bytes.count) bytes, no property list ycft reads: \(error.description))\n".utf8)
        }
        let file = try? StateFile(bytes, key: key, limits: limits)
        if let file, file.defaults == nil, let state = try? file.state() { return RecordsFormat.json(state.records, style: style) }
        let raw: JSON
        do { raw = try ArchiveDump.raw(value, shared: .expand) } catch {
            guard let shared = try? ArchiveDump.raw(value, shared: .references) else {
                return Array("(a property list of \(bytes.count) bytes ycft cannot show as JSON: \(error.description))\n".utf8)
            }
            raw = shared
        }
        guard let file, file.forms.contains(.defaultsArchive), case let .object(members) = raw,
              let state = try? file.state(), let records = try? JSON.parse(RecordsFormat.json(state.records)) else {
            return raw.bytes(style: style)
        }
        return JSON.object(members.map { $0.key == key ? JSON.Member($0.key, records) : $0 }).bytes(style: style)
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
