import Foundation
import Testing
import TestSupport

/// Issue 48's first-hour papercuts, on the built binary: exact output and exit status.
@Suite struct FirstHourCLI {
    let ycft = TestPaths.executable("ycft")

    /// "Unreadable" has one meaning in verify's summary and JSON report: no property list could
    /// be read from the file, whether it cannot be opened (exit 2) or its bytes are no property
    /// list (`plist-unreadable`, exit 1). Before, the second counted as failed.
    @Test func unreadableMeansOneThing() throws {
        let dir = try TestPaths.temporaryDirectory()
        let notes = dir.appendingPathComponent("README.md")
        try writeBytes(Array("# Notes\n".utf8), to: notes)
        let good = TestPaths.fixtures.appendingPathComponent("valid/ycft/three-records.plist").path
        let content = try runProcess(ycft, ["verify", notes.path, good])
        #expect(content.status == 1)
        #expect(content.stderr == "\(notes.path): error: [plist-unreadable] file: not a property list (neither binary 'bplist00' nor XML)\n"
                + "ycft verify: 2 files: 1 passed, 0 failed, 1 unreadable (1 error, 0 warnings)\n")
        let missing = dir.appendingPathComponent("nothere").path
        let both = try runProcess(ycft, ["verify", notes.path, missing])
        #expect(both.status == 2)
        #expect(both.stderr.hasSuffix("ycft verify: 2 files: 0 passed, 0 failed, 2 unreadable (1 error, 0 warnings)\n"), "\(both.stderr)")
        let json = try runProcess(ycft, ["verify", "--format", "json", "--compact", notes.path, missing])
        let statuses = json.stdoutText.components(separatedBy: #""status":""#).dropFirst().map { $0.prefix { $0 != "\"" } }
        #expect(statuses == ["unreadable", "unreadable"], "\(json.stdoutText)")
    }

