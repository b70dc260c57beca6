import FirstTimeArchive
import FirstTimeCore
import PlistCore
import SafeFiles
import FileErrors

/// `ycft set`, `ycft unset` and `ycft reset`: change the state in any file `dump` reads, written
/// back in the same form (an archive stays an archive, a defaults file keeps every other key in
/// place), through the one writer.
enum EditCommands {
    /// The common options, `--key NAME`, `--force` and `--max-input-size SIZE`, and the operands.
    struct Common {
        let key: String
        let force: Bool
        let limits: PlistLimits
        let operands: [String]

        /// The common options as given (each one's default from the spec).
        init(_ parsed: ParsedArguments) {
            (key, force, limits, operands) = (parsed.value(.key), parsed.flag(.force), parsed.limits, parsed.operands)
        }
    }

    struct SetOptions {
        let common: Common
        let path: String
        let key: String
        /// The version to record: `.none` leaves it, `.some(nil)` removes it.
        let version: String??
        /// The time to record: `.none` leaves it, `.some(nil)` removes it.
        let lastTime: Double??

        init(_ parsed: ParsedArguments, clock: () -> Double) throws(UsageError) {
            (common, path, key) = (Common(parsed), parsed.operands[0], parsed.operands[1])
            version = parsed.flag(.noLastVersion) ? .some(nil) : parsed.given(.lastVersion).map { .some($0) } ?? .none
            let time: String?? = parsed.flag(.noLastTime) ? .some(nil) : parsed.given(.lastTime).map { .some($0) } ?? .none
            let seconds = parsed.flag(.seconds)
            if case .none = version, case .none = time {
                throw UsageError("Say what to set: --last-version VERSION, --no-last-version, --last-time TIME or --no-last-time")
            }
            switch time {
            case .none: lastTime = .none
            case .some(nil): lastTime = .some(nil)
            case let .some(text?) where seconds && text != "now":
                // A decimal number a double holds: not nan, inf or 0x10, nor one a double reads
                // as infinity, as 0 or as a subnormal.
                do throws(ExactTime.DecimalDefect) { lastTime = .some(try ExactTime.seconds(decimal: text)) } catch {
                    throw UsageError("The value '\(text)' is invalid for '--last-time <time>': \(error)"
                                     + (error == .notDecimal ? " (with --seconds)" : ""))
                }
            case let .some(text?):
                let instant = try Ycft.Instant.parse(text, for: "--last-time <time>", clock: clock, also: "seconds since 2001 with --seconds")
                // Stored, the time must read back as the instant given: a nearest double outside
                // years 1-9999 (9999-12-31T23:59:59.999999999Z rounds to year 10000) has no UTC
                // text, and dump would show none.
                guard ExactTime.isStorable(instant.seconds) else {
                    throw UsageError("The value '\(text)' is invalid for '--last-time <time>': its nearest double is \(instant.seconds) "
                                     + "seconds since 2001, \(ExactTime.utcText(secondsSince2001: instant.seconds)) in UTC, where ycft "
                                     + "shows no time (--seconds stores a number as given)")
                }
                lastTime = .some(instant.seconds)
            }
        }
    }

    static func set(_ arguments: [String], io: CommandIO) throws(UsageError) -> Ycft.Exit {
        let options = try SetOptions(ParsedArguments(arguments, spec: .set), clock: Ycft.now)
        // The keys there were when KEY was not one of them (set on every read of the cycle).
        var createdAmong: [String]?
        let status = try edit(options.path, options.common, io) { (records: inout FirstTimeRecords) throws(Ycft.Failure) in
            createdAmong = records[options.key] == nil ? records.map(\.key) : nil
            var record = records[options.key] ?? FirstTimeRecord()
            if case let .some(v) = options.version { record.lastVersion = v }
            if case let .some(t) = options.lastTime { record.lastTime = t }
            records[options.key] = record
        }
        if status == .success, let keys = createdAmong {
            warnCreated(options.key, among: keys, timeless: options.lastTime == nil, path: options.path, io: io)
        }
        return status
    }

    /// A record `set` made rather than changed, said on standard error: a mistyped KEY would
    /// otherwise add a gate the app never asks about and leave the intended one as it was, with
    /// exit 0 and nothing printed. With the existing key closest to it, when one is close; and,
    /// when no time was given (`timeless`), that it has none: under a `days:N` gate a record
    /// without a time never runs again, unlike one the app saves, which always has one.
    private static func warnCreated(_ key: String, among keys: [String], timeless: Bool, path: String, io: CommandIO) {
        let time = timeless ? "; it has no lastTime, as none was given ('--last-time now' records a run now)" : ""
        Ycft.warn("created record \(UntrustedText.quoted(key)): no record had that key\(Suggestion.hint(for: key, among: keys))\(time)",
                  path: path, io: io)
    }

