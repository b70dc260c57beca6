public import PlistCore

/// How serious a contract finding is.
public enum Severity: String, Sendable, Equatable, Comparable {
    /// The app would misread or lose state.
    case error
    /// Legal for YCFirstTime but not what it writes; worth a look.
    case warning

    /// Errors sort before warnings.
    public static func < (a: Severity, b: Severity) -> Bool { a == .error && b == .warning }
}

/// What YCFirstTime (2.x) does on the device with a stored state that breaks a rule, as its
/// loader computes it: `unarchivedObject(ofClasses: [NSMutableDictionary, NSDictionary,
/// NSString, NSDate, YCFirstTimeObject])`, then `as? NSMutableDictionary ?? NSMutableDictionary()`.
public enum DeviceBehaviour: String, Sendable, Equatable, CaseIterable {
    /// It reads the state exactly as ycft does.
    case readsAsIs = "reads-as-is"
    /// It reads the state and ignores the part the finding names (kept on the next save).
    case ignoresPart = "ignores-part"
    /// It reads the state, but its next save loses what the finding names.
    case losesOnNextSave = "loses-on-next-save"
    /// It reads the state, but an interval gate misfires (never fires again, or always fires).
    case misfires
    /// It reads the value as another type (an integer time as a double, as ycft shows it);
    /// its next save writes it as YCFirstTime writes it.
    case converts
    /// One gate runs as if it had never run.
    case gateRuns = "gate-runs"
    /// It discards all state: every gate runs as on a fresh install, and the next save
    /// replaces the stored state.
    case resetsAll = "resets-all"

    /// One line for the README and `verify --help`.
    public var summary: String {
        switch self {
        case .readsAsIs: return "reads it normally"
        case .ignoresPart: return "reads the state, ignores this part (kept on the next save)"
        case .losesOnNextSave: return "reads the state; the next save loses this part"
        case .misfires: return "reads the state; an interval gate misfires"
        case .converts: return "reads the value as a double, as ycft shows it; the next save writes a real"
        case .gateRuns: return "this gate runs as if it never ran"
        case .resetsAll: return "discards all state: every gate runs again"
        }
    }
}

/// The contract's rules, each with a stable id. Their properties (``severity``, ``isFatal``,
/// ``device``, ``summary``, ``rewriteLoses``) read one table that says, for every rule, how
/// serious a finding is, whether ycft can still read records from the file, and what the
/// device does; decoding, `verify`, the fast path and `status` all read it.
public enum ContractRule: String, Sendable, CaseIterable {
    // The file.
    /// The file is not a readable property list (truncated, a bad trailer, malformed XML, a reference cycle).
    case plistUnreadable = "plist-unreadable"
    /// A string or key libplist would change without a word (an embedded NUL, a lone surrogate, invalid UTF-8, a dictionary key twice).
    case stringUnrepresentable = "string-unrepresentable"
    /// The file goes over ycft's bounds: input size, nesting depth, expanded node count.
    case plistLimit = "plist-limit"
    /// A defaults file without YCFirstTime state: no archive, records or interval keys.
    case stateMissing = "state-missing"
    /// The archive key holds a value that is not data (a dictionary, a string, a number):
    /// `UserDefaults.data(forKey:)` is nil for it, so the app starts afresh.
    case stateNotData = "state-not-data"
    /// Two forms of the state in one file differ, or a copy cannot be read; the first form is the state.
    case statesDisagree = "states-disagree"
    // The envelope.
    /// `$archiver` is not `NSKeyedArchiver`.
    case envelopeArchiver = "envelope-archiver"
    /// `$version` is not 100000.
    case envelopeVersion = "envelope-version"
    /// `$top.root` is missing or not a UID.
    case envelopeRoot = "envelope-root"
    /// `$objects` is missing, not an array, or does not start with `"$null"`.
    case envelopeObjects = "envelope-objects"
    /// The envelope or `$top` holds a key `NSKeyedArchiver` does not write.
    case envelopeExtraKey = "envelope-extra-key"
    /// A UID points outside `$objects`.
    case uidDangling = "uid-dangling"
    /// A UID points back to an object that contains it.
    case uidCycle = "uid-cycle"
    // The root and the group.
    /// The root is an `NSDictionary`: YCFirstTime keeps only an `NSMutableDictionary`.
    case rootImmutable = "root-immutable"
    /// The root is not a dictionary.
    case rootClass = "root-class"
    /// The root has a key besides `sharedGroup`.
    case rootExtraKey = "root-extra-key"
    /// The root holds keys but no `sharedGroup`: YCFirstTime reads no records from it (every
    /// gate runs), and its next save adds the group beside those keys.
    case rootForeign = "root-foreign"
    /// An object of a class outside YCFirstTime's allowed list: the secure unarchive fails.
    case classNotAllowed = "class-not-allowed"
    /// The root has no `sharedGroup`: nothing recorded yet.
    case groupMissing = "group-missing"
    /// The group is an `NSDictionary`: the next save drops every other block key.
    case groupImmutable = "group-immutable"
    /// `sharedGroup` is not a dictionary.
    case groupClass = "group-class"
    /// `NS.keys` or `NS.objects` is missing, their lengths differ, or they hold something other than UIDs.
    case dictionaryStructure = "dictionary-structure"
    /// A dictionary key is not a string.
    case keyType = "key-type"
    /// Two block keys are the same string (one is kept).
    case keyDuplicate = "key-duplicate"
    // The records.
    /// A record is not a `YCFirstTimeObject`.
    case recordClass = "record-class"
    /// A `$classes` chain differs from Apple's or is missing.
    case classChain = "class-chain"
    /// A record has a coder key besides `lastVersion` and `lastTime`.
    case recordUnknownKey = "record-unknown-key"
    /// `lastVersion` is not an `NSString`.
    case versionType = "version-type"
    /// `lastTime` is not an `NSDate` with a number in `NS.time` that a double holds exactly.
    case timeType = "time-type"
    /// `NS.time` is an integer (or missing), which both Foundations read as a double
    /// (`decodeDouble(forKey:)`: `Double(n)`, 0.0 when missing).
    case timeNotReal = "time-not-real"
    /// A stored time is NaN or infinite: the archive's `NS.time`, a plain record's `lastTime`,
    /// an `interval.<key>` number (`ContractFinding.nonFiniteTime(_:named:at:record:)`, for every form).
    case timeNonFinite = "time-non-finite"
    // The plain formats.
    /// `YCFirstTime.records` breaks the records format (header, types, values).
    case recordsFormat = "records-format"
    /// An `interval.<key>` value is not a number IntervalClient reads.
    case intervalValue = "interval-value"

