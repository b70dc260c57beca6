import FirstTimeArchive
import FirstTimeCore
import Plist
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
                guard ExactTime.utcString(secondsSince2001: instant.seconds) != nil else {
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
        // A key removed unread (reset --force), and the state the file still holds in other keys.
        var removed: (key: String, finding: ContractFinding, left: [StateForm])?
        var intervals: [String] = []
        // IntervalClient gates the reset kept, which the file then holds as its state.
        var keptGates: [String] = []
        let status = rewriteState(path, common, io) { (bytes: [UInt8]) throws(Ycft.Failure) -> StateWriter.Rewrite? in
            let file = try classified(bytes, common)
            let reset: StateWriter.Rewrite?
            do throws(FirstTimeError) { reset = try StateWriter.reset(file, force: common.force) } catch { throw refusal(error, in: file) }
            nothing = reset == nil
            if let reset, let (key, finding) = reset.removedUnread {
                let left = (try? StateFile(reset.bytes, key: common.key, limits: common.limits))?.forms ?? []
                removed = (key, finding, left)
            }
            // A file whose only state is interval.* numbers: every one of them is read as an
            // IntervalClient gate, and an app's own `interval.volume` would be too; say which went.
            if let reset, file.forms.first == .intervalKeys, let before = file.defaults,
               let after = (try? LibPlist.read(reset.bytes, limits: common.limits))?.value.dictionaryValue?.keyIndex() {
                intervals = before.map(\.key).filter { $0.hasPrefix(IntervalKey.prefix) && after[ExactKey($0)] == nil }
            }
            // IntervalClient's own gates beside the state (no record's copy) stay, as every
            // preference of the app does; alone, they are what the file then holds as state.
            if let reset, removed == nil, let after = try? StateFile(reset.bytes, key: common.key, limits: common.limits),
               let left = try? after.heldState(), left.form == .intervalKeys {
                keptGates = left.records.map(\.key)
            }
            return reset
        }
        if status == .success, !keptGates.isEmpty {
            let shown = keptGates.prefix(5).map { UntrustedText.quoted(IntervalKey.prefix + $0) }.joined(separator: ", ")
                + (keptGates.count > 5 ? " and \(keptGates.count - 5) more" : "")
            Ycft.warn("kept \(shown), IntervalClient's own gate\(keptGates.count == 1 ? "" : "s") (no record's copy), as the app's "
                      + "preferences are: the file now holds IntervalClient state (\(keptGates.count) record\(keptGates.count == 1 ? "" : "s"))",
                      path: path, io: io)
        }
        if status == .success && nothing {
            io.writeStderr("ycft: \(Ycft.shown(path)): no YCFirstTime state to reset (\(Ycft.noStateKeys(common.key))); nothing was changed\n")
        }
        if status == .success, !intervals.isEmpty {
            let shown = intervals.prefix(5).map(UntrustedText.quoted).joined(separator: ", ") + (intervals.count > 5 ? " and \(intervals.count - 5) more" : "")
            Ycft.warn("removed \(intervals.count) \(IntervalKey.prefix)* number\(intervals.count == 1 ? "" : "s"), read as IntervalClient gates: \(shown)",
                      path: path, io: io)
        }
        if status == .success, let removed {
            let why = [removed.finding].resetsAll == nil ? "ycft cannot read" : "YCFirstTime discards unread"
            Ycft.warn("removed \(UntrustedText.quoted(removed.key)), which \(why) "
                      + "([\(removed.finding.rule.rawValue)] \(removed.finding.located))", path: path, io: io)
            // Other keys that hold the state stay: whether they copied what was removed (or are
            // IntervalClient's own) cannot be told from what could not be read.
            let names = removed.left.map { $0 == .plainRecords ? "\"\(RecordsFormat.defaultsKey)\"" : "\"\(IntervalKey.prefix)*\"" }
            if !names.isEmpty {
                Ycft.warn("the state in \(names.joined(separator: " and ")) stays: whether it copied what was removed cannot be "
                          + "told; 'ycft status' answers from it now, and 'ycft reset' again removes it", path: path, io: io)
            }
        }
        return status
    }

    /// Reads the records of `path`, changes them, and writes them back in the file's form
    /// (`StateWriter.rewrite(_:changedFrom:into:)`); a change that refuses leaves the file alone, exit 1.
    private static func edit(_ path: String, _ common: Common, _ io: CommandIO,
                             _ change: (inout FirstTimeRecords) throws(Ycft.Failure) -> Void) throws(UsageError) -> Ycft.Exit {
        rewriteState(path, common, io) { (bytes: [UInt8]) throws(Ycft.Failure) -> StateWriter.Rewrite? in
            let file = try classified(bytes, common)
            let held = try heldForEditing(file, common)
            var records = held?.records ?? FirstTimeRecords()
            try change(&records)
            return try judged { () throws(FirstTimeError) in try StateWriter.edit(records, of: held, in: file) }
        }
    }

    /// A library refusal as the edit commands report it: a content problem (exit 1).
    static func judged<T, Failure: Error & CustomStringConvertible>(_ body: () throws(Failure) -> T) throws(Ycft.Failure) -> T {
        do { return try body() } catch { throw Ycft.Failure(.content, nil, error.description) }
    }

    /// The state an edit changes. One the app discards on its next launch (a non-fatal
    /// `resets-all` finding, such as an NSDictionary root) is refused unless `--force`: every
    /// gate runs again on the device, and writing it back repaired would bring its records back.
    /// One a defaults file holds that the app discards unread has no records to change,
    /// `--force` or not (``refusal(_:in:)``).
    /// A value under the key that YCFirstTime reads no state from (not data) is replaced only
    /// with `--force`, as the app's next save replaces it (``StateWriter/held(_:force:)``).
    static func heldForEditing(_ file: StateFile, _ common: Common) throws(Ycft.Failure) -> FirstTimeState? {
        let held: FirstTimeState?
        do throws(FirstTimeError) { held = try StateWriter.held(file, force: common.force) } catch { throw writeRefusal(error, in: file) }
        if let finding = held?.resetsAll, !common.force {
            throw Ycft.Failure(.content, nil, "YCFirstTime discards this state on the device ([\(finding.rule.rawValue)] \(finding.located)), "
                               + "so every gate runs again there; a change here would bring its records back. 'ycft reset' "
                               + "starts afresh as the app does; --force changes it anyway")
        }
        return held
    }

    /// Why an edit command cannot read the state of `file` (`error`, from
    /// ``StateFile/heldState()``), exit 1. For data under a defaults file's key that
    /// YCFirstTime discards unread (``StateWriter/discardedUnread(_:in:)``: a record of
    /// another class, a time that is not a date, data that is no archive), with what removes
    /// it: `"YCFirstTime" holds data that is not a readable YCFirstTime archive: ... YCFirstTime
    /// discards it on the device and its reset() removes the key whatever it holds, as 'ycft
    /// reset --force' does`.
    /// An archive the app reads but ycft cannot (``StateWriter/unreadable(_:in:)``) is said so;
    /// a state of other keys only, which `reset` removes only with `--force`, with that.
    static func refusal(_ error: FirstTimeError, in file: StateFile) -> Ycft.Failure {
        if case .onlyOtherData = error { return Ycft.Failure(.content, nil, "\(error.description); --force removes them, as the app's reset() does") }
        if StateWriter.discardedUnread(error, in: file) != nil { return Ycft.Failure(.content, nil, "\(error.description). \(discardedUnread)") }
        if StateWriter.unreadable(error, in: file) != nil { return Ycft.Failure(.content, nil, "\(error.description). \(unreadByYcft)") }
        return Ycft.Failure(.content, nil, error.description)
    }

    /// ``refusal(_:in:)`` for a write that puts records under the key (`set`, `unset`, `edit`,
    /// `pack --into`): a value the app reads no state from, which such a write replaces with
    /// `--force` (``StateWriter/held(_:force:)``), is said with the device's answer and that.
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

    /// What the bytes of an edited file hold (``StateFile``).
    static func classified(_ bytes: [UInt8], _ common: Common) throws(Ycft.Failure) -> StateFile {
        try judged { () throws(FirstTimeError) in try StateFile(bytes, key: common.key, limits: common.limits) }
    }

    /// The edit commands' use of the one read-change-write cycle (``StateFile``'s, which the
    /// library's `update` and the store use too): the file is locked from read to replace and
    /// replaced only while it is still the file read; a change that gives nil (or the same bytes)
    /// writes nothing; after a write, what it dropped is said on standard error, one line each.
    /// With `checkFirst`, a file the write would refuse (read-only without `--force`) is refused
    /// before `change` runs: `ycft edit` must not let the user work on an edit that cannot land.
    static func rewriteState(_ path: String, _ common: Common, _ io: CommandIO, checkFirst: Bool = false,
                             _ change: ([UInt8]) throws(Ycft.Failure) -> StateWriter.Rewrite?) -> Ycft.Exit {
        var dropped: [ContractFinding] = []
        var rounded: [(key: String, given: Double, stored: Double)] = []
        do throws(Ycft.Failure) {
            guard path != "-" else { throw Ycft.Failure(.trouble, nil, "'-' (standard input) cannot be edited in place; give a file") }
            let limit = common.limits.maxInputSize
            _ = try StateFile.cycle(path, read: { (path: String) throws(Ycft.Failure) in
                do throws(FileError) { return try io.readFile(path, limit, true) } catch { throw Ycft.failure(error) }
            }, options: { (input: InputFile) throws(Ycft.Failure) in
                guard input.bytes.count <= limit else {
                    throw Ycft.Failure(.content, Ycft.display(path), "input is larger than the limit of \(limit) bytes (raise it with --max-input-size)")
                }
                let options = SafeFile.WriteOptions(expected: input.status?.identity, replaceReadOnly: common.force)
                if checkFirst, let status = input.status {
                    do throws(FileError) { try io.checkReplaceable(path, status, options) } catch { throw Ycft.failure(error) }
                }
                return options
            }, change: { (bytes: [UInt8]) throws(Ycft.Failure) -> [UInt8]? in
                let rewritten: StateWriter.Rewrite?
                do throws(Ycft.Failure) { rewritten = try change(bytes) } catch { throw Ycft.Failure(.content, Ycft.display(path), error.message) }
                guard let rewritten, rewritten.bytes != bytes else { return nil }
                (dropped, rounded) = (rewritten.dropped, rewritten.roundedTimes)
                return rewritten.bytes
            }, write: { (path: String, bytes: [UInt8], options: SafeFile.WriteOptions) throws(Ycft.Failure) in
                do throws(FileError) { _ = try io.writeFile(path, bytes, options) } catch { throw Ycft.failure(error) }
            })
        } catch {
            return error.report(io)
        }
        Ycft.warnDropped(dropped, path: path, io: io)
        for (key, given, stored) in rounded {
            Ycft.warn("\(UntrustedText.quoted(IntervalKey.prefix + key)) counts seconds since 1970 and holds the time "
                      + "\(Ycft.exactTime(given)) as \(Ycft.exactTime(stored)), its nearest value", path: path, io: io)
        }
        return .success
    }
}
