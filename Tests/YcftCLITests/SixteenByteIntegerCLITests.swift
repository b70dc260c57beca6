import Foundation
import Testing
import FirstTimeArchive
import FirstTimeCore
import Plist
import PlistCore
import TestSupport

/// Issue 25 item 5 through the tool: a defaults file holding a YCFirstTime archive beside
/// unrelated keys whose integers are 16 bytes (and an 8-byte -1). `dump --raw` prints each exact
/// decimal, and every in-place command writes each of those keys' objects back byte for byte.
/// They used to become their low 64 bits (2^64+1 → 1, a 16-byte -1 → 18446744073709551615)
/// while `verify` passed.
@Suite struct SixteenByteIntegersThroughTheTool {
    typealias Raw = RawBinaryPlist
    let ycft = TestPaths.executable("ycft")

    /// Key, exact object bytes, the value read, the decimal `dump --raw` prints.
    static let integers: [(key: String, object: [UInt8], value: PlistInteger, decimal: String)] = [
        ("two64plus1", Raw.int16(high: 1, low: 1), .wide(high: 1, low: 1), "18446744073709551617"),
        ("two63", Raw.int16(high: 0, low: 1 << 63), .unsigned(1 << 63), "9223372036854775808"),
        ("two64minus1", Raw.int16(high: 0, low: .max), .unsigned(.max), "18446744073709551615"),
        ("minusOne16", Raw.int16(high: .max, low: .max), .wide(high: -1, low: .max), "-1"),
        ("two127minus1", Raw.int16(high: UInt64(Int64.max), low: .max), .wide(high: .max, low: .max),
         "170141183460469231731687303715884105727"),
        ("minusTwo127", Raw.int16(high: 1 << 63, low: 0), .wide(high: .min, low: 0), "-170141183460469231731687303715884105728"),
        ("minusOne8", [0x13] + Raw.bigEndian(.max, 8), .signed(-1), "-1"),
    ]

    static func archive() throws -> [UInt8] {
        try readBytes(TestPaths.fixtures.appendingPathComponent("valid/ycft/three-records.plist"))
    }

    /// The defaults file, assembled byte by byte: the archive first, then the integers.
    static func defaults() throws -> [UInt8] {
        Raw.dictionary([("YCFirstTime", Raw.data(try archive()))] + integers.map { ($0.key, $0.object) })
    }

    func file(_ bytes: [UInt8], _ name: String = "d.plist") throws -> URL {
        let url = try TestPaths.temporaryDirectory().appendingPathComponent(name)
        try writeBytes(bytes, to: url)
        return url
    }

    /// Every integer key holds exactly its original object bytes and reads back as the same value.
    func expectIntegersKept(_ url: URL, _ context: String) throws {
        let found = Raw.differences(try readBytes(url), Self.integers.map { ($0.key, $0.object, .integer($0.value)) })
        #expect(found.isEmpty, "\(context): \(found)")
    }

