import Foundation
import Testing
import TestSupport

/// `verify --format github` names the line of each finding in an XML file (`line=N`), from the
/// one locator (`XMLPlistLines`); binary files and findings on the whole file have none. Run on
/// the built binary.
@Suite struct VerifyGitHubLines {
    let ycft = TestPaths.executable("ycft")

    /// An XML archive, one line per object but for `$objects[7]`, an NSDate whose `NS.time` is
    /// a string; the root has a key beside `sharedGroup`. Line N is `archive[N - 1]`.
    static let archive = [
        #"<?xml version="1.0" encoding="UTF-8"?>"#,  // 1
        #"<plist version="1.0">"#,  // 2
        "<dict>",  // 3
        "<key>$archiver</key><string>NSKeyedArchiver</string>",  // 4
        "<key>$version</key><integer>100000</integer>",  // 5
        "<key>$top</key><dict><key>root</key><dict><key>CF$UID</key><integer>1</integer></dict></dict>",  // 6
        "<key>$objects</key>",  // 7
        "<array>",  // 8
        "<string>$null</string>",  // 9: $objects[0]
        "<dict><key>NS.keys</key><array>\(uid(2))\(uid(11))</array><key>NS.objects</key><array>\(uid(3))\(uid(12))</array><key>$class</key>\(uid(10))</dict>",  // 10: [1] root
        "<string>sharedGroup</string>",  // 11: [2]
        "<dict><key>NS.keys</key><array>\(uid(4))</array><key>NS.objects</key><array>\(uid(5))</array><key>$class</key>\(uid(10))</dict>",  // 12: [3]
        "<string>onboarding.v1</string>",  // 13: [4]
        "<dict><key>lastVersion</key>\(uid(6))<key>lastTime</key>\(uid(7))<key>$class</key>\(uid(9))</dict>",  // 14: [5]
        "<string>2.1.0</string>",  // 15: [6]
        "<dict>",  // 16: [7]
        "<key>NS.time</key>",  // 17
        "<string>soon</string>",  // 18: [7].NS.time
        "<key>$class</key>\(uid(8))",  // 19
        "</dict>",  // 20
        "<dict><key>$classname</key><string>NSDate</string><key>$classes</key><array><string>NSDate</string><string>NSObject</string></array></dict>",  // 21: [8]
        "<dict><key>$classname</key><string>YCFirstTimeObject</string><key>$classes</key><array><string>YCFirstTimeObject</string><string>NSObject</string></array></dict>",  // 22: [9]
        "<dict><key>$classname</key><string>NSMutableDictionary</string><key>$classes</key><array><string>NSMutableDictionary</string><string>NSDictionary</string><string>NSObject</string></array></dict>",  // 23: [10]
        "<string>note</string>",  // 24: [11]
        "<string>hello</string>",  // 25: [12]
        "</array>",  // 26
        "</dict>",  // 27
        "</plist>",  // 28
    ]

    static func uid(_ n: Int) -> String { "<dict><key>CF$UID</key><integer>\(n)</integer></dict>" }

    /// An exported defaults file (line N is `lines[N - 1]`) with `entries` after its first key (line 6 on).
    static func defaults(_ entries: [String]) -> String {
        ([#"<?xml version="1.0" encoding="UTF-8"?>"#, #"<plist version="1.0">"#, "<dict>",
          "\t<key>LaunchCount</key>", "\t<integer>42</integer>"] + entries + ["</dict>", "</plist>"]).joined(separator: "\n") + "\n"
    }

    func scratch(_ files: [(String, [UInt8])]) throws -> URL {
        let dir = try TestPaths.temporaryDirectory()
        for (name, bytes) in files { try writeBytes(bytes, to: dir.appendingPathComponent(name)) }
        return dir
    }

    /// `ycft verify OPTIONS DIR/NAME...`: the status, and standard output with `DIR/` taken out.
    func verify(_ options: [String], _ names: [String], in dir: URL) throws -> (status: Int32, stdout: String) {
        let result = try runProcess(ycft, ["verify"] + options + names.map { dir.appendingPathComponent($0).path })
        return (result.status, result.stdoutText.replacingOccurrences(of: dir.path + "/", with: ""))
    }

