import Foundation
import Testing
import FirstTimeArchive
import FirstTimeCore
import Plist
import PlistCore
import TestSupport
import SafeFiles
import FileErrors

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

/// `ycft edit` of a file it could not write refuses before the editor opens, so no one edits
/// in vain (it used to open the editor and refuse only after the save); `--force` edits it.
@Suite struct EditOfAReadOnlyFile {
    let ycft = TestPaths.executable("ycft")

    @Test func isRefusedBeforeTheEditorOpens() throws {
        let dir = try TestPaths.temporaryDirectory()
        let file = dir.appendingPathComponent("ro.plist")
        let bytes = try readBytes(TestPaths.fixtures.appendingPathComponent("valid/defaults/export.binary.plist"))
        try writeBytes(bytes, to: file)
        guard chmod(file.path, 0o444) == 0 else {
            Issue.record("chmod failed")
            return
        }
        let marker = dir.appendingPathComponent("editor-ran")
        var environment = ProcessInfo.processInfo.environment
        environment["VISUAL"] = ""
        environment["TMPDIR"] = dir.path
        // An editor that leaves a mark and saves nothing.
        let editor = dir.appendingPathComponent("editor.sh")
        try writeBytes(Array("#!/bin/sh\ntouch '\(marker.path)'\n".utf8), to: editor)
        guard chmod(editor.path, 0o755) == 0 else {
            Issue.record("chmod failed")
            return
        }
        environment["EDITOR"] = editor.path
        let refused = try runProcess(ycft, ["edit", file.path], environment: environment)
        #expect(refused.status == 2)
        #expect(refused.stderr == "ycft: \(file.path): not replaced: it is read-only (mode 0444); use --force to replace it anyway\n")
        #expect(!FileManager.default.fileExists(atPath: marker.path))
        #expect(try readBytes(file) == bytes)
        // With --force the editor opens (it saves nothing here: no change).
        let forced = try runProcess(ycft, ["edit", "--force", file.path], environment: environment)
        #expect(forced.status == 0)
        #expect(FileManager.default.fileExists(atPath: marker.path))
        #expect(try readBytes(file) == bytes)
    }
}

/// `ycft edit` takes `TMPDIR`, `EDITOR` and the names an editor leaves in the scratch
/// directory as bytes: a `TMPDIR` that is not UTF-8 works, and the scratch directory is removed
/// even when the editor left a file whose name is not UTF-8 in it.
@Suite struct EditTakesPathsAsBytes {
    let ycft = TestPaths.executable("ycft")

    @Test func aNonUTF8TMPDIRAndLeftoversWithSuchNamesAreCleanedUp() throws {
        let dir = try TestPaths.temporaryDirectory().path
        let temporary = dir + "/tmp" + PathBytes.decode([0xFF])
        #expect(mkdir(PathBytes.cString(temporary), 0o700) == 0)
        let editor = dir + "/ed" + PathBytes.decode([0xFE]) + ".sh"
        let script = "#!/bin/sh\nsed -i s/2.1.0/2.9.0/ \"$1\"; touch \"$(dirname \"$1\")/$(printf 'swap\\377')\"\n"
        let fd = open(PathBytes.cString(editor), O_WRONLY | O_CREAT | O_EXCL, 0o755)
        #expect(fd >= 0)
        _ = Array(script.utf8).withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        let file = URL(fileURLWithPath: dir + "/p.plist")
        try writeBytes(try readBytes(TestPaths.fixtures.appendingPathComponent("valid/defaults/export.binary.plist")), to: file)
        let result = try runSpawned(ycft, ["edit", file.path], environment: ["TMPDIR": temporary, "EDITOR": editor, "VISUAL": ""])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr == "")
        #expect(try StateFile(try readBytes(file)).state().records["onboarding.v1"]?.lastVersion == "2.9.0")
        // Nothing left in TMPDIR: the scratch directory and the editor's leftover are gone.
        guard let stream = opendir(PathBytes.cString(temporary)) else {
            Issue.record("TMPDIR is gone")
            return
        }
        defer { closedir(stream) }
        var left: [String] = []
        while let entry = readdir(stream) {
            let name = DirectoryHandle.name(of: entry)
            if name != "." && name != ".." { left.append(name) }
        }
        #expect(left.isEmpty, "\(left)")
    }
}