    @Test func dumpRawPrintsEveryExactDecimal() throws {
        let url = try file(try Self.defaults())
        let result = try runProcess(ycft, ["dump", "--raw", "--compact", url.path])
        #expect(result.status == 0, "\(result.stderr)")
        for i in Self.integers { #expect(result.stdoutText.contains(#""\#(i.key)":\#(i.decimal)"#), "\(i.key)") }
    }

    @Test(arguments: Raw.rewritingCommands)
    func inPlaceCommandsKeepEveryIntegersBytes(_ arguments: [String]) throws {
        let url = try file(try Self.defaults())
        let before = try readBytes(url)
        let result = try runProcess(ycft, arguments.map { $0 == "FILE" ? url.path : $0 })
        #expect(result.status == 0, "\(arguments): \(result.stderr)")
        #expect(try readBytes(url) != before, "\(arguments) wrote nothing")
        try expectIntegersKept(url, "\(arguments)")
        if arguments[0] != "reset" { #expect(try runProcess(ycft, ["verify", url.path]).status == 0) }
    }

    @Test func migrateThereAndBackAndPackIntoKeepThem() throws {
        let url = try file(try Self.defaults())
        #expect(try runProcess(ycft, ["migrate", "--in-place", "--no-backup", url.path]).status == 0)
        #expect(try runProcess(ycft, ["migrate", "--in-place", "--no-backup", "--to", "legacy", url.path]).status == 0)
        try expectIntegersKept(url, "migrate there and back")
        let json = try file(try runProcess(ycft, ["dump", url.path]).stdout, "r.json")
        #expect(try runProcess(ycft, ["pack", "--into", url.path, json.path]).status == 0)
        try expectIntegersKept(url, "pack --into")
    }

    /// XML cannot hold what lies beyond -2^63 ... 2^64-1 as Apple reads it: converting such a
    /// file is refused, naming the key, and the file stays as it was.
    @Test func convertingToXMLIsRefusedNamingTheKey() throws {
        let url = try file(try Self.defaults())
        let before = try readBytes(url)
        let result = try runProcess(ycft, ["migrate", "--in-place", "--no-backup", "--plist-format", "xml", url.path])
        #expect(result.status != 0)
        #expect(result.stderr.contains("integer 18446744073709551617 lies outside -2^63 ... 2^64-1"), "\(result.stderr)")
        #expect(result.stderr.contains("(at two64plus1)"), "\(result.stderr)")
        #expect(try readBytes(url) == before)
    }

    /// An XML defaults file keeps its integers at both ends of XML's range, as text and value.
    @Test func anXMLFileKeepsItsExtremeIntegers() throws {
        let xml = try PropertyList.write(.dictionary(PlistDictionary([
            ("YCFirstTime", .data(try Self.archive())),
            ("max", .integer(.unsigned(.max))), ("half", .integer(.unsigned(1 << 63))), ("min", .integer(.signed(.min))),
        ])), format: .xml)
        for arguments in [["set", "FILE", "k", "--last-version", "1"], ["reset", "FILE"], ["migrate", "--in-place", "--no-backup", "FILE"]] {
            let url = try file(xml)
            #expect(try runProcess(ycft, arguments.map { $0 == "FILE" ? url.path : $0 }).status == 0, "\(arguments)")
            let bytes = try readBytes(url)
            let text = String(decoding: bytes, as: UTF8.self)
            for literal in ["18446744073709551615", "9223372036854775808", "-9223372036854775808"] {
                #expect(text.contains("<integer>\(literal)</integer>"), "\(arguments): \(literal)")
            }
            let read = try #require(LibPlist.read(bytes).value.dictionaryValue)
            #expect(read["max"] == .integer(.unsigned(.max)) && read["half"] == .integer(.unsigned(1 << 63))
                    && read["min"] == .integer(.signed(.min)), "\(arguments)")
        }
    }

    /// An XML `<integer>` beyond 64 bits is not a plist Apple reads: every command refuses the
    /// file, naming the key path, and leaves it alone.
    @Test func anXMLIntegerBeyondSixtyFourBitsIsRefused() throws {
        let archive = Base64.encode(try Self.archive())
        let xml = Array("""
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0">
        <dict>
        \t<key>YCFirstTime</key>
        \t<data>\(archive)</data>
        \t<key>counter</key>
        \t<integer>18446744073709551616</integer>
        </dict>
        </plist>

        """.utf8)
        for arguments in [["dump", "--raw", "FILE"], ["set", "FILE", "k", "--last-version", "1"], ["reset", "FILE"],
                          ["migrate", "--in-place", "--no-backup", "FILE"]] {
            let url = try file(xml)
            let result = try runProcess(ycft, arguments.map { $0 == "FILE" ? url.path : $0 })
            // 1: the input is not a property list Apple reads (a content problem).
            #expect(result.status == 1, "\(arguments): \(result.status) \(result.stderr)")
            #expect(result.stderr.contains(#"counter: "18446744073709551616" is not an integer as Apple reads it"#), "\(arguments): \(result.stderr)")
            #expect(try readBytes(url) == xml, "\(arguments)")
        }
    }
}

/// An archive whose `$version` is a 16-byte 100000 is NSKeyedArchiver's version, as
/// NSKeyedUnarchiver reads it by value: the fast path (libplist's tree, which holds only a
/// 16-byte integer's low half) steps aside and the checked path decodes it.
@Suite struct SixteenByteArchiveVersion {
    @Test func decodesAndDumpsWithoutAWarning() throws {
        var records = FirstTimeRecords()
        records["k"] = FirstTimeRecord(lastVersion: "1.0", lastTime: 757_414_800.5)
        guard case var .dictionary(envelope) = LegacyArchive.encode(records) else { Issue.record("not a dictionary"); return }
        envelope["$version"] = .integer(.unsigned(100_000))
        let bytes = try PropertyList.write(.dictionary(envelope), format: .binary)
        #expect(RawBinaryPlist.valueObject(bytes, key: "$version") == RawBinaryPlist.int16(high: 0, low: 100_000))
        #expect(try ArchiveReader.decode(bytes) == records)
        #expect(StateFile.verify(bytes) == [])
        let dir = try TestPaths.temporaryDirectory()
        let url = dir.appendingPathComponent("v.plist")
        try writeBytes(bytes, to: url)
        let dumped = try runProcess(TestPaths.executable("ycft"), ["dump", "--raw", "--compact", url.path])
        #expect(dumped.status == 0 && dumped.stderr.isEmpty, "\(dumped.stderr)")
        #expect(dumped.stdoutText.hasPrefix(#"{"$archiver":"NSKeyedArchiver","$version":100000,"#))
        // Beyond 64 bits it is another version: refused, naming it exactly.
        envelope["$version"] = .integer(.wide(high: 1, low: 100_000))
        let wrong = try PropertyList.write(.dictionary(envelope), format: .binary)
        #expect(throws: (any Error).self) { try ArchiveReader.decode(wrong) }
    }
}
