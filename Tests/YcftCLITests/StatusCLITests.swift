import Foundation
import Testing
import FirstTimeArchive
import FirstTimeCore
import OrderedJSON
import Plist
import PlistCore
import TestSupport
@testable import YcftCLI

@Suite struct Status {
    func fixture(_ path: String) throws -> [UInt8] { try readBytes(TestPaths.fixtures.appendingPathComponent(path)) }

    let args = ["status", "--now", "2025-02-01T01:00:00+01:00", "--time-zone", "Europe/Paris", "--app-version", "2.1.0",
                "--gate", "onboarding.v1=once", "--gate", "rate.prompt=days:30", "--gate", "whats-new=per-version",
                "--gate", "onboarding.v1=monthly", "--gate", "new.gate=weekly"]

    @Test func textGolden() throws {
        let io = FakeIO(files: ["p.plist": try fixture("valid/defaults/export.binary.plist")])
        #expect(io.run(args + ["p.plist"]) == 0)
        #expect(io.stdoutText == """
        now 2025-02-01T00:00:00.000000Z = 2025-02-01T01:00:00.000000+01:00 (Europe/Paris), app version "2.1.0"

        KEY            LAST VERSION  LAST TIME (UTC)              LAST TIME (Europe/Paris)          AGE
        onboarding.v1  2.1.0         2025-01-01T09:00:00.123456Z  2025-01-01T10:00:00.123456+01:00  30d 14h 59m
        rate.prompt    2.0.0         2024-10-07T13:20:00.000000Z  2024-10-07T15:20:00.000000+02:00  116d 10h 40m
        whats-new      -             -                            -                                 -

        GATE                  RULE                   RUNS NOW  NEXT ELIGIBLE (UTC)
        onboarding.v1         once                   no        never
        rate.prompt           days:30 (2592000.0 s)  yes       2025-02-01T00:00:00.000000Z
        whats-new             per-version            yes       2025-02-01T00:00:00.000000Z
        onboarding.v1         monthly                no        2025-02-01T09:00:00.123456Z
        new.gate (never run)  weekly                 yes       2025-02-01T00:00:00.000000Z

        """)
    }

    @Test func jsonGolden() throws {
        let io = FakeIO(files: ["p.plist": try fixture("valid/defaults/export.binary.plist")])
        #expect(io.run(args + ["--format", "json", "p.plist"]) == 0)
        #expect(io.stdoutText == """
        {
          "formatVersion" : 1,
          "now" : "2025-02-01T00:00:00.000000Z",
          "timeZone" : "Europe/Paris",
          "library" : "2.x",
          "calendar" : {
            "identifier" : "gregorian",
            "locale" : null,
            "firstWeekday" : 1,
            "minimumDaysInFirstWeek" : 1
          },
          "appVersion" : "2.1.0",
          "warnings" : [],
          "noState" : false,
          "deviceResetsAll" : null,
          "records" : [
            {
              "key" : "onboarding.v1",
              "lastVersion" : "2.1.0",
              "lastTime" : 757414800.123456,
              "lastTimeUTC" : "2025-01-01T09:00:00.123456Z",
              "ageSeconds" : 2645999.8765439987
            },
            {
              "key" : "rate.prompt",
              "lastVersion" : "2.0.0",
              "lastTime" : 750000000.0,
              "lastTimeUTC" : "2024-10-07T13:20:00.000000Z",
              "ageSeconds" : 10060800.0
            },
            {
              "key" : "whats-new",
              "lastVersion" : null,
              "lastTime" : null,
              "lastTimeUTC" : null,
              "ageSeconds" : null
            }
          ],
          "gates" : [
            {
              "key" : "onboarding.v1",
              "rule" : "once",
              "intervalSeconds" : null,
              "wouldRun" : false,
              "nextEligible" : null,
              "nextEligibleUTC" : null
            },
            {
              "key" : "rate.prompt",
              "rule" : "days:30",
              "intervalSeconds" : 2592000.0,
              "wouldRun" : true,
              "nextEligible" : 760060800.0,
              "nextEligibleUTC" : "2025-02-01T00:00:00.000000Z"
            },
            {
              "key" : "whats-new",
              "rule" : "per-version",
              "intervalSeconds" : null,
              "wouldRun" : true,
              "nextEligible" : 760060800.0,
              "nextEligibleUTC" : "2025-02-01T00:00:00.000000Z"
            },
            {
              "key" : "onboarding.v1",
              "rule" : "monthly",
              "intervalSeconds" : null,
              "wouldRun" : false,
              "nextEligible" : 760093200.123456,
              "nextEligibleUTC" : "2025-02-01T09:00:00.123456Z"
            },
            {
              "key" : "new.gate",
              "rule" : "weekly",
              "intervalSeconds" : null,
              "wouldRun" : true,
              "nextEligible" : 760060800.0,
              "nextEligibleUTC" : "2025-02-01T00:00:00.000000Z"
            }
          ]
        }

        """)
    }

    @Test func migratedFilesGiveTheSameAnswers() throws {
        let original = try fixture("valid/defaults/export.binary.plist")
        let toRecords = try Migration.migrate(original, to: .records).output!
        let toInterval = try Migration.migrate(original, to: .interval, options: .init(dropVersions: true)).output!
        func run(_ bytes: [UInt8]) -> String {
            let io = FakeIO(files: ["p.plist": bytes])
            _ = io.run(["status", "--format", "json", "--now", "2025-02-01T00:00:00Z", "--gate", "rate.prompt=days:30",
                        "--gate", "onboarding.v1=monthly", "p.plist"])
            return io.stdoutText
        }
        let fromArchive = run(original)
        #expect(run(toRecords) == fromArchive)
        // interval keys lose the versions, not the answers for time-based gates.
        let fromInterval = run(toInterval)
        #expect(fromInterval.contains(#""rule" : "days:30",\#n      "intervalSeconds" : 2592000.0,\#n      "wouldRun" : true"#))
        #expect(fromInterval.contains(#""nextEligibleUTC" : "2025-02-01T09:00:00.123456Z""#))
    }

    @Test func usage() {
        for (arguments, message) in [
            (["status", "--gate", "k=sometimes", "f"], "Error: The value 'k=sometimes' is invalid for '--gate <key=rule>'"),
            (["status", "--now", "yesterday", "f"], "Error: The value 'yesterday' is invalid for '--now <time>'"),
            (["status", "--time-zone", "Mars/Olympus", "f"], "Error: The value 'Mars/Olympus' is invalid for '--time-zone <zone>'"),
        ] {
            let io = FakeIO()
            #expect(io.run(arguments) == 2)
            #expect(io.stderr.hasPrefix(message))
        }
    }

    @Test func parsesOffsets() {
        #expect(ExactTime.parseInstant("2025-02-01T01:00:00+01:00") == ExactTime.parseInstant("2025-02-01T00:00:00Z"))
        #expect(ExactTime.parseInstant("2025-01-31T19:30:00.5-04:30") == ExactTime.parseInstant("2025-02-01T00:00:00.5Z"))
        #expect(ExactTime.parseInstant("2025-02-01T00:00:00") == nil)
    }
}

@Suite struct StoreFilesThroughTheTool {
    @Test(arguments: [nil, PlistFormat.binary, .xml])
    func dumpAndStatusReadWhatTheStoreWrites(_ plainRecords: PlistFormat?) throws {
        let file = try TestPaths.temporaryDirectory().appendingPathComponent("state.plist").path
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let store = try FirstTimeStore(path: file, plainRecords: plainRecords, calendar: calendar)
        store.versionProvider = { "3.1" }
        store.nowProvider = { Date(timeIntervalSinceReferenceDate: 757_414_800.123456) }
        try store.executeOnce({}, forKey: "onboarding")
        let io = FakeIO(files: ["s": try readBytes(URL(fileURLWithPath: file))])
        #expect(io.run(["dump", "--compact", "s"]) == 0)
        #expect(io.stdoutText == #"{"format":"ycfirsttime-records","formatVersion":1,"records":{"onboarding":{"lastTime":757414800.123456,"lastTimeUTC":"2025-01-01T09:00:00.123456Z","lastVersion":"3.1"}}}"# + "\n")
        let status = FakeIO(files: ["s": try readBytes(URL(fileURLWithPath: file))])
        #expect(status.run(["status", "--format", "json", "--now", "2025-01-02T00:00:00Z", "--gate", "onboarding=once", "s"]) == 0)
        #expect(status.stdoutText.contains(#""wouldRun" : false"#))
    }
}

/// IntervalClient's fallbacks and YCFirstTime's interval rule, as `ycft status` answers them.
@Suite struct StatusSemantics {
    @Test func aNonNumberIntervalValueRunsTheGateWithAWarning() throws {
        let file = try PropertyList.write(.dictionary(PlistDictionary([
            ("interval.text", .string("soon")), ("interval.int", .integer(.signed(1_748_779_200))),
        ])), format: .binary)
        let io = FakeIO(files: ["p.plist": file])
        #expect(io.run(["status", "--now", "2025-06-01T13:00:00Z", "--gate", "text=daily", "--gate", "int=hourly", "p.plist"]) == 0)
        #expect(io.stderr == #"ycft: p.plist: warning: [interval-value] interval.text: holds string, not a number IntervalClient can read: its gate runs as if it never ran"# + "\n")
        #expect(io.stdoutText.hasSuffix("""
        GATE              RULE    RUNS NOW  NEXT ELIGIBLE (UTC)
        text (never run)  daily   yes       2025-06-01T13:00:00.000000Z
        int               hourly  yes       2025-06-01T13:00:00.000000Z

        """))
    }

    /// A gate named close to a record that is there but like none is said on standard error:
    /// its answer ("never run", runs now) is for a gate the app may not have, most often a typo.
    /// A gate no record is close to (a new one) is answered without a word, as before.
    @Test func aGateNamedCloseToARecordIsSaidToBeMistyped() throws {
        let io = FakeIO(files: ["p.plist": try readBytes(TestPaths.fixtures.appendingPathComponent("valid/defaults/export.binary.plist"))])
        #expect(io.run(["status", "--now", "2025-02-01T00:00:00Z", "--gate", "onbaording.v1=once", "--gate", "new.gate=weekly",
                        "--gate", "rate.prompt=days:30", "p.plist"]) == 0)
        #expect(io.stderr == #"ycft: p.plist: warning: no record "onbaording.v1" for --gate (did you mean "onboarding.v1"?)"# + "\n")
        #expect(io.stdoutText.hasSuffix("""
        GATE                       RULE                   RUNS NOW  NEXT ELIGIBLE (UTC)
        onbaording.v1 (never run)  once                   yes       2025-02-01T00:00:00.000000Z
        new.gate (never run)       weekly                 yes       2025-02-01T00:00:00.000000Z
        rate.prompt                days:30 (2592000.0 s)  yes       2025-02-01T00:00:00.000000Z

        """), "\(io.stdoutText)")
        // An empty name no record has (`--gate "$GATE=once"` with GATE empty) is refused; a
        // record with the empty key is asked about as any other.
        let empty = FakeIO(files: ["p.plist": try readBytes(TestPaths.fixtures.appendingPathComponent("valid/defaults/export.binary.plist"))])
        #expect(empty.run(["status", "--gate", "=once", "p.plist"]) == 2)
        #expect(empty.stdout.isEmpty)
        #expect(empty.stderr == "ycft: p.plist: '--gate =once' names the empty key, and no record has it (a variable in the command left empty?)\n")
        let withEmptyKey = try LegacyArchive.encode(try FirstTimeRecords([("", FirstTimeRecord(lastVersion: "1", lastTime: 10))]), format: .binary)
        let held = FakeIO(files: ["e.plist": withEmptyKey])
        #expect(held.run(["status", "--now", "2025-02-01T00:00:00Z", "--gate", "=once", "e.plist"]) == 0)
        #expect(held.stderr.isEmpty, "\(held.stderr)")
        #expect(held.stdoutText.hasSuffix("\nGATE  RULE  RUNS NOW  NEXT ELIGIBLE (UTC)\n      once  no        never\n"), "\(held.stdoutText)")
    }

    /// Record keys that look alike on a terminal (composed and decomposed, a zero-width space)
    /// are written out in the table, in quotes, with a line saying why: a new user saw two
    /// identical rows `café` and took them for one record shown twice.
    @Test func keysThatLookAlikeAreWrittenOutInTheTable() throws {
        let file = try LegacyArchive.encode(try FirstTimeRecords([("caf\u{E9}", FirstTimeRecord()), ("cafe\u{301}", FirstTimeRecord()),
                                                                  ("plain", FirstTimeRecord()), ("tour", FirstTimeRecord()),
                                                                  ("to\u{200B}ur", FirstTimeRecord())]), format: .binary)
        let io = FakeIO(files: ["p.plist": file])
        #expect(io.run(["status", "--now", "2025-01-01T00:00:00Z", "p.plist"]) == 0)
        #expect(io.stdoutText == #"""
            now 2025-01-01T00:00:00.000000Z (UTC), app version none

            KEY             LAST VERSION  LAST TIME (UTC)  AGE
            "cafe\u{301}"   -             -                -
            "caf\u{E9}"     -             -                -
            plain           -             -                -
            "tour"          -             -                -
            "to\u{200B}ur"  -             -                -
            (keys in quotes look like another key but are other characters: written out beyond ASCII)

            \#(noGateHint("plain"))

            """#)
        // A gate named like a record but other characters is written out too (the same gate
        // as a record is not a look-alike); and a key holding quotes is quoted, so that it
        // cannot pass for another written out.
        let gates = try LegacyArchive.encode(try FirstTimeRecords([("a\"b\"", FirstTimeRecord()), ("plain", FirstTimeRecord()),
                                                                   ("tour", FirstTimeRecord())]), format: .binary)
        let asked = FakeIO(files: ["p.plist": gates])
        #expect(asked.run(["status", "--now", "2025-01-01T00:00:00Z", "--gate", "to\u{200B}ur=once", "--gate", "plain=once", "p.plist"]) == 0)
        #expect(asked.stdoutText.hasSuffix(#"""
            KEY       LAST VERSION  LAST TIME (UTC)  AGE
            "a\"b\""  -             -                -
            plain     -             -                -
            "tour"    -             -                -
            (keys in quotes look like another key but are other characters: written out beyond ASCII)

            GATE                        RULE  RUNS NOW  NEXT ELIGIBLE (UTC)
            "to\u{200B}ur" (never run)  once  yes       2025-01-01T00:00:00.000000Z
            plain                       once  no        never

            """#), "\(asked.stdoutText)")
    }

    /// `--format json`'s `warnings` are standard error's warnings, line for line: a finding
    /// (where JSON used to say `error: [rule] ...` of what stderr calls a warning) and a gate
    /// named close to a record (which JSON used to leave out).
    @Test func jsonWarningsAreStandardErrorsWarnings() throws {
        let file = try PropertyList.write(.dictionary(PlistDictionary([
            ("interval.text", .string("soon")), ("interval.int", .integer(.signed(1_748_779_200))),
        ])), format: .binary)
        let io = FakeIO(files: ["p.plist": file])
        #expect(io.run(["status", "--format", "json", "--compact", "--now", "2025-06-01T13:00:00Z", "--gate", "imt=hourly", "p.plist"]) == 0)
        let finding = #"[interval-value] interval.text: holds string, not a number IntervalClient can read: its gate runs as if it never ran"#
        let near = #"no record "imt" for --gate (did you mean "int"?)"#
        #expect(io.stderr == "ycft: p.plist: warning: \(finding)\nycft: p.plist: warning: \(near)\n")
        guard case let .object(members) = try JSON.parse(Array(io.stdoutText.utf8)) else { Issue.record("\(io.stdoutText)"); return }
        #expect(members.first { $0.key == "warnings" }?.value == .array([.string(finding), .string(near)]))
    }

    @Test func theExactIntervalIsShownAndDaysAtOrBelowZeroAreOnce() throws {
        let io = FakeIO(files: ["a": try readBytes(TestPaths.fixtures.appendingPathComponent("valid/ycft/three-records.plist"))])
        #expect(io.run(["status", "--now", "2025-01-01T11:24:00.123585Z", "--gate", "onboarding.v1=days:0.1",
                        "--gate", "rate.prompt=days:0", "--gate", "whats-new=days:1", "--gate", "rate.prompt=every:-1day", "a"]) == 0)
        #expect(io.stdoutText.hasSuffix("""
        GATE           RULE                            RUNS NOW  NEXT ELIGIBLE (UTC)
        onboarding.v1  days:0.1 (8640.000128746033 s)  yes       2025-01-01T11:24:00.123585Z
        rate.prompt    days:0                          no        never
        whats-new      days:1 (86400.0 s)              no        never
        rate.prompt    every:-1day                     yes       2025-01-01T11:24:00.123585Z

        """))
    }

    /// The README's worked example, one gate per rule at its boundary instant.
    @Test func theReadmesWorkedExample() throws {
        let io = FakeIO(files: ["a": try readBytes(TestPaths.fixtures.appendingPathComponent("valid/ycft/three-records.plist"))])
        #expect(io.run(["status", "--now", "2025-01-01T11:24:00.123585Z", "--app-version", "2.1.0", "--gate", "onboarding.v1=days:0.1",
                        "--gate", "whats-new=days:1", "--gate", "onboarding.v1=once", "--gate", "rate.prompt=per-version",
                        "--gate", "onboarding.v1=hourly", "a"]) == 0)
        #expect(io.stdoutText.hasSuffix("""
        GATE           RULE                            RUNS NOW  NEXT ELIGIBLE (UTC)
        onboarding.v1  days:0.1 (8640.000128746033 s)  yes       2025-01-01T11:24:00.123585Z
        whats-new      days:1 (86400.0 s)              no        never
        onboarding.v1  once                            no        never
        rate.prompt    per-version                     yes       2025-01-01T11:24:00.123585Z
        onboarding.v1  hourly                          yes       2025-01-01T11:24:00.123585Z

        """))
        let earlier = FakeIO(files: ["a": try readBytes(TestPaths.fixtures.appendingPathComponent("valid/ycft/three-records.plist"))])
        #expect(earlier.run(["status", "--now", "2025-01-01T11:24:00.123584Z", "--gate", "onboarding.v1=days:0.1", "a"]) == 0)
        #expect(earlier.stdoutText.contains("days:0.1 (8640.000128746033 s)  no        2025-01-01T11:24:00.123585Z"))
    }

    @Test func theOldIntervalSpellingNamesTheNewOne() {
        let io = FakeIO()
        #expect(io.run(["status", "--gate", "k=every:30d", "x"]) == 2)
        #expect(io.stderr.hasPrefix("Error: The rule 'every:30d' is now 'days:30' (YCFirstTime's executeOncePerInterval, days of 86,400 seconds); 'every:30day' is IntervalClient's calendar day\n"))
    }
}

/// `status --now` shows the instant it was given, in UTC, with the digits it was given (at
/// least six), never rounded into the next second or year by the double it is judged with
/// (issue 25, item 21).
@Suite struct StatusShowsNowAsGiven {
    @Test(arguments: [
        ("9999-12-31T23:59:59.9999999Z", "9999-12-31T23:59:59.9999999Z"),
        ("9999-12-31T23:59:59.999999999Z", "9999-12-31T23:59:59.999999999Z"),
        ("9999-12-31T23:59:59.999999Z", "9999-12-31T23:59:59.999999Z"),
        ("2024-12-31T23:59:59.9999996Z", "2024-12-31T23:59:59.9999996Z"),
        ("2025-01-01T00:00:00Z", "2025-01-01T00:00:00.000000Z"),
        ("2025-01-01T10:00:00.5+01:00", "2025-01-01T09:00:00.500000Z"),
        ("2025-03-01T00:30:00.123-01:00", "2025-03-01T01:30:00.123000Z"),
        ("2000-12-31T23:59:59.25Z", "2000-12-31T23:59:59.250000Z"),
        ("2001-01-01T00:30:00.75+01:00", "2000-12-31T23:30:00.750000Z"),
        ("0001-01-01T00:00:00Z", "0001-01-01T00:00:00.000000Z"),
    ])
    func nowIsShownExactly(_ given: String, _ shown: String) throws {
        let empty = try readBytes(TestPaths.fixtures.appendingPathComponent("valid/ycft/empty.plist"))
        let text = FakeIO(files: ["e.plist": empty])
        #expect(text.run(["status", "--now", given, "e.plist"]) == 0)
        #expect(text.stdoutText == "now \(shown) (UTC), app version none\n\nno records\n\n\(noGateHint("onboarding.v1"))\n")
        let json = FakeIO(files: ["e.plist": empty])
        #expect(json.run(["status", "--format", "json", "--compact", "--now", given, "e.plist"]) == 0)
        #expect(json.stdoutText.hasPrefix(#"{"formatVersion":1,"now":"\#(shown)","timeZone":"UTC","#))
    }

    @Test func anInstantOutsideTheYearsIsSaidSo() throws {
        // 9999-12-31T23:59:59.5-01:00 is in year 10000 in UTC: not a UTC date to show.
        let empty = try readBytes(TestPaths.fixtures.appendingPathComponent("valid/ycft/empty.plist"))
        let io = FakeIO(files: ["e.plist": empty])
        #expect(io.run(["status", "--now", "9999-12-31T23:59:59.5-01:00", "e.plist"]) == 0)
        #expect(io.stdoutText == "now beyond year 9999 (UTC), app version none\n\nno records\n\n\(noGateHint("onboarding.v1"))\n")
    }

    @Test func exactParseAndText() throws {
        let offset = try #require(ExactTime.parseExactInstant("2025-01-01T10:00:00.5+01:00"))
        #expect(offset.seconds == 757_414_800 && offset.fraction == "5")
        let last = try #require(ExactTime.parseExactInstant("9999-12-31T23:59:59.9999999Z"))
        #expect(last.seconds == 252_423_993_599 && last.fraction == "9999999")
        // The double the gates are judged with is the next year's first second; the text is not.
        #expect(ExactTime.parseInstant("9999-12-31T23:59:59.9999999Z") == 252_423_993_600)
        #expect(ExactTime.utcText(seconds: 252_423_993_599, fraction: "9999999") == "9999-12-31T23:59:59.9999999Z")
        #expect(ExactTime.utcText(seconds: 252_423_993_600, fraction: "") == nil)
        #expect(ExactTime.utcText(seconds: 0, fraction: "1234567890") == nil)
        #expect(ExactTime.utcText(seconds: -1, fraction: "5") == "2000-12-31T23:59:59.500000Z")
    }
}

/// A gate that runs now is eligible at the `now` shown, to the digit, in the text and the JSON
/// (issue 46, item 19): the clock's reading was shown rounded to the nearest microsecond and
/// NEXT ELIGIBLE rounded up (1 µs apart in half the runs), and a `--now` with more digits than
/// six was shown as given and NEXT ELIGIBLE rounded.
@Suite struct ARunsNowGateIsEligibleAtTheNowShown {
    let fixture = TestPaths.fixtures.appendingPathComponent("valid/ycft/three-records.plist")
    /// Three gates that run at any moment after 2025-01-01T10:00:00.123456Z, each by its own rule.
    let gates = ["--app-version", "9.9", "--gate", "fresh=once", "--gate", "rate.prompt=per-version", "--gate", "onboarding.v1=hourly"]

    /// The `now` shown (its UTC text, and its text in the zone when one is given) and each
    /// gate's NEXT ELIGIBLE.
    func text(_ arguments: [String]) throws -> (now: String, local: String?, next: [String]) {
        let io = FakeIO(files: ["t.plist": try readBytes(fixture)])
        #expect(io.run(["status"] + gates + arguments + ["t.plist"]) == 0, "\(io.stderr)")
        let lines = io.stdoutText.split(separator: "\n")
        let first = try #require(lines.first?.dropFirst("now ".count).split(separator: " "))
        let next = lines.drop { !$0.hasPrefix("GATE ") }.dropFirst().map { String($0.split(separator: " ").last ?? "") }
        #expect(next.count == 3, "\(io.stdoutText)")
        #expect(lines.drop { !$0.hasPrefix("GATE ") }.dropFirst().allSatisfy { $0.contains("  yes  ") }, "\(io.stdoutText)")
        return (String(first[0]), first[1] == "=" ? String(first[2]) : nil, next)
    }

    /// The JSON's `now` and each gate's `nextEligibleUTC` and `nextEligible`.
    func json(_ arguments: [String]) throws -> (now: String, next: [String], seconds: [String]) {
        let io = FakeIO(files: ["t.plist": try readBytes(fixture)])
        #expect(io.run(["status", "--format", "json", "--compact"] + gates + arguments + ["t.plist"]) == 0, "\(io.stderr)")
        let out = io.stdoutText
        func values(_ name: String) -> [String] {
            out.components(separatedBy: "\"\(name)\":").dropFirst().map { String($0.prefix { $0 != "," && $0 != "}" }) }
        }
        let now = try #require(values("now").first)
        return (now, values("nextEligibleUTC"), values("nextEligible"))
    }

    @Test(arguments: [
        ("2025-03-01T12:00:00.1234564Z", "2025-03-01T12:00:00.1234564Z"),
        ("2025-03-01T12:00:00.1234566Z", "2025-03-01T12:00:00.1234566Z"),
        ("2025-03-01T12:00:00.000000001Z", "2025-03-01T12:00:00.000000001Z"),
        ("2025-03-01T13:00:00.99999999+01:00", "2025-03-01T12:00:00.99999999Z"),
        ("2025-03-01T12:00:00.25Z", "2025-03-01T12:00:00.250000Z"),
    ])
    func withNowGiven(_ given: String, _ shown: String) throws {
        let plain = try text(["--now", given])
        #expect(plain.now == shown)
        #expect(plain.next == [shown, shown, shown])
        // In a zone, the same digits, moved by the zone's offset.
        let zoned = try text(["--now", given, "--time-zone", "Europe/Paris"])
        #expect(zoned.now == shown && zoned.next == [shown, shown, shown])
        #expect(zoned.local == shown.replacingOccurrences(of: "T12:", with: "T13:").replacingOccurrences(of: "Z", with: "+01:00"))
        let answer = try json(["--now", given])
        #expect(answer.now == "\"\(shown)\"")
        #expect(answer.next == Array(repeating: "\"\(shown)\"", count: 3))
        // The instant judged is the double nearest to what was given.
        let seconds = try #require(ExactTime.parseInstant(given))
        #expect(answer.seconds.map { Double($0) } == Array(repeating: seconds, count: 3))
    }

    /// The clock's reading has digits beyond the microsecond: shown once, one way (rounded up,
    /// as every next eligible moment is), wherever it appears. Forty runs each: the rounding to
    /// the nearest used to differ in half of them.
    @Test func withTheClock() throws {
        for _ in 0..<40 {
            let plain = try text([])
            #expect(plain.next == [plain.now, plain.now, plain.now])
            let zoned = try text(["--time-zone", "Asia/Tokyo"])
            #expect(zoned.next == [zoned.now, zoned.now, zoned.now])
            let local = try #require(zoned.local)
            // The local text is the UTC one moved by +09:00: the same fraction, to the digit.
            #expect(local.hasSuffix("+09:00") && local.dropLast(6).suffix(7) == zoned.now.dropLast().suffix(7), "\(zoned)")
            let answer = try json([])
            #expect(answer.next == [answer.now, answer.now, answer.now])
            #expect(Set(answer.seconds).count == 1)
        }
    }

    /// Through the built binary, six runs as in the report.
    @Test func withTheClockThroughTheTool() throws {
        let ycft = TestPaths.executable("ycft")
        for format in ["text", "json"] {
            for _ in 0..<6 {
                let result = try runProcess(ycft, ["status", "--format", format, "--gate", "fresh=once", fixture.path])
                #expect(result.status == 0)
                let out = result.stdoutText
                if format == "text" {
                    let now = out.dropFirst("now ".count).prefix { $0 != " " }
                    #expect(out.hasSuffix("fresh (never run)  once  yes       \(now)\n"), "\(out)")
                } else {
                    let now = try #require(out.components(separatedBy: #""now" : "#).dropFirst().first?.prefix { $0 != "," })
                    #expect(out.contains(#""nextEligibleUTC" : \#(now)"#), "\(out)")
                }
            }
        }
    }
}

/// The line `status` ends with when no `--gate` is given, its example naming `key`.
func noGateHint(_ key: String) -> String {
    "no --gate given: add --gate KEY=RULE to ask whether a gate runs now (like --gate \(key)=once, or days:30, per-version, daily; "
        + "see ycft status --help)"
}
