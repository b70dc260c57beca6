import Foundation
import Testing
import TestSupport

/// An XML defaults file whose declaration names an encoding other than UTF-8, through the real
/// binary: CoreFoundation converts it (or refuses a name it does not know), libplist would read
/// its bytes as UTF-8; every command refuses it naming the encoding, and a write leaves the
/// file as it was (a rewrite in UTF-8 would change what the app reads from the other keys).
@Suite struct DeclaredEncodingThroughTheTool {
    let ycft = TestPaths.executable("ycft")

    /// The XML defaults fixture declared in `name`, with `français` in Latin-1 in another key.
    static func fixture(declaring name: String) throws -> [UInt8] {
        let plist = try readBytes(TestPaths.fixtures.appendingPathComponent("valid/defaults/export.xml.plist"))
        var text = String(decoding: plist, as: UTF8.self)
        text = text.replacingOccurrences(of: #"encoding="UTF-8""#, with: "encoding=\"\(name)\"")
        let parts = text.components(separatedBy: "<string>fr</string>")
        #expect(parts.count == 2)
        return Array(parts[0].utf8) + Array("<string>fran".utf8) + [0xE7] + Array("ais</string>".utf8) + Array(parts[1].utf8)
    }

    func file(_ bytes: [UInt8]) throws -> URL {
        let url = try TestPaths.temporaryDirectory().appendingPathComponent("prefs.plist")
        try writeBytes(bytes, to: url)
        return url
    }

    @Test(arguments: ["ISO-8859-1", "x-bogus"])
    func readsAndWritesAreRefusedNamingTheEncoding(_ name: String) throws {
        let bytes = try Self.fixture(declaring: name)
        let url = try file(bytes)
        let why = "an XML property list declared in encoding \"\(name)\": ycft reads XML property lists in UTF-8 only; "
            + "convert it first (iconv -f \(name) -t UTF-8) and declare encoding=\"UTF-8\""
        let dumped = try runProcess(ycft, ["dump", url.path])
        #expect(dumped.status == 1)
        #expect(dumped.stdoutText == "")
        #expect(dumped.stderr == "ycft: \(url.path): \(why)\n")
        let verified = try runProcess(ycft, ["verify", url.path])
        #expect(verified.status == 1)
        #expect(verified.stdoutText == "")
        #expect(verified.stderr == "\(url.path): error: [plist-unreadable] file: \(why)\n"
                + "ycft verify: 1 file: 0 passed, 0 failed, 1 unreadable (1 error, 0 warnings)\n")
        let set = try runProcess(ycft, ["set", url.path, "rate.prompt", "--last-version", "3.0"])
        #expect(set.status == 1)
        #expect(set.stdoutText == "")
        #expect(set.stderr == "ycft: \(url.path): \(why)\n")
        #expect(try readBytes(url) == bytes)
        #expect(try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path) == ["prefs.plist"])
    }
}
