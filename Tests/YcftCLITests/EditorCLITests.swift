import Foundation
import Testing
import FirstTimeArchive
import FirstTimeCore
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// What every `ycft edit` test starts from: a copy of a defaults file, a private `$TMPDIR` (the
/// scratch directory must be gone from it afterwards, or hold only a kept edit), and editors
/// written as scripts.
struct EditorFixture {
    let ycft = TestPaths.executable("ycft")
    let dir: URL
    let file: URL
    let temporary: URL
    let original: [UInt8]

    init() throws {
        dir = try TestPaths.temporaryDirectory()
        file = dir.appendingPathComponent("p.plist")
        temporary = dir.appendingPathComponent("tmp")
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: TestPaths.fixtures.appendingPathComponent("valid/defaults/export.binary.plist"), to: file)
        original = try readBytes(file)
    }

    /// This process's environment (the sanitizer's options included) with EDITOR and TMPDIR.
    func env(_ editor: String) -> [String: String] {
        ProcessInfo.processInfo.environment.merging(["EDITOR": editor, "VISUAL": "", "TMPDIR": temporary.path]) { $1 }
    }

    /// An editor script run as `sh PATH` (never executed itself: see ``EditInAnEditor``); its
    /// path has only characters the shell takes literally, so ycft `exec`s it and the process
    /// it waits for is the script's own. `$1` is the scratch file; `$D` is ``dir``.
    func editor(_ name: String, _ body: String) throws -> String {
        let script = dir.appendingPathComponent(name)
        try writeBytes(Array("D='\(dir.path)'\n\(body)\n".utf8), to: script)
        return "sh \(script.path)"
    }

    /// The entries left in `$TMPDIR`.
    func leftovers() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: temporary.path).sorted() }

    /// A file the editor script wrote, as text (empty when absent).
    func note(_ name: String) -> String {
        (try? readBytes(dir.appendingPathComponent(name))).map { String(decoding: $0, as: UTF8.self) } ?? ""
    }

    /// FILE after `ycft set FILE onboarding.v1 --last-version VERSION` on a copy: the bytes an
    /// edit that changes that version must write.
    func expectedBytes(lastVersion: String) throws -> [UInt8] {
        let copy = dir.appendingPathComponent("expected.plist")
        try writeBytes(original, to: copy)
        let set = try runProcess(ycft, ["set", copy.path, "onboarding.v1", "--last-version", lastVersion])
        #expect(set.status == 0, "\(set.stderr)")
        return try readBytes(copy)
    }
}