    @Test func anXMLArchivesFindingsNameTheirElementsLines() throws {
        let dir = try scratch([("archive.plist", Array((Self.archive.joined(separator: "\n") + "\n").utf8))])
        let result = try verify(["--format", "github"], ["archive.plist"], in: dir)
        #expect(result.status == 1)
        #expect(result.stdout == """
        ::warning file=archive.plist,line=10,title=root-extra-key::$objects[1]: root key "note" is not "sharedGroup": YCFirstTime ignores it and keeps it
        ::error file=archive.plist,line=18,title=time-type::$objects[7].NS.time: expected real, found string

        """)
        // CRLF line ends count once.
        let crlf = try scratch([("archive.plist", Array(Self.archive.joined(separator: "\r\n").utf8))])
        #expect(try verify(["--format", "github"], ["archive.plist"], in: crlf).stdout == result.stdout)
    }

    @Test func aDefaultsFilesArchiveFindingsNameTheDataLineItsKeysTheirOwn() throws {
        let data = try readBytes(TestPaths.fixtures.appendingPathComponent("valid/apple-order/no-shared-group.plist"))
        let held = Self.defaults(["\t<key>YCFirstTime</key>", "\t<data>\(Data(data).base64EncodedString())</data>"])  // data: line 7
        let settings = Self.defaults(["\t<key>Theme</key>", "\t<string>dark</string>", "\t<key>YCFirstTime</key>",
                                      "\t<data>", "\t\(Data(data).base64EncodedString())", "\t</data>"])  // data: line 9
        let interval = Self.defaults(["\t<key>interval.onboarding</key>", "\t<string>soon</string>"])  // value: line 7
        let dir = try scratch([("held.plist", Array(held.utf8)), ("settings.plist", Array(settings.utf8)),
                               ("interval.plist", Array(interval.utf8))])
        let result = try verify(["--format", "github"], ["held.plist", "settings.plist", "interval.plist"], in: dir)
        #expect(result.status == 1)
        #expect(result.stdout == """
        ::warning file=held.plist,line=7,title=group-missing::$objects[1]: no "sharedGroup": the archive records nothing
        ::warning file=settings.plist,line=9,title=group-missing::$objects[1]: no "sharedGroup": the archive records nothing
        ::error file=interval.plist,line=7,title=interval-value::interval.onboarding: holds string, not a number IntervalClient can read: its gate runs as if it never ran

        """)
        // Under another --key, the data of that key.
        let other = Self.defaults(["\t<key>YCFirstTime</key>", "\t<string>not this</string>",
                                   "\t<key>state</key>", "\t<data>\(Data(data).base64EncodedString())</data>"])  // data: line 9
        let keyed = try scratch([("other.plist", Array(other.utf8))])
        #expect(try verify(["--format", "github", "--key", "state"], ["other.plist"], in: keyed).stdout
            == "::warning file=other.plist,line=9,title=group-missing::$objects[1]: no \"sharedGroup\": the archive records nothing\n")
    }

    @Test func plainRecordsFindingsNameTheirElementsLines() throws {
        let records = Self.defaults([
            "\t<key>YCFirstTime.records</key>",  // 6
            "\t<dict>",  // 7
            "\t\t<key>format</key><string>ycfirsttime-records</string>",  // 8
            "\t\t<key>formatVersion</key><integer>1</integer>",  // 9
            "\t\t<key>records</key>",  // 10
            "\t\t<dict>",  // 11
            "\t\t\t<key>onboarding</key>",  // 12
            "\t\t\t<dict>",  // 13
            "\t\t\t\t<key>lastVersion</key><string>2.1.0</string>",  // 14
            "\t\t\t\t<key>lastTime</key>",  // 15
            "\t\t\t\t<string>soon</string>",  // 16
            "\t\t\t</dict>",  // 17
            "\t\t</dict>",  // 18
            "\t</dict>",  // 19
        ])
        let dir = try scratch([("records.plist", Array(records.utf8))])
        let result = try verify(["--format", "github"], ["records.plist"], in: dir)
        #expect(result.status == 1)
        #expect(result.stdout == "::error file=records.plist,line=16,title=records-format::YCFirstTime.records.records.onboarding.lastTime: expected a real, found string\n")
    }

    @Test func binaryFilesAndFindingsOnTheWholeFileHaveNoLine() throws {
        let cycle = try readBytes(TestPaths.fixtures.appendingPathComponent("invalid/uid-cycle.plist"))
        let nothing = Self.defaults([])
        var broken = Self.archive
        broken[17] = "<string>soon</strin>"
        let dir = try scratch([("cycle.plist", cycle), ("nothing.plist", Array(nothing.utf8)),
                               ("broken.plist", Array(broken.joined(separator: "\n").utf8))])
        let result = try verify(["--format", "github"], ["cycle.plist", "nothing.plist", "broken.plist"], in: dir)
        #expect(result.status == 1)
        #expect(result.stdout == """
        ::error file=cycle.plist,title=uid-cycle::$objects[3].NS.objects[0]: record UID 3 points back to the group that contains it
        ::error file=nothing.plist,title=state-missing::file: no "YCFirstTime" key: not a YCFirstTime archive or a defaults file holding one
        ::error file=broken.plist,title=plist-unreadable::file: malformed XML plist: <string> holds markup; only text is allowed (at line 18)

        """)
    }
}

/// `verify --format junit` on the built binary: a suite per file, each with its time.
@Suite struct VerifyJUnitSuites {
    @Test func twoFilesAreTwoSuitesEachTimed() throws {
        let lines = VerifyGitHubLines()
        let dir = try lines.scratch([("archive.plist", Array((VerifyGitHubLines.archive.joined(separator: "\n") + "\n").utf8)),
                                     ("good.plist", try readBytes(TestPaths.fixtures.appendingPathComponent("valid/ycft/three-records.plist")))])
        let result = try lines.verify(["--format", "junit"], ["archive.plist", "good.plist"], in: dir)
        #expect(result.status == 1)
        let times = result.stdout.matches(of: /\ time="([^"]*)"/).map { String($0.output.1) }
        #expect(times.count == 3, "\(result.stdout)")
        #expect(times.allSatisfy { $0.wholeMatch(of: /[0-9]+\.[0-9]{3}/) != nil && (Double($0) ?? -1) >= 0 }, "\(times)")
        #expect(junitTimesHidden(result.stdout) == """
        <?xml version="1.0" encoding="UTF-8"?>
        <testsuites name="ycft verify" tests="3" failures="1" errors="0" time="…">
          <testsuite name="archive.plist" tests="2" failures="1" errors="0" time="…">
            <testcase classname="archive.plist" name="[root-extra-key] $objects[1]: root key &quot;note&quot; is not &quot;sharedGroup&quot;: YCFirstTime ignores it and keeps it">
              <system-out>warning: [root-extra-key] $objects[1]: root key &quot;note&quot; is not &quot;sharedGroup&quot;: YCFirstTime ignores it and keeps it</system-out>
            </testcase>
            <testcase classname="archive.plist" name="[time-type] $objects[7].NS.time: expected real, found string">
              <failure message="[time-type] $objects[7].NS.time: expected real, found string" type="time-type">error: [time-type] $objects[7].NS.time: expected real, found string</failure>
            </testcase>
          </testsuite>
          <testsuite name="good.plist" tests="1" failures="0" errors="0" time="…">
            <testcase classname="good.plist" name="contract"/>
          </testsuite>
        </testsuites>

        """)
    }

    /// A file name holding U+FFFF (a noncharacter XML 1.0 refuses) is escaped in the report,
    /// which then parses; it used to be written raw.
    @Test func aNoncharacterInANameIsEscaped() throws {
        let lines = VerifyGitHubLines()
        let name = "f\u{FFFF}.plist"
        let dir = try lines.scratch([(name, try readBytes(TestPaths.fixtures.appendingPathComponent("invalid/wrong-time-type.plist")))])
        let result = try lines.verify(["--format", "junit"], [name], in: dir)
        #expect(result.status == 1)
        #expect(!result.stdout.unicodeScalars.contains { $0.value == 0xFFFF }, "\(result.stdout)")
        #expect(result.stdout.contains(#"<testsuite name="f\u{FFFF}.plist""#), "\(result.stdout)")
        let github = try lines.verify(["--format", "github"], [name], in: dir)
        #expect(!github.stdout.unicodeScalars.contains { $0.value == 0xFFFF })
    }
}
