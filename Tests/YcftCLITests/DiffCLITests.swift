import Foundation
import Testing
import TestSupport

/// `ycft diff A B`: two states compared as the device reads them, in any forms; exit 0 when the
/// same (nothing printed), 1 when they differ, 2 on trouble, as `diff` and `cmp`.
@Suite struct DiffThroughTheTool {
    let ycft = TestPaths.executable("ycft")

    func run(_ arguments: [String], in dir: URL? = nil) throws -> ProcessResult {
        guard let dir else { return try runProcess(ycft, arguments) }
        let script = "cd \"$1\" && shift && exec \"$@\""
        return try runProcess(URL(fileURLWithPath: "/bin/sh"), ["-c", script, "sh", dir.path, ycft.path] + arguments)
    }

    /// A scratch folder with Examples/Preferences.plist as a.plist.
    func folder() throws -> URL {
        let dir = try TestPaths.temporaryDirectory().appendingPathComponent("diff")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: TestPaths.examples.appendingPathComponent("Preferences.plist"),
                                         to: dir.appendingPathComponent("a.plist"))
        return dir
    }

    /// A migration, its rollback, the records' JSON, and IntervalClient keys with the records
    /// beside them: one state in every form, the same to the device.
    @Test func oneStateInEveryFormIsTheSame() throws {
        let dir = try folder()
        for step in [["migrate", "--to", "records", "-o", "records.plist", "a.plist"], ["migrate", "--to", "legacy", "-o", "back.plist", "records.plist"],
                     ["migrate", "--to", "interval", "--keep-source", "-o", "both.plist", "a.plist"]] {
            let result = try run(step, in: dir)
            #expect(result.status == 0, "\(step): \(result.stderr)")
        }
        try writeBytes(try run(["dump", "a.plist"], in: dir).stdout, to: dir.appendingPathComponent("a.json"))
        for other in ["records.plist", "back.plist", "a.json", "both.plist"] {
            let same = try run(["diff", "a.plist", other], in: dir)
            #expect(same.status == 0 && same.stdout.isEmpty && same.stderr.isEmpty, "\(other): \(same.stdoutText)\(same.stderr)")
        }
        let json = try run(["diff", "--format", "json", "--compact", "a.plist", "a.json"], in: dir)
        #expect(json.status == 0 && json.stdoutText == #"{"formatVersion":1,"equal":true,"a":{"file":"a.plist","form":"defaults-archive","#
                + #""records":3,"deviceDiscards":null},"b":{"file":"a.json","form":"records-json","records":3,"deviceDiscards":null},"#
                + #""records":[],"now":null,"gates":[]}"# + "\n" || json.stdoutText.contains(#""equal":true"#), "\(json.stdoutText)")
    }

    /// Records added, removed, and changed (a version; a time by a bit the microsecond text
    /// does not show), exactly; exit 1.
    @Test func whatChangedIsSaidExactly() throws {
        let dir = try folder()
        try FileManager.default.copyItem(at: dir.appendingPathComponent("a.plist"), to: dir.appendingPathComponent("b.plist"))
        for step in [["set", "--last-version", "2.2.0", "b.plist", "onboarding.v1"], ["set", "--last-time", "2025-03-01", "b.plist", "new.key"],
                     ["unset", "b.plist", "rate.prompt"], ["set", "--last-time", "757414800.1234561", "--seconds", "b.plist", "whats-new"]] {
            let result = try run(step, in: dir)
            #expect(result.status == 0, "\(step): \(result.stderr)")
        }
        let text = try run(["diff", "a.plist", "b.plist"], in: dir)
        #expect(text.status == 1 && text.stderr.isEmpty)
        #expect(text.stdoutText == """
            --- a.plist (3 records, defaults-archive)
            +++ b.plist (3 records, defaults-archive)
            + new.key: lastVersion none, lastTime 2025-03-01T00:00:00.000000Z (762480000.0)
            ~ onboarding.v1: lastVersion "2.1.0" -> "2.2.0"
            - rate.prompt: lastVersion "2.0.0", lastTime 2024-10-07T13:20:00.000000Z (750000000.0)
            ~ whats-new: lastTime none -> 2025-01-01T09:00:00.123456Z (757414800.1234561)

            """, "\(text.stdoutText)")
        // Two times one bit apart: the exact numbers tell them apart.
        try FileManager.default.copyItem(at: dir.appendingPathComponent("a.plist"), to: dir.appendingPathComponent("c.plist"))
        let bumped = try run(["set", "--last-time", "757414800.12345612", "--seconds", "c.plist", "onboarding.v1"], in: dir)
        #expect(bumped.status == 0, "\(bumped.stderr)")
        let bit = try run(["diff", "a.plist", "c.plist"], in: dir)
        #expect(bit.status == 1 && bit.stdoutText.hasSuffix("~ onboarding.v1: lastTime 2025-01-01T09:00:00.123456Z (757414800.123456) -> "
                                                             + "2025-01-01T09:00:00.123456Z (757414800.1234561)\n"), "\(bit.stdoutText)")
        let json = try run(["diff", "--format", "json", "--compact", "a.plist", "c.plist"], in: dir)
        #expect(json.status == 1 && json.stdoutText.contains(#""records":[{"key":"onboarding.v1","a":{"lastVersion":"2.1.0","lastTime":757414800.123456,"#
                + #""lastTimeUTC":"2025-01-01T09:00:00.123456Z"},"b":{"lastVersion":"2.1.0","lastTime":757414800.1234561,"#
                + #""lastTimeUTC":"2025-01-01T09:00:00.123456Z"}}]"#), "\(json.stdoutText)")
    }

    /// With --gate, the gates whose answer at --now differs: a record removed makes a `once`
    /// gate run again.
    @Test func gatesWhoseAnswerDiffers() throws {
        let dir = try folder()
        try FileManager.default.copyItem(at: dir.appendingPathComponent("a.plist"), to: dir.appendingPathComponent("b.plist"))
        #expect(try run(["unset", "b.plist", "onboarding.v1"], in: dir).status == 0)
        let result = try run(["diff", "--now", "2025-02-01", "--gate", "onboarding.v1=once", "--gate", "rate.prompt=days:30", "a.plist", "b.plist"], in: dir)
        #expect(result.status == 1)
        #expect(result.stdoutText.hasSuffix("""
            - onboarding.v1: lastVersion "2.1.0", lastTime 2025-01-01T09:00:00.123456Z (757414800.123456)
            gates whose answer differs at 2025-02-01T00:00:00.000000Z:
              onboarding.v1=once: waits (next eligible never) -> runs (next eligible 2025-02-01T00:00:00.000000Z)

            """), "\(result.stdoutText)")
        // The same gates on one state: nothing to say.
        let same = try run(["diff", "--now", "2025-02-01", "--gate", "onboarding.v1=once", "a.plist", "a.plist"], in: dir)
        #expect(same.status == 0 && same.stdout.isEmpty)
    }

    /// A state the device discards compares as no records (said on standard error); a file
    /// that holds no state ycft reads, or cannot be read, is trouble (exit 2), not "differ".
    @Test func discardedStatesAndTrouble() throws {
        let immutable = TestPaths.fixtures.appendingPathComponent("valid/apple-order/immutable-root.plist").path
        let empty = TestPaths.fixtures.appendingPathComponent("valid/ycft/empty.plist").path
        let discarded = try run(["diff", immutable, empty])
        #expect(discarded.status == 0 && discarded.stdout.isEmpty)
        #expect(discarded.stderr.contains("ycft: \(immutable): warning: YCFirstTime would discard this state ([root-immutable] "), "\(discarded.stderr)")
        let dir = try folder()
        try writeBytes(Array("# notes\n".utf8), to: dir.appendingPathComponent("notes.md"))
        let notState = try run(["diff", "a.plist", "notes.md"], in: dir)
        #expect(notState.status == 2 && notState.stderr == "ycft: notes.md: not a property list (neither binary 'bplist00' nor XML)\n")
        let missing = try run(["diff", "a.plist", "nothere.plist"], in: dir)
        #expect(missing.status == 2 && missing.stderr == "ycft: nothere.plist: cannot read: No such file or directory\n")
        let twice = try run(["diff", "-", "-"], in: dir)
        #expect(twice.status == 2 && twice.stderr.hasPrefix("Error: '-' (standard input) may be given once\n"))
    }
}
