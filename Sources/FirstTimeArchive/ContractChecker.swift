internal import KeyedArchive
public import Plist

/// How serious a contract finding is.
public enum Severity: String, Sendable, Equatable, Comparable {
    /// The app would misread or lose state.
    case error
    /// Legal for YCFirstTime but not what it writes; worth a look.
    case warning

    /// Errors sort before warnings.
    public static func < (a: Severity, b: Severity) -> Bool { a == .error && b == .warning }
}

/// The rules `ycft verify` checks, each with a stable id.
public enum ContractRule: String, Sendable, CaseIterable {
    /// The bytes are not a readable property list (truncated, bad trailer, malformed XML, cycles
    /// in the plist itself).
    case plistUnreadable = "plist-unreadable"
    /// A string that libplist would change silently (embedded NUL, lone surrogate, bad UTF-8).
    case stringUnrepresentable = "string-unrepresentable"
    /// Input over a safety bound (size, nesting depth, expanded node count).
    case plistLimit = "plist-limit"
    /// A defaults file without archive data under the key.
    case archiveMissing = "archive-missing"
    /// `$archiver` is not `NSKeyedArchiver`.
    case envelopeArchiver = "envelope-archiver"
    /// `$version` is not 100000.
    case envelopeVersion = "envelope-version"
    /// `$top.root` is missing or not a UID.
    case envelopeRoot = "envelope-root"
    /// `$objects` is missing, not an array, or does not start with `"$null"`.
    case envelopeObjects = "envelope-objects"
    /// A UID points outside `$objects`.
    case uidDangling = "uid-dangling"
    /// A UID points back to an object that contains it.
    case uidCycle = "uid-cycle"
    /// The root is an `NSDictionary`: YCFirstTime resets all state when it loads this.
    case rootImmutable = "root-immutable"
    /// The root is not a dictionary.
    case rootClass = "root-class"
    /// The root holds a key other than `sharedGroup`.
    case rootExtraKey = "root-extra-key"
    /// The root has no `sharedGroup` (no state recorded yet).
    case groupMissing = "group-missing"
    /// The group is an `NSDictionary`: YCFirstTime's next save drops every other key.
    case groupImmutable = "group-immutable"
    /// The group is not a dictionary.
    case groupClass = "group-class"
    /// `NS.keys`/`NS.objects` are missing, of different lengths, or not arrays of UIDs.
    case dictionaryStructure = "dictionary-structure"
    /// A dictionary key is not a string.
    case keyType = "key-type"
    /// Two block keys are the same string.
    case keyDuplicate = "key-duplicate"
    /// A record's class is not `YCFirstTimeObject`.
    case recordClass = "record-class"
    /// A class chain (`$classes`) differs from the one Apple writes, or is missing.
    case classChain = "class-chain"
    /// A record has a coder key other than `lastVersion` and `lastTime`.
    case recordUnknownKey = "record-unknown-key"
    /// `lastVersion` is not an `NSString`/`NSMutableString`.
    case versionType = "version-type"
    /// `lastTime` is not an `NSDate` with a real `NS.time`.
    case timeType = "time-type"
    /// `NS.time` is NaN or infinite.
    case timeNonFinite = "time-non-finite"

    /// The severity a finding of this rule has.
    public var severity: Severity {
        switch self {
        case .groupMissing, .classChain, .recordUnknownKey: return .warning
        default: return .error
        }
    }

    /// What the rule means, for the README and `--help`.
    public var summary: String {
        switch self {
        case .plistUnreadable: return "not a readable property list (truncated, bad trailer, malformed XML, reference cycle)"
        case .stringUnrepresentable: return "a string libplist would change silently (embedded NUL, lone surrogate, invalid UTF-8)"
        case .plistLimit: return "over a safety bound: input size, nesting depth, expanded node count"
        case .archiveMissing: return "a defaults file without archive data under the key"
        case .envelopeArchiver: return "$archiver is not \"NSKeyedArchiver\""
        case .envelopeVersion: return "$version is not 100000"
        case .envelopeRoot: return "$top.root is missing or not a UID"
        case .envelopeObjects: return "$objects is missing, not an array, or does not start with \"$null\""
        case .uidDangling: return "a UID points outside $objects"
        case .uidCycle: return "a UID points back to an object that contains it"
        case .rootImmutable: return "the root is NSDictionary: YCFirstTime resets all state when it loads it"
        case .rootClass: return "the root is not a dictionary"
        case .rootExtraKey: return "the root holds a key other than \"sharedGroup\""
        case .groupMissing: return "no \"sharedGroup\": nothing recorded yet"
        case .groupImmutable: return "the group is NSDictionary: the next save drops every other block key"
        case .groupClass: return "sharedGroup is not a dictionary"
        case .dictionaryStructure: return "NS.keys/NS.objects missing, of different lengths, or not UIDs"
        case .keyType: return "a dictionary key is not a string"
        case .keyDuplicate: return "two block keys are the same string"
        case .recordClass: return "a record is not a YCFirstTimeObject"
        case .classChain: return "a $classes chain differs from Apple's or is missing"
        case .recordUnknownKey: return "a record has a coder key other than lastVersion and lastTime"
        case .versionType: return "lastVersion is not an NSString"
        case .timeType: return "lastTime is not an NSDate with a real NS.time"
        case .timeNonFinite: return "NS.time is NaN or infinite"
        }
    }
}

