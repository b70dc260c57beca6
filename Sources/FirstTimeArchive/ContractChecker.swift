public import FirstTimeCore
internal import KeyedArchive
internal import Plist
public import PlistCore

/// Checks a file's YCFirstTime state against the contract and reports every finding.
///
/// Unlike ``LegacyArchive/decode(_:limits:)``, which stops at the first problem, the checker
/// walks as much of every form the file holds (see ``StateFile``) as it can and returns all
/// findings. Findings are values; the checker never throws.
public enum ContractChecker {
    /// Checks archive bytes, or a defaults file holding the state (an archive under `key`, the
    /// plain records, IntervalClient keys).
    public static func check(_ bytes: [UInt8], key: String = LegacyArchive.defaultsKey,
                             limits: PlistLimits = .default) -> [ContractFinding] {
        checkPlaced(bytes, key: key, limits: limits).map(\.finding)
    }

    /// A finding, and which document its path is a path of.
    package struct Placed: Sendable, Equatable {
        /// The finding.
        package var finding: ContractFinding
        /// The defaults key under which the file holds, as data, the archive that the path is
        /// in (`$objects[5].lastTime` of the archive under `YCFirstTime`); nil when the path is
        /// one of the file itself (a bare archive, plain records, interval keys, the file).
        package var archiveKey: String?
    }

    /// ``check(_:key:limits:)``'s findings, each placed (for `verify`'s line numbers).
    package static func checkPlaced(_ bytes: [UInt8], key: String = LegacyArchive.defaultsKey,
                                   limits: PlistLimits = .default) -> [Placed] {
        do {
            return try StateFile(bytes, key: key, limits: limits).checkForms().map { form, finding in
                Placed(finding: finding, archiveKey: form == .defaultsArchive ? key : nil)
            }
        } catch {
            return [Placed(finding: finding(for: error), archiveKey: nil)]
        }
    }

    /// The rule a reading error breaks, as a finding (`verify` reports a file that cannot be
    /// read this way; `status` asks it what the device would do).
    public static func finding(for error: FirstTimeError) -> ContractFinding {
        switch error {
        case let .archive(.plist(plistError)):
            switch plistError {
            case .unrepresentableString, .duplicateKey:
                return ContractFinding(.stringUnrepresentable, at: .file, plistError.description)
            case .tooDeep, .tooManyNodes, .tooManyBytes, .inputTooLarge:
                return ContractFinding(.plistLimit, at: .file, plistError.description)
            default:
                return ContractFinding(.plistUnreadable, at: .file, plistError.description)
            }
        case let .embeddedNotPlist(_, plistError):
            switch plistError {
            case .unrepresentableString, .duplicateKey: return ContractFinding(.stringUnrepresentable, at: .file, error.description)
            case .tooDeep, .tooManyNodes, .tooManyBytes, .inputTooLarge: return ContractFinding(.plistLimit, at: .file, error.description)
            default: return ContractFinding(.plistUnreadable, at: .file, error.description)
            }
        case .keyNotFound, .notArchiveData, .notDefaults:
            return ContractFinding(.stateMissing, at: .file, error.description)
        case let .contract(finding):
            return finding
        case let .notStateArchive(_, cause):
            // The archive under the key breaks the rule its own error names.
            return self.finding(for: cause)
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
            return ContractFinding(.plistUnreadable, at: .file, error.description)
        }
    }
}
