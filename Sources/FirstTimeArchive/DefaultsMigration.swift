public import Plist

/// Moves YCFirstTime state inside an exported defaults file (a plist dictionary) between the
/// legacy archive, the plain records format, and IntervalClient keys, touching nothing else.
///
/// Every other key keeps its position, type and exact value; new keys are appended; the file
/// keeps its format unless asked otherwise.
public enum DefaultsMigration {

    /// Where the state goes.
    public enum Target: String, Sendable, CaseIterable {
        /// The plain format under `YCFirstTime.records`.
        case records
        /// `interval.<key>` = seconds since 1970 (plus `YCFirstTime.records` unless versions are dropped).
        case interval
        /// Back to the legacy archive under `YCFirstTime` (rollback).
        case legacy
    }

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
    public enum Status: String, Sendable {
        /// The state moved; the file has new content.
        case migrated
        /// The file is already in the target state.
        case unchanged
        /// The file holds no source state.
        case skipped
    }

    /// The result for one file.
    public struct Outcome: Sendable {
        /// What happened.
        public var status: Status
        /// Keys added, in file order.
        public var added: [String] = []
        /// Keys removed, in their former order.
        public var removed: [String] = []
        /// Keys whose value changed.
        public var changed: [String] = []
        /// How many records moved.
        public var recordCount = 0
        /// Block keys whose versions were not kept (`dropVersions`).
        public var droppedVersions: [String] = []
        /// Block keys that had no time and so no interval key (lost with `dropVersions`).
        public var droppedRecords: [String] = []
        /// What the source state holds that the device reads differently (see
        /// ``ContractFinding/isNotable``): an unrelated root key, an interval value that is not
        /// a number (left in the file), ...
        public var findings: [ContractFinding] = []
        /// The new file bytes, for `.migrated`.
        public var output: [UInt8]?
        /// The format of `output`.
        public var format: PlistFormat
    }

    /// Why a file could not be migrated.
    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// The bytes are not a readable plist, or the stored state is broken.
        case unreadable(String)
        /// The file is not a defaults dictionary.
        case notDefaults(String)
        /// Target keys exist with different content (``Options/force`` lets the source win).
        case conflict(String)
        /// The result cannot be written in the requested format.
        case unwritable(String)

