public import Foundation
public import Plist
internal import SafeFiles
internal import Synchronization

/// YCFirstTime's and IntervalClient's gates for Swift code on Linux and macOS, persisted the
/// way the apps persist them: in a defaults-domain property list (what `defaults export`
/// writes, or an app's `Library/Preferences/<id>.plist`), with the YCFirstTime archive under
/// `YCFirstTime`, IntervalClient's `interval.<key>` numbers beside it, and every other key of
/// the domain kept exactly. So `ycft dump`, `status` and `migrate` work on a store's file, and a
/// domain exported from a device can be used as a store.
///
/// ```swift
/// let store = try FirstTimeStore(path: "Preferences.plist")
/// try store.executeOnce({ showOnboarding() }, forKey: "onboarding.v1")
/// try store.executeOncePerInterval({ askForRating() }, forKey: "rate", withDaysInterval: 30)
/// if store.shouldRun("weekly-report", every: .weekly) { sendReport(); try store.markRun("weekly-report") }
/// ```
///
/// **As the library does it.** Method names, the nil-block rule, the version and clock seams
/// (``versionProvider``, ``nowProvider``: nil restores the default) and the order follow
/// YCFirstTime 2.x: the block runs *first*, then the run is recorded (its `lastTime` read after
/// the block) and saved; a block that never returns records nothing. ``reset()`` removes the
/// `YCFirstTime` key from the domain. IntervalClient's calls (``shouldRun(_:every:)``,
/// ``markRun(_:)``, ``reset(_:)``) use their own key space, `interval.<key>` = seconds since
/// 1970, never the YCFirstTime archive. ``recordsBeforeRunning`` is an explicit crash-safe mode
/// that records before the block runs (a block that crashes then never runs again).
///
/// **Thread safety.** Every method may be called from any thread. A gate holds the store's
/// (recursive) lock from its decision through its block to its save, so when threads race on
/// one key exactly one runs the block, and a block may call the store again. Two stores (or
/// processes) writing one file are not coordinated: the last save wins. (`@unchecked Sendable`
/// because the state sits behind an NSRecursiveLock, not a Synchronization.Mutex: a block runs
/// under the lock and may call the store again, and Mutex is not recursive.)
public final class FirstTimeStore: @unchecked Sendable {
    /// Which form of the YCFirstTime state a new domain gets (an existing domain keeps its own).
    public enum FileFormat: Sendable, Equatable {
        /// The legacy NSKeyedArchiver archive under `YCFirstTime` (binary plist file).
        case legacyArchive
        /// The plain format under `YCFirstTime.records`, as a migrated app stores it.
        case plainRecords(PlistFormat)
    }

    /// Why the store could not load or save.
    public enum StoreError: Error, Sendable, CustomStringConvertible {
        /// The file exists but does not hold readable state.
        case unreadable(path: String, FirstTimeError)
        /// The file could not be read or written.
        case io(path: String, String)

        /// `path: what`.
        public var description: String {
            switch self {
            case let .unreadable(path, error): return "\(path): \(error)"
            case let .io(path, why): return "\(path): \(why)"
            }
        }
    }

    /// The file of ``shared`` (set it before the first use of ``shared``). Default:
    /// `$YCFT_STORE`, else `~/.ycft/Preferences.plist`.
    public static var sharedPath: String {
        get { sharedPathStorage.withLock { $0 } }
        set { sharedPathStorage.withLock { $0 = newValue } }
    }
    private static let sharedPathStorage = Mutex<String>(ProcessInfo.processInfo.environment["YCFT_STORE"]
        ?? (NSHomeDirectory() as NSString).appendingPathComponent(".ycft/Preferences.plist"))

    /// The process-wide store at ``sharedPath``, opened on first use. When that file cannot be
    /// read the store starts empty, ``loadError`` says why, and it never overwrites the file.
    public static var shared: FirstTimeStore { sharedStore }
    private static let sharedStore: FirstTimeStore = {
        do throws(StoreError) { return try FirstTimeStore(path: sharedPath) } catch {
            return FirstTimeStore(unreadable: sharedPath, error: error)
        }
    }()

    /// Why the file could not be loaded (only for ``shared``; ``init(path:format:calendar:)`` throws).
    public let loadError: StoreError?

