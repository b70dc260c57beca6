import Foundation
import Testing
import FirstTimeArchive
import FirstTimeCore
import Plist
import PlistCore
import SafeFiles
import FileErrors
import TestSupport

/// set, unset, reset and pack --into: any form dump reads, written back in the same form.
@Suite struct EditCommandsThroughTheTool {
    let ycft = TestPaths.executable("ycft")
    let archive = TestPaths.fixtures.appendingPathComponent("valid/ycft/three-records.plist")
    let defaults = TestPaths.fixtures.appendingPathComponent("valid/defaults/export.binary.plist")

    func copy(_ source: URL, _ name: String = "f.plist") throws -> URL {
        let file = try TestPaths.temporaryDirectory().appendingPathComponent(name)
        try FileManager.default.copyItem(at: source, to: file)
        return file
    }

    func dict(_ url: URL) throws -> PlistDictionary { try #require(LibPlist.read(readBytes(url)).value.dictionaryValue) }

    @Test func setKeepsEveryOtherKeyOfADefaultsFileInPlace() throws {
        let file = try copy(defaults)
        let before = try dict(file)
        let result = try runProcess(ycft, ["set", file.path, "onboarding.v1", "--last-version", "3.0", "--last-time", "2025-03-01T10:00:00+01:00"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.isEmpty && result.stderr.isEmpty)
        let after = try dict(file)
        #expect(after.map(\.key) == before.map(\.key))
        for (key, value) in before where key != "YCFirstTime" { #expect(after[key] == value, "\(key)") }
        let state = try StateFile(readBytes(file)).state()
        #expect(state.form == .defaultsArchive)
        #expect(state.records["onboarding.v1"] == FirstTimeRecord(lastVersion: "3.0", lastTime: at("2025-03-01T09:00:00Z")))
        #expect(state.records.count == 3)
        #expect(StateFile.verify(try readBytes(file)) == [])
    }

    /// A `set` of a key no record has creates the record, as its help says, and says so on
    /// standard error, with the closest existing key: a mistyped KEY used to add a gate the app
    /// never asks about, leave the intended record as it was, and print nothing (exit 0).
    @Test func setOfAKeyNoRecordHasSaysItCreatedOne() throws {
        let file = try copy(archive)
        let typo = try runProcess(ycft, ["set", file.path, "onbaording.v1", "--last-version", "2.2.0"])
        #expect(typo.status == 0)
        #expect(typo.stdout.isEmpty)
        #expect(typo.stderr == "ycft: \(file.path): warning: created record \"onbaording.v1\": no record had that key "
                + "(did you mean \"onboarding.v1\"?); it has no lastTime, as none was given ('--last-time now' records a run now)\n")
        let records = try StateFile(readBytes(file)).state().records
        #expect(records.map(\.key) == ["onbaording.v1", "onboarding.v1", "rate.prompt", "whats-new"])
        #expect(records["onbaording.v1"] == FirstTimeRecord(lastVersion: "2.2.0", lastTime: nil))
        #expect(records["onboarding.v1"]?.lastVersion == "2.1.0", "the record meant is as it was")
        // Nothing close: the line without a suggestion; the key escaped as every name is.
        let far = try runProcess(ycft, ["set", file.path, "zz\u{1B}[2J", "--no-last-time"])
        #expect(far.status == 0)
        #expect(far.stderr == "ycft: \(file.path): warning: created record \"zz\\u{1B}[2J\": no record had that key\n")
        // The record is there now: a second set changes it, silently.
        let again = try runProcess(ycft, ["set", file.path, "onbaording.v1", "--last-version", "2.3.0"])
        #expect(again.status == 0 && again.stderr.isEmpty, "\(again.stderr)")
        // A refused set creates nothing and says only why.
        let refused = try runProcess(ycft, ["set", file.path, "new.gate", "--last-time", "nonsense"])
        #expect(refused.status == 2)
        #expect(!refused.stderr.contains("created record"))
    }

    /// A KEY that looks like a record's key but is other scalars (here decomposed where the
    /// record is composed, as a shell on another system may type it) is a second record, as it
    /// is to the app (keys are compared scalar for scalar): `set` and `unset` say which record
    /// looks the same, both spelled out, since printed as they are the two show no difference.
    @Test func aKeyThatOnlyLooksLikeARecordsIsSpelledOut() throws {
        let file = try copy(archive)
        #expect(try runProcess(ycft, ["set", file.path, "caf\u{E9}", "--no-last-time"]).status == 0)
        let set = try runProcess(ycft, ["set", file.path, "cafe\u{301}", "--no-last-time"])
        #expect(set.status == 0)
        #expect(set.stderr == "ycft: \(file.path): warning: created record \"cafe\u{301}\": no record had that key "
                + #"(a record has "caf\u{E9}", which looks the same but is not: this is "cafe\u{301}")"# + "\n")
        #expect(try StateFile(readBytes(file)).state().records.map { Array($0.key.unicodeScalars) }.contains(Array("cafe\u{301}".unicodeScalars)))
        let unset = try runProcess(ycft, ["unset", file.path, "whats\u{200B}-new"])
        #expect(unset.status == 1)
        #expect(unset.stderr == "ycft: \(file.path): no record \"whats\u{200B}-new\" "
                + #"(a record has "whats-new", which looks the same but is not: this is "whats\u{200B}-new"); nothing was changed"# + "\n")
    }

    /// A set that leaves every record as it was writes nothing, as the library's update and
    /// `ycft edit` do: an archive Apple wrote keeps its own object order and its file. It used
    /// to be rewritten in ycft's layout whenever the new bytes differed from the old.
    @Test func setToTheValuesARecordHoldsLeavesTheFileAlone() throws {
        let apple = TestPaths.fixtures.appendingPathComponent("valid/apple-order/hash-order.plist")
        let file = try copy(apple)
        let original = try readBytes(file)
        var before = stat()
        #expect(stat(file.path, &before) == 0)
        let same = try runProcess(ycft, ["set", file.path, "k", "--last-version", "1.2.3", "--last-time", "2001-01-01T00:00:02.5Z"])
        #expect(same.status == 0, "\(same.stderr)")
        #expect(same.stdout.isEmpty && same.stderr.isEmpty)
        #expect(try readBytes(file) == original)
        var after = stat()
        #expect(stat(file.path, &after) == 0)
        #expect(after.st_ino == before.st_ino, "the file was replaced")
        // The library answers the same for the same change.
        #expect(try StateFile.update(at: file.path) { $0["k"] = FirstTimeRecord(lastVersion: "1.2.3", lastTime: 2.5) } == false)
        // A change is written, in ycft's layout.
        #expect(try runProcess(ycft, ["set", file.path, "k", "--last-version", "1.2.4"]).status == 0)
        #expect(try readBytes(file) != original)
        #expect(try ArchiveReader.decode(readBytes(file))["k"] == FirstTimeRecord(lastVersion: "1.2.4", lastTime: 2.5))
    }

    @Test func setOnABareArchiveWithExactSecondsAndNils() throws {
        let file = try copy(archive)
        #expect(try runProcess(ycft, ["set", "--seconds", "--last-time", "757414800.123456", "--no-last-version", file.path, "k"]).status == 0)
        #expect(try runProcess(ycft, ["set", file.path, "whats-new", "--no-last-time", "--last-version", "1"]).status == 0)
        let records = try ArchiveReader.decode(readBytes(file))
        #expect(records["k"] == FirstTimeRecord(lastVersion: nil, lastTime: 757_414_800.123456))
        #expect(records["whats-new"] == FirstTimeRecord(lastVersion: "1", lastTime: nil))
        #expect(PropertyList.detectFormat(try readBytes(file)) == .binary)
    }

    @Test func unsetAndResetInEachForm() throws {
        let file = try copy(defaults)
        #expect(try runProcess(ycft, ["migrate", "--in-place", "--no-backup", file.path]).status == 0)
        #expect(try runProcess(ycft, ["unset", file.path, "rate.prompt"]).status == 0)
        var state = try StateFile(readBytes(file)).state()
        #expect(state.form == .plainRecords)
        #expect(state.records.map(\.key) == ["onboarding.v1", "whats-new"])
        let missing = try runProcess(ycft, ["unset", file.path, "nope", "whats-new"])
        #expect(missing.status == 1)
        #expect(missing.stderr == "ycft: \(file.path): no record \"nope\"; nothing was changed\n")
        // A key close to one there is named with it.
        let typo = try runProcess(ycft, ["unset", file.path, "whats-nwe", "nope"])
        #expect(typo.status == 1)
        #expect(typo.stderr == "ycft: \(file.path): no record \"whats-nwe\" (did you mean \"whats-new\"?), \"nope\"; nothing was changed\n")
        // A missing key given twice is named once.
        let twice = try runProcess(ycft, ["unset", file.path, "nope", "whats-new", "nope"])
        #expect(twice.status == 1)
        #expect(twice.stderr == "ycft: \(file.path): no record \"nope\"; nothing was changed\n")
        #expect(try runProcess(ycft, ["reset", file.path]).status == 0)
        #expect(try dict(file)["YCFirstTime.records"] == nil)
        #expect(try dict(file)["LaunchCount"] == .integer(.signed(42)))
        // Reset twice is reset once.
        #expect(try runProcess(ycft, ["reset", file.path]).status == 0)
        // IntervalClient keys: times kept as seconds since 1970; a version cannot be held.
        let interval = try copy(defaults, "i.plist")
        #expect(try runProcess(ycft, ["migrate", "--in-place", "--no-backup", "--to", "interval", "--drop-versions", interval.path]).status == 0)
        #expect(try runProcess(ycft, ["set", interval.path, "new", "--last-time", "2025-01-01T00:00:00Z"]).status == 0)
        state = try StateFile(readBytes(interval)).state()
        #expect(state.form == .intervalKeys)
        #expect(try dict(interval)["interval.new"] == .real(at("2025-01-01T00:00:00Z") + 978_307_200))
        let versioned = try runProcess(ycft, ["set", interval.path, "new", "--last-version", "1"])
        #expect(versioned.status == 1)
        #expect(versioned.stderr.contains("IntervalClient keys hold no version"))
    }

    @Test func packIntoPutsTheArchiveInADefaultsFile() throws {
        let file = try copy(defaults)
        let before = try dict(file)
        let json = try runProcess(ycft, ["dump", archive.path]).stdout
        let result = try runProcess(ycft, ["pack", "--into", file.path, "-"], stdin: json)
        #expect(result.status == 0, "\(result.stderr)")
        let after = try dict(file)
        #expect(after.map(\.key) == before.map(\.key))
        #expect(after["YCFirstTime"] == .data(try readBytes(archive)))
        #expect(try runProcess(ycft, ["pack", "--into", file.path, "-o", "x", "-"], stdin: json).status == 2)
    }

    /// A file that holds the state in another form (after `migrate`, with or without the
    /// archive kept) is not given an archive beside it: the two copies would disagree, and
    /// `verify` would then fail the file that pack reported written. Nothing is written.
    @Test func packIntoRefusesAFileThatHoldsTheStateInAnotherForm() throws {
        let json = try runProcess(ycft, ["dump", archive.path]).stdout
        for migrate in [["--to", "records"], ["--to", "records", "--keep-source"], ["--to", "interval", "--drop-versions"]] {
            let file = try copy(defaults)
            #expect(try runProcess(ycft, ["migrate", "--in-place", "--no-backup"] + migrate + [file.path]).status == 0)
            let before = try readBytes(file)
            let result = try runProcess(ycft, ["pack", "--into", file.path, "-"], stdin: json)
            #expect(result.status == 1, "\(migrate)")
            let held = migrate.contains("interval") ? "IntervalClient keys (interval.*)" : "plain records (YCFirstTime.records)"
            #expect(result.stderr == "ycft: \(file.path): the file holds the state as \(held): an archive under \"YCFirstTime\" beside it "
                    + "would be a second copy that disagrees with it; write the records in the file's own form, or migrate the file "
                    + "back to the archive first\n", "\(migrate)")
            #expect(try readBytes(file) == before, "\(migrate)")
        }
    }

    @Test func editsGoThroughTheOneWriter() throws {
        let file = try copy(defaults)
        chmod(file.path, 0o444)
        let refused = try runProcess(ycft, ["set", file.path, "k", "--last-time", "now"])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("not replaced: it is read-only (mode 0444); use --force to replace it anyway"))
        #expect(try readBytes(file) == readBytes(defaults))
        #expect(try runProcess(ycft, ["set", "--force", file.path, "k", "--last-time", "now"]).status == 0)
        #expect(try FileStatus.of(file.path).get().permissions == 0o444)
        #expect(try runProcess(ycft, ["set", "-", "k", "--last-time", "now"]).status == 2)
        #expect(try runProcess(ycft, ["set", file.path, "k"]).status == 2)
    }
}

