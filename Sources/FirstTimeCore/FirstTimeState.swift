/// The YCFirstTime state a defaults domain or file holds, read the way the app's library reads
/// it: the same type for a file (`StateFile.heldState()`, `state()`) and for a live
/// `UserDefaults` domain (`Migration.records(in:)`).
///
/// ```swift
/// if let state = try Migration.records(in: .standard) {
///     print(state.form, state.records.count)
///     if let finding = state.resetsAll { print("the app would start over: \(finding)") }
/// }
/// ```
public struct FirstTimeState: Sendable, Equatable {
    /// The records.
    public var records: FirstTimeRecords
    /// The form they came from (the first the domain holds).
    public var form: StateForm
    /// Every form the domain holds, in reading order; the others are copies, checked to agree.
    public var forms: [StateForm]
    /// Findings that leave the state readable: what the device reads differently, copies that
    /// disagree, interval values IntervalClient cannot read.
    public var findings: [ContractFinding]

    /// Creates a state from what was read.
    public init(records: FirstTimeRecords, form: StateForm, forms: [StateForm], findings: [ContractFinding]) {
        (self.records, self.form, self.forms, self.findings) = (records, form, forms, findings)
    }

    /// The finding that makes the device discard all state, if any (then every gate runs).
    public var resetsAll: ContractFinding? { findings.resetsAll }

    /// What any rewrite of this state by ycft drops or changes (`StateEdit`: `set`, `unset`,
    /// `edit`, `pack --into`): the findings of the parts the records do not carry
    /// (``ContractRule/rewriteLoses``: a record's unknown coder key, a copy in another form that
    /// differs and is replaced, a value under the key that is not data, replaced when forced;
    /// the root's other keys only when the app discards the state), and of the values it writes
    /// in another form (an integer time, written as the real the app reads) when the records
    /// are written back as they are.
    ///
    /// ```swift
    /// let state = try StateFile(bytes).state()
    /// for finding in state.dropped { print("a write drops or changes \(finding)") }
    /// ```
    public var dropped: [ContractFinding] { said(writing: records) }

    /// What a write of `records` in place of this state says it drops or changes
    /// (``ContractRule/Rewrite``): the parts the records do not carry; the root's other keys
    /// when the write does not keep them (``keepsRootEntries``); and a time it stores in
    /// YCFirstTime's own form only for a record it still writes with that time (not one removed
    /// or given another time). Nil `records`: the state is removed (`reset`), and what that
    /// loses is said.
    package func said(writing records: FirstTimeRecords?) -> [ContractFinding] {
        guard let records else { return findings.filter(\.rule.spec.rewrite.isLostWhenRemoved) }
        let keepsRoot = keepsRootEntries
        return findings.filter { finding in
            switch finding.rule.spec.rewrite {
            case .none: return false
            case .drops, .replacesOnlyForced: return true
            case .keeps: return !keepsRoot
            case .converts:
                guard let key = finding.record, let time = self.records[key]?.lastTime else { return false }
                return records[key]?.lastTime?.bitPattern == time.bitPattern
            }
        }
    }

    /// Whether a write of new records keeps the root's other keys beside them, as YCFirstTime's
    /// next save does (``ContractFinding`` collections' `keepsRootEntries`).
    package var keepsRootEntries: Bool { findings.keepsRootEntries }
}
