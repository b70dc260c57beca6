internal import PlistCore

/// One form of YCFirstTime state in a file or a `UserDefaults` domain.
public enum StateForm: String, Sendable, Equatable, CaseIterable, CustomStringConvertible {
    /// The file is a legacy archive.
    case archive
    /// A defaults domain holding the legacy archive under the key.
    case defaultsArchive = "defaults-archive"
    /// A migrated defaults domain: `YCFirstTime.records`.
    case plainRecords = "plain-records"
    /// A migrated defaults domain: `interval.*` keys (versions unknown).
    case intervalKeys = "interval-keys"

    /// The form's name, as ycft's messages and JSON print it (`defaults-archive`).
    public var description: String { rawValue }

    /// The state a domain holding `forms` gives its app: the first form's records and findings,
    /// and a ``ContractRule/statesDisagree`` finding for each copy in another form that differs
    /// or cannot be read (a write replaces it, so every writer says so). Nil when `forms` is
    /// empty. With `asDevice` (an error's finding), the first form read as the app reads it
    /// where ycft's reader refuses it with a finding that does not stop the app
    /// (``DeviceLoad/judgement(refused:)``).
    /// - Throws: what `read` throws for the first form.
    package static func state<Failure: Error>(of forms: [StateForm], asDevice: ((Failure) -> ContractFinding?)? = nil,
                                             read: (StateForm) throws(Failure) -> ArchiveJudgement) throws(Failure) -> FirstTimeState? {
        guard let primary = forms.first else { return nil }
        var first: ArchiveJudgement
        do { first = try read(primary) } catch {
            guard let finding = asDevice?(error), let loaded = DeviceLoad.judgement(refused: finding) else { throw error }
            first = loaded
        }
        for form in forms.dropFirst() {
            let copy: ArchiveJudgement
            do { copy = try read(form) } catch {
                first.findings.append(ContractFinding(.statesDisagree, at: .file,
                                                      "the \(form.rawValue) copy cannot be read (\(error)); ycft reads the \(primary.rawValue) state"))
                continue
            }
            first.findings += ContractFinding.disagreement(primary, first.records, form, copy.records)
        }
        return FirstTimeState(records: first.records, form: primary, forms: forms, findings: first.findings)
    }
}

extension ContractFinding {
    /// The finding when two forms of the state differ (interval keys hold no versions, so only
    /// their times are compared, each as an interval key holds it: counted from 1970, a time
    /// since 2001 is held to its nearest value, `IntervalKey.storedTime(_:)`). An interval copy
    /// is read only for the records it copies (`IntervalKey.read(_:copyOf:)`), so it differs
    /// where a record's time and its key's differ, where a record with a time has no key, or
    /// where a record without a time has one.
    public static func disagreement(_ form: StateForm, _ records: FirstTimeRecords, _ other: StateForm, _ copy: FirstTimeRecords) -> [ContractFinding] {
        let timesOnly = form == .intervalKeys || other == .intervalKeys
        let a = timesOnly ? FirstTimeRecords.timesOnly(records, asKeysHoldThem: form != .intervalKeys) : records
        let b = timesOnly ? FirstTimeRecords.timesOnly(copy, asKeysHoldThem: other != .intervalKeys) : copy
        guard a != b else { return [] }
        return [ContractFinding(.statesDisagree, at: .file, differenceMessage(form, a, other, b))]
    }

    private static func differenceMessage(_ form: StateForm, _ a: FirstTimeRecords, _ other: StateForm, _ b: FirstTimeRecords) -> String {
        let keys = a.filter { b[$0.key] != $0.record }.map(\.key) + b.filter { a[$0.key] == nil }.map(\.key)
        let shown = keys.prefix(3).map(quoted).joined(separator: ", ") + (keys.count > 3 ? " and \(keys.count - 3) more" : "")
        return "the \(form.rawValue) state and its \(other.rawValue) copy differ (\(shown)); ycft reads the \(form.rawValue) one"
    }
}

extension FirstTimeRecords {
    /// The records as IntervalClient keys hold them: versions dropped, records without a time
    /// left out, and (`asKeysHoldThem`, for records not read from such keys) each time as a key
    /// counting from 1970 holds it, read back (`IntervalKey.storedTime(_:)`).
    package static func timesOnly(_ records: FirstTimeRecords, asKeysHoldThem: Bool) -> FirstTimeRecords {
        FirstTimeRecords(sorted: records.entries.compactMap { entry in
            entry.record.lastTime.map { (entry.key, FirstTimeRecord(lastTime: asKeysHoldThem ? IntervalKey.storedTime($0) : $0)) }
        })
    }
}
