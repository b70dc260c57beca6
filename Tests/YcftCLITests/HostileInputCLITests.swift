import Foundation
import Testing
import FirstTimeArchive
import FirstTimeCore
import Plist
import PlistCore
import TestSupport
@testable import YcftCLI

/// The classic attacks, generated here, through every reading command.
enum Attacks {
    /// 4.6 MB: libplist 2.2.0 skips double-quoted text in `<?...?>`, so the 200,000 closing tags
    /// are inside the processing instruction for it, and the 200,000 arrays after it nest that
    /// deep: its recursive free overflowed the stack (SIGSEGV) in every command.
    static let quotedClosingTags = Array(("<?xml version=\"1.0\"?>\n<?x \"?>\" " + String(repeating: "</array>", count: 200_000)
        + " ?>\n<plist>" + String(repeating: "<array>", count: 200_000) + String(repeating: "</array>", count: 200_000)
        + "</plist>\n").utf8)

    static var smallArchive: [UInt8] { try! LegacyArchive.encode(records([("k", "1.0", 2.5)]), format: .binary) }

    static func archive(_ objects: [PlistValue]) -> [UInt8] {
        try! PropertyList.write(archiveValue(objects), format: .binary)
    }

    /// name → bytes.
    static var all: [(String, [UInt8])] {
        let small = smallArchive
        var list: [(String, [UInt8])] = [
            ("empty file", []),
            ("random bytes", (0..<512).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 7) }),
            ("offset table outside the file", rawBinaryPlist([[0x51, 0x61]], tableOffset: 1 << 40)),
            ("offsets into the header", rawBinaryPlist([[0xA1, 0x01], [0x51, 0x61]], offsets: [2, 3])),
            ("object count near 2^64", rawBinaryPlist([[0x51, 0x61]], count: UInt64.max)),
            ("bplist cycle of length 1", rawBinaryPlist([[0xA1, 0x00]])),
            ("bplist cycle of length 3", rawBinaryPlist([[0xA1, 0x01], [0xA1, 0x02], [0xA1, 0x00]])),
            ("UID cycle of length 1", archive([.string("$null"), object([("NS.objects", .array([.uid(1)])), ("$class", .uid(2))]),
                                                classObject(["NSArray", "NSObject"])])),
            ("UID cycle of length 3", archive([
                .string("$null"),
                object([("NS.keys", .array([.uid(4)])), ("NS.objects", .array([.uid(2)])), ("$class", .uid(5))]),
                object([("NS.keys", .array([.uid(4)])), ("NS.objects", .array([.uid(3)])), ("$class", .uid(5))]),
                object([("NS.keys", .array([.uid(4)])), ("NS.objects", .array([.uid(1)])), ("$class", .uid(5))]),
                .string("sharedGroup"), classObject(["NSMutableDictionary", "NSDictionary", "NSObject"]),
            ])),
            ("100,000-level binary nesting", rawBinaryPlist((0..<100_000).map { i in
                i == 99_999 ? [0xA0] : [0xA1] + withUnsafeBytes(of: UInt32(i + 1).bigEndian, Array.init)
            }, offsetSize: 4, refSize: 4)),
            ("100,000-level XML nesting", Array(("<?xml version=\"1.0\"?><plist version=\"1.0\">"
                + String(repeating: "<array>", count: 100_000) + String(repeating: "</array>", count: 100_000) + "</plist>").utf8)),
            ("shared-reference bomb", rawBinaryPlist((0..<40).map { [0xA2, UInt8($0 + 1), UInt8($0 + 1)] } + [[0x51, 0x61]])),
            ("string with NUL", AppleStyleBinaryWriter.write(archiveValue({
                var o = appleLayoutOneKey; o[4] = .string("a\u{0}b"); return o }()))),
            ("lone surrogate", rawBinaryPlist([[0xD1, 0x01, 0x02], [0x63, 0x00, 0x6B, 0xD8, 0x00, 0x00, 0x6B], [0x51, 0x76]])),
            ("XML entity declaration", Array("""
                <?xml version="1.0"?><!DOCTYPE plist [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;">]>
                <plist version="1.0"><string>&b;</string></plist>
                """.utf8)),
            ("truncated archive", Array(small.prefix(small.count / 2))),
            ("closing tags hidden in a quoted processing instruction", quotedClosingTags),
            ("closing tags hidden in a quoted attribute", Array(("<?xml version=\"1.0\"?><plist><dict x=\"/>\" "
                + String(repeating: "</array>", count: 1_000) + "><key>a</key>" + String(repeating: "<array>", count: 1_000)
                + String(repeating: "</array>", count: 1_000) + "</dict></plist>").utf8)),
            ("closing tags that close nothing", Array(("<?xml version=\"1.0\"?><?x '?>' " + String(repeating: "</array>", count: 100_000)
                + " ?><plist>" + String(repeating: "<array>", count: 100_000) + String(repeating: "</array>", count: 100_000)
                + "</plist>").utf8)),
        ]
        // A long UID chain: flat in the plist, 5,000 levels deep as a graph.
        var chain: [PlistValue] = [.string("$null")]
        for i in 1...5_000 { chain.append(object([("NS.objects", .array([.uid(UInt64(i + 1))])), ("$class", .uid(5_002))])) }
        chain += [.string("end"), classObject(["NSArray", "NSObject"])]
        list.append(("5,000-deep UID chain", archive(chain)))
        return list
    }
}

