public import FirstTimeCore
#if canImport(FoundationEssentials)
public import FoundationEssentials
import Glibc
#else
public import Foundation
#endif
public import PlistCore
internal import FileErrors
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
/// **As the library does it.** Method names, the nil-block rule, the seams (``versionProvider``,
/// ``nowProvider``) and the order follow YCFirstTime 2.x: the block runs *first*, then the run
/// is recorded and saved (``recordsBeforeRunning`` records first). IntervalClient's calls use
/// their own key space, `interval.<key>` = seconds since 1970. docs/library.md says the rest.
///
/// **Thread safety.** A gate holds the store's recursive lock from its decision through its
/// block to its save, so racing threads run a key's block once and a block may call the store
/// again. Every save is ycft's read-change-write cycle (every ycft write's), so a save by another
/// store or process is kept, not overwritten. (`@unchecked Sendable`: the state sits behind a
/// recursive lock, since a block runs under the lock and Synchronization.Mutex is not recursive.)
public final class FirstTimeStore: @unchecked Sendable {
    /// The file of ``shared`` (set it before the first use of ``shared``). Default:
    /// `$YCFT_STORE`, else `~/.ycft/Preferences.plist`.
    public static var sharedPath: String {
        get { sharedPathStorage.withLock { $0 } }
        set { sharedPathStorage.withLock { $0 = newValue } }
    }
    private static let sharedPathStorage = Mutex<String>(ProcessInfo.processInfo.environment["YCFT_STORE"]
        ?? FileManager.default.homeDirectoryForCurrentUser.appending(path: ".ycft/Preferences.plist").path(percentEncoded: false))

    /// The process-wide store at ``sharedPath``, opened on first use. When that file cannot be
    /// read the store starts empty, ``loadError`` says why, and it never overwrites the file.
    public static var shared: FirstTimeStore { sharedStore }
    private static let sharedStore: FirstTimeStore = {
        do throws(FirstTimeError) { return try FirstTimeStore(path: sharedPath) } catch {
            return FirstTimeStore(unreadable: sharedPath, error: error)
        }
    }()

    /// Why the file could not be loaded (only for ``shared``; ``init(path:plainRecords:calendar:)``
    /// throws).
    public let loadError: FirstTimeError?

    /// The running app's version; nil restores the default: the main bundle's
    /// `CFBundleShortVersionString` on Apple platforms, none on Linux (programs have no bundle).
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
    /// The form and plist format the YCFirstTime state gets in a domain that has none yet.
    private let newForm: StateForm, newFileFormat: PlistFormat
    private let calendar: Calendar
    private let lock = RecursiveLock()
    private var versionOverride: (@Sendable () -> String?)?
    private var nowOverride: (@Sendable () -> Date)?
    private var recordFirst = false
    /// The file as last read or saved.
    private var file: Snapshot

    /// Opens a store, loading the file when it exists (a missing file is an empty domain).
    /// - Parameters:
    ///   - path: the defaults-domain file (a bare YCFirstTime archive, as earlier ycft versions
    ///     kept, is read as a domain holding it).
    ///   - plainRecords: the form of the YCFirstTime state when the domain has none yet: nil for
    ///     the legacy archive under `YCFirstTime` (in a binary plist file), a plist format for
    ///     the plain format under `YCFirstTime.records`, as a migrated app stores it, in a file
    ///     of that format. A domain that holds state keeps its own form and format.
    ///   - calendar: the calendar and time zone for IntervalClient's rules.
    /// - Throws: ``FirstTimeError/inFile(path:_:)`` when the file exists but cannot be read.
    public init(path: String, plainRecords: PlistFormat? = nil, calendar: Calendar = .current) throws(FirstTimeError) {
        self.path = path
        self.calendar = calendar
        loadError = nil
        (newForm, newFileFormat) = plainRecords.map { (.plainRecords, $0) } ?? (.defaultsArchive, .binary)
        file = try Snapshot(Self.read(path, lock: false), newFileFormat)
    }

    private init(unreadable path: String, error: FirstTimeError) {
        self.path = path
        calendar = .current
        (newForm, newFileFormat) = (.defaultsArchive, .binary)
        file = Snapshot(.binary)
        loadError = error
    }