    /// What a write by ycft (`set`, `unset`, `edit`, `reset`, `pack --into`, a migration that
    /// removes the archive) does with the part of the stored state a finding names.
    package enum Rewrite: Sendable, Equatable {
        /// Nothing to say: the records carry it, or the write repairs it.
        case none
        /// The write drops it, and says so (``FirstTimeState/dropped``).
        case drops
        /// The write stores it as YCFirstTime writes it (an integer time as a real, the value
        /// the app reads), and says so.
        case converts
        /// A write of the records keeps it beside them, as YCFirstTime's save does (a root key:
        /// the app archives its whole root again), unless the app discards the state, whose
        /// next save starts from an empty root (then it drops it, and says so). Removing the
        /// state (`reset`, a migration that removes the archive) drops it and says so; where
        /// the state holds no record, only such parts, that is refused unless `reset --force`
        /// (or the migration keeps the archive).
        case keeps
        /// It is not YCFirstTime state, and the app reads none from it: a write replaces it
        /// (`set`, `pack --into`, as the app's next save does) or removes it (`reset`, as the
        /// app's `reset()` does) only when forced, and says so.
        case replacesOnlyForced

        /// Whether removing the state (`reset`, a migration that removes or replaces the
        /// archive) loses it, and says so.
        package var isLostWhenRemoved: Bool { self == .drops || self == .replacesOnlyForced || self == .keeps }
    }

    /// Everything the contract says about one rule (the public properties below read it).
    package struct Spec: Sendable, Equatable {
        package var severity: Severity
        package var isFatal: Bool
        package var device: DeviceBehaviour
        package var summary: String
        package var rewrite: Rewrite
    }

    /// How serious a finding of this rule is for `verify`.
    public var severity: Severity { spec.severity }
    /// Whether ycft can no longer read records (decoding throws; the fast path bails out).
    public var isFatal: Bool { spec.isFatal }
    /// What YCFirstTime does with the state on the device.
    public var device: DeviceBehaviour { spec.device }
    /// What the rule means, for the README and `--help`.
    public var summary: String { spec.summary }
    /// Whether ycft's own rewrite of the state (`set`, `unset`, `edit`, `reset`, `pack --into`, a
    /// migration that removes the archive) loses the part a finding names, and says so
    /// (``Migration/Outcome/dropped``): a record's unknown coder key, a copy of the state that
    /// differs, a value under the archive key that is not data (``stateNotData``, only when
    /// forced). The root's other keys are kept, as YCFirstTime's save keeps them.
    public var rewriteLoses: Bool { spec.rewrite == .drops || spec.rewrite == .replacesOnlyForced }

