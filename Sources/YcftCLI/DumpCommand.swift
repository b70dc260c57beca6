import FirstTimeArchive
import OrderedJSON

/// `ycft dump`: the records of an archive or defaults file as JSON on standard output.
enum DumpCommand {
    static func run(_ arguments: [String], io: CommandIO) throws(UsageError) -> Ycft.Exit {
        var args = Arguments(arguments)
        var key = LegacyArchive.defaultsKey
        var compact = false
        while let option = args.nextOption() {
            switch option.name {
            case "--key": key = try args.value(for: "--key", inline: option.inline)
            case "--compact":
                guard option.inline == nil else { throw UsageError("'--compact' takes no value") }
                compact = true
            default: throw UsageError("Unknown option '\(option.name)'")
            }
        }
        guard args.operands.count == 1 else {
            throw UsageError(args.operands.isEmpty ? "Missing expected argument 'FILE|-'" : "Unexpected argument '\(args.operands[1])'")
        }
        let path = args.operands[0]
        do throws(Ycft.Failure) {
            let bytes = try Ycft.readInput(path, io: io)
            let records: FirstTimeRecords
            do {
                records = try ArchiveLocator.records(in: bytes, key: key)
            } catch {
                throw Ycft.Failure(.content, Ycft.display(path), error.description)
            }
            io.writeStdout(Array(RecordsFormat.json(records).text(style: compact ? .compact : .pretty).utf8))
            return .success
        } catch {
            return error.report(io)
        }
    }
}