    /// The YCFirstTime records as they are now (a snapshot).
    public var records: FirstTimeRecords { lock.withLock { file.records } }

    // MARK: YCFirstTime

    /// Runs `block` the first time `key` is seen, and never again. A nil block records nothing.
    /// - Returns: whether the block ran.
    /// - Throws: ``FirstTimeError`` when the run could not be saved (the block ran; its run is not
    ///   recorded, as when the app is killed before YCFirstTime saves).
    @discardableResult
    public func executeOnce(_ block: (() -> Void)?, forKey key: String) throws(FirstTimeError) -> Bool {
        try execute(block, afterFirstTime: nil, key: key, rule: .once)
    }

    /// Runs `block` the first time, and `afterFirstTime` on every later call.
    @discardableResult
    public func executeOnce(_ block: (() -> Void)?, executeAfterFirstTime afterFirstTime: (() -> Void)?,
                            forKey key: String) throws(FirstTimeError) -> Bool {
        try execute(block, afterFirstTime: afterFirstTime, key: key, rule: .once)
    }

    /// Runs `block` once per app version, compared as YCFirstTime 2.x compares them (Swift
    /// `String` equality: "1.0" is not "1.0.0", but canonically equivalent strings are equal).
    @discardableResult
    public func executeOncePerVersion(_ block: (() -> Void)?, forKey key: String) throws(FirstTimeError) -> Bool {
        try execute(block, afterFirstTime: nil, key: key, rule: .perVersion)
    }

    /// Runs `block` once per app version, and `afterFirstTime` on every other call.
    @discardableResult
    public func executeOncePerVersion(_ block: (() -> Void)?, executeAfterFirstTime afterFirstTime: (() -> Void)?,
                                      forKey key: String) throws(FirstTimeError) -> Bool {
        try execute(block, afterFirstTime: afterFirstTime, key: key, rule: .perVersion)
    }

    /// Runs `block` the first time, then again once `days` days of 86,400 seconds have passed
    /// since its last run (at the boundary instant itself). `days <= 0` behaves as
    /// ``executeOnce(_:forKey:)``; a record without a time never runs again.
    @discardableResult
    public func executeOncePerInterval(_ block: (() -> Void)?, forKey key: String,
                                       withDaysInterval days: Float) throws(FirstTimeError) -> Bool {
        try execute(block, afterFirstTime: nil, key: key, rule: .everyDays(days))
    }

    /// Whether `key` has ever run (ignores version and interval).
    public func blockWasExecuted(_ key: String) -> Bool { lock.withLock { file.records[key] != nil } }

    /// When `key` last ran, or nil.
    public func lastExecutionDate(forKey key: String) -> Date? {
        lock.withLock { file.records[key]?.lastDate }
    }

    /// Forgets every YCFirstTime key: removes `YCFirstTime` (or `YCFirstTime.records`) from the
    /// domain, as the library removes its defaults key; the rest of the domain stays.
    public func reset() throws(FirstTimeError) {
        try lock.withLock { () throws(FirstTimeError) in
            try save { (file: Snapshot) throws(FirstTimeError) in (try file.source.reset(file.records), FirstTimeRecords()) }
        }
    }

    // MARK: IntervalClient

    /// Whether the gate should run now: yes when `interval.<key>` holds no number (missing, or
    /// not a number `as? TimeInterval` reads), when calendar arithmetic fails, or when `now >=
    /// calendar.date(byAdding:value:to: lastRun)`.
    public func shouldRun(_ key: String, every interval: CalendarInterval) -> Bool {
        lock.withLock {
            let now = currentDate().timeIntervalSinceReferenceDate
            return RunRules.decide(.calendar(interval), record: intervalRecord(key), now: now,
                                   appVersion: nil, calendar: calendar).wouldRun
        }
    }

    /// Records that the gate ran now: `interval.<key>` = seconds since 1970 (a real).
    public func markRun(_ key: String) throws(FirstTimeError) {
        try lock.withLock { () throws(FirstTimeError) in try setInterval(key, .real(currentDate().timeIntervalSince1970)) }
    }

    /// Forgets one IntervalClient gate (removes `interval.<key>`).
    public func reset(_ key: String) throws(FirstTimeError) {
        try lock.withLock { () throws(FirstTimeError) in try setInterval(key, nil) }
    }