    /// The rule table: the only place a rule's properties are written.
    package var spec: Spec {
        func rule(_ severity: Severity, fatal: Bool, _ device: DeviceBehaviour, _ summary: String, rewrite: Rewrite = .none) -> Spec {
            Spec(severity: severity, isFatal: fatal, device: device, summary: summary, rewrite: rewrite)
        }
        switch self {
        case .plistUnreadable:
            return rule(.error, fatal: true, .resetsAll, "not a readable property list (truncated, bad trailer, malformed XML, reference cycle)")
        case .stringUnrepresentable:
            return rule(.error, fatal: true, .readsAsIs, "a string or key libplist would change silently (embedded NUL, lone surrogate, invalid UTF-8, a dictionary key twice)")
        case .plistLimit:
            return rule(.error, fatal: true, .readsAsIs, "over ycft's safety bounds: input size, nesting depth, expanded node count")
        case .stateMissing:
            return rule(.error, fatal: true, .readsAsIs, "a defaults file without YCFirstTime state (no archive, records or interval keys)")
        case .stateNotData:
            return rule(.error, fatal: false, .resetsAll, "the archive key holds a value that is not data (a dictionary, string, number): UserDefaults.data(forKey:) is nil, so the app starts afresh",
                        rewrite: .replacesOnlyForced)
        case .statesDisagree:
            return rule(.error, fatal: false, .readsAsIs, "the file holds the state twice (archive, records, interval keys that name its records) and the copies differ",
                        rewrite: .drops)
        case .envelopeArchiver:
            return rule(.error, fatal: true, .resetsAll, "$archiver is not \"NSKeyedArchiver\"")
        case .envelopeVersion:
            return rule(.error, fatal: true, .resetsAll, "$version is not 100000")
        case .envelopeRoot:
            return rule(.error, fatal: true, .resetsAll, "$top.root is missing or not a UID")
        case .envelopeObjects:
            return rule(.error, fatal: true, .resetsAll, "$objects is missing, not an array, or does not start with \"$null\"")
        case .envelopeExtraKey:
            return rule(.warning, fatal: false, .losesOnNextSave, "the envelope or $top holds a key NSKeyedArchiver does not write",
                        rewrite: .drops)
        case .uidDangling:
            return rule(.error, fatal: true, .resetsAll, "a UID points outside $objects")
        case .uidCycle:
            return rule(.error, fatal: true, .resetsAll, "a UID points back to an object that contains it")
        case .rootImmutable:
            return rule(.error, fatal: false, .resetsAll, "the root is NSDictionary: YCFirstTime keeps only an NSMutableDictionary")
        case .rootClass:
            return rule(.error, fatal: true, .resetsAll, "the root is not a dictionary")
        case .rootExtraKey:
            return rule(.warning, fatal: false, .ignoresPart, "the root holds a key other than \"sharedGroup\"", rewrite: .keeps)
        case .rootForeign:
            return rule(.warning, fatal: false, .ignoresPart, "the root holds keys but no \"sharedGroup\": no records yet (every gate runs); the next save adds the group beside them",
                        rewrite: .keeps)
        case .classNotAllowed:
            return rule(.error, fatal: false, .resetsAll, "an object of a class outside YCFirstTime's allowed list: the secure unarchive fails")
        case .groupMissing:
            return rule(.warning, fatal: false, .readsAsIs, "no \"sharedGroup\": nothing recorded yet")
        case .groupImmutable:
            return rule(.error, fatal: false, .losesOnNextSave, "the group is NSDictionary: the next save drops every other block key")
        case .groupClass:
            return rule(.error, fatal: true, .resetsAll, "sharedGroup is not a dictionary")
        case .dictionaryStructure:
            return rule(.error, fatal: true, .resetsAll, "NS.keys/NS.objects missing, of different lengths, or not UIDs")
        case .keyType:
            return rule(.error, fatal: true, .resetsAll, "a dictionary key is not a string")
        case .keyDuplicate:
            return rule(.error, fatal: true, .losesOnNextSave, "two block keys are the same string (one is kept)")
        case .recordClass:
            return rule(.error, fatal: true, .resetsAll, "a record is not a YCFirstTimeObject")
        case .classChain:
            return rule(.warning, fatal: false, .readsAsIs, "a $classes chain differs from Apple's or is missing")
        case .recordUnknownKey:
            return rule(.warning, fatal: false, .losesOnNextSave, "a record has a coder key other than lastVersion and lastTime",
                        rewrite: .drops)
        case .versionType:
            return rule(.error, fatal: true, .resetsAll, "lastVersion is not an NSString")
        case .timeType:
            return rule(.error, fatal: true, .resetsAll, "lastTime is not an NSDate whose NS.time is a number a double holds exactly")
        case .timeNotReal:
            return rule(.warning, fatal: false, .converts, "NS.time is an integer, or missing: both Foundations read it as a double (Double(n); 0.0 when missing)",
                        rewrite: .converts)
        case .timeNonFinite:
            return rule(.error, fatal: false, .misfires, "a time is NaN or infinite (NS.time, a plain record's lastTime, an interval.<key> value)")
        case .recordsFormat:
            return rule(.error, fatal: true, .resetsAll, "YCFirstTime.records breaks the records format (header, types, values)")
        case .intervalValue:
            return rule(.error, fatal: false, .gateRuns, "an interval.<key> value is not a number IntervalClient reads")
        }
    }
}