    /// The running app's version; nil restores the default (`CFBundleShortVersionString`).
    public var versionProvider: (@Sendable () -> String?)? {
        get { lock.withLock { versionOverride } }
        set { lock.withLock { versionOverride = newValue } }
    }

    /// The current time; nil restores the default (`Date()`).
    public var nowProvider: (@Sendable () -> Date)? {
        get { lock.withLock { nowOverride } }
        set { lock.withLock { nowOverride = newValue } }
    }

    /// Record the run before the block runs (crash-safe: a block that crashes is not retried),
    /// instead of after it as YCFirstTime does. Default false.
    public var recordsBeforeRunning: Bool {
        get { lock.withLock { recordFirst } }
        set { lock.withLock { recordFirst = newValue } }
    }

    private let path: String
    private var newFileFormat: PlistFormat
    private let calendar: Calendar
    private let lock = NSRecursiveLock()
    private var versionOverride: (@Sendable () -> String?)?
    private var nowOverride: (@Sendable () -> Date)?
    private var recordFirst = false
    /// The whole domain as it will be saved; `records` mirrors its YCFirstTime part.
    private var domain: PlistDictionary
    private var state: FirstTimeRecords
    /// Where the YCFirstTime state lives in the domain.
    private var recordsKey: String
    /// The stored group is an `NSDictionary`: YCFirstTime's next save replaces it with a new
    /// group holding only the saved key.
    private var groupReplacedOnSave = false

    /// Opens a store, loading the file when it exists (a missing file is an empty domain).
    /// - Parameters:
    ///   - path: the defaults-domain file (a bare YCFirstTime archive, as earlier ycft versions
    ///     kept, is read as a domain holding it).
    ///   - format: the form of the YCFirstTime state when the domain has none yet.
    ///   - calendar: the calendar and time zone for IntervalClient's rules.
    /// - Throws: ``StoreError`` when the file exists but cannot be read.
    public init(path: String, format: FileFormat = .legacyArchive, calendar: Calendar = .current) throws(StoreError) {
        self.path = path
        self.calendar = calendar
        loadError = nil
        switch format {
        case .legacyArchive:
            newFileFormat = .binary
            recordsKey = LegacyArchive.defaultsKey
        case let .plainRecords(plist):
            newFileFormat = plist
            recordsKey = RecordsFormat.defaultsKey
        }
        domain = PlistDictionary()
        state = FirstTimeRecords()
        // FileStatus, not FileManager: the path's bytes as PathBytes encodes them (a non-UTF-8 name).
        guard case .success = FileStatus.of(path) else { return }
        let limit = PlistLimits.default.maxInputSize
        let bytes: [UInt8]
        do { bytes = try SafeFile.read(path, limit: limit).bytes } catch { throw .io(path: path, error.description) }
        guard bytes.count <= limit else { throw .io(path: path, "cannot read: larger than \(limit) bytes") }
        // What the file is and whether its YCFirstTime state reads, as every ycft command asks
        // (StateFile): a key that holds something else is refused, never saved over.
        do throws(FirstTimeError) {
            let file = try StateFile(bytes)
            guard let found = file.defaults else {
                // A bare archive (what earlier versions of this store wrote): the domain holds it.
                state = try file.state().records
                domain = PlistDictionary([(LegacyArchive.defaultsKey, .data(bytes))])
                newFileFormat = .binary
                return
            }
            domain = found
            newFileFormat = file.format
            // IntervalClient's keys are its own key space here, not YCFirstTime's state.
            if file.forms.contains(.defaultsArchive) {
                let decoded = try file.read(.defaultsArchive)
                // As YCFirstTime 2.x loads it: a state its unarchive rejects (an NSDictionary
                // root, a class outside its list) is an empty one, replaced on the next save;
                // an NSDictionary group is read, but the next save starts a new group holding
                // only the saved key (`as? NSMutableDictionary ?? NSMutableDictionary()`).
                if decoded.findings.contains(where: { $0.rule.spec.device == .resetsAll }) {
                    state = FirstTimeRecords()
                } else {
                    state = decoded.records
                    groupReplacedOnSave = decoded.findings.contains { $0.rule == .groupImmutable }
                }
                recordsKey = LegacyArchive.defaultsKey
            } else if file.forms.contains(.plainRecords) {
                state = try file.read(.plainRecords).records
                recordsKey = RecordsFormat.defaultsKey
            }
        } catch {
            throw .unreadable(path: path, error)
        }
    }

