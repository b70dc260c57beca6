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
/// another library's archive, a dictionary of settings, a broken archive).
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
    /// The file is not a defaults domain (its top level is not a dictionary).
    case notDefaults(found: String)
    /// Two records share a block key.
    case duplicateKey(String, at: ObjectPath)
    /// A defaults file has no archive under the key.
    case keyNotFound(String)
    /// A defaults file holds something other than archive data under the key.
    case notArchiveData(key: String, found: String)
    /// A defaults file holds data under the key, but that data is not a readable property list.
    case embeddedNotPlist(key: String, PlistError)
    /// A defaults file holds a property list under the key that is not a readable YCFirstTime
    /// archive; the cause (``archive(_:)`` or ``contract(_:)``) says why, and where in it.
    case notStateArchive(key: String, FirstTimeError)
    /// The plain format's JSON text is not valid JSON.
    case json(JSONError)
    /// The plain format is valid JSON or plist but breaks the records format.
    case recordsFormat(String, at: ObjectPath)
    /// A property list could not be written.
    case plist(PlistError)
    /// A file could not be read or written (`StateFile/init(contentsOf:key:limits:)`,
    /// `StateFile/update(at:key:limits:_:)`).
    case file(FileError)
    /// The new state cannot be written in the file's form (for example a version into
    /// IntervalClient keys, which hold none).
    case cannotHold(String)

    /// A one-line message: `where: what`.
    public var description: String {
        switch self {
        case let .archive(error): return error.description
        case let .contract(finding): return finding.located
        case let .notDefaults(found): return "top level: the file is \(found), not a defaults domain"
        case let .duplicateKey(key, at): return "\(at): duplicate block key \(quoted(key))"
        case let .keyNotFound(key): return "no \(quoted(key)) key: not a YCFirstTime archive or a defaults file holding one"
        case let .notArchiveData(key, found): return "\(quoted(key)) holds \(found), expected archive data"
        case let .embeddedNotPlist(key, error):
            if Self.rule(reading: error) == .plistLimit { return "\(quoted(key)) holds an archive beyond ycft's bounds: \(error)" }
            return "\(quoted(key)) holds data that is not an archive: \(error)"
        case let .notStateArchive(key, cause): return "\(quoted(key)) holds data that is not a readable YCFirstTime archive: \(cause)"
        case let .json(error): return "invalid JSON: \(error)"
        case let .recordsFormat(why, at): return "\(at): \(why)"
        case let .plist(error): return error.description
        case let .file(error): return error.description
        case let .cannotHold(why): return why
        }
    }
}

extension FirstTimeError {
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

}

extension Migration.Failure {
    /// Why the state of `form` could not be read, as a migration reports it: errors of the
    /// archive under `key` name the key, unless their text already does.
    public init(reading error: FirstTimeError, form: StateForm, key: String) {
        self = .unreadable(error, archiveKey: form == .defaultsArchive ? key : nil)
    }
}

extension FirstTimeError {
    /// The rule a reading error breaks, as a finding (`verify` reports a file that cannot be
    /// read this way; `status` asks it what the device would do).
    public var finding: ContractFinding {
        switch self {
        case let .archive(.plist(plistError)):
            return ContractFinding(Self.rule(reading: plistError), at: .file, plistError.description)
        case let .embeddedNotPlist(_, plistError):
            return ContractFinding(Self.rule(reading: plistError), at: .file, description)
        case .keyNotFound, .notArchiveData, .notDefaults:
            return ContractFinding(.stateMissing, at: .file, description)
        case let .contract(finding):
            return finding
        case let .notStateArchive(_, cause):
            // The archive under the key breaks the rule its own error names.
            return cause.finding
        case let .recordsFormat(why, at):
            return ContractFinding(.recordsFormat, at: at, why)
        case let .duplicateKey(key, at):
            return ContractFinding(.recordsFormat, at: at, "duplicate block key \(quoted(key))")
        case let .json(jsonError):
            return ContractFinding(.recordsFormat, at: .file, jsonError.description)
        case let .archive(archiveError):
            let path = archiveError.path ?? .file
            let message: String
            switch archiveError {
            case let .envelope(why, _): message = why
            case let .unexpected(expected, found, _): message = "expected \(expected), found \(UntrustedText.escaped(found))"
            case let .malformed(why, _): message = why
            case let .danglingUID(uid, count, _): message = "UID \(uid) is outside $objects (\(count) objects)"
            case .plist: message = archiveError.description
            }
            let rule: ContractRule
            switch path.components.first {
            case .key("$archiver")?: rule = .envelopeArchiver
            case .key("$version")?: rule = .envelopeVersion
            case .key("$top")?: rule = .envelopeRoot
            default: rule = .envelopeObjects
            }
            return ContractFinding(rule, at: path, message)
        default:
            return ContractFinding(.plistUnreadable, at: .file, description)
        }
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
