package import FirstTimeCore
internal import Plist
package import PlistCore
package import SafeFiles

/// The one write of YCFirstTime state, and the one place that says what a write may do and
/// what it must say: `ycft set`, `unset`, `reset`, `edit` and `pack --into`,
/// ``StateFile/update(at:key:limits:_:)`` and `FirstTimeStore`'s save all come here. A change
/// (``Change``) of a file read as ``StateFile`` gives the file's new bytes, in the form the
/// file already has (a bare archive stays an archive in its plist format, a defaults file keeps
/// every other key in place, a migrated file keeps `YCFirstTime.records`, IntervalClient keys
/// stay numbers), and a ``Report`` of everything a caller must say; the command layer only
/// turns the report into words and exit codes.
///
/// The rules: only YCFirstTime state is replaced (``StateFile/heldState()`` judges; anything
/// else under the key is refused); a state the device discards is not edited unless forced
/// (``Options/refusesDiscarded``); a value the app reads no state from (not data) is replaced
/// only when forced, as the app's next save replaces it; a reset removes what the app's
/// `reset()` removes. Every write goes through ``cycle(_:read:options:change:write:)`` and
/// `SafeFile`, which refuses a path inside an iPhone backup (`BackupFolderGuard`: not an
/// option; a caller gives its writes one guard for a run in `SafeFile.WriteOptions`).
///
/// ```swift
/// let edit = StateEdit(try StateFile(bytes))
/// var records = try edit.state()?.records ?? FirstTimeRecords()
/// records["onboarding"] = nil
/// if let report = try edit.apply(.records(records)) { print(report.dropped) }
/// ```
package struct StateEdit {
    /// What a write does to the state.
    package enum Change: Sendable {
        /// The state's records replaced by these; a defaults file with no state yet gets them
        /// as YCFirstTime's first save puts them (the archive under the key).
        case records(FirstTimeRecords)
        /// YCFirstTime's `reset()`: an empty archive for a bare archive; every form of the state
        /// removed from a defaults file (`StateSource.reset(_:)`).
        case reset
        /// An archive of the records (``archive(of:format:)``) put under the key of a defaults
        /// file (`pack --into`), in place, or added after every other key.
        case put([UInt8], of: FirstTimeRecords)
    }

    /// What a write may do.
    package struct Options: Sendable {
        /// Replace what is refused otherwise: a state the device discards, a value under the key
        /// that is not data, data under the key the app discards unread (by ``Change/reset``), a
        /// state of the root's other keys only (by ``Change/reset``), a read-only file.
        package var force: Bool
        /// Refuse to change the records of a state YCFirstTime discards on the device (a
        /// non-fatal `resets-all` finding, such as an NSDictionary root), unless ``force``:
        /// every gate runs again there, and the state written back repaired would bring its
        /// records back (``FirstTimeError/discarded(_:)``).
        package var refusesDiscarded: Bool

        /// The options: nothing forced, a discarded state refused.
        package init(force: Bool = false, refusesDiscarded: Bool = true) {
            (self.force, self.refusesDiscarded) = (force, refusesDiscarded)
        }
    }

    /// What a write did, for the caller to say: its bytes, and each thing it did that the user
    /// did not ask for in so many words.
    package struct Report: Sendable, Equatable {
        /// The file's new bytes.
        package var bytes: [UInt8]
        /// What the state held that the new bytes do not, besides records: an unrelated root
        /// key, a record's unknown coder key, a copy in another form that differed
        /// (``FirstTimeState/said(writing:)``).
        package var dropped: [ContractFinding] = []
        /// The records whose new time the file's form holds only to its nearest value
        /// (IntervalClient keys count from 1970: `IntervalKey.storedTime(_:)`), with the time
        /// given and the time stored, in key order.
        package var roundedTimes: [(key: String, given: Double, stored: Double)] = []
        /// The key a forced reset removed whole, with the finding by which the app discards (or
        /// ycft cannot read) what it held, and the forms of the state left in other keys.
        package var removedUnread: (key: String, finding: ContractFinding, left: [StateForm])?
        /// The `interval.*` keys a reset removed from a file whose only state they were: every
        /// one is read as an IntervalClient gate (an app's own `interval.volume` too).
        package var removedIntervals: [String] = []
        /// IntervalClient's own gates a reset kept beside the state (no record's copy), which
        /// the file then holds as its state.
        package var keptGates: [String] = []
        /// Whether the write created the state in a defaults file that held none.
        package var created = false

        /// A report of these bytes and parts (the rest none).
        package init(bytes: [UInt8], dropped: [ContractFinding] = [], roundedTimes: [(key: String, given: Double, stored: Double)] = [],
                     created: Bool = false) {
            (self.bytes, self.dropped, self.roundedTimes, self.created) = (bytes, dropped, roundedTimes, created)
        }

        /// Equal when every part is (times compared bit for bit).
        package static func == (a: Report, b: Report) -> Bool {
            a.bytes == b.bytes && a.dropped == b.dropped
                && a.roundedTimes.elementsEqual(b.roundedTimes) {
                    $0.key == $1.key && $0.given.bitPattern == $1.given.bitPattern && $0.stored.bitPattern == $1.stored.bitPattern
                }
                && a.removedUnread?.key == b.removedUnread?.key && a.removedUnread?.finding == b.removedUnread?.finding
                && a.removedUnread?.left == b.removedUnread?.left
                && a.removedIntervals == b.removedIntervals && a.keptGates == b.keptGates && a.created == b.created
        }
    }

    /// The file written.
    package let file: StateFile
    /// What the write may do.
    package let options: Options
    /// ``StateFile/heldState()``'s answer, asked once.
    private let held: Result<FirstTimeState?, FirstTimeError>

    /// A write of `file`.
    package init(_ file: StateFile, options: Options = Options()) {
        (self.file, self.options) = (file, options)
        do throws(FirstTimeError) { held = .success(try file.heldState()) } catch { held = .failure(error) }
    }

    /// The state a change of records starts from (nil: none yet): ``StateFile/heldState()``;
    /// with ``Options/force``, for a value the app reads no state from (not data), the empty
    /// state the app starts from there (``StateFile/deviceState()``), whose finding the write
    /// then says it replaced.
    /// - Throws: ``StateFile/heldState()``'s error; ``FirstTimeError/discarded(_:)`` for a state
    ///   the device discards when ``Options/refusesDiscarded`` and not ``Options/force``.
    package func state() throws(FirstTimeError) -> FirstTimeState? {
        let state: FirstTimeState?
        switch held {
        case let .success(held): state = held
        case let .failure(error):
            guard options.force, error.finding.rule.spec.rewrite == .replacesOnlyForced else { throw error }
            state = try file.deviceState()
        }
        if options.refusesDiscarded, !options.force, let finding = state?.resetsAll { throw .discarded(finding) }
        return state
    }

    /// The file after `change`, and what to say of it; nil when nothing changes (the records
    /// are those the state holds, bit for bit, so the file keeps its bytes; a reset of a
    /// defaults file with no state).
    /// - Throws: ``FirstTimeError``: the refusals of ``state()`` (and, for a reset, of
    ///   ``Options``), ``FirstTimeError/cannotHold(_:)`` for records the file's form cannot
    ///   hold, ``FirstTimeError/notDefaults(found:)`` and
    ///   ``FirstTimeError/archiveBesideState(form:key:)`` for an archive put where it cannot go.
    package func apply(_ change: Change) throws(FirstTimeError) -> Report? {
        switch change {
        case let .records(records): return try rewrite(records)
        case .reset: return try reset()
        case let .put(archive, records): return try put(archive, of: records)
        }
    }

    /// ``Change/records(_:)``.
    private func rewrite(_ records: FirstTimeRecords) throws(FirstTimeError) -> Report? {
        guard let state = try state() else {
            guard records.count > 0 else { return nil }
            return Report(bytes: try replace(with: records, state: nil), created: true)
        }
        guard records != state.records else { return nil }
        var rounded: [(key: String, given: Double, stored: Double)] = []
        if file.forms.first == .intervalKeys {
            for (key, record) in records {
                guard let time = record.lastTime, state.records[key]?.lastTime?.bitPattern != time.bitPattern else { continue }
                let stored = IntervalKey.storedTime(time)
                if stored.bitPattern != time.bitPattern { rounded.append((key, time, stored)) }
            }
        }
        return Report(bytes: try replace(with: records, state: state), dropped: state.said(writing: records), roundedTimes: rounded)
    }

    /// The file with its state (known to be there, or none yet) replaced by `records`; the
    /// archive keeps its root's other keys when the app would.
    private func replace(with records: FirstTimeRecords, state: FirstTimeState?) throws(FirstTimeError) -> [UInt8] {
        let root = try rootEntries(of: state)
        if !file.isDefaults {
            return PropertyList.marked(try LegacyArchive.encode(records, keeping: root, format: file.format), format: file.format,
                                       byteOrderMark: file.byteOrderMark)
        }
        return try written(file.source.written(records, replacing: state?.records ?? FirstTimeRecords(), keeping: root))
    }

    /// The other entries of the archive's root that a write keeps beside the group, as
    /// YCFirstTime's save archives its whole root again: those of `state` when the app reads it
    /// (one the app discards starts afresh, and its next save writes a new root without them).
    private func rootEntries(of state: FirstTimeState?) throws(FirstTimeError) -> LegacyArchive.RootEntries? {
        state?.keepsRootEntries == true ? try file.rootEntries() : nil
    }

    /// ``Change/reset``. A defaults file whose `YCFirstTime` key holds data YCFirstTime discards
    /// unread, or an archive ycft cannot read (``unreadable(_:in:)``), is reset only with
    /// ``Options/force``, as the app's `reset()` removes the key whatever it holds; under a key
    /// named with `--key`, never (it may be another program's data). Only that key is removed
    /// then: which other keys copied what it held cannot be told. A state of the root's other
    /// keys only is reset only when forced (``FirstTimeError/onlyOtherData(_:)``).
    private func reset() throws(FirstTimeError) -> Report? {
        let state: FirstTimeState?
        switch held {
        case let .success(held): state = held
        case let .failure(error):
            guard options.force, let finding = Self.unreadable(error, in: file), var domain = file.defaults else { throw error }
            let key = Self.stateKey(of: file)
            domain[key] = nil
            let bytes = try written(domain)
            let left = (try? StateFile(bytes, key: file.key, limits: file.limits))?.forms ?? []
            var report = Report(bytes: bytes)
            report.removedUnread = (key, finding, left)
            return report
        }
        guard let state else { return nil }
        if !options.force, let other = state.findings.onlyOtherData(besides: state.records) { throw .onlyOtherData(other) }
        let dropped = state.said(writing: nil)
        guard let before = file.defaults else {
            let empty = try LegacyArchive.encode(FirstTimeRecords(), format: file.format)
            return Report(bytes: PropertyList.marked(empty, format: file.format, byteOrderMark: file.byteOrderMark), dropped: dropped)
        }
        let after = try file.source.reset(state.records)
        var report = Report(bytes: try written(after), dropped: dropped)
        let remaining = after.keyIndex()
        if file.forms.first == .intervalKeys {
            report.removedIntervals = before.map(\.key).filter { $0.hasPrefix(IntervalKey.prefix) && remaining[ExactKey($0)] == nil }
        }
        // IntervalClient's own gates beside the state (no record's copy) stay, as every
        // preference of the app does; alone, they are what the file then holds as state.
        let left = StateSource(after, key: file.key) { _ in nil }
        if left.forms.first == .intervalKeys, let gates = try? left.read(.intervalKeys, failure: { (error: FirstTimeError) in error }, archive: {
            (_: [UInt8]) throws(FirstTimeError) in ArchiveJudgement(records: FirstTimeRecords())
        }) {
            report.keptGates = gates.records.map(\.key)
        }
        return report
    }

    /// The archive of `records` in `format` that ``Change/put(_:of:)`` puts into the file: the
    /// other keys of the root of the archive there kept, as YCFirstTime's save keeps them.
    /// - Throws: ``state()``'s refusals, for a defaults file.
    package func archive(of records: FirstTimeRecords, format: PlistFormat) throws(FirstTimeError) -> [UInt8] {
        try LegacyArchive.encode(records, keeping: rootEntries(of: file.isDefaults ? try state() : nil), format: format)
    }

    /// ``Change/put(_:of:)``.
    private func put(_ archive: [UInt8], of records: FirstTimeRecords) throws(FirstTimeError) -> Report {
        guard var domain = file.defaults else { throw .notDefaults(found: file.topLevelKind) }
        let state = try self.state()
        if let other = file.forms.first(where: { $0 != .defaultsArchive }) { throw .archiveBesideState(form: other, key: file.key) }
        domain[file.key] = .data(archive)
        return Report(bytes: try written(domain), dropped: state?.said(writing: records) ?? [], created: state == nil)
    }

    /// The finding by which a defaults file holds, under `YCFirstTime` (or
    /// `YCFirstTime.records`), data ycft cannot read as the state and a forced reset removes:
    /// what the app discards unread, and an archive the app reads but ycft does not (a string
    /// libplist would change, a file beyond ycft's bounds); nil otherwise. Under a key named
    /// with `--key` such data may be another program's, readable to it: nothing is removed.
    package static func unreadable(_ error: FirstTimeError, in file: StateFile) -> ContractFinding? {
        let key = stateKey(of: file)
        guard file.isDefaults, exactlyEqual(key, LegacyArchive.defaultsKey) || exactlyEqual(key, RecordsFormat.defaultsKey) else { return nil }
        if let discarded = [error.finding].resetsAll { return discarded }
        guard case .embeddedNotPlist = error, [.stringUnrepresentable, .plistLimit].contains(error.finding.rule) else { return nil }
        return error.finding
    }

    /// Whether `error` is data YCFirstTime discards unread under a defaults file's own key (a
    /// `resets-all` finding of ``unreadable(_:in:)``): a forced reset removes it.
    package static func discardsUnread(_ error: FirstTimeError, in file: StateFile) -> Bool {
        unreadable(error, in: file).map { [$0].resetsAll != nil } ?? false
    }

    /// The key whose data a defaults file's unreadable state is: `YCFirstTime.records` in a
    /// migrated file, else the archive's key.
    private static func stateKey(of file: StateFile) -> String {
        file.forms.first == .plainRecords ? RecordsFormat.defaultsKey : file.key
    }

    /// `domain` as the defaults file is: in its format, after its byte-order mark if it has one.
    private func written(_ domain: PlistDictionary) throws(FirstTimeError) -> [UInt8] {
        try Self.bytes(of: domain, file.format, byteOrderMark: file.byteOrderMark)
    }

    /// `domain` in `format`; XML after the UTF-8 byte-order mark when `byteOrderMark` (a file
    /// that had it). The one serialiser of a written defaults domain (the store's too).
    package static func bytes(of domain: PlistDictionary, _ format: PlistFormat, byteOrderMark: Bool = false) throws(FirstTimeError) -> [UInt8] {
        do { return try PropertyList.write(.dictionary(domain), format: format, byteOrderMark: byteOrderMark) } catch { throw .plist(error) }
    }

    /// The one read–change–write cycle of every change to a state file (the tool's, `update`'s
    /// and the store's): `read` reads the file under its lock, held until the cycle ends;
    /// `options` may refuse the input and gives the write's options; `change` makes the new
    /// bytes from the bytes read (nil, or the same bytes: nothing is written); `write` replaces
    /// the file only while it is still the one read (`expected` is the identity read).
    /// - Returns: whether the file was written.
    /// - Throws: what the closures throw; nothing is written then.
    package static func cycle<Failure: Error>(
        _ path: String, read: (String) throws(Failure) -> InputFile,
        options: (InputFile) throws(Failure) -> SafeFile.WriteOptions = { _ in SafeFile.WriteOptions() },
        change: ([UInt8]) throws(Failure) -> [UInt8]?,
        write: (String, [UInt8], SafeFile.WriteOptions) throws(Failure) -> Void
    ) throws(Failure) -> Bool {
        let input = try read(path)
        defer { input.release() }
        var writeOptions = try options(input)
        writeOptions.expected = input.status?.identity
        guard let output = try change(input.bytes), output != input.bytes else { return false }
        try write(path, output, writeOptions)
        return true
    }
}
