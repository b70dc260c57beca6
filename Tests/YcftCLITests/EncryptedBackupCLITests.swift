import Foundation
import Testing
import TestSupport
@testable import YcftCLI

/// Encrypted iPhone backups (`Scripts/make-backup.py --password`): with the password, every
/// command prints what it prints for the same backup unencrypted; without it, or with a wrong
/// one, or with a spoilt keybag, Manifest.db or file, one clear line and exit 2. No run changes
/// a byte of the backup, and nothing decrypted is written but the file `extract -o` asks for.
@Suite struct EncryptedBackupThroughTheTool {
    let ycft = TestPaths.executable("ycft")

    func run(_ arguments: [String], stdin: [UInt8] = []) throws -> ProcessResult { try runProcess(ycft, arguments, stdin: stdin) }

    /// `result` with the encrypted backup's folder named as the plain one's.
    func renamed(_ result: ProcessResult, _ encrypted: URL, as plain: URL) -> (Int32, String, String) {
        let swap = { (text: String) in text.replacingOccurrences(of: encrypted.path, with: plain.path) }
        return (result.status, swap(result.stdoutText), swap(result.stderr))
    }

    @Test(arguments: BackupThroughTheTool.preferences)
    func readsAsTheUnencryptedBackup(_ preferences: BackupThroughTheTool.Preferences) throws {
        let (encrypted, plain, password) = (try Backups.make(password: Backups.password), try Backups.make(), try Backups.passwordFile())
        let before = try Backups.snapshot(encrypted)
        for command in BackupThroughTheTool.commands {
            let fromEncrypted = try run(command + ["--backup", encrypted.path, "--password-file", password.path] + preferences.selection)
            let direct = try run(command + [preferences.path(in: plain)])
            let (status, stdout, stderr) = renamed(fromEncrypted, encrypted, as: plain)
            #expect(status == direct.status, "\(command)")
            #expect(stdout == direct.stdoutText, "\(command)")
            #expect(stderr == direct.stderr, "\(command)")
        }
        if let source = preferences.source {
            let original = try run(["dump", TestPaths.committed(source).path])
            let dump = try run(["dump", "--backup", encrypted.path, "--app", preferences.app, "--password-file", password.path]
                               + (preferences.group.map { ["--group", $0] } ?? []))
            #expect(dump.stdout == original.stdout && dump.status == 0 && original.status == 0, "\(dump.stderr)")
        }
        #expect(try Backups.snapshot(encrypted) == before)
    }

    @Test func listsWhatTheUnencryptedBackupLists() throws {
        let (encrypted, plain, password) = (try Backups.make(password: Backups.password), try Backups.make(), try Backups.passwordFile())
        let before = try Backups.snapshot(encrypted)
        for format in [["--format", "text"], ["--format", "json"], ["--format", "json", "--compact"]] {
            let listed = try run(["backup", "apps"] + format + ["--password-file", password.path, encrypted.path])
            let direct = try run(["backup", "apps"] + format + [plain.path])
            #expect(direct.status == 0 && direct.stderr.isEmpty)
            let (status, stdout, stderr) = renamed(listed, encrypted, as: plain)
            #expect(status == 0 && stdout == direct.stdoutText && stderr.isEmpty, "\(format): \(stderr)")
        }
        #expect(try Backups.snapshot(encrypted) == before)
    }

    /// A backup of iOS 10.0 or 10.1, whose keybag derives the key with PBKDF2-SHA1 alone (no
    /// DPSL/DPIC), opens with its password and lists what the unencrypted backup lists; a wrong
    /// password is still told apart.
    @Test func anIOS10BackupOpensWithItsPassword() throws {
        let (old, plain, password) = (try Backups.make("ios10-keybag", password: Backups.password), try Backups.make(),
                                      try Backups.passwordFile())
        let listed = try run(["backup", "apps", "--password-file", password.path, old.path])
        let direct = try run(["backup", "apps", plain.path])
        let (status, stdout, stderr) = renamed(listed, old, as: plain)
        #expect(status == 0 && stderr.isEmpty && stdout == direct.stdoutText, "\(stderr)")
        let dump = try run(["dump", "--backup", old.path, "--app", "com.example.notes", "--password-file", password.path])
        let plainDump = try run(["dump", "--backup", plain.path, "--app", "com.example.notes"])
        #expect(dump.status == 0 && dump.stdout == plainDump.stdout)
        let wrongFile = try Backups.passwordFile("not it")
        let wrong = try run(["backup", "apps", "--password-file", wrongFile.path, old.path])
        #expect(wrong.status == 2 && wrong.stderr == "ycft: \(old.path): wrong password (the backup's keybag did not open)\n")
    }

