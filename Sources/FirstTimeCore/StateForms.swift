public import PlistCore

extension IntervalKey {
    /// The records IntervalClient keys hold (every `interval.*` entry; versions nil), and an
    /// ``ContractRule/intervalValue`` finding for each value IntervalClient cannot read (its
    /// gate runs as if it never ran; the value is not state).
    /// - Throws: ``FirstTimeError/duplicateKey(_:at:)`` when two keys name the same gate.
    @inlinable public static func read(_ entries: some Sequence<(key: String, value: PlistValue)>) throws(FirstTimeError) -> DecodedArchive {
        var records: [FirstTimeRecords.Entry] = []
        var findings: [ContractFinding] = []
        for (name, stored) in entries where name.hasPrefix(prefix) {
            guard let seconds = seconds(stored) else {
                findings.append(ContractFinding(.intervalValue, at: .key(name),
                                                "holds \(stored.typeName), not a number IntervalClient can read: its gate runs as if it never ran"))
                continue
            }
            records.append((String(name.dropFirst(prefix.count)), FirstTimeRecord(lastVersion: nil, lastTime: seconds - epochOffset)))
        }
        return DecodedArchive(records: try FirstTimeRecords(records), findings: findings)
    }
}

extension StateForm {
    /// The state a domain holding `forms` gives its app: the first form's records and findings,
    /// and a ``ContractRule/statesDisagree`` finding for each readable copy in another form that
    /// differs (an unreadable copy is ignored). Nil when `forms` is empty.
    /// - Throws: what `read` throws for the first form.
    public static func state<Failure: Error>(of forms: [StateForm],
                                             read: (StateForm) throws(Failure) -> DecodedArchive) throws(Failure) -> (form: StateForm, decoded: DecodedArchive)? {
        guard let primary = forms.first else { return nil }
        var first = try read(primary)
        for form in forms.dropFirst() {
            guard let copy = try? read(form) else { continue }
            first.findings += ContractFinding.disagreement(primary, first.records, form, copy.records)
        }
        return (primary, first)
    }
}

extension ContractFinding {
    /// The finding when two forms of the state differ (interval keys hold no versions, so only
    /// their times are compared).
    public static func disagreement(_ form: StateForm, _ records: FirstTimeRecords, _ other: StateForm, _ copy: FirstTimeRecords) -> [ContractFinding] {
        let timesOnly = form == .intervalKeys || other == .intervalKeys
        let a = timesOnly ? FirstTimeRecords.timesOnly(records) : records
        let b = timesOnly ? FirstTimeRecords.timesOnly(copy) : copy
        guard a != b else { return [] }
        return [ContractFinding(.statesDisagree, at: .file, differenceMessage(form, a, other, b))]
    }

    private static func differenceMessage(_ form: StateForm, _ a: FirstTimeRecords, _ other: StateForm, _ b: FirstTimeRecords) -> String {
        var keys: [String] = []
        for (key, record) in a where b[key] != record { keys.append(key) }
        for (key, _) in b where a[key] == nil { keys.append(key) }
        let shown = keys.prefix(3).map(quoted).joined(separator: ", ") + (keys.count > 3 ? " and \(keys.count - 3) more" : "")
        return "the \(form.rawValue) state and its \(other.rawValue) copy differ (\(shown)); ycft reads the \(form.rawValue) one"
    }
}

extension FirstTimeRecords {
    /// The records with versions dropped and records without a time left out (what
    /// IntervalClient keys can hold).
    package static func timesOnly(_ records: FirstTimeRecords) -> FirstTimeRecords {
        FirstTimeRecords(sorted: records.entries.compactMap { entry in
            entry.record.lastTime.map { (entry.key, FirstTimeRecord(lastTime: $0)) }
        })
    }
}
