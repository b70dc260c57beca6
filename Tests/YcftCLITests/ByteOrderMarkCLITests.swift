import Foundation
import Testing
import FirstTimeArchive
import FirstTimeCore
import Plist
import PlistCore
import TestSupport

/// An XML defaults file after a UTF-8 byte-order mark (Windows Notepad writes one), through the
/// real binary: read as CoreFoundation reads it (past the mark), rewritten with the mark kept;
/// UTF-16 and UTF-32 refused naming the encoding.
@Suite struct ByteOrderMarkThroughTheTool {
    let ycft = TestPaths.executable("ycft")
    static let mark: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// The XML defaults fixture (three records under `YCFirstTime`, unrelated keys), and its dump.
    static func fixture() throws -> (plist: [UInt8], dump: String) {
        let plist = try readBytes(TestPaths.fixtures.appendingPathComponent("valid/defaults/export.xml.plist"))
        let dump = String(decoding: try readBytes(TestPaths.fixtures.appendingPathComponent("valid/defaults/export.xml.json")), as: UTF8.self)
        return (plist, dump)
    }

    /// `bytes` in a fresh directory, as `name`.
    func file(_ bytes: [UInt8], _ name: String = "prefs.plist") throws -> URL {
        let url = try TestPaths.temporaryDirectory().appendingPathComponent(name)
        try writeBytes(bytes, to: url)
        return url
    }

    @Test func dumpAndVerifyReadPastTheMark() throws {
        let (plist, dump) = try Self.fixture()
        let url = try file(Self.mark + plist)
        let dumped = try runProcess(ycft, ["dump", url.path])
        #expect(dumped.status == 0)
        #expect(dumped.stdoutText == dump)
        #expect(dumped.stderr == "")
        let verified = try runProcess(ycft, ["verify", url.path])
        #expect(verified.status == 0)
        #expect(verified.stdoutText == "")
        #expect(verified.stderr == "ycft verify: 1 file: 1 passed, 0 failed, 0 unreadable (0 errors, 0 warnings)\n")
        // From standard input too.
        let piped = try runProcess(ycft, ["dump", "-"], stdin: Self.mark + plist)
        #expect(piped.status == 0 && piped.stdoutText == dump && piped.stderr == "")
    }

    /// A refusal names the line it named without the mark.
    @Test func anErrorsLineCountsFromTheFilesStart() throws {
        let bad = Array("<?xml version=\"1.0\"?>\n<plist version=\"1.0\">\n<dict>\n<key>n</key>\n<integer>010</integer>\n</dict>\n</plist>\n".utf8)
        let url = try file(Self.mark + bad)
        let result = try runProcess(ycft, ["dump", url.path])
        #expect(result.status == 1)
        #expect(result.stdoutText == "")
        #expect(result.stderr == "ycft: \(url.path): malformed XML plist: n: \"010\" starts with a zero, which libplist reads as octal "
                + "where Apple reads decimal; write it without the zero (at line 5)\n")
    }

    /// Every in-place write keeps the mark: the file after the command is the mark followed by
    /// exactly what the same command writes to the file without it, with the same output.
    @Test(arguments: [
        ["migrate", "--in-place", "--no-backup", "FILE"],
        ["migrate", "--in-place", "--no-backup", "--to", "interval", "FILE"],
        ["set", "FILE", "onboarding.v1", "--last-version", "9.9"],
        ["unset", "FILE", "onboarding.v1"],
        ["reset", "FILE"],
    ])
    func aWriteKeepsTheMark(_ arguments: [String]) throws {
        let (plist, _) = try Self.fixture()
        let plain = try file(plist), marked = try file(Self.mark + plist)
        let withoutMark = try runProcess(ycft, arguments.map { $0 == "FILE" ? plain.path : $0 })
        let withMark = try runProcess(ycft, arguments.map { $0 == "FILE" ? marked.path : $0 })
        #expect(withoutMark.status == 0, "\(withoutMark.stderr)")
        #expect(withMark.status == withoutMark.status)
        #expect(withMark.stdoutText == withoutMark.stdoutText.replacingOccurrences(of: plain.path, with: marked.path))
        #expect(withMark.stderr == withoutMark.stderr.replacingOccurrences(of: plain.path, with: marked.path))
        let written = try readBytes(plain)
        #expect(written != plist)
        #expect(try readBytes(marked) == Self.mark + written)
    }

    /// `migrate` says what it did, exactly; the migrated file reads past its mark, and a second
    /// run finds nothing to do (the mark is no change).
    @Test func migrateInPlaceKeepsTheMarkAndStaysIdempotent() throws {
        let (plist, _) = try Self.fixture()
        let url = try file(Self.mark + plist)
        let first = try runProcess(ycft, ["migrate", "--in-place", "--no-backup", url.path])
        #expect(first.status == 0)
        #expect(first.stdoutText == "")
        #expect(first.stderr == "ycft migrate: 1 file: 1 migrated, 0 unchanged, 0 skipped, 0 failed\n")
        let migrated = try readBytes(url)
        #expect(Array(migrated.prefix(8)) == Self.mark + Array("<?xml".utf8))
        #expect(try StateFile(migrated).forms == [.plainRecords])
        let second = try runProcess(ycft, ["migrate", "--in-place", "--no-backup", url.path])
        #expect(second.status == 0)
        #expect(second.stderr == "ycft migrate: 1 file: 0 migrated, 1 unchanged, 0 skipped, 0 failed\n")
        #expect(try readBytes(url) == migrated)
    }

    /// Asked for binary, the file has no mark: binary property lists have none.
    @Test func migrateToBinaryHasNoMark() throws {
        let (plist, _) = try Self.fixture()
        let url = try file(Self.mark + plist)
        let result = try runProcess(ycft, ["migrate", "--in-place", "--no-backup", "--plist-format", "binary", url.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(Array(try readBytes(url).prefix(8)) == Array("bplist00".utf8))
    }

    /// UTF-16 and UTF-32 (which CoreFoundation converts and reads): refused by every command,
    /// naming the encoding and how to convert it; the file untouched.
    @Test func utf16IsRefusedNamingItsEncoding() throws {
        let (plist, _) = try Self.fixture()
        var utf16 = [UInt8(0xFF), 0xFE]
        for unit in String(decoding: plist, as: UTF8.self).utf16 { utf16 += [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
        let url = try file(utf16)
        let why = "an XML property list in UTF-16LE (byte-order mark FF FE): ycft reads XML property lists in UTF-8 only; "
            + "convert it first (iconv -f UTF-16LE -t UTF-8)"
        let dumped = try runProcess(ycft, ["dump", url.path])
        #expect(dumped.status == 1)
        #expect(dumped.stdoutText == "")
        #expect(dumped.stderr == "ycft: \(url.path): \(why)\n")
        let verified = try runProcess(ycft, ["verify", url.path])
        #expect(verified.status == 1)
        #expect(verified.stdoutText == "")
        #expect(verified.stderr == "\(url.path): error: [plist-unreadable] file: \(why)\n"
                + "ycft verify: 1 file: 0 passed, 0 failed, 1 unreadable (1 error, 0 warnings)\n")
        let migrated = try runProcess(ycft, ["migrate", "--in-place", url.path])
        #expect(migrated.status == 1)
        #expect(migrated.stderr.hasPrefix("ycft: \(url.path): \(why)\n"), "\(migrated.stderr)")
        #expect(try readBytes(url) == utf16)
        #expect(try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path) == ["prefs.plist"])
    }
}
