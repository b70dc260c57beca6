import Foundation
internal import FirstTimeCore
internal import PlistCore

/// What YCFirstTime's own loader makes of an archive: Foundation's `NSKeyedUnarchiver` with
/// secure coding on, the loader's allowed classes, and the archived class name
/// `YCFirstTimeObject` mapped to ``ArchivedRecord`` (so it works whether or not the app still
/// links YCFirstTime).
///
/// ycft's own reader (the contract walker) is the judge of an archive; this is its second
/// opinion from the platform. A migration goes ahead only when both read the same records, so
/// an archive the device reads differently from ycft is reported and left alone.
enum FoundationLoader {
    /// The records the loader reads, or why it refuses the archive.
    static func records(_ bytes: [UInt8]) -> Result<FirstTimeRecords, Refusal> {
        let unarchiver: NSKeyedUnarchiver
        do { unarchiver = try NSKeyedUnarchiver(forReadingFrom: Data(bytes)) } catch {
            return .failure(.refused(error.localizedDescription))
        }
        unarchiver.requiresSecureCoding = true
        // Errors are returned, not raised (Apple's default for this initializer; Linux's is to trap).
        unarchiver.decodingFailurePolicy = .setErrorAndReturn
        unarchiver.setClass(ArchivedRecord.self, forClassName: LegacyArchive.recordClass)
        let root = unarchiver.decodeObject(
            of: [NSMutableDictionary.self, NSDictionary.self, NSString.self, NSDate.self, ArchivedRecord.self],
            forKey: NSKeyedArchiveRootObjectKey)
        unarchiver.finishDecoding()
        if let error = unarchiver.error { return .failure(.refused(error.localizedDescription)) }
        guard let root else { return .failure(.refused("no root object")) }
        let rootPath = ObjectPath.key("root")
        guard let rootEntries = FoundationValues.entries(root) else {
            return .failure(.differs(ContractFinding(.rootClass, at: rootPath, "the root is not a dictionary")))
        }
        guard let group = rootEntries.first(where: { exactlyEqual($0.key, LegacyArchive.groupKey) })?.value else {
            return .success(FirstTimeRecords())
        }
        let groupPath = rootPath.key(LegacyArchive.groupKey)
        guard let groupEntries = FoundationValues.entries(group) else {
            return .failure(.differs(ContractFinding(.groupClass, at: groupPath, "\(LegacyArchive.groupKey) is not a dictionary")))
        }
        var records: [(key: String, record: FirstTimeRecord)] = []
        for (key, value) in groupEntries {
            guard let record = value as? ArchivedRecord else {
                return .failure(.differs(ContractFinding(.recordClass, at: groupPath.member(key), "not a \(LegacyArchive.recordClass)")))
            }
            records.append((key, FirstTimeRecord(lastVersion: record.lastVersion, lastTime: record.lastTime)))
        }
        do { return .success(try FirstTimeRecords(records)) } catch {
            return .failure(.differs(error.finding))
        }
    }

    /// Why the loader's reading is not ycft's.
    enum Refusal: Error {
        /// The unarchiver fails: YCFirstTime would start afresh. Foundation's own message (its
        /// `NSError`'s `localizedDescription`: the underlying error, as text).
        case refused(String)
        /// It reads something ycft does not: the rule it reads otherwise, and where.
        case differs(ContractFinding)
    }
}

/// The record class as YCFirstTime's `init(coder:)` reads it: `lastVersion` as an `NSString`,
/// `lastTime` as an `NSDate`, each nil when absent. Only ever decoded, never archived: the
/// rollback archive is written by ycft's own writer in the contract's exact layout.
final class ArchivedRecord: NSObject, NSSecureCoding {
    static var supportsSecureCoding: Bool { true }

    let lastVersion: String?
    let lastTime: Double?

    init?(coder: NSCoder) {
        // `containsValue` first: Linux Foundation reports a missing key as a decoding error.
        lastVersion = coder.containsValue(forKey: LegacyArchive.versionKey)
            ? coder.decodeObject(of: NSString.self, forKey: LegacyArchive.versionKey).map { String($0) } : nil
        lastTime = coder.containsValue(forKey: LegacyArchive.timeKey)
            ? coder.decodeObject(of: NSDate.self, forKey: LegacyArchive.timeKey)?.timeIntervalSinceReferenceDate : nil
        super.init()
    }

    func encode(with coder: NSCoder) {
        coder.encode(lastVersion.map { NSString(string: $0) }, forKey: LegacyArchive.versionKey)
        coder.encode(lastTime.map { NSDate(timeIntervalSinceReferenceDate: $0) }, forKey: LegacyArchive.timeKey)
    }
}