/// The scratch file: private, made anew each round, read without following what the editor
/// put in its place, capped at the input limit; trouble exits 2; an edit that could not be
/// written is kept and named.
@Suite struct EditScratchFile {
    @Test func eachRoundGetsANewPrivateFileInAPrivateDirectoryOfTMPDIR() throws {
        let f = try EditorFixture()
        let editor = try f.editor("ed.sh", """
        stat -c '%a %F' "$1" "$(dirname "$1")" >> "$D/modes"
        echo "$1" >> "$D/paths"
        if grep -q '^# ycft edit:' "$1"; then
          sed -i 's/"lastVersion" : 7/"lastVersion" : "7"/' "$1"
        else
          sed -i 's/"2.1.0"/7/' "$1"; chmod 644 "$1"
        fi
        """)
        let result = try runProcess(f.ycft, ["edit", f.file.path], environment: f.env(editor))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty)
        #expect(try readBytes(f.file) == f.expectedBytes(lastVersion: "7"))
        #expect(f.note("modes") == "600 regular file\n700 directory\n600 regular file\n700 directory\n")
        let paths = f.note("paths").split(separator: "\n")
        #expect(paths.count == 2 && paths[0] == paths[1])
        #expect(paths.first.map { $0.hasPrefix(f.temporary.path + "/ycft-edit-") && $0.hasSuffix("/records.json") } == true)
        #expect(try f.leftovers() == [])
    }

    /// The editor swaps the scratch file for a link to FILE: ycft used to read FILE through it,
    /// then write `# ycft edit: invalid JSON...` and FILE's bytes into FILE on the retry.
    @Test func aScratchFileSwappedForALinkOrAPipeIsRefusedAndFILEIsNotTouched() throws {
        for (name, swap, kind) in [("link", #"ln -s "$F" "$1""#, "a symbolic link"), ("pipe", #"mkfifo "$1""#, "a named pipe"),
                                   ("dir", #"mkdir "$1""#, "a directory")] {
            let f = try EditorFixture()
            var before = stat()
            #expect(stat(f.file.path, &before) == 0)
            let editor = try f.editor("ed.sh", "F='\(f.file.path)'\necho \"$1\" > \"$D/path\"\nrm \"$1\"\n\(swap)")
            let result = try runProcess(f.ycft, ["edit", f.file.path], environment: f.env(editor))
            #expect(result.status == 2, "\(name)")
            let scratch = f.note("path").dropLast()
            #expect(result.stderr == "ycft: \(f.file.path): the edited file \"\(scratch)\" is \(kind), not a regular file; nothing was written\n")
            #expect(try readBytes(f.file) == f.original, "\(name)")
            var after = stat()
            #expect(stat(f.file.path, &after) == 0)
            #expect(after.st_ino == before.st_ino && after.st_mtim.tv_nsec == before.st_mtim.tv_nsec, "\(name)")
            #expect(try f.leftovers() == [], "\(name)")
        }
    }

    /// A scratch file left at 1.5 GB (sparse) was once read whole, into gigabytes of memory; now
    /// it is refused by its size, before a byte is read, as any input over `--max-input-size`.
    @Test func anEditLargerThanTheInputLimitIsRefusedWithoutReadingIt() throws {
        let f = try EditorFixture()
        let huge = try f.editor("huge.sh", #"truncate -s 1500M "$1""#)
        let measured = try runMeasured(URL(fileURLWithPath: "/usr/bin/env"),
                                       f.env(huge).map { "\($0.key)=\($0.value)" } + [f.ycft.path, "edit", f.file.path])
        #expect(measured.status == 1)
        #expect(measured.stderr == "ycft: \(f.file.path): the edited file is larger than the limit of 33554432 bytes "
                + "(raise it with --max-input-size); nothing was written\n")
        if ProcessInfo.processInfo.environment["YCFT_SANITIZER"] == nil {
            #expect(measured.maxRSSKiB < 200 * 1024, "peak \(measured.maxRSSKiB) KiB")
            #expect(measured.seconds < 10)
        }
        #expect(try readBytes(f.file) == f.original)
        #expect(try f.leftovers() == [])
        // The limit is --max-input-size's: FILE (1 KiB) fits 2K, its edit grown past 2K does not.
        let grow = try f.editor("grow.sh", #"head -c 3000 /dev/zero | tr '\0' ' ' >> "$1""#)
        let small = try runProcess(f.ycft, ["edit", "--max-input-size", "2K", f.file.path], environment: f.env(grow))
        #expect(small.status == 1)
        #expect(small.stderr == "ycft: \(f.file.path): the edited file is larger than the limit of 2048 bytes "
                + "(raise it with --max-input-size); nothing was written\n")
        #expect(try readBytes(f.file) == f.original)
    }

    /// An edit refused because FILE changed meanwhile is kept and named, as kubectl edit does.
    @Test func anEditRefusedBecauseTheFileChangedIsKeptAndNamed() throws {
        let f = try EditorFixture()
        let other = f.dir.appendingPathComponent("other.plist")
        // Another program writes FILE (a copy renamed over it) while the editor is open.
        let editor = try f.editor("ed.sh", """
        echo "$1" > "$D/path"
        sed -i 's/"2.1.0"/"8.0.0"/' "$1"
        cp "$D/p.plist" "$D/other.plist"; mv "$D/other.plist" "$D/p.plist"
        """)
        let result = try runProcess(f.ycft, ["edit", f.file.path], environment: f.env(editor))
        #expect(result.status == 2)
        let kept = String(f.note("path").dropLast())
        #expect(result.stderr == "ycft: \(f.file.path): not replaced: it changed after ycft read it (another program wrote it)\n"
                + "ycft: \(f.file.path): the edit is kept in \"\(kept)\"\n")
        #expect(try readBytes(f.file) == f.original)
        #expect(!FileManager.default.fileExists(atPath: other.path))
        var json = try runProcess(f.ycft, ["dump", f.file.path]).stdoutText
        json = json.replacingOccurrences(of: "\"2.1.0\"", with: "\"8.0.0\"")
        #expect(String(decoding: try readBytes(URL(fileURLWithPath: kept)), as: UTF8.self) == json)
        #expect(try f.leftovers() == [URL(fileURLWithPath: kept).deletingLastPathComponent().lastPathComponent])
        // What was kept puts the edit in with pack --into.
        #expect(try runProcess(f.ycft, ["pack", "--into", f.file.path, kept]).status == 0)
        #expect(try readBytes(f.file) == f.expectedBytes(lastVersion: "8.0.0"))
    }

    @Test func anEditThatKeepsItsMistakeIsKeptToo() throws {
        let f = try EditorFixture()
        let stubborn = try f.editor("bad.sh", #"echo "$1" > "$D/path"; grep -q '^# ycft edit:' "$1" || sed -i 's/"2.1.0"/7/' "$1""#)
        let result = try runProcess(f.ycft, ["edit", f.file.path], environment: f.env(stubborn))
        #expect(result.status == 1)
        let kept = String(f.note("path").dropLast())
        #expect(result.stderr == "ycft: \(f.file.path): the edit still has an error: records[\"onboarding.v1\"].lastVersion: "
                + "expected a string or null, found number; nothing was written\n"
                + "ycft: \(f.file.path): the edit is kept in \"\(kept)\"\n")
        let text = String(decoding: try readBytes(URL(fileURLWithPath: kept)), as: UTF8.self)
        let json = try runProcess(f.ycft, ["dump", f.file.path]).stdoutText.replacingOccurrences(of: "\"2.1.0\"", with: "7")
        #expect(text == "# ycft edit: records[\"onboarding.v1\"].lastVersion: expected a string or null, found number\n"
                + "# Fix it and save, or save an empty file to cancel.\n" + json)
        #expect(try readBytes(f.file) == f.original)
    }

    /// A JSON mistake is said at the line the editor shows it on (issue 46, item 18), not the
    /// line of the document without its comment lines: in the reopened file below the note's
    /// two lines, and in the kept file with the comment lines the user saved counted.
    @Test func aJSONMistakeIsSaidAtTheLineTheEditorShowsItOn() throws {
        let f = try EditorFixture()
        let editor = try f.editor("ed.sh", """
        if grep -q '^# ycft edit:' "$1"; then
          cp "$1" "$D/reopened"; echo "$1" > "$D/path"
          sed -i '3a # a comment of my own' "$1"
        else
          sed -i 's/"lastVersion" : "2.1.0"/"lastVersion" "2.1.0"/' "$1"
        fi
        """)
        let result = try runProcess(f.ycft, ["edit", f.file.path], environment: f.env(editor))
        #expect(result.status == 1)
        let kept = String(f.note("path").dropLast())
        // Line 8 of the document: line 10 below the note, line 11 with the comment added too.
        #expect(result.stderr == "ycft: \(f.file.path): the edit still has an error: invalid JSON: expected ':' (at line 11, column 21); "
                + "nothing was written\nycft: \(f.file.path): the edit is kept in \"\(kept)\"\n")
        let broken = #"      "lastVersion" "2.1.0""#
        let reopened = f.note("reopened").components(separatedBy: "\n")
        #expect(reopened.first == "# ycft edit: invalid JSON: expected ':' (at line 10, column 21)")
        #expect(reopened.count > 10 && reopened[9] == broken && Array(reopened[9].utf8)[20] == UInt8(ascii: "\""))
        let saved = String(decoding: try readBytes(URL(fileURLWithPath: kept)), as: UTF8.self).components(separatedBy: "\n")
        #expect(saved.count > 11 && saved[3] == "# a comment of my own" && saved[10] == broken)
        #expect(try readBytes(f.file) == f.original)
    }

    /// A failing or missing editor and a TMPDIR where nothing can be made are trouble (2),
    /// not a content problem (1); nothing is written, nothing is left.
    @Test func aFailingEditorOrAnUnusableTMPDIRIsTrouble() throws {
        let f = try EditorFixture()
        let path = f.file.path
        let failing = try runProcess(f.ycft, ["edit", path], environment: f.env("false"))
        #expect(failing.status == 2)
        #expect(failing.stderr == "ycft: \(path): the editor \"false\" exited with status 1; nothing was written\n")
        let missing = try runProcess(f.ycft, ["edit", path], environment: f.env("ycft-no-such-editor"))
        #expect(missing.status == 2)
        #expect(missing.stderr.hasSuffix("ycft-no-such-editor: not found\n"
                                         + "ycft: \(path): the editor \"ycft-no-such-editor\" exited with status 127; nothing was written\n"))
        let crashed = try runProcess(f.ycft, ["edit", path], environment: f.env(try f.editor("k.sh", "kill -KILL $$")))
        #expect(crashed.status == 2)
        #expect(crashed.stderr == "ycft: \(path): the editor \"sh \(f.dir.path)/k.sh\" was ended by SIGKILL; nothing was written\n")
        for temporary in [f.dir.appendingPathComponent("none").path, path] {
            var env = f.env("true")
            env["TMPDIR"] = temporary
            let result = try runProcess(f.ycft, ["edit", path], environment: env)
            #expect(result.status == 2)
            let reason = temporary == path ? "Not a directory" : "No such file or directory"
            #expect(result.stderr == "ycft: \(path): cannot make a scratch directory in \"\(temporary)\": \(reason); nothing was written\n")
        }
        #expect(try readBytes(f.file) == f.original)
        #expect(try f.leftovers() == [])
    }

    /// A file of an iPhone backup is refused before the editor opens, as `set` refuses it
    /// before it changes anything: no one works on an edit that cannot land.
    @Test func aFileInsideABackupIsRefusedBeforeTheEditorOpens() throws {
        let f = try EditorFixture()
        let backup = try Backups.make()
        let before = try Backups.snapshot(backup)
        let file = BackupThroughTheTool.preferences[0].path(in: backup)
        let editor = try f.editor("ran.sh", #"echo ran > "$D/ran""#)
        let result = try runProcess(f.ycft, ["edit", file], environment: f.env(editor))
        #expect(result.status == 2 && result.stdout.isEmpty)
        #expect(result.stderr == "ycft: \(file): cannot write: it is inside the iPhone backup \"\(backup.path)\", which ycft never writes "
                + "into (copy the file out with 'ycft backup extract' and work on the copy)\n")
        #expect(f.note("ran").isEmpty)
        #expect(try f.leftovers() == [])
        #expect(try Backups.snapshot(backup) == before)
    }

    /// An editor given with shell syntax still works (through `sh -c`), and $VISUAL comes first.
    @Test func editorsWithShellSyntaxAndVISUAL() throws {
        let f = try EditorFixture()
        let script = try f.editor("ed.sh", #"sed -i "s/\"2.1.0\"/\"$V\"/" "$1""#)
        var env = f.env("false")
        env["VISUAL"] = "V=6.5.4 \(script)"
        let result = try runProcess(f.ycft, ["edit", f.file.path], environment: env)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try readBytes(f.file) == f.expectedBytes(lastVersion: "6.5.4"))
        #expect(try f.leftovers() == [])
    }
}

