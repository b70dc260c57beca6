package import FirstTimeCore
internal import Plist
package import PlistCore
package import SafeFiles

/// The one write of YCFirstTime state and the one place that says what a write may do and must
/// say (`ycft set`, `unset`, `reset`, `edit`, `pack --into`, ``StateFile/update(at:key:limits:_:)``):
/// a ``Change`` of a ``StateFile`` gives its new bytes in the file's own form, every other key in
/// place, and a ``Report`` that callers only turn into words. `FirstTimeStore`'s save is the
/// app's own and refuses nothing, as the app does not: it goes through ``cycle(_:read:options:change:write:)``
/// and ``bytes(of:_:byteOrderMark:)`` but not ``apply(_:)``. Only
/// YCFirstTime state is replaced (``StateFile/heldState()`` judges); what the device discards, or
/// reads no state from, is replaced only when forced. Every write goes through
/// ``cycle(_:read:options:change:write:)`` and `SafeFile`, which refuses a path inside an iPhone
/// backup (a run's one `BackupFolderGuard` is given in `SafeFile.WriteOptions`).
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
        /// The state's records replaced by these (where there is none yet, as the app's first save puts them).
        case records(FirstTimeRecords)
        /// YCFirstTime's `reset()`: a bare archive emptied, every form of the state removed from a defaults file.
        case reset
        /// An archive of the records (``archive(of:format:)``) put under the key of a defaults
        /// file (`pack --into`), in place, or added after every other key.
        case put([UInt8], of: FirstTimeRecords)
    }

    /// What a write may do.
    package struct Options: Sendable {
        /// Replace what is refused otherwise: a state the device discards, a value under the key
        /// that is not data, a reset of unread data or of the root's other keys only.
        package var force: Bool
        /// Refuse to change the records of a state YCFirstTime discards on the device (an
        /// NSDictionary root): repaired, its records would come back (``FirstTimeError/discarded(_:)``).
        /// A put (``Change/put(_:of:)``) replaces the archive whole and is never refused for it.
        package var refusesDiscarded: Bool

        /// The options: nothing forced, a discarded state refused.
        package init(force: Bool = false, refusesDiscarded: Bool = true) {
            (self.force, self.refusesDiscarded) = (force, refusesDiscarded)
        }
    }

    /// What a write did: its bytes, and each thing it did that the user did not ask for.
    package struct Report: Sendable, Equatable {
        /// The file's new bytes.
        package var bytes: [UInt8]
        /// What the state held that the new bytes do not, besides records (``FirstTimeState/said(writing:)``).
        package var dropped: [ContractFinding] = []
        /// The new times IntervalClient keys hold only to their nearest value (`IntervalKey.storedTime(_:)`).
        package var roundedTimes: [(key: String, given: Double, stored: Double)] = []
        /// The key a forced reset removed unread, why, and the forms of the state left in other keys.
        package var removedUnread: (key: String, finding: ContractFinding, left: [StateForm])?
        /// The `interval.*` keys a reset removed where they were the only state (an app's own too).
        package var removedIntervals: [String] = []
        /// IntervalClient's own gates a reset kept (no record's copy), now the file's state.
        package var keptGates: [String] = []
        /// Whether the write created the state in a defaults file that held none.
        package var created = false

        /// A report of these bytes and parts (the rest none).
        package init(bytes: [UInt8], dropped: [ContractFinding] = [], roundedTimes: [(key: String, given: Double, stored: Double)] = [],
                     removedUnread: (key: String, finding: ContractFinding, left: [StateForm])? = nil, created: Bool = false) {
            (self.bytes, self.dropped, self.roundedTimes, self.removedUnread, self.created) = (bytes, dropped, roundedTimes, removedUnread, created)
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

    /// The file written, and what the write may do.
    package let file: StateFile, options: Options
    /// ``StateFile/heldState()``'s answer, asked once.
    private let held: Result<FirstTimeState?, FirstTimeError>

    /// A write of `file`.
    package init(_ file: StateFile, options: Options = Options()) {
        (self.file, self.options) = (file, options)
        do throws(FirstTimeError) { held = .success(try file.heldState()) } catch { held = .failure(error) }
    }

    /// The state a change of records starts from (nil: none yet): ``StateFile/heldState()``, or
    /// forced, for a value that is not data, the app's empty one (``StateFile/deviceState()``).
    /// - Throws: ``StateFile/heldState()``'s error; ``FirstTimeError/discarded(_:)`` for a state
    ///   the device discards when ``Options/refusesDiscarded`` and not ``Options/force``.
    package func state() throws(FirstTimeError) -> FirstTimeState? {
        try state(refusingDiscarded: options.refusesDiscarded)
    }

    /// ``state()``, refusing a discarded state only when `refusingDiscarded`: a put replaces the
    /// archive whole, so the records of a discarded one do not come back.
    private func state(refusingDiscarded: Bool) throws(FirstTimeError) -> FirstTimeState? {
        let state: FirstTimeState?
        switch held {
        case let .success(held): state = held
        case let .failure(error):
            guard options.force, error.finding.rule.spec.rewrite == .replacesOnlyForced else { throw error }
            state = try file.deviceState()
        }
        if refusingDiscarded, !options.force, let finding = state?.resetsAll { throw .discarded(finding) }
        return state
    }

    /// The file after `change`, and what to say of it; nil when nothing changes (the records the
    /// state holds, bit for bit, so the file keeps its bytes; a reset where there is no state).
    /// - Throws: ``FirstTimeError``: the refusals of ``state()`` and ``Options``, records the
    ///   file's form cannot hold, an archive put where it cannot go.
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

    /// The root's other entries a write keeps beside the group, as the app's save does: those of
    /// a state the app reads (one it discards starts afresh, with a new root).
    private func rootEntries(of state: FirstTimeState?) throws(FirstTimeError) -> LegacyArchive.RootEntries? {
        state?.keepsRootEntries == true ? try file.rootEntries() : nil
    }

    /// ``Change/reset``. Data under `YCFirstTime` ycft cannot read (``unreadable(_:in:)``) goes only
    /// when forced, that key alone, as the app's `reset()` removes it; so does a state of the
    /// root's other keys only (``FirstTimeError/onlyOtherData(_:)``).
    private func reset() throws(FirstTimeError) -> Report? {
        let state: FirstTimeState?
        switch held {
        case let .success(held): state = held
        case let .failure(error):
            guard options.force, let finding = Self.unreadable(error, in: file), var domain = file.defaults else { throw error }
            let key = Self.stateKey(of: file)
            domain[key] = nil
            let bytes = try written(domain)
            // unreachable: `?? []`, the bytes the writer just made read back
            return Report(bytes: bytes, removedUnread: (key, finding, (try? StateFile(bytes, key: file.key, limits: file.limits))?.forms ?? []))
        }
        guard let state else { return nil }
        if !options.force, let other = state.findings.onlyOtherData(besides: state.records) { throw .onlyOtherData(other) }
        let dropped = state.said(writing: nil)
        guard let before = file.defaults else { return Report(bytes: try replace(with: FirstTimeRecords(), state: nil), dropped: dropped) }
        let after = try file.source.reset(state.records)
        var report = Report(bytes: try written(after), dropped: dropped)
        if file.forms.first == .intervalKeys {
            let remaining = after.keyIndex()
            report.removedIntervals = before.map(\.key).filter { $0.hasPrefix(IntervalKey.prefix) && remaining[ExactKey($0)] == nil }
        }
        // IntervalClient's own gates (no record's copy) stay, as the app's preferences do.
        if StateSource(after, key: file.key).forms.first == .intervalKeys,
           let gates = try? IntervalKey.read(after.plistEntries(withPrefix: IntervalKey.prefix)) {
            report.keptGates = gates.records.map(\.key)
        }
        return report
    }

    /// The archive of `records` in `format` that ``Change/put(_:of:)`` puts into the file: the
    /// other keys of the root of the archive there kept, as YCFirstTime's save keeps them.
    /// - Throws: ``state()``'s refusals but a discarded state's, for a defaults file.
    package func archive(of records: FirstTimeRecords, format: PlistFormat) throws(FirstTimeError) -> [UInt8] {
        try LegacyArchive.encode(records, keeping: rootEntries(of: file.isDefaults ? try state(refusingDiscarded: false) : nil), format: format)
    }

    /// ``Change/put(_:of:)``.
    private func put(_ archive: [UInt8], of records: FirstTimeRecords) throws(FirstTimeError) -> Report {
        guard var domain = file.defaults else { throw .notDefaults(found: file.topLevelKind) }
        // A state the device discards is not refused: the archive replaces it whole.
        let state = try self.state(refusingDiscarded: false)
        if let other = file.forms.first(where: { $0 != .defaultsArchive }) { throw .archiveBesideState(form: other, key: file.key) }
        domain[file.key] = .data(archive)
        return Report(bytes: try written(domain), dropped: state?.said(writing: records) ?? [], created: state == nil)
    }

    /// The finding by which a defaults file holds under `YCFirstTime` (or `YCFirstTime.records`;
    /// never another key, maybe another program's) data a forced reset removes: what the app
    /// discards unread, or an archive it reads but ycft cannot (a string libplist would change).
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

    /// The one read–change–write cycle of every state file write: `read` reads under a lock held
    /// to the end; `options` may refuse the input; `change` makes the new bytes (nil or the same:
    /// nothing is written); `write` replaces the file only while it is still the one read.
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