    private init(unreadable path: String, error: StoreError) {
        self.path = path
        calendar = .current
        newFileFormat = .binary
        domain = PlistDictionary()
        state = FirstTimeRecords()
        recordsKey = LegacyArchive.defaultsKey
        loadError = error
    }

    /// The YCFirstTime records as they are now (a snapshot).
    public var records: FirstTimeRecords { lock.withLock { state } }

    // MARK: YCFirstTime

    /// Runs `block` the first time `key` is seen, and never again. A nil block records nothing.
    /// - Returns: whether the block ran.
    /// - Throws: ``StoreError`` when the run could not be saved (the block ran; its run is not
    ///   recorded, as when the app is killed before YCFirstTime saves).
    @discardableResult
    public func executeOnce(_ block: (() -> Void)?, forKey key: String) throws(StoreError) -> Bool {
        try execute(block, afterFirstTime: nil, key: key, rule: .once)
    }

    /// Runs `block` the first time, and `afterFirstTime` on every later call.
    @discardableResult
    public func executeOnce(_ block: (() -> Void)?, executeAfterFirstTime afterFirstTime: (() -> Void)?,
                            forKey key: String) throws(StoreError) -> Bool {
        try execute(block, afterFirstTime: afterFirstTime, key: key, rule: .once)
    }

    /// Runs `block` once per app version, compared as YCFirstTime 2.x compares them (Swift
    /// `String` equality: "1.0" is not "1.0.0", but canonically equivalent strings are equal).
    @discardableResult
    public func executeOncePerVersion(_ block: (() -> Void)?, forKey key: String) throws(StoreError) -> Bool {
        try execute(block, afterFirstTime: nil, key: key, rule: .perVersion)
    }

    /// Runs `block` once per app version, and `afterFirstTime` on every other call.
    @discardableResult
    public func executeOncePerVersion(_ block: (() -> Void)?, executeAfterFirstTime afterFirstTime: (() -> Void)?,
                                      forKey key: String) throws(StoreError) -> Bool {
        try execute(block, afterFirstTime: afterFirstTime, key: key, rule: .perVersion)
    }

    /// Runs `block` the first time, then again once `days` days of 86,400 seconds have passed
    /// since its last run (at the boundary instant itself). `days <= 0` behaves as
    /// ``executeOnce(_:forKey:)``; a record without a time never runs again.
    @discardableResult
    public func executeOncePerInterval(_ block: (() -> Void)?, forKey key: String,
                                       withDaysInterval days: Float) throws(StoreError) -> Bool {
        try execute(block, afterFirstTime: nil, key: key, rule: .everyDays(days))
    }

    /// Whether `key` has ever run (ignores version and interval).
    public func blockWasExecuted(_ key: String) -> Bool { lock.withLock { state[key] != nil } }

    /// When `key` last ran, or nil.
    public func lastExecutionDate(forKey key: String) -> Date? {
        lock.withLock { state[key]?.lastTime.map(Date.init(timeIntervalSinceReferenceDate:)) }
    }

    /// Forgets every YCFirstTime key: removes `YCFirstTime` (or `YCFirstTime.records`) from the
    /// domain, as the library removes its defaults key; the rest of the domain stays.
    public func reset() throws(StoreError) {
        lock.lock()
        defer { lock.unlock() }
        var next = domain
        next[recordsKey] = nil
        try save(next)
        domain = next
        state = FirstTimeRecords()
    }

    // MARK: IntervalClient

    /// Whether the gate should run now: yes when `interval.<key>` holds no number (missing, or
    /// not a number `as? TimeInterval` reads), when calendar arithmetic fails, or when `now >=
    /// calendar.date(byAdding:value:to: lastRun)`.
    public func shouldRun(_ key: IntervalKey, every interval: IntervalConfig) -> Bool {
        lock.withLock {
            let now = currentDate().timeIntervalSinceReferenceDate
            return RunRules.decide(.calendar(interval.calendarInterval), record: intervalRecord(key), now: now,
                                   appVersion: nil, calendar: calendar).wouldRun
        }
    }

    /// Records that the gate ran now: `interval.<key>` = seconds since 1970 (a real).
    public func markRun(_ key: IntervalKey) throws(StoreError) {
        lock.lock()
        defer { lock.unlock() }
        var next = domain
        next[IntervalKey.prefix + key.name] = .real(currentDate().timeIntervalSince1970)
        try save(next)
        domain = next
    }

