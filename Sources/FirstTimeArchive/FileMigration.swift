public import FirstTimeCore
internal import Plist
internal import PlistCore

extension Migration {
    /// Migrates the bytes of one exported defaults file (a plist dictionary) to `target`, as
    /// `ycft migrate --to TARGET` does: the outcome's ``Outcome/output`` holds the new file.
    ///
    /// Only YCFirstTime's keys move: every other key keeps its position, type and exact value;
    /// new keys take the place of the first source key removed (or are appended); the file keeps
    /// its format unless ``Options/outputFormat`` asks for another.
    ///
    /// ```swift
    /// let outcome = try Migration.migrate(prefsBytes, to: .records)
    /// if let output = outcome.output { /* write it */ }
    /// ```
    /// - Throws: ``Failure`` (nothing to write then).
    public static func migrate(_ bytes: [UInt8], to target: Target, options: Options = .init()) throws(Failure) -> Outcome {
        let file: StateFile
        do { file = try StateFile(bytes, key: options.key, limits: options.limits) } catch { throw .unreadable(error, archiveKey: nil) }
        // What kind of file this is, as StateFile says for every command (`pack --into` too).
        guard let original = file.defaults else { throw .notDefaults(found: file.topLevelKind) }
        let format = options.outputFormat ?? file.format
        func read(_ form: StateForm) throws(Failure) -> ArchiveJudgement {
            do { return try file.read(form) } catch { throw Failure(reading: error, form: form, key: options.key) }
        }
        // The file's keys, asked about by the plan: searched while it asks little, indexed once
        // it asks much, so a file with 100,000 keys stays linear whatever the target asks.
        var fileKeys = ExactKeyPositions(keysOf: original)
        func lookup(_ key: String) -> PlistValue? { fileKeys.position(of: key).map { original.entries[$0].value } }
        let plan = try Self.plan(forms: file.forms, to: target, options: options, existing: lookup, read: read)
        var outcome = plan.outcome
        outcome.format = format
        guard plan.outcome.status == .migrated else { return outcome }
        let writes = plan.writes
        var pending = ExactKeyPositions(writes.map(\.key))
        // After `--drop-versions` (sources removed) the file holds the state as interval.* keys
        // alone, and every interval.* key is read as one of its records: IntervalClient's own
        // gates beside the state could no longer be told from it, and the next command would
        // take them over. Refused while such a key is there.
        if target == .interval, options.dropVersions, !options.keepSource {
            if let own = original.first(where: { $0.key.hasPrefix(IntervalKey.prefix) && !pending.contains($0.key) }) {
                throw .intervalGate(key: own.key)
            }
        }
        // New keys take the place of the first source key, so a round trip keeps the key order;
        // a target key that stays in the file keeps its place.
        var removed = ExactKeyPositions(plan.removals)
        let fresh = writes.filter { write in write.existing == .absent || removed.contains(write.key) }
        var entries: [(key: String, value: PlistValue)] = []
        entries.reserveCapacity(original.count + fresh.count)
        var placed = false
        // The diff is known while building: what was removed, added and replaced (in file order).
        var removedKeys: [String] = [], changedKeys: [String] = []
        for entry in original {
            if removed.contains(entry.key) {
                removedKeys.append(entry.key)
                if !placed {
                    entries += fresh.map { ($0.key, $0.value) }
                    placed = true
                }
                continue
            }
            if let w = pending.position(of: entry.key), writes[w].existing == .different {
                entries.append((entry.key, writes[w].value))
                if writes[w].value != entry.value { changedKeys.append(entry.key) }
            } else {
                entries.append(entry)
            }
        }
        if !placed { entries += fresh.map { ($0.key, $0.value) } }
        let result = PlistDictionary(entries)
        let same: Bool
        if fresh.contains(where: { removed.contains($0.key) }) {
            // A key both removed and written back (forced, `--key YCFirstTime.records`: the
            // archive under the plain format's key): compare the files.
            diff(original, result, into: &outcome)
            same = original == result
        } else {
            outcome.removed = removedKeys
            outcome.added = fresh.map(\.key)
            outcome.changed = changedKeys
            // Nothing removed, added or changed in place: the entries are the original's, in
            // its order (no need to compare every key of a large file).
            same = removedKeys.isEmpty && fresh.isEmpty && changedKeys.isEmpty
        }
        if same && format == file.format {
            outcome.status = .unchanged
            return outcome
        }
        // An XML file after the UTF-8 byte-order mark keeps it (`StateFile.byteOrderMark`).
        do { outcome.output = try PropertyList.write(.dictionary(result), format: format, byteOrderMark: file.byteOrderMark) } catch {
            throw .unwritablePlist(error)
        }
        return outcome
    }

    /// The keys `after` removes, adds and changes against `before`.
    private static func diff(_ before: PlistDictionary, _ after: PlistDictionary, into outcome: inout Outcome) {
        let beforeIndex = before.keyIndex(), afterIndex = after.keyIndex()
        outcome.removed = before.map(\.key).filter { afterIndex[ExactKey($0)] == nil }
        outcome.added = after.map(\.key).filter { beforeIndex[ExactKey($0)] == nil }
        outcome.changed = after.compactMap { key, value in
            if let at = beforeIndex[ExactKey(key)], before.entries[at].value != value { return key }
            return nil
        }
    }
}
