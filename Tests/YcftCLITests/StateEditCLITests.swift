import Foundation
import Testing
import TestSupport

/// `ycft edit` writes through the one write (`StateEdit`) and says what `set` says of the same
/// change: the same bytes, the same lines on standard error (before, it said what the state
/// held that a write of it unchanged would convert, and no rounded interval.* time).
@Suite struct EditSaysWhatSetSays {
    /// `set ARGS` on one copy of `fixture` and `edit` with `script` (a sed program on the
    /// scratch file) on another.
    func compare(_ fixture: URL, set arguments: [String], sed script: String) throws -> (set: String, edit: String) {
        let f = try EditorFixture()
        let (a, b) = (f.dir.appendingPathComponent("a.plist"), f.dir.appendingPathComponent("b.plist"))
        try writeBytes(try readBytes(fixture), to: a)
        try writeBytes(try readBytes(fixture), to: b)
        let set = try runProcess(f.ycft, ["set", a.path, "k"] + arguments)
        let edit = try runProcess(f.ycft, ["edit", b.path], environment: f.env(try f.editor("ed.sh", "sed -i \(script) \"$1\"")))
        #expect(set.status == 0 && edit.status == 0, "\(set.stderr)\(edit.stderr)")
        #expect(try readBytes(a) == readBytes(b))
        #expect(try f.leftovers() == [])
        return (set.stderr.replacingOccurrences(of: a.path, with: "FILE"), edit.stderr.replacingOccurrences(of: b.path, with: "FILE"))
    }

    @Test func aRoundedIntervalTimeIsSaid() throws {
        let fixture = try TestPaths.temporaryDirectory().appendingPathComponent("i.plist")
        try writeBytes(IntervalKeysEdits.xml, to: fixture)
        let said = try compare(fixture, set: ["--last-time", "2025-01-01T09:00:00.123456789Z"],
                               sed: #"-e '/"lastTime" :/d' -e 's/"lastTimeUTC" : "[^"]*"/"lastTimeUTC" : "2025-01-01T09:00:00.123456789Z"/'"#)
        #expect(said.edit == "ycft: FILE: warning: \"interval.k\" counts seconds since 1970 and holds the time "
                + "757414800.1234568 as 757414800.123457, its nearest value\n")
        #expect(said.edit == said.set)
    }

    @Test func aTimeTheEditReplacesIsNotSaidToBeConverted() throws {
        let said = try compare(TestPaths.fixtures.appendingPathComponent("invalid/time-not-real.plist"),
                               set: ["--last-time", "2001-01-01T00:00:05Z"],
                               sed: #"-e '/"lastTime" :/d' -e 's/"lastTimeUTC" : "[^"]*"/"lastTimeUTC" : "2001-01-01T00:00:05Z"/'"#)
        #expect(said.edit == "")
        #expect(said.edit == said.set)
    }
}