@Suite struct HostileInputInProcess {
    /// Each run either succeeds with JSON on stdout and at most warnings on stderr, or fails with status
    /// 1 or 2, exactly one line on stderr and nothing on stdout.
    func check(_ bytes: [UInt8], _ arguments: [String], _ label: String) {
        let io = FakeIO(stdin: bytes)
        let status = io.run(arguments + ["-"])
        if status == 0 {
            // Success may come with warnings (what the device reads differently), one per line.
            #expect(io.stderr.split(separator: "\n").allSatisfy { $0.hasPrefix("ycft: <stdin>: warning: ") }, "\(label): \(io.stderr)")
        } else {
            #expect(status == 1 || status == 2, "\(label)")
            #expect(io.stdout.isEmpty, "\(label)")
            #expect(io.stderr.hasPrefix("ycft: <stdin>: "), "\(label)")
            #expect(io.stderr.filter { $0 == "\n" }.count == 1, "\(label): \(io.stderr)")
        }
    }

    @Test func truncationsAtEveryOffset() {
        let small = Attacks.smallArchive
        for length in 0..<small.count {
            let bytes = Array(small.prefix(length))
            let io = FakeIO(stdin: bytes)
            #expect(io.run(["dump", "-"]) == 1, "length \(length)")
            #expect(io.stdout.isEmpty)
            check(bytes, ["dump", "--raw"], "raw, length \(length)")
        }
    }

    @Test func everySingleByteFlip() {
        let small = Attacks.smallArchive
        for i in small.indices {
            for bit in [0, 3, 7] {
                var bytes = small
                bytes[i] ^= 1 << bit
                check(bytes, ["dump"], "byte \(i) bit \(bit)")
                check(bytes, ["dump", "--raw"], "raw byte \(i) bit \(bit)")
            }
        }
    }

    @Test(arguments: Attacks.all.map(\.0))
    func attack(_ name: String) {
        let bytes = Attacks.all.first { $0.0 == name }!.1
        for command in [["dump"], ["dump", "--raw"], ["dump", "--objects"]] {
            check(bytes, command, "\(name): \(command)")
        }
        let verify = FakeIO(stdin: bytes)
        let status = verify.run(["verify", "-"])
        #expect(status == 1, "\(name): verify")
        #expect(verify.stderr.hasPrefix("<stdin>: error: ["), "\(name): verify")
    }
}

/// The same attacks through the real binary: well under a second, bounded memory.
@Suite(.serialized) struct HostileInputBinary {
    let ycft = TestPaths.executable("ycft")

