import Foundation
import Testing
import FirstTimeArchive
import Plist
import TestSupport

/// `set` on a file that holds the state as IntervalClient keys alone: the keys count seconds
/// since 1970 in a double, so a time is written as its nearest value there and `set` says so;
/// a record without a time cannot be held at all and is refused, as a version is.
@Suite struct IntervalKeysEdits {
    let ycft = TestPaths.executable("ycft")
    static let xml = Array("""
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0"><dict><key>interval.k</key><real>978307200</real><key>other</key><integer>7</integer></dict></plist>

        """.utf8)

    func file() throws -> URL {
        let url = try TestPaths.temporaryDirectory().appendingPathComponent("i.plist")
        try writeBytes(Self.xml, to: url)
        return url
    }

    @Test func aTimeTheKeysHoldOnlyToItsNearestValueIsWrittenSoAndSaid() throws {
        for (given, stored, shownGiven, shownStored) in [
            ("-0.0", 0.0, "-0.0", "0.0"),
            ("0.000000001", 0.0, "1e-09", "0.0"),
            ("757414800.123456789", 757414800.123457, "757414800.1234568", "757414800.123457"),
        ] {
            let url = try file()
            let set = try runProcess(ycft, ["set", "--seconds", "--last-time", given, url.path, "k"])
            #expect(set.status == 0)
            #expect(set.stderr == "ycft: \(url.path): warning: \"interval.k\" counts seconds since 1970 and holds the time "
                    + "\(shownGiven) as \(shownStored), its nearest value\n")
            let state = try StateFile(try readBytes(url)).state()
            #expect(state.records["k"]?.lastTime?.bitPattern == stored.bitPattern)
            #expect(IntervalKey.storedTime(Double(given) ?? .nan).bitPattern == stored.bitPattern)
        }
        // A time the keys hold exactly: silence.
        let url = try file()
        let exact = try runProcess(ycft, ["set", "--last-time", "2025-01-01T09:00:00Z", url.path, "k"])
        #expect(exact.status == 0)
        #expect(exact.stderr == "")
        #expect(try StateFile(try readBytes(url)).state().records["k"]?.lastTime == 757414800)
    }

    @Test func aRecordWithoutATimeIsRefusedAndNothingIsWritten() throws {
        for args in [["--no-last-time"], ["--no-last-time", "--no-last-version"]] {
            let url = try file()
            let result = try runProcess(ycft, ["set"] + args + [url.path, "k"])
            #expect(result.status == 1)
            #expect(result.stderr == "ycft: \(url.path): IntervalClient keys hold no record without a time (\"k\"); "
                    + "unset the record, or migrate the file to the records format first\n")
            #expect(try readBytes(url) == Self.xml)
        }
    }
}