    /// A record whose `Size` is off by a byte while the padding is valid (Manifest.db's sizes are
    /// known to be off now and then): the file is read as decrypted, with a warning naming it,
    /// from every command; the other apps are read without one.
    @Test func aSizeOffFromTheRecordIsAWarning() throws {
        let (encrypted, password) = (try Backups.make("size-off", password: Backups.password), try Backups.passwordFile())
        let fixture = try readBytes(TestPaths.examples.appendingPathComponent("exported/com.example.notes.plist"))
        let warning = "ycft: \(encrypted.path): warning: 3f/3fec9de91317d194d5629328de2dbf76f86012ba: decrypts to \(fixture.count) bytes "
            + "with a valid padding, but its record in Manifest.db says \(fixture.count + 1); read as decrypted\n"
        let extract = try run(["backup", "extract", "--app", "com.example.notes", "-o", "-", "--password-file", password.path, encrypted.path])
        #expect(extract.status == 0 && extract.stdout == fixture && extract.stderr == warning, "\(extract.stderr)")
        let dump = try run(["dump", "--backup", encrypted.path, "--app", "com.example.notes", "--password-file", password.path])
        let direct = try run(["dump", TestPaths.examples.appendingPathComponent("exported/com.example.notes.plist").path])
        #expect(dump.status == 0 && dump.stdout == direct.stdout && dump.stderr == warning, "\(dump.stderr)")
        let apps = try run(["backup", "apps", "--password-file", password.path, encrypted.path])
        #expect(apps.status == 0 && apps.stderr == warning && apps.stdoutText.contains("app    com.example.notes "), "\(apps.stderr)")
        let game = try run(["dump", "--backup", encrypted.path, "--app", "com.example.game", "--password-file", password.path])
        #expect(game.status == 0 && game.stderr.isEmpty)
    }

