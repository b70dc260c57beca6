public import KeyedArchive
public import OrderedJSON
public import PlistCore
public import FileErrors

/// Why YCFirstTime state could not be read or written.
///
/// Three cases say that a defaults file holds something other than YCFirstTime state under the
/// archive key (`--key`), each naming the key and what it holds: ``notArchiveData(key:found:)``
/// (a value that is not data), ``embeddedNotPlist(key:_:)`` (data that is no property list) and
/// ``notStateArchive(key:_:)`` (a property list that does not decode as YCFirstTime's archive:
/// another library's archive, a dictionary of settings, a broken archive); ``isNotStateUnderKey``
/// asks for any of them. Callers ask the error what they branch on, in whichever file
/// ``inFile(path:_:)`` names: ``isDiscarded``, ``isOnlyOtherData``, ``isBeyondIntervalKeys``,
/// ``isNotPropertyList``, ``plistReadError``.
///
/// ```swift
/// do { _ = try StateFile(bytes, key: "settings").state() } catch {
///     print(error)   // "settings" holds dictionary, expected archive data
/// }
/// ```
public indirect enum FirstTimeError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The archive itself is unreadable or breaks NSKeyedArchiver's layout.
    case archive(ArchiveError)
    /// The archive is readable but breaks a fatal rule of the contract (the first such finding).
    case contract(ContractFinding)
    /// The file is not a defaults domain: its top level is `found` (a dictionary that is not a
    /// defaults domain is a keyed archive).
    case notDefaults(found: PlistKind)
    /// Two records share a block key.
    case duplicateKey(String, at: ObjectPath)
    /// A defaults file has no archive under the key.
    case keyNotFound(String)
    /// A defaults file holds something other than archive data under the key.
    case notArchiveData(key: String, found: PlistKind)
    /// A defaults file holds data under the key, but that data is not a readable property list.
    case embeddedNotPlist(key: String, PlistError)
    /// A defaults file holds a property list under the key that is not a readable YCFirstTime
    /// archive; the cause (``archive(_:)`` or ``contract(_:)``) says why, and where in it.
    case notStateArchive(key: String, FirstTimeError)
    /// The plain format's JSON text is not valid JSON.
    case json(JSONError)
    /// The plain format is valid JSON or plist but breaks the records format: what, and where.
    case recordsFormat(RecordsDefect, at: ObjectPath)
    /// A property list could not be written.
    case plist(PlistError)
    /// A file could not be read or written (inside ``inFile(path:_:)``, which names it).
    case file(FileError)
    /// The error happened to the file at `path`: every call given a path names it
    /// (`StateFile/init(contentsOf:key:limits:)`, `StateFile/update(at:key:limits:_:)`,
    /// `FirstTimeStore`).
    case inFile(path: String, FirstTimeError)
    /// `FirstTimeStore` saves nothing over a file it could not read when it opened; the cause
    /// is the error of that read.
    case notLoaded(FirstTimeError)
    /// IntervalClient keys hold no version: these records have one (up to three are named).
    case intervalKeysHoldNoVersion(keys: [String])
    /// IntervalClient keys hold no record without a time: these records have none (up to
    /// three are named).
    case intervalKeysHoldNoTimelessRecord(keys: [String])
    /// The defaults file holds its state in `form` (plain records or IntervalClient keys): an
    /// archive under `key` beside it would be a second copy that disagrees with it.
    case archiveBesideState(form: StateForm, key: String)
    /// A value of this kind has no `UserDefaults` form: an archive UID, or an integer beyond
    /// 64 bits (`NSNumber` has no public 128-bit form).
    case noUserDefaultsForm(PlistKind, at: ObjectPath)
    /// Two keys of one dictionary are canonically equivalent (`"é"` composed and decomposed);
    /// this platform's Foundation keeps only one of them in `UserDefaults`.
    case equivalentKeys(String, String, at: ObjectPath)
    /// The state holds no record, only what the finding names (the root's other keys: another
    /// program's data, perhaps): removing it would remove only that, so a reset does it only
    /// when forced.
    case onlyOtherData(ContractFinding)
    /// YCFirstTime discards this state on the device (the finding says why: an NSDictionary
    /// root, a class outside its list), so every gate runs again there; a change of its records
    /// written back repaired would bring them back, so it is made only when forced.
    case discarded(ContractFinding)

    /// A one-line message: `where: what`.
    public var description: String {
        switch self {
        case let .archive(error): return error.description
        case let .contract(finding): return finding.located
        case let .notDefaults(found):
            let what = found == .dictionary ? "a keyed archive" : Self.withArticle(found.typeName)
            return "top level: the file is \(what), not a defaults domain"
        case let .duplicateKey(key, at): return "\(at): duplicate block key \(quoted(key))"
        case let .keyNotFound(key): return "no \(quoted(key)) key: not a YCFirstTime archive or a defaults file holding one"
        case let .notArchiveData(key, found): return "\(quoted(key)) holds \(found.typeName), expected archive data"
        case let .embeddedNotPlist(key, error):
            switch Self.rule(reading: error) {
            case .plistLimit: return "\(quoted(key)) holds an archive beyond ycft's bounds: \(error)"
            case .stringUnrepresentable: return "\(quoted(key)) holds an archive ycft cannot read exactly: \(error)"
            default: return "\(quoted(key)) holds data that is not an archive: \(error)"
            }
        case let .notStateArchive(key, cause): return "\(quoted(key)) holds data that is not a readable YCFirstTime archive: \(cause)"
        case let .json(error): return "invalid JSON: \(error)"
        case let .recordsFormat(defect, at): return "\(at): \(defect)"
        case let .plist(error): return error.description
        case let .file(error): return error.description
        case let .inFile(path, error): return "\(path): \(error)"
        case let .notLoaded(cause): return "not saved: the file could not be read when the store opened (\(cause))"
        case let .intervalKeysHoldNoVersion(keys):
            return "IntervalClient keys hold no version (\(Self.listed(keys))); migrate the file to the records format first"
        case let .intervalKeysHoldNoTimelessRecord(keys):
            return "IntervalClient keys hold no record without a time (\(Self.listed(keys))); "
                + "unset the record, or migrate the file to the records format first"
        case let .archiveBesideState(form, key):
            let held = form == .plainRecords ? "plain records (\(RecordsFormat.defaultsKey))" : "IntervalClient keys (\(IntervalKey.prefix)*)"
            return "the file holds the state as \(held): an archive under \(quoted(key)) beside it would be a second copy "
                + "that disagrees with it; write the records in the file's own form, or migrate the file back to the archive first"
        case let .noUserDefaultsForm(kind, at):
            let what = kind == .uid ? "an archive UID" : "an integer beyond 64 bits"
            return "\(at): \(what) has no UserDefaults form"
        case let .equivalentKeys(earlier, key, at):
            return "\(at): keys \(quoted(earlier)) and \(quoted(key)) are canonically equivalent; "
                + "this platform's Foundation keeps only one of them in UserDefaults"
        case let .onlyOtherData(finding):
            return "\(finding.located); resetting would remove only these keys"
        case let .discarded(finding):
            return "YCFirstTime discards this state on the device ([\(finding.rule.rawValue)] \(finding.located)), so every gate "
                + "runs again there; a change here would bring its records back"
        }
    }
}

