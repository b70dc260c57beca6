public import Plist

/// Writes YCFirstTime state back into a file in the form the file already has: a bare archive
/// stays an archive (in its plist format), a defaults file keeps the archive under its key (in
/// place, every other key untouched), a migrated file keeps `YCFirstTime.records`, a file of
/// IntervalClient keys keeps `interval.<key>` numbers. The reverse of ``StateReader``.
///
/// ```swift
/// var state = try StateReader.read(bytes)
/// state.records["onboarding.v1"] = FirstTimeRecord(lastVersion: "3.0", lastTime: 780_000_000)
/// let edited = try StateWriter.write(state.records, into: bytes)
/// ```
public enum StateWriter {
    /// Why the state cannot be written back.
    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// The file's form cannot hold it (IntervalClient keys hold no version).
        case cannotHold(String)
        /// The file could not be read, or the result written.
        case unreadable(String)

        /// The message.
        public var description: String {
            switch self {
            case let .cannotHold(m), let .unreadable(m): return m
            }
        }
    }

    /// `bytes` with its YCFirstTime state replaced by `records`, in the file's own form.
    /// - Parameters:
    ///   - key: the defaults key of the archive (`YCFirstTime`).
    /// - Throws: ``Failure``.
    public static func write(_ records: FirstTimeRecords, into bytes: [UInt8], key: String = LegacyArchive.defaultsKey,
                             limits: PlistLimits = .default) throws(Failure) -> [UInt8] {
        let state: StateReader.State
        do { state = try StateReader.read(bytes, key: key, limits: limits) } catch { throw .unreadable(error.description) }
        let read: (value: PlistValue, format: PlistFormat)
        do { read = try PropertyList.read(bytes, limits: limits) } catch { throw .unreadable(error.description) }
        func encode(_ format: PlistFormat) throws(Failure) -> [UInt8] {
            do { return try LegacyArchive.encode(records, format: format) } catch { throw .unreadable(error.description) }
        }
        func written(_ dict: PlistDictionary) throws(Failure) -> [UInt8] {
            do { return try PropertyList.write(.dictionary(dict), format: read.format) } catch { throw .unreadable(error.description) }
        }
        guard case var .dictionary(file) = read.value else { throw .unreadable("the top level is not a dictionary") }
        switch state.source {
        case .archive:
            return try encode(read.format)
        case .defaultsArchive:
            var innerFormat = PlistFormat.binary
            if case let .data(inner)? = file[key], let format = PropertyList.detectFormat(inner) { innerFormat = format }
            file[key] = .data(try encode(innerFormat))
            return try written(file)
        case .plainRecords:
            file[RecordsFormat.defaultsKey] = RecordsFormat.plist(records)
            return try written(file)
        case .intervalKeys:
            let versioned = records.filter { $0.record.lastVersion != nil }.map(\.key)
            guard versioned.isEmpty else {
                throw .cannotHold("IntervalClient keys hold no version (\(versioned.prefix(3).map(quoted).joined(separator: ", "))); "
                                  + "migrate the file to the records format first")
            }
            var entries: [(key: String, value: PlistValue)] = []
            let wanted = Dictionary(records.map { (ExactKey(DefaultsMigration.intervalPrefix + $0.key), $0.record) },
                                    uniquingKeysWith: { a, _ in a })
            var placed = Set<ExactKey>()
            for entry in file {
                let name = ExactKey(entry.key)
                guard entry.key.hasPrefix(DefaultsMigration.intervalPrefix) else {
                    entries.append(entry)
                    continue
                }
                // An interval key stays where it is, with its new time; a removed one goes.
                guard let record = wanted[name], let time = record.lastTime else { continue }
                placed.insert(name)
                let value = PlistValue.real(time + DefaultsMigration.epochOffset)
                entries.append((entry.key, StateReader.intervalSeconds(entry.value) == time + DefaultsMigration.epochOffset ? entry.value : value))
            }
            for (key, record) in records where !placed.contains(ExactKey(DefaultsMigration.intervalPrefix + key)) {
                if let time = record.lastTime { entries.append((DefaultsMigration.intervalPrefix + key, .real(time + DefaultsMigration.epochOffset))) }
            }
            return try written(PlistDictionary(entries))
        }
    }

    /// `bytes` after YCFirstTime's `reset()`: the archive (or the plain records) removed from a
    /// defaults file, an empty archive for a bare archive, every IntervalClient key removed
    /// from a file of them.
    /// - Throws: ``Failure``.
    public static func reset(_ bytes: [UInt8], key: String = LegacyArchive.defaultsKey,
                             limits: PlistLimits = .default) throws(Failure) -> [UInt8] {
        let state: StateReader.State
        do { state = try StateReader.read(bytes, key: key, limits: limits) } catch {
            // A defaults file without the state is already reset (YCFirstTime's reset() of a
            // missing key does nothing).
            if case .keyNotFound = error { return bytes }
            throw .unreadable(error.description)
        }
        let read: (value: PlistValue, format: PlistFormat)
        do { read = try PropertyList.read(bytes, limits: limits) } catch { throw .unreadable(error.description) }
        guard case var .dictionary(file) = read.value else { throw .unreadable("the top level is not a dictionary") }
        switch state.source {
        case .archive:
            do { return try LegacyArchive.encode(FirstTimeRecords(), format: read.format) } catch { throw .unreadable(error.description) }
        case .defaultsArchive: file[key] = nil
        case .plainRecords: file[RecordsFormat.defaultsKey] = nil
        case .intervalKeys: file = PlistDictionary(file.entries.filter { !$0.key.hasPrefix(DefaultsMigration.intervalPrefix) })
        }
        do { return try PropertyList.write(.dictionary(file), format: read.format) } catch { throw .unreadable(error.description) }
    }

    /// A defaults file with `archive` under `key` (replaced in place, or added at the end).
    /// - Throws: ``Failure`` when `defaults` is not a dictionary plist, or is itself an archive.
    public static func put(_ archive: [UInt8], into defaults: [UInt8], key: String = LegacyArchive.defaultsKey,
                           limits: PlistLimits = .default) throws(Failure) -> [UInt8] {
        let read: (value: PlistValue, format: PlistFormat)
        do { read = try PropertyList.read(defaults, limits: limits) } catch { throw .unreadable(error.description) }
        guard case var .dictionary(file) = read.value, file["$archiver"] == nil || file["$objects"] == nil else {
            throw .unreadable("not a defaults file (a dictionary of preferences)")
        }
        file[key] = .data(archive)
        do { return try PropertyList.write(.dictionary(file), format: read.format) } catch { throw .unreadable(error.description) }
    }
}
