import Foundation
import Testing
import FirstTimeArchive
import FirstTimeCore
import Plist
import PlistCore
import TestSupport

/// The third attack review of the writing commands: a second form of the state that cannot be
/// read, IntervalClient's own gates beside a migration that drops versions, a migrated form
/// that is broken, and a write the file-size limit stops. Each used to end with exit 0 and data
/// replaced, taken over or misreported, or with a stray backup.
@Suite struct StateCopiesThroughTheTool {
    let ycft = TestPaths.executable("ycft")

    func file(_ value: PlistValue, _ name: String = "f.plist") throws -> URL {
        let url = try TestPaths.temporaryDirectory().appendingPathComponent(name)
        try writeBytes(PropertyList.write(value, format: .binary), to: url)
        return url
    }

    func archive() throws -> [UInt8] {
        try readBytes(TestPaths.fixtures.appendingPathComponent("valid/ycft/three-records.plist"))
    }

    /// A records key that breaks the format beside a readable archive: every reader says so
    /// and every writer says it replaces it (it used to be rewritten without a word).
    @Test func anUnreadableCopyIsNamedByEveryCommand() throws {
        let broken = PlistValue.dictionary(PlistDictionary([
            ("format", .string("ycfirsttime-records")), ("formatVersion", .integer(.signed(2))), ("records", .dictionary(PlistDictionary())),
        ]))
        let domain = PlistValue.dictionary(PlistDictionary([("Theme", .string("dark")), ("YCFirstTime", .data(try archive())),
                                                            ("YCFirstTime.records", broken)]))
        let finding = "[states-disagree] the plain-records copy cannot be read (YCFirstTime.records.formatVersion: "
            + "formatVersion must be 1, found 2); ycft reads the defaults-archive state"
        let url = try file(domain)
        let dump = try runProcess(ycft, ["dump", url.path])
        #expect(dump.status == 0)
        #expect(dump.stderr == "ycft: \(url.path): warning: \(finding)\n")
        let set = try runProcess(ycft, ["set", url.path, "onboarding.v1", "--last-version", "9"])
        #expect(set.status == 0)
        #expect(set.stderr == "ycft: \(url.path): warning: dropped \(finding)\n")
        let state = try StateFile(readBytes(url)).state()
        #expect(state.findings.isEmpty, "\(state.findings)")
        #expect(state.records["onboarding.v1"]?.lastVersion == "9")
    }

