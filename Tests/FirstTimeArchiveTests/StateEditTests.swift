import Foundation
import Testing
import FirstTimeArchive
import FirstTimeCore
import Plist
import PlistCore
import TestSupport

/// The library's writers apply the rules the tool's commands apply (`StateEdit`), and read
/// what the device loads as the one answer (`DeviceLoad`) says.
@Suite struct LibraryWritesKeepTheToolsRules {
    /// A defaults file holding the archive of an NSDictionary root, which YCFirstTime discards.
    func discardedStateFile() throws -> (path: String, bytes: [UInt8], finding: ContractFinding) {
        let archive = try readBytes(TestPaths.fixtures.appendingPathComponent("valid/apple-order/immutable-root.plist"))
        let bytes = try PropertyList.write(.dictionary(PlistDictionary([("Theme", .string("dark")), ("YCFirstTime", .data(archive))])),
                                           format: .binary)
        let path = try TestPaths.temporaryDirectory().appendingPathComponent("p.plist")
        try writeBytes(bytes, to: path)
        let finding = try #require(try StateFile(bytes).state().resetsAll)
        return (path.path, bytes, finding)
    }

    /// `StateFile.update` refuses to change a state the device discards, as `ycft set` does
    /// without --force: written back repaired, its records would come back on the device.
    @Test func updateRefusesAStateTheDeviceDiscards() throws {
        let (path, bytes, finding) = try discardedStateFile()
        #expect(finding.rule == .rootImmutable)
        #expect(throws: FirstTimeError.inFile(path: path, .discarded(finding))) {
            try StateFile.update(at: path) { $0["tour"] = FirstTimeRecord(lastVersion: "2.0", lastTime: 757_414_800) }
        }
        #expect(try readBytes(URL(fileURLWithPath: path)) == bytes)
        #expect("\(FirstTimeError.discarded(finding))" == "YCFirstTime discards this state on the device ([root-immutable] "
                + "\(finding.located)), so every gate runs again there; a change here would bring its records back")
    }

    /// The store reads a bare archive (as earlier versions of it kept) as the device loads it: an
    /// archive YCFirstTime discards gives no records, as the same archive under the key does.
    @Test func theStoreLoadsABareDiscardedArchiveAsNoRecords() throws {
        let archive = try readBytes(TestPaths.fixtures.appendingPathComponent("valid/apple-order/immutable-root.plist"))
        #expect(try StateFile(archive).state().records.map(\.key) == ["k"])
        let path = try TestPaths.temporaryDirectory().appendingPathComponent("bare.plist")
        try writeBytes(archive, to: path)
        #expect(try FirstTimeStore(path: path.path).records == FirstTimeRecords())
        let (keyed, _, _) = try discardedStateFile()
        #expect(try FirstTimeStore(path: keyed).records == FirstTimeRecords())
    }
}
