import Foundation
import Testing
import FirstTimeArchive
import FirstTimeCore
import Plist
import PlistCore
import TestSupport
@testable import YcftCLI

/// Every command and format, run on the real binary with a key name, a version, a class name,
/// a file name and arguments holding the characters that act on a terminal: ESC (OSC that sets
/// the title, CSI colour), BEL, the 8-bit CSI U+009B, DEL, U+202E and U+2066-U+2069 (bidi
/// overrides and isolates), U+2028. Nothing of them reaches standard output or standard error
/// raw (issue 25, item 17); a few escaped forms are asserted exactly.
@Suite struct HostileTextNeverReachesTheTerminal {
    let ycft = TestPaths.executable("ycft")

    /// The hostile text: OSC 0 (terminal title) ended by BEL, CSI colour, 8-bit CSI, bidi
    /// override and isolates, DEL, a line separator.
    static let hostile = "k\u{1B}]0;pwned\u{07}\u{1B}[31m\u{9B}2J\u{202E}\u{2066}\u{2067}\u{2068}\u{2069}\u{7F}\u{2028}z"
    /// ``hostile`` through UntrustedText.escaped.
    static let shown = #"k\u{1B}]0;pwned\u{7}\u{1B}[31m\u{9B}2J\u{202E}\u{2066}\u{2067}\u{2068}\u{2069}\u{7F}\u{2028}z"#
    /// ``hostile`` as a JSON string's contents.
    static let inJSON = #"k\u001b]0;pwned\u0007\u001b[31m\u009b2J\u202e\u2066\u2067\u2068\u2069\u007f\u2028z"#
    /// ``hostile`` as a file name (no line separator: the same otherwise).
    static let fileName = "f\u{1B}]0;pwned\u{07}\u{1B}[31m\u{9B}2J\u{202E}\u{2066}\u{7F}.plist"
    static let fileShown = #"f\u{1B}]0;pwned\u{7}\u{1B}[31m\u{9B}2J\u{202E}\u{2066}\u{7F}.plist"#

    /// A scalar that must never be written raw: C0 controls but the line feed, DEL, C1
    /// controls, the line and paragraph separators, bidirectional controls.
    static func isForbidden(_ scalar: Unicode.Scalar) -> Bool {
        let v = scalar.value
        return (v < 0x20 && v != 0x0A) || (0x7F...0x9F).contains(v) || v == 0x200E || v == 0x200F
            || (0x2028...0x202E).contains(v) || (0x2066...0x2069).contains(v)
    }

    /// Fails when stdout (unless `binaryStdout`) or stderr holds a raw forbidden character or
    /// is not UTF-8 (a lone 0x9B byte, for one).
    @discardableResult
    func clean(_ arguments: [String], stdin: [UInt8] = [], environment: [String: String]? = nil,
               binaryStdout: Bool = false, _ context: String = "") throws -> ProcessResult {
        let result = try runProcess(ycft, arguments, stdin: stdin, environment: environment)
        let what = context.isEmpty ? arguments.joined(separator: " ") : context
        #expect(result.status < 128, "\(what): killed by a signal")
        var streams = [("stderr", Array(result.stderr.utf8))]
        if !binaryStdout { streams.append(("stdout", result.stdout)) }
        for (name, bytes) in streams {
            guard let text = String(validating: bytes, as: UTF8.self) else {
                Issue.record("\(UntrustedTextForTests.escape(what)): \(name) is not UTF-8")
                continue
            }
            if let bad = text.unicodeScalars.first(where: Self.isForbidden) {
                Issue.record("\(UntrustedTextForTests.escape(what)): raw U+\(String(bad.value, radix: 16, uppercase: true)) on \(name): \(UntrustedTextForTests.escape(text))")
            }
        }
        return result
    }