    /// In IntervalClient's form, a write keeps every key whose record it does not change exactly
    /// as stored: a 4-byte NaN, a signalling NaN, a time the round trip through 2001 would
    /// move by an ulp (they were rewritten as 8-byte quiet NaNs and moved times).
    @Test func untouchedIntervalKeysKeepTheirBits() throws {
        let others: [(String, PlistValue)] = [
            ("interval.n32", .real32(0x7FC0_0001)), ("interval.s", .real(Double(bitPattern: 0x7FF0_0000_0000_0001))),
            ("interval.f", .real(1_700_000_000.1)), ("interval.g", .real32(Float(1.5e9).bitPattern)),
        ]
        let url = try file(.dictionary(PlistDictionary([("interval.a", .real(1.7e9))] + others)))
        for command in [["set", url.path, "a", "--last-time", "757414800", "--seconds"], ["unset", url.path, "a"]] {
            let result = try runProcess(ycft, command)
            #expect(result.status == 0, "\(command): \(result.stderr)")
            let after = try #require(LibPlist.read(readBytes(url)).value.dictionaryValue)
            for (key, value) in others { #expect(after[key] == value, "\(command[0]) \(key): \(String(describing: after[key]))") }
        }
    }

    /// `--drop-versions` would leave interval.* keys alone in the file, where IntervalClient's
    /// own gate would be read as a YCFirstTime record (and a rollback took it over): refused,
    /// nothing written.
    @Test func dropVersionsIsRefusedBesideIntervalClientsOwnGates() throws {
        let url = try file(.dictionary(PlistDictionary([("YCFirstTime", .data(try archive())), ("interval.app.sync", .real(1.7e9))])))
        let before = try readBytes(url)
        let result = try runProcess(ycft, ["migrate", "--to", "interval", "--drop-versions", "--in-place", "--no-backup", url.path])
        #expect(result.status == 1)
        #expect(result.stderr == """
            ycft: \(url.path): "interval.app.sync" is IntervalClient's own gate, not a YCFirstTime record: with the versions \
            dropped the file would hold only interval.* keys and that gate would be read as YCFirstTime state; keep the \
            versions (YCFirstTime.records stays beside the keys): migrate without --drop-versions
            ycft migrate: 1 file: 0 migrated, 0 unchanged, 0 skipped, 1 failed

            """)
        #expect(try readBytes(url) == before)
        // Without --drop-versions the gate stays beside the records, as it was.
        #expect(try runProcess(ycft, ["migrate", "--to", "interval", "--in-place", "--no-backup", url.path]).status == 0)
        #expect(try LibPlist.read(readBytes(url)).value.dictionaryValue?["interval.app.sync"] == .real(1.7e9))
    }

    /// A file already in the target form is "unchanged" only when that form reads.
    @Test func aBrokenMigratedFormFailsNotUnchanged() throws {
        let url = try file(.dictionary(PlistDictionary([("Theme", .string("dark")), ("YCFirstTime.records", .string("x"))])))
        let before = try readBytes(url)
        let result = try runProcess(ycft, ["migrate", "--in-place", url.path])
        #expect(result.status == 1)
        #expect(result.stderr.hasSuffix("ycft migrate: 1 file: 0 migrated, 0 unchanged, 0 skipped, 1 failed\n"), "\(result.stderr)")
        #expect(try readBytes(url) == before)
    }

    /// A replace stopped by the file-size limit (`ulimit -f`): one line, exit 2, the file as it
    /// was, and no backup left (the process used to die of SIGXFSZ, and migrate left FILE.bak).
    @Test func aWriteOverTheFileSizeLimitFailsCleanly() throws {
        let pad = (0..<300).map { (key: "pad\($0)", value: PlistValue.string(String(repeating: "x", count: 20))) }
        let url = try file(.dictionary(PlistDictionary([("YCFirstTime", .data(try archive()))] + pad)))
        let before = try readBytes(url)
        #expect(before.count > 4096)
        for command in ["migrate --in-place", "set", "migrate --in-place --backup .orig"] {
            let extra = command == "set" ? " onboarding.v1 --last-version 2" : ""
            let script = "ulimit -f 8; exec '\(ycft.path)' \(command) '\(url.path)'\(extra)"
            let result = try runProcess(URL(fileURLWithPath: "/bin/sh"), ["-c", script])
            #expect(result.status == 2, "\(command): \(result.status) \(result.stderr)")
            #expect(result.stderr.hasPrefix("ycft: \(url.path): cannot write: File too large\n"), "\(command): \(result.stderr)")
            #expect(try readBytes(url) == before)
            let left = try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path).sorted()
            #expect(left == ["f.plist"], "\(command): \(left)")
        }
    }

    /// Keys NSKeyedArchiver does not write, in the envelope or in `$top`: every command names
    /// them, and a write says it drops them (it did so without a word).
    @Test func extraEnvelopeKeysAreNamedAndTheirDropSaid() throws {
        var envelope = try #require(LibPlist.read(try archive()).value.dictionaryValue)
        var top = try #require(envelope["$top"]?.dictionaryValue)
        top["other"] = .uid(1)
        envelope["$top"] = .dictionary(top)
        envelope["$note"] = .string("kept by another tool")
        let url = try file(.dictionary(envelope))
        let verify = try runProcess(ycft, ["verify", url.path])
        #expect(verify.status == 0)
        #expect(verify.stderr.contains("\(url.path): warning: [envelope-extra-key] $note: NSKeyedArchiver does not write this key"), "\(verify.stderr)")
        #expect(verify.stderr.contains("\(url.path): warning: [envelope-extra-key] $top.other: NSKeyedArchiver does not write this key"))
        let set = try runProcess(ycft, ["set", url.path, "onboarding.v1", "--last-version", "9"])
        #expect(set.status == 0)
        #expect(set.stderr == """
            ycft: \(url.path): warning: dropped [envelope-extra-key] $note: NSKeyedArchiver does not write this key; the unarchiver ignores it, and the next save (YCFirstTime's, or a ycft write) drops it
            ycft: \(url.path): warning: dropped [envelope-extra-key] $top.other: NSKeyedArchiver does not write this key; the unarchiver ignores it, and the next save (YCFirstTime's, or a ycft write) drops it

            """)
        #expect(try StateFile.verify(readBytes(url)) == [])
    }

    /// Times that adding 978,307,200 moves by an ulp or more (a 2025 time, 0.1, -0.0, the
    /// smallest subnormal, a time in 2033 outside the range where the subtraction back is exact).
    static let movedTimes: [(String, Double)] = [
        ("k", 769_486_747.387_446_5), ("tiny", 0.1), ("zero", -0.0), ("sub", Double.leastNonzeroMagnitude), ("late", 1_000_000_000.000_000_1),
        ("early", -700_000_000.123_456_7), ("exact", 757_414_800),
    ]

    /// `migrate --to interval` keeps `YCFirstTime.records` beside the keys: the keys hold the
    /// times to their nearest value, and that is no disagreement (verify, dump and status
    /// used to call the file they had just written inconsistent, "states-disagree").
    @Test func intervalKeysBesideTheRecordsAgreeWithThem() throws {
        let records = try FirstTimeRecords(Self.movedTimes.map { ($0.0, FirstTimeRecord(lastVersion: "1", lastTime: $0.1)) })
        let domain = PlistValue.dictionary(PlistDictionary([("Theme", .string("dark")),
                                                            ("YCFirstTime", .data(try LegacyArchive.encode(records, format: .binary)))]))
        let url = try file(domain)
        let migrated = url.deletingLastPathComponent().appendingPathComponent("i.plist").path
        let migrate = try runProcess(ycft, ["migrate", "--to", "interval", "-q", "-o", migrated, url.path])
        #expect(migrate.status == 0 && migrate.stderr == "", "\(migrate.stderr)")
        let verify = try runProcess(ycft, ["verify", "-q", migrated])
        #expect(verify.status == 0 && verify.stderr == "", "\(verify.stderr)")
        let dump = try runProcess(ycft, ["dump", "--compact", migrated])
        #expect(dump.status == 0 && dump.stderr == "", "\(dump.stderr)")
        let state = try StateFile(readBytes(URL(fileURLWithPath: migrated))).state()
        #expect(state.findings.isEmpty, "\(state.findings)")
        #expect(state.records.map(\.record.lastTime?.bitPattern) == records.map(\.record.lastTime?.bitPattern))
        // A key moved by one ulp more is a disagreement, still.
        var domainAfter = try #require(LibPlist.read(readBytes(URL(fileURLWithPath: migrated))).value.dictionaryValue)
        let held = try #require(domainAfter["interval.k"]?.realValue)
        domainAfter["interval.k"] = .real(held.nextUp)
        try writeBytes(PropertyList.write(.dictionary(domainAfter), format: .binary), to: URL(fileURLWithPath: migrated))
        let changed = try runProcess(ycft, ["verify", "-q", migrated])
        #expect(changed.status == 1)
        #expect(changed.stderr.contains("[states-disagree] file: the plain-records state and its interval-keys copy differ (\"k\")"), "\(changed.stderr)")
    }

    /// With `--drop-versions` the keys alone hold the times: migrate names the records whose
    /// time they hold only to its nearest value (it said only which versions it dropped).
    @Test func droppingTheRecordsNamesTheTimesTheKeysRound() throws {
        let records = try FirstTimeRecords(Self.movedTimes.map { ($0.0, FirstTimeRecord(lastTime: $0.1)) })
        let url = try file(.dictionary(PlistDictionary([("YCFirstTime", .data(try LegacyArchive.encode(records, format: .binary)))])))
        let result = try runProcess(ycft, ["migrate", "--to", "interval", "--drop-versions", "-q", "--in-place", "--no-backup", url.path])
        #expect(result.status == 0)
        #expect(result.stderr == "ycft: \(url.path): the interval.* keys count seconds since 1970 and hold the times of 5 records "
            + "only to their nearest value: \"k\", \"late\", \"sub\", \"tiny\", \"zero\"\n")
        let back = try StateFile(readBytes(url)).state().records
        for (key, time) in Self.movedTimes {
            #expect(back[key]?.lastTime?.bitPattern == IntervalKey.storedTime(time).bitPattern, "\(key)")
        }
        #expect(IntervalKey.storedTime(0.1) != 0.1 && IntervalKey.storedTime(757_414_800) == 757_414_800)
    }
}
