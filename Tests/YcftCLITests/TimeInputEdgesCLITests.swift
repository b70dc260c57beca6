import Foundation
import Testing
import FirstTimeArchive
import SafeFiles
import TestSupport

/// Times given on the command line at the edges of what ycft reads, through the real binary:
/// each refused saying what is wrong (not "expected a time like ..."), or read as the C
/// library reads it.
@Suite struct TimeInputEdges {
    let ycft = TestPaths.executable("ycft")

    func prefs() throws -> (url: URL, bytes: [UInt8]) {
        let url = try TestPaths.temporaryDirectory().appendingPathComponent("p.plist")
        let bytes = try readBytes(TestPaths.fixtures.appendingPathComponent("valid/defaults/export.binary.plist"))
        try writeBytes(bytes, to: url)
        return (url, bytes)
    }

    static let leap = "second 60 is a leap second, which times since 2001 do not count (NSDate, like POSIX time, has no leap seconds); "
        + "give second 59 or the next minute"

    /// A leap second and a tenth fractional digit, in every spelling `--last-time` and `--now` take.
    @Test(arguments: [
        ("2016-12-31T23:59:60Z", leap),
        ("2016-12-31 23:59:60", leap),
        ("2017-01-01T00:59:60+01:00", leap),
        ("2016-12-31T23:59:60.5Z", leap),
        ("2025-01-01T09:00:00.1234567891Z", "it has 10 digits after the decimal point; ycft reads at most 9 (nanoseconds)"),
        ("2025-01-01 10:00:00.123456789012+01:00", "it has 12 digits after the decimal point; ycft reads at most 9 (nanoseconds)"),
    ])
    func refusedSayingWhatIsWrong(_ text: String, _ why: String) throws {
        let (url, bytes) = try prefs()
        let set = try runProcess(ycft, ["set", url.path, "k", "--last-time", text])
        #expect(set.status == 2)
        #expect(set.stdoutText == "")
        #expect(set.stderr == "Error: The value '\(text)' is invalid for '--last-time <time>': \(why)\n" + setUsage)
        #expect(try readBytes(url) == bytes)
        let status = try runProcess(ycft, ["status", "--now", text, url.path])
        #expect(status.status == 2)
        #expect(status.stderr.hasPrefix("Error: The value '\(text)' is invalid for '--now <time>': \(why)\nUsage: ycft status "), "\(status.stderr)")
    }

