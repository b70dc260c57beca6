import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Where `backup extract` of an encrypted backup may put the decrypted preferences, against an
/// attacker's findings: over another user's file run as root (it kept that owner), and through
/// `/dev/stderr`, `/dev/fd/2` or `/proc/self/fd/2` (into whatever standard error was: a log, a
/// pipe, a terminal).
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
}
