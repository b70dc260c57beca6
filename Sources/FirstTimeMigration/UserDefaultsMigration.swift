public import Foundation
public import FirstTimeCore
package import PlistCore

// The migration in the app's `UserDefaults`, key for key and bit for bit what `ycft migrate` does to an
// exported preferences file, without libplist: `Migration.plan` decides (the tool's code), ycft's reader and
// walker read the archive (Foundation's `NSKeyedUnarchiver` as a second opinion), ycft's writer rolls back.
extension Migration {
    /// The state in `defaults`, from whichever form it holds: the legacy archive, the plain
    /// records, or IntervalClient keys (versions nil).
    /// Nil when the domain holds none (a fresh install). A value under the archive key that is
    /// not data is what the app reads there: no records (`UserDefaults.data(forKey:)` is nil),
    /// with a ``ContractRule/stateNotData`` finding.
    ///
    /// ```swift
    /// UserDefaults.standard.set("oops", forKey: "YCFirstTime")
    /// let state = try Migration.records(in: .standard)   // no records; state?.resetsAll?.rule == .stateNotData
    /// ```
    /// - Throws: ``Migration/Failure/unreadable(_:archiveKey:)`` when the first form cannot be read.
    public static func records(in defaults: UserDefaults, options: Options = .init()) throws(Failure) -> FirstTimeState? {
        let source = Self.source(defaults, options)
        let device = { (failure: Failure) -> ContractFinding? in
            if case let .unreadable(error, _) = failure { return error.finding }
            return nil
        }
        return try StateForm.state(of: source.forms, asDevice: device, read: { (form: StateForm) throws(Failure) in
            try read(form, of: source, options)
        })
    }

    /// Stores `records` in the plain format under `YCFirstTime.records`, exactly as
    /// `migrate(_:to:options:)` to `.records` writes it (times as exact reals, nil fields absent): how a
    /// migrated app records a run. Other keys, the legacy archive included, are left alone.
    /// - Throws: ``Migration/Failure/unwritable(_:)`` where this platform's Foundation would merge two
    ///   block keys (canonically equivalent keys, on Linux); nothing is written then.
    public static func save(_ records: FirstTimeRecords, in defaults: UserDefaults) throws(Failure) {
        do { try defaults.setPlistValues([(RecordsFormat.defaultsKey, RecordsFormat.plist(records))]) } catch {
            throw .unwritable(error)
        }
    }

    /// Moves the state in `defaults` to `target`, leaving every other key alone: in the app, what
    /// `ycft migrate` does to an exported preferences file.
    ///
    /// ```swift
    /// do {
    ///     let outcome = try Migration.migrate(.standard, to: .records)   // at launch, once
    ///     if let reset = outcome.resetsAll { log("YCFirstTime would have started afresh: \(reset)") }
    /// } catch {
    ///     log("state left as it was: \(error)")        // nothing was written
    /// }
    /// try Migration.migrate(.standard, to: .legacy)      // a pulled release: the archive back
    /// ```
    ///
    /// Idempotent: a second call reports `.unchanged`. New keys are written before the source
    /// keys are removed, so an interrupted migration leaves the state readable and the next
    /// call completes it.
    /// - Throws: ``Migration/Failure``: the source state is unreadable (or Foundation reads it
    ///   differently), a target key holds other content and ``Migration/Options/force`` is off, the
    ///   result cannot be stored, or a source key to remove is also set in a domain
    ///   `removeObject(forKey:)` leaves alone (launch arguments, registered defaults, the global
    ///   domain: ``Migration/Failure/setElsewhere(key:domain:)``). Nothing is written then.
    @discardableResult
    public static func migrate(_ defaults: UserDefaults, to target: Target, options: Options = .init()) throws(Failure) -> Outcome {
        let source = Self.source(defaults, options)
        let plan = try Self.plan(forms: source.forms, to: target, options: options, existing: { defaults.plistValue(forKey: $0) },
                                 read: { (form: StateForm) throws(Failure) in try read(form, of: source, options) })
        var outcome = plan.outcome
        guard outcome.status == .migrated else { return outcome }
        // Everything that can fail happens before the first write.
        let writes = plan.writes.filter { $0.existing != .same }
        // The plan's removals are source keys it read, so each is in the domain.
        let removals = plan.removals
        // A source key the app would still read once removed: removeObject(forKey:) removes a
        // key from the app's own domain only.
        if let (key, place) = unremovable(removals, in: defaults) {
            throw .setElsewhere(key: key, domain: place)
        }
        let changes = writes.map { (key: $0.key, value: Optional($0.value)) } + removals.map { (key: $0, value: PlistValue?.none) }
        do { try defaults.setPlistValues(changes) } catch { throw .unwritable(error) }
        outcome.added = writes.filter { $0.existing == .absent }.map(\.key)
        outcome.changed = writes.filter { $0.existing == .different }.map(\.key)
        outcome.removed = removals
        if writes.isEmpty && removals.isEmpty { outcome.status = .unchanged }
        return outcome
    }

    /// The state's forms in `defaults` (``StateSource``, as the tool finds them in a file).
    static func source(_ defaults: UserDefaults, _ options: Options) -> StateSource<UserDefaults> {
        StateSource(defaults, key: options.key) { bytes in try? archive(bytes, options).records }
    }

