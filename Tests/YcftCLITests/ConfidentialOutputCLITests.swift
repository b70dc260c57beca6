import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Where `backup extract` of an encrypted backup may put the decrypted preferences, against an
/// attacker's findings: over another user's file run as root (it kept that owner), and through
/// `/dev/stderr`, `/dev/fd/2` or `/proc/self/fd/2` (into whatever standard error was: a log, a
/// pipe, a terminal). And binary output to a terminal named by `-o`, which `pack` let through.
@Suite(.serialized) struct ConfidentialOutputsThroughTheTool {
    let ycft = TestPaths.executable("ycft")
    let fixture = TestPaths.packageRoot.appendingPathComponent("Examples/exported/com.example.notes.plist")
    let descriptorRefusal = "cannot write: it names an open descriptor (a terminal, a pipe or a log file others may read), not a file "
        + "by its own path; decrypted preferences go only to standard output (-o -) or to a regular file only its owner may read"

    /// Runs a bash script in `dir` with `$YCFT`, `$BACKUP` (an encrypted backup), `$PLAIN` (the
    /// same unencrypted) and `$PASSWORD` (its password file) set.
    func shell(_ script: String, in dir: URL, backup: URL, plain: URL, password: URL) throws -> ProcessResult {
        var env = ProcessInfo.processInfo.environment
        (env["YCFT"], env["BACKUP"], env["PLAIN"], env["PASSWORD"]) = (ycft.path, backup.path, plain.path, password.path)
        return try runProcess(URL(fileURLWithPath: "/bin/bash"), ["-c", "cd \"$1\" && " + script, "bash", dir.path], environment: env)
    }