    /// 9999-12-31T23:59:59.999999999Z has no double in its year: the nearest is 252423993600,
    /// the first second of year 10000, which `dump` showed with `"lastTimeUTC": null`. `set`
    /// refuses it, as any time whose nearest double is outside years 1-9999; `--seconds` stores
    /// that number when it is meant, and `dump` shows what was stored.
    @Test func aTimeWhoseDoubleLeavesYear9999IsRefused() throws {
        let (url, bytes) = try prefs()
        for (text, stored, when) in [("9999-12-31T23:59:59.999999999Z", "252423993600.0", "beyond year 9999"),
                                     ("9999-12-31T23:59:59.5-01:00", "252423997199.5", "beyond year 9999"),
                                     ("0001-01-01T00:00:00+00:01", "-63113904060.0", "before year 1")] {
            let set = try runProcess(ycft, ["set", url.path, "k", "--last-time", text])
            #expect(set.status == 2)
            #expect(set.stderr == "Error: The value '\(text)' is invalid for '--last-time <time>': its nearest double is \(stored) "
                    + "seconds since 2001, \(when) in UTC, where ycft shows no time (--seconds stores a number as given)\n" + setUsage)
            #expect(try readBytes(url) == bytes)
        }
        // The last instants that stay in year 9999, and what dump shows of them.
        for (text, lastTime, utc) in [("9999-12-31T23:59:59.99998Z", "252423993599.99997", "9999-12-31T23:59:59.999970Z"),
                                      ("9999-12-31T23:59:59Z", "252423993599.0", "9999-12-31T23:59:59.000000Z")] {
            let set = try runProcess(ycft, ["set", url.path, "k", "--last-time", text])
            #expect(set.status == 0, "\(set.stderr)")
            let dumped = try runProcess(ycft, ["dump", "--compact", url.path])
            #expect(dumped.stdoutText.contains(#""k":{"lastTime":\#(lastTime),"lastTimeUTC":"\#(utc)","lastVersion":null}"#), "\(dumped.stdoutText)")
        }
    }

    /// `TZ=:/etc/localtime` (a leading colon: a file, as POSIX and glibc read it) is the zone
    /// the file links to in the zone database, with or without the colon; a file that is no
    /// link into the database (a copy) is refused naming where it leads.
    @Test func aTZPathIsTheZoneItLinksTo() throws {
        let (url, _) = try prefs()
        let dir = try TestPaths.temporaryDirectory()
        let link = dir.appendingPathComponent("localtime"), copy = dir.appendingPathComponent("copied")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "/usr/share/zoneinfo/Europe/Paris")
        try writeBytes(try readBytes(URL(fileURLWithPath: "/usr/share/zoneinfo/Asia/Tokyo")), to: copy)
        var environment = ProcessInfo.processInfo.environment
        var cases = [(":" + link.path, "2025-03-30T13:30:00.000000+02:00 (Europe/Paris)"),
                     (link.path, "2025-03-30T13:30:00.000000+02:00 (Europe/Paris)")]
        // The system's own zone file, when it is a link into the database (this machine's).
        if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/etc/localtime"),
           let name = target.components(separatedBy: "zoneinfo/").last, target.contains("zoneinfo/"),
           let zone = TimeZone(identifier: name), zone.secondsFromGMT() == 0 {
            cases.append((":/etc/localtime", "2025-03-30T11:30:00.000000Z (\(name))"))
        }
        for (tz, shown) in cases {
            environment["TZ"] = tz
            let result = try runProcess(ycft, ["status", "--now", "2025-03-30T11:30:00Z", "--time-zone", "local", url.path], environment: environment)
            #expect(result.status == 0, "\(tz): \(result.stderr)")
            #expect(result.stdoutText.hasPrefix("now 2025-03-30T11:30:00.000000Z = \(shown), app version none\n"), "\(tz): \(result.stdoutText)")
        }
        environment["TZ"] = ":" + copy.path
        let resolved = SafeFile.realPath(copy.path) ?? copy.path
        let refused = try runProcess(ycft, ["status", "--time-zone", "local", url.path], environment: environment)
        #expect(refused.status == 2)
        #expect(refused.stderr.hasPrefix("Error: The value 'local' is invalid for '--time-zone <zone>': TZ is ':\(copy.path)', which is a path "
                                         + "that leads to no file of the zone database (\(resolved)), so ycft cannot name its zone (like "
                                         + "Europe/Paris, :Europe/Paris, :/etc/localtime when it links into the zone database, or "
                                         + "/usr/share/zoneinfo/Europe/Paris); name the zone instead\nUsage: ycft status "), "\(refused.stderr)")
    }

    /// `TZ=GMT+1` names no zone file, so the C library reads it as a POSIX rule, where offsets
    /// are west of UTC (`TZ=GMT+1 date +%z` is -0100); Foundation would read +01:00. Refused,
    /// naming the zone database's names for both readings; a name the database has
    /// (`GMT+0`, `Etc/GMT-1`) is that zone.
    @Test func aPOSIXRuleInTZIsRefusedWithTheNamesOfItsZones() throws {
        let (url, _) = try prefs()
        var environment = ProcessInfo.processInfo.environment
        for (tz, said) in [("GMT+1", "GMT+1 is -01:00 there: POSIX offsets are west of UTC), which ycft does not read; name the zone "
                            + "instead (like Etc/GMT+1 for -01:00, Etc/GMT-1 for +01:00, "),
                           (":UTC-5", "UTC-5 is +05:00 there: POSIX offsets are west of UTC), which ycft does not read; name the zone "
                            + "instead (like Etc/GMT-5 for +05:00, Etc/GMT+5 for -05:00, ")] {
            environment["TZ"] = tz
            let refused = try runProcess(ycft, ["status", "--now", "2025-03-30T11:30:00Z", "--time-zone", "local", url.path], environment: environment)
            #expect(refused.status == 2)
            #expect(refused.stderr.hasPrefix("Error: The value 'local' is invalid for '--time-zone <zone>': TZ is '\(tz)', which names no file "
                                             + "of the zone database, so the C library reads it as a POSIX rule (\(said)Europe/Paris, "
                                             + ":Europe/Paris, /usr/share/zoneinfo/Europe/Paris)\nUsage: ycft status "), "\(refused.stderr)")
        }
        for (tz, shown) in [("GMT+0", "2025-03-30T11:30:00.000000Z (GMT+0)"),
                            ("Etc/GMT-1", "2025-03-30T12:30:00.000000+01:00 (Etc/GMT-1)"),
                            (":Etc/GMT+1", "2025-03-30T10:30:00.000000-01:00 (Etc/GMT+1)")] {
            environment["TZ"] = tz
            let result = try runProcess(ycft, ["status", "--now", "2025-03-30T11:30:00Z", "--time-zone", "local", url.path], environment: environment)
            #expect(result.status == 0, "\(tz): \(result.stderr)")
            #expect(result.stdoutText.hasPrefix("now 2025-03-30T11:30:00.000000Z = \(shown), app version none\n"), "\(tz): \(result.stdoutText)")
        }
    }

    /// `--time-zone GMT+1`: Foundation reads +01:00, POSIX TZ and the zone database's
    /// `Etc/GMT+1` -01:00. An Apple device reports an IANA name as its zone, never this form,
    /// so it is refused with the name of the zone Foundation would have meant.
    @Test(arguments: [("GMT+1", "+01:00", "-01:00", ", or Etc/GMT-1 for +01:00"),
                      ("UTC-5", "-05:00", "+05:00", ", or Etc/GMT+5 for -05:00"),
                      ("GMT+05:30", "+05:30", "-05:30", "")])
    func aGMTOffsetNameIsRefused(_ zone: String, _ foundation: String, _ posix: String, _ hint: String) throws {
        let (url, _) = try prefs()
        let refused = try runProcess(ycft, ["status", "--time-zone", zone, url.path])
        #expect(refused.status == 2)
        #expect(refused.stderr.hasPrefix("Error: The value '\(zone)' is invalid for '--time-zone <zone>': Foundation reads it as \(foundation), "
                                         + "POSIX TZ as \(posix) (the zone database's Etc/GMT±N are POSIX's); give an IANA name like "
                                         + "Europe/Paris\(hint)\nUsage: ycft status "), "\(refused.stderr)")
    }

    /// What `date` and git print, read as the ISO 8601 they stand for, to the digit: a basic
    /// offset (`date +%FT%T%z`), a comma for the decimal point (`date -Ins`), a space before
    /// the offset (`git log --format=%ci`).
    @Test(arguments: [
        ("2026-12-07T11:57:29+0000", "2026-12-07T11:57:29Z"),
        ("2026-12-07T12:57:29+0100", "2026-12-07T12:57:29+01:00"),
        ("2026-12-07T11:57:29,770033253+00:00", "2026-12-07T11:57:29.770033253+00:00"),
        ("2026-12-07T11:57:29,1Z", "2026-12-07T11:57:29.1Z"),
        ("2026-12-07 11:50:53 +0000", "2026-12-07T11:50:53Z"),
        ("2026-12-07 06:50:53 -0500", "2026-12-07T06:50:53-05:00"),
        ("2026-12-07 12:50 +01:00", "2026-12-07T12:50:00+01:00"),
        ("2026-12-07 12:50:53,25 +0100", "2026-12-07T12:50:53.25+01:00"),
    ])
    func theSpellingsOfDateAndGitAreRead(_ text: String, _ iso: String) throws {
        let (url, _) = try prefs()
        var dumped: [String] = []
        for given in [text, iso] {
            let set = try runProcess(ycft, ["set", url.path, "k", "--last-time", given])
            #expect(set.status == 0, "\(given): \(set.stderr)")
            dumped.append(try runProcess(ycft, ["dump", "--compact", url.path]).stdoutText)
            let status = try runProcess(ycft, ["status", "--now", given, url.path])
            #expect(status.status == 0, "\(given): \(status.stderr)")
            dumped.append(String(status.stdoutText.prefix { $0 != "," }))
        }
        #expect(dumped[0] == dumped[2] && dumped[1] == dumped[3], "\(dumped)")
        #expect(dumped[0].contains(#""k":{"lastTime":"#), "\(dumped[0])")
    }

    /// A date or time that does not exist is refused naming the field; spaces around a time too.
    @Test(arguments: [
        ("2025-02-30", "February 2025 has 28 days"),
        ("2024-02-30 10:00", "February 2024 has 29 days"),
        ("2025-13-01", "there is no month 13"),
        ("2025-02-01T24:00:00Z", "there is no hour 24 (hours run 00 to 23)"),
        ("2025-02-01 10:60 +0100", "there is no minute 60 (minutes run 00 to 59)"),
        (" 2025-02-01", "it begins with a space; give the time alone"),
        ("2025-02-01T10:00:00Z ", "it ends with a space; give the time alone"),
    ])
    func impossibleDatesAreRefusedNamingTheField(_ text: String, _ why: String) throws {
        let (url, bytes) = try prefs()
        let set = try runProcess(ycft, ["set", url.path, "k", "--last-time", text])
        #expect(set.status == 2)
        #expect(set.stderr == "Error: The value '\(text)' is invalid for '--last-time <time>': \(why)\n" + setUsage)
        #expect(try readBytes(url) == bytes)
        let status = try runProcess(ycft, ["status", "--now", text, "--time-zone", "Europe/Paris", url.path])
        #expect(status.status == 2)
        #expect(status.stderr.hasPrefix("Error: The value '\(text)' is invalid for '--now <time>': \(why)\nUsage: ycft status "), "\(status.stderr)")
    }

    /// Before 1891 Paris kept its local mean time, +00:09:21: the local time is shown with the
    /// offset's seconds, so the two texts of `now` are one instant (not `+00:09`, 21 seconds off).
    @Test func anOffsetWithSecondsIsShownWithThem() throws {
        let (url, _) = try prefs()
        for (zone, shown) in [("Europe/Paris", "1850-06-01T12:09:21.000000+00:09:21"),
                              ("America/New_York", "1850-06-01T07:03:58.000000-04:56:02")] {
            let result = try runProcess(ycft, ["status", "--now", "1850-06-01T12:00:00Z", "--time-zone", zone, url.path])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdoutText.hasPrefix("now 1850-06-01T12:00:00.000000Z = \(shown) (\(zone)), app version none\n"), "\(result.stdoutText)")
        }
    }
}