extension ContractRule {
    /// The one judgement of a stored time's value, which every form of the state asks of each
    /// time it holds (the archive's `NS.time`, a plain record's `lastTime`, an `interval.<key>`
    /// number, as seconds since 2001): a ``timeNonFinite`` finding for NaN or an infinity, nil
    /// for a finite time.
    /// - Parameters:
    ///   - subject: what holds the time, as the message names it (`NS.time`, `lastTime`).
    ///   - path: where it is.
    ///   - record: the block key of its record, when known.
    package static func nonFiniteTime(_ seconds: Double, named subject: String, at path: @autoclosure () -> ObjectPath,
                                      record: String?) -> ContractFinding? {
        // The path is made only for a finding: every record's time passes through here.
        guard !seconds.isFinite else { return nil }
        return ContractFinding(.timeNonFinite, at: path(), "\(subject) is \(seconds): interval gates misfire "
                               + "(YCFirstTime 2.x's days: rule never fires again for NaN and +infinity, always for -infinity)", record: record)
    }
}

/// One way a stored state departs from the YCFirstTime contract.
public struct ContractFinding: Sendable, Equatable, CustomStringConvertible {
    /// The rule broken.
    public var rule: ContractRule
    /// Where: in the archive (`$objects[5].lastTime`), a defaults key (`interval.k`), or the
    /// whole input (`ObjectPath/file`).
    public var path: ObjectPath
    /// What is wrong.
    public var message: String
    /// The rule's severity.
    public var severity: Severity { rule.severity }
    /// The block key of the record the finding is about, when a write must know it (a time it
    /// converts is said only for a record it still writes: ``FirstTimeState``); the message
    /// names it too, so equality leaves it out.
    package var record: String?

    /// Creates a finding.
    public init(_ rule: ContractRule, at path: ObjectPath, _ message: String) {
        self.rule = rule
        self.path = path
        self.message = message
    }

    /// A finding about the record under `record`.
    package init(_ rule: ContractRule, at path: ObjectPath, _ message: String, record: String?) {
        self.init(rule, at: path, message)
        self.record = record
    }

    /// Equal when the rule, the path and the message are.
    public static func == (a: ContractFinding, b: ContractFinding) -> Bool {
        a.rule == b.rule && a.path == b.path && a.message == b.message
    }

    /// `error: [rule] path: message`.
    public var description: String { "\(severity.rawValue): [\(rule.rawValue)] \(path): \(message)" }

    /// Whether a reading command (`dump`, `status`, `migrate`) mentions it: an error, or a
    /// finding that changes what the device does. A missing class chain or an empty archive
    /// reads as ycft reads it and stays quiet.
    public var isNotable: Bool { rule.spec.severity == .error || rule.spec.device != .readsAsIs }

    /// `path: message`, as a decoding error reads.
    public var located: String { path.isFile ? message : "\(path): \(message)" }
}

extension Collection where Element == ContractFinding {
    /// The finding that makes YCFirstTime discard all state (``DeviceBehaviour/resetsAll``), if
    /// any: every gate would run again as on a fresh install. The one answer to "would the
    /// device start afresh?", which the state, a migration's outcome and a walk's judgement
    /// all give by asking their findings.
    ///
    /// ```swift
    /// if let reset = state.findings.resetsAll { print("the app would start over: \(reset)") }
    /// ```
    public var resetsAll: ContractFinding? { first { $0.rule.spec.device == .resetsAll } }

    /// Whether a write of new records keeps the parts ``ContractRule/Rewrite/keeps`` names (the
    /// root's other keys) beside them: as YCFirstTime's next save does, when the app reads the
    /// state (no ``resetsAll``), and when there are any.
    package var keepsRootEntries: Bool { resetsAll == nil && contains { $0.rule.spec.rewrite == .keeps } }

    /// The finding of what a state of `records` holds besides them, when it holds no record but
    /// such parts (``ContractRule/Rewrite/keeps``: the root's other keys, another program's
    /// data): removing it would remove only that (`reset` refuses it unless forced; a migration,
    /// unless it keeps the archive). Nil when there is a record, or nothing else.
    package func onlyOtherData(besides records: FirstTimeRecords) -> ContractFinding? {
        records.count == 0 ? first { $0.rule.spec.rewrite == .keeps } : nil
    }
}