        /// One line for `ycft: FILE: message`.
        public var description: String {
            switch self {
            case let .unreadable(m), let .notDefaults(m), let .unwritable(m), let .conflict(m): return m
            }
        }
    }

    /// Migrates the bytes of one defaults file.
    public static func migrate(_ bytes: [UInt8], options: Options) throws(Failure) -> Outcome {
        let file: StateFile
        do { file = try StateFile(bytes, key: options.key, limits: options.limits) } catch { throw .unreadable(error.description) }
        guard let original = file.defaults else {
            if case let value? = file.value, value.dictionaryValue == nil {
                throw .notDefaults("not a defaults file: the top level is \(value.typeName), not a dictionary")
            }
            throw .notDefaults("this is an archive, not a defaults file holding one")
        }
        let format = options.outputFormat ?? file.format
        var outcome = Outcome(status: .migrated, format: format)
        func read(_ form: StateFile.Form) throws(Failure) -> FirstTimeRecords {
            do {
                let decoded = try file.read(form)
                outcome.findings += decoded.findings
                return decoded.records
            } catch {
                switch error {
                case .embeddedNotPlist, .notArchiveData: throw .unreadable(error.description)
                default: throw .unreadable(form == .defaultsArchive ? "\(options.key): \(error.description)" : error.description)
                }
            }
        }
        // Every key lookup below goes through this hash index, built once and only when needed
        // (not for a file that is already migrated): a file with 100,000 keys stays linear.
        lazy var originalIndex = original.keyIndex()
        // What to write (in order) and which keys the state came from.
        var writes: [(key: String, value: PlistValue, same: (PlistValue) -> Bool)] = []
        var sources: [String] = []
        switch options.target {
        case .records, .interval:
            let records: FirstTimeRecords
            if file.forms.contains(.defaultsArchive) {
                records = try read(.defaultsArchive)
                sources = [options.key]
            } else if options.target == .interval, file.forms.contains(.plainRecords), !file.forms.contains(.intervalKeys) {
                // Already in the plain format: IntervalClient keys can be made from it.
                records = try read(.plainRecords)
            } else {
                // No source: already migrated (the target keys are there) or nothing to do.
                let migrated = file.forms.contains(options.target == .records ? .plainRecords : .intervalKeys)
                outcome.status = migrated ? .unchanged : .skipped
                return outcome
            }
            outcome.recordCount = records.count
            if options.target == .records || !options.dropVersions {
                writes.append((RecordsFormat.defaultsKey, RecordsFormat.plist(records),
                               { existing in (try? RecordsFormat.records(fromPlist: existing)) == records }))
            } else {
                outcome.droppedVersions = records.filter { $0.record.lastVersion != nil }.map(\.key)
            }
            if options.target == .interval {
                for (key, record) in records {
                    guard let time = record.lastTime else {
                        if options.dropVersions { outcome.droppedRecords.append(key) }
                        continue
                    }
                    let value = PlistValue.real(time + IntervalKey.epochOffset)
                    writes.append((IntervalKey.prefix + key, value, { $0 == value }))
                }
            }
        case .legacy:
            let records: FirstTimeRecords
            if file.forms.contains(.plainRecords) {
                records = try read(.plainRecords)
                sources.append(RecordsFormat.defaultsKey)
                sources += records.map { IntervalKey.prefix + $0.key }.filter { originalIndex[ExactKey($0)] != nil }
            } else if file.forms.contains(.intervalKeys) {
                // Values IntervalClient cannot read are no state: they stay in the file (with a finding).
                records = try read(.intervalKeys)
                sources += records.map { IntervalKey.prefix + $0.key }
            } else {
                records = FirstTimeRecords()
            }
            guard !sources.isEmpty else {
                outcome.status = original[options.key] != nil ? .unchanged : .skipped
                return outcome
            }
            outcome.recordCount = records.count
            let archive: [UInt8]
            do { archive = try LegacyArchive.encode(records, format: .binary) } catch { throw .unwritable(error.description) }
            let limits = options.limits
            writes.append((options.key, .data(archive), { existing in
                guard case let .data(bytes) = existing else { return false }
                return (try? LegacyArchive.decode(bytes, limits: limits)) == records
            }))
        }
        // Conflicts first: nothing is changed unless every target key can be written.
        for write in writes {
            if let at = originalIndex[ExactKey(write.key)], !write.same(original.entries[at].value), !options.force {
                throw .conflict("\(quoted(write.key)) already exists with different content")
            }
        }
        // New keys take the place of the first source key, so a round trip keeps the key order;
        // a target key that stays in the file keeps its place.
        let removed: Set<ExactKey> = options.keepSource ? [] : Set(sources.map(ExactKey.init))
        var pending: [ExactKey: Int] = [:]
        for (i, write) in writes.enumerated() { pending[ExactKey(write.key)] = i }
        let fresh = writes.filter { write in
            let key = ExactKey(write.key)
            return originalIndex[key] == nil || removed.contains(key)
        }
        var entries: [(key: String, value: PlistValue)] = []
        entries.reserveCapacity(original.count + fresh.count)
        var placed = false
        // The diff is known while building: what was removed, added and replaced (in file order).
        var removedKeys: [String] = [], changedKeys: [String] = []
        for entry in original {
            let key = ExactKey(entry.key)
            if removed.contains(key) {
                removedKeys.append(entry.key)
                if !placed {
                    entries += fresh.map { ($0.key, $0.value) }
                    placed = true
                }
                continue
            }
            if let w = pending[key], !writes[w].same(entry.value) {
                entries.append((entry.key, writes[w].value))
                if writes[w].value != entry.value { changedKeys.append(entry.key) }
            } else {
                entries.append(entry)
            }
        }
        if !placed { entries += fresh.map { ($0.key, $0.value) } }
        let result = PlistDictionary(entries)
        if fresh.contains(where: { removed.contains(ExactKey($0.key)) }) {
            // A key both removed and written back (no target does this today): compare the files.
            outcome = diff(original, result, into: outcome)
        } else {
            outcome.removed = removedKeys
            outcome.added = fresh.map(\.key)
            outcome.changed = changedKeys
        }
        if original == result && format == file.format {
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
