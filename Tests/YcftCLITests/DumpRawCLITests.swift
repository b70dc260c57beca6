import Foundation
import Testing
import FirstTimeArchive
import FirstTimeCore
import Plist
import PlistCore
import TestSupport
@testable import YcftCLI

@Suite struct DumpRaw {
    func fixture(_ path: String) throws -> [UInt8] { try readBytes(TestPaths.fixtures.appendingPathComponent(path)) }

    @Test func rawMatchesTheFixtureGolden() throws {
        let io = FakeIO(files: ["k.plist": try fixture("raw/known-classes.plist")])
        #expect(io.run(["dump", "--raw", "k.plist"]) == 0)
        #expect(io.stdout == (try fixture("raw/known-classes.raw.json")))
    }

    @Test func plainDumpOfAnotherArchiveSuggestsRaw() throws {
        let io = FakeIO(files: ["k.plist": try fixture("raw/known-classes.plist")])
        #expect(io.run(["dump", "k.plist"]) == 1)
        #expect(io.stderr == "ycft: k.plist: $objects[1]: expected NSMutableDictionary (root), found NSArray (ycft dump --raw shows everything it holds)\n")
        #expect(io.stdout.isEmpty)
    }

    @Test func rawWithKeyShowsTheNestedArchive() throws {
        let io = FakeIO(files: ["p.plist": try fixture("valid/defaults/export.xml.plist")])
        #expect(io.run(["dump", "--raw", "--key", "YCFirstTime", "--compact", "p.plist"]) == 0)
        #expect(io.stdoutText.hasPrefix(#"{"$archiver":"NSKeyedArchiver","$version":100000,"$top":{"root":{"$class":"NSMutableDictionary","entries":[["sharedGroup","#))
    }

    @Test func rawOfAWholeDefaultsFile() throws {
        let io = FakeIO(files: ["p.plist": try fixture("valid/defaults/export.binary.plist")])
        #expect(io.run(["dump", "--raw", "p.plist"]) == 0)
        #expect(io.stdout == (try fixture("valid/defaults/export.binary.raw.json")))
    }

    @Test func refsAndObjects() throws {
        let io = FakeIO(files: ["s.plist": try fixture("raw/shared.plist")])
        #expect(io.run(["dump", "--raw", "--refs", "--compact", "s.plist"]) == 0)
        #expect(io.stdoutText == #"{"$archiver":"NSKeyedArchiver","$version":100000,"$top":{"root":{"$class":"NSArray","items":[{"$uid":2,"$class":"NSMutableString","string":"shared"},{"$ref":2},{"$uid":3,"$class":"NSArray","items":[{"$ref":2}]},{"$ref":3}]}}}"# + "\n")
        let objects = FakeIO(files: ["s.plist": try fixture("raw/shared.plist")])
        #expect(objects.run(["dump", "--objects", "--compact", "s.plist"]) == 0)
        #expect(objects.stdoutText.hasPrefix(#"{"$archiver":"NSKeyedArchiver","$version":100000,"$top":{"root":{"$uid":1}},"$objects":["$null",{"NS.objects":[{"$uid":2},{"$uid":2},{"$uid":3},{"$uid":3}],"$class":{"$uid":5}}"#))
    }

    @Test func objectsOfAPlainPlistFails() throws {
        // A defaults file holding the archive: the hint is --key, which shows the archive's table.
        let io = FakeIO(files: ["p.plist": try fixture("valid/defaults/export.binary.plist")])
        #expect(io.run(["dump", "--objects", "p.plist"]) == 1)
        #expect(io.stderr == "ycft: p.plist: a defaults file, not an archive; its archive's object table: ycft dump --objects --key YCFirstTime p.plist\n")
        let keyed = FakeIO(files: ["p.plist": try fixture("valid/defaults/export.binary.plist")])
        #expect(keyed.run(["dump", "--objects", "--key", "YCFirstTime", "p.plist"]) == 0)
        // Any other plist: --raw shows it.
        let plain = FakeIO(files: ["q.plist": try PropertyList.write(.dictionary(PlistDictionary([("a", .bool(true))])), format: .binary)])
        #expect(plain.run(["dump", "--objects", "q.plist"]) == 1)
        #expect(plain.stderr == "ycft: q.plist: not an NSKeyedArchiver archive (no $archiver, $version, $top or $objects); use --raw to see the property list\n")
    }

    @Test(arguments: [
        (["dump", "--raw", "--objects", "x"], "Error: '--raw' and '--objects' cannot be combined"),
        (["dump", "--refs", "x"], "Error: '--refs' goes with '--raw'"),
        (["dump", "--raw=yes", "x"], "Error: '--raw' takes no value"),
    ])
    func usage(_ arguments: [String], _ first: String) {
        let io = FakeIO()
        #expect(io.run(arguments) == 2)
        #expect(io.stderr.hasPrefix(first + "\n"))
    }
}

@Suite struct DumpRawWarningsCLI {
    /// The JSON lists envelope problems under "$warnings"; stderr says them once each.
    @Test func envelopeProblemsAreWarnedOnStderr() throws {
        var envelope = archiveValue(appleLayoutOneKey).dictionaryValue!
        envelope["$version"] = nil
        let io = FakeIO(files: ["a.plist": try PropertyList.write(.dictionary(envelope), format: .binary)])
        #expect(io.run(["dump", "--raw", "--compact", "a.plist"]) == 0)
        #expect(io.stderr == "ycft: a.plist: warning: $version: missing\n")
        #expect(io.stdoutText.hasPrefix(#"{"$archiver":"NSKeyedArchiver","$top":"#))
        #expect(io.stdoutText.hasSuffix(#","$warnings":["$version: missing"]}"# + "\n"))
    }
}
