public import Foundation
public import Plist
internal import SafeFiles

/// YCFirstTime's and IntervalClient's gates for Swift code on Linux and macOS, persisted to a
/// file in the legacy archive format (so state written here opens in an iOS build, and the
/// reverse) or in the plain format.
///
/// **Exactly once, durably.** A gate that fires records the run and saves the file *before*
/// the block runs. If the save fails, the error is thrown, the block does not run, and the
/// state in memory stays what the file holds: memory and disk never diverge. Every save
/// replaces the file atomically.
///
/// **Thread safety.** Every method may be called from any thread. Decisions and saves are
/// serialized by an internal lock, so when two threads race on one key exactly one of them
/// runs the block. Blocks run on the caller's thread after the lock is released, so a block
/// may call the store again. Two stores (or processes) writing one file are not coordinated:
/// the last save wins.
public final class FirstTimeStore: @unchecked Sendable {
    /// How the file holds the state.
    public enum FileFormat: Sendable, Equatable {
        /// The legacy NSKeyedArchiver archive YCFirstTime writes (binary plist).
        case legacyArchive
        /// A plist dictionary holding the plain format under `YCFirstTime.records`, as a
        /// migrated app's defaults do.
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

    private let path: String
    private let format: FileFormat
    private let versionProvider: @Sendable () -> String?
    private let clock: @Sendable () -> Date
    private let calendar: Calendar
    private let lock = NSLock()
    private var state: FirstTimeRecords

    /// Opens a store, loading the file when it exists (a missing file is an empty store).
    /// - Parameters:
    ///   - path: the state file.
    ///   - format: how to write it (either format is read).
    ///   - versionProvider: the running app's version; YCFirstTime uses `CFBundleShortVersionString`.
    ///   - clock: the current time (a seam for tests).
    ///   - calendar: the calendar and time zone for IntervalClient rules.
    /// - Throws: ``StoreError`` when the file exists but cannot be read.
    public init(path: String, format: FileFormat = .legacyArchive,
                versionProvider: @escaping @Sendable () -> String? = {
                    Bundle.main.object(forInfoDictionaryKey: "CFBundleShortVersionString") as? String
                },
                clock: @escaping @Sendable () -> Date = { Date() },
                calendar: Calendar = .current) throws(StoreError) {
        self.path = path
        self.format = format
        self.versionProvider = versionProvider
        self.clock = clock
        self.calendar = calendar
        guard FileManager.default.fileExists(atPath: path) else {
            state = FirstTimeRecords()
            return
        }
        let limit = PlistLimits.default.maxInputSize
        let bytes: [UInt8]
        do { bytes = try SafeFile.read(path, limit: limit).bytes } catch { throw .io(path: path, error.description) }
        guard bytes.count <= limit else { throw .io(path: path, "cannot read: larger than \(limit) bytes") }
        do { state = try StateReader.records(in: bytes).records } catch { throw .unreadable(path: path, error) }
    }

    /// The records as they are now (a snapshot).
    public var records: FirstTimeRecords { lock.withLock { state } }

    // MARK: YCFirstTime

    /// Runs `block` the first time `key` is seen, and never again. A nil block records nothing.
    /// - Returns: whether the block ran.
    /// - Throws: ``StoreError`` when the run could not be saved (the block did not run).
    @discardableResult
    public func executeOnce(_ block: (() -> Void)?, forKey key: String) throws(StoreError) -> Bool {
        try executeOnce(block, executeAfterFirstTime: nil, forKey: key)
    }

    /// Runs `block` the first time, and `afterFirstTime` every later time.
    @discardableResult
    public func executeOnce(_ block: (() -> Void)?, executeAfterFirstTime afterFirstTime: (() -> Void)?,
                            forKey key: String) throws(StoreError) -> Bool {
        guard let block else { return false }
        let ran = try gate(.once, key: key)
        if ran { block() } else { afterFirstTime?() }
        return ran
    }

