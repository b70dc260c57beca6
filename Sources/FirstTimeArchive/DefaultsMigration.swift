public import Plist

/// Moves YCFirstTime state inside an exported defaults file (a plist dictionary) between the
/// legacy archive, the plain records format, and IntervalClient keys, touching nothing else.
///
/// Every other key keeps its position, type and exact value; new keys are appended; the file
/// keeps its format unless asked otherwise.
public enum DefaultsMigration {

    /// Where the state goes (decided with the on-device library by ``Migration/plan(forms:choices:existing:read:)``).
    public typealias Target = Migration.Target

    /// How to migrate.
    public struct Options: Sendable {
        /// Where the state goes.
        public var target: Target
        /// Keep the source keys (the archive, or the new keys on rollback).
        public var keepSource: Bool
        /// Overwrite target keys that exist with different content (the source wins).
        public var force: Bool
        /// The defaults key of the legacy archive.
        public var key: String
        /// With `.interval`: do not write `YCFirstTime.records` (versions are lost).
        public var dropVersions: Bool
        /// The output format; nil keeps the input's.
        public var outputFormat: PlistFormat?
        /// Bounds for reading.
        public var limits: PlistLimits

        /// The choices the migration plan is made from.
        public var choices: Migration.Choices {
            Migration.Choices(target: target, keepSource: keepSource, force: force, key: key, dropVersions: dropVersions)
        }

        /// Creates options; the defaults migrate to records and remove the archive.
        public init(target: Target = .records, keepSource: Bool = false, force: Bool = false,
                    key: String = LegacyArchive.defaultsKey, dropVersions: Bool = false,
                    outputFormat: PlistFormat? = nil, limits: PlistLimits = .default) {
            self.target = target
            self.keepSource = keepSource
            self.force = force
            self.key = key
            self.dropVersions = dropVersions
            self.outputFormat = outputFormat
            self.limits = limits
        }
    }

    /// What happened to a file.
    public typealias Status = Migration.Status

    /// The result for one file: the ``Migration/Outcome`` (its members read as this type's own:
    /// `outcome.status`, `outcome.added`, ...) and the new bytes.
    @dynamicMemberLookup
    public struct Outcome: Sendable {
        /// What happened (shared with the on-device library).
        public var migration: Migration.Outcome
        /// The new file bytes, for `.migrated`.
        public var output: [UInt8]?
        /// The format of `output`.
        public var format: PlistFormat

        /// A member of ``migration``.
        public subscript<Value>(dynamicMember member: WritableKeyPath<Migration.Outcome, Value>) -> Value {
            get { migration[keyPath: member] }
            set { migration[keyPath: member] = newValue }
        }

        /// A computed member of ``migration`` (``Migration/Outcome/resetsAll``).
        public subscript<Value>(dynamicMember member: KeyPath<Migration.Outcome, Value>) -> Value {
            migration[keyPath: member]
        }
    }

    /// Why a file could not be migrated.
    public typealias Failure = Migration.Failure

    /// Migrates the bytes of one defaults file.
    public static func migrate(_ bytes: [UInt8], options: Options) throws(Failure) -> Outcome {
        let file: StateFile
        do { file = try StateFile(bytes, key: options.key, limits: options.limits) } catch { throw .unreadable(error.description) }
        // What kind of file this is, as StateFile says for every command (`pack --into` too).
        guard let original = file.defaults else { throw .notDefaults(FirstTimeError.notDefaults(found: file.topLevel).description) }
        let format = options.outputFormat ?? file.format
        var outcome = Outcome(migration: Migration.Outcome(status: .migrated), output: nil, format: format)
        func read(_ form: StateForm) throws(Failure) -> DecodedArchive {
            do { return try file.read(form) } catch { throw Failure(reading: error, form: form, key: options.key) }
        }
        // The file's keys, asked about by the plan: searched while it asks little, indexed once
        // it asks much, so a file with 100,000 keys stays linear whatever the target asks.
        var fileKeys = ExactKeyPositions(keysOf: original)
        func lookup(_ key: String) -> PlistValue? { fileKeys.position(of: key).map { original.entries[$0].value } }
        let plan = try Migration.plan(forms: file.forms, choices: options.choices, existing: lookup, read: read)
        outcome.migration = plan.outcome
        guard plan.outcome.status == .migrated else { return outcome }
        let writes = plan.writes
        // After `--drop-versions` (sources removed) the file holds the state as interval.* keys
        // alone, and every interval.* key is read as one of its records: IntervalClient's own
        // gates beside the state could no longer be told from it, and the next command would
        // take them over. Refused while such a key is there.
        if options.choices.target == .interval, options.choices.dropVersions, !options.choices.keepSource {
            var written = ExactKeyPositions(writes.map(\.key))
            if let own = original.first(where: { $0.key.hasPrefix(IntervalKey.prefix) && !written.contains($0.key) }) {
                throw .unwritable("\(quoted(own.key)) is IntervalClient's own gate, not a YCFirstTime record: with --drop-versions "
                                + "the file would hold only interval.* keys and that gate would be read as YCFirstTime state; "
                                + "migrate without --drop-versions (YCFirstTime.records stays beside the keys)")
            }
        }
        // New keys take the place of the first source key, so a round trip keeps the key order;
        // a target key that stays in the file keeps its place.
        var removed = ExactKeyPositions(plan.removals)
        var pending = ExactKeyPositions(writes.map(\.key))
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
            // A key both removed and written back (no target does this today): compare the files.
            outcome = diff(original, result, into: outcome)
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
        do { outcome.output = try PropertyList.write(.dictionary(result), format: format) } catch { throw .unwritable(error.description) }
        return outcome
    }

    private static func diff(_ before: PlistDictionary, _ after: PlistDictionary, into outcome: Outcome) -> Outcome {
        var outcome = outcome
        let beforeIndex = before.keyIndex(), afterIndex = after.keyIndex()
        outcome.removed = before.map(\.key).filter { afterIndex[ExactKey($0)] == nil }
        outcome.added = after.map(\.key).filter { beforeIndex[ExactKey($0)] == nil }
        outcome.changed = after.compactMap { key, value in
            if let at = beforeIndex[ExactKey(key)], before.entries[at].value != value { return key }
            return nil
        }
        return outcome
    }
}