/// Seconds since 2001 for a UTC instant written `YYYY-MM-DDTHH:MM:SS[.f]Z`.
private func at(_ text: String) -> Double {
    guard let parsed = ExactTime.parseUTC(text) else { return .nan }
    return ExactTime.secondsSince2001(seconds: parsed.seconds, fraction: parsed.fraction)
}

/// ycft edit with scripted editors: a change, a mistake then a fix, a cancel.
@Suite struct EditInAnEditor {
    let ycft = TestPaths.executable("ycft")

    func setUp() throws -> (file: URL, dir: URL) {
        let dir = try TestPaths.temporaryDirectory()
        let file = dir.appendingPathComponent("p.plist")
        try FileManager.default.copyItem(at: TestPaths.fixtures.appendingPathComponent("valid/defaults/export.binary.plist"), to: file)
        return (file, dir)
    }

    /// This process's environment (the sanitizer's options included) with EDITOR set, and
    /// TMPDIR in the test's directory (an edit that is not written is kept there).
    func env(_ editor: String) -> [String: String] {
        let temporary = TestScratch.root.appendingPathComponent("tmp")
        try? FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
        return ProcessInfo.processInfo.environment.merging(["EDITOR": editor, "VISUAL": "", "TMPDIR": temporary.path]) { $1 }
    }