    static func unset(_ arguments: [String], io: CommandIO) throws(UsageError) -> Ycft.Exit {
        let common = try Common(ParsedArguments(arguments, spec: .unset))
        let keys = Array(common.operands.dropFirst())
        return try edit(common.operands[0], common, io) { (records: inout FirstTimeRecords) throws(Ycft.Failure) in
            // Each missing key once, as first given (`unset F x x` names "x" once).
            var missing: [String] = []
            for key in keys where records[key] == nil && !missing.contains(where: { exactlyEqual($0, key) }) { missing.append(key) }
            guard missing.isEmpty else {
                let there = records.map(\.key)
                // Each with the closest key there is, when one is close: most often a typo.
                let named = missing.map { UntrustedText.quoted($0) + Suggestion.hint(for: $0, among: there) }
                throw Ycft.Failure(.content, nil, "no record \(named.joined(separator: ", ")); nothing was changed")
            }
            for key in keys { records[key] = nil }
        }
    }

    static func reset(_ arguments: [String], io: CommandIO) throws(UsageError) -> Ycft.Exit {
        let common = try Common(ParsedArguments(arguments, spec: .reset))
        let path = common.operands[0]
        var nothing = false
        let status = rewriteState(path, common, io) { (bytes: [UInt8]) throws(Ycft.Failure) -> StateEdit.Report? in
            let edit = try editing(bytes, common)
            do throws(FirstTimeError) {
                let report = try edit.apply(.reset)
                nothing = report == nil
                return report
            } catch { throw refusal(error, in: edit.file) }
        }
        if status == .success && nothing {
            io.writeStderr("ycft: \(Ycft.shown(path)): no YCFirstTime state to reset (\(Ycft.noStateKeys(common.key))); nothing was changed\n")
        }
        return status
    }

    /// Reads the records of `path`, changes them, and writes them back in the file's form
    /// (``StateEdit``); a change that refuses leaves the file alone, exit 1.
    private static func edit(_ path: String, _ common: Common, _ io: CommandIO,
                             _ change: (inout FirstTimeRecords) throws(Ycft.Failure) -> Void) throws(UsageError) -> Ycft.Exit {
        rewriteState(path, common, io) { (bytes: [UInt8]) throws(Ycft.Failure) -> StateEdit.Report? in
            let edit = try editing(bytes, common)
            var records = try held(edit)?.records ?? FirstTimeRecords()
            try change(&records)
            return try judged { () throws(FirstTimeError) in try edit.apply(.records(records)) }
        }
    }

    /// A library refusal as the edit commands report it: a content problem (exit 1).
    static func judged<T, Failure: Error & CustomStringConvertible>(_ body: () throws(Failure) -> T) throws(Ycft.Failure) -> T {
        do { return try body() } catch { throw Ycft.Failure(.content, nil, error.description) }
    }

    /// The write of an edited file's bytes (``StateFile``, ``StateEdit``) with the options given.
    static func editing(_ bytes: [UInt8], _ common: Common) throws(Ycft.Failure) -> StateEdit {
        let file = try judged { () throws(FirstTimeError) in try StateFile(bytes, key: common.key, limits: common.limits) }
        return StateEdit(file, options: StateEdit.Options(force: common.force))
    }

    /// The state an edit of records starts from (``StateEdit/state()``), its refusal said
    /// (``writeRefusal(_:in:otherwise:)``).
    static func held(_ edit: StateEdit) throws(Ycft.Failure) -> FirstTimeState? {
        do { return try edit.state() } catch { throw writeRefusal(error, in: edit.file) }
    }

    /// Why an edit command cannot change the state of `file` (`error`, from ``StateEdit``), exit
    /// 1, with what removes or replaces it: data the app discards unread or ycft cannot read
    /// (``StateEdit/unreadable(_:in:)``), a state of other keys only, one the device discards.
    static func refusal(_ error: FirstTimeError, in file: StateFile) -> Ycft.Failure {
        if error.isOnlyOtherData { return Ycft.Failure(.content, nil, "\(error.description); --force removes them, as the app's reset() does") }
        if error.isDiscarded { return Ycft.Failure(.content, nil, "\(error.description). 'ycft reset' starts afresh as the app does; --force changes it anyway") }
        if StateEdit.discardsUnread(error, in: file) { return Ycft.Failure(.content, nil, "\(error.description). \(discardedUnread)") }
        if StateEdit.unreadable(error, in: file) != nil { return Ycft.Failure(.content, nil, "\(error.description). \(unreadByYcft)") }
        return Ycft.Failure(.content, nil, error.description)
    }

    /// ``refusal(_:in:)`` for a write that puts records under the key (`set`, `unset`, `edit`,
    /// `pack --into`): a value the app reads no state from, which such a write replaces with
    /// `--force` (``StateEdit/state()``), is said with the device's answer and that.
    /// Any other error is `otherwise`'s.
    static func writeRefusal(_ error: FirstTimeError, in file: StateFile,
                             otherwise: (FirstTimeError, StateFile) -> Ycft.Failure = refusal) -> Ycft.Failure {
        let finding = error.finding
        guard finding.rule.spec.rewrite == .replacesOnlyForced else { return otherwise(error, file) }
        return Ycft.Failure(.content, nil, "\(finding.located); --force replaces it, as that save does")
    }