extension FirstTimeError {
    /// What breaks the records format (``recordsFormat(_:at:)``; the case's path says where).
    /// Kinds are named in the words of the text read: a JSON text's (`object`, `number`,
    /// `null`) or a property list's (`dictionary`, `real`).
    ///
    /// ```swift
    /// let error = FirstTimeError.recordsFormat(.unknownMember("lastTme"), at: .key("records").member("k"))
    /// print(error)   // records["k"]: unknown member "lastTme"
    /// ```
    public enum RecordsDefect: Sendable, Equatable, CustomStringConvertible {
        /// A JSON value of another kind than the format needs there (`null` allowed too when
        /// `orNull`); a JSON object is a `dictionary`, a number a `real`, `null` `other`.
        case jsonKind(expected: PlistKind, orNull: Bool, found: PlistKind)
        /// A property-list value of another kind than the format needs there.
        case plistKind(expected: PlistKind, found: PlistKind)
        /// `lastTime` in JSON is neither a number, `null`, nor `"NaN"`, `"Infinity"` or
        /// `"-Infinity"`.
        case notATime(found: PlistKind)
        /// A member (a key) the format does not have: a typo never drops data silently.
        case unknownMember(String)
        /// A member given twice.
        case repeatedMember(String)
        /// The `records` member is absent.
        case missingRecords
        /// `format` is not `ycfirsttime-records`; what it is, if anything.
        case wrongFormat(found: String?)
        /// `formatVersion` is not 1; what it is (the number as written), if anything.
        case wrongFormatVersion(found: String?)
        /// `lastTimeUTC` is not `YYYY-MM-DDTHH:MM:SS[.fraction]Z`; the text found.
        case notUTC(String)
        /// `lastTime` is a number outside the range of a double (too large, or not zero but too
        /// small, which a double would read as 0); the number as written.
        case beyondDouble(String)
        /// `lastTimeUTC` (without `lastTime`) is a time whose nearest double is outside years
        /// 0001–9999 (`9999-12-31T23:59:59.9999999Z` rounds to year 10000), so the time stored
        /// would read back as no time; the text and that double.
        case utcBeyondYears(String, nearest: Double)
        /// `lastTime` and `lastTimeUTC` name different instants (to the precision of the
        /// `lastTimeUTC` text); the `lastTime` given.
        case timesDisagree(lastTime: Double)
        /// `lastTime` is `null` (no time) and `lastTimeUTC` names an instant.
        case timesDisagreeNull