    /// An editor script: `body` runs with the file to edit as $1. Run as `sh SCRIPT`, never
    /// executed itself: a parallel test's fork can hold the script's write descriptor open for
    /// an instant, and exec(2) of the file would then fail with ETXTBSY ("Text file busy").
    func editor(_ dir: URL, _ name: String, _ body: String) throws -> String {
        let script = dir.appendingPathComponent(name)
        try writeBytes(Array("\(body)\n".utf8), to: script)
        return "sh '\(script.path)'"
    }

    @Test func aValidChangeIsWrittenBack() throws {
        let (file, dir) = try setUp()
        let script = try editor(dir, "ed.sh", #"sed -i 's/"2.1.0"/"9.0.0"/' "$1""#)
        let result = try runProcess(ycft, ["edit", file.path], environment: env(script))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try StateFile(readBytes(file)).state().records["onboarding.v1"]?.lastVersion == "9.0.0")
    }

    /// The file removed, or replaced by a named pipe, while the editor is open: the edit is
    /// refused and kept, nothing is created, and no pipe is opened (ycft waited on it forever).
    @Test(arguments: ["rm \"$F\"", "rm \"$F\"; mkfifo \"$F\""])
    func aFileRemovedOrTurnedIntoAPipeDuringTheEditIsNotWritten(_ swap: String) throws {
        let (file, dir) = try setUp()
        let script = try editor(dir, "ed.sh", "F='\(file.path)'; \(swap); sed -i 's/\"2.1.0\"/\"9.0.0\"/' \"$1\"")
        let result = try runProcess(ycft, ["edit", file.path], environment: env(script))
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("ycft: \(file.path): not replaced: it changed after ycft read it (another program wrote it)"))
        #expect((try? FileStatus.of(file.path, followLinks: false).get())?.kind != .regular, "nothing created where the file was")
    }

    /// A state the app discards although it reads (an NSDictionary root): set and edit refuse
    /// it, exit 1, file untouched, since writing it back repaired revives its records; --force
    /// changes it (found by an attacker: set brought a discarded record back without a word).
    @Test func aStateTheAppDiscardsIsNotRevivedByAnEdit() throws {
        let dir = try TestPaths.temporaryDirectory()
        let file = dir.appendingPathComponent("ir.plist")
        let original = try readBytes(TestPaths.fixtures.appendingPathComponent("valid/apple-order/immutable-root.plist"))
        try writeBytes(original, to: file)
        let set = try runProcess(ycft, ["set", file.path, "other", "--last-version", "1"])
        #expect(set.status == 1)
        #expect(set.stderr.hasPrefix("ycft: \(file.path): YCFirstTime discards this state on the device ([root-immutable] $objects[1]: "))
        let script = try editor(dir, "ed.sh", #"sed -i 's/"records" : {/"records" : { "x" : { "lastVersion" : "1" },/' "$1""#)
        let edit = try runProcess(ycft, ["edit", file.path], environment: env(script))
        #expect(edit.status == 1, "\(edit.stderr)")
        #expect(try readBytes(file) == original)
        let forced = try runProcess(ycft, ["set", "--force", file.path, "other", "--last-version", "1"])
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(try StateFile(readBytes(file)).state().records["other"]?.lastVersion == "1")
    }

    /// A state the app discards that cannot be read at all (here an archive whose time is not a
    /// date, under YCFirstTime in a defaults file) has no records to change: set, unset and
    /// edit say why, `--force` or not, and name what removes it. `reset` removes it only with
    /// `--force` (the app's reset() removes the key whatever it holds; without --force, a
    /// mistaken `--key` could name another library's data), keeping every other key, and says
    /// what it dropped. A bare archive is not reset unread: its error is said as it was.
    @Test func aStateTheAppDiscardsUnreadIsResetOnlyWithForce() throws {
        let dir = try TestPaths.temporaryDirectory()
        let file = dir.appendingPathComponent("t.plist")
        let broken = try readBytes(TestPaths.fixtures.appendingPathComponent("invalid/wrong-time-type.plist"))
        let original = try PropertyList.write(.dictionary(PlistDictionary([("Theme", .string("dark")), ("YCFirstTime", .data(broken)),
                                                                           ("LaunchCount", .integer(.signed(3)))])), format: .binary)
        try writeBytes(original, to: file)
        let cause = "[time-type] $objects[5].lastTime: expected NSDate, found NSString"
        let said = "ycft: \(file.path): \"YCFirstTime\" holds data that is not a readable YCFirstTime archive: $objects[5].lastTime: "
            + "expected NSDate, found NSString. YCFirstTime discards it on the device and its reset() removes the key whatever it "
            + "holds, as 'ycft reset --force' does\n"
        for arguments in [["set", file.path, "k", "--no-last-time"], ["set", "--force", file.path, "k", "--no-last-time"],
                          ["unset", "--force", file.path, "k"], ["edit", file.path], ["reset", file.path]] {
            let result = try runProcess(ycft, arguments, environment: env(try editor(dir, "ed.sh", "exit 0")))
            #expect(result.status == 1, "\(arguments)")
            #expect(result.stderr == said, "\(arguments)")
            #expect(try readBytes(file) == original)
        }
        let forced = try runProcess(ycft, ["reset", "--force", file.path])
        #expect(forced.status == 0)
        #expect(forced.stderr == "ycft: \(file.path): warning: removed \"YCFirstTime\", which YCFirstTime discards unread (\(cause))\n")
        #expect(try #require(LibPlist.read(readBytes(file)).value.dictionaryValue).map(\.key) == ["Theme", "LaunchCount"])
        #expect(try runProcess(ycft, ["set", file.path, "k", "--no-last-time"]).status == 0)
        #expect(try StateFile(readBytes(file)).state().records.map(\.key) == ["k"])
        // Only the key that cannot be read goes: a copy beside it (here IntervalClient keys made
        // by migrate before the archive broke) stays, and is said to, with how to remove it.
        let copied = dir.appendingPathComponent("copied.plist")
        let intervals = try PropertyList.write(.dictionary(PlistDictionary([("Theme", .string("dark")), ("YCFirstTime", .data(broken)),
                                                                            ("interval.onboarding.v1", .real(757_414_800))])), format: .binary)
        try writeBytes(intervals, to: copied)
        let kept = try runProcess(ycft, ["reset", "--force", copied.path])
        #expect(kept.status == 0)
        #expect(kept.stderr == "ycft: \(copied.path): warning: removed \"YCFirstTime\", which YCFirstTime discards unread (\(cause))\n"
                + "ycft: \(copied.path): warning: the state in \"interval.*\" stays: whether it copied what was removed cannot be told; "
                + "'ycft status' answers from it now, and 'ycft reset' again removes it\n")
        #expect(try #require(LibPlist.read(readBytes(copied)).value.dictionaryValue).map(\.key) == ["Theme", "interval.onboarding.v1"])
        #expect(try runProcess(ycft, ["reset", copied.path]).status == 0)
        #expect(try #require(LibPlist.read(readBytes(copied)).value.dictionaryValue).map(\.key) == ["Theme"])
        // An archive the app reads but ycft cannot (a lone surrogate libplist would change): said
        // so, not "not an archive", and reset --force removes it too.
        let surrogate = dir.appendingPathComponent("surrogate.plist")
        let unread = try PropertyList.write(.dictionary(PlistDictionary([
            ("YCFirstTime", .data(try readBytes(TestPaths.fixtures.appendingPathComponent("invalid/lone-surrogate-key.plist")))),
            ("Theme", .string("dark")),
        ])), format: .binary)
        try writeBytes(unread, to: surrogate)
        let exactly = "\"YCFirstTime\" holds an archive ycft cannot read exactly: string has a lone surrogate (at object 0 > object 1): "
            + "libplist would change it silently"
        for arguments in [["set", surrogate.path, "k", "--no-last-time"], ["reset", surrogate.path], ["status", surrogate.path]] {
            let result = try runProcess(ycft, arguments)
            #expect(result.status == 1, "\(arguments)")
            #expect(result.stderr == "ycft: \(surrogate.path): \(exactly). ycft cannot change it; YCFirstTime's reset() removes the key "
                    + "whatever it holds, as 'ycft reset --force' does\n", "\(arguments)")
        }
        #expect(try readBytes(surrogate) == unread)
        let removed = try runProcess(ycft, ["reset", "--force", surrogate.path])
        #expect(removed.status == 0)
        #expect(removed.stderr == "ycft: \(surrogate.path): warning: removed \"YCFirstTime\", which ycft cannot read ([string-unrepresentable] \(exactly))\n")
        #expect(try #require(LibPlist.read(readBytes(surrogate)).value.dictionaryValue).map(\.key) == ["Theme"])
        // Under a key named with --key, data that does not read as YCFirstTime's may be another
        // program's (an archive of its own objects): never removed unread, and no way out named.
        let other = dir.appendingPathComponent("other.plist")
        let foreign = try PropertyList.write(.dictionary(PlistDictionary([("Settings", .data(broken)), ("Theme", .string("dark"))])),
                                             format: .binary)
        try writeBytes(foreign, to: other)
        for arguments in [["reset", "--force", "--key", "Settings", other.path], ["set", "--key", "Settings", other.path, "k", "--no-last-time"]] {
            let result = try runProcess(ycft, arguments)
            #expect(result.status == 1, "\(arguments)")
            #expect(result.stderr == "ycft: \(other.path): \"Settings\" holds data that is not a readable YCFirstTime archive: "
                    + "$objects[5].lastTime: expected NSDate, found NSString\n", "\(arguments)")
        }
        #expect(try readBytes(other) == foreign)
        // A file whose only state is interval.* numbers: reset removes every one (each is read as an
        // IntervalClient gate, an app's own `interval.volume` too) and says which.
        let numbers = dir.appendingPathComponent("numbers.plist")
        try writeBytes(try PropertyList.write(.dictionary(PlistDictionary([("interval.volume", .integer(.signed(5))), ("x", .integer(.signed(1))),
                                                                           ("interval.tour", .real(1_700_000_000))])), format: .binary), to: numbers)
        let cleared = try runProcess(ycft, ["reset", numbers.path])
        #expect(cleared.status == 0)
        #expect(cleared.stderr == "ycft: \(numbers.path): warning: removed 2 interval.* numbers, read as IntervalClient gates: "
                + "\"interval.volume\", \"interval.tour\"\n")
        #expect(try #require(LibPlist.read(readBytes(numbers)).value.dictionaryValue).map(\.key) == ["x"])
        // A bare archive: the error as it was, and no reset.
        let bare = dir.appendingPathComponent("bare.plist")
        try writeBytes(broken, to: bare)
        for arguments in [["set", "--force", bare.path, "k", "--no-last-time"], ["reset", "--force", bare.path]] {
            let result = try runProcess(ycft, arguments)
            #expect(result.status == 1, "\(arguments)")
            #expect(result.stderr == "ycft: \(bare.path): $objects[5].lastTime: expected NSDate, found NSString\n", "\(arguments)")
        }
        #expect(try readBytes(bare) == broken)
    }

    /// A defaults file with no state yet (a fresh install's) opens as no records, and the edit
    /// creates the state exactly as `ycft set` would: the two commands judge a file alike.
    @Test func aDefaultsFileWithoutStateIsEditedAsSetWouldChangeIt() throws {
        let dir = try TestPaths.temporaryDirectory()
        let fresh = try PropertyList.write(.dictionary(PlistDictionary([("Theme", .string("dark"))])), format: .binary)
        let (file, expected) = (dir.appendingPathComponent("p.plist"), dir.appendingPathComponent("set.plist"))
        try writeBytes(fresh, to: file)
        try writeBytes(fresh, to: expected)
        let set = try runProcess(ycft, ["set", expected.path, "k", "--last-version", "1.0", "--no-last-time"])
        #expect(set.status == 0, "\(set.stderr)")
        let script = try editor(dir, "ed.sh", #"""
        grep -q '"records" : {}' "$1" || exit 3
        sed -i 's/"records" : {}/"records" : {"k": {"lastVersion": "1.0", "lastTime": null}}/' "$1"
        """#)
        let result = try runProcess(ycft, ["edit", file.path], environment: env(script))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try readBytes(file) == readBytes(expected))
    }

    @Test func aMistakeReopensWithTheErrorAndAFixIsWritten() throws {
        let (file, dir) = try setUp()
        // First save breaks the JSON; the second run sees the error on top and fixes it.
        let script = try editor(dir, "ed.sh", """
        if grep -q '^# ycft edit:' "$1"; then
          grep '^# ycft edit:' "$1" > "\(dir.path)/seen"
          sed -i 's/"lastVersion" : 7/"lastVersion" : "7"/' "$1"
        else
          sed -i 's/"2.1.0"/7/' "$1"
        fi
        """)
        let result = try runProcess(ycft, ["edit", file.path], environment: env(script))
        #expect(result.status == 0, "\(result.stderr)")
        let seen = String(decoding: try readBytes(dir.appendingPathComponent("seen")), as: UTF8.self)
        #expect(seen == "# ycft edit: records[\"onboarding.v1\"].lastVersion: expected a string or null, found number\n")
        #expect(try StateFile(readBytes(file)).state().records["onboarding.v1"]?.lastVersion == "7")
    }

    @Test func noChangeOrTheSameMistakeWritesNothing() throws {
        let (file, dir) = try setUp()
        let original = try readBytes(file)
        let unchanged = try runProcess(ycft, ["edit", file.path], environment: env("true"))
        #expect(unchanged.status == 0)
        #expect(unchanged.stderr == "ycft: \(file.path): no change; nothing was written\n")
        let stubborn = try editor(dir, "bad.sh", #"grep -q '^# ycft edit:' "$1" || sed -i 's/"2.1.0"/7/' "$1""#)
        let failed = try runProcess(ycft, ["edit", file.path], environment: env(stubborn))
        #expect(failed.status == 1)
        #expect(failed.stderr.contains("the edit still has an error"))
        let quit = try runProcess(ycft, ["edit", file.path], environment: env("false"))
        #expect(quit.status == 2)
        #expect(try readBytes(file) == original)
    }
}
