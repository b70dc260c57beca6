public import Foundation
@_exported public import FirstTimeCore
@_exported public import PlistCore

/// Migrates YCFirstTime state inside the app, in its `UserDefaults`: what `ycft migrate` does to
/// an exported preferences file, key for key and bit for bit, without libplist.
///
/// ```swift
/// import FirstTimeMigration
///
/// // At launch, once: move the legacy archive to the plain format.
/// do {
///     let outcome = try FirstTimeMigration.migrate(.standard, to: .records)
///     if let reset = outcome.resetsAll { log("YCFirstTime would have started afresh: \(reset)") }
/// } catch {
///     log("state left as it was: \(error)")        // nothing was written
/// }
///
/// // Read the state, whichever form the domain holds.
/// let state = try FirstTimeMigration.records(in: .standard)
/// let onboarded = state.records["onboarding"]?.lastTime != nil
///
/// // Pulled release: give an older build its archive back.
/// try FirstTimeMigration.migrate(.standard, to: .legacy)
/// ```
///
/// The decisions (which keys, which values, what counts as already migrated, what conflicts)
/// are ``Migration/plan(forms:choices:existing:read:)``'s, the same code the tool
/// runs; the archive is read by ycft's own guarded reader and contract walker and, as a second
/// opinion, by Foundation's `NSKeyedUnarchiver` the way YCFirstTime's loader reads it; the
/// rollback archive is written by ycft's own writer in the contract's layout.
public enum FirstTimeMigration {
    /// Where the state goes: `.records`, `.interval` or `.legacy`.
    public typealias Target = Migration.Target
    /// Why nothing was migrated (nothing is written when one is thrown).
    public typealias Failure = Migration.Failure

    /// How to migrate: the meaning of each option is `ycft migrate`'s.
    public struct Options: Sendable {
        /// Keep the source keys (the archive; on rollback, the plain and interval keys).
        public var keepSource: Bool
        /// Overwrite target keys that hold different content (the source wins).
        public var force: Bool
        /// The defaults key of the legacy archive.
        public var key: String
        /// With `.interval`: do not write `YCFirstTime.records` (versions are lost).
        public var dropVersions: Bool
        /// Bounds for reading the archive.
        public var limits: PlistLimits
        /// Also read the archive with Foundation's `NSKeyedUnarchiver`, as YCFirstTime's loader
        /// does, and migrate only when it reads the same records as ycft. On Linux it runs only
        /// for archives the contract walker finds nothing device-breaking in: swift-corelibs-
        /// foundation traps (instead of failing) on some archives the loader would refuse.
        public var checksWithFoundation: Bool

        /// The defaults: move the state, remove the source, refuse conflicts, check with Foundation.
        public init(keepSource: Bool = false, force: Bool = false, key: String = LegacyArchive.defaultsKey,
                    dropVersions: Bool = false, limits: PlistLimits = .default, checksWithFoundation: Bool = true) {
            self.keepSource = keepSource
            self.force = force
            self.key = key
            self.dropVersions = dropVersions
            self.limits = limits
            self.checksWithFoundation = checksWithFoundation
        }
    }

    /// What a migration did: the same type the tool reports per file.
    public typealias Outcome = Migration.Outcome

    /// The state a domain holds.
    public struct State: Sendable {
        /// The records (empty when the domain holds no state: a fresh install).
        public var records: FirstTimeRecords
        /// The form they were read from; nil when there is none.
        public var form: StateForm?
        /// Every form the domain holds, in reading order.
        public var forms: [StateForm]
        /// Findings that leave the state readable (see ``Migration/Outcome/findings``), and copies in
        /// another form that disagree.
        public var findings: [ContractFinding]

        /// The finding that makes YCFirstTime discard all state, if any.
        public var resetsAll: ContractFinding? { findings.first { $0.rule.spec.device == .resetsAll } }
    }

    /// The state in `defaults`, from whichever form it holds: the legacy archive, the plain
    /// records, or IntervalClient keys (versions nil).
    /// - Throws: ``Migration/Failure/unreadable(_:)`` when the first form cannot be read.
    public static func records(in defaults: UserDefaults, options: Options = .init()) throws(Failure) -> State {
        let domain = Domain(defaults, options: options)
        guard let (form, decoded) = try StateForm.state(of: domain.forms, read: domain.read) else {
            return State(records: FirstTimeRecords(), form: nil, forms: [], findings: [])
        }
        return State(records: decoded.records, form: form, forms: domain.forms, findings: decoded.findings)
    }