/// One way an archive departs from the YCFirstTime contract.
public struct ContractFinding: Sendable, Equatable, CustomStringConvertible {
    /// The rule broken.
    public var rule: ContractRule
    /// Where in the archive (`$objects[5].lastTime`), or `file` for the whole input.
    public var path: String
    /// What is wrong.
    public var message: String
    /// The rule's severity.
    public var severity: Severity { rule.severity }

    /// Creates a finding.
    public init(_ rule: ContractRule, at path: String, _ message: String) {
        self.rule = rule
        self.path = path
        self.message = message
    }

    /// `error: [rule] path: message`.
    public var description: String { "\(severity.rawValue): [\(rule.rawValue)] \(path): \(message)" }
}

/// Checks an archive against the YCFirstTime contract and reports every finding.
///
/// Unlike ``LegacyArchive/decode(_:limits:)``, which stops at the first problem, the checker
/// walks as much of the archive as it can and returns all findings. Findings are values; the
/// checker never throws.
public enum ContractChecker {
    /// Checks archive bytes, or a defaults file holding an archive under `key`.
    public static func check(_ bytes: [UInt8], key: String = LegacyArchive.defaultsKey,
                             limits: PlistLimits = .default) -> [ContractFinding] {
        do {
            let located = try ArchiveLocator.locate(bytes, key: key, limits: limits)
            var walker = Walker(archive: located.archive)
            walker.run()
            return walker.findings
        } catch {
            return [finding(for: error)]
        }
    }

    static func finding(for error: FirstTimeError) -> ContractFinding {
        switch error {
        case let .archive(.plist(plistError)):
            switch plistError {
            case .unrepresentableString, .duplicateKey:
                return ContractFinding(.stringUnrepresentable, at: "file", plistError.description)
            case .tooDeep, .tooManyNodes, .tooManyBytes, .inputTooLarge:
                return ContractFinding(.plistLimit, at: "file", plistError.description)
            default:
                return ContractFinding(.plistUnreadable, at: "file", plistError.description)
            }
        case let .embeddedNotPlist(_, plistError):
            switch plistError {
            case .unrepresentableString, .duplicateKey: return ContractFinding(.stringUnrepresentable, at: "file", error.description)
            case .tooDeep, .tooManyNodes, .tooManyBytes, .inputTooLarge: return ContractFinding(.plistLimit, at: "file", error.description)
            default: return ContractFinding(.plistUnreadable, at: "file", error.description)
            }
        case .keyNotFound, .notArchiveData:
            return ContractFinding(.archiveMissing, at: "file", error.description)
        case let .archive(archiveError):
            let path = archiveError.path ?? "file"
            let message: String
            switch archiveError {
            case let .envelope(why, _): message = why
            case let .unexpected(expected, found, _): message = "expected \(expected), found \(found)"
            case let .malformed(why, _): message = why
            case let .danglingUID(uid, count, _): message = "UID \(uid) is outside $objects (\(count) objects)"
            case .plist: message = archiveError.description
            }
            let rule: ContractRule
            switch path {
            case "$archiver": rule = .envelopeArchiver
            case "$version": rule = .envelopeVersion
            case let p where p.hasPrefix("$top"): rule = .envelopeRoot
            default: rule = .envelopeObjects
            }
            return ContractFinding(rule, at: path, message)
        default:
            return ContractFinding(.plistUnreadable, at: "file", error.description)
        }
    }
}

