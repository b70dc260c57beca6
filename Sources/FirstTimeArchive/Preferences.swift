public import FirstTimeCore
internal import Plist
public import PlistCore

extension StateFile {
    /// Whether `name`, a top-level key of this defaults file, is one of YCFirstTime's state
    /// keys: the archive key, `YCFirstTime.records`, or an `interval.*` key that is the state
    /// or its copy (`StateSource.forms`; IntervalClient's own gates
    /// beside the state are the app's preferences).
    public func isStateKey(_ name: String) -> Bool {
        if exactlyEqual(name, key) || exactlyEqual(name, RecordsFormat.defaultsKey) { return true }
        guard name.hasPrefix(IntervalKey.prefix), forms.contains(.intervalKeys) else { return false }
        guard let copyOf = source.intervalCopyOf else { return true }
        return copyOf[String(name.dropFirst(IntervalKey.prefix.count))] != nil
    }

    /// The app's preferences this file holds: its top-level keys other than YCFirstTime's state
    /// keys (``isStateKey(_:)``), in file order; empty for anything but a defaults domain.
    package var preferences: [(key: String, value: PlistValue)] {
        guard let defaults else { return [] }
        return defaults.entries.filter { !isStateKey($0.key) }
    }

    /// The one answer to "what would replacing the file `existing` with `new` lose?", asked
    /// before an output file is replaced (`ycft pack -o`, `ycft migrate -o`): the keys of the
    /// preferences `existing` holds (`preferences`) that `new` does not hold with the same
    /// value (exactly: `PlistValue`'s equality), in `existing`'s order. Empty when nothing
    /// would be lost: `existing` is no defaults domain (a bare archive, or bytes ycft cannot
    /// read as a property list within `limits`), or `new` keeps every preference as it is (a
    /// rerun of a migration over its own earlier output).
    ///
    /// ```swift
    /// let lost = StateFile.preferencesLost(replacing: prefsBytes, with: archiveBytes)
    /// if !lost.isEmpty { print("would lose \(lost)") }   // ["AppleLanguages", "LaunchCount", ...]
    /// ```
    /// - Parameters:
    ///   - key: the defaults key of the archive (`YCFirstTime`).
    public static func preferencesLost(replacing existing: [UInt8], with new: [UInt8], key: String = LegacyArchive.defaultsKey,
                                       limits: PlistLimits = .default) -> [String] {
        guard let old = try? StateFile(existing, key: key, limits: limits) else { return [] }
        let kept = old.preferences
        guard !kept.isEmpty else { return [] }
        let replacement = (try? StateFile(new, key: key, limits: limits))?.defaults ?? PlistDictionary()
        let index = replacement.keyIndex()
        return kept.compactMap { entry in
            guard let at = index[ExactKey(entry.key)], replacement.entries[at].value == entry.value else { return entry.key }
            return nil
        }
    }
}
