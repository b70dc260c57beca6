import Foundation
import Testing
import FirstTimeArchive
import FirstTimeCore
import Plist
import PlistCore
import TestSupport

/// libplist reads XML values loosely; ycft refuses a file whose values Apple's parser reads
/// differently, so migrate never rewrites a file with a changed value.
@Suite struct LenientXMLThroughTheTool {
    let ycft = TestPaths.executable("ycft")

    /// An XML defaults file holding the fixture archive and one unrelated value.
    func defaults(with unrelated: String) throws -> [UInt8] {
        let archive = try readBytes(TestPaths.fixtures.appendingPathComponent("valid/ycft/three-records.plist"))
        return Array("""
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
        \t<key>YCFirstTime</key>
        \t<data>\(Data(archive).base64EncodedString())</data>
        \t\(unrelated)
        </dict>
        </plist>

        """.utf8)
    }

    @Test(arguments: [
        ("<key>count</key><integer>010</integer>", #"count: "010" starts with a zero, which libplist reads as octal where Apple reads decimal; write it without the zero"#),
        ("<key>big</key><integer>-99999999999999999999</integer>", #"big: "-99999999999999999999" is not an integer as Apple reads it"#),
        ("<key>dup</key><true/><key>dup</key><false/>", #"dup: duplicate dictionary key "dup""#),
        ("<key>when</key><date>2025-02-30T00:00:00Z</date>", #"when: "2025-02-30T00:00:00Z" is not a date like 2025-01-01T09:00:00Z"#),
        ("<key>flag</key><true>false</true>", "flag: <true> must be empty"),
        ("<key>orphan</key>", "orphan: a <key> without a value in <dict>"),
    ])
    func migrateRefusesAndLeavesTheFileAlone(_ unrelated: String, _ why: String) throws {
        let dir = try TestPaths.temporaryDirectory()
        let file = dir.appendingPathComponent("prefs.plist")
        let original = try defaults(with: unrelated)
        try writeBytes(original, to: file)
        let result = try runProcess(ycft, ["migrate", "--in-place", file.path])
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("ycft: \(file.path): malformed XML plist: \(why) (at line "), "\(result.stderr)")
        #expect(result.stderr.filter { $0 == "\n" }.count == 2, "\(result.stderr)")
        #expect(try readBytes(file) == original)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["prefs.plist"])
        let dump = try runProcess(ycft, ["dump", "--raw", file.path])
        #expect(dump.status == 1)
    }

    @Test func aCleanXMLDefaultsFileStillMigratesExactly() throws {
        let dir = try TestPaths.temporaryDirectory()
        let file = dir.appendingPathComponent("prefs.plist")
        try writeBytes(try defaults(with: "<key>count</key><integer>10</integer>"), to: file)
        let result = try runProcess(ycft, ["migrate", "--in-place", "--no-backup", file.path])
        #expect(result.status == 0, "\(result.stderr)")
        let migrated = try LibPlist.read(readBytes(file)).value.dictionaryValue
        #expect(migrated?["count"] == .integer(.signed(10)))
        #expect(migrated?["YCFirstTime.records"] != nil)
    }

    /// What `dump --raw` once showed as something (libplist's reading) is refused, naming the place.
    @Test(arguments: [
        ("<integer>12abc</integer>", #"top level: "12abc" is not an integer as Apple reads it"#),
        ("<integer/>", #"top level: "" is not an integer as Apple reads it"#),
        ("<integer>99999999999999999999</integer>", #"top level: "99999999999999999999" is not an integer as Apple reads it"#),
        ("<real>abc</real>", #"top level: "abc" is not a real as Apple reads it"#),
        ("<real>0x1p3</real>", #"top level: "0x1p3" is not a real as Apple reads it"#),
        ("<date>yesterday</date>", #"top level: "yesterday" is not a date like 2025-01-01T09:00:00Z"#),
        ("<data>%%%%</data>", #"top level: "%%%%" is not base64"#),
        ("<true>false</true>", "top level: <true> must be empty"),
        ("<dict><key>k</key></dict>", "k: a <key> without a value in <dict>"),
        ("<true/></plist><plist><false/>", "content after </plist>"),
    ])
    func dumpRawRefusesWhatLibplistWouldReadLoosely(_ body: String, _ why: String) throws {
        let xml = "<?xml version=\"1.0\"?>\n<plist version=\"1.0\">\n\(body)\n</plist>\n"
        let result = try runProcess(ycft, ["dump", "--raw", "-"], stdin: Array(xml.utf8))
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == "ycft: <stdin>: malformed XML plist: \(why) (at line 3)\n")
    }
}