    /// The password file's first line is the password: a CRLF ending, a byte-order mark before
    /// it (a file saved by Notepad) and later lines are not part of it.
    @Test func thePasswordIsTheFirstLine() throws {
        let encrypted = try Backups.make(password: Backups.password)
        let file = try TestPaths.temporaryDirectory().appendingPathComponent("password")
        for content in [Backups.password, Backups.password + "\r\n", Backups.password + "\nsecond line\n",
                        "\u{FEFF}" + Backups.password + "\r\n"] {
            try Data(content.utf8).write(to: file)
            let listed = try run(["backup", "apps", "--password-file", file.path, encrypted.path])
            #expect(listed.status == 0 && listed.stderr.isEmpty, "\(content.debugDescription): \(listed.stderr)")
        }
        let fromStdin = try run(["backup", "apps", "--password-file", "-", encrypted.path], stdin: Array((Backups.password + "\n").utf8))
        #expect(fromStdin.status == 0 && fromStdin.stderr.isEmpty, "\(fromStdin.stderr)")
        // From a pipe whose writer keeps its end open for 4 more seconds (a password manager
        // still running): the first line is enough; ycft does not wait for the end of input.
        let script = #"{ printf '%s\n' "$PW"; sleep 4; } | { start=$(date +%s%N); "$YCFT" backup apps --password-file - "$B" >/dev/null; "#
            + #"status=$?; echo "$status $(( ($(date +%s%N) - start) / 1000000 ))"; }"#
        var environment = ProcessInfo.processInfo.environment
        (environment["PW"], environment["YCFT"], environment["B"]) = (Backups.password, ycft.path, encrypted.path)
        let piped = try runProcess(URL(fileURLWithPath: "/bin/sh"), ["-c", script], environment: environment)
        let fields = piped.stdoutText.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        #expect(fields.count == 2 && fields[0] == 0 && fields[1] < 3000, "status and milliseconds: \(piped.stdoutText) \(piped.stderr)")
        try Data("\nthe password\n".utf8).write(to: file)
        let empty = try run(["backup", "apps", "--password-file", file.path, encrypted.path])
        #expect(empty.status == 2 && empty.stderr == "ycft: \(file.path): the first line is empty; it should hold the password\n")
        let missing = try run(["backup", "apps", "--password-file", file.path + ".missing", encrypted.path])
        // Not named: a hurried user gives the password itself where its file belongs.
        #expect(missing.status == 2 && missing.stderr
                == "ycft: --password-file: cannot read: No such file or directory (the value given is not shown: it may be the password itself)\n")
        let typed = try run(["backup", "apps", "--password-file", Backups.password, encrypted.path])
        #expect(typed.status == 2 && !typed.stderr.contains(Backups.password), "\(typed.stderr)")
    }

    /// A wrong password, and no password at all without a terminal: one line, exit 2, from
    /// every command that reads a backup.
    @Test func aWrongPasswordOrNoneIsOneLine() throws {
        let encrypted = try Backups.make(password: Backups.password)
        let before = try Backups.snapshot(encrypted)
        let wrong = try Backups.passwordFile("Correct horse battery")
        let out = try TestPaths.temporaryDirectory().appendingPathComponent("out.plist")
        let reads: [[String]] = [["dump"], ["status"], ["verify"]].map { $0 + ["--backup", encrypted.path, "--app", "com.example.notes"] }
            + [["backup", "apps", encrypted.path], ["backup", "extract", "--app", "com.example.notes", "-o", out.path, encrypted.path]]
        for read in reads {
            let withWrong = try run(read + ["--password-file", wrong.path])
            #expect(withWrong.status == 2 && withWrong.stdout.isEmpty, "\(read)")
            #expect(withWrong.stderr == "ycft: \(encrypted.path): wrong password (the backup's keybag did not open)\n", "\(read)")
            let withNone = try run(read, stdin: Array("correct horse battery\n".utf8))
            #expect(withNone.status == 2 && withNone.stdout.isEmpty, "\(read)")
            #expect(withNone.stderr == "ycft: \(encrypted.path): an encrypted backup and no password: "
                    + "give --password-file FILE, or run ycft on a terminal to type it\n", "\(read)")
        }
        #expect(!FileManager.default.fileExists(atPath: out.path))
        #expect(try Backups.snapshot(encrypted) == before)
    }

    /// `extract -o` into the backup, or onto a folder, is refused before the backup is read: no
    /// password is asked for (each try derives a key for seconds), where before the refusal came
    /// only after the password.
    @Test func anOutputTheWriterRefusesIsRefusedBeforeThePassword() throws {
        let encrypted = try Backups.make(password: Backups.password)
        let before = try Backups.snapshot(encrypted)
        let folder = try TestPaths.temporaryDirectory()
        let inside = encrypted.appendingPathComponent("n.plist").path
        let intoBackup = try run(["backup", "extract", "--app", "com.example.notes", "-o", inside, encrypted.path])
        #expect(intoBackup.status == 2)
        #expect(intoBackup.stderr == "ycft: \(inside): cannot write: it is inside the iPhone backup \"\(encrypted.path)\", which ycft never writes into\n")
        let ontoFolder = try run(["backup", "extract", "--app", "com.example.notes", "-o", folder.path, encrypted.path])
        #expect(ontoFolder.status == 2)
        #expect(ontoFolder.stderr == "ycft: \(folder.path): cannot write: Is a directory\n")
        #expect(try Backups.snapshot(encrypted) == before)
    }

    /// Each spoilt encrypted backup: the exact line from a read of the notes app's preferences
    /// and from `backup apps` (which names the app when only its file is spoilt).
    @Test(arguments: [
        ("absurd-iterations",
         "Manifest.plist: BackupKeyBag: DPIC asks for 4,000,000,000 iterations, more than ycft's limit of 50,000,000", nil),
        ("duplicate-class", "Manifest.plist: BackupKeyBag: class 3 is given twice", nil),
        ("truncated-manifest", "Manifest.db: does not decrypt (its padding is wrong: cut short or altered)", nil),
        ("tampered-manifest", "Manifest.db: file is not a database (SQLite error 26)", nil),
        ("truncated-file", "3f/3fec9de91317d194d5629328de2dbf76f86012ba: 761 encrypted bytes are not whole 16-byte blocks (cut short?)",
         "com.example.notes: "),
        ("tampered-file", "3f/3fec9de91317d194d5629328de2dbf76f86012ba: does not decrypt (its padding is wrong: cut short or altered)",
         "com.example.notes: "),
        ("no-file-key", "Manifest.db: the file record of 3fec9de91317d194d5629328de2dbf76f86012ba has no EncryptionKey of the right type",
         "com.example.notes: "),
    ] as [(String, String, String?)])
    func spoiltEncryptedBackupsAreOneClearLine(_ variant: String, _ message: String, _ listedAs: String?) throws {
        let encrypted = try Backups.make(variant, password: Backups.password)
        let password = try Backups.passwordFile()
        let before = try Backups.snapshot(encrypted)
        for command in [["dump"], ["status"], ["verify"]] {
            let result = try run(command + ["--backup", encrypted.path, "--app", "com.example.notes", "--password-file", password.path])
            #expect(result.status == 2 && result.stdout.isEmpty, "\(variant) \(command)")
            #expect(result.stderr == "ycft: \(encrypted.path): \(message)\n", "\(variant) \(command)")
        }
        let apps = try run(["backup", "apps", "--password-file", password.path, encrypted.path])
        #expect(apps.status == 2, "\(variant)")
        #expect(apps.stderr == "ycft: \(encrypted.path): \(listedAs ?? "")\(message)\n", "\(variant)")
        // Only the notes app's file is spoilt: the others are still listed.
        #expect(String(decoding: apps.stdout, as: UTF8.self).contains("com.example.game") == (listedAs != nil), "\(variant)")
        #expect(try Backups.snapshot(encrypted) == before, "\(variant)")
    }

    /// A class key altered in the keybag is not a wrong password: the password opened the
    /// others (a wrong key passes an unwrap's integrity check about once in 2^64 tries). One no
    /// file uses changes nothing; the files' class names the altered key on each file it stops.
    @Test func anAlteredClassKeyIsNotAWrongPassword() throws {
        let (intact, password) = (try Backups.make(password: Backups.password), try Backups.passwordFile())
        let unused = try Backups.make("altered-unused-class", password: Backups.password)
        for arguments in [["backup", "apps", "--password-file", password.path],
                          ["dump", "--app", "com.example.notes", "--password-file", password.path, "--backup"]] {
            let (expected, read) = (try run(arguments + [intact.path]), try run(arguments + [unused.path]))
            #expect(read.status == 0 && read.stderr.isEmpty, "\(arguments): \(read.stderr)")
            #expect(read.stdout == expected.stdout && !read.stdout.isEmpty, "\(arguments)")
        }
        let files = try Backups.make("altered-file-class", password: Backups.password)
        let before = try Backups.snapshot(files)
        let dump = try run(["dump", "--backup", files.path, "--app", "com.example.notes", "--password-file", password.path])
        #expect(dump.status == 2 && dump.stdout.isEmpty)
        #expect(dump.stderr == "ycft: \(files.path): 3f/3fec9de91317d194d5629328de2dbf76f86012ba: encrypted with protection class 3, "
                + "whose key in the keybag does not unwrap although the password opened the other class keys (the keybag was altered)\n")
        let apps = try run(["backup", "apps", "--password-file", password.path, files.path])
        let lines = apps.stderr.split(separator: "\n")
        #expect(apps.status == 2 && lines.count == 8, "\(lines)")
        #expect(lines.dropLast().allSatisfy { $0.hasSuffix("encrypted with protection class 3, whose key in the keybag does not unwrap "
                                                           + "although the password opened the other class keys (the keybag was altered)") })
        #expect(!apps.stderr.contains("wrong password"))
        #expect(try Backups.snapshot(files) == before)
    }

    /// `extract -o` writes the decrypted preferences, byte for byte the fixture, to a new file of
    /// mode 0600, or over a file only its owner may read, never over one others may read (an
    /// unencrypted backup's copy keeps the usual mode).
    @Test func extractWritesTheDecryptedFileReadableByItsOwnerOnly() throws {
        let (encrypted, plain, password) = (try Backups.make(password: Backups.password), try Backups.make(), try Backups.passwordFile())
        let before = try Backups.snapshot(encrypted)
        let dir = try TestPaths.temporaryDirectory()
        let (secret, open) = (dir.appendingPathComponent("secret.plist"), dir.appendingPathComponent("open.plist"))
        let fixture = try readBytes(TestPaths.examples.appendingPathComponent("exported/com.example.notes.plist"))
        let extracted = try run(["backup", "extract", "--app", "com.example.notes", "-o", secret.path, "--password-file", password.path,
                                 encrypted.path])
        #expect(extracted.status == 0 && extracted.stderr.isEmpty, "\(extracted.stderr)")
        #expect(try readBytes(secret) == fixture)
        let plainCopy = try run(["backup", "extract", "--app", "com.example.notes", "-o", open.path, plain.path])
        #expect(plainCopy.status == 0)
        let mode = { (url: URL) throws -> Int in
            try (FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int) ?? -1
        }
        #expect(try mode(secret) == 0o600)
        // A new file holding what was never secret: 0666 less the umask, as before.
        #expect(try mode(open) != 0o600 || umaskIsPrivate())
        // Over a file others may read (its mode would be kept): refused, the file as it was.
        #expect(chmod(open.path, 0o644) == 0)
        let openBytes = try readBytes(open)
        let shared = try run(["backup", "extract", "--app", "com.example.notes", "-o", open.path, "--password-file", password.path,
                              encrypted.path])
        #expect(shared.status == 2)
        #expect(shared.stderr == "ycft: \(open.path): not replaced: its mode 0644 lets its group read it and others read it, and the "
                + "replacement would keep that mode; decrypted preferences go only to a new file (made 0600), over one only its owner "
                + "may read or write (chmod 600 it first), or to standard output (-o -)\n")
        #expect(try readBytes(open) == openBytes)
        #expect(try mode(open) == 0o644)
        // Each mode says who else it lets in, and how; --force does not lift the rule.
        for (permissions, who) in [(0o620, "its group write it"), (0o604, "others read it"), (0o660, "its group read and write it"),
                                   (0o607, "others read, write and execute it"), (0o611, "its group execute it and others execute it")] {
            #expect(chmod(open.path, mode_t(permissions)) == 0)
            for force in [[], ["--force"]] {
                let refused = try run(["backup", "extract", "--app", "com.example.notes", "-o", open.path, "--password-file", password.path]
                                      + force + [encrypted.path])
                #expect(refused.status == 2 && refused.stderr.hasPrefix("ycft: \(open.path): not replaced: its mode 0"
                        + String(permissions, radix: 8) + " lets \(who), and the replacement would keep that mode; "), "\(refused.stderr)")
                #expect(try readBytes(open) == openBytes)
            }
        }
        // Over one only its owner may read: replaced, mode kept.
        let again = try run(["backup", "extract", "--app", "com.example.notes", "-o", secret.path, "--password-file", password.path,
                             encrypted.path])
        #expect(again.status == 0)
        #expect(try mode(secret) == 0o600)
        #expect(try Backups.snapshot(encrypted) == before)
    }

    /// Over an existing file that differs from the backup's and that others may read, the
    /// privacy refusal (which --force does not lift) comes first, not the difference (which
    /// --force would, only to meet the privacy refusal). Before, the difference was said.
    @Test func extractOverADifferentFileOthersMayReadSaysItsModeFirst() throws {
        let (encrypted, password) = (try Backups.make(password: Backups.password), try Backups.passwordFile())
        let empty = try TestPaths.temporaryDirectory().appendingPathComponent("empty.plist")
        try writeBytes([], to: empty)
        #expect(chmod(empty.path, 0o644) == 0)
        for force in [[], ["--force"]] {
            let refused = try run(["backup", "extract", "--app", "com.example.notes", "-o", empty.path, "--password-file", password.path]
                                  + force + [encrypted.path])
            #expect(refused.status == 2)
            #expect(refused.stderr == "ycft: \(empty.path): not replaced: its mode 0644 lets its group read it and others read it, and the "
                    + "replacement would keep that mode; decrypted preferences go only to a new file (made 0600), over one only its owner "
                    + "may read or write (chmod 600 it first), or to standard output (-o -)\n", "\(force)")
            #expect(try readBytes(empty) == [])
        }
    }

    /// Decrypted bytes never go into a named pipe or a device that `-o` names (directly or
    /// through a link): another user may hold it open. Refused before a byte is written, exit 2;
    /// an unencrypted backup's copy, which was never secret, still streams into a pipe.
    @Test func extractRefusesAPipeOrADeviceForDecryptedBytes() throws {
        let (encrypted, plain, password) = (try Backups.make(password: Backups.password), try Backups.make(), try Backups.passwordFile())
        let dir = try TestPaths.temporaryDirectory()
        let fifo = dir.appendingPathComponent("shared.plist")
        #expect(mkfifo(fifo.path, 0o666) == 0)
        let link = dir.appendingPathComponent("link.plist")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: fifo.path)
        // A reader that would receive whatever is written (and unblocks a writer that opened it).
        let reader = Process()
        reader.executableURL = URL(fileURLWithPath: "/bin/sh")
        let received = dir.appendingPathComponent("received")
        reader.arguments = ["-c", "exec cat \"$0\" > \"$1\"", fifo.path, received.path]
        try reader.run()
        defer { if reader.isRunning { reader.terminate() } }
        for output in [fifo.path, link.path] {
            let result = try run(["backup", "extract", "--app", "com.example.notes", "-o", output, "--password-file", password.path,
                                  encrypted.path])
            #expect(result.status == 2 && result.stdout.isEmpty)
            #expect(result.stderr == "ycft: \(fifo.path): cannot write: it is a named pipe, which anyone who may open it would read "
                    + "decrypted bytes from; decrypted preferences go only to standard output (-o -) or to a regular file only its "
                    + "owner may read\n", "\(result.stderr)")
        }
        let device = try run(["backup", "extract", "--app", "com.example.notes", "-o", "/dev/null", "--password-file", password.path,
                              encrypted.path])
        #expect(device.status == 2 && device.stderr.hasPrefix("ycft: /dev/null: cannot write: it is a character device, "), "\(device.stderr)")
        // Standard output is where the user asked for the bytes.
        let streamed = try run(["backup", "extract", "--app", "com.example.notes", "-o", "-", "--password-file", password.path,
                                encrypted.path])
        let fixture = try readBytes(TestPaths.examples.appendingPathComponent("exported/com.example.notes.plist"))
        #expect(streamed.status == 0 && streamed.stdout == fixture)
        // The unencrypted backup's copy streams into the pipe, as any output of ycft does.
        let open = try run(["backup", "extract", "--app", "com.example.notes", "-o", fifo.path, plain.path])
        #expect(open.status == 0, "\(open.stderr)")
        reader.waitUntilExit()
        #expect(try readBytes(received) == fixture)
    }

    /// `--password-file` belongs to `--backup`, like `--app`.
    @Test func passwordFileGoesWithBackup() throws {
        let file = TestPaths.fixtures.appendingPathComponent("valid/defaults/export.binary.plist").path
        let result = try run(["dump", "--password-file", "/dev/null", file])
        #expect(result.status == 2 && result.stderr.hasPrefix("Error: '--password-file' goes with '--backup'\n"), "\(result.stderr)")
    }

    /// `iphone-backup-decrypt` (PyPI), a decrypter that is not ycft, opens the generated backup
    /// with the password and finds every preferences file's bytes: the format is iOS's, not only
    /// what ycft agrees with itself on.
    @Test(.enabled(if: IndependentDecrypter.available,
                   "the PyPI package iphone-backup-decrypt cannot be imported (Scripts/bootstrap.sh installs it)"))
    func anIndependentDecrypterReadsTheSameFiles() throws {
        let encrypted = try Backups.make(password: Backups.password)
        let script = """
            import sys
            from iphone_backup_decrypt import EncryptedBackup
            backup = EncryptedBackup(backup_directory=sys.argv[1], passphrase=sys.argv[2])
            for domain, path in zip(sys.argv[3::2], sys.argv[4::2]):
                sys.stdout.buffer.write(backup.extract_file_as_bytes(path, domain_like=domain).hex().encode() + b"\\n")
            """
        let sources = BackupThroughTheTool.preferences.filter { $0.source != nil }
        let pairs = sources.flatMap { preferences -> [String] in
            let id = preferences.group ?? preferences.app
            return [(preferences.group != nil ? "AppDomainGroup-" : "AppDomain-") + id, "Library/Preferences/\(id).plist"]
        }
        let result = try runProcess(URL(fileURLWithPath: "/usr/bin/env"),
                                    ["python3", "-c", script, encrypted.path, Backups.password] + pairs)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdoutText.split(separator: "\n").map(String.init)
        #expect(lines.count == sources.count)
        for (preferences, line) in zip(sources, lines) {
            let fixture = try readBytes(TestPaths.committed(preferences.source ?? ""))
            #expect(line == fixture.map { String(format: "%02x", $0) }.joined(), "\(preferences)")
        }
    }
}

