public import Plist

/// Writes YCFirstTime state back into a file in the form the file already has: a bare archive
/// stays an archive (in its plist format), a defaults file keeps the archive under its key (in
/// place, every other key untouched), a migrated file keeps `YCFirstTime.records`, a file of
/// IntervalClient keys keeps `interval.<key>` numbers. The reverse of ``StateFile/state()``.
///
/// ```swift
/// let file = try StateFile(bytes)
/// var records = try file.state().records
/// records["onboarding.v1"] = FirstTimeRecord(lastVersion: "3.0", lastTime: 780_000_000)
/// let edited = try StateWriter.write(records, into: file)
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

    /// `bytes` with its YCFirstTime state replaced by `records`, in the file's own form. Every
    /// form the file holds is rewritten (a file migrated with `keepSource` keeps its copies in
    /// step); every other key keeps its place and value.
    /// - Parameters:
    ///   - key: the defaults key of the archive (`YCFirstTime`).
    /// - Throws: ``Failure``.
    public static func write(_ records: FirstTimeRecords, into bytes: [UInt8], key: String = LegacyArchive.defaultsKey,
                             limits: PlistLimits = .default) throws(Failure) -> [UInt8] {
        let file: StateFile
        do { file = try StateFile(bytes, key: key, limits: limits) } catch { throw .unreadable(error.description) }
        return try write(records, into: file)
    }

    /// The file with `records` in place of `before`, the records it holds
    /// (`file.state().records`); nil when they are the same, bit for bit: there is nothing to
    /// write, and the file keeps its bytes (an archive another program wrote keeps its own
    /// object order, a copy of the state in another form stays as it is). The one answer to
    /// "does this edit change the file?" for ``StateFile/update(at:key:limits:_:)`` and the
    /// tool's `set`, `unset` and `edit`.
    ///
    /// ```swift
    /// let file = try StateFile(bytes)
    /// let before = try file.state().records
    /// var records = before
    /// records["onboarding.v1"] = nil
    /// if let edited = try StateWriter.write(records, changedFrom: before, into: file) { save(edited) }
    /// ```
    /// - Throws: ``Failure``, as ``write(_:into:)``.
    public static func write(_ records: FirstTimeRecords, changedFrom before: FirstTimeRecords,
                             into file: StateFile) throws(Failure) -> [UInt8]? {
        guard records != before else { return nil }
        return try write(records, into: file)
    }

    /// The file with its YCFirstTime state replaced by `records` (see ``write(_:into:key:limits:)``),
    /// written even when the records are those it holds (see ``write(_:changedFrom:into:)``).
    /// - Throws: ``Failure``.
    public static func write(_ records: FirstTimeRecords, into file: StateFile) throws(Failure) -> [UInt8] {
        guard let primary = file.forms.first else { throw .unreadable(FirstTimeError.keyNotFound(file.key).description) }
        if primary == .archive { return try encode(records, file.format) }
        guard var domain = file.defaults else { throw .unreadable("the top level is not a dictionary") }
        if file.forms == [.intervalKeys] {
            let versioned = records.filter { $0.record.lastVersion != nil }.map(\.key)
            guard versioned.isEmpty else {
                throw .cannotHold("IntervalClient keys hold no version (\(versioned.prefix(3).map(quoted).joined(separator: ", "))); "
                                  + "migrate the file to the records format first")
            }
        }
        for form in file.forms {
            switch form {
            case .archive:
                break
            case .defaultsArchive:
                let innerFormat = (try? file.archiveData()).flatMap { PropertyList.detectFormat($0) } ?? .binary
                domain[file.key] = .data(try encode(records, innerFormat))
            case .plainRecords:
                domain[RecordsFormat.defaultsKey] = RecordsFormat.plist(records)
            case .intervalKeys:
                domain = intervalKeys(records, in: domain)
            }
        }
        do { return try PropertyList.write(.dictionary(domain), format: file.format) } catch { throw .unreadable(error.description) }
    }

    private static func encode(_ records: FirstTimeRecords, _ format: PlistFormat) throws(Failure) -> [UInt8] {
        do { return try LegacyArchive.encode(records, format: format) } catch { throw .unreadable(error.description) }
    }

    /// The domain with its `interval.<key>` entries replaced by the records' times: a key that
    /// stays keeps its place (and its stored value when that already reads as the time), a
    /// removed one goes, new ones are appended.
    private static func intervalKeys(_ records: FirstTimeRecords, in domain: PlistDictionary) -> PlistDictionary {
        var entries: [(key: String, value: PlistValue)] = []
        let wanted = Dictionary(records.map { (ExactKey(IntervalKey.prefix + $0.key), $0.record) }, uniquingKeysWith: { a, _ in a })
        var placed = Set<ExactKey>()
        for entry in domain {
            let name = ExactKey(entry.key)
            guard entry.key.hasPrefix(IntervalKey.prefix) else {
                entries.append(entry)
                continue
            }
            guard let record = wanted[name], let time = record.lastTime else { continue }
            placed.insert(name)
            let seconds = time + IntervalKey.epochOffset
            entries.append((entry.key, IntervalKey.seconds(entry.value) == seconds ? entry.value : .real(seconds)))
        }
        for (key, record) in records where !placed.contains(ExactKey(IntervalKey.prefix + key)) {
            if let time = record.lastTime { entries.append((IntervalKey.prefix + key, .real(time + IntervalKey.epochOffset))) }
        }
        return PlistDictionary(entries)
    }

    /// `bytes` after YCFirstTime's `reset()`: every form of the state removed from a defaults
    /// file, an empty archive for a bare archive. A defaults file without state is returned
    /// unchanged (`reset()` of a missing key does nothing).
    /// - Throws: ``Failure``.
    public static func reset(_ bytes: [UInt8], key: String = LegacyArchive.defaultsKey,
                             limits: PlistLimits = .default) throws(Failure) -> [UInt8] {
        let file: StateFile
        do { file = try StateFile(bytes, key: key, limits: limits) } catch { throw .unreadable(error.description) }
        guard let primary = file.forms.first else { return bytes }
        if primary == .archive { return try encode(FirstTimeRecords(), file.format) }
        guard var domain = file.defaults else { throw .unreadable("the top level is not a dictionary") }
        for form in file.forms {
            switch form {
            case .archive: break
            case .defaultsArchive: domain[key] = nil
            case .plainRecords: domain[RecordsFormat.defaultsKey] = nil
            case .intervalKeys: domain = PlistDictionary(domain.entries.filter { !$0.key.hasPrefix(IntervalKey.prefix) })
            }
        }
        do { return try PropertyList.write(.dictionary(domain), format: file.format) } catch { throw .unreadable(error.description) }
    }

    /// A defaults file with `archive` under `key` (replaced in place, or added at the end).
    /// - Throws: ``Failure``: ``Failure/unreadable(_:)`` when `defaults` is not a dictionary
    ///   plist, or is itself an archive; ``Failure/cannotHold(_:)`` when it holds the state in
    ///   another form (``StateForm/plainRecords`` or ``StateForm/intervalKeys``, after a
    ///   migration), which an archive beside it would contradict: the file would hold two
    ///   copies that disagree. Write such a file in its own form (``write(_:into:)``), or
    ///   migrate it back to the archive first.
    public static func put(_ archive: [UInt8], into defaults: [UInt8], key: String = LegacyArchive.defaultsKey,
                           limits: PlistLimits = .default) throws(Failure) -> [UInt8] {
        let read: (value: PlistValue, format: PlistFormat)
        do { read = try PropertyList.read(defaults, limits: limits) } catch { throw .unreadable(error.description) }
        guard case var .dictionary(file) = read.value, file["$archiver"] == nil || file["$objects"] == nil else {
            throw .unreadable("not a defaults file (a dictionary of preferences)")
        }
        let others = StateForm.forms(in: file.lazy.map(\.key), key: key).filter { $0 != .defaultsArchive }
        if let other = others.first {
            let held = other == .plainRecords ? "plain records (\(RecordsFormat.defaultsKey))" : "IntervalClient keys (\(IntervalKey.prefix)*)"
            throw .cannotHold("the file holds the state as \(held): an archive under \(quoted(key)) beside it would be a second copy "
                              + "that disagrees with it; write the records in the file's own form, or migrate the file back to the archive first")
        }
        file[key] = .data(archive)
        do { return try PropertyList.write(.dictionary(file), format: read.format) } catch { throw .unreadable(error.description) }
    }
}
