public import Plist

/// Reads YCFirstTime state from whatever form a file holds it in.
public enum StateReader {
    /// Where the records came from.
    public enum Source: String, Sendable, Equatable {
        /// The file is a legacy archive.
        case archive
        /// A defaults file holding the legacy archive.
        case defaultsArchive = "defaults-archive"
        /// A migrated defaults file: `YCFirstTime.records`.
        case plainRecords = "plain-records"
        /// A migrated defaults file: `interval.*` keys (versions unknown).
        case intervalKeys = "interval-keys"
    }

    /// The records in an archive, in a defaults file holding one, or in a migrated defaults file
    /// (`YCFirstTime.records`, else `interval.*` keys converted to seconds since 2001).
    public static func records(in bytes: [UInt8], key: String = LegacyArchive.defaultsKey,
                               limits: PlistLimits = .default) throws(FirstTimeError) -> (records: FirstTimeRecords, source: Source) {
        if let records = LegacyArchive.fastDecode(bytes, limits: limits) { return (records, .archive) }
        let read: (value: PlistValue, format: PlistFormat)
        do { read = try PropertyList.read(bytes, limits: limits) } catch { throw .archive(.plist(error)) }
        let value = read.value
        if case let .dictionary(file) = value, file["$archiver"] == nil, file[key] == nil {
            if let plain = file[RecordsFormat.defaultsKey] {
                return (try RecordsFormat.records(fromPlist: plain), .plainRecords)
            }
            var entries: [FirstTimeRecords.Entry] = []
            for (name, stored) in file where name.hasPrefix(DefaultsMigration.intervalPrefix) {
                let seconds: Double
                switch stored {
                case let .real(d): seconds = d
                case let .integer(.signed(i)): seconds = Double(i)
                default: throw .recordsFormat("expected seconds since 1970 as a real, found \(stored.typeName)", at: name)
                }
                entries.append((String(name.dropFirst(DefaultsMigration.intervalPrefix.count)),
                                FirstTimeRecord(lastVersion: nil, lastTime: seconds - DefaultsMigration.epochOffset)))
            }
            if !entries.isEmpty { return (try FirstTimeRecords(entries), .intervalKeys) }
        }
        if case let .dictionary(file) = value, file["$archiver"] == nil, case let .data(inner)? = file[key],
           let records = LegacyArchive.fastDecode(inner, limits: limits) {
            return (records, .defaultsArchive)
        }
        let located = try ArchiveLocator.locate(value, format: read.format, key: key, limits: limits)
        let source: Source
        if case .archive = located.origin { source = .archive } else { source = .defaultsArchive }
        return (try LegacyArchive.decode(located.archive), source)
    }
}
