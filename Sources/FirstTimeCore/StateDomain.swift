package import PlistCore

/// A domain of keys and values that can hold YCFirstTime state: a defaults file's top level
/// (``PlistCore/PlistDictionary``, in the tool and the store) or the app's `UserDefaults` (in
/// FirstTimeMigration). ``StateSource`` finds, reads and writes the state's forms through it.
package protocol StateDomain {
    /// Every key the domain holds, in its order (a list, so that finding the forms walks it
    /// without going through the protocol once per key).
    var domainKeys: [String] { get }
    /// The value stored under `key` (compared by exact scalars), or nil.
    func plistValue(forKey key: String) -> PlistValue?
    /// Every entry whose key starts with `prefix`, in the domain's order.
    func plistEntries(withPrefix prefix: String) -> [(key: String, value: PlistValue)]
    /// Sets each key to its value, in order, all or nothing: a key already there keeps its place,
    /// a new key goes after every other, and nil removes the key.
    /// - Throws: ``FirstTimeError/cannotHold(_:)`` when the domain cannot store a value; nothing
    ///   is changed then.
    mutating func setPlistValues(_ changes: [(key: String, value: PlistValue?)]) throws(FirstTimeError)
}

extension StateDomain {
    /// Every entry whose key starts with `prefix`, from ``domainKeys`` and ``plistValue(forKey:)``.
    package func plistEntries(withPrefix prefix: String) -> [(key: String, value: PlistValue)] {
        domainKeys.filter { $0.hasPrefix(prefix) }.compactMap { key in plistValue(forKey: key).map { (key: key, value: $0) } }
    }
}

extension PlistDictionary: StateDomain {
    package var domainKeys: [String] { entries.map(\.key) }

    /// The value for `key`, or nil (``subscript(_:)``).
    package func plistValue(forKey key: String) -> PlistValue? { self[key] }

    package func plistEntries(withPrefix prefix: String) -> [(key: String, value: PlistValue)] {
        entries.filter { $0.key.hasPrefix(prefix) }
    }

    /// Applies the changes in one pass over the entries (never fails).
    package mutating func setPlistValues(_ changes: [(key: String, value: PlistValue?)]) throws(FirstTimeError) {
        let present = keyIndex()
        var last: [ExactKey: PlistValue?] = [:]
        var added: [String] = []
        for (key, value) in changes {
            let exact = ExactKey(key)
            if last.updateValue(value, forKey: exact) == nil, present[exact] == nil { added.append(key) }
        }
        var result: [(key: String, value: PlistValue)] = []
        result.reserveCapacity(entries.count + added.count)
        for entry in entries {
            guard let change = last.removeValue(forKey: ExactKey(entry.key)) else { result.append(entry); continue }
            if let value = change { result.append((entry.key, value)) }
        }
        for key in added { if let change = last[ExactKey(key)], let value = change { result.append((key, value)) } }
        self = PlistDictionary(result)
    }
}