        /// What is wrong, without where.
        public var description: String {
            switch self {
            case let .jsonKind(expected, orNull, found):
                return "expected \(FirstTimeError.withArticle(Self.jsonName(expected)))\(orNull ? " or null" : ""), found \(Self.jsonName(found))"
            case let .plistKind(expected, found):
                return "expected \(FirstTimeError.withArticle(expected.typeName)), found \(found.typeName)"
            case let .notATime(found):
                return "expected a number, null, \"NaN\", \"Infinity\" or \"-Infinity\", found \(Self.jsonName(found))"
            case let .unknownMember(key): return "unknown member \(quoted(key))"
            case let .repeatedMember(key): return "repeated member \(quoted(key))"
            case .missingRecords: return "missing \"records\""
            case let .wrongFormat(found):
                return "format must be \(quoted(RecordsFormat.formatName))\(found.map { ", found \(quoted($0))" } ?? " (missing)")"
            case let .wrongFormatVersion(found):
                return "formatVersion must be \(RecordsFormat.formatVersion)\(found.map { ", found \(UntrustedText.escaped($0))" } ?? " (missing)")"
            case let .notUTC(text):
                // Of the form but no time (a 30th of February, a leap second): say which field.
                do throws(ExactTime.InstantDefect) { _ = try ExactTime.utcInstant(text) } catch where error != .malformed {
                    return "\(quoted(text)) is no time: \(error)"
                } catch {}
                return "\(quoted(text)) is not YYYY-MM-DDTHH:MM:SS[.fraction]Z"
            case let .beyondDouble(text): return "\(UntrustedText.escaped(text)) is outside the range of a double"
            case let .utcBeyondYears(text, nearest):
                return "\(quoted(text)) is stored as its nearest double, \(nearest), which is \(ExactTime.utcText(secondsSince2001: nearest)); "
                    + "give lastTime to store it"
            case .timesDisagreeNull:
                return "lastTime is null (no time) and lastTimeUTC gives one; remove lastTime to store lastTimeUTC, or set both to null"
            case let .timesDisagree(t):
                return "lastTime \(t) (\(ExactTime.utcText(secondsSince2001: t))) and lastTimeUTC disagree; "
                    + "remove lastTime to store lastTimeUTC, or fix one of them"
            }
        }