    /// When the gate last ran, or nil (as ``shouldRun(_:every:)`` reads it).
    public func lastRun(_ key: String) -> Date? {
        lock.withLock { intervalRecord(key)?.lastDate }
    }

    // MARK: Internals

    private func currentVersion() -> String? {
        if let versionOverride { return versionOverride() }
        #if canImport(FoundationEssentials)
        return nil  // Linux: no app bundle (and no Bundle without the whole of Foundation)
        #else
        return Bundle.main.object(forInfoDictionaryKey: "CFBundleShortVersionString") as? String
        #endif
    }

    private func currentDate() -> Date { nowOverride?() ?? Date() }

    private func intervalRecord(_ key: String) -> FirstTimeRecord? {
        guard let stored = file.source.domain[IntervalKey.prefix + key],
              let seconds = IntervalKey.seconds(stored) else { return nil }
        return FirstTimeRecord(lastVersion: nil, lastTime: seconds - IntervalKey.epochOffset)
    }

    /// YCFirstTime's `execute`: already executed runs the after-block; a nil block returns
    /// without saving; otherwise the block runs, then the run is recorded and saved.
    private func execute(_ block: (() -> Void)?, afterFirstTime: (() -> Void)?, key: String,
                         rule: GateRule) throws(FirstTimeError) -> Bool {
        try lock.withLock { () throws(FirstTimeError) -> Bool in
            let now = currentDate().timeIntervalSinceReferenceDate
            let decision = RunRules.decide(rule, record: file.records[key], now: now, appVersion: currentVersion(), calendar: calendar)
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
    }

    /// Saves the run of `key` (version from the provider, time read now) and then updates memory.
    private func record(_ key: String) throws(FirstTimeError) {
        let record = FirstTimeRecord(lastVersion: currentVersion(), lastTime: currentDate().timeIntervalSinceReferenceDate)
        try save { (file: Snapshot) throws(FirstTimeError) in
            var next = file.groupReplacedOnSave ? FirstTimeRecords() : file.records
            next[key] = record
            return (try file.source.written(next, replacing: file.records, newForm: newForm, keeping: file.root), next)
        }
    }

    /// Sets (nil: removes) IntervalClient's `interval.<key>`.
    private func setInterval(_ key: String, _ value: PlistValue?) throws(FirstTimeError) {
        try save { (file: Snapshot) throws(FirstTimeError) in
            var domain = file.source.domain
            try domain.setPlistValues([(IntervalKey.prefix + key, value)])
            return (domain, file.records)
        }
    }

    /// Saves a change through the tool's one read-change-write cycle (`StateEdit`'s): the file
    /// is read again under its lock, `change` makes the new domain and records from what it
    /// holds now, and the file is replaced only while it is still the one read; then memory
    /// holds what was saved. Nothing changes, on disk or in memory, when this throws.
    private func save(_ change: (Snapshot) throws(FirstTimeError) -> (domain: PlistDictionary, records: FirstTimeRecords)) throws(FirstTimeError) {
        if let loadError { throw .inFile(path: path, .notLoaded(loadError)) }
        var status: FileStatus?, saved: Snapshot?
        _ = try StateEdit.cycle(path, read: { (path: String) throws(FirstTimeError) in
            let input = try Self.read(path, lock: true)
            status = input.status
            return input
        }, change: { (bytes: [UInt8]) throws(FirstTimeError) in
            var next = try Snapshot(InputFile(path: path, bytes: bytes, status: status), newFileFormat)
            let changed: (domain: PlistDictionary, records: FirstTimeRecords), output: [UInt8]
            do throws(FirstTimeError) {
                changed = try change(next)
                output = try StateEdit.bytes(of: changed.domain, next.format, byteOrderMark: next.byteOrderMark)
            } catch { throw .inFile(path: path, error) }
            // What was saved, as a new store would load it: no group left to replace.
            next.source = StateSource(changed.domain).without(.intervalKeys)
            (next.records, next.groupReplacedOnSave) = (changed.records, false)
            saved = next
            return output
        }, write: { (path: String, bytes: [UInt8], options: SafeFile.WriteOptions) throws(FirstTimeError) in
            do throws(FileError) { _ = try SafeFile.write(bytes, to: path, options: options) } catch { throw .inFile(path: path, .file(error)) }
        })
        if let saved { file = saved }
    }

    /// The file at `path`, under its lock when asked; empty bytes and no status when there is none.
    private static func read(_ path: String, lock: Bool) throws(FirstTimeError) -> InputFile {
        // FileStatus, not FileManager: the path's bytes as PathBytes encodes them (a non-UTF-8 name).
        guard case .success = FileStatus.of(path) else { return InputFile(path: path, bytes: []) }
        let limit = PlistLimits.default.maxInputSize
        let input: InputFile
        do throws(FileError) { input = try SafeFile.read(path, limit: limit, lock: lock) } catch { throw .inFile(path: path, .file(error)) }
        guard input.bytes.count <= limit else {
            throw .inFile(path: path, .plist(.inputTooLarge(size: input.bytes.count, limit: limit)))
        }
        return input
    }

    /// What the store reads in a file (``StateFile``, as every ycft command reads it).
    private struct Snapshot {
        /// The domain and its YCFirstTime forms, IntervalClient's keys left out (its own key space).
        var source: StateSource<PlistDictionary>
        /// The YCFirstTime records as the library loads them (empty when it would start afresh).
        var records: FirstTimeRecords
        /// The stored group is an `NSDictionary`: YCFirstTime's next save replaces it with a new
        /// group holding only the saved key.
        var groupReplacedOnSave = false
        /// The other keys of the archive's root, which YCFirstTime's save archives again beside
        /// the group (`StateFile.rootEntries()`); nil when there are none, or when the library
        /// starts afresh (its next save writes a new root).
        var root: LegacyArchive.RootEntries?
        /// The file's plist format.
        var format: PlistFormat
        /// Whether the file is XML after the UTF-8 byte-order mark, which a save keeps.
        var byteOrderMark = false

        /// An empty domain (no file yet).
        init(_ format: PlistFormat) {
            source = StateSource(PlistDictionary())
            records = FirstTimeRecords()
            self.format = format
        }

        /// The file read as the store reads it; a missing file (no status, no bytes) is an empty
        /// domain in `newFileFormat`.
        init(_ input: InputFile, _ newFileFormat: PlistFormat) throws(FirstTimeError) {
            self.init(newFileFormat)
            guard input.status != nil || !input.bytes.isEmpty else { return }
            // What the file is and whether its YCFirstTime state reads, as every ycft command asks
            // (StateFile): a key that holds something else is refused, never saved over.
            do throws(FirstTimeError) {
                let file = try StateFile(input.bytes)
                guard file.isDefaults else {
                    // A bare archive (what earlier versions of this store wrote): the domain holds it.
                    let state = try file.state()
                    records = DeviceLoad(held: state.records, findings: state.findings).records
                    if state.keepsRootEntries { root = try file.rootEntries() }
                    source = StateSource(PlistDictionary([(LegacyArchive.defaultsKey, .data(input.bytes))]))
                    format = .binary
                    return
                }
                source = file.source.without(.intervalKeys)
                (format, byteOrderMark) = (file.format, file.byteOrderMark)
                switch source.forms.first {
                case .defaultsArchive?:
                    let decoded = try file.read(.defaultsArchive)
                    // As YCFirstTime 2.x loads it: a state its unarchive rejects (an NSDictionary
                    // root, a class outside its list) is an empty one, replaced on the next save;
                    // an NSDictionary group is read, but the next save starts a new group holding
                    // only the saved key (`as? NSMutableDictionary ?? NSMutableDictionary()`).
                    let load = DeviceLoad(held: decoded.records, findings: decoded.findings)
                    records = load.records
                    groupReplacedOnSave = load.resetsAll == nil && decoded.findings.contains { $0.rule == .groupImmutable }
                    if decoded.findings.keepsRootEntries { root = try file.rootEntries() }
                case .plainRecords?:
                    records = try file.read(.plainRecords).records
                default:
                    break
                }
            } catch {
                throw .inFile(path: input.path, error)
            }
        }
    }
}

/// A lock its holder may take again (a gate's block may call the store), over pthreads:
/// NSRecursiveLock is in the whole of Foundation, which the tool does not link on Linux.
private final class RecursiveLock: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    init() {
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_RECURSIVE))
        pthread_mutex_init(mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func withLock<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}
