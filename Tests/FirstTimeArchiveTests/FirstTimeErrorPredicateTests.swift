import Foundation
import Testing
import FileErrors
import FirstTimeArchive
import FirstTimeCore
import PlistCore
import TestSupport

/// What a caller asks a `FirstTimeError` (`isDiscarded`, `plistReadError`, ...) is answered for
/// the error itself and for it in whichever file `inFile` names, so that no caller matches
/// nested cases by hand.
@Suite struct FirstTimeErrorPredicates {
    /// One error of every case (`inFile` aside), with the predicates that hold for it.
    static func samples() throws -> [(error: FirstTimeError, holds: Set<String>)] {
        let finding = ContractFinding(.rootImmutable, at: .file, "an NSDictionary root")
        let nodes = PlistError.tooManyNodes(expanded: 9, limit: 1)
        let jsonError = try #require(throws: FirstTimeError.self) { try RecordsFormat.records(fromJSON: Array("{".utf8)) }
        return [
            (.archive(.plist(nodes)), ["isNotPropertyList", "plistReadError"]),
            (.archive(.missingNull), []),
            (.contract(finding), []),
            (.notDefaults(found: .array), []),
            (.duplicateKey("k", at: .key("records")), []),
            (.keyNotFound("k"), []),
            (.notArchiveData(key: "k", found: .string), ["isNotStateUnderKey"]),
            (.embeddedNotPlist(key: "k", nodes), ["isNotStateUnderKey", "plistReadError"]),
            (.notStateArchive(key: "k", .contract(finding)), ["isNotStateUnderKey"]),
            (jsonError, []),
            (.recordsFormat(.missingRecords, at: .topLevel), []),
            (.plist(nodes), []),
            (.file(FileError(.read, "p", .isDirectory)), []),
            // A save refused because the load failed is not the load's error.
            (.notLoaded(.discarded(finding)), []),
            (.intervalKeysHoldNoVersion(keys: ["k"]), ["isBeyondIntervalKeys"]),
            (.intervalKeysHoldNoTimelessRecord(keys: ["k"]), ["isBeyondIntervalKeys"]),
            (.archiveBesideState(form: .plainRecords, key: "k"), []),
            (.noUserDefaultsForm(.uid, at: .key("k")), []),
            (.equivalentKeys("e\u{301}", "\u{E9}", at: .topLevel), []),
            (.onlyOtherData(finding), ["isOnlyOtherData"]),
            (.discarded(finding), ["isDiscarded"]),
        ]
    }

    /// The predicates that hold for `error`, by name.
    static func holding(_ error: FirstTimeError) -> Set<String> {
        let answers: [(String, Bool)] = [
            ("isDiscarded", error.isDiscarded), ("isOnlyOtherData", error.isOnlyOtherData),
            ("isBeyondIntervalKeys", error.isBeyondIntervalKeys), ("isNotStateUnderKey", error.isNotStateUnderKey),
            ("isNotPropertyList", error.isNotPropertyList), ("plistReadError", error.plistReadError != nil),
        ]
        return Set(answers.filter(\.1).map(\.0))
    }

    /// Each predicate holds for its cases and no other, in a file (twice named) as well.
    @Test func eachHoldsForItsCasesWhicheverFileItNames() throws {
        let samples = try Self.samples()
        #expect(samples.count == 21)
        for (error, holds) in samples {
            for asked in [error, .inFile(path: "a.plist", error), .inFile(path: "a.plist", .inFile(path: "b.plist", error))] {
                #expect(Self.holding(asked) == holds, "\(asked)")
            }
        }
        #expect(FirstTimeError.inFile(path: "p", .embeddedNotPlist(key: "k", .tooDeep(limit: 2))).plistReadError == .tooDeep(limit: 2))
        #expect(FirstTimeError.archive(.plist(.empty)).plistReadError == .empty)
    }

    /// The library's own errors answer as their doc comments say: a change of a state the
    /// device discards, bytes that are no property list, a version for IntervalClient's keys.
    @Test func theLibrarysErrorsAnswer() throws {
        let directory = try TestPaths.temporaryDirectory()
        let archive = try readBytes(TestPaths.fixtures.appendingPathComponent("valid/apple-order/immutable-root.plist"))
        let discarded = directory.appendingPathComponent("discarded.plist")
        try writeBytes(try PropertyList.write(.dictionary(PlistDictionary([("YCFirstTime", .data(archive))])), format: .binary), to: discarded)
        let refused = try #require(throws: FirstTimeError.self) {
            try StateFile.update(at: discarded.path) { $0["tour"] = FirstTimeRecord(lastVersion: "2.0", lastTime: 757_414_800) }
        }
        #expect(Self.holding(refused) == ["isDiscarded"])

        let junk = try #require(throws: FirstTimeError.self) { try StateFile(Array("hello".utf8)) }
        #expect(Self.holding(junk) == ["isNotPropertyList", "plistReadError"])
        #expect(junk.plistReadError == .unknownFormat)

        let interval = directory.appendingPathComponent("interval.plist")
        try writeBytes(try PropertyList.write(.dictionary(PlistDictionary([("interval.a", .real(10 + IntervalKey.epochOffset))])), format: .binary), to: interval)
        let beyond = try #require(throws: FirstTimeError.self) {
            try StateFile.update(at: interval.path) { $0["a"] = FirstTimeRecord(lastVersion: "1", lastTime: 5) }
        }
        #expect(beyond == .inFile(path: interval.path, .intervalKeysHoldNoVersion(keys: ["a"])))
        #expect(Self.holding(beyond) == ["isBeyondIntervalKeys"])
    }
}
