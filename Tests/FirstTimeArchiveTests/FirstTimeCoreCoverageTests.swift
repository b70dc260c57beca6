import Testing
import FirstTimeArchive
@testable import FirstTimeCore
import PlistCore
import TestSupport

/// The records format's refusals that other tests do not reach, and the descriptions and
/// small answers of FirstTimeCore's public values.
@Suite struct FirstTimeCoreCoverage {
    func json(_ text: String) -> String? {
        do { _ = try RecordsFormat.records(fromJSON: Array(text.utf8)) } catch { return error.description }
        return nil
    }

    func plist(_ entries: [(key: String, value: PlistValue)]) -> String? {
        do { _ = try RecordsFormat.records(fromPlist: .dictionary(PlistDictionary(entries))) } catch { return error.description }
        return nil
    }

    @Test func jsonMembersOfTheWrongKind() {
        #expect(json(#"{"format": "ycfirsttime-records", "formatVersion": "1", "records": {}}"#)
                == "formatVersion: expected a number, found string")
        #expect(json(#"{"format": "ycfirsttime-records", "formatVersion": 1, "records": null}"#) == "records: expected an object, found null")
        #expect(json(#"{"format": "ycfirsttime-records", "formatVersion": 1, "records": {"k": {"lastTimeUTC": 5}}}"#)
                == #"records["k"].lastTimeUTC: expected a string or null, found number"#)
    }

    @Test func plistMembersMissingOrOfTheWrongKind() {
        #expect(plist([("formatVersion", .integer(.signed(1))), ("records", .dictionary(PlistDictionary()))])
                == #"YCFirstTime.records.format: format must be "ycfirsttime-records" (missing)"#)
        #expect(plist([("format", .string("ycfirsttime-records")), ("records", .dictionary(PlistDictionary()))])
                == "YCFirstTime.records.formatVersion: formatVersion must be 1 (missing)")
        #expect(plist([("format", .string("ycfirsttime-records")), ("formatVersion", .integer(.signed(1))),
                       ("records", .dictionary(PlistDictionary([("k", .string("x"))])))])
                == "YCFirstTime.records.records.k: expected a dictionary, found string")
    }

    @Test func aMemberOfAnotherKindOrUnknown() {
        #expect(json(#"{"format": {}, "formatVersion": 1, "records": {}}"#) == "format: expected a string, found object")
        #expect(plist([("format", .string("ycfirsttime-records")), ("formatVersion", .integer(.signed(1))),
                       ("records", .dictionary(PlistDictionary([("k", .dictionary(PlistDictionary([("lastRun", .real(1))])))])))])
                == #"YCFirstTime.records.records.k: unknown member "lastRun""#)
    }

    @Test func recordsWithARepeatedKeyAreRefused() {
        #expect(throws: FirstTimeError.duplicateKey("k", at: .key("records"))) {
            try FirstTimeRecords([(key: "k", record: FirstTimeRecord()), (key: "k", record: FirstTimeRecord(lastVersion: "1"))])
        }
    }

    @Test func descriptionsOfPublicValues() throws {
        #expect(FirstTimeRecord(lastVersion: "1.0", lastTime: 2.5).description == #"lastVersion="1.0", lastTime=2.5"#)
        #expect(FirstTimeRecord().description == "lastVersion=nil, lastTime=nil")
        #expect(records([("a", "1", nil), ("b", nil, 3)]).description == "\"a\": lastVersion=\"1\", lastTime=nil\n\"b\": lastVersion=nil, lastTime=3.0")
        #expect(StateForm.plainRecords.description == StateForm.plainRecords.rawValue)
        #expect(Severity.error < Severity.warning && !(Severity.warning < Severity.error))
    }

    /// Every rule says how the device treats what it finds, and whether a rewrite loses it.
    @Test func everyRuleAnswersItsSpec() {
        for rule in ContractRule.allCases {
            #expect(rule.device == rule.spec.device
                    && rule.rewriteLoses == (rule.spec.rewrite == .drops || rule.spec.rewrite == .replacesOnlyForced))
        }
        #expect(ContractRule.allCases.contains { $0.rewriteLoses } && ContractRule.allCases.contains { !$0.rewriteLoses })
    }
}