    /// Stores `records` in the plain format under `YCFirstTime.records`, exactly as
    /// `migrate(_:to: .records)` writes it (times as exact reals, nil fields absent): how a
    /// migrated app records a run. Other keys, the legacy archive included, are left alone.
    /// - Throws: ``Migration/Failure/unwritable(_:)`` where this platform's Foundation would merge two
    ///   block keys (canonically equivalent keys, on Linux); nothing is written then.
    public static func save(_ records: FirstTimeRecords, in defaults: UserDefaults) throws(Failure) {
        defaults.set(try FoundationValues.object(RecordsFormat.plist(records), at: RecordsFormat.defaultsKey),
                     forKey: RecordsFormat.defaultsKey)
    }

    /// Moves the state in `defaults` to `target`, leaving every other key alone.
    ///
    /// Idempotent: a second call reports `.unchanged`. New keys are written before the source
    /// keys are removed, so an interrupted migration leaves the state readable and the next
    /// call completes it.
    /// - Throws: ``Failure``: the source state is unreadable (or Foundation reads it
    ///   differently), a target key holds other content and ``Options/force`` is off, the
    ///   result cannot be stored, or a source key to remove is also set in a domain
    ///   `removeObject(forKey:)` leaves alone (launch arguments, registered defaults, the global
    ///   domain: ``Migration/Failure/unwritable(_:)``). Nothing is written then.
    @discardableResult
    public static func migrate(_ defaults: UserDefaults, to target: Target, options: Options = .init()) throws(Failure) -> Outcome {
        let domain = Domain(defaults, options: options)
        let choices = Migration.Choices(target: target, keepSource: options.keepSource, force: options.force,
                                        key: options.key, dropVersions: options.dropVersions)
        let plan = try Migration.plan(forms: domain.forms, choices: choices, existing: domain.value, read: domain.read)
        var outcome = plan.outcome
        guard outcome.status == .migrated else { return outcome }
        // Everything that can fail happens before the first write.
        let writes = plan.writes.filter { $0.existing != .same }
        let added = writes.filter { $0.existing == .absent }.map(\.key)
        // The plan's removals are source keys it read, so each is in the domain.
        let removals = plan.removals
        // A source key the app would still read once removed: removeObject(forKey:) removes a
        // key from the app's own domain only.
        if let (key, place) = Domain.unremovable(removals, in: defaults) {
            throw .unwritable("\(UntrustedText.quoted(key)) is also set in \(place), where removeObject(forKey:) does not remove it, "
                              + "so the app would go on reading it; remove it there first, or migrate with keepSource")
        }
        var objects: [Any] = []
        for write in writes { objects.append(try FoundationValues.object(write.value, at: write.key)) }
        if FoundationValues.mergesEquivalentKeys {
            var removed = ExactKeyPositions(removals)
            let kept = domain.keys.filter { !removed.contains($0) }
            try FoundationValues.checkKeys(kept + added, at: "the domain")
        }
        for (write, object) in zip(writes, objects) { defaults.set(object, forKey: write.key) }
        for key in removals { defaults.removeObject(forKey: key) }
        outcome.added = added
        outcome.changed = writes.filter { $0.existing == .different }.map(\.key)
        outcome.removed = removals
        if writes.isEmpty && removals.isEmpty { outcome.status = .unchanged }
        return outcome
    }
}

/// One `UserDefaults` domain as the migration plan sees it: its keys, each key's value as a
/// property list, and each form's records.
struct Domain {
    let defaults: UserDefaults
    let options: FirstTimeMigration.Options
    /// Every key the app can read (all search-list domains, as `object(forKey:)` searches them).
    let keys: [String]
    /// The forms of the state (``StateForm/held(_:keys:primaryRecords:)``: `interval.*` keys
    /// beside another form are a form only when they copy its records).
    private(set) var forms: [StateForm]
    /// The records an interval copy mirrors, when `.intervalKeys` is a copy beside another form.
    private var intervalCopyOf: FirstTimeRecords?

    init(_ defaults: UserDefaults, options: FirstTimeMigration.Options) {
        self.defaults = defaults
        self.options = options
        keys = defaults.dictionaryRepresentation().keys.sorted(by: utf8Precedes)
        forms = StateForm.forms(in: keys, key: options.key)
        let candidates = forms
        (forms, intervalCopyOf) = StateForm.held(candidates, keys: keys) { try? self.read(candidates[0]).records }
    }