/// `set --last-time X --seconds` takes a finite decimal number, as `pack` does: nan, inf, a
/// number beyond a double (read as infinity) and hexadecimal are usage errors, nothing written.
@Suite struct SetSecondsAreFiniteDecimals {
    let ycft = TestPaths.executable("ycft")

    @Test func otherSpellingsAreRefused() throws {
        let dir = try TestPaths.temporaryDirectory()
        let file = dir.appendingPathComponent("p.plist")
        let bytes = try readBytes(TestPaths.fixtures.appendingPathComponent("valid/defaults/export.binary.plist"))
        try writeBytes(bytes, to: file)
        for text in ["nan", "inf", "-inf", "0x10", "", "."] {
            let result = try runProcess(ycft, ["set", file.path, "k", "--seconds", "--last-time=\(text)"])
            #expect(result.status == 2, "\(text)")
            #expect(result.stderr.hasPrefix("Error: The value '\(text)' is invalid for '--last-time <time>': expected a finite decimal "
                                            + "number of seconds since 2001 (with --seconds)\n"), "\(result.stderr)")
            #expect(try readBytes(file) == bytes)
        }
        for (text, value) in [("-0.0", -0.0), ("1e3", 1000.0), ("757414800.5", 757414800.5), ("0e-400", 0.0),
                              ("2.2250738585072014e-308", Double.leastNormalMagnitude)] {
            let result = try runProcess(ycft, ["set", file.path, "k", "--seconds", "--last-time", text])
            #expect(result.status == 0, "\(text): \(result.stderr)")
            #expect(try StateFile(try readBytes(file)).state().records["k"]?.lastTime?.bitPattern == value.bitPattern, "\(text)")
        }
    }

    /// A decimal number a double does not stand for is refused saying why: beyond the largest
    /// double (infinity), not zero but nearer zero than the least double (0: `1e-400` was
    /// stored as 0.0 without a word), or a subnormal, which keeps fewer digits.
    @Test(arguments: [
        ("1e400", "it is too large for a double, which would read it as infinity"),
        ("-1e400", "it is too large for a double, which would read it as infinity"),
        ("1e-400", "it is not zero but too small for a double, which would read it as 0"),
        ("-0.1e-330", "it is not zero but too small for a double, which would read it as 0"),
        ("1e-310", "it is below the smallest normal double (2.2250738585072014e-308), where a double holds fewer significant digits"),
        ("5e-324", "it is below the smallest normal double (2.2250738585072014e-308), where a double holds fewer significant digits"),
    ])
    func numbersADoubleDoesNotHoldAreRefusedSayingWhy(_ text: String, _ why: String) throws {
        let file = try TestPaths.temporaryDirectory().appendingPathComponent("p.plist")
        let bytes = try readBytes(TestPaths.fixtures.appendingPathComponent("valid/defaults/export.binary.plist"))
        try writeBytes(bytes, to: file)
        let result = try runProcess(ycft, ["set", file.path, "k", "--seconds", "--last-time", text])
        #expect(result.status == 2)
        #expect(result.stdoutText == "")
        #expect(result.stderr == "Error: The value '\(text)' is invalid for '--last-time <time>': \(why)\n" + setUsage)
        #expect(try readBytes(file) == bytes)
    }
}

/// `ycft set`'s usage lines after a usage error.
let setUsage = """
    Usage: ycft set [--last-version VERSION | --no-last-version]
                    [--last-time TIME [--seconds] | --no-last-time] [--key NAME]
                    [--force] [--max-input-size SIZE] FILE KEY
      See 'ycft set --help' for more information.

    """
