import Foundation
import Testing
import TestSupport

/// `status` with the user's calendar, the 1.x rules and every calendar component, on the built
/// binary (issue 27): what it answers, what it says it used, and how it refuses.
@Suite struct StatusCalendarThroughTheTool {
    let ycft = TestPaths.executable("ycft")
    let fixture = TestPaths.fixtures.appendingPathComponent("valid/ycft/three-records.plist").path

    func status(_ arguments: [String]) throws -> ProcessResult {
        try runProcess(ycft, ["status", "--now", "2025-01-29T00:00:00Z"] + arguments + [fixture])
    }

    /// A monthly gate from 2025-01-01T09:00Z: due 2025-01-30 in the Hebrew calendar (its month
    /// ends there), 2025-02-01 in the Gregorian one; the text names a calendar that was given.
    @Test func theHebrewMonth() throws {
        let hebrew = try status(["--calendar", "hebrew", "--gate", "onboarding.v1=monthly"])
        #expect(hebrew.status == 0, "\(hebrew.stderr)")
        #expect(hebrew.stdoutText.hasPrefix("now 2025-01-29T00:00:00.000000Z (UTC), app version none\n"
                                            + "calendar hebrew, first weekday 1, minimum days in first week 1\n\n"))
        #expect(hebrew.stdoutText.hasSuffix("onboarding.v1  monthly  no        2025-01-30T09:00:00.123456Z\n"))
        let gregorian = try status(["--gate", "onboarding.v1=monthly"])
        #expect(gregorian.stdoutText.hasSuffix("onboarding.v1  monthly  no        2025-02-01T09:00:00.123456Z\n"))
        #expect(!gregorian.stdoutText.contains("calendar "))
    }

    /// The locale's week rules (de_DE: weeks from Monday, four days in the first) move a
    /// yearForWeekOfYear step from Saturday 2021-01-02 (week 53 of 2020 there, week 1 of 2021
    /// under en_US rules), and the JSON shows the calendar used.
    @Test func theLocalesWeekRules() throws {
        let dir = try TestPaths.temporaryDirectory()
        let json = dir.appendingPathComponent("r.json"), file = dir.appendingPathComponent("f.plist")
        try writeBytes(Array(#"{"format":"ycfirsttime-records","formatVersion":1,"records":{"k":{"lastTime":631238400}}}"#.utf8), to: json)
        #expect(try runProcess(ycft, ["pack", "-o", file.path, json.path]).status == 0)
        func next(_ options: [String]) throws -> (String, String) {
            let r = try runProcess(ycft, ["status", "--now", "2021-01-03T00:00:00Z", "--format", "json", "--compact",
                                          "--gate", "k=every:1yearForWeekOfYear"] + options + [file.path])
            #expect(r.status == 0, "\(r.stderr)")
            let utc = r.stdoutText.components(separatedBy: #""nextEligibleUTC":""#).last?.prefix(10) ?? ""
            return (String(utc), r.stdoutText)
        }
        let (de, deText) = try next(["--locale", "de_DE"])
        let (us, usText) = try next(["--locale", "en_US"])
        #expect(de == "2022-01-08" && us == "2022-01-01", "\(deText)\n\(usText)")
        #expect(deText.contains(#""library":"2.x","calendar":{"identifier":"gregorian","locale":"de_DE","firstWeekday":2,"minimumDaysInFirstWeek":4}"#))
        #expect(usText.contains(#""calendar":{"identifier":"gregorian","locale":"en_US","firstWeekday":1,"minimumDaysInFirstWeek":1}"#))
        let (overridden, _) = try next(["--locale", "de_DE", "--first-weekday", "1", "--minimum-days-in-first-week", "1"])
        #expect(overridden == us)
    }

    @Test func aUnitFoundationCannotAddRunsEveryTimeAndSaysWhy() throws {
        let result = try status(["--gate", "onboarding.v1=every:1isLeapMonth"])
        #expect(result.status == 0)
        #expect(result.stdoutText.hasSuffix("""
            onboarding.v1  every:1isLeapMonth  yes       2025-01-29T00:00:00.000000Z
            every:1isLeapMonth: Foundation adds nothing for this unit (date(byAdding:) is nil), so IntervalClient runs the gate every time

            """))
    }

    @Test func theOneXRulesAreNamed() throws {
        let result = try status(["--library", "1.x", "--gate", "onboarding.v1=days:7"])
        #expect(result.stdoutText.hasPrefix("now 2025-01-29T00:00:00.000000Z (UTC), app version none, YCFirstTime 1.x rules\n"))
        #expect(result.stdoutText.contains("days:7 (592200.0 s)"))
        #expect(try status(["--legacy-day", "--gate", "onboarding.v1=days:7"]).stdoutText == result.stdoutText)
    }

    @Test(arguments: [
        (["--gate", "k=every:1fortnight"], "'--gate <key=rule>': every:<n><unit> takes an integer n and a Calendar.Component: era, year"),
        (["--calendar", "Hebrew"], "'--calendar <id>': expected one of gregorian, buddhist"),
        (["--locale", "de_DE@calendar=foo"], "'--locale <id>': calendar 'foo' is not one of gregorian"),
        (["--locale", "xx_YY"], "'--locale <id>': expected a locale identifier Foundation knows"),
        (["--locale", "nonsense"], "'--locale <id>': expected a locale identifier Foundation knows"),
        (["--locale", ""], "'--locale <id>': expected a locale identifier Foundation knows"),
        (["--locale", "de_DF"], "'--locale <id>': region 'DF' is not one Foundation knows (expected like US, DE, TW or 419)"),
        (["--locale", "zh-TW-u-ca-bogus"], "'--locale <id>': calendar 'bogus' is not one of gregorian"),
        (["--first-weekday", "9"], "'--first-weekday <n>': expected 1 ... 7 (1 is Sunday)"),
        (["--minimum-days-in-first-week", "0"], "'--minimum-days-in-first-week <n>': expected 1 ... 7 (days)"),
        (["--library", "3"], "'--library <version>': expected '2.x' or '1.x'"),
    ])
    func mistakesAreUsageErrors(_ arguments: [String], _ said: String) throws {
        let result = try status(arguments)
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("Error: The value '\(arguments[1])' is invalid for \(said)"), "\(result.stderr)")
    }

    /// Locale identifiers as phones report them (issue 46, item 12), which
    /// `Locale.availableIdentifiers` does not list (it has `zh_Hant_TW`, not `zh_TW`): each is
    /// the locale `Locale(identifier:)` makes of it, its calendar (the `@calendar=` or `-u-ca-`
    /// keyword) and week rules, and the gates are due when Foundation's calendar says.
    @Test(arguments: ["zh_TW", "zh_CN", "zh_CN@calendar=chinese", "zh_HK", "sr_RS", "pa_PK", "az_AZ", "zh-Hant-TW", "zh-TW-u-ca-chinese"])
    func localesAsPhonesReportThem(_ id: String) throws {
        let result = try status(["--locale", id, "--format", "json", "--compact",
                                 "--gate", "onboarding.v1=monthly", "--gate", "onboarding.v1=every:1yearForWeekOfYear"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr == "")
        var calendar = Locale(identifier: id).calendar
        calendar.timeZone = try #require(TimeZone(identifier: "UTC"))
        #expect(result.stdoutText.contains(#""calendar":{"identifier":"\#(calendar.identifier)","locale":"\#(id)","firstWeekday":"#
                                           + #"\#(calendar.firstWeekday),"minimumDaysInFirstWeek":\#(calendar.minimumDaysInFirstWeek)}"#),
                "\(result.stdoutText)")
        // onboarding.v1 last ran 2025-01-01T09:00:00.123456Z; a gate due by now (2025-01-29)
        // runs now (in the Chinese calendar, Foundation adds no yearForWeekOfYear).
        let last = Date(timeIntervalSinceReferenceDate: 757_414_800.123456), now = 759_801_600.0
        let expected = [Calendar.Component.month, .yearForWeekOfYear].map {
            calendar.date(byAdding: $0, value: 1, to: last).map { Swift.max($0.timeIntervalSinceReferenceDate, now) }
        }
        let shown = result.stdoutText.components(separatedBy: #""nextEligible":"#).dropFirst()
            .map { Double($0.prefix { $0 != "," }) }
        #expect(shown == expected, "\(result.stdoutText)")
    }

    /// What the locale's calendar keyword names is the calendar used (Chinese months, not
    /// Gregorian ones), as `--calendar` would make it; the week rules stay the locale's.
    @Test func aLocalesCalendarKeywordIsTheCalendarUsed() throws {
        func answer(_ options: [String]) throws -> String {
            let result = try status(options + ["--format", "json", "--compact", "--gate", "onboarding.v1=monthly"])
            #expect(result.status == 0, "\(result.stderr)")
            return result.stdoutText
        }
        let keyword = try answer(["--locale", "zh_CN@calendar=chinese"])
        #expect(keyword.contains(#""calendar":{"identifier":"chinese","locale":"zh_CN@calendar=chinese","#))
        // 2025-01-01 is the 2nd of the 12th Chinese month; the new year began 2025-01-29, so
        // one month on is the 2nd of the 1st month, 2025-01-30, not 2025-02-01.
        #expect(keyword.contains(#""nextEligibleUTC":"2025-01-30T09:00:00.123456Z""#), "\(keyword)")
        let bcp47 = try answer(["--locale", "zh-CN-u-ca-chinese"])
        let named = try answer(["--calendar", "chinese", "--locale", "zh_CN"])
        for other in [bcp47, named] {
            #expect(other.components(separatedBy: #""gates""#).last == keyword.components(separatedBy: #""gates""#).last)
        }
        #expect(try answer(["--locale", "zh_CN"]).contains(#""nextEligibleUTC":"2025-02-01T09:00:00.123456Z""#))
        // --calendar names the calendar over the locale's keyword, as before.
        #expect(try answer(["--calendar", "gregorian", "--locale", "zh_CN@calendar=chinese"])
            .contains(#""nextEligibleUTC":"2025-02-01T09:00:00.123456Z""#))
    }

    /// `every:<n>week`, which earlier versions took, is refused with the unit that has a name
    /// (issue 46, item 13), as `every:30d` is with `days:30`.
    @Test func theOldWeekUnitNamesWeekOfYearAndWeekly() throws {
        for (rule, count) in [("every:2week", "2"), ("every:1week", "1"), ("every:-3week", "-3")] {
            let result = try status(["--gate", "k=\(rule)"])
            #expect(result.status == 2)
            #expect(result.stderr.hasPrefix("Error: The value 'k=\(rule)' is invalid for '--gate <key=rule>': no Calendar.Component is "
                                            + "called 'week'; did you mean 'every:\(count)weekOfYear' (or 'weekly' for every week)?\n"),
                    "\(result.stderr)")
        }
        // What it suggests is accepted.
        #expect(try status(["--gate", "onboarding.v1=every:2weekOfYear"]).status == 0)
    }

    /// Every help screen fits 80 columns (preformatted tables included).
    @Test func helpFitsEightyColumns() throws {
        for command in ["dump", "verify", "status", "set", "unset", "reset", "edit", "pack", "migrate"] {
            let help = try runProcess(ycft, [command, "--help"], environment: ["COLUMNS": "80"])
            let long = help.stdoutText.split(separator: "\n").filter { $0.count > 80 }
            #expect(long.isEmpty, "\(command): \(long)")
        }
    }

    /// The next eligible moment is shown rounded up to the microsecond, so asking again at the
    /// instant shown answers yes (rounded to the nearest, 10:00:00.123456Z was a hair early).
    @Test func theNextMomentShownIsNeverEarly() throws {
        let dir = try TestPaths.temporaryDirectory()
        let json = dir.appendingPathComponent("r.json"), file = dir.appendingPathComponent("f.plist")
        try writeBytes(Array(#"{"format":"ycfirsttime-records","formatVersion":1,"records":{"k":{"lastTime":757414800.1234561}}}"#.utf8), to: json)
        #expect(try runProcess(ycft, ["pack", "-o", file.path, json.path]).status == 0)
        let first = try runProcess(ycft, ["status", "--now", "2025-01-01T09:00:00Z", "--gate", "k=hourly", file.path])
        #expect(first.stdoutText.hasSuffix("k     hourly  no        2025-01-01T10:00:00.123457Z\n"), "\(first.stdoutText)")
        let again = try runProcess(ycft, ["status", "--now", "2025-01-01T10:00:00.123457Z", "--gate", "k=hourly", file.path])
        #expect(again.stdoutText.hasSuffix("k     hourly  yes       2025-01-01T10:00:00.123457Z\n"), "\(again.stdoutText)")
    }

    /// `--time-zone local` reads TZ as the C library does (`:Area/City`, a path into the zone
    /// database, empty for UTC); a TZ it cannot read is refused, not taken for UTC (a daily gate
    /// answered in the wrong zone).
    @Test func localReadsEveryFormOfTZ() throws {
        var environment = ProcessInfo.processInfo.environment
        for (tz, shown) in [("Europe/Paris", "2025-03-30T13:30:00.000000+02:00 (Europe/Paris)"),
                            (":Europe/Paris", "2025-03-30T13:30:00.000000+02:00 (Europe/Paris)"),
                            ("/usr/share/zoneinfo/Asia/Tokyo", "2025-03-30T20:30:00.000000+09:00 (Asia/Tokyo)"),
                            ("", "2025-03-30T11:30:00.000000Z (UTC)")] {
            environment["TZ"] = tz
            let result = try runProcess(ycft, ["status", "--now", "2025-03-30T11:30:00Z", "--time-zone", "local", fixture], environment: environment)
            #expect(result.status == 0, "\(tz): \(result.stderr)")
            #expect(result.stdoutText.hasPrefix("now 2025-03-30T11:30:00.000000Z = \(shown), "), "\(tz): \(result.stdoutText)")
        }
        environment["TZ"] = "XYZ-3:30"
        let refused = try runProcess(ycft, ["status", "--time-zone", "local", fixture], environment: environment)
        #expect(refused.status == 2)
        #expect(refused.stderr.hasPrefix("Error: The value 'local' is invalid for '--time-zone <zone>': TZ is 'XYZ-3:30', which names no file "
                                         + "of the zone database, so the C library reads it as a POSIX rule, which ycft does not read; name the "
                                         + "zone instead (like Europe/Paris, :Europe/Paris, /usr/share/zoneinfo/Europe/Paris)\n"), "\(refused.stderr)")
    }

    /// Options of which one may be given (`[A | B]` in the usage) are refused together, not
    /// settled by the last one given; `set` writes nothing then.
    @Test(arguments: [
        (["status", "--app-version", "1", "--no-app-version"], "'--no-app-version' cannot be combined with '--app-version'"),
        (["status", "--library", "2.x", "--legacy-day"], "'--legacy-day' cannot be combined with '--library'"),
        (["set", "--last-time", "now", "--no-last-time"], "'--no-last-time' cannot be combined with '--last-time'"),
        (["set", "--no-last-version", "--last-version", "2"], "'--last-version' cannot be combined with '--no-last-version'"),
    ])
    func exclusiveOptionsAreRefusedTogether(_ arguments: [String], _ said: String) throws {
        let dir = try TestPaths.temporaryDirectory()
        let file = dir.appendingPathComponent("f.plist")
        let bytes = try readBytes(URL(fileURLWithPath: fixture))
        try writeBytes(bytes, to: file)
        let operands = arguments[0] == "set" ? [file.path, "onboarding.v1"] : [file.path]
        let result = try runProcess(ycft, arguments + operands)
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("Error: \(said)\n"), "\(result.stderr)")
        #expect(try readBytes(file) == bytes)
    }
}