/// Whether the process's umask takes every permission from the group and others (reads it
/// through a child shell: setting it here would change it for every test running meanwhile).
func umaskIsPrivate() -> Bool {
    ((try? runProcess(URL(fileURLWithPath: "/bin/sh"), ["-c", "umask"]))?.stdoutText ?? "").hasSuffix("77\n")
}

/// Whether `python3` can import `iphone_backup_decrypt`.
enum IndependentDecrypter {
    static let available: Bool = {
        (try? runProcess(URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", "import iphone_backup_decrypt"]))?.status == 0
    }()
}

/// The password typed at the prompt, on a pseudo-terminal (tmux, an interactive bash): what is
/// typed is not echoed, the terminal echoes again afterwards, and Ctrl-C at the prompt ends ycft
/// by SIGINT with the terminal's settings put back.
@Suite(.enabled(if: Tmux.available, "tmux or vi is not installed (Scripts/bootstrap.sh installs them)"))
struct PasswordAtThePrompt {
    /// A new encrypted backup and a terminal on which `ycft ARGUMENTS BACKUP...` (`BACKUP` stands
    /// for the folder) runs, then `echo ycft-exit=$?`, once its prompt is on the screen.
    func prompting(_ arguments: String) throws -> (tmux: Tmux, backup: URL) {
        let f = try EditorFixture()
        let backup = try Backups.make(password: Backups.password)
        let tmux = try Tmux(f)
        do {
            try tmux.type("\(f.ycft.path) \(arguments.replacingOccurrences(of: "BACKUP", with: backup.path)); echo ycft-exit=$?")
            // capture-pane drops trailing blanks: the prompt's last space is not on the screen.
            try tmux.waitFor { $0.contains("Password of the encrypted backup \(backup.path):") }
        } catch {
            tmux.kill()
            throw error
        }
        return (tmux, backup)
    }

    @Test func theTypedPasswordIsNotEchoedAndOpensTheBackup() throws {
        let (tmux, backup) = try prompting("backup apps BACKUP")
        defer { tmux.kill() }
        let before = try Backups.snapshot(backup)
        try tmux.type(Backups.password)
        let screen = try tmux.waitFor { Tmux.exitStatus($0) != nil }
        #expect(Tmux.exitStatus(screen) == 0, "\(screen)")
        #expect(!screen.contains(Backups.password) && !screen.contains("battery"), "\(screen)")
        #expect(screen.contains("group  group.com.example.shared  defaults-archive  3"), "\(screen)")
        // Echo is back: the next command line is shown as typed.
        try tmux.type("echo after-\("the")-prompt")
        try tmux.waitFor { $0.contains("$ echo after-the-prompt\nafter-the-prompt") }
        #expect(try Backups.snapshot(backup) == before)
    }

    /// `--password-file -` with the terminal as standard input asks as the prompt does: read as a
    /// file, the typed password was echoed and only Ctrl-D ended it.
    @Test func passwordFileDashOnATerminalIsThePrompt() throws {
        let (tmux, backup) = try prompting("backup apps --password-file - BACKUP")
        defer { tmux.kill() }
        try tmux.type(Backups.password)
        let screen = try tmux.waitFor { Tmux.exitStatus($0) != nil }
        #expect(Tmux.exitStatus(screen) == 0, "\(screen)")
        #expect(!screen.contains(Backups.password) && !screen.contains("battery"), "\(screen)")
        #expect(screen.contains("Password of the encrypted backup \(backup.path):\n"), "\(screen)")
        #expect(screen.contains("group  group.com.example.shared  defaults-archive  3"), "\(screen)")
    }

    /// Ctrl-Z at the prompt stops ycft with the terminal's settings put back (the shell echoes
    /// while it is stopped); after `fg`, echo is off again and the prompt is asked again (the
    /// terminal dropped what was typed). Before, what was typed after `fg` was echoed.
    @Test func ctrlZThenFgAsksAgainWithEchoOff() throws {
        let f = try EditorFixture()
        let backup = try Backups.make(password: Backups.password)
        let tmux = try Tmux(f)
        defer { tmux.kill() }
        let prompt = "Password of the encrypted backup \(backup.path):"
        // No `; echo` after it: bash would run that at Ctrl-Z. `fg` gives the job's status.
        try tmux.type("\(f.ycft.path) backup apps --password-file - \(backup.path)")
        try tmux.waitFor { $0.contains(prompt) }
        try tmux.run(["send-keys", "-t", "edit", "-l", "half"])
        try tmux.run(["send-keys", "-t", "edit", "C-z"])
        try tmux.waitFor { $0.contains("Stopped") }
        try tmux.type("echo shown-\("while")-stopped")
        try tmux.waitFor { $0.contains("$ echo shown-while-stopped\nshown-while-stopped") }
        try tmux.type("fg")
        try tmux.waitFor { $0.components(separatedBy: prompt).count == 3 }
        try tmux.type(Backups.password)
        try tmux.waitFor { $0.contains("group  group.com.example.shared  defaults-archive  3") }
        try tmux.type("echo ycft-exit=$?")
        let screen = try tmux.waitFor { Tmux.exitStatus($0) != nil }
        #expect(Tmux.exitStatus(screen) == 0, "\(screen)")
        #expect(!screen.contains(Backups.password) && !screen.contains("battery") && !screen.contains("half"), "\(screen)")
        // Echo is back afterwards.
        try tmux.type("echo after-\("the")-prompt")
        try tmux.waitFor { $0.contains("$ echo after-the-prompt\nafter-the-prompt") }
    }

    /// A wrong password at the prompt is asked again, as sudo and ssh do, three tries in all
    /// (the same one typed again counts, and is known wrong without deriving its key again).
    @Test func aWrongPasswordAtThePromptIsAskedAgainThreeTimes() throws {
        let (tmux, backup) = try prompting("dump --backup BACKUP --app com.example.notes")
        defer { tmux.kill() }
        let prompt = "Password of the encrypted backup \(backup.path):"
        for (index, typed) in ["not it", "not it", "still not"].enumerated() {
            try tmux.waitFor { $0.components(separatedBy: prompt).count == index + 2 }
            try tmux.type(typed)
        }
        let screen = try tmux.waitFor { Tmux.exitStatus($0) != nil }
        #expect(Tmux.exitStatus(screen) == 2 && !screen.contains("not it") && !screen.contains("still not"), "\(screen)")
        let again = "ycft: \(backup.path): wrong password (the backup's keybag did not open); try again\n"
        #expect(screen.contains("\(prompt)\n\(again)\(prompt)\n\(again)\(prompt)\n"
                                + "ycft: \(backup.path): wrong password (the backup's keybag did not open), 3 times\n"), "\(screen)")
    }