/// Signals during `ycft edit`, sent to the real binary: ycft cleans up, hands the signal to
/// the editor or leaves it to the editor, and ends by it.
@Suite struct EditSignals {
    /// An editor that records its pid (the process ycft waits for) and waits until `go` exists,
    /// then changes a version; with `exec sleep` instead, it only waits.
    func start(_ f: EditorFixture, waitsForGo: Bool) throws -> (ycft: Spawned, editor: pid_t) {
        let body = waitsForGo
            ? "echo $$ > \"$D/pid.new\"; mv \"$D/pid.new\" \"$D/pid\"\nwhile [ ! -e \"$D/go\" ]; do sleep 0.02; done\nsed -i 's/\"2.1.0\"/\"5.0.0\"/' \"$1\""
            : "echo $$ > \"$D/pid.new\"; mv \"$D/pid.new\" \"$D/pid\"\nexec sleep 60"
        let ycft = try Spawned(f.ycft, ["edit", f.file.path], environment: f.env(try f.editor("ed.sh", body)), in: f.dir)
        let pid = try #require(poll { Int32(f.note("pid").dropLast()) }, "the editor did not start: \(ycft.stderr)")
        return (ycft, pid)
    }

    @Test(arguments: [SIGTERM, SIGHUP])
    func aSignalToYcftIsPassedToTheEditorAndEndsYcftAfterCleaningUp(_ signal: Int32) throws {
        let f = try EditorFixture()
        let (ycft, editor) = try start(f, waitsForGo: false)
        #expect(kill(ycft.pid, signal) == 0)
        let status = ycft.wait()
        #expect(status == 128 + signal)
        let name = signal == SIGTERM ? "SIGTERM" : "SIGHUP"
        #expect(ycft.stderr == "ycft: \(f.file.path): stopped by \(name); nothing was written\n")
        #expect(kill(editor, 0) == -1 && errno == ESRCH, "the editor is still running")
        #expect(try readBytes(f.file) == f.original)
        #expect(try f.leftovers() == [])
    }