        /// A kind in JSON's words.
        private static func jsonName(_ kind: PlistKind) -> String {
            switch kind {
            case .dictionary: return "object"
            case .real, .integer: return "number"
            case .other: return "null"
            default: return kind.typeName
            }
        }
    }

    /// `a string`, `an object`, `data`.
    static func withArticle(_ name: String) -> String {
        if name == "data" { return name }
        return (name.first.map { "aeiou".contains($0) } == true ? "an " : "a ") + name
    }

    /// Up to three keys, quoted, for a message.
    private static func listed(_ keys: [String]) -> String { keys.prefix(3).map(quoted).joined(separator: ", ") }

    /// This error, from reading the archive a defaults domain holds under `key`, saying under
    /// which key: a plist error is the embedded data's (``embeddedNotPlist(key:_:)``), an
    /// archive or contract error says the key holds no YCFirstTime state
    /// (``notStateArchive(key:_:)``).
    public func embedded(under key: String) -> FirstTimeError {
        switch self {
        case let .archive(.plist(plistError)): return .embeddedNotPlist(key: key, plistError)
        case .archive, .contract: return .notStateArchive(key: key, self)
        default: return self
        }
    }

    /// The rule a reading error breaks, as a finding (`verify` reports a file that cannot be
    /// read this way; `status` asks it what the device would do).
    public var finding: ContractFinding {
        switch self {
        case let .archive(.plist(plistError)):
            return ContractFinding(Self.rule(reading: plistError), at: .file, plistError.description)
        case let .embeddedNotPlist(_, plistError):
            return ContractFinding(Self.rule(reading: plistError), at: .file, description)
        case .keyNotFound, .notDefaults:
            return ContractFinding(.stateMissing, at: .file, description)
        case let .notArchiveData(key, found):
            // What the app reads there: nothing (`UserDefaults.data(forKey:)` is nil for a value
            // that is not data), so it starts afresh, and its next save replaces the value.
            let device = "UserDefaults.data(forKey:) is nil for it, so the app starts afresh and its next save replaces it"
            let what = "\(quoted(key)) holds \(Self.withArticle(found.typeName)), not archive data"
            guard exactlyEqual(key, LegacyArchive.defaultsKey) else {
                return ContractFinding(.stateNotData, at: .file, "\(what): \(quoted(key)) may be the wrong key (YCFirstTime's "
                                       + "is \(quoted(LegacyArchive.defaultsKey))); an app that reads its archive there: \(device)")
            }
            return ContractFinding(.stateNotData, at: .file, "\(what): \(device)")
        case let .contract(finding), let .onlyOtherData(finding), let .discarded(finding):
            return finding
        case let .notStateArchive(_, cause), let .inFile(_, cause), let .notLoaded(cause):
            // The archive under the key (the store's file) breaks the rule its own error names.
            return cause.finding
        case let .recordsFormat(defect, at):
            return ContractFinding(.recordsFormat, at: at, defect.description)
        case let .duplicateKey(key, at):
            return ContractFinding(.recordsFormat, at: at, "duplicate block key \(quoted(key))")
        case let .json(jsonError):
            return ContractFinding(.recordsFormat, at: .file, jsonError.description)
        case let .archive(archiveError):
            // unreachable: `?? .file`: only `.plist` has no path, and `.archive(.plist)` is the first case above
            let path = archiveError.path ?? .file
            let rule: ContractRule = switch path.components.first {
            case .key("$archiver")?: .envelopeArchiver
            case .key("$version")?: .envelopeVersion
            case .key("$top")?: .envelopeRoot
            default: .envelopeObjects
            }
            return ContractFinding(rule, at: path, archiveError.reason)
        default:
            return ContractFinding(.plistUnreadable, at: .file, description)
        }
    }

