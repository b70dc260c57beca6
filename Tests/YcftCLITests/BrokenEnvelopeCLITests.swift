import Foundation
import Testing
import FirstTimeArchive
import FirstTimeCore
import PlistCore
import Plist
import TestSupport

/// A dictionary that carries any of NSKeyedArchiver's envelope keys is an archive, broken when
/// the rest is missing (`KeyedArchive.isEnvelope(_:)`), whichever command reads it: none of them
/// takes it for a defaults file. `dump --objects` used to call `{"$objects": [...]}` "not an
/// archive" while `dump` reported its missing `$archiver`, and `{"$top": {...}}` was a defaults
/// file without state to `dump`, `verify` and `status`.
@Suite struct BrokenEnvelopeThroughTheTool {
    let ycft = TestPaths.executable("ycft")

    /// The broken envelopes, and the one thing every judging command says about them.
    static let cases: [(name: String, file: PlistDictionary, objects: String, raw: String)] = [
        ("objects-only", PlistDictionary([("$objects", .array([.string("$null")]))]),
         "{\n  \"$objects\" : [\n    \"$null\"\n  ]\n}\n",
         "{\n  \"$warnings\" : [\n    \"$archiver: missing\",\n    \"$version: missing\",\n    \"$top: missing\"\n  ]\n}\n"),
        ("top-only", PlistDictionary([("$top", .dictionary(PlistDictionary([("root", .uid(1))])))]),
         "{\n  \"$top\" : {\n    \"root\" : {\n      \"$uid\" : 1\n    }\n  }\n}\n",
         "{\n  \"$top\" : {\n    \"root\" : {\n      \"$dangling\" : 1\n    }\n  },\n  \"$warnings\" : [\n"
            + "    \"$archiver: missing\",\n    \"$version: missing\",\n    \"$objects: missing\",\n"
            + "    \"UID 1 is outside $objects (0 objects)\"\n  ]\n}\n"),
    ]

    @Test(arguments: 0..<2)
    func everyCommandCallsItABrokenArchive(_ index: Int) throws {
        let (name, dictionary, table, raw) = Self.cases[index]
        let bytes = try PropertyList.write(.dictionary(dictionary), format: .xml)
        let dir = try TestPaths.temporaryDirectory()
        let file = dir.appendingPathComponent("\(name).plist")
        let json = dir.appendingPathComponent("r.json")
        try writeBytes(RecordsFormat.json(records([("k", "1.0", 10)])), to: json)
        func run(_ arguments: [String]) throws -> ProcessResult {
            try writeBytes(bytes, to: file)
            let result = try runProcess(ycft, arguments + [file.path])
            #expect(try readBytes(file) == bytes, "\(name): \(arguments) changed the file")
            return result
        }
        let path = file.path
        let missing = "$archiver: missing $archiver"

        let dump = try run(["dump"])
        #expect(dump.status == 1 && dump.stdout.isEmpty, "\(name)")
        #expect(dump.stderr == "ycft: \(path): \(missing) (ycft dump --raw shows everything it holds)\n", "\(name)")

        let verify = try run(["verify"])
        #expect(verify.status == 1, "\(name)")
        #expect(verify.stderr == "\(path): error: [envelope-archiver] \(missing)\n"
                + "ycft verify: 1 file: 0 passed, 1 failed, 0 unreadable (1 error, 0 warnings)\n", "\(name)")

        let status = try run(["status", "--now", "2026-01-01T00:00:00Z"])
        #expect(status.status == 0, "\(name)")
        #expect(status.stderr == "ycft: \(path): warning: [envelope-archiver] \(missing)\n", "\(name)")
        #expect(status.stdoutText.hasSuffix("\nYCFirstTime would discard this state ([envelope-archiver] \(missing)): "
                                            + "every gate runs as on a fresh install\n"), "\(name): \(status.stdoutText)")

        try writeBytes(bytes, to: file)
        let setKey = try runProcess(ycft, ["set", "--last-version", "1", path, "k"])
        #expect(try readBytes(file) == bytes, "\(name): set changed the file")
        #expect(setKey.status == 1 && setKey.stderr == "ycft: \(path): \(missing)\n", "\(name): \(setKey.stderr)")

        let pack = try runProcess(ycft, ["pack", json.path, "--into", path])
        #expect(try readBytes(file) == bytes, "\(name): pack --into changed the file")
        #expect(pack.status == 1, "\(name): \(pack.stderr)")
        #expect(pack.stderr == "ycft: \(path): top level: the file is a keyed archive, not a defaults domain\n", "\(name): \(pack.stderr)")

        // The object table and the raw form show what the envelope holds; --raw lists what it lacks.
        let objects = try run(["dump", "--objects"])
        #expect(objects.status == 0 && objects.stderr.isEmpty, "\(name): \(objects.stderr)")
        #expect(objects.stdoutText == table, "\(name): \(objects.stdoutText)")
        let rawDump = try run(["dump", "--raw"])
        #expect(rawDump.status == 0, "\(name)")
        #expect(rawDump.stdoutText == raw, "\(name): \(rawDump.stdoutText)")
        // Each warning of the "$warnings" member, on standard error too.
        let warned = raw.split(separator: "\n").drop { !$0.contains("$warnings") }.dropFirst()
            .filter { $0.hasPrefix("    \"") }.map { $0.dropFirst(5).dropLast($0.hasSuffix(",") ? 2 : 1) }
        #expect(rawDump.stderr == warned.map { "ycft: \(path): warning: \($0)\n" }.joined(), "\(name): \(rawDump.stderr)")
    }
}