    /// The files: an archive with a hostile key, version and class name; a defaults file with
    /// hostile interval.* keys and a hostile plain-records key; the archive under a hostile
    /// file name; garbage under a hostile file name.
    func hostileTree() throws -> (dir: URL, archive: URL, defaults: URL, named: URL, garbage: URL, badClass: URL) {
        let dir = try TestPaths.temporaryDirectory()
        let archive = dir.appendingPathComponent("archive.plist")
        try writeBytes(try LegacyArchive.encode(records([(Self.hostile, Self.hostile, 2.5), ("plain", "1.0", 1)]), format: .binary),
                       to: archive)
        let defaults = dir.appendingPathComponent("defaults.plist")
        try writeBytes(try PropertyList.write(.dictionary(PlistDictionary([
            ("interval.\(Self.hostile)", .string(Self.hostile)),
            ("interval.ok", .real(1)),
            (Self.hostile, .string(Self.hostile)),
        ])), format: .binary), to: defaults)
        let named = dir.appendingPathComponent(Self.fileName)
        try FileManager.default.copyItem(at: archive, to: named)
        let garbage = dir.appendingPathComponent("g" + Self.fileName)
        try writeBytes(Array("garbage".utf8), to: garbage)
        var objects = appleLayoutOneKey
        objects[9] = classObject([Self.hostile, "NSObject"])
        let badClass = dir.appendingPathComponent("class.plist")
        try writeBytes(try PropertyList.write(archiveValue(objects), format: .binary), to: badClass)
        return (dir, archive, defaults, named, garbage, badClass)
    }

