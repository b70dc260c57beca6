public import PlistCore

/// Moving YCFirstTime state between the legacy archive, the plain records format and
/// IntervalClient keys: what to write and what to remove, decided once for both places state
/// lives, so the two produce the same keys with the same values. `migrate(_:to:options:)` takes
/// an exported defaults file's bytes in FirstTimeArchive (and returns the new file), the app's
/// `UserDefaults` in FirstTimeMigration (beside `records(in:)` and `save(_:in:)`).
public enum Migration {
    /// Where the state goes.
    public enum Target: String, Sendable, CaseIterable {
        /// The plain format under `YCFirstTime.records`.
        case records
        /// `interval.<key>` = seconds since 1970 (plus `YCFirstTime.records` unless versions are dropped).
        case interval
        /// Back to the legacy archive under `YCFirstTime` (rollback).
        case legacy
    }

    /// What happened.
    public enum Status: String, Sendable {
        /// The state moved; there is new content.
        case migrated
        /// Already in the target state.
        case unchanged
        /// No source state.
        case skipped
    }

    /// Why state could not be migrated. Nothing is changed when one is thrown.
    ///
    /// Each case carries its cause as data (the underlying error, the key concerned);
    /// ``description`` renders the one line `ycft migrate` prints.
    ///
    /// ```swift
    /// do { _ = try Migration.migrate(bytes, to: .records) } catch {
    ///     if case let .conflict(key) = error { print("\(key) is in the way") }
    /// }
    /// ```
    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// Reading the source state failed with the error; `archiveKey` is the defaults key of
        /// the legacy archive when the error is that archive's (the message then names it).
        case unreadable(FirstTimeError, archiveKey: String?)
        /// The archive under `key` is XML; the on-device library reads the binary archives
        /// NSKeyedArchiver writes.
        case xmlArchive(key: String)
        /// Foundation's `NSKeyedUnarchiver`, reading the archive under `key` as YCFirstTime's
        /// loader does, reads other records than ycft.
        case foundationReadsOtherRecords(key: String)
        /// Foundation reads the archive under `key` differently from ycft: the rule of the
        /// contract it reads otherwise, and where in the archive's object tree (`root`,
        /// `root.sharedGroup`, `root.sharedGroup["k"]`).
        case foundationReadsDifferently(key: String, ContractFinding)
        /// Foundation refuses the archive under `key` (YCFirstTime would start afresh);
        /// Foundation's own message (its `NSError`'s `localizedDescription`: the underlying
        /// error, as the text Foundation gives).
        case foundationRefuses(key: String, String)
        /// The file is not a defaults dictionary: what its top level is instead, as
        /// ``FirstTimeError/notDefaults(found:)`` says it.
        case notDefaults(found: PlistKind)
        /// A target key exists with different content (`force` lets the source win).
        case conflict(key: String)
        /// Encoding or storing the new state failed with the error.
        case unwritable(FirstTimeError)
        /// Writing the file's property list failed with the error.
        case unwritablePlist(PlistError)
        /// `key` is IntervalClient's own gate: with `dropVersions` (source removed) it would be
        /// read as a YCFirstTime record.
        case intervalGate(key: String)
        /// A source key to remove is also set in another domain `removeObject(forKey:)` leaves
        /// alone, so the app would go on reading it.
        case setElsewhere(key: String, domain: OtherDomain)
        /// The archive under `key`, which the migration would remove or replace, holds no
        /// record, only what the finding names (its root's other keys): they have no place in
        /// the other forms, so they would be lost; `keepSource` keeps the archive.
        case onlyOtherData(key: String, ContractFinding)

        /// Why the state of `form` could not be read, as a migration reports it: errors of the
        /// archive under `key` name the key, unless their text already does.
        public init(reading error: FirstTimeError, form: StateForm, key: String) {
            self = .unreadable(error, archiveKey: form == .defaultsArchive ? key : nil)
        }

        /// A `UserDefaults` domain outside the app's own that every lookup searches.
        public enum OtherDomain: Sendable, Equatable, CaseIterable, CustomStringConvertible {
            /// `UserDefaults.registrationDomain`.
            case registration
            /// `UserDefaults.argumentDomain`.
            case arguments
            /// `UserDefaults.globalDomain`.
            case global

            /// How messages name it.
            public var description: String {
                switch self {
                case .registration: return "the registration domain (register(defaults:))"
                case .arguments: return "the argument domain (launch arguments)"
                case .global: return "the global domain"
                }
            }
        }