    /// `ycft backup <TAB>` offers the actions, then folders for BACKUP, in bash (zsh's
    /// script says the same, `'1:action:(apps extract)'`, then `'1:BACKUP:_files -/'` after
    /// each action; CompletionPerAction runs it in zsh).
    @Test func backupActionsComplete() throws {
        let dir = try TestPaths.temporaryDirectory()
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("BackupDir"), withIntermediateDirectories: true)
        try writeBytes([], to: dir.appendingPathComponent("Backup.txt"))
        let bash = try runProcess(ycft, ["--generate-completion-script", "bash"]).stdoutText
        let script = dir.appendingPathComponent("ycft.bash")
        try writeBytes(Array(bash.utf8), to: script)
        let driver = #"""
            source "$1"; cd "$2"
            for line in "ycft backup " "ycft backup ex" "ycft backup apps Ba" "ycft backup extract --app x Ba"; do
                read -ra COMP_WORDS <<<"$line"; [[ "$line" == *" " ]] && COMP_WORDS+=("")
                COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _ycft; echo "$line|${COMPREPLY[*]}"
            done
            """#
        let result = try runProcess(URL(fileURLWithPath: "/bin/bash"), ["-c", driver, "bash", script.path, dir.path])
        #expect(result.stdoutText == "ycft backup |apps extract\nycft backup ex|extract\nycft backup apps Ba|BackupDir\n"
                + "ycft backup extract --app x Ba|BackupDir\n", "\(result.stdoutText)\(result.stderr)")
        let zsh = try runProcess(ycft, ["--generate-completion-script", "zsh"]).stdoutText
        #expect(zsh.contains("                '1:action:(apps extract)' \\\n"))
        #expect(zsh.components(separatedBy: "                        '1:BACKUP:_files -/'\n").count == 3)
    }

    /// fish completes `ycft backup ` the same way, where fish is installed.
    @Test(.enabled(if: GeneratedFromTheSpec.installed("fish"), "fish is not installed"))
    func backupActionsCompleteInFish() throws {
        let dir = try TestPaths.temporaryDirectory()
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("BackupDir"), withIntermediateDirectories: true)
        try writeBytes([], to: dir.appendingPathComponent("Backup.txt"))
        let fishScript = dir.appendingPathComponent("ycft.fish")
        try writeBytes(try runProcess(ycft, ["--generate-completion-script", "fish"]).stdout, to: fishScript)
        let fish = try runProcess(URL(fileURLWithPath: "/usr/bin/env"),
                                  ["fish", "--no-config", "-c", "source $argv[1]; cd $argv[2]; complete -C 'ycft backup '; echo ==; "
                                    + "complete -C 'ycft backup apps Ba'", fishScript.path, dir.path],
                                  environment: ["PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8", "HOME": dir.path])
        #expect(fish.stdoutText == "apps\nextract\n==\nBackupDir/\tDirectory\n", "\(fish.stdoutText)\(fish.stderr)")
    }

    /// What the `.deb` pulls in is said in one place, docs/install.md, word for word as the
    /// control file that `Scripts/release.sh` writes; the README points there instead of
    /// keeping a list of its own that could drift.
    @Test func thePackagesDependenciesAreOneList() throws {
        let release = String(decoding: try readBytes(TestPaths.packageRoot.appendingPathComponent("Scripts/release.sh")), as: UTF8.self)
        let install = String(decoding: try readBytes(TestPaths.packageRoot.appendingPathComponent("docs/install.md")), as: UTF8.self)
        let readme = String(decoding: try readBytes(TestPaths.packageRoot.appendingPathComponent("README.md")), as: UTF8.self)
        func field(_ name: String) -> [String] {
            let line = release.split(separator: "\n").first { $0.hasPrefix(name + ": ") } ?? ""
            return line.dropFirst(name.count + 2).split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        }
        let depends = field("Depends"), recommends = field("Recommends")
        #expect(depends.count == 6 && recommends == ["bash-completion"], "\(depends) \(recommends)")
        let sentence = install.components(separatedBy: "The package depends on ").dropFirst().first?
            .components(separatedBy: "Both carry").first?.split(whereSeparator: \.isWhitespace).joined(separator: " ") ?? ""
        for package in depends + recommends {
            // `libssl3 | libssl3t64` is said as "`libssl3` (or Ubuntu 24.04's `libssl3t64`)".
            for name in package.components(separatedBy: " | ") {
                #expect(sentence.contains("`\(name)`"), "\(name) is not in install.md's list: \(sentence)")
            }
        }
        #expect(sentence.contains("recommends `bash-completion`"))
        #expect(!readme.contains("apt pulls in libplist3"), "README keeps its own list")
        #expect(readme.contains("apt pulls in what it depends on: docs/install.md"))
    }

    /// Instants as `date -d` users type them: a date alone (its midnight), a space for the `T`,
    /// minutes without seconds; without `Z` or an offset, in `--time-zone` (UTC by default) for
    /// `status`, in UTC for `set`. A wall-clock time the zone skips or repeats is refused.
    @Test(arguments: [
        ("2025-02-01", nil, "now 2025-02-01T00:00:00.000000Z (UTC)"),
        ("2025-02-01", "Europe/Paris", "now 2025-01-31T23:00:00.000000Z = 2025-02-01T00:00:00.000000+01:00 (Europe/Paris)"),
        ("2025-02-01 10:00", "Europe/Paris", "now 2025-02-01T09:00:00.000000Z = 2025-02-01T10:00:00.000000+01:00 (Europe/Paris)"),
        ("2025-02-01T10:00Z", "Europe/Paris", "now 2025-02-01T10:00:00.000000Z = 2025-02-01T11:00:00.000000+01:00 (Europe/Paris)"),
        ("2025-02-01 10:00:30.5+01:00", nil, "now 2025-02-01T09:00:30.500000Z (UTC)"),
        ("2025-07-01 10:00:30.25", "America/New_York",
         "now 2025-07-01T14:00:30.250000Z = 2025-07-01T10:00:30.250000-04:00 (America/New_York)"),
        ("2025-10-26 02:30+01:00", "Europe/Paris", "now 2025-10-26T01:30:00.000000Z = 2025-10-26T02:30:00.000000+01:00 (Europe/Paris)"),
        ("2025-10-26 03:30", "Europe/Paris", "now 2025-10-26T02:30:00.000000Z = 2025-10-26T03:30:00.000000+01:00 (Europe/Paris)"),
    ] as [(String, String?, String)])
    func instantsAsPeopleTypeThem(_ given: String, _ zone: String?, _ shown: String) throws {
        let file = TestPaths.fixtures.appendingPathComponent("valid/ycft/empty.plist").path
        let result = try runProcess(ycft, ["status", "--now", given] + (zone.map { ["--time-zone", $0] } ?? []) + [file])
        #expect(result.status == 0 && result.stdoutText.hasPrefix(shown + ", app version none\n"), "\(result.stdoutText)\(result.stderr)")
    }

    @Test func instantsTheZoneSkipsOrThatAreNotDatesAreRefused() throws {
        let file = TestPaths.fixtures.appendingPathComponent("valid/ycft/empty.plist").path
        let skipped = try runProcess(ycft, ["status", "--now", "2025-03-30 02:30", "--time-zone", "Europe/Paris", file])
        #expect(skipped.status == 2 && skipped.stderr.hasPrefix("Error: The value '2025-03-30 02:30' is invalid for '--now <time>': "
                                                                + "Europe/Paris skips that wall-clock time (its clocks move forward then); give an offset or Z\n"))
        let repeated = try runProcess(ycft, ["status", "--now", "2025-10-26 02:30", "--time-zone", "Europe/Paris", file])
        #expect(repeated.status == 2 && repeated.stderr.hasPrefix("Error: The value '2025-10-26 02:30' is invalid for '--now <time>': "
                                                                  + "that wall-clock time happens twice in Europe/Paris (its clocks move back "
                                                                  + "then); give an offset or Z\n"), "\(repeated.stderr)")
        for text in ["2025-2-1", "2025-02-01 10", "2025-02-01x10:00"] {
            let refused = try runProcess(ycft, ["status", "--now", text, file])
            #expect(refused.status == 2 && refused.stderr.hasPrefix("Error: The value '\(text)' is invalid for '--now <time>': expected a time like "),
                    "\(text): \(refused.stderr)")
        }
        let dir = try TestPaths.temporaryDirectory()
        let prefs = dir.appendingPathComponent("p.plist")
        try FileManager.default.copyItem(at: TestPaths.examples.appendingPathComponent("Preferences.plist"), to: prefs)
        let set = try runProcess(ycft, ["set", "--last-time", "2025-03-01 10:00", prefs.path, "tutorial"])
        #expect(set.status == 0, "\(set.stderr)")
        let dump = try runProcess(ycft, ["dump", "--compact", prefs.path])
        #expect(dump.stdoutText.contains(#""tutorial":{"lastTime":762516000.0,"lastTimeUTC":"2025-03-01T10:00:00.000000Z","lastVersion":null}"#),
                "\(dump.stdoutText)")
    }

    /// `status` without `--gate` says how to ask whether a gate runs now, naming a key of the file.
    @Test func statusWithoutAGateSaysHowToAsk() throws {
        let file = TestPaths.fixtures.appendingPathComponent("valid/ycft/three-records.plist").path
        let result = try runProcess(ycft, ["status", "--now", "2025-02-01", file])
        #expect(result.status == 0 && result.stdoutText.hasSuffix("\n\n" + noGateHint("onboarding.v1") + "\n"), "\(result.stdoutText)")
        let asked = try runProcess(ycft, ["status", "--now", "2025-02-01", "--gate", "x=once", file])
        #expect(!asked.stdoutText.contains("no --gate given"))
        let json = try runProcess(ycft, ["status", "--format", "json", "--now", "2025-02-01", file])
        #expect(!json.stdoutText.contains("no --gate given"))
    }

    /// The fuzzer's finding: `reset` of records beside IntervalClient keys, one of which copies
    /// no record, keeps that gate (an app's own preference) and exited 0 without a word, and
    /// the next dump showed it as the state. The reset now says what it kept and what the file
    /// then holds; a second reset removes it, as it does any IntervalClient state.
    @Test func aResetSaysWhichIntervalGatesItKept() throws {
        let dir = try TestPaths.temporaryDirectory()
        let file = dir.appendingPathComponent("p.plist")
        // Records {a}, their interval copy, and IntervalClient's own interval.b.
        let xml = """
            <plist version="1.0"><dict>
            <key>Other</key><integer>1</integer>
            <key>YCFirstTime.records</key><dict><key>format</key><string>ycfirsttime-records</string>
            <key>formatVersion</key><integer>1</integer><key>records</key><dict>
            <key>a</key><dict><key>lastTime</key><real>1</real></dict></dict></dict>
            <key>interval.a</key><real>978307201</real>
            <key>interval.b</key><real>978307300</real>
            </dict></plist>