    @Test func verifyInEveryFormat() throws {
        let t = try hostileTree()
        let files = [t.archive.path, t.defaults.path, t.named.path, t.garbage.path, t.badClass.path]
        let text = try clean(["verify"] + files)
        #expect(text.status == 1)
        // The interval.* finding's key (the path) and the class name, escaped; the file names too.
        #expect(text.stderr.contains("\(t.defaults.path): error: [interval-value] interval.\(Self.shown): holds string, not a number IntervalClient can read: its gate runs as if it never ran\n"),
                "\(text.stderr)")
        #expect(text.stderr.contains("\(t.badClass.path): error: [record-class] $objects[5]: expected YCFirstTimeObject, found \(Self.shown)\n"),
                "\(text.stderr)")
        #expect(text.stderr.contains("\(t.dir.path)/g\(Self.fileShown): error: [plist-unreadable] file: not a property list"), "\(text.stderr)")
        let trouble = try clean(["verify", t.dir.appendingPathComponent("missing" + Self.fileName).path])
        #expect(trouble.status == 2)
        #expect(trouble.stderr == "ycft: \(t.dir.path)/missing\(Self.fileShown): cannot read: No such file or directory\n"
                + "ycft verify: 1 file: 0 passed, 0 failed, 1 unreadable (0 errors, 0 warnings)\n")
        // A class chain is listed with each name quoted once.
        var objects = appleLayoutOneKey
        objects[9] = classObject(["YCFirstTimeObject", Self.hostile])
        let chainFile = t.dir.appendingPathComponent("chain.plist")
        try writeBytes(try PropertyList.write(archiveValue(objects), format: .binary), to: chainFile)
        let chain = try clean(["verify", "--strict", chainFile.path])
        #expect(chain.stderr == #"\#(chainFile.path): warning: [class-chain] $objects[9]: $classes is ["YCFirstTimeObject", "\#(Self.shown)"], Apple writes ["YCFirstTimeObject", "NSObject"]"# + "\n"
                + "ycft verify: 1 file: 0 passed, 1 failed, 0 unreadable (0 errors, 1 warning)\n")
        let unmatched = try clean(["verify", "--allow-empty", "--include", Self.hostile, t.dir.path])
        #expect(unmatched.stderr.hasPrefix("ycft: \(t.dir.path): no file matches \(Self.shown) (6 other files)"), "\(unmatched.stderr)")
        let empty = try clean(["verify", "--include", Self.hostile, t.dir.path])
        #expect(empty.stderr.hasPrefix("ycft: \(t.dir.path): nothing to check: no file matches \(Self.shown) (6 other files)"), "\(empty.stderr)")
        try clean(["migrate", "--dry-run", "--allow-empty", "--include", Self.hostile, t.dir.path])
        for format in ["json", "github", "junit"] {
            try clean(["verify", "--format", format] + files)
            try clean(["verify", "--format", format, "--strict", t.dir.path])
        }
        let github = try clean(["verify", "--format", "github", t.defaults.path, t.named.path])
        #expect(github.stdoutText.contains("::error file=\(t.defaults.path),title=interval-value::interval.\(Self.shown): holds string"),
                "\(github.stdoutText)")
        let junit = try clean(["verify", "--format", "junit", t.named.path, t.defaults.path])
        #expect(junit.stdoutText.contains(#"<testcase classname="\#(t.dir.path)/\#(Self.fileShown)" name="contract"/>"#), "\(junit.stdoutText)")
        #expect(junit.stdoutText.contains(#"<testsuite name="\#(t.dir.path)/\#(Self.fileShown)" tests="1""#), "\(junit.stdoutText)")
        #expect(junit.stdoutText.contains("interval.\(Self.shown): holds string"), "\(junit.stdoutText)")
        // JSON keeps the exact file name, in JSON's escapes.
        let json = try clean(["verify", "--format", "json", "--compact", t.named.path])
        #expect(json.stdoutText.contains(#""file":"\#(t.dir.path)/f\u001b]0;pwned\u0007\u001b[31m\u009b2J\u202e\u2066\u007f.plist""#),
                "\(json.stdoutText)")
    }

    @Test func dumpStatusAndMigrate() throws {
        let t = try hostileTree()
        for file in [t.archive.path, t.defaults.path, t.named.path, t.garbage.path, t.badClass.path] {
            try clean(["dump", file])
            try clean(["dump", "--raw", file])
            try clean(["dump", "--raw", "--refs", file])
            try clean(["dump", "--objects", file])
            try clean(["dump", "--key", Self.hostile, file])
            for format in ["text", "json"] {
                try clean(["status", "--format", format, "--now", "2025-01-01T00:00:00Z", "--app-version", Self.hostile,
                           "--gate", "\(Self.hostile)=once", "--gate", "plain=days:1", "--time-zone", "Europe/Paris", file])
            }
        }
        let dump = try clean(["dump", "--compact", t.archive.path])
        #expect(dump.stdoutText.contains(#""\#(Self.inJSON)":{"lastTime":2.5,"lastTimeUTC":"2001-01-01T00:00:02.500000Z","lastVersion":"\#(Self.inJSON)"}"#),
                "\(dump.stdoutText)")
        let status = try clean(["status", "--now", "2025-01-01T00:00:00Z", "--app-version", Self.hostile, t.named.path])
        #expect(status.stdoutText.contains("\(Self.shown)  \(Self.shown)  2001-01-01T00:00:02.500000Z"), "\(status.stdoutText)")
        #expect(status.stdoutText.hasPrefix("now 2025-01-01T00:00:00.000000Z (UTC), app version \"\(Self.shown)\"\n"))
        // Warnings and status's reset line show a message's escapes once (not `\\u{1B}`).
        let warned = try clean(["dump", t.defaults.path])
        #expect(warned.stderr == "ycft: \(t.defaults.path): warning: [interval-value] interval.\(Self.shown): holds string, "
                + "not a number IntervalClient can read: its gate runs as if it never ran\n")
        let reset = try clean(["status", "--now", "2025-01-01T00:00:00Z", "--gate", "k=once", t.badClass.path])
        let said = "[record-class] $objects[5]: expected YCFirstTimeObject, found \(Self.shown)"
        #expect(reset.stderr == "ycft: \(t.badClass.path): warning: \(said)\n")
        #expect(reset.stdoutText.hasSuffix("\nYCFirstTime would discard this state (\(said)): every gate runs as on a fresh install\n"),
                "\(reset.stdoutText)")
        // A key that holds a string reads as no state, as the app reads it: the key shown escaped.
        let notData = try clean(["dump", "--key", Self.hostile, t.defaults.path])
        #expect(notData.status == 0)
        #expect(notData.stderr == "ycft: \(t.defaults.path): warning: [state-not-data] \"\(Self.shown)\" holds a string, not archive data: "
                + "\"\(Self.shown)\" may be the wrong key (YCFirstTime's is \"YCFirstTime\"); an app that reads its archive there: "
                + "UserDefaults.data(forKey:) is nil for it, so the app starts afresh and its next save replaces it\n")
        for target in ["records", "interval", "legacy"] {
            try clean(["migrate", "--dry-run", "--to", target, t.dir.path])
            try clean(["migrate", "--dry-run", "--to", target, "--format", "json", t.dir.path])
        }
        let out = try TestPaths.temporaryDirectory()
        try clean(["migrate", "--to", "records", "-o", out.appendingPathComponent("m.plist").path, t.defaults.path])
    }

    @Test func packAndEdits() throws {
        let t = try hostileTree()
        let json = #"{"format":"ycfirsttime-records","formatVersion":1,"records":{"\#(Self.inJSON)":{"lastVersion":"\#(Self.inJSON)","lastTime":1,"\#(Self.inJSON)":2}}}"#
        let refused = try clean(["pack", "-"], stdin: Array(json.utf8))
        #expect(refused.status == 1)
        #expect(refused.stderr == "ycft: <stdin>: records[\"\(Self.shown)\"]: unknown member \"\(Self.shown)\"\n")
        let good = #"{"format":"ycfirsttime-records","formatVersion":1,"records":{"\#(Self.inJSON)":{"lastVersion":"\#(Self.inJSON)","lastTime":1}}}"#
        try clean(["pack", "-o", "-", "-"], stdin: Array(good.utf8), binaryStdout: true)
        try clean(["pack", "-o", t.dir.appendingPathComponent("p" + Self.fileName).path, "-"], stdin: Array(good.utf8))
        try clean(["pack", "-o", t.dir.appendingPathComponent("p" + Self.fileName).path, "-"], stdin: Array(good.utf8))
        let copy = t.dir.appendingPathComponent("e" + Self.fileName)
        try FileManager.default.copyItem(at: t.archive, to: copy)
        try clean(["set", "--last-version", Self.hostile, "--last-time", "2025-01-01T00:00:00Z", copy.path, Self.hostile + "2"])
        try clean(["set", "--last-time", Self.hostile, copy.path, Self.hostile])
        let unset = try clean(["unset", copy.path, Self.hostile + "3"])
        #expect(unset.stderr.contains("no record \"\(Self.shown)3\""), "\(unset.stderr)")
        try clean(["unset", copy.path, Self.hostile])
        try clean(["reset", t.named.path, Self.hostile])
        try clean(["edit", copy.path], environment: ["EDITOR": "true", "PATH": "/usr/bin:/bin"])
        try clean(["edit", t.garbage.path], environment: ["EDITOR": "true", "PATH": "/usr/bin:/bin"])
        try clean(["edit", copy.path], environment: ["EDITOR": "false", "PATH": "/usr/bin:/bin"])
        // An editor that cannot start: ycft's own line names it escaped (what the shell says
        // before it, on the stderr the editor shares with ycft, is the shell's).
        let editor = try runProcess(ycft, ["edit", copy.path], environment: ["EDITOR": Self.hostile, "PATH": "/usr/bin:/bin"])
        #expect(editor.status == 2)
        #expect(editor.stderr.hasSuffix("\nycft: \(t.dir.path)/e\(Self.fileShown): the editor \"\(Self.shown)\" exited with status 127; nothing was written\n"),
                "\(UntrustedTextForTests.escape(editor.stderr))")
    }

    @Test func usageErrorsEchoArgumentsEscaped() throws {
        let usage = "Usage: ycft <subcommand>\n  See 'ycft --help' for more information.\n"
        let help = try clean(["help", "\u{1B}[2J"])
        #expect(help.status == 2)
        #expect(help.stderr == "Error: Unknown subcommand '\\u{1B}[2J'\n" + usage)
        let zone = try clean(["status", "--time-zone", "\u{1B}[31mX", "x"])
        #expect(zone.stderr.hasPrefix(#"Error: The value '\u{1B}[31mX' is invalid for '--time-zone <zone>': expected an IANA name like Europe/Paris, or 'local'"# + "\n"))
        let option = try clean([Self.hostile])
        #expect(option.stderr == "Error: Unknown subcommand '\(Self.shown)'\n" + usage)
        let dashed = try clean(["--" + Self.hostile])
        #expect(dashed.stderr == "Error: Unknown option '--\(Self.shown)'\n" + usage)
        let commands = ["dump", "pack", "verify", "migrate", "status", "set", "unset", "reset", "edit"]
        for command in commands {
            try clean([command, "--" + Self.hostile, "x"])
            try clean([command, "--\(Self.hostile)=\(Self.hostile)", "x"])
            try clean([command, "a", "b", "c", Self.hostile, Self.hostile])
            try clean([command, "--max-input-size", Self.hostile, "x"])
            try clean(["help", command, Self.hostile])
        }
        for option in ["--format", "--now", "--time-zone", "--gate", "--key", "--app-version"] {
            try clean(["status", option, Self.hostile, "x"])
        }
        for option in ["--format", "--key", "--include"] { try clean(["verify", option, Self.hostile, "x"]) }
        for option in ["--to", "--jobs", "--plist-format", "--format", "--backup-suffix", "--include"] {
            try clean(["migrate", option, Self.hostile, "x"])
        }
        try clean(["pack", "--plist-format", Self.hostile, "x"])
        try clean(["set", "--last-time", Self.hostile, "--seconds", "x", "k"])
        try clean(["status", "--gate", "\(Self.hostile)=per-version", "x"])
        try clean(["status", "--gate", "k=every:\(Self.hostile)d", "x"])
        try clean(["--generate-completion-script", Self.hostile])
        try clean(["--generate-manual", Self.hostile])
        let file = try clean(["dump", Self.hostile])
        #expect(file.stderr == "ycft: \(Self.shown): cannot read: No such file or directory\n")
    }
}