    /// vim catches SIGHUP, saves what it can and exits 1: ycft still ends by SIGHUP, not as an
    /// editor that failed (the hang-up of a closed terminal, seen with vim in tmux).
    @Test func anEditorThatExitsOnTheSignalPassedOnStillEndsYcftByIt() throws {
        let f = try EditorFixture()
        let editor = try f.editor("ed.sh", """
        trap 'exit 1' HUP TERM
        echo $$ > "$D/pid.new"; mv "$D/pid.new" "$D/pid"
        while :; do sleep 0.02; done
        """)
        let ycft = try Spawned(f.ycft, ["edit", f.file.path], environment: f.env(editor), in: f.dir)
        let pid = try #require(poll { Int32(f.note("pid").dropLast()) }, "the editor did not start: \(ycft.stderr)")
        #expect(kill(ycft.pid, SIGHUP) == 0)
        #expect(ycft.wait() == 128 + SIGHUP)
        #expect(ycft.stderr == "ycft: \(f.file.path): stopped by SIGHUP; nothing was written\n")
        #expect(kill(pid, 0) == -1 && errno == ESRCH)
        #expect(try readBytes(f.file) == f.original)
        #expect(try f.leftovers() == [])
    }

    /// Ctrl-C at a terminal signals the whole foreground group: the editor decides; one that
    /// dies of it ends ycft the same way, after cleaning up.
    @Test func ctrlCToTheGroupEndsAnEditorThatDiesOfItAndThenYcft() throws {
        let f = try EditorFixture()
        let (ycft, editor) = try start(f, waitsForGo: false)
        #expect(kill(-ycft.pid, SIGINT) == 0)
        #expect(ycft.wait() == 128 + SIGINT)
        #expect(ycft.stderr == "ycft: \(f.file.path): the editor \"sh \(f.dir.path)/ed.sh\" was ended by SIGINT; nothing was written\n")
        #expect(kill(editor, 0) == -1 && errno == ESRCH)
        #expect(try readBytes(f.file) == f.original)
        #expect(try f.leftovers() == [])
    }

