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

    /// `ycft backup <TAB>` offers the actions, then folders for BACKUP, in bash and fish (zsh's
    /// script says the same, `'1:action:(apps extract)' '2:BACKUP:_files -/'`).
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
        #expect(zsh.contains("                '1:action:(apps extract)' \\\n                '2:BACKUP:_files -/'\n"))
        guard GeneratedFromTheSpec.installed("fish") else { return }
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
}