    /// A mistyped password, then the right one: the backup opens, exit 0.
    @Test func theRightPasswordOnTheSecondTryOpensTheBackup() throws {
        let (tmux, backup) = try prompting("backup apps BACKUP")
        defer { tmux.kill() }
        try tmux.type("not it")
        let prompt = "Password of the encrypted backup \(backup.path):"
        try tmux.waitFor { $0.components(separatedBy: prompt).count == 3 }
        try tmux.type(Backups.password)
        let screen = try tmux.waitFor { Tmux.exitStatus($0) != nil }
        #expect(Tmux.exitStatus(screen) == 0, "\(screen)")
        #expect(screen.contains("\(prompt)\nycft: \(backup.path): wrong password (the backup's keybag did not open); try again\n\(prompt)\n"),
                "\(screen)")
        #expect(screen.contains("group  group.com.example.shared  defaults-archive  3") && !screen.contains(Backups.password), "\(screen)")
    }

    /// Enter alone is no password: said at once, before any key is derived.
    @Test func enterAloneAtThePromptIsNoPassword() throws {
        let (tmux, backup) = try prompting("backup apps BACKUP")
        defer { tmux.kill() }
        let prompt = "Password of the encrypted backup \(backup.path):"
        for tries in 1...3 {
            try tmux.waitFor { $0.components(separatedBy: prompt).count == tries + 1 }
            try tmux.run(["send-keys", "-t", "edit", "Enter"])
        }
        let screen = try tmux.waitFor { Tmux.exitStatus($0) != nil }
        #expect(Tmux.exitStatus(screen) == 2, "\(screen)")
        let again = "ycft: \(backup.path): no password was typed; try again\n"
        #expect(screen.contains("\(prompt)\n\(again)\(prompt)\n\(again)\(prompt)\nycft: \(backup.path): no password was typed\n"), "\(screen)")
    }

    /// Ctrl-D at the prompt with nothing typed gives no password: ycft ends at once, one line,
    /// exit 2, not asked again (as sudo). Before, it counted as a try and asked twice more.
    @Test func ctrlDAtThePromptCancelsAtOnce() throws {
        let (tmux, backup) = try prompting("backup apps BACKUP")
        defer { tmux.kill() }
        try tmux.run(["send-keys", "-t", "edit", "C-d"])
        let screen = try tmux.waitFor { Tmux.exitStatus($0) != nil }
        #expect(Tmux.exitStatus(screen) == 2, "\(screen)")
        let prompt = "Password of the encrypted backup \(backup.path):"
        #expect(screen.contains("\(prompt)\nycft: \(backup.path): no password was given\nycft-exit=2"), "\(screen)")
        #expect(screen.components(separatedBy: prompt).count == 2, "\(screen)")
    }

    /// With standard error sent to a file, the prompt still shows on the terminal (as sudo's
    /// does), and nothing of it lands in the file.
    @Test func thePromptShowsOnTheTerminalWhenStandardErrorIsRedirected() throws {
        let f = try EditorFixture()
        let backup = try Backups.make(password: Backups.password)
        let tmux = try Tmux(f)
        defer { tmux.kill() }
        let log = f.dir.appendingPathComponent("err.txt")
        try tmux.type("\(f.ycft.path) backup apps \(backup.path) > /dev/null 2> \(log.path); echo ycft-exit=$?")
        try tmux.waitFor { $0.contains("Password of the encrypted backup \(backup.path):") }
        try tmux.type(Backups.password)
        let screen = try tmux.waitFor { Tmux.exitStatus($0) != nil }
        #expect(Tmux.exitStatus(screen) == 0 && !screen.contains(Backups.password), "\(screen)")
        #expect(try readBytes(log).isEmpty)
    }

    /// SIGUSR1 or SIGALRM at the prompt (any signal whose default action ends ycft) ends it by
    /// that signal with the terminal's settings put back: `stty -a` run next by the same `sh`
    /// (which, unlike an interactive bash, does not put the terminal back itself) shows `echo`.
    /// Before, it showed `-echo`: the typed text of the next command was invisible.
    @Test(arguments: [SIGUSR1, SIGALRM])
    func anotherEndingSignalAtThePromptPutsTheTerminalBack(_ signal: Int32) throws {
        let f = try EditorFixture()
        let backup = try Backups.make(password: Backups.password)
        let tmux = try Tmux(f)
        defer { tmux.kill() }
        let script = f.dir.appendingPathComponent("prompt.sh")
        try writeBytes(Array(#"""
            "$1" backup apps "$2"
            echo "ycft-exit=$?"
            stty -a | tr ' ;' '\n\n' | grep -x -e echo -e -echo | sed 's/^/stty: /'

            """#.utf8), to: script)
        try tmux.type("sh \(script.path) \(f.ycft.path) \(backup.path)")
        try tmux.waitFor { $0.contains("Password of the encrypted backup \(backup.path):") }
        let group = try #require(try tmux.foregroundGroup())
        let ycft = try #require(processes(inGroup: group).first { pid in
            (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8)) == "ycft\n"
        })
        #expect(kill(ycft, signal) == 0)
        let screen = try tmux.waitFor { $0.contains("stty: ") }
        #expect(Tmux.exitStatus(screen) == 128 + Int(signal), "\(screen)")
        #expect(screen.contains("\nstty: echo\n"), "\(screen)")
    }

    @Test func ctrlCAtThePromptEndsYcftAndPutsTheTerminalBack() throws {
        let (tmux, _) = try prompting("backup apps BACKUP")
        defer { tmux.kill() }
        try tmux.run(["send-keys", "-t", "edit", "-l", "half"])
        try tmux.run(["send-keys", "-t", "edit", "C-c"])
        // Ended by SIGINT, ycft stops bash's list too (no ycft-exit line): the prompt comes back.
        try tmux.waitFor { $0.split(separator: "\n").contains("$") }
        try tmux.type("echo ycft-exit=$?")
        let screen = try tmux.waitFor { Tmux.exitStatus($0) != nil }
        #expect(Tmux.exitStatus(screen) == 130 && !screen.contains("half"), "\(screen)")
        try tmux.type("echo typed-\("and")-shown")
        try tmux.waitFor { $0.contains("$ echo typed-and-shown\ntyped-and-shown") }
    }
}
