public import KeyedArchive
public import Plist

/// Finds the YCFirstTime archive in a file: either the archive itself, or an exported defaults
/// file (what `defaults export` writes, or an app's `Library/Preferences/<id>.plist`) that holds
/// it as data under `YCFirstTime` (or another key).
public enum ArchiveLocator {
    /// Where the archive was found.
    public enum Origin: Sendable, Equatable {
        /// The file is the archive.
        case archive(PlistFormat)
        /// The file is a defaults file holding the archive under `key`.
        case defaultsFile(PlistFormat, key: String, archiveFormat: PlistFormat)
    }

    /// Reads the archive in `bytes`.
    /// - Parameters:
    ///   - key: the defaults key to look under when the file is not itself an archive.
    /// - Throws: ``FirstTimeError`` when the bytes are not a plist, the key is missing or does
    ///   not hold data, or the archive's envelope is broken.
    public static func locate(_ bytes: [UInt8], key: String = LegacyArchive.defaultsKey,
                              limits: PlistLimits = .default) throws(FirstTimeError) -> (archive: KeyedArchive, origin: Origin) {
        let read: (value: PlistValue, format: PlistFormat)
        do { read = try PropertyList.read(bytes, limits: limits) } catch { throw .archive(.plist(error)) }
        return try locate(read.value, format: read.format, key: key, limits: limits)
    }

    /// Finds the archive in a plist already read (an archive, or a defaults file holding one).
    public static func locate(_ value: PlistValue, format: PlistFormat, key: String = LegacyArchive.defaultsKey,
                              limits: PlistLimits = .default) throws(FirstTimeError) -> (archive: KeyedArchive, origin: Origin) {
        let read = (value: value, format: format)
        if case let .dictionary(top) = read.value, top["$archiver"] == nil, top["$objects"] == nil {
            guard let stored = top[key] else { throw .keyNotFound(key) }
            guard case let .data(inner) = stored else {
                throw .notArchiveData(key: key, found: stored.typeName)
            }
            let innerRead: (value: PlistValue, format: PlistFormat)
            do { innerRead = try PropertyList.read(inner, limits: limits) } catch { throw .embeddedNotPlist(key: key, error) }
            do {
                return (try KeyedArchive(plist: innerRead.value),
                        .defaultsFile(read.format, key: key, archiveFormat: innerRead.format))
            } catch {
                throw .archive(error)
            }
        }
        do { return (try KeyedArchive(plist: read.value), .archive(read.format)) } catch { throw .archive(error) }
    }

    /// Decodes the records of the archive in `bytes` (an archive or a defaults file).
    public static func records(in bytes: [UInt8], key: String = LegacyArchive.defaultsKey,
                               limits: PlistLimits = .default) throws(FirstTimeError) -> FirstTimeRecords {
        if let records = LegacyArchive.fastDecode(bytes, limits: limits) { return records }
        return try LegacyArchive.decode(locate(bytes, key: key, limits: limits).archive)
    }
}
