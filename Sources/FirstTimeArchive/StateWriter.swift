package import FirstTimeCore
internal import Plist
package import PlistCore

/// Writes YCFirstTime state back into a file in the form the file already has: a bare archive
/// stays an archive (in its plist format), a defaults file keeps the archive under its key (in
/// place, every other key untouched), a migrated file keeps `YCFirstTime.records`, a file of
/// IntervalClient keys keeps `interval.<key>` numbers. The reverse of ``StateFile/state()``.
package enum StateWriter {
    /// A file rewritten by ``rewrite(_:changedFrom:into:)``, ``reset(_:)`` or
    /// ``put(_:into:)``: its new bytes, and what they no longer hold that the records cannot
    /// carry (``FirstTimeState/dropped``; the tool says each on standard error).
    package struct Rewrite: Sendable, Equatable {
        /// The file's new bytes.
        package var bytes: [UInt8]
        /// What the state held that the new bytes do not, besides records: an unrelated root
        /// key, a record's unknown coder key, a copy in another form that differed.
        package var dropped: [ContractFinding]
        /// The records whose new time the file's form holds only to its nearest value
        /// (IntervalClient keys count from 1970: `IntervalKey.storedTime(_:)`), with the time
        /// given and the time stored, in key order.
        package var roundedTimes: [(key: String, given: Double, stored: Double)]
        /// The key a forced reset removed whole, with the finding by which the app discards
        /// what it held unread (``StateWriter/reset(_:force:)``).
        package var removedUnread: (key: String, finding: ContractFinding)?

        package init(bytes: [UInt8], dropped: [ContractFinding] = [],
                    roundedTimes: [(key: String, given: Double, stored: Double)] = [],
                    removedUnread: (key: String, finding: ContractFinding)? = nil) {
            self.bytes = bytes
            self.dropped = dropped
            self.roundedTimes = roundedTimes
            self.removedUnread = removedUnread
        }

        /// Equal when the bytes, the dropped findings and the rounded times (compared bit for bit) are.
        package static func == (a: Rewrite, b: Rewrite) -> Bool {
            a.bytes == b.bytes && a.dropped == b.dropped
                && a.roundedTimes.elementsEqual(b.roundedTimes) {
                    $0.key == $1.key && $0.given.bitPattern == $1.given.bitPattern && $0.stored.bitPattern == $1.stored.bitPattern
                }
                && a.removedUnread?.key == b.removedUnread?.key && a.removedUnread?.finding == b.removedUnread?.finding
        }
    }

    /// The state a write replaces: ``StateFile/heldState()``, which refuses a value under the key
    /// that YCFirstTime reads no state from (``ContractRule/Rewrite/replacesOnlyForced``: a
    /// value that is not data); with `force`, the empty state the app starts from there
    /// (``StateFile/deviceState()``), whose finding the write then says it replaced, as the
    /// app's next save replaces the value.
    /// - Throws: ``StateFile/heldState()``'s error, unless `force` and it is such a value.
    package static func held(_ file: StateFile, force: Bool) throws(FirstTimeError) -> FirstTimeState? {
        do { return try file.heldState() } catch {
            guard force, error.finding.rule.spec.rewrite == .replacesOnlyForced else { throw error }
            return try file.deviceState()
        }
    }

    /// The file with `records` in place of its `state` (``StateFile/state()``), and what that
    /// drops; nil when the records are those `state` holds, bit for bit, so the file keeps its
    /// bytes (another program's object order, a copy in another form). The one answer to "does
    /// this edit change the file, and what does it lose?" for ``StateFile/update(at:key:limits:_:)``
    /// and the tool's `set`, `unset` and `edit`.
    /// - Throws: ``FirstTimeError``, as ``write(_:into:)``.
    package static func rewrite(_ records: FirstTimeRecords, changedFrom state: FirstTimeState,
                               into file: StateFile) throws(FirstTimeError) -> Rewrite? {
        guard records != state.records else { return nil }
        // `state` is the judge's answer for this file: no need to decode it again.
        var rounded: [(key: String, given: Double, stored: Double)] = []
        if file.forms.first == .intervalKeys {
            for (key, record) in records {
                guard let time = record.lastTime, state.records[key]?.lastTime?.bitPattern != time.bitPattern else { continue }
                let stored = IntervalKey.storedTime(time)
                if stored.bitPattern != time.bitPattern { rounded.append((key, time, stored)) }
            }
        }
        return Rewrite(bytes: try replace(with: records, in: file, state: state), dropped: state.said(writing: records),
                       roundedTimes: rounded)
    }

    /// The rewrite for an edit of `held`, the file's state (``StateFile/heldState()``): as
    /// ``rewrite(_:changedFrom:into:)``, and for a defaults file with no state yet (`held` nil,
    /// a fresh install's or after a reset) the first change creates it, as YCFirstTime's first
    /// save does. Nil when nothing changes. The one answer for ``StateFile/update(at:key:limits:_:)``
    /// and the tool's `set`, `unset` and `edit`.
    /// - Throws: ``FirstTimeError``, as ``write(_:into:)``.
    package static func edit(_ records: FirstTimeRecords, of held: FirstTimeState?, in file: StateFile) throws(FirstTimeError) -> Rewrite? {
        guard let held else { return records.count == 0 ? nil : Rewrite(bytes: try write(records, into: file)) }
        return try rewrite(records, changedFrom: held, into: file)
    }

    /// The file with its YCFirstTime state replaced by `records`, in the file's own form: every
    /// form the file holds is rewritten (a file migrated with `keepSource` keeps its copies in
    /// step), every other key keeps its place and value; written even when the records are
    /// those it holds. A defaults domain with no state yet gets the archive under
    /// ``StateFile/key``, after every other key, as YCFirstTime's first save puts it there.
    /// With `force`, a value the app reads no state from is replaced (``held(_:force:)``).
    /// - Throws: ``StateFile/heldState()``'s error when the file (or its key) holds something
    ///   other than YCFirstTime state, or ``FirstTimeError/cannotHold(_:)``.
    package static func write(_ records: FirstTimeRecords, into file: StateFile, force: Bool = false) throws(FirstTimeError) -> [UInt8] {
        // Only over state (or where none is yet): whatever else the file or the key holds is
        // not ycft's to replace, and the judge throws for it.
        let state = try held(file, force: force)
        return try replace(with: records, in: file, state: state)
    }

    /// The file with its state (known to be there, or none yet) replaced by `records`; the
    /// archive keeps its root's other keys when the app would (``rootEntries(of:in:)``).
    private static func replace(with records: FirstTimeRecords, in file: StateFile, state: FirstTimeState?) throws(FirstTimeError) -> [UInt8] {
        let root = try rootEntries(of: state, in: file)
        if !file.isDefaults { return try archive(records, keeping: root, like: file) }
        return try write(file.source.written(records, replacing: state?.records ?? FirstTimeRecords(), keeping: root), like: file)
    }

    /// The other entries of the archive's root that a write of new records keeps beside the
    /// group, as YCFirstTime's save archives its whole root again: those of `state`, the file's,
    /// when the app reads it (`keepsRootEntries`; one the app discards starts afresh, and its
    /// next save writes a new root without them).
    private static func rootEntries(of state: FirstTimeState?, in file: StateFile) throws(FirstTimeError) -> LegacyArchive.RootEntries? {
        state?.keepsRootEntries == true ? try file.rootEntries() : nil
    }

    /// The archive of `records` that ``put(_:of:into:force:)`` puts into `file` in `format`: the
    /// other keys of the root of the archive there kept, as YCFirstTime's save keeps them.
    /// - Throws: as ``put(_:of:into:force:)``, when the key holds something other than state.
    package static func archive(of records: FirstTimeRecords, format: PlistFormat, for file: StateFile,
                                force: Bool = false) throws(FirstTimeError) -> [UInt8] {
        let state = file.isDefaults ? try held(file, force: force) : nil
        return try LegacyArchive.encode(records, keeping: rootEntries(of: state, in: file), format: format)
    }

    /// `records` as the bare archive `file` is: in its format, after its byte-order mark if it has one.
    private static func archive(_ records: FirstTimeRecords, keeping root: LegacyArchive.RootEntries? = nil,
                                like file: StateFile) throws(FirstTimeError) -> [UInt8] {
        PropertyList.marked(try LegacyArchive.encode(records, keeping: root, format: file.format), format: file.format,
                            byteOrderMark: file.byteOrderMark)
    }

    /// `domain` as the defaults file `file` is: in its format, after its byte-order mark if it has one.
    private static func write(_ domain: PlistDictionary, like file: StateFile) throws(FirstTimeError) -> [UInt8] {
        try write(domain, file.format, byteOrderMark: file.byteOrderMark)
    }

    /// `domain` in `format`; XML after the UTF-8 byte-order mark when `byteOrderMark` (a file that had it).
    static func write(_ domain: PlistDictionary, _ format: PlistFormat, byteOrderMark: Bool = false) throws(FirstTimeError) -> [UInt8] {
        do { return try PropertyList.write(.dictionary(domain), format: format, byteOrderMark: byteOrderMark) } catch { throw .plist(error) }
    }

    /// The file after YCFirstTime's `reset()`: an empty archive for a bare archive, every form
    /// of the state removed from a defaults file (which keys copy a record: `StateSource.forms`),
    /// and what that drops besides the records. Nil for a defaults domain without state
    /// (`reset()` of a missing key does nothing).
    ///
    /// A defaults file whose `YCFirstTime` key holds data YCFirstTime discards unread (its
    /// unarchive fails: a record of another class, a time that is not a date, data that is no
    /// archive), or an archive ycft cannot read (``unreadable(_:in:)``), is reset, as the app's
    /// `reset()` removes the key whatever it holds, only with `force`; under a key named with
    /// `--key`, never (it may be another program's data).
    /// Only that key is removed then (``Rewrite/removedUnread``): which other keys copied what
    /// it held cannot be told, and `interval.*` keys beside it may be IntervalClient's own.
    ///
    /// A state that holds no record, only the root's other keys (`root-foreign`), is reset only
    /// with `force`: that would remove only them (said in ``Rewrite/dropped``).
    /// - Throws: ``StateFile/heldState()``'s error when the file is not YCFirstTime state:
    ///   nothing of it is ycft's to reset (unless `force`, as above);
    ///   ``FirstTimeError/onlyOtherData(_:)`` for a state of other keys only, unless `force`.
    package static func reset(_ file: StateFile, force: Bool = false) throws(FirstTimeError) -> Rewrite? {
        let state: FirstTimeState?
        do { state = try file.heldState() } catch {
            guard force, let unread = unreadable(error, in: file), var domain = file.defaults else { throw error }
            let key = stateKey(of: file)
            domain[key] = nil
            return Rewrite(bytes: try write(domain, like: file), removedUnread: (key, unread))
        }
        guard let state else { return nil }
        // Nothing of YCFirstTime's there, only other keys: removed only when forced (then said).
        if !force, let other = state.findings.onlyOtherData(besides: state.records) { throw .onlyOtherData(other) }
        let dropped = state.said(writing: nil)
        if !file.isDefaults { return Rewrite(bytes: try archive(FirstTimeRecords(), like: file), dropped: dropped) }
        return Rewrite(bytes: try write(file.source.reset(state.records), like: file), dropped: dropped)
    }

    /// The finding by which YCFirstTime discards, unread, the state `error` says a defaults
    /// file holds under its own key (a `resets-all` finding: its unarchive fails, or the value
    /// is not data at all, and the app starts afresh), or nil: when the error is of another
    /// kind, the file is a bare archive (which `reset` does not replace unread), or the data is
    /// under a key named with `--key` (``unreadable(_:in:)``).
    package static func discardedUnread(_ error: FirstTimeError, in file: StateFile) -> ContractFinding? {
        guard let finding = unreadable(error, in: file), [finding].resetsAll != nil else { return nil }
        return finding
    }

    /// The finding by which a defaults file holds, under `YCFirstTime` (or
    /// `YCFirstTime.records`), data ycft cannot read as the state and `reset --force` removes:
    /// what the app discards unread, and an archive the app reads but ycft does not (a string
    /// libplist would change, a file beyond ycft's bounds); nil otherwise. Under a key named
    /// with `--key` such data may be another program's, readable to it (an archive of its own
    /// objects): nothing there is removed unread.
    package static func unreadable(_ error: FirstTimeError, in file: StateFile) -> ContractFinding? {
        guard file.isDefaults else { return nil }
        let key = stateKey(of: file)
        guard exactlyEqual(key, LegacyArchive.defaultsKey) || exactlyEqual(key, RecordsFormat.defaultsKey) else { return nil }
        if let discarded = [error.finding].resetsAll { return discarded }
        guard case .embeddedNotPlist = error, [.stringUnrepresentable, .plistLimit].contains(error.finding.rule) else { return nil }
        return error.finding
    }

    /// The key whose data a defaults file's unreadable state is (what `reset --force` removes):
    /// `YCFirstTime.records` in a migrated file, else the archive's key.
    private static func stateKey(of file: StateFile) -> String {
        file.forms.first == .plainRecords ? RecordsFormat.defaultsKey : file.key
    }

    /// A defaults file with `archive`, the archive of `records`, under the file's key (replacing
    /// the archive there, in place, or added at the end), and what the archive replaced held
    /// that the records do not carry (``FirstTimeState/said(writing:)``).
    /// With `force`, a value the app reads no state from (not data) is replaced, as its next
    /// save replaces it (``held(_:force:)``).
    /// - Throws: ``FirstTimeError/notDefaults(found:)`` when the file is not a defaults domain;
    ///   ``StateFile/heldState()``'s error when the key holds something other than YCFirstTime's
    ///   archive; ``FirstTimeError/cannotHold(_:)`` when the file holds the state in another form
    ///   (after a migration), which an archive beside it would contradict.
    package static func put(_ archive: [UInt8], of records: FirstTimeRecords, into file: StateFile, force: Bool = false) throws(FirstTimeError) -> Rewrite {
        guard var domain = file.defaults else {
            throw .notDefaults(found: file.topLevelKind)
        }
        let state = try held(file, force: force)
        if let other = file.forms.first(where: { $0 != .defaultsArchive }) {
            throw .archiveBesideState(form: other, key: file.key)
        }
        domain[file.key] = .data(archive)
        return Rewrite(bytes: try write(domain, like: file), dropped: state?.said(writing: records) ?? [])
    }
}