/// Walks root → group → records, recording findings instead of stopping.
private struct Walker {
    let archive: KeyedArchive
    var findings: [ContractFinding] = []
    /// Class descriptors already checked (each is reported once, however many instances share it).
    var checkedClasses = Set<UInt64>()

    init(archive: KeyedArchive) { self.archive = archive }

    mutating func add(_ rule: ContractRule, _ path: String, _ message: String) {
        findings.append(ContractFinding(rule, at: path, message))
    }

    /// Resolves a UID or records why not.
    mutating func resolve(_ uid: UInt64, at path: String) -> PlistValue? {
        guard uid < UInt64(archive.objects.count) else {
            add(.uidDangling, path, "UID \(uid) is outside $objects (\(archive.objects.count) objects)")
            return nil
        }
        return archive.objects[Int(uid)]
    }

    mutating func checkChain(_ instance: ArchivedInstance, expected: [String]) {
        guard checkedClasses.insert(instance.archivedClass.uid).inserted else { return }
        let here = "$objects[\(instance.archivedClass.uid)]"
        guard let chain = instance.archivedClass.chain else {
            add(.classChain, here, "class \(UntrustedText.escaped(instance.archivedClass.name)) has no $classes chain; Apple writes \(expected)")
            return
        }
        if chain != expected {
            add(.classChain, here, "$classes is \(chain.map(UntrustedText.escaped)), Apple writes \(expected)")
        }
    }

    mutating func dictionary(_ uid: UInt64, role: String, immutableRule: ContractRule, classRule: ContractRule) -> ArchivedInstance? {
        let path = "$objects[\(uid)]"
        guard let value = resolve(uid, at: path) else { return nil }
        guard case .dictionary = value, let instance = try? archive.instance(uid) else {
            add(classRule, path, "\(role) is \(archive.describe(value)), expected NSMutableDictionary")
            return nil
        }
        switch instance.archivedClass.name {
        case "NSMutableDictionary":
            checkChain(instance, expected: LegacyArchive.mutableDictionaryChain)
        case "NSDictionary":
            let consequence = role == "root"
                ? "YCFirstTime keeps only an NSMutableDictionary and would reset all state"
                : "YCFirstTime's next save would replace it and drop every other block key"
            add(immutableRule, path, "\(role) is NSDictionary: \(consequence)")
        default:
            add(classRule, path, "\(role) is \(UntrustedText.escaped(instance.archivedClass.name)), expected NSMutableDictionary")
            return nil
        }
        return instance
    }

    mutating func entries(_ instance: ArchivedInstance) -> [(key: UInt64, value: UInt64)]? {
        do {
            return try archive.dictionaryEntries(instance)
        } catch {
            if case let .danglingUID(uid, count, at) = error {
                add(.uidDangling, at, "UID \(uid) is outside $objects (\(count) objects)")
            } else {
                add(.dictionaryStructure, error.path ?? "$objects[\(instance.uid)]", message(error))
            }
            return nil
        }
    }

    func message(_ error: ArchiveError) -> String {
        switch error {
        case let .unexpected(expected, found, _): return "expected \(expected), found \(found)"
        case let .malformed(why, _): return why
        case let .envelope(why, _): return why
        case let .danglingUID(uid, count, _): return "UID \(uid) is outside $objects (\(count) objects)"
        case .plist: return error.description
        }
    }

    mutating func string(_ uid: UInt64, at path: String, rule: ContractRule) -> String? {
        guard uid != 0 else { return nil }
        guard resolve(uid, at: path) != nil else { return nil }
        do {
            return try archive.string(uid, at: path)
        } catch {
            add(rule, error.path ?? path, message(error))
            return nil
        }
    }

