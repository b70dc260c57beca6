import Foundation
import Testing
import FirstTimeArchive
import FirstTimeCore
import Plist
import PlistCore
import TestSupport

/// Text from a file never reaches the terminal raw: keys, versions, class names and file names
/// with ESC (and OSC, bidi and line-separator characters) come out escaped in one style.
@Suite struct TerminalEscapesThroughTheTool {
    let ycft = TestPaths.executable("ycft")
    static let hostile = "a\u{1B}]0;pwned\u{07}\u{1B}[31mb\u{202E}c\u{2028}d\n"
    static let shown = #"a\u{1B}]0;pwned\u{7}\u{1B}[31mb\u{202E}c\u{2028}d\n"#

    func noRawControl(_ result: ProcessResult, _ context: String) {
        for (name, text) in [("stdout", result.stdoutText), ("stderr", result.stderr)] {
            #expect(!text.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{07}" || $0 == "\u{202E}" || $0 == "\u{2028}" },
                    "\(context): raw control character on \(name)")
        }
    }

    @Test func statusShowsHostileKeysAndVersionsEscaped() throws {
        let dir = try TestPaths.temporaryDirectory()
        let file = dir.appendingPathComponent("k.plist")
        try writeBytes(try LegacyArchive.encode(records([(Self.hostile, Self.hostile, 2.5)]), format: .binary), to: file)
        let result = try runProcess(ycft, ["status", "--now", "2025-01-01T00:00:00Z", "--app-version", Self.hostile,
                                           "--gate", "\(Self.hostile)=once", file.path])
        #expect(result.status == 0)
        noRawControl(result, "status")
        #expect(result.stdoutText.contains("\(Self.shown)  \(Self.shown)  2001-01-01T00:00:02.500000Z"))
        #expect(result.stdoutText.contains("app version \"\(Self.shown)\""))
        // JSON keeps the exact string (escaped the JSON way).
        let json = try runProcess(ycft, ["status", "--format", "json", "--now", "2025-01-01T00:00:00Z", file.path])
        #expect(json.stdoutText.contains(#""key" : "a\u001b]0;pwned\u0007\u001b[31mb"#))
    }

    @Test func verifyAndDumpShowHostileClassNamesEscaped() throws {
        let dir = try TestPaths.temporaryDirectory()
        var objects = appleLayoutOneKey
        objects[9] = classObject([Self.hostile, "NSObject"])
        let file = dir.appendingPathComponent("class.plist")
        try writeBytes(try PropertyList.write(archiveValue(objects), format: .binary), to: file)
        let verify = try runProcess(ycft, ["verify", file.path])
        #expect(verify.status == 1)
        noRawControl(verify, "verify")
        #expect(verify.stderr.contains("expected YCFirstTimeObject, found \(Self.shown)"))
        let dump = try runProcess(ycft, ["dump", file.path])
        #expect(dump.status == 1)
        noRawControl(dump, "dump")
        #expect(dump.stderr.contains("found \(Self.shown)"), "\(dump.stderr)")
    }

    @Test func hostileFileNamesAreEscapedInMessagesAndListings() throws {
        let dir = try TestPaths.temporaryDirectory()
        let name = "x\u{1B}[2J\u{1B}]8;;evil\u{07}.plist"
        let file = dir.appendingPathComponent(name)
        try FileManager.default.copyItem(at: TestPaths.fixtures.appendingPathComponent("valid/defaults/export.binary.plist"), to: file)
        let broken = dir.appendingPathComponent("b\u{1B}[31m.plist")
        try writeBytes(Array("garbage".utf8), to: broken)
        let result = try runProcess(ycft, ["migrate", "--dry-run", dir.path])
        noRawControl(result, "migrate --dry-run")
        #expect(result.stdoutText.contains(#"x\u{1B}[2J\u{1B}]8;;evil\u{7}.plist: would migrate 3 records"#))
        #expect(result.stderr.contains(#"b\u{1B}[31m.plist: not a property list"#))
        let verify = try runProcess(ycft, ["verify", broken.path])
        noRawControl(verify, "verify")
    }

    @Test func oneStyleEverywhere() {
        // dump's messages, migrate's key lists and pack's paths all quote with the same escaper.
        let fake = FakeIO(stdin: Array(#"{"format":"ycfirsttime-records","formatVersion":1,"records":{"k":{"lastTime":1,"\u001bx":2}}}"#.utf8))
        #expect(fake.run(["pack", "-"]) == 1)
        #expect(fake.stderr == #"ycft: <stdin>: records["k"]: unknown member "\u{1B}x""# + "\n")
    }
}

/// Messages that point the right way.
@Suite struct MessagesPointTheRightWay {
    let ycft = TestPaths.executable("ycft")

    @Test func garbageUnderTheKeyIsNotCalledANonPlistFile() throws {
        let dir = try TestPaths.temporaryDirectory()
        let file = dir.appendingPathComponent("garbage.plist")
        try writeBytes(try PropertyList.write(.dictionary(PlistDictionary([("YCFirstTime", .data(Array("garbage".utf8))),
                                                                             ("other", .integer(.signed(1)))])), format: .binary), to: file)
        let said = #""YCFirstTime" holds data that is not an archive: not a property list (neither binary 'bplist00' nor XML)"#
        let dump = try runProcess(ycft, ["dump", file.path])
        #expect(dump.status == 1)
        #expect(dump.stderr == "ycft: \(file.path): \(said) (ycft dump --raw shows everything it holds)\n")
        let verify = try runProcess(ycft, ["verify", file.path])
        #expect(verify.stderr == "\(file.path): error: [plist-unreadable] file: \(said)\n"
                + "ycft verify: 1 file: 0 passed, 0 failed, 1 unreadable (1 error, 0 warnings)\n")
        let migrate = try runProcess(ycft, ["migrate", "--dry-run", file.path])
        #expect(migrate.stderr.hasPrefix("ycft: \(file.path): \(said)\n"))
        // The device's unarchive fails on such data and it starts afresh: status says so.
        let status = try runProcess(ycft, ["status", "--gate", "k=once", file.path])
        #expect(status.status == 0)
        #expect(status.stderr == "ycft: \(file.path): warning: [plist-unreadable] \(said)\n")
        #expect(status.stdoutText.contains("k (never run)  once  yes"))
        #expect(status.stdoutText.hasSuffix("\nYCFirstTime would discard this state ([plist-unreadable] \(said)): every gate runs as on a fresh install\n"
                                            + "('ycft reset --force' removes it, as the app's reset() would)\n"))
    }

    @Test func aRepeatedTopLevelMemberIsNotABlockKey() {
        let fake = FakeIO(stdin: Array(#"{"format":"ycfirsttime-records","format":"x","formatVersion":1,"records":{}}"#.utf8))
        #expect(fake.run(["pack", "-"]) == 1)
        #expect(fake.stderr == "ycft: <stdin>: top level: repeated member \"format\"\n")
        let block = FakeIO(stdin: Array(#"{"format":"ycfirsttime-records","formatVersion":1,"records":{"k":{},"k":{}}}"#.utf8))
        #expect(block.run(["pack", "-"]) == 1)
        #expect(block.stderr == "ycft: <stdin>: records: duplicate block key \"k\"\n")
    }

    @Test func theLargestInputSizeIsSaidExactly() {
        let fake = FakeIO()
        #expect(fake.run(["dump", "--max-input-size", "4G", "x"]) == 2)
        #expect(fake.stderr.hasPrefix("Error: The value '4G' is invalid for '--max-input-size <size>': at most 4294967295 bytes (4G less one byte; libplist reads 32-bit lengths)\n"))
        let ok = FakeIO()
        #expect(ok.run(["dump", "--max-input-size", "4294967295", "x"]) == 2)
        #expect(ok.stderr == "ycft: x: cannot read: No such file or directory\n")
    }
}