    /// Run as root over a file another user owns (mode 0600), the replacement kept that owner,
    /// who could read the decrypted bytes. Refused, naming the owner, exit 2, the file as it
    /// was; `--force` does not lift it, nor does the file holding the very bytes.
    @Test(.enabled(if: geteuid() == 0, "needs root, to give a file to another user"))
    func extractRefusesAFileAnotherUserOwns() throws {
        let (encrypted, plain, password) = (try Backups.make(password: Backups.password), try Backups.make(), try Backups.passwordFile())
        let dir = try TestPaths.temporaryDirectory()
        let theirs = dir.appendingPathComponent("theirs.plist")
        let refusal = "ycft: \(theirs.path): not replaced: it belongs to uid 1002, not to uid 0 that ycft runs as, and the replacement "
            + "would keep that owner; decrypted preferences go only to a new file (made 0600), over one of your own that only you may "
            + "read or write, or to standard output (-o -)\n"
        for (content, force) in [(Array("their own notes".utf8), ["--force"]), (try readBytes(fixture), []), (try readBytes(fixture), ["--force"])] {
            try writeBytes(content, to: theirs)
            #expect(chmod(theirs.path, 0o600) == 0 && chown(theirs.path, 1002, 1002) == 0)
            var before = stat()
            #expect(stat(theirs.path, &before) == 0)
            let result = try runProcess(ycft, ["backup", "extract", "--app", "com.example.notes", "-o", theirs.path, "--password-file",
                                               password.path] + force + [encrypted.path])
            #expect(result.status == 2 && result.stdout.isEmpty, "\(force)")
            #expect(result.stderr == refusal, "\(force)")
            var after = stat()
            #expect(stat(theirs.path, &after) == 0)
            #expect(after.st_ino == before.st_ino && after.st_uid == 1002 && after.st_gid == 1002 && after.st_mode == before.st_mode)
            #expect(try readBytes(theirs) == content)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["theirs.plist"])
        // What was never secret keeps the owner, as every replacement does.
        let open = try runProcess(ycft, ["backup", "extract", "--app", "com.example.notes", "-o", theirs.path, plain.path])
        #expect(open.status == 0 && open.stderr.isEmpty, "\(open.stderr)")
        var replaced = stat()
        #expect(stat(theirs.path, &replaced) == 0 && replaced.st_uid == 1002)
    }

    /// Every name of standard error (and of standard output but `-` and `/dev/stdout`, which the
    /// command takes as standard output itself), with standard error a pipe and a regular file:
    /// refused, exit 2, only the refusal on standard error, nothing decrypted anywhere. The
    /// unencrypted backup's copy still goes to standard error.
    @Test func extractRefusesEveryDescriptorName() throws {
        let (encrypted, plain, password) = (try Backups.make(password: Backups.password), try Backups.make(), try Backups.passwordFile())
        let dir = try TestPaths.temporaryDirectory()
        #expect(symlink("/proc/self/fd/2", dir.appendingPathComponent("err-link").path) == 0)
        let extract = "timeout -k 1 10 \"$YCFT\" backup extract --app com.example.notes --password-file \"$PASSWORD\" \"$BACKUP\" -o"
        for target in ["/dev/stderr", "/dev/fd/2", "/proc/self/fd/2", "err-link", "/dev/fd/1", "/proc/self/fd/1"] {
            // Standard error a pipe (the test's).
            let piped = try shell("\(extract) \(target)", in: dir, backup: encrypted, plain: plain, password: password)
            #expect(piped.status == 2 && piped.stdout.isEmpty, "\(target)")
            #expect(piped.stderr == "ycft: \(target): \(descriptorRefusal)\n", "\(target)")
            // Standard error a regular file: what lands there is printed afterwards.
            let logged = try shell("\(extract) \(target) 2> err.log; echo \"exit=$?\"; cat err.log; rm err.log", in: dir,
                                   backup: encrypted, plain: plain, password: password)
            #expect(logged.stdoutText == "exit=2\nycft: \(target): \(descriptorRefusal)\n", "\(target)")
            #expect(logged.stderr.isEmpty, "\(target)")
        }
        let bytes = try readBytes(fixture)
        // Standard output by its own names is where the user asked for the bytes.
        for target in ["-", "/dev/stdout"] {
            let streamed = try shell("\(extract) \(target)", in: dir, backup: encrypted, plain: plain, password: password)
            #expect(streamed.status == 0 && streamed.stderr.isEmpty && streamed.stdout == bytes, "\(target)")
        }
        let open = try shell("\"$YCFT\" backup extract --app com.example.notes \"$PLAIN\" -o /dev/stderr 2> err.log && cat err.log",
                             in: dir, backup: encrypted, plain: plain, password: password)
        #expect(open.status == 0 && open.stdout == bytes)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["err-link", "err.log"])
    }

    /// Runs `command` (bash) on a pseudo-terminal (util-linux's `script`): what the terminal
    /// shows, and the exit status.
    func onTerminal(_ command: String, in dir: URL) throws -> (status: Int32, screen: String) {
        var env = ProcessInfo.processInfo.environment
        env["YCFT"] = ycft.path
        let result = try runProcess(URL(fileURLWithPath: "/usr/bin/script"), ["-qec", "cd '\(dir.path)' && " + command, "/dev/null"],
                                    environment: env)
        return (result.status, result.stdoutText.replacingOccurrences(of: "\r\n", with: "\n"))
    }

    /// `pack -o /dev/stderr` (or any name of a terminal) with standard output elsewhere wrote the
    /// binary archive to the terminal: the guard looked at standard output only. It now asks
    /// what `-o` resolves to: on a terminal refused as on standard output, exit 2; into a pipe
    /// written, as to standard output when it is a pipe; XML reaches the terminal.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script"), "needs util-linux's script"))
    func binaryToATerminalNamedByOutputIsRefused() throws {
        let dir = try TestPaths.temporaryDirectory()
        let defaults = TestPaths.fixtures.appendingPathComponent("valid/defaults/export.binary.plist")
        let dumped = try runProcess(ycft, ["dump", defaults.path])
        try writeBytes(dumped.stdout, to: dir.appendingPathComponent("r.json"))
        let archive = try runProcess(ycft, ["pack", dir.appendingPathComponent("r.json").path]).stdout
        #expect(symlink("/dev/tty", dir.appendingPathComponent("tty-link").path) == 0)
        let refusal = "ycft: refusing to write a binary property list to a terminal; use -o FILE, --plist-format xml, or redirect\n"
        for target in ["/dev/stderr", "/dev/fd/2", "/proc/self/fd/2", "\"$(tty)\"", "/dev/tty", "tty-link"] {
            let (status, screen) = try onTerminal("\"$YCFT\" pack -o \(target) r.json > out.bin", in: dir)
            #expect(status == 2 && screen == refusal, "\(target): \(screen)")
            #expect(try readBytes(dir.appendingPathComponent("out.bin")).isEmpty, "\(target)")
            let xml = try onTerminal("\"$YCFT\" pack --plist-format xml -o \(target) r.json > out.bin", in: dir)
            #expect(xml.status == 0 && xml.screen.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"), "\(target): \(xml.screen)")
        }
        // Standard error a pipe: written into it, as standard output is when it is a pipe.
        for target in ["/dev/stderr", "/dev/fd/2", "/proc/self/fd/2"] {
            let piped = try runProcess(URL(fileURLWithPath: "/bin/bash"),
                                       ["-c", "cd \"$1\" && \"$2\" pack -o \(target) r.json 2>&1 >/dev/null", "bash", dir.path, ycft.path])
            #expect(piped.status == 0 && piped.stdout == archive, "\(target)")
        }
        // migrate's progress shares the terminal: the refusal comes first, no archive after it.
        let migrate = try onTerminal("\"$YCFT\" migrate -o /dev/stderr '\(defaults.path)' > out.bin", in: dir)
        #expect(migrate.status == 2 && migrate.screen.hasPrefix(refusal) && !migrate.screen.contains("bplist"), "\(migrate.screen)")
    }
}