    /// Forgets one IntervalClient gate (removes `interval.<key>`).
    public func reset(_ key: IntervalKey) throws(StoreError) {
        lock.lock()
        defer { lock.unlock() }
        var next = domain
        next[IntervalKey.prefix + key.name] = nil
        try save(next)
        domain = next
    }

    /// When the gate last ran, or nil (as ``shouldRun(_:every:)`` reads it).
    public func lastRun(_ key: IntervalKey) -> Date? {
        lock.withLock { intervalRecord(key)?.lastTime.map(Date.init(timeIntervalSinceReferenceDate:)) }
    }

    // MARK: Internals

    private func currentVersion() -> String? {
        if let versionOverride { return versionOverride() }
        return Bundle.main.object(forInfoDictionaryKey: "CFBundleShortVersionString") as? String
    }

    private func currentDate() -> Date { nowOverride?() ?? Date() }

    private func intervalRecord(_ key: IntervalKey) -> FirstTimeRecord? {
        guard let stored = domain[IntervalKey.prefix + key.name],
              let seconds = IntervalKey.seconds(stored) else { return nil }
        return FirstTimeRecord(lastVersion: nil, lastTime: seconds - IntervalKey.epochOffset)
    }

    /// YCFirstTime's `execute`: already executed runs the after-block; a nil block returns
    /// without saving; otherwise the block runs, then the run is recorded and saved.
    private func execute(_ block: (() -> Void)?, afterFirstTime: (() -> Void)?, key: String,
                         rule: GateRule) throws(StoreError) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        let now = currentDate().timeIntervalSinceReferenceDate
        let decision = RunRules.decide(rule, record: state[key], now: now, appVersion: currentVersion(), calendar: calendar)
        guard decision.wouldRun else {
            afterFirstTime?()
            return false
        }
        guard let block else { return false }
        if recordFirst {
            try record(key)
            block()
        } else {
            block()
            try record(key)
        }
        return true
    }

    /// Saves the run of `key` (version from the provider, time read now) and then updates memory.
    private func record(_ key: String) throws(StoreError) {
        var next = groupReplacedOnSave ? FirstTimeRecords() : state
        next[key] = FirstTimeRecord(lastVersion: currentVersion(), lastTime: currentDate().timeIntervalSinceReferenceDate)
        var nextDomain = domain
        nextDomain[recordsKey] = try encode(next)
        try save(nextDomain)
        domain = nextDomain
        state = next
        groupReplacedOnSave = false
    }

    private func encode(_ records: FirstTimeRecords) throws(StoreError) -> PlistValue {
        if recordsKey == RecordsFormat.defaultsKey { return RecordsFormat.plist(records) }
        do { return .data(try LegacyArchive.encode(records, format: .binary)) } catch {
            throw .io(path: path, "cannot encode: \(error)")
        }
    }

    private func save(_ next: PlistDictionary) throws(StoreError) {
        if let loadError { throw .io(path: path, "not saved: the file could not be read when the store opened (\(loadError))") }
        let bytes: [UInt8]
        do { bytes = try PropertyList.write(.dictionary(next), format: newFileFormat) } catch {
            throw .io(path: path, "cannot encode: \(error)")
        }
        do { try SafeFile.write(bytes, to: path) } catch { throw .io(path: path, error.description) }
    }
}

/// How often an IntervalClient gate runs: the presets, or any calendar component and count.
public enum IntervalConfig: Sendable, Equatable {
    /// One hour.
    case hourly
    /// One calendar day.
    case daily
    /// One week of the year.
    case weekly
    /// One calendar month (clamped to the month's end).
    case monthly
    /// One calendar year.
    case yearly
    /// Any component and count, as `Calendar.date(byAdding:value:to:)` computes them.
    case custom(Calendar.Component, Int)

    /// The rule ``RunRules`` decides with.
    public var calendarInterval: CalendarInterval {
        switch self {
        case .hourly: return .hourly
        case .daily: return .daily
        case .weekly: return .weekly
        case .monthly: return .monthly
        case .yearly: return .yearly
        case let .custom(component, value): return CalendarInterval(component: component, value: value)
        }
    }
}
