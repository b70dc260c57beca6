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

    /// What a file holds, read the way the app's library would read it.
    public struct State: Sendable, Equatable {
        /// The records.
        public var records: FirstTimeRecords
        /// Where they came from.
        public var source: Source
        /// What the library reads leniently and ycft says so: an `interval.*` value that is not
        /// a number (IntervalClient's `as? TimeInterval` fails, so the gate runs as if never run).
        public var warnings: [String]
    }

    /// The records in an archive, in a defaults file holding one, or in a migrated defaults file
    /// (`YCFirstTime.records`, else `interval.*` keys converted to seconds since 2001).
    public static func records(in bytes: [UInt8], key: String = LegacyArchive.defaultsKey,
                               limits: PlistLimits = .default) throws(FirstTimeError) -> (records: FirstTimeRecords, source: Source) {
        let state = try read(bytes, key: key, limits: limits)
        return (state.records, state.source)
    }

    /// Like ``records(in:key:limits:)``, with the warnings. `interval.<key>` values are read as
    /// IntervalClient reads them (`as? TimeInterval`): a real, an integer a double holds exactly,
    /// or a boolean (1 or 0); anything else is left out with a warning (the gate runs).
    public static func read(_ bytes: [UInt8], key: String = LegacyArchive.defaultsKey,
                            limits: PlistLimits = .default) throws(FirstTimeError) -> State {
        if let records = LegacyArchive.fastDecode(bytes, limits: limits) { return State(records: records, source: .archive, warnings: []) }
        let read: (value: PlistValue, format: PlistFormat)
        do { read = try PropertyList.read(bytes, limits: limits) } catch { throw .archive(.plist(error)) }
        let value = read.value
        if case let .dictionary(file) = value, file["$archiver"] == nil, file[key] == nil {
            if let plain = file[RecordsFormat.defaultsKey] {
                return State(records: try RecordsFormat.records(fromPlist: plain), source: .plainRecords, warnings: [])
            }
            var entries: [FirstTimeRecords.Entry] = []
            var warnings: [String] = []
            var sawInterval = false
            for (name, stored) in file where name.hasPrefix(DefaultsMigration.intervalPrefix) {
                sawInterval = true
                guard let seconds = intervalSeconds(stored) else {
                    warnings.append("\(quoted(name)) holds \(stored.typeName), not a number IntervalClient can read: "
                                    + "its gate runs as if it never ran")
                    continue
                }
                entries.append((String(name.dropFirst(DefaultsMigration.intervalPrefix.count)),
                                FirstTimeRecord(lastVersion: nil, lastTime: seconds - DefaultsMigration.epochOffset)))
            }
            if sawInterval { return State(records: try FirstTimeRecords(entries), source: .intervalKeys, warnings: warnings) }
        }
        if case let .dictionary(file) = value, file["$archiver"] == nil, case let .data(inner)? = file[key],
           let records = LegacyArchive.fastDecode(inner, limits: limits) {
            return State(records: records, source: .defaultsArchive, warnings: [])
        }
        let located = try ArchiveLocator.locate(value, format: read.format, key: key, limits: limits)
        let source: Source
        if case .archive = located.origin { source = .archive } else { source = .defaultsArchive }
        return State(records: try LegacyArchive.decode(located.archive), source: source, warnings: [])
    }

    /// An `interval.*` value as `as? TimeInterval` reads it (`NSNumber` bridges when exact).
    static func intervalSeconds(_ stored: PlistValue) -> Double? {
        switch stored {
        case let .real(d): return d
        case let .integer(.signed(i)): return Double(exactly: i)
        case let .integer(.unsigned(u)): return Double(exactly: u)
        case let .bool(b): return b ? 1 : 0
        default: return nil
        }
    }
}
