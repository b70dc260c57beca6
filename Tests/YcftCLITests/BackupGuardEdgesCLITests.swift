import Foundation
import Testing
import TestSupport

/// "Never write inside an iPhone backup" where the folders above a path are not plain to see
/// (an attacker round's findings): the guard refuses what it cannot check, and judges a folder
/// still to be made where `mkdir -p` would make it.
@Suite struct BackupGuardEdges {
    let ycft = TestPaths.executable("ycft")

    /// Runs `script` in `sh` with `$1` the ycft binary, `$2` a fresh backup and `$3` a
    /// preferences file outside it; prints what the script prints.
    func shell(_ script: String) throws -> ProcessResult {
        let backup = try Backups.make()
        let preferences = TestPaths.examples.appendingPathComponent("exported/com.example.notes.plist")
        return try runProcess(URL(fileURLWithPath: "/bin/sh"), ["-c", script, "sh", ycft.path, backup.path, preferences.path])
    }

    /// A working folder deeper than `PATH_MAX` (4,096 bytes): the folders above cannot be
    /// resolved as a path. Before, the guard took that as "no backup here": `set` rewrote the
    /// backup's own file and `pack -o` made a new one in it. Now both are refused and the
    /// file's bytes are the same.
    @Test func aPathLongerThanPathMaxIsWalkedUp() throws {
        let result = try shell(#"""
            cd "$(mktemp -d)" || exit 9
            d=$(printf 'd%.0s' $(seq 100))
            for i in $(seq 45); do mkdir "$d" && cd -P "$d" || exit 9; done
            cp -R "$2" B && cd -P B/3f || exit 9
            file=3fec9de91317d194d5629328de2dbf76f86012ba
            before=$(cksum < "$file")
            "$1" set "$file" tutorial --last-version 6.6 2>/dev/null; echo "set=$?"
            "$1" dump "$3" > r.json 2>/dev/null
            "$1" pack -o new.plist r.json 2>/dev/null; echo "pack=$?"
            [ "$(cksum < "$file")" = "$before" ] && echo same
            [ -e new.plist ] || echo "no new.plist"
            """#)
        #expect(result.stdoutText == "set=2\npack=2\nsame\nno new.plist\n", "\(result.stdoutText)\(result.stderr)")
    }

    /// `migrate -o missing/../B/sub/`: `mkdir -p` would make `missing`, go back up, and make
    /// `sub` inside the backup. Before, the guard judged `.` (the nearest folder that exists by
    /// the path's text), passed, and the backup got a new folder; now nothing is made.
    @Test func aFolderToMakeIsJudgedWhereItWouldBeMade() throws {
        let result = try shell(#"""
            cd "$(mktemp -d)" || exit 9
            cp -R "$2" B || exit 9
            "$1" migrate -o missing/../B/sub/ "$3" 2>err; echo "migrate=$?"
            grep -c 'it is inside the iPhone backup' err
            ls -d B/sub missing 2>/dev/null | wc -l
            """#)
        #expect(result.stdoutText == "migrate=2\n1\n0\n", "\(result.stdoutText)\(result.stderr)")
    }

    /// `TMPDIR` inside a backup: `edit` made its scratch folder there (removed after, but the
    /// backup's folder changed, and an edit that could not be written stayed in it). Now it
    /// refuses before the editor opens.
    @Test func editMakesNoScratchFolderInABackup() throws {
        let result = try shell(#"""
            cd "$(mktemp -d)" || exit 9
            cp -R "$2" B && cp "$3" e.plist || exit 9
            before=$(ls -la B | cksum)
            TMPDIR="$PWD/B" EDITOR='echo opened >&2; true' VISUAL= "$1" edit e.plist; echo "edit=$?"
            [ "$(ls -la B | cksum)" = "$before" ] && echo same
            """#)
        #expect(result.status == 0)
        #expect(result.stdoutText == "edit=2\nsame\n", "\(result.stdoutText)\(result.stderr)")
        #expect(result.stderr.hasSuffix("/B\": cannot write: it is inside the iPhone backup \"\(result.stderr.split(separator: "\"")[1])\", "
                                        + "which ycft never writes into; nothing was written\n"), "\(result.stderr)")
        #expect(!result.stderr.contains("opened"))
    }

    /// A folder above that cannot be searched (a user's working folder under one they cannot
    /// enter): the guard cannot tell, and refuses, naming why.
    @Test(.enabled(if: geteuid() == 0 && Unprivileged.prefix != nil, "as root, needs setpriv and a ycft binary nobody can reach"))
    func aFolderThatCannotBeLookedAtIsRefused() throws {
        let prefix = try #require(Unprivileged.prefix)
        let result = try shell(#"""
            top=$(mktemp -d) && chmod 755 "$top" && mkdir -p "$top/locked/work" || exit 9
            cp "$3" "$top/locked/work/e.plist" && chmod 777 "$top/locked/work" "$top/locked/work/e.plist" || exit 9
            chmod 711 "$top/locked"
            cd "$top/locked/work" || exit 9
            chmod 700 "$top"
            \#(prefix.joined(separator: " ")) "$1" set e.plist k --last-version 1; echo "set=$?"
            chmod 755 "$top"
            """#)
        #expect(result.stdoutText == "set=2\n", "\(result.stdoutText)\(result.stderr)")
        #expect(result.stderr == "ycft: e.plist: cannot write: cannot tell whether it is inside an iPhone backup, which ycft never writes "
                + "into (a folder above it cannot be looked at: Permission denied)\n", "\(result.stderr)")
    }
}
