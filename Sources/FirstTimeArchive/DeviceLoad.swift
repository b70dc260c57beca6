package import FirstTimeCore

extension StateFile {
    /// What YCFirstTime loads from a file on the device: the one answer `status` and `diff`
    /// judge gates against.
    package struct DeviceLoad: Sendable {
        /// A load of these parts (``StateFile/deviceLoad()`` makes them from a file).
        package init(held: FirstTimeRecords, findings: [ContractFinding], resetsAll: ContractFinding?, unread: Bool, noState: Bool) {
            (self.held, self.findings, self.resetsAll, self.unread, self.noState) = (held, findings, resetsAll, unread, noState)
        }

        /// The records as the file holds them (shown even when the app discards them).
        package let held: FirstTimeRecords
        /// The records the app's gates see: ``held``, or none when the app starts afresh.
        package var records: FirstTimeRecords { resetsAll == nil ? held : FirstTimeRecords() }
        /// What the contract found in the state (a reader warns of the notable ones).
        package let findings: [ContractFinding]
        /// The finding by which YCFirstTime discards the state (every gate runs), if any.
        package let resetsAll: ContractFinding?
        /// Whether that state cannot be read at all, in a defaults file (`reset --force` removes it).
        package let unread: Bool
        /// Whether the file holds no state yet (a fresh install's, or after a reset).
        package let noState: Bool
    }

    /// What the app loads from this file: the held state's records, none when there is no state
    /// yet, none when YCFirstTime discards the state (``DeviceLoad/resetsAll``), read or not.
    ///
    /// ```swift
    /// let load = try StateFile(bytes).deviceLoad()
    /// RunRules.decide(.once, record: load.records["onboarding.v1"], now: now, appVersion: nil)
    /// ```
    /// - Throws: the error of a state the app reads but ycft cannot (a string libplist would
    ///   change, an archive beyond ycft's bounds): no answer would be the device's.
    package func deviceLoad() throws(FirstTimeError) -> DeviceLoad {
        do {
            guard let state = try heldState() else {
                return DeviceLoad(held: FirstTimeRecords(), findings: [], resetsAll: nil, unread: false, noState: true)
            }
            return DeviceLoad(held: state.records, findings: state.findings, resetsAll: state.resetsAll, unread: false, noState: false)
        } catch {
            let findings = [error.finding]
            guard let resets = findings.resetsAll else { throw error }
            return DeviceLoad(held: FirstTimeRecords(), findings: findings, resetsAll: resets,
                              unread: StateWriter.discardedUnread(error, in: self) != nil, noState: false)
        }
    }
}