        /// One line for `ycft: FILE: message`.
        public var description: String {
            switch self {
            case let .unreadable(error, archiveKey):
                // These name the archive key themselves.
                if error.isNotStateUnderKey { return error.description }
                return archiveKey.map { "\($0): \(error)" } ?? error.description
            case let .xmlArchive(key):
                return "\(key): an XML archive; FirstTimeMigration reads the binary archives "
                    + "NSKeyedArchiver writes (ycft migrate reads both)"
            case let .foundationReadsOtherRecords(key):
                return "\(key): Foundation's NSKeyedUnarchiver reads other records from this archive than ycft does"
            case let .foundationReadsDifferently(key, finding):
                return "\(key): Foundation's NSKeyedUnarchiver reads this archive differently from ycft: \(finding.located)"
            case let .foundationRefuses(key, why):
                return "\(key): Foundation's NSKeyedUnarchiver refuses this archive (\(why)), so YCFirstTime would start afresh"
            case let .notDefaults(found): return FirstTimeError.notDefaults(found: found).description
            case let .conflict(key): return "\(quoted(key)) already exists with different content"
            case let .unwritable(error): return error.description
            case let .unwritablePlist(error): return error.description
            case let .intervalGate(key):
                return "\(quoted(key)) is IntervalClient's own gate, not a YCFirstTime record: with the versions dropped "
                    + "the file would hold only interval.* keys and that gate would be read as YCFirstTime state; "
                    + "keep the versions (YCFirstTime.records stays beside the keys)"
            case let .setElsewhere(key, domain):
                return "\(quoted(key)) is also set in \(domain), where removeObject(forKey:) does not remove it, "
                    + "so the app would go on reading it; remove it there first, or migrate with keepSource"
            case let .onlyOtherData(key, finding):
                return "\(key): \(finding.located); migrating would lose these keys, for which the plain records and IntervalClient "
                    + "keys have no place: keep the archive beside the new keys"
            }
        }
    }

    /// How to migrate, for a file (`ycft migrate`) and for a live `UserDefaults` domain alike;
    /// where the state goes is the migration's `to:` argument, a ``Target``.
    ///
    /// ```swift
    /// var options = Migration.Options()
    /// options.keepSource = true      // keep the archive beside the new keys
    /// ```
    public struct Options: Sendable, Equatable {
        /// Keep the source keys (the archive; on rollback, the plain and interval keys).
        public var keepSource: Bool
        /// Overwrite target keys that hold different content (the source wins).
        public var force: Bool
        /// The defaults key of the legacy archive.
        public var key: String
        /// With ``Target/interval``: do not write `YCFirstTime.records` (versions are lost).
        public var dropVersions: Bool
        /// Bounds for reading (the file, and the archive in it).
        public var limits: PlistLimits
        /// A file's output format; nil keeps the input's. A `UserDefaults` domain has none.
        public var outputFormat: PlistFormat?
        /// On the device: also read the archive with Foundation's `NSKeyedUnarchiver`, as
        /// YCFirstTime's loader does, and migrate only when it reads the same records as ycft.
        /// On Linux it runs only for archives the contract walker finds nothing device-breaking
        /// in: swift-corelibs-foundation traps (instead of failing) on some archives the loader
        /// would refuse. Files are not read with Foundation.
        public var checksWithFoundation: Bool

        /// The defaults: move the state, remove the source, refuse conflicts, keep the file's
        /// format, check with Foundation on the device.
        public init(keepSource: Bool = false, force: Bool = false, key: String = LegacyArchive.defaultsKey,
                    dropVersions: Bool = false, limits: PlistLimits = .default, outputFormat: PlistFormat? = nil,
                    checksWithFoundation: Bool = true) {
            (self.keepSource, self.force, self.key, self.dropVersions) = (keepSource, force, key, dropVersions)
            (self.limits, self.outputFormat, self.checksWithFoundation) = (limits, outputFormat, checksWithFoundation)
        }
    }

    /// One key to write.
    package struct Write: Sendable {
        package var key: String
        package var value: PlistValue
        /// What the key holds now.
        package var existing: Existing
    }

    /// What a target key holds before the migration.
    package enum Existing: Sendable, Equatable {
        /// Nothing.
        case absent
        /// The same state (perhaps in other bytes): it is left as it is.
        case same
        /// Other content (only with `force`; otherwise the plan fails with a conflict).
        case different
    }

    /// What a migration did, in a file or a `UserDefaults` domain.
    public struct Outcome: Sendable, Equatable {
        /// `.migrated` (there is new content), `.unchanged` (already in the target state) or
        /// `.skipped` (no source state).
        public var status: Status
        /// Keys added, in the order written (in a file: file order).
        public var added: [String] = []
        /// Source keys removed, in their former order.
        public var removed: [String] = []
        /// Keys whose value was replaced (only with `force`).
        public var changed: [String] = []
        /// How many records moved.
        public var recordCount = 0
        /// Block keys whose versions were not kept (`dropVersions`).
        public var droppedVersions: [String] = []
        /// Block keys that had no time and so no interval key (lost with `dropVersions`).
        public var droppedRecords: [String] = []
        /// Block keys whose time their interval key holds only to its nearest value (with
        /// `dropVersions`, no `YCFirstTime.records` keeps it exactly): a key counts seconds
        /// since 1970, and adding 978,307,200 to a time since 2001 can change its last bits.
        public var roundedTimes: [String] = []
        /// What the source state holds that the device reads differently from ycft (see
        /// ``ContractFinding/isNotable``): an unrelated root key, an `NSDictionary` root, an
        /// interval value that is not a number (left in place), ...
        public var findings: [ContractFinding] = []
        /// What the migration loses or changes: the parts of an archive it removes or replaces
        /// that the records do not carry (an unrelated root key, a record's unknown coder key),
        /// none when the archive stays (`keepSource`); and the values it moves out of the archive
        /// in another form (an integer time, written as the real the app reads), the archive kept or not.
        public var dropped: [ContractFinding] = []
        /// For a file: its new bytes, when `.migrated`. Nil on the device, which writes into the
        /// domain itself.
        public var output: [UInt8]?
        /// For a file: the property-list format of ``output`` (the file's own unless
        /// ``Options/outputFormat`` asks for another). Nil on the device.
        public var format: PlistFormat?

        /// An outcome with nothing added, removed or changed yet.
        public init(status: Status) { self.status = status }

        /// The finding that makes YCFirstTime discard all state, if any: every gate would run
        /// again on a build that reads the archive.
        public var resetsAll: ContractFinding? { findings.resetsAll }
    }

    /// What a migration does: the keys to write (in order), the source keys to remove, and the
    /// outcome so far (status, record count, dropped keys, findings; the caller adds what it
    /// actually added, removed and changed).
    package struct Plan: Sendable {
        /// The outcome so far. `.migrated` when there is something to do (the caller may still
        /// find nothing changed), or why there is not.
        package var outcome: Outcome
        /// Keys to write, in order. A ``Existing/same`` key is not rewritten.
        package var writes: [Write] = []
        /// Source keys to remove, in the order they were read (empty with `keepSource`).
        package var removals: [String] = []
    }

    /// Decides a migration.
    ///
    /// An archive key that holds something other than YCFirstTime state (a value that is not
    /// data, another library's archive) is never written over nor reported as migrated: `read`
    /// of ``StateForm/defaultsArchive`` refuses it, whatever the target, `force` included.
    /// - Parameters:
    ///   - forms: the forms the domain holds (`StateSource.forms`).
    ///   - existing: the value a key holds now, or nil.
    ///   - read: the records (and findings) of one form, the archive key's too when the archive
    ///     is not the source; its error says why the state is unreadable.
    /// - Throws: ``Failure/unreadable(_:)`` from `read`, ``Failure/unwritable(_:)``,
    ///   ``Failure/conflict(key:)`` when a target key holds other content and `force` is off, or
    ///   ``Failure/onlyOtherData(key:_:)`` when the archive it removes or replaces holds only
    ///   its root's other keys.
    package static func plan(forms: [StateForm], to target: Target, options: Options,
                            existing: (String) -> PlistValue?,
                            read: (StateForm) throws(Failure) -> ArchiveJudgement) throws(Failure) -> Plan {
        var plan = Plan(outcome: Outcome(status: .migrated))
        // The archive's findings and records, to say what removing or replacing it loses.
        var archiveFindings: [ContractFinding] = []
        var archiveRecords = FirstTimeRecords()
        func records(_ form: StateForm) throws(Failure) -> FirstTimeRecords {
            let decoded = try read(form)
            plan.outcome.findings += decoded.findings
            if form == .defaultsArchive { (archiveFindings, archiveRecords) = (decoded.findings, decoded.records) }
            return decoded.records
        }
        var writes: [(key: String, value: PlistValue, same: (PlistValue) -> Bool)] = []
        var sources: [String] = []
        switch target {
        case .records, .interval:
            let state: FirstTimeRecords
            if forms.contains(.defaultsArchive) {
                state = try records(.defaultsArchive)
                sources = [options.key]
            } else if target == .interval, forms.contains(.plainRecords), !forms.contains(.intervalKeys) {
                // Already in the plain format: IntervalClient keys can be made from it.
                state = try records(.plainRecords)
            } else {
                // No source: already migrated (the target keys are there) or nothing to do.
                let target: StateForm = target == .records ? .plainRecords : .intervalKeys
                let migrated = forms.contains(target)
                // Already in the target form only if it reads: a broken one is a failure.
                if migrated { _ = try records(target) }
                plan.outcome.status = migrated ? .unchanged : .skipped
                return plan
            }
            plan.outcome.recordCount = state.count
            if target == .records || !options.dropVersions {
                writes.append((RecordsFormat.defaultsKey, RecordsFormat.plist(state),
                               { stored in (try? RecordsFormat.records(fromPlist: stored)) == state }))
            } else {
                plan.outcome.droppedVersions = state.filter { $0.record.lastVersion != nil }.map(\.key)
            }
            if target == .interval {
                for (key, record) in state {
                    guard let time = record.lastTime else {
                        if options.dropVersions { plan.outcome.droppedRecords.append(key) }
                        continue
                    }
                    let value = PlistValue.real(time + IntervalKey.epochOffset)
                    writes.append((IntervalKey.prefix + key, value, { $0 == value }))
                    if options.dropVersions, IntervalKey.storedTime(time).bitPattern != time.bitPattern {
                        plan.outcome.roundedTimes.append(key)
                    }
                }
            }
        case .legacy:
            // The archive key is the target: it holds YCFirstTime state, or nothing.
            let present = forms.contains(.defaultsArchive) ? try read(.defaultsArchive) : nil
            (archiveFindings, archiveRecords) = (present?.findings ?? [], present?.records ?? FirstTimeRecords())
            let state: FirstTimeRecords
            if forms.contains(.plainRecords) {
                state = try records(.plainRecords)
                sources.append(RecordsFormat.defaultsKey)
                sources += state.map { IntervalKey.prefix + $0.key }.filter { existing($0) != nil }
            } else if forms.contains(.intervalKeys) {
                // Values IntervalClient cannot read are no state: they stay (with a finding).
                state = try records(.intervalKeys)
                sources += state.map { IntervalKey.prefix + $0.key }
            } else {
                state = FirstTimeRecords()
            }
            guard !sources.isEmpty else {
                plan.outcome.status = existing(options.key) != nil ? .unchanged : .skipped
                return plan
            }
            plan.outcome.recordCount = state.count
            let archive: [UInt8]
            do { archive = try LegacyArchive.encode(state, format: .binary) } catch { throw .unwritable(error) }
            writes.append((options.key, .data(archive), { _ in present?.records == state }))
        }
        // Conflicts first: nothing is changed unless every target key can be written.
        for write in writes {
            let state = existing(write.key).map { write.same($0) ? Existing.same : .different } ?? .absent
            if state == .different, !options.force { throw .conflict(key: write.key) }
            plan.writes.append(Write(key: write.key, value: write.value, existing: state))
        }
        plan.removals = options.keepSource ? [] : sources
        let archiveGoes = plan.removals.contains { exactlyEqual($0, options.key) }
            || plan.writes.contains { $0.existing == .different && exactlyEqual($0.key, options.key) }
        // Moved out of the archive, a value in another form than YCFirstTime writes is written as
        // it writes it (an integer time as the real the app reads), whether the archive stays or not.
        let archiveIsSource = sources.contains { exactlyEqual($0, options.key) }
        // An archive of the root's other keys only: removing it would lose only them.
        if archiveGoes, let other = archiveFindings.onlyOtherData(besides: archiveRecords) { throw .onlyOtherData(key: options.key, other) }
        plan.outcome.dropped = archiveFindings.filter { finding in
            archiveGoes && finding.rule.spec.rewrite.isLostWhenRemoved || archiveIsSource && finding.rule.spec.rewrite == .converts
        }
        return plan
    }
}