/// The YCFirstTime state in a ``StateDomain``: which forms it holds (``StateForm``), each form's
/// records, and the domain with new records in every form it holds. The one reading and
/// writing of the forms, for the tool's files (`StateFile`, `StateEdit`), the store and the
/// on-device `FirstTimeMigration`; the archive itself is decoded by the caller's reader.
package struct StateSource<Domain: StateDomain> {
    package let domain: Domain
    /// The defaults key of the archive.
    package let key: String
    /// The forms the domain holds, in reading order (the first is the state, the others
    /// copies): the archive under ``key``, then `YCFirstTime.records`, then `interval.*` keys.
    ///
    /// `interval.*` keys alone are the state (IntervalClient's form). Beside an archive or plain
    /// records they are a copy of the first form's records only when at least one of them names
    /// one of those records (the copy `migrate --to interval --keep-source` writes): then the
    /// keys that name a record are the copy (``intervalCopyOf``), and every other `interval.*`
    /// key is IntervalClient's own gate. When none names a record, or the first form cannot be
    /// read, `.intervalKeys` is no form of the state (not read, written, checked or listed).
    package private(set) var forms: [StateForm]
    /// The records an interval copy mirrors, when `.intervalKeys` is a copy beside another form.
    package private(set) var intervalCopyOf: FirstTimeRecords?

    /// Finds the forms `domain` holds.
    /// - Parameters:
    ///   - key: the defaults key of the archive (`YCFirstTime`).
    ///   - archiveRecords: the records of the archive bytes under `key`, or nil when they cannot
    ///     be read; asked only when `interval.*` keys are beside the archive. By default none:
    ///     such keys are then IntervalClient's own.
    package init(_ domain: Domain, key: String = LegacyArchive.defaultsKey, archiveRecords: ([UInt8]) -> FirstTimeRecords? = { _ in nil }) {
        self.domain = domain
        self.key = key
        var archive = false, plain = false, interval = false
        for name in domain.domainKeys {
            if !archive, exactlyEqual(name, key) { archive = true }
            if !plain, exactlyEqual(name, RecordsFormat.defaultsKey) { plain = true }
            if !interval, name.hasPrefix(IntervalKey.prefix) { interval = true }
        }
        forms = (archive ? [.defaultsArchive] : []) + (plain ? [.plainRecords] : []) + (interval ? [.intervalKeys] : [])
        guard forms.count > 1, interval else { return }
        let prefix = IntervalKey.prefix
        let first = archive ? (try? archiveData()).flatMap(archiveRecords) : (try? Self.plainJudgement(domain))?.records
        guard let records = first, !records.entries.isEmpty,
              domain.domainKeys.contains(where: { $0.hasPrefix(prefix) && records[String($0.dropFirst(prefix.count))] != nil }) else {
            forms.removeLast()
            return
        }
        intervalCopyOf = records
    }

    /// This source with `form` neither read nor written (the store's IntervalClient keys are
    /// its own key space, not YCFirstTime's state).
    package func without(_ form: StateForm) -> StateSource {
        var source = self
        source.forms.removeAll { $0 == form }
        if form == .intervalKeys { source.intervalCopyOf = nil }
        return source
    }

    /// The archive bytes under ``key``.
    /// - Throws: ``FirstTimeError/keyNotFound(_:)``, or ``FirstTimeError/notArchiveData(key:found:)``
    ///   when the key holds something other than data.
    package func archiveData() throws(FirstTimeError) -> [UInt8] {
        guard let stored = domain.plistValue(forKey: key) else { throw .keyNotFound(key) }
        guard case let .data(bytes) = stored else { throw .notArchiveData(key: key, found: stored.kind) }
        return bytes
    }

    /// The records and non-fatal findings of one form; `archive` decodes the archive bytes of
    /// `.archive` and `.defaultsArchive`, `failure` gives every other error the caller's type.
    package func read<Failure: Error>(_ form: StateForm, failure: (FirstTimeError) -> Failure,
                                     archive: ([UInt8]) throws(Failure) -> ArchiveJudgement) throws(Failure) -> ArchiveJudgement {
        switch form {
        case .archive, .defaultsArchive:
            let bytes: [UInt8]
            do { bytes = try archiveData() } catch { throw failure(error) }
            return try archive(bytes)
        case .plainRecords:
            do { return try Self.plainJudgement(domain) } catch { throw failure(error) }
        case .intervalKeys:
            do { return try IntervalKey.read(domain.plistEntries(withPrefix: IntervalKey.prefix), copyOf: intervalCopyOf) } catch {
                throw failure(error)
            }
        }
    }

    /// The domain with `records` in place of `before` (the records it holds) in every form it
    /// holds, every other key in its place and value; a domain with no state yet gets them in
    /// `newForm` (an archive under ``key``, as YCFirstTime's first save puts it, or the plain
    /// records). The archive keeps `root`, the other entries of its root, as YCFirstTime's save
    /// does (`LegacyArchive.encode(_:keeping:)`).
    /// - Throws: ``FirstTimeError/cannotHold(_:)`` when IntervalClient keys alone hold the state
    ///   and a record has a version or no time; what the domain's ``StateDomain/setPlistValues(_:)``
    ///   throws.
    package func written(_ records: FirstTimeRecords, replacing before: FirstTimeRecords,
                        newForm: StateForm = .defaultsArchive, keeping root: LegacyArchive.RootEntries? = nil) throws(FirstTimeError) -> Domain {
        var changes: [(key: String, value: PlistValue?)] = []
        if forms == [.intervalKeys] { try Self.checkIntervalOnly(records) }
        for form in forms.isEmpty ? [newForm] : forms {
            switch form {
            case .archive, .defaultsArchive:
                let inner = forms.isEmpty ? nil : (try? archiveData()).flatMap { PropertyList.detectFormat($0) }
                changes.append((key, .data(try LegacyArchive.encode(records, keeping: root, format: inner ?? .binary))))
            case .plainRecords:
                changes.append((RecordsFormat.defaultsKey, RecordsFormat.plist(records)))
            case .intervalKeys:
                changes += intervalChanges(records, replacing: before)
            }
        }
        var domain = domain
        try domain.setPlistValues(changes)
        return domain
    }

    /// The domain after YCFirstTime's `reset()`: every form of the state `before` removed (an
    /// `interval.*` value IntervalClient cannot read is no state and stays, and so does a key
    /// that names no record of `before`, IntervalClient's own gate beside a copy).
    package func reset(_ before: FirstTimeRecords) throws(FirstTimeError) -> Domain {
        var changes: [(key: String, value: PlistValue?)] = []
        for form in forms {
            switch form {
            // unreachable: a domain's forms (init) are never .archive, the form of a bare archive file
            case .archive: break
            case .defaultsArchive: changes.append((key, nil))
            case .plainRecords: changes.append((RecordsFormat.defaultsKey, nil))
            case .intervalKeys:
                for (name, value) in domain.plistEntries(withPrefix: IntervalKey.prefix)
                where IntervalKey.seconds(value) != nil && before[String(name.dropFirst(IntervalKey.prefix.count))] != nil {
                    changes.append((name, nil))
                }
            }
        }
        var domain = domain
        try domain.setPlistValues(changes)
        return domain
    }

    /// The `interval.<key>` changes that replace the state `before` with the records' times: a
    /// key that stays keeps its place (and its stored value when that already reads as the
    /// time), the key of a removed record (or of one without a time) goes, new ones are
    /// appended. A key that names no record of `before` nor of `records` is IntervalClient's
    /// own gate beside a copy: it stays. A value IntervalClient cannot read is no state: it
    /// stays unless the records name its key.
    private func intervalChanges(_ records: FirstTimeRecords, replacing before: FirstTimeRecords) -> [(key: String, value: PlistValue?)] {
        var changes: [(key: String, value: PlistValue?)] = []
        var present = Set<ExactKey>()
        for (name, stored) in domain.plistEntries(withPrefix: IntervalKey.prefix) {
            present.insert(ExactKey(name))
            let block = String(name.dropFirst(IntervalKey.prefix.count))
            guard let record = records[block] else {
                if before[block] != nil && IntervalKey.seconds(stored) != nil { changes.append((name, nil)) }
                continue
            }
            guard let time = record.lastTime else { changes.append((name, nil)); continue }
            // A record the key still gives, bit for bit (as it was read: `stored - epochOffset`),
            // keeps the stored value as it is: its size, a NaN's payload, a time the round
            // trip through 2001 would move by an ulp.
            let kept = IntervalKey.seconds(stored).map { ($0 - IntervalKey.epochOffset).bitPattern == time.bitPattern } ?? false
            if !kept { changes.append((name, .real(time + IntervalKey.epochOffset))) }
        }
        for (block, record) in records where !present.contains(ExactKey(IntervalKey.prefix + block)) {
            if let time = record.lastTime { changes.append((IntervalKey.prefix + block, .real(time + IntervalKey.epochOffset))) }
        }
        return changes
    }

    /// Refuses records IntervalClient keys alone cannot hold: a version, or a record without a time.
    private static func checkIntervalOnly(_ records: FirstTimeRecords) throws(FirstTimeError) {
        let versioned = records.filter { $0.record.lastVersion != nil }.map(\.key)
        guard versioned.isEmpty else { throw .intervalKeysHoldNoVersion(keys: versioned) }
        // A record is an interval.<key> time: one without a time would silently vanish.
        let timeless = records.filter { $0.record.lastTime == nil }.map(\.key)
        guard timeless.isEmpty else { throw .intervalKeysHoldNoTimelessRecord(keys: timeless) }
    }

    private static func plainJudgement(_ domain: Domain) throws(FirstTimeError) -> ArchiveJudgement {
        guard let stored = domain.plistValue(forKey: RecordsFormat.defaultsKey) else { throw .keyNotFound(RecordsFormat.defaultsKey) }
        return try RecordsFormat.judged(fromPlist: stored)
    }
}

extension StateSource: Sendable where Domain: Sendable {}