    /// Whether the change was refused because YCFirstTime discards this state on the device
    /// (``discarded(_:)``), whichever file it names (``inFile(path:_:)``): every gate runs
    /// again there whatever the records say.
    ///
    /// ```swift
    /// do {
    ///     try StateFile.update(at: path) { $0["tour"] = FirstTimeRecord(lastVersion: "2.0", lastTime: 757_414_800) }
    /// } catch where error.isDiscarded {
    ///     // The app starts afresh on the device: there is nothing to keep.
    /// }
    /// ```
    public var isDiscarded: Bool { if case .discarded = cause { true } else { false } }

    /// Whether the state holds no record, only other keys that a reset would remove alone
    /// (``onlyOtherData(_:)``), whichever file it names.
    ///
    /// ```swift
    /// let finding = ContractFinding(.rootExtraKey, at: .key("$objects").index(1).key("Theme"), "not a record")
    /// FirstTimeError.inFile(path: "a.plist", .onlyOtherData(finding)).isOnlyOtherData   // true
    /// ```
    public var isOnlyOtherData: Bool { if case .onlyOtherData = cause { true } else { false } }

    /// Whether the records hold what IntervalClient's keys, the file's form, cannot: a version
    /// (``intervalKeysHoldNoVersion(keys:)``) or a record without a time
    /// (``intervalKeysHoldNoTimelessRecord(keys:)``); whichever file it names. The records
    /// are the mistake, not the file: migrate it to the records format, or change them.
    ///
    /// ```swift
    /// FirstTimeError.intervalKeysHoldNoVersion(keys: ["tour"]).isBeyondIntervalKeys   // true
    /// ```
    public var isBeyondIntervalKeys: Bool {
        switch cause {
        case .intervalKeysHoldNoVersion, .intervalKeysHoldNoTimelessRecord: true
        default: false
        }
    }

    /// Whether a defaults file holds something other than YCFirstTime state under the archive
    /// key, whichever file it names: a value that is not data (``notArchiveData(key:found:)``),
    /// data that is no property list (``embeddedNotPlist(key:_:)``), or a property list that is
    /// no YCFirstTime archive (``notStateArchive(key:_:)``). Each names the key itself.
    ///
    /// ```swift
    /// do { _ = try StateFile(bytes, key: "settings").state() } catch where error.isNotStateUnderKey {
    ///     print(error)   // "settings" holds dictionary, expected archive data
    /// }
    /// ```
    public var isNotStateUnderKey: Bool {
        switch cause {
        case .notArchiveData, .embeddedNotPlist, .notStateArchive: true
        default: false
        }
    }

    /// Whether the bytes read are no readable property list at all (``archive(_:)`` of a
    /// `PlistError`), whichever file it names. Data under a defaults key that is none is
    /// ``embeddedNotPlist(key:_:)`` (``isNotStateUnderKey``); both give ``plistReadError``.
    ///
    /// ```swift
    /// do { _ = try StateFile(Array("hello".utf8)) } catch { print(error.isNotPropertyList) }   // true
    /// ```
    public var isNotPropertyList: Bool { if case .archive(.plist) = cause { true } else { false } }

    /// Why a property list could not be read, whichever file it names: the bytes
    /// (``isNotPropertyList``) or the data under the archive key (``embeddedNotPlist(key:_:)``);
    /// nil for any other error.
    ///
    /// ```swift
    /// if case .tooManyNodes? = error.plistReadError { /* read again with higher PlistLimits */ }
    /// ```
    public var plistReadError: PlistError? {
        switch cause {
        case let .archive(.plist(error)), let .embeddedNotPlist(_, error): error
        default: nil
        }
    }

    /// The error itself, whichever file it names: ``inFile(path:_:)``'s cause, unwrapped.
    private var cause: FirstTimeError {
        guard case let .inFile(_, error) = self else { return self }
        return error.cause
    }

    /// The rule a property list that cannot be read breaks: a string libplist would change, a
    /// bound of ycft's exceeded, or anything else that makes it unreadable.
    static func rule(reading error: PlistError) -> ContractRule {
        switch error {
        case .unrepresentableString, .duplicateKey: return .stringUnrepresentable
        case .tooDeep, .tooManyNodes, .tooManyBytes, .inputTooLarge: return .plistLimit
        default: return .plistUnreadable
        }
    }
}