/// What the test prints about a failure, without putting the hostile text on the test log raw.
enum UntrustedTextForTests {
    static func escape(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            if HostileTextNeverReachesTheTerminal.isForbidden(scalar) || scalar == "\n" {
                out += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}

/// The last pass on standard error lets the tool's own terminal sequences through, and nothing else.
@Suite struct TheStandardErrorWriterEscapesLast {
    @Test func migratesProgressBarStillDrawsOnATerminal() throws {
        let fake = FakeIO(files: ["d.plist": try readBytes(TestPaths.fixtures.appendingPathComponent("valid/defaults/export.binary.plist"))])
        var io = fake.io
        io.stderrIsTerminal = { true }
        #expect(Ycft.run(["migrate", "-o", "out.plist", "d.plist"], io: io) == 0)
        #expect(fake.stderr == "\r[" + String(repeating: "#", count: 30) + "] 1/1\r\u{1B}[K"
                + "ycft migrate: 1 file: 1 migrated, 0 unchanged, 0 skipped, 0 failed\n")
    }

    /// The bar fits in a narrow terminal, short of its last column (a line that wraps is not
    /// cleared at the end); narrower still, the count alone.
    @Test(arguments: [(30, "[" + String(repeating: "#", count: 23) + "] 1/1"), (20, "[" + String(repeating: "#", count: 13) + "] 1/1"), (15, "1/1")])
    func theProgressBarFitsTheTerminal(_ width: Int, _ drawn: String) throws {
        let fake = FakeIO(files: ["d.plist": try readBytes(TestPaths.fixtures.appendingPathComponent("valid/defaults/export.binary.plist"))])
        var io = fake.io
        io.stderrIsTerminal = { true }
        io.stderrWidth = { width }
        #expect(Ycft.run(["migrate", "-o", "out.plist", "d.plist"], io: io) == 0)
        #expect(fake.stderr == "\r" + drawn + "\r\u{1B}[K" + "ycft migrate: 1 file: 1 migrated, 0 unchanged, 0 skipped, 0 failed\n")
    }

    @Test func anythingElseIsEscaped() {
        let fake = FakeIO()
        let io = Ycft.terminalSafe(fake.io)
        io.writeStderr("a\u{1B}]0;t\u{7}\\u{1B}\r\u{9B}\u{202E}\n")
        io.writeStderr("\r\u{1B}[K")
        io.writeStderr("\r")
        io.writeStderr("\r\u{1B}[K ")
        #expect(fake.stderr == #"a\u{1B}]0;t\u{7}\u{1B}\r\u{9B}\u{202E}"# + "\n\r\u{1B}[K\r" + #"\r\u{1B}[K "#)
    }
}
