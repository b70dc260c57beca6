import Foundation
import Testing
import FirstTimeArchive
import FirstTimeCore
import Plist
import PlistCore
import TestSupport

/// A defaults file whose unrelated keys hold 4-byte reals (CoreFoundation writes a `Float`
/// preference so, marker `0x22`): every in-place command writes each of those objects back
/// byte for byte, a signalling NaN's payload included, and `dump --raw` shows them as
/// `{"$real32": …}`. They used to come back as 8-byte reals (the NaN quieted) while every
/// command exited 0.
@Suite struct FourByteRealsThroughTheTool {
    typealias Raw = RawBinaryPlist
    let ycft = TestPaths.executable("ycft")

    /// Key, the real's bits, what `dump --raw --compact` prints for it.
    static let reals: [(key: String, bits: UInt32, json: String)] = [
        ("volume", Float(0.8).bitPattern, #"{"$real32":0.8}"#),
        ("negativeZero", (-Float(0)).bitPattern, #"{"$real32":-0.0}"#),
        ("signallingNaN", 0x7F80_0001, #"{"$real32":"NaN"}"#),
        ("quietNaNPayload", 0x7FC0_1234, #"{"$real32":"NaN"}"#),
        ("smallest", 1, #"{"$real32":1e-45}"#),
        ("infinity", Float.infinity.bitPattern, #"{"$real32":"Infinity"}"#),
    ]

    static func object(_ bits: UInt32) -> [UInt8] { [0x22] + Raw.bigEndian(UInt64(bits), 4) }

    /// The defaults file, assembled byte by byte: the archive first, then the reals.
    static func defaults() throws -> [UInt8] {
        let archive = try readBytes(TestPaths.fixtures.appendingPathComponent("valid/ycft/three-records.plist"))
        return Raw.dictionary([("YCFirstTime", Raw.data(archive))] + reals.map { ($0.key, object($0.bits)) })
    }

    func file(_ bytes: [UInt8], _ name: String = "d.plist") throws -> URL {
        let url = try TestPaths.temporaryDirectory().appendingPathComponent(name)
        try writeBytes(bytes, to: url)
        return url
    }

    /// Every real key holds exactly its original 4 bytes and reads back as the same real.
    func expectRealsKept(_ url: URL, _ context: String) throws {
        let found = Raw.differences(try readBytes(url), Self.reals.map { ($0.key, Self.object($0.bits), .real32($0.bits)) })
        #expect(found.isEmpty, "\(context): \(found)")
    }

    @Test func dumpRawShowsEachAsAFourByteReal() throws {
        let url = try file(try Self.defaults())
        let result = try runProcess(ycft, ["dump", "--raw", "--compact", url.path])
        #expect(result.status == 0, "\(result.stderr)")
        for r in Self.reals { #expect(result.stdoutText.contains(#""\#(r.key)":\#(r.json)"#), "\(r.key): \(result.stdoutText)") }
    }

    @Test(arguments: Raw.rewritingCommands)
    func inPlaceCommandsKeepEveryRealsBytes(_ arguments: [String]) throws {
        let url = try file(try Self.defaults())
        let before = try readBytes(url)
        let result = try runProcess(ycft, arguments.map { $0 == "FILE" ? url.path : $0 })
        #expect(result.status == 0, "\(arguments): \(result.stderr)")
        #expect(try readBytes(url) != before, "\(arguments) wrote nothing")
        try expectRealsKept(url, "\(arguments)")
    }

    @Test func migrateThereAndBackAndPackIntoKeepThem() throws {
        let url = try file(try Self.defaults())
        #expect(try runProcess(ycft, ["migrate", "--in-place", "--no-backup", url.path]).status == 0)
        #expect(try runProcess(ycft, ["migrate", "--in-place", "--no-backup", "--to", "legacy", url.path]).status == 0)
        try expectRealsKept(url, "migrate there and back")
        let json = try file(try runProcess(ycft, ["dump", url.path]).stdout, "r.json")
        #expect(try runProcess(ycft, ["pack", "--into", url.path, json.path]).status == 0)
        try expectRealsKept(url, "pack --into")
    }

    /// An `interval.*` gate stored as a 4-byte real is read at its exact (widened) value, as
    /// IntervalClient's `double(forKey:)` reads a Float32 number.
    @Test func anIntervalGateInFourBytesIsReadWidened() throws {
        let url = try file(Raw.dictionary([("interval.k", Self.object(Float(1_700_000_000).bitPattern))]))
        let result = try runProcess(ycft, ["dump", "--compact", url.path])
        #expect(result.status == 0, "\(result.stderr)")
        let seconds = Double(Float(1_700_000_000)) - 978_307_200
        #expect(try StateFile(readBytes(url)).state().records["k"]?.lastTime == seconds)
    }
}