            """
        try writeBytes(Array(xml.utf8), to: file)
        let raw = try runProcess(ycft, ["dump", "--raw", "--compact", file.path]).stdoutText
        #expect(raw.contains(#""interval.a":978307201.0"#) && raw.contains(#""interval.b":978307300.0"#) && raw.contains("YCFirstTime.records"), "\(raw)")
        let reset = try runProcess(ycft, ["reset", file.path])
        #expect(reset.status == 0)
        #expect(reset.stderr.contains("ycft: \(file.path): warning: kept \"interval.b\", IntervalClient's own gate (no record's copy), as the "
                                      + "app's preferences are: the file now holds IntervalClient state (1 record)\n"), "\(reset.stderr)")
        let again = try runProcess(ycft, ["reset", file.path])
        #expect(again.status == 0 && again.stderr == "ycft: \(file.path): warning: removed 1 interval.* number, read as IntervalClient gates: \"interval.b\"\n",
                "\(again.stderr)")
        #expect(try runProcess(ycft, ["dump", "--raw", "--compact", file.path]).stdoutText == #"{"Other":1}"# + "\n")
    }

    /// What a new user tried on the second day: an iPhone backup folder given to the commands
    /// that take files or folders of files gets how to read it (not "3 without state", exit 0);
    /// `migrate --backup Backup` (the suffix option, taken for the iPhone backup) is refused;
    /// an app's id given as --group (and a group's as --app) is pointed to the other option;
    /// `every:2weeks` gets the hint `every:2week` gets; status names the locale it judged with.
    @Test func secondDayPapercuts() throws {
        let backup = try Backups.make()
        let hint = "an iPhone backup, whose files have hashed names: 'ycft backup apps \(backup.path)' lists the apps with state, "
            + "'--backup \(backup.path) --app ID' reads one, 'ycft backup extract' copies one out"
        let verify = try runProcess(ycft, ["verify", "--skip-stateless", backup.path])
        #expect(verify.status == 2 && verify.stderr.hasPrefix("ycft: \(backup.path): \(hint)\n"), "\(verify.stderr)")
        let migrate = try runProcess(ycft, ["migrate", "--dry-run", backup.path])
        #expect(migrate.status == 2 && migrate.stderr.hasPrefix("ycft: \(backup.path): \(hint)\n"), "\(migrate.stderr)")
        let dump = try runProcess(ycft, ["dump", backup.path])
        #expect(dump.status == 2 && dump.stderr == "ycft: \(backup.path): cannot read: Is a directory: \(hint)\n", "\(dump.stderr)")
        let file = try TestPaths.temporaryDirectory().appendingPathComponent("p.plist")
        try FileManager.default.copyItem(at: TestPaths.examples.appendingPathComponent("Preferences.plist"), to: file)
        let suffix = try runProcess(ycft, ["migrate", "--in-place", "--backup", backup.path, file.path])
        #expect(suffix.status == 2 && suffix.stderr.hasPrefix("Error: '--backup \(backup.path)' on migrate is the suffix of each saved original "
                                                              + "(like .bak), not a folder; "), "\(suffix.stderr)")
        #expect(try readBytes(file) == readBytes(TestPaths.examples.appendingPathComponent("Preferences.plist")))
        let group = try runProcess(ycft, ["backup", "extract", backup.path, "--group", "com.example.notes", "-o", "-"])
        #expect(group.status == 2 && group.stderr.hasSuffix(". Did you mean '--app com.example.notes'?\n"), "\(group.stderr)")
        let app = try runProcess(ycft, ["dump", "--backup", backup.path, "--app", "group.com.example.shared"])
        #expect(app.status == 2 && app.stderr.hasSuffix(". Did you mean '--group group.com.example.shared'?\n"), "\(app.stderr)")
        let weeks = try runProcess(ycft, ["status", "--gate", "x=every:2weeks", file.path])
        #expect(weeks.stderr.hasPrefix("Error: The value 'x=every:2weeks' is invalid for '--gate <key=rule>': no Calendar.Component is called "
                                       + "'weeks'; did you mean 'every:2weekOfYear' (or 'weekly' for every week)?\n"), "\(weeks.stderr)")
        let locale = try runProcess(ycft, ["status", "--now", "2025-02-01", "--locale", "zh_TW", file.path])
        #expect(locale.stdoutText.contains("\ncalendar gregorian, locale zh_TW, first weekday 1, minimum days in first week 1\n"), "\(locale.stdoutText)")
    }
}
