import Testing
@testable import FirstTimeCore
import PlistCore

/// Answers of FirstTimeCore no other test asks for: error texts and findings of the rarer
/// cases, the other defaults domains' names, and the run rules at their edges.
@Suite struct FirstTimeCoreCoverage2 {
    @Test func anIntegerBeyond64BitsHasNoUserDefaultsForm() {
        #expect(FirstTimeError.noUserDefaultsForm(.integer, at: .key("k")).description
                == "k: an integer beyond 64 bits has no UserDefaults form")
    }

    /// Only plist, archive and contract errors name the key they were read under.
    @Test func anErrorOfNoArchiveIsTheSameUnderAKey() {
        #expect(FirstTimeError.keyNotFound("k").embedded(under: "YCFirstTime") == .keyNotFound("k"))
    }

    @Test func recordsErrorsBreakTheRecordsFormatRule() throws {
        #expect(FirstTimeError.duplicateKey("k", at: .key("records")).finding
                == ContractFinding(.recordsFormat, at: .key("records"), #"duplicate block key "k""#))
        let thrown = #expect(throws: FirstTimeError.self) { try RecordsFormat.records(fromJSON: Array("{".utf8)) }
        guard case let .json(jsonError)? = thrown else { Issue.record("not a JSON error: \(String(describing: thrown))"); return }
        #expect(try #require(thrown).finding == ContractFinding(.recordsFormat, at: .file, jsonError.description))
    }

    @Test func theOtherDomainsAreNamed() {
        #expect(Migration.Failure.OtherDomain.registration.description == "the registration domain (register(defaults:))")
        #expect(Migration.Failure.OtherDomain.global.description == "the global domain")
        #expect(Migration.Failure.setElsewhere(key: "k", domain: .global).description
                == #""k" is also set in the global domain, where removeObject(forKey:) does not remove it, "#
                + "so the app would go on reading it; remove it there first, or migrate with keepSource")
    }

    @Test func migrationFailuresOfFoundationAndOfNoArchive() {
        #expect(Migration.Failure.unreadable(.keyNotFound("k"), archiveKey: nil).description
                == #"no "k" key: not a YCFirstTime archive or a defaults file holding one"#)
        let finding = ContractFinding(.timeType, at: .key("root"), "m")
        #expect(Migration.Failure.foundationReadsDifferently(key: "YCFirstTime", finding).description
                == "YCFirstTime: Foundation's NSKeyedUnarchiver reads this archive differently from ycft: root: m")
        #expect(Migration.Failure.foundationRefuses(key: "YCFirstTime", "why").description
                == "YCFirstTime: Foundation's NSKeyedUnarchiver refuses this archive (why), so YCFirstTime would start afresh")
    }

    @Test func aDaysRuleNeedsANumber() {
        #expect(GateRule(parsing: "days:x") == nil)
        #expect(GateRule(parsing: "days:1.5") == .everyDays(1.5))
    }

    /// From -infinity a rule due everywhere is due at the lowest finite instant; a rule due
    /// from zero on gives positive zero, not -0.0.
    @Test func theEarliestInstantAtItsEdges() throws {
        #expect(RunRules.earliest(after: -.infinity) { _ in true } == -.greatestFiniteMagnitude)
        let zero = try #require(RunRules.earliest(after: -1) { $0 >= 0 })
        #expect(zero == 0 && zero.sign == .plus)
    }
}