    @Test(arguments: Attacks.all.map(\.0))
    func attack(_ name: String) throws {
        let bytes = Attacks.all.first { $0.0 == name }!.1
        for command in [["dump", "-"], ["dump", "--raw", "-"], ["verify", "-"]] {
            let result = try runMeasured(ycft, command, stdin: bytes)
            // Under AddressSanitizer (Scripts/sanitize.sh) shadow memory and slower code make
            // time and memory meaningless; the other assertions still hold.
            if ProcessInfo.processInfo.environment["YCFT_SANITIZER"] == nil {
                // A watchdog against hangs, not a benchmark (those are ycft-bench's): generous, so
                // a loaded CI machine does not flake it.
                #expect(result.seconds < 10, "\(name): \(command) took \(result.seconds) s")
                #expect(result.maxRSSKiB < 200 * 1024, "\(name): \(command) used \(result.maxRSSKiB) KiB")
            }
            if command[1] == "--raw" && Self.rawShowsIt.contains(name) {
                // A UID cycle is a valid graph: --raw prints it with {"$ref": uid}.
                #expect(result.status == 0)
                #expect(String(decoding: result.stdout, as: UTF8.self).contains("\"$ref\""))
                continue
            }
            #expect(result.status == 1, "\(name): \(command) exited \(result.status): \(result.stderr)")
            #expect(result.stderr.filter { $0 == "\n" }.count >= 1)
            if command[0] == "dump" {
                #expect(result.stdout.isEmpty, "\(name): \(command)")
                #expect(result.stderr.filter { $0 == "\n" }.count == 1, "\(name): \(command): \(result.stderr)")
            }
        }
    }

    static let rawShowsIt: Set<String> = ["UID cycle of length 1", "UID cycle of length 3"]

    /// One hostile file in a batch: the batch goes on and writes its report.
    @Test func aHostileXMLFileDoesNotStopABatch() throws {
        let dir = try TestPaths.temporaryDirectory()
        try FileManager.default.copyItem(at: TestPaths.fixtures.appendingPathComponent("valid/defaults/export.binary.plist"),
                                         to: dir.appendingPathComponent("good.plist"))
        try writeBytes(Attacks.quotedClosingTags, to: dir.appendingPathComponent("hostile.plist"))
        let report = dir.appendingPathComponent("report.json")
        let result = try runProcess(ycft, ["migrate", "--dry-run", "--report", report.path, dir.path])
        #expect(result.status == 1)
        #expect(result.stderr.contains("hostile.plist: malformed XML plist: processing instructions other than the XML declaration at the start are not supported (at line 2)"))
        // The listing names the file that would fail in its place, with the reason.
        #expect(result.stdoutText == "\(dir.path)/good.plist: would migrate 3 records: +\"YCFirstTime.records\" -\"YCFirstTime\"\n"
                + "\(dir.path)/hostile.plist: would fail: malformed XML plist: processing instructions other than the XML declaration at the start "
                + "are not supported (at line 2)\n")
        #expect(FileManager.default.fileExists(atPath: report.path))
        for command in [["status"], ["verify"], ["dump"]] {
            let one = try runProcess(ycft, command + [dir.appendingPathComponent("hostile.plist").path])
            #expect(one.status == 1, "\(command): \(one.stderr)")
        }
    }
}

/// Inputs fuzzing found slow under instrumentation: they must stay fast in the real tool.
@Suite struct FuzzFindings {
    @Test func slowExpansionStaysFast() throws {
        let bytes = try readBytes(TestPaths.fixtures.appendingPathComponent("raw/fuzz-slow-expansion.plist"))
        let result = try runMeasured(TestPaths.executable("ycft"), ["dump", "--raw", "-"], stdin: bytes)
        #expect(result.status == 0)
        #expect(result.stdout.count > 100_000)
        if ProcessInfo.processInfo.environment["YCFT_SANITIZER"] == nil {
            #expect(result.seconds < 10)  // a watchdog against a hang, not a benchmark
            #expect(result.maxRSSKiB < 200 * 1024)
        }
    }
}
