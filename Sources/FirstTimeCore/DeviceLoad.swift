/// What YCFirstTime (or IntervalClient) loads from a domain's state on the device, decided from
/// values: the one answer `status`, `diff`, `FirstTimeStore`, the edit path and
/// `Migration.records(in:)` ask. A value under the key that is not data is no state
/// (`UserDefaults.data(forKey:)` is nil); a state with a `resets-all` finding is no records.
///
/// ```swift
/// let load = try DeviceLoad(reading: { try file.heldState() }, unread: { _ in false })
/// RunRules.decide(.once, record: load.records["onboarding.v1"], now: now, appVersion: nil)
/// ```
package struct DeviceLoad: Sendable, Equatable {
    /// The records as the domain holds them (shown even when the app discards them).
    package let held: FirstTimeRecords
    /// What the contract found in the state (a reader warns of the notable ones).
    package let findings: [ContractFinding]
    /// Whether the domain holds no state yet (a fresh install's, or after a reset).
    package let noState: Bool
    /// Whether the state cannot be read at all, where a forced reset removes it (the caller's
    /// answer: `StateEdit.discardsUnread(_:)`).
    package let unread: Bool

    /// A load of these parts.
    package init(held: FirstTimeRecords, findings: [ContractFinding] = [], noState: Bool = false, unread: Bool = false) {
        (self.held, self.findings, self.noState, self.unread) = (held, findings, noState, unread)
    }

    /// What the app loads from the state `read` gives (nil: none yet), or none when `read` throws
    /// an error by which the app starts afresh (`unread`: one a forced reset removes).
    /// - Throws: `read`'s error when the app reads the state but ycft cannot.
    package init(reading read: () throws(FirstTimeError) -> FirstTimeState?,
                 unread: (FirstTimeError) -> Bool) throws(FirstTimeError) {
        do {
            guard let state = try read() else {
                self.init(held: FirstTimeRecords(), noState: true)
                return
            }
            self.init(held: state.records, findings: state.findings)
        } catch {
            guard [error.finding].resetsAll != nil else { throw error }
            self.init(held: FirstTimeRecords(), findings: [error.finding], unread: unread(error))
        }
    }

    /// The finding by which YCFirstTime discards the state (every gate runs), if any.
    package var resetsAll: ContractFinding? { findings.resetsAll }
    /// The records the app's gates see: ``held``, or none when the app starts afresh.
    package var records: FirstTimeRecords { resetsAll == nil ? held : FirstTimeRecords() }

    /// How the app reads a form ycft refuses with a finding that does not stop it (a value that is
    /// not data, ``ContractRule/stateNotData``): the empty state, with it; nil for a fatal one.
    package static func judgement(refused finding: ContractFinding) -> ArchiveJudgement? {
        finding.rule.isFatal ? nil : ArchiveJudgement(records: FirstTimeRecords(), findings: [finding])
    }
}