    /// The records and findings of one form.
    static func read(_ form: StateForm, of source: StateSource<UserDefaults>, _ options: Options) throws(Failure) -> ArchiveJudgement {
        try source.read(form, failure: { Failure(reading: $0, form: form, key: options.key) }, archive: { (bytes: [UInt8]) throws(Failure) in
            try archive(bytes, options)
        })
    }

    /// The archive's records, read by ycft's guarded reader and checked against Foundation's.
    private static func archive(_ bytes: [UInt8], _ options: Options) throws(Failure) -> ArchiveJudgement {
        guard PropertyList.detectFormat(bytes) != .xml else { throw .xmlArchive(key: options.key) }
        let decoded: ArchiveJudgement
        do { decoded = try LegacyArchive.read(binary: bytes, limits: options.limits) } catch {
            throw Failure(reading: error.embedded(under: options.key), form: .defaultsArchive, key: options.key)
        }
        try secondOpinion(bytes, decoded, options)
        return decoded
    }

    /// The first of `keys` that is also set outside the app's own domain, among the domains every
    /// `UserDefaults` searches and `removeObject(forKey:)` leaves alone (registered defaults,
    /// launch arguments, the global domain), and that domain; nil when none is. Each domain is
    /// read once, however many keys are asked about (a rollback removes a key per gate). (Suites
    /// added with `addSuite(named:)` are not listed by `UserDefaults` and are not checked.)
    static func unremovable(_ keys: [String], in defaults: UserDefaults) -> (key: String, place: Failure.OtherDomain)? {
        guard !keys.isEmpty else { return nil }
        let others: [(domain: [String: Any], place: Failure.OtherDomain)] = [
            (defaults.volatileDomain(forName: UserDefaults.registrationDomain), .registration),
            (defaults.volatileDomain(forName: UserDefaults.argumentDomain), .arguments),
            (defaults.persistentDomain(forName: UserDefaults.globalDomain) ?? [:], .global),
        ]
        for key in keys {
            if let other = others.first(where: { $0.domain[key] != nil }) { return (key, other.place) }
        }
        return nil
    }

    /// Foundation's reading of the archive must be ycft's (see ``FoundationLoader``).
    private static func secondOpinion(_ bytes: [UInt8], _ decoded: ArchiveJudgement, _ options: Options) throws(Failure) {
        guard options.checksWithFoundation else { return }
        #if !canImport(Darwin)
        guard decoded.findings.resetsAll == nil else { return }
        #endif
        switch FoundationLoader.records(bytes) {
        case let .success(records) where records == decoded.records:
            return
        case .success:
            throw .foundationReadsOtherRecords(key: options.key)
        case let .failure(.differs(why)):
            throw .foundationReadsDifferently(key: options.key, why)
        case let .failure(.refused(why)):
            throw .foundationRefuses(key: options.key, why)
        }
    }
}

extension UserDefaults: StateDomain {
    /// Every key the app can read (all search-list domains, as `object(forKey:)` searches them),
    /// in UTF-8 order. Linux Foundation's `dictionaryRepresentation()` leaves out the volatile
    /// domains (launch arguments, `NSArgumentDomain`), which `object(forKey:)` reads first: their
    /// keys are added, so a state given as a launch argument is found there as on the device.
    package var domainKeys: [String] {
        var keys = Set(dictionaryRepresentation().keys)
        for name in volatileDomainNames { keys.formUnion(volatileDomain(forName: name).keys) }
        return keys.sorted(by: utf8Precedes)
    }

    /// The value stored under `key`, as a property list. An object no property list can hold
    /// (none should be in `UserDefaults`) reads as its description, so it is never mistaken for state.
    package func plistValue(forKey key: String) -> PlistValue? {
        guard let object = object(forKey: key) else { return nil }
        return FoundationValues.value(object) ?? .string(String(describing: object))
    }

    /// Converts every value first, then sets and removes the keys in order (`set(_:forKey:)`,
    /// `removeObject(forKey:)`).
    /// - Throws: ``FirstTimeError/cannotHold(_:)`` for a value `UserDefaults` cannot store (a UID,
    ///   a 16-byte integer) or, where Foundation merges canonically equivalent keys, for keys it
    ///   would merge; nothing is set then.
    package func setPlistValues(_ changes: [(key: String, value: PlistValue?)]) throws(FirstTimeError) {
        var objects: [Any?] = []
        for (key, value) in changes { objects.append(try value.map { (value: PlistValue) throws(FirstTimeError) in try FoundationValues.object(value, at: .key(key)) }) }
        if FoundationValues.mergesEquivalentKeys {
            let keys = domainKeys
            var present = ExactKeyPositions(keys)
            var removed = ExactKeyPositions(changes.filter { $0.value == nil }.map(\.key))
            let added = changes.filter { $0.value != nil && present.position(of: $0.key) == nil }.map(\.key)
            try FoundationValues.checkKeys(keys.filter { !removed.contains($0) } + added, at: .topLevel)
        }
        for (change, object) in zip(changes, objects) {
            if let object { set(object, forKey: change.key) } else { removeObject(forKey: change.key) }
        }
    }
}