    /// The end of ``refusal(_:in:)``'s message for data the app discards unread.
    static let discardedUnread = "YCFirstTime discards it on the device and its reset() removes the key whatever it holds, as 'ycft reset --force' does"
    /// The end of ``refusal(_:in:)``'s message for an archive the app reads but ycft cannot.
    static let unreadByYcft = "ycft cannot change it; YCFirstTime's reset() removes the key whatever it holds, as 'ycft reset --force' does"

    /// The edit commands' use of the one read-change-write cycle (``StateEdit``'s, which the
    /// library's `update` and the store use too): the file is locked from read to replace and
    /// replaced only while it is still the file read; a change that gives nil (or the same bytes)
    /// writes nothing; after a write, the report is said on standard error, one line each.
    /// With `checkFirst`, a file the write would refuse (read-only without `--force`) is refused
    /// before `change` runs: `ycft edit` must not let the user work on an edit that cannot land.
    static func rewriteState(_ path: String, _ common: Common, _ io: CommandIO, checkFirst: Bool = false,
                             _ change: ([UInt8]) throws(Ycft.Failure) -> StateEdit.Report?) -> Ycft.Exit {
        var report: StateEdit.Report?
        do throws(Ycft.Failure) {
            guard path != "-" else { throw Ycft.Failure(.trouble, nil, "'-' (standard input) cannot be edited in place; give a file") }
            let limit = common.limits.maxInputSize
            _ = try StateEdit.cycle(path, read: { (path: String) throws(Ycft.Failure) in
                do throws(FileError) { return try io.readFile(path, limit, true) } catch { throw Ycft.failure(error) }
            }, options: { (input: InputFile) throws(Ycft.Failure) in
                guard input.bytes.count <= limit else { throw Ycft.tooLarge(path, limit: limit) }
                let options = SafeFile.WriteOptions(expected: input.status?.identity, replaceReadOnly: common.force)
                if checkFirst, let status = input.status {
                    do throws(FileError) { try io.checkReplaceable(path, status, options) } catch { throw Ycft.failure(error) }
                }
                return options
            }, change: { (bytes: [UInt8]) throws(Ycft.Failure) -> [UInt8]? in
                let rewritten: StateEdit.Report?
                do throws(Ycft.Failure) { rewritten = try change(bytes) } catch { throw Ycft.Failure(.content, path, error.message) }
                guard let rewritten, rewritten.bytes != bytes else { return nil }
                report = rewritten
                return rewritten.bytes
            }, write: { (path: String, bytes: [UInt8], options: SafeFile.WriteOptions) throws(Ycft.Failure) in
                do throws(FileError) { _ = try io.writeFile(path, bytes, options) } catch { throw Ycft.failure(error) }
            })
        } catch {
            return error.report(io)
        }
        if let report { say(report, path: path, io: io) }
        return .success
    }

    /// A write's report on standard error, one line each.
    private static func say(_ report: StateEdit.Report, path: String, io: CommandIO) {
        func listed(_ names: [String]) -> String {
            names.prefix(5).map(UntrustedText.quoted).joined(separator: ", ") + (names.count > 5 ? " and \(names.count - 5) more" : "")
        }
        func plural(_ count: Int) -> String { count == 1 ? "" : "s" }
        Ycft.warnDropped(report.dropped, path: path, io: io)
        for (key, given, stored) in report.roundedTimes {
            Ycft.warn("\(UntrustedText.quoted(IntervalKey.prefix + key)) counts seconds since 1970 and holds the time "
                      + "\(Ycft.exactTime(given)) as \(Ycft.exactTime(stored)), its nearest value", path: path, io: io)
        }
        if case let gates = report.keptGates, !gates.isEmpty {
            Ycft.warn("kept \(listed(gates.map { IntervalKey.prefix + $0 })), IntervalClient's own gate\(plural(gates.count)) (no record's copy), as the app's "
                      + "preferences are: the file now holds IntervalClient state (\(gates.count) record\(plural(gates.count)))", path: path, io: io)
        }
        if case let intervals = report.removedIntervals, !intervals.isEmpty {
            Ycft.warn("removed \(intervals.count) \(IntervalKey.prefix)* number\(plural(intervals.count)), read as IntervalClient gates: \(listed(intervals))",
                      path: path, io: io)
        }
        if let removed = report.removedUnread {
            let why = [removed.finding].resetsAll == nil ? "ycft cannot read" : "YCFirstTime discards unread"
            Ycft.warn("removed \(UntrustedText.quoted(removed.key)), which \(why) "
                      + "([\(removed.finding.rule.rawValue)] \(removed.finding.located))", path: path, io: io)
            let names = removed.left.map { $0 == .plainRecords ? "\"\(RecordsFormat.defaultsKey)\"" : "\"\(IntervalKey.prefix)*\"" }
            if !names.isEmpty {
                Ycft.warn("the state in \(names.joined(separator: " and ")) stays: whether it copied what was removed cannot be "
                          + "told; 'ycft status' answers from it now, and 'ycft reset' again removes it", path: path, io: io)
            }
        }
    }
}
