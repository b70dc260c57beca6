import Foundation
import Testing
import FirstTimeCore
import FirstTimeMigration
import PlistCore

/// `Migration.records(in:)` answers as the app loads (`DeviceLoad`): a value under the
/// archive key that is not data is no state to YCFirstTime (`UserDefaults.data(forKey:)` is
/// nil), so it starts afresh; before, the read threw.
@Suite struct RecordsInDefaultsAnswerAsTheDevice {
    @Test func aValueThatIsNotDataIsTheEmptyStateWithItsFinding() throws {
        try TestDomain.with([("YCFirstTime", .string("oops")), ("Theme", .string("dark"))]) { domain in
            let state = try #require(try Migration.records(in: domain.defaults))
            let finding = ContractFinding(.stateNotData, at: .file, "\"YCFirstTime\" holds a string, not archive data: "
                                          + "UserDefaults.data(forKey:) is nil for it, so the app starts afresh and its next save replaces it")
            #expect(state == FirstTimeState(records: FirstTimeRecords(), form: .defaultsArchive, forms: [.defaultsArchive], findings: [finding]))
            #expect(state.resetsAll == finding)
        }
        // A fatal one still throws: no answer would be the device's own reading.
        try TestDomain.with([("YCFirstTime", .data(Array("not a plist".utf8)))]) { domain in
            #expect(throws: Migration.Failure.self) { try Migration.records(in: domain.defaults) }
        }
    }
}