    mutating func run() {
        let rootUID: UInt64
        do {
            rootUID = try archive.topUID("root")
        } catch {
            add(.envelopeRoot, "$top.root", message(error))
            return
        }
        guard rootUID != 0 else {
            add(.envelopeRoot, "$top.root", "root is nil")
            return
        }
        guard let root = dictionary(rootUID, role: "root", immutableRule: .rootImmutable, classRule: .rootClass),
              let rootEntries = entries(root) else { return }
        var groupUID: UInt64?
        for (i, entry) in rootEntries.enumerated() {
            let keyPath = "$objects[\(root.uid)].NS.keys[\(i)]"
            guard let key = string(entry.key, at: keyPath, rule: .keyType) else {
                if entry.key == 0 { add(.keyType, keyPath, "key is nil") }
                continue
            }
            if exactlyEqual(key, LegacyArchive.groupKey) {
                if groupUID != nil { add(.keyDuplicate, "$objects[\(root.uid)]", "\"sharedGroup\" appears twice") }
                groupUID = entry.value
            } else {
                add(.rootExtraKey, "$objects[\(root.uid)]", "unexpected root key \(quoted(key)); the root holds only \"sharedGroup\"")
            }
        }
        guard let groupUID else {
            add(.groupMissing, "$objects[\(root.uid)]", "no \"sharedGroup\": the archive records nothing")
            return
        }
        if groupUID == rootUID {
            add(.uidCycle, "$objects[\(root.uid)].sharedGroup", "sharedGroup is the root itself")
            return
        }
        guard groupUID != 0 else {
            add(.groupClass, "$objects[\(root.uid)]", "sharedGroup is nil")
            return
        }
        guard let group = dictionary(groupUID, role: "sharedGroup", immutableRule: .groupImmutable, classRule: .groupClass),
              let groupEntries = entries(group) else { return }
        var seen = Set<[UInt8]>()
        for (i, entry) in groupEntries.enumerated() {
            let keyPath = "$objects[\(group.uid)].NS.keys[\(i)]"
            if let key = string(entry.key, at: keyPath, rule: .keyType) {
                if !seen.insert(Array(key.utf8)).inserted {
                    add(.keyDuplicate, "$objects[\(group.uid)]", "duplicate block key \(quoted(key))")
                }
            } else if entry.key == 0 {
                add(.keyType, keyPath, "block key is nil")
            }
            record(entry.value, at: "$objects[\(group.uid)].NS.objects[\(i)]", ancestors: [rootUID, groupUID])
        }
    }

    mutating func record(_ uid: UInt64, at path: String, ancestors: [UInt64]) {
        if ancestors.contains(uid) {
            add(.uidCycle, path, "record UID \(uid) points back to the \(uid == ancestors[0] ? "root" : "group") that contains it")
            return
        }
        guard let value = resolve(uid, at: path) else { return }
        let here = "$objects[\(uid)]"
        guard uid != 0, case .dictionary = value, let instance = try? archive.instance(uid) else {
            add(.recordClass, uid == 0 ? path : here, "expected YCFirstTimeObject, found \(archive.describe(value))")
            return
        }
        guard instance.archivedClass.name == LegacyArchive.recordClass else {
            add(.recordClass, here, "expected YCFirstTimeObject, found \(UntrustedText.escaped(instance.archivedClass.name))")
            return
        }
        checkChain(instance, expected: LegacyArchive.recordChain)
        for (key, fieldValue) in instance.fields {
            switch key {
            case "$class":
                continue
            case LegacyArchive.versionKey:
                guard case let .uid(ref) = fieldValue else {
                    add(.versionType, "\(here).\(key)", "expected a UID, found \(fieldValue.typeName)")
                    continue
                }
                _ = string(ref, at: "\(here).\(key)", rule: .versionType)
            case LegacyArchive.timeKey:
                guard case let .uid(ref) = fieldValue else {
                    add(.timeType, "\(here).\(key)", "expected a UID, found \(fieldValue.typeName)")
                    continue
                }
                time(ref, at: "\(here).\(key)")
            default:
                add(.recordUnknownKey, here, "unknown coder key \(quoted(key)) (YCFirstTime ignores it)")
            }
        }
    }

    mutating func time(_ uid: UInt64, at path: String) {
        guard uid != 0, let value = resolve(uid, at: path) else { return }
        guard case .dictionary = value, let instance = try? archive.instance(uid),
              instance.archivedClass.name == LegacyArchive.dateClass else {
            add(.timeType, path, "expected NSDate, found \(archive.describe(value))")
            return
        }
        checkChain(instance, expected: LegacyArchive.dateChain)
        let here = "$objects[\(uid)].NS.time"
        guard let time = instance.fields["NS.time"] else {
            add(.timeType, "$objects[\(uid)]", "NSDate has no NS.time")
            return
        }
        guard case let .real(seconds) = time else {
            add(.timeType, here, "expected real, found \(time.typeName)")
            return
        }
        if !seconds.isFinite {
            add(.timeNonFinite, here, "NS.time is \(seconds): interval gates misfire (NaN and +infinity never fire again, -infinity always fires)")
        }
    }
}
