import Foundation
import Testing
import FirstTimeArchive
import FirstTimeCore
import Plist
import PlistCore
import TestSupport

/// No trap reachable from input: the extremes of every numeric value through every command.
@Suite struct ExtremeValuesThroughEveryCommand {
    let ycft = TestPaths.executable("ycft")

    static let times: [Double] = [
        0, -0.0, 1e19, -1e19, 1e308, -1e308, .nan, .infinity, -.infinity, .leastNonzeroMagnitude,
        -.leastNonzeroMagnitude, .leastNormalMagnitude, Double(Int64.min), Double(Int64.max), Double(UInt64.max),
        .greatestFiniteMagnitude, 1e12, -63_114_076_800.5,
    ]

    static let gates = ["once", "per-version", "days:1e30", "days:0.0000001", "days:3.4e38", "hourly", "yearly",
                        "every:9223372036854775807year", "every:9223372036854775807minute", "every:2147483648month"]

    func gateArguments(_ key: String) -> [String] { Self.gates.flatMap { ["--gate", "\(key)=\($0)"] } }

    /// Runs ycft and checks that it answered rather than crashed.
    @discardableResult
    func answers(_ arguments: [String], stdin: [UInt8] = [], _ context: String) throws -> ProcessResult {
        let result = try runProcess(ycft, arguments, stdin: stdin)
        #expect((0...2).contains(result.status), "\(context): \(arguments) exited \(result.status)\n\(result.stderr)")
        #expect(!result.stderr.contains("Fatal error") && !result.stderr.contains("runtime failure"), "\(context): \(arguments)")
        return result
    }

    @Test(arguments: times)
    func everyCommandAnswersForAnExtremeLastTime(_ time: Double) throws {
        let dir = try TestPaths.temporaryDirectory()
        let archive = dir.appendingPathComponent("a.plist")
        var records = FirstTimeRecords()
        records["k"] = FirstTimeRecord(lastVersion: "1.0", lastTime: time)
        try writeBytes(try LegacyArchive.encode(records, format: .binary), to: archive)
        let defaults = dir.appendingPathComponent("d.plist")
        try writeBytes(try PropertyList.write(.dictionary(PlistDictionary([
            ("YCFirstTime", .data(try readBytes(archive))), ("other", .real(time)),
        ])), format: .binary), to: defaults)
        let context = "lastTime \(time)"
        for file in [archive.path, defaults.path] {
            let dumped = try answers(["dump", file], context)
            try answers(["dump", "--raw", file], context)
            try answers(["dump", "--objects", file], context)
            for format in ["text", "json", "github", "junit"] { try answers(["verify", "--format", format, file], context) }
            for zone in ["UTC", "America/New_York", "Pacific/Kiritimati"] {
                for now in ["2025-01-01T00:00:00Z", "0001-01-01T00:00:00Z", "9999-12-31T23:59:59.999999999Z"] {
                    let text = try answers(["status", "--now", now, "--time-zone", zone, "--app-version", "1.0"] + gateArguments("k") + [file], context)
                    // A date column never shows a raw number (the exact interval "(8.64e+34 s)" may).
                    let dates = text.stdoutText.replacingOccurrences(of: #"\([^)]* s\)"#, with: "", options: .regularExpression)
                    #expect(!dates.contains("e+"), "\(context): \(text.stdoutText)")
                    try answers(["status", "--format", "json", "--now", now, "--time-zone", zone, "--no-app-version"] + gateArguments("k") + [file], context)
                }
            }
            if dumped.status == 0 {
                for format in ["binary", "xml"] { try answers(["pack", "--plist-format", format, "-"], stdin: dumped.stdout, context) }
            }
        }
        for target in ["records", "interval"] {
            try answers(["migrate", "--dry-run", "--to", target, defaults.path], context)
            let out = dir.appendingPathComponent("out-\(target).plist")
            let migrated = try answers(["migrate", "-o", out.path, "--to", target, defaults.path], context)
            if migrated.status == 0 {
                try answers(["dump", out.path], context)
                try answers(["status", "--now", "2025-01-01T00:00:00Z", "--no-app-version"] + gateArguments("k") + [out.path], context)
                try answers(["migrate", "--dry-run", "--to", "legacy", out.path], context)
            }
        }
    }

    @Test func intervalKeysWithExtremeNumbers() throws {
        let dir = try TestPaths.temporaryDirectory()
        let file = dir.appendingPathComponent("interval.plist")
        try writeBytes(try PropertyList.write(.dictionary(PlistDictionary([
            ("interval.a", .integer(.signed(Int64.min))), ("interval.b", .integer(.signed(Int64.max))),
            ("interval.c", .integer(.unsigned(UInt64.max))), ("interval.d", .real(1e308)), ("interval.e", .real(-1e308)),
            ("interval.f", .real(.nan)), ("interval.g", .real(.infinity)), ("interval.h", .real(-0.0)),
            ("interval.i", .real(.leastNonzeroMagnitude)), ("interval.j", .integer(.signed(0))),
        ])), format: .binary), to: file)
        let context = "interval keys"
        try answers(["dump", file.path], context)
        try answers(["dump", "--raw", file.path], context)
        for key in ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"] {
            try answers(["status", "--now", "2025-01-01T00:00:00Z", "--time-zone", "Europe/Paris", "--app-version", "1"] + gateArguments(key) + [file.path], context)
        }
        try answers(["migrate", "--dry-run", "--to", "legacy", file.path], context)
        try answers(["migrate", "-o", dir.appendingPathComponent("out.plist").path, "--to", "legacy", file.path], context)
    }

    @Test func packAnswersForExtremeJSONNumbers() throws {
        for literal in ["18446744073709551615", "-9223372036854775808", "9223372036854775807", "1e400", "-1e400", "4.9e-324",
                        "1e-400", "-0", "0.000000000000000000000000000000001", "123456789012345678901234567890"] {
            let json = #"{"format":"ycfirsttime-records","formatVersion":1,"records":{"k":{"lastTime":\#(literal),"lastVersion":"1"}}}"#
            try answers(["pack", "-"], stdin: Array(json.utf8), "lastTime \(literal)")
            let utc = #"{"format":"ycfirsttime-records","formatVersion":1,"records":{"k":{"lastTimeUTC":"9999-12-31T23:59:59.999999999Z","lastTime":\#(literal)}}}"#
            try answers(["pack", "-"], stdin: Array(utc.utf8), "lastTimeUTC with \(literal)")
        }
    }
}
