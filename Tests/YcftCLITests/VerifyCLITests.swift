import Foundation
import Testing
import FirstTimeArchive
import FirstTimeCore
import Plist
import PlistCore
import TestSupport
@testable import YcftCLI

@Suite struct Verify {
    func fixture(_ path: String) throws -> [UInt8] { try readBytes(TestPaths.fixtures.appendingPathComponent(path)) }

    func fake() throws -> FakeIO {
        FakeIO(files: [
            "good.plist": try fixture("valid/ycft/three-records.plist"),
            "cycle.plist": try fixture("invalid/uid-cycle.plist"),
            "empty.plist": try fixture("valid/apple-order/no-shared-group.plist"),
            "prefs.plist": try fixture("valid/defaults/export.xml.plist"),
            "mixed.plist": try fixture("valid/apple-order/unexpected-extras.plist"),
        ])
    }

    @Test func passingFilesExitZeroWithASummary() throws {
        let io = try fake()
        #expect(io.run(["verify", "good.plist", "prefs.plist"]) == 0)
        #expect(io.stderr == "ycft verify: 2 files: 2 passed, 0 failed, 0 unreadable (0 errors, 0 warnings)\n")
        #expect(io.stdout.isEmpty)
    }

    @Test func textFindingsAreCompilerStyle() throws {
        let io = try fake()
        #expect(io.run(["verify", "cycle.plist", "good.plist", "empty.plist"]) == 1)
        #expect(io.stderr == """
        cycle.plist: error: [uid-cycle] $objects[3].NS.objects[0]: record UID 3 points back to the group that contains it
        empty.plist: warning: [group-missing] $objects[1]: no "sharedGroup": the archive records nothing
        ycft verify: 3 files: 2 passed, 1 failed, 0 unreadable (1 error, 1 warning)

        """)
        #expect(io.stdout.isEmpty)
    }

    @Test func warningsPassUnlessStrict() throws {
        let io = try fake()
        #expect(io.run(["verify", "empty.plist", "mixed.plist"]) == 0)
        let strict = try fake()
        #expect(strict.run(["verify", "--strict", "empty.plist", "mixed.plist"]) == 1)
    }

    @Test func unreadableFileIsTroubleButOthersAreStillChecked() throws {
        let io = try fake()
        #expect(io.run(["verify", "missing.plist", "cycle.plist"]) == 2)
        #expect(io.stderr.hasPrefix("ycft: missing.plist: cannot read: No such file or directory\n"))
        #expect(io.stderr.contains("cycle.plist: error: [uid-cycle]"))
    }

    @Test func json() throws {
        let io = try fake()
        #expect(io.run(["verify", "--format", "json", "cycle.plist", "good.plist"]) == 1)
        #expect(io.stdoutText == """
        {
          "formatVersion" : 1,
          "strict" : false,
          "errors" : 1,
          "warnings" : 0,
          "files" : [
            {
              "file" : "cycle.plist",
              "status" : "fail",
              "error" : null,
              "errors" : 1,
              "warnings" : 0,
              "findings" : [
                {
                  "rule" : "uid-cycle",
                  "severity" : "error",
                  "path" : "$objects[3].NS.objects[0]",
                  "message" : "record UID 3 points back to the group that contains it"
                }
              ]
            },
            {
              "file" : "good.plist",
              "status" : "pass",
              "error" : null,
              "errors" : 0,
              "warnings" : 0,
              "findings" : []
            }
          ]
        }

        """)
    }

    @Test func github() throws {
        let io = try fake()
        #expect(io.run(["verify", "--format=github", "cycle.plist", "empty.plist"]) == 1)
        #expect(io.stdoutText == """
        ::error file=cycle.plist,title=uid-cycle::$objects[3].NS.objects[0]: record UID 3 points back to the group that contains it
        ::warning file=empty.plist,title=group-missing::$objects[1]: no "sharedGroup": the archive records nothing

        """)
    }

    @Test func githubEscapesPropertiesAndData() {
        #expect(VerifyReport.property("a,b:c%\n") == "a%2Cb%3Ac%25%0A")
        #expect(VerifyReport.data("50%\r\nx") == "50%25%0D%0Ax")
    }

    @Test func junit() throws {
        let io = try fake()
        #expect(io.run(["verify", "--format", "junit", "cycle.plist", "empty.plist", "good.plist", "missing.plist"]) == 2)
        // Times vary: each is a decimal number of seconds; the rest is exact.
        #expect(junitTimesHidden(io.stdoutText) == """
        <?xml version="1.0" encoding="UTF-8"?>
        <testsuites name="ycft verify" tests="4" failures="1" errors="1" time="…">
          <testsuite name="cycle.plist" tests="1" failures="1" errors="0" time="…">
            <testcase classname="cycle.plist" name="[uid-cycle] $objects[3].NS.objects[0]: record UID 3 points back to the group that contains it">
              <failure message="[uid-cycle] $objects[3].NS.objects[0]: record UID 3 points back to the group that contains it" type="uid-cycle">error: [uid-cycle] $objects[3].NS.objects[0]: record UID 3 points back to the group that contains it</failure>
            </testcase>
          </testsuite>
          <testsuite name="empty.plist" tests="1" failures="0" errors="0" time="…">
            <testcase classname="empty.plist" name="[group-missing] $objects[1]: no &quot;sharedGroup&quot;: the archive records nothing">
              <system-out>warning: [group-missing] $objects[1]: no &quot;sharedGroup&quot;: the archive records nothing</system-out>
            </testcase>
          </testsuite>
          <testsuite name="good.plist" tests="1" failures="0" errors="0" time="…">
            <testcase classname="good.plist" name="contract"/>
          </testsuite>
          <testsuite name="missing.plist" tests="1" failures="0" errors="1" time="…">
            <testcase classname="missing.plist" name="unreadable">
              <error message="cannot read: No such file or directory" type="unreadable"/>
            </testcase>
          </testsuite>
        </testsuites>

        """, "\(io.stdoutText)")
    }

    /// Findings group by file: one suite holds each file's cases, a case per finding; with
    /// --strict a warning fails its case.
    @Test func junitGroupsTwoFilesFindings() throws {
        let io = try fake()
        #expect(io.run(["verify", "--format", "junit", "--strict", "mixed.plist", "empty.plist"]) == 1)
        let xml = try #require(junitTimesHidden(io.stdoutText), "\(io.stdoutText)")
        let suites = xml.split(separator: "\n").filter { $0.hasPrefix("  <testsuite ") }
        #expect(suites.count == 2)
        #expect(suites.first?.hasPrefix(#"  <testsuite name="mixed.plist" tests=""#) == true)
        #expect(suites.last == #"  <testsuite name="empty.plist" tests="1" failures="1" errors="0" time="…">"#)
        let mixed = xml.components(separatedBy: "</testsuite>")[0]
        let cases = mixed.components(separatedBy: "<testcase ").count - 1
        #expect(cases > 1, "\(xml)")
        #expect(mixed.components(separatedBy: #"<testcase classname="mixed.plist" "#).count - 1 == cases)
        #expect(mixed.contains(#"<testsuite name="mixed.plist" tests="\#(cases)" failures="\#(cases)" errors="0""#), "\(xml)")
        // The run's time is the files' together; each is a number of seconds.
        let times = io.stdoutText.matches(of: /\ time="([0-9.]+)"/).compactMap { Double($0.output.1) }
        #expect(times.count == 3 && times.allSatisfy { $0 >= 0 })
        #expect(abs(times[0] - times[1] - times[2]) < 0.0015)
        #expect(junitTimesHidden(#"<testsuite time="-1">"#) == nil && junitTimesHidden(#"<testsuite time="">"#) == nil)
    }

    @Test func usage() throws {
        let io = try fake()
        #expect(io.run(["verify"]) == 2)
        #expect(io.stderr.hasPrefix("Error: Missing expected argument 'PATH...'\n"))
        let bad = try fake()
        #expect(bad.run(["verify", "--format", "xml", "good.plist"]) == 2)
    }

    @Test func everyRuleIsListedInHelp() {
        for rule in ContractRule.allCases {
            #expect(YcftCLI.Help.text(.verify).contains("  \(rule.rawValue) (\(rule.severity.rawValue))"))
        }
    }
}

@Suite struct ReadmeRuleTable {
    /// docs/rules.md's rule table is the code's (`ContractRule.spec`), word for word.
    /// `UPDATE_README=1 swift test --filter ReadmeRuleTable` rewrites it.
    @Test func readmeShowsTheRuleTable() throws {
        let url = TestPaths.packageRoot.appendingPathComponent("docs/rules.md")
        var readme = try String(contentsOf: url, encoding: .utf8)
        let table = YcftCLI.Help.ruleTableMarkdown
        if ProcessInfo.processInfo.environment["UPDATE_README"] == "1",
           let start = readme.range(of: "this copy equal to it.\n\n"),
           // The table ends at the first blank line; the text after it stays.
           let end = readme.range(of: "\n\n", range: start.upperBound..<readme.endIndex) {
            readme.replaceSubrange(start.upperBound..<readme.index(after: end.lowerBound), with: table)
            try readme.write(to: url, atomically: true, encoding: .utf8)
        }
        #expect(readme.contains(table))
        #expect(table.split(separator: "\n").count == ContractRule.allCases.count + 2)
    }
}