    /// SIGINT to ycft alone while the editor runs is ignored, as `system(3)` does: the edit
    /// goes on and is written.
    @Test func sigintToYcftAloneWhileTheEditorRunsIsIgnored() throws {
        let f = try EditorFixture()
        let (ycft, _) = try start(f, waitsForGo: true)
        #expect(kill(ycft.pid, SIGINT) == 0)
        #expect(kill(ycft.pid, SIGQUIT) == 0)
        try writeBytes([], to: f.dir.appendingPathComponent("go"))
        #expect(ycft.wait() == 0)
        #expect(ycft.stderr == "")
        #expect(try readBytes(f.file) == f.expectedBytes(lastVersion: "5.0.0"))
        #expect(try f.leftovers() == [])
    }
}

/// `ycft edit` with a real `vi` on a pseudo-terminal (tmux), typed into from an interactive
/// shell with job control, as a user would. A terminal editor started outside the terminal's
/// foreground group (as Foundation's `Process` did) is stopped at once and draws nothing.
@Suite(.enabled(if: Tmux.available, "tmux or vi is not installed (Scripts/bootstrap.sh installs them)"))
struct EditOnATerminal {
    @Test func viEditsTheRecordsAndTheChangeIsWritten() throws {
        let f = try EditorFixture()
        let tmux = try Tmux(f)
        defer { tmux.kill() }
        try tmux.type("\(f.ycft.path) edit \(f.file.path); echo ycft-exit=$?")
        try tmux.waitFor { $0.contains(#""lastVersion" : "2.1.0""#) }
        try tmux.type(#":%s/"2.1.0"/"9.9.9"/"#)
        try tmux.type(":wq")
        let screen = try tmux.waitFor { Tmux.exitStatus($0) != nil }
        #expect(Tmux.exitStatus(screen) == 0, "\(screen)")
        #expect(try readBytes(f.file) == f.expectedBytes(lastVersion: "9.9.9"))
        #expect(try f.leftovers() == [])
    }

    /// A JSON mistake saved in vi reopens vi with the mistake on top, at the line vi numbers
    /// (issue 46, item 18: it said the line of the document without the note's two lines).
    @Test func aJSONMistakeIsSaidAtTheLineViNumbers() throws {
        let f = try EditorFixture()
        let tmux = try Tmux(f)
        defer { tmux.kill() }
        try tmux.type("\(f.ycft.path) edit \(f.file.path); echo ycft-exit=$?")
        try tmux.waitFor { $0.contains(#""lastVersion" : "2.1.0""#) }
        try tmux.type(#":%s/"lastVersion" : "2.1.0"/"lastVersion" "2.1.0"/"#)
        try tmux.type(":wq")
        try tmux.waitFor { $0.contains("# ycft edit:") }
        try tmux.type(":set number")
        let reopened = try tmux.waitFor { $0.contains("  1 # ycft edit:") }
        #expect(reopened.contains("  1 # ycft edit: invalid JSON: expected ':' (at line 10, column 21)\n"), "\(reopened)")
        #expect(reopened.contains(#" 10       "lastVersion" "2.1.0""# + "\n"), "\(reopened)")
        // Saved again as it is: the same line, in the file that is kept.
        try tmux.type(":wq")
        let screen = try tmux.waitFor { Tmux.exitStatus($0) != nil }
        #expect(screen.contains("ycft: \(f.file.path): the edit still has an error: invalid JSON: expected ':' (at line 10, column 21); "
                                + "nothing was written\n"), "\(screen)")
        #expect(Tmux.exitStatus(screen) == 1, "\(screen)")
        #expect(try readBytes(f.file) == f.original)
    }

    /// SIGTERM to ycft while vi is open: vi gets it and ends, the scratch file goes, ycft ends
    /// by SIGTERM (the shell shows 143), and the shell has the terminal back.
    @Test func sigtermWhileViIsOpenEndsViAndYcftAndCleansUp() throws {
        let f = try EditorFixture()
        let tmux = try Tmux(f)
        defer { tmux.kill() }
        try tmux.type("\(f.ycft.path) edit \(f.file.path); echo ycft-exit=$?")
        try tmux.waitFor { $0.contains(#""lastVersion" : "2.1.0""#) }
        let group = try #require(try tmux.foregroundGroup())
        let members = processes(inGroup: group)
        #expect(members.count == 2, "ycft and vi: \(members)")
        #expect(kill(group, SIGTERM) == 0)
        let screen = try tmux.waitFor { Tmux.exitStatus($0) != nil }
        #expect(screen.contains("ycft: \(f.file.path): stopped by SIGTERM; nothing was written\n"), "\(screen)")
        #expect(Tmux.exitStatus(screen) == 143, "\(screen)")
        for pid in members { #expect(kill(pid, 0) == -1 && errno == ESRCH, "\(pid) is still running") }
        #expect(try readBytes(f.file) == f.original)
        #expect(try f.leftovers() == [])
    }
}

/// A tmux server of its own (socket in the test's directory, no configuration), running an
/// interactive bash without start-up files (or another shell) in a 300x40 window (no line of
/// the test wraps).
struct Tmux {
    static let tmux = executableInPath("tmux")
    static let available = tmux != nil && executableInPath("vi") != nil && executableInPath("bash") != nil

    let socket: String
    let executable: URL
    let environment: [String: String]

    init(_ f: EditorFixture) throws { try self.init(in: f.dir, temporary: f.temporary) }

    /// A shell whose home is `dir/home` and whose TMPDIR is `temporary`: `shell`, which must
    /// prompt `$ ` (a zsh's `dir/home/.zshrc` sets PS1; bash's comes from the environment).
    init(in dir: URL, temporary: URL, shell: String = "bash --norc --noprofile -i") throws {
        executable = URL(fileURLWithPath: try #require(Tmux.tmux))
        // Short: a socket path has at most 107 bytes.
        socket = TestScratch.root.appendingPathComponent("tmux-\(UUID().uuidString.prefix(8))").path
        var environment = ProcessInfo.processInfo.environment
        environment["TMUX"] = nil
        environment["TMUX_PANE"] = nil
        self.environment = environment
        let home = dir.appendingPathComponent("home")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        let command = "env HOME='\(home.path)' TMPDIR='\(temporary.path)' TERM=screen EDITOR=vi VISUAL= PS1='$ ' " + shell
        let started = try run(["-f", "/dev/null", "new-session", "-d", "-s", "edit", "-x", "300", "-y", "40", command])
        #expect(started.status == 0, "\(started.stderr)")
        // capture-pane drops trailing blanks: the prompt "$ " is the line "$".
        do { try waitFor { $0.hasPrefix("$\n") } } catch {
            kill()
            throw error
        }
    }

    /// Runs a tmux command. Its output goes to files, never pipes: the server that
    /// `new-session` starts keeps the client's descriptors, and a pipe would never end.
    @discardableResult
    func run(_ arguments: [String]) throws -> (status: Int32, stdoutText: String, stderr: String) {
        let child = try Spawned(executable, ["-S", socket] + arguments, environment: environment,
                                in: TestScratch.root, captureOutput: true)
        let status = child.wait() ?? -1
        defer { unlink(child.outputPath); unlink(child.errorPath) }
        return (status, String(decoding: child.stdout, as: UTF8.self), child.stderr)
    }

    /// N from the line `ycft-exit=N` that `echo ycft-exit=$?` printed.
    static func exitStatus(_ screen: String) -> Int? {
        screen.split(separator: "\n").lazy.compactMap { line in
            line.hasPrefix("ycft-exit=") ? Int(line.dropFirst("ycft-exit=".count).trimmingCharacters(in: .whitespaces)) : nil
        }.first
    }

    /// Types `text` and Enter.
    func type(_ text: String) throws {
        try type(text, then: ["Enter"])
    }

    /// Types `text`, then presses the keys `keys` (tmux's names: `Enter`, `Tab`, `C-u`).
    func type(_ text: String, then keys: [String]) throws {
        if !text.isEmpty { try run(["send-keys", "-t", "edit", "-l", text]) }
        for key in keys { try run(["send-keys", "-t", "edit", key]) }
    }

    /// The screen's text, once `done` holds for it (polled; at most 30 s); with `escapes`, with
    /// the sequences of its colours and attributes as tmux writes them (`capture-pane -e`).
    @discardableResult
    func waitFor(escapes: Bool = false, _ done: (String) -> Bool) throws -> String {
        var screen = "", problem = ""
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            let capture = try run(["capture-pane", "-p"] + (escapes ? ["-e"] : []) + ["-t", "edit"])
            screen = capture.stdoutText
            problem = capture.status == 0 ? "" : "capture-pane exited with \(capture.status): \(capture.stderr)"
            if done(screen) { return screen }
            usleep(20_000)
        }
        Issue.record("timed out; \(problem)the screen:\n\(screen)")
        throw CancellationError()
    }

    /// The terminal's foreground process group (the job the shell runs).
    func foregroundGroup() throws -> pid_t? {
        let shell = try run(["display-message", "-p", "-t", "edit", "#{pane_pid}"]).stdoutText
        return Int32(shell.trimmingCharacters(in: .whitespacesAndNewlines)).flatMap { procStat($0)?.foregroundGroup }
    }

    func kill() { _ = try? run(["kill-server"]) }
}

/// A child started with `posix_spawn` in a process group of its own (as a shell runs a job),
/// standard input from /dev/null, standard error (and output, when captured) to files.
struct Spawned {
    let pid: pid_t
    let errorPath: String
    let outputPath: String

    init(_ executable: URL, _ arguments: [String], environment: [String: String], in dir: URL,
         captureOutput: Bool = false) throws {
        let id = UUID().uuidString
        errorPath = dir.appendingPathComponent("stderr-\(id)").path
        outputPath = captureOutput ? dir.appendingPathComponent("stdout-\(id)").path : "/dev/null"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t(), empty = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGPIPE] { sigaddset(&defaults, signal) }
        sigemptyset(&empty)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        let argv = ([executable.path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { argv.forEach { free($0) }; envp.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable.path, &actions, &attributes, argv, envp)
        guard spawned == 0 else { throw NSError(domain: "posix_spawn", code: Int(spawned)) }
        self.pid = pid
    }

    /// Waits (at most 30 s, then kills the group): the exit status, or 128 + the signal.
    func wait() -> Int32? {
        let deadline = ContinuousClock.now + .seconds(30)
        var status: Int32 = 0
        while ContinuousClock.now < deadline {
            let done = waitpid(pid, &status, WNOHANG)
            if done == pid { return status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F) }
            if done < 0 && errno != EINTR { return nil }
            usleep(5_000)
        }
        Glibc.kill(-pid, SIGKILL)
        _ = waitpid(pid, &status, 0)
        return nil
    }

    var stderr: String { (try? readBytes(URL(fileURLWithPath: errorPath))).map { String(decoding: $0, as: UTF8.self) } ?? "" }

    var stdout: [UInt8] { outputPath == "/dev/null" ? [] : (try? readBytes(URL(fileURLWithPath: outputPath))) ?? [] }
}

/// Polls `value` every 10 ms for at most 30 s.
func poll<T>(_ value: () -> T?) -> T? {
    let deadline = ContinuousClock.now + .seconds(30)
    while ContinuousClock.now < deadline {
        if let found = value() { return found }
        usleep(10_000)
    }
    return nil
}

/// The first executable `name` on `$PATH`.
func executableInPath(_ name: String) -> String? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    return path.split(separator: ":").map { "\($0)/\(name)" }.first { access($0, X_OK) == 0 }
}

/// From `/proc/PID/stat`: the process group and the terminal's foreground group.
func procStat(_ pid: pid_t) -> (group: pid_t, foregroundGroup: pid_t)? {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
          let close = text.lastIndex(of: ")") else { return nil }
    // After "pid (comm)": state ppid pgrp session tty_nr tpgid ...
    let fields = text[text.index(after: close)...].split(separator: " ")
    guard fields.count > 5, let group = Int32(fields[2]), let foreground = Int32(fields[5]) else { return nil }
    return (group, foreground)
}

/// Every process in a process group (from /proc).
func processes(inGroup group: pid_t) -> [pid_t] {
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    return entries.compactMap { Int32($0) }.filter { procStat($0)?.group == group }.sorted()
}