    /// Runs `block` once per app version (compared as exact strings: "1.0" is not "1.0.0").
    @discardableResult
    public func executeOncePerVersion(_ block: (() -> Void)?, forKey key: String) throws(StoreError) -> Bool {
        try executeOncePerVersion(block, executeAfterFirstTime: nil, forKey: key)
    }

    /// Runs `block` once per app version, and `afterFirstTime` on every other call.
    @discardableResult
    public func executeOncePerVersion(_ block: (() -> Void)?, executeAfterFirstTime afterFirstTime: (() -> Void)?,
                                      forKey key: String) throws(StoreError) -> Bool {
        guard let block else { return false }
        let ran = try gate(.perVersion, key: key)
        if ran { block() } else { afterFirstTime?() }
        return ran
    }

    /// Runs `block` when at least `days` days of 86,400 seconds passed since its last run.
    @discardableResult
    public func executeOncePerInterval(_ block: (() -> Void)?, forKey key: String,
                                       withDaysInterval days: Float) throws(StoreError) -> Bool {
        guard let block else { return false }
        let ran = try gate(.everyDays(days), key: key)
        if ran { block() }
        return ran
    }

    /// Whether `key` has ever run (ignores version and interval).
    public func blockWasExecuted(_ key: String) -> Bool { lock.withLock { state[key] != nil } }

    /// When `key` last ran, or nil.
    public func lastExecutionDate(forKey key: String) -> Date? {
        lock.withLock { state[key]?.lastTime.map(Date.init(timeIntervalSinceReferenceDate:)) }
    }

    /// Forgets every key.
    public func reset() throws(StoreError) {
        try update { $0 = FirstTimeRecords() }
    }

    // MARK: IntervalClient

    /// Whether a gate with a calendar interval should run now (never run: yes).
    public func shouldRun(_ key: String, every interval: CalendarInterval) -> Bool {
        let now = clock().timeIntervalSinceReferenceDate
        return lock.withLock {
            RunRules.decide(.calendar(interval), record: state[key], now: now, appVersion: nil, calendar: calendar).wouldRun
        }
    }

    /// Records that the gate ran now.
    public func markRun(_ key: String) throws(StoreError) {
        let now = clock().timeIntervalSinceReferenceDate
        let version = versionProvider()
        try update { $0[key] = FirstTimeRecord(lastVersion: version, lastTime: now) }
    }

    /// Forgets one gate.
    public func reset(_ key: String) throws(StoreError) {
        try update { $0[key] = nil }
    }

    // MARK: Internals

    /// Decides under the lock and, when the gate fires, saves the run before returning true.
    private func gate(_ rule: GateRule, key: String) throws(StoreError) -> Bool {
        let now = clock().timeIntervalSinceReferenceDate
        let version = versionProvider()
        lock.lock()
        defer { lock.unlock() }
        let decision = RunRules.decide(rule, record: state[key], now: now, appVersion: version, calendar: calendar)
        guard decision.wouldRun else { return false }
        var next = state
        next[key] = FirstTimeRecord(lastVersion: version, lastTime: now)
        try save(next)
        state = next
        return true
    }

    private func update(_ change: (inout FirstTimeRecords) -> Void) throws(StoreError) {
        lock.lock()
        defer { lock.unlock() }
        var next = state
        change(&next)
        try save(next)
        state = next
    }

    private func save(_ records: FirstTimeRecords) throws(StoreError) {
        let bytes: [UInt8]
        do {
            switch format {
            case .legacyArchive:
                bytes = try LegacyArchive.encode(records, format: .binary)
            case let .plainRecords(plistFormat):
                bytes = try PropertyList.write(.dictionary(PlistDictionary([(RecordsFormat.defaultsKey, RecordsFormat.plist(records))])),
                                               format: plistFormat)
            }
        } catch {
            throw .io(path: path, "cannot encode: \(error)")
        }
        do { try SafeFile.write(bytes, to: path) } catch { throw .io(path: path, error.description) }
    }
}