    /// The first of `keys` that is also set outside the app's own domain, among the domains every
    /// `UserDefaults` searches and `removeObject(forKey:)` leaves alone (registered defaults,
    /// launch arguments, the global domain), and that domain; nil when none is. Each domain is
    /// read once, however many keys are asked about (a rollback removes a key per gate). (Suites
    /// added with `addSuite(named:)` are not listed by `UserDefaults` and are not checked.)
    static func unremovable(_ keys: [String], in defaults: UserDefaults) -> (key: String, place: String)? {
        guard !keys.isEmpty else { return nil }
        let others: [(domain: [String: Any], place: String)] = [
            (defaults.volatileDomain(forName: UserDefaults.registrationDomain), "the registration domain (register(defaults:))"),
            (defaults.volatileDomain(forName: UserDefaults.argumentDomain), "the argument domain (launch arguments)"),
            (defaults.persistentDomain(forName: UserDefaults.globalDomain) ?? [:], "the global domain"),
        ]
        for key in keys {
            if let other = others.first(where: { $0.domain[key] != nil }) { return (key, other.place) }
        }
        return nil
    }

    /// The value stored under `key`, as a property list. An object no property list can hold
    /// (none should be in `UserDefaults`) reads as its description, so it is never mistaken for state.
    func value(_ key: String) -> PlistValue? {
        guard let object = defaults.object(forKey: key) else { return nil }
        return FoundationValues.value(object) ?? .string(String(describing: object))
    }

    /// The records and findings of one form.
    func read(_ form: StateForm) throws(Migration.Failure) -> DecodedArchive {
        func failure(_ error: FirstTimeError) -> Migration.Failure { Migration.Failure(reading: error, form: form, key: options.key) }
        guard form == .archive || form == .defaultsArchive else {
            do { return try decodeMigrated(form) } catch { throw failure(error) }
        }
        // The archive's bytes are copied out of UserDefaults once.
        let bytes: [UInt8]
        do { bytes = try archiveBytes() } catch { throw failure(error) }
        if PropertyList.detectFormat(bytes) == .xml {
            throw .unreadable("\(options.key): an XML archive; FirstTimeMigration reads the binary archives "
                              + "NSKeyedArchiver writes (ycft migrate reads both)")
        }
        let decoded: DecodedArchive
        do { decoded = try LegacyArchive.read(binary: bytes, limits: options.limits) } catch { throw failure(error.embedded(under: options.key)) }
        try secondOpinion(bytes, decoded)
        return decoded
    }

    /// The data under the archive key.
    private func archiveBytes() throws(FirstTimeError) -> [UInt8] {
        guard let stored = value(options.key) else { throw .keyNotFound(options.key) }
        guard case let .data(bytes) = stored else { throw .notArchiveData(key: options.key, found: stored.typeName) }
        return bytes
    }

    /// The records of the plain format or of IntervalClient keys.
    private func decodeMigrated(_ form: StateForm) throws(FirstTimeError) -> DecodedArchive {
        if form == .plainRecords {
            guard let stored = value(RecordsFormat.defaultsKey) else { throw .keyNotFound(RecordsFormat.defaultsKey) }
            return DecodedArchive(records: try RecordsFormat.records(fromPlist: stored))
        }
        let entries = keys.filter { $0.hasPrefix(IntervalKey.prefix) }.compactMap { key in value(key).map { (key: key, value: $0) } }
        return try IntervalKey.read(entries, copyOf: intervalCopyOf)
    }

    /// Foundation's reading of the archive must be ycft's (see ``FoundationLoader``).
    private func secondOpinion(_ bytes: [UInt8], _ decoded: DecodedArchive) throws(Migration.Failure) {
        guard options.checksWithFoundation else { return }
        #if !canImport(Darwin)
        guard !decoded.findings.contains(where: { $0.rule.spec.device == .resetsAll }) else { return }
        #endif
        switch FoundationLoader.records(bytes) {
        case let .success(records) where records == decoded.records:
            return
        case .success:
            throw .unreadable("\(options.key): Foundation's NSKeyedUnarchiver reads other records from this archive "
                              + "than ycft does")
        case let .failure(.differs(why)):
            throw .unreadable("\(options.key): Foundation's NSKeyedUnarchiver reads this archive differently from ycft: \(why)")
        case let .failure(.refused(why)):
            throw .unreadable("\(options.key): Foundation's NSKeyedUnarchiver refuses this archive (\(why)), "
                              + "so YCFirstTime would start afresh")
        }
    }
}
