import Foundation
import Testing
import FirstTimeArchive
import FirstTimeCore
import Plist
import PlistCore
import TestSupport

/// Memory and time bombs inside the input-size cap: every command stays under 1 GiB and 30 s of CPU.
/// The inputs are generated here (megabytes, never committed).
enum Bombs {
    static func be32(_ v: Int) -> [UInt8] { withUnsafeBytes(of: UInt32(v).bigEndian, Array.init) }
    static func length(_ kind: UInt8, _ n: Int) -> [UInt8] { n < 15 ? [kind << 4 | UInt8(n)] : [kind << 4 | 0x0F, 0x12] + be32(n) }

    /// `a_k = [a_{k-1}, a_{k-1}]`, 23 levels (8 million nodes once expanded), beside 4 MB of data
    /// that buys a per-byte budget: gigabytes and many seconds in every command before the
    /// absolute ceiling.
    static var arrayChain: [UInt8] {
        var objects: [[UInt8]] = [[], [0x09]]
        for _ in 0..<23 { objects.append([0xA2] + be32(objects.count - 1) + be32(objects.count - 1)) }
        let top = objects.count - 1
        objects.append(length(0x4, 4_000_000) + [UInt8](repeating: 0xAB, count: 4_000_000))
        objects[0] = [0xA2] + be32(top) + be32(objects.count - 1)
        return rawBinaryPlist(objects, offsetSize: 4, refSize: 4)
    }

    /// One 1 MiB data object referenced 100 times: libplist copies it each time (100 MiB).
    static var sharedData: [UInt8] {
        let objects: [[UInt8]] = [length(0xA, 100) + [UInt8](repeating: 1, count: 100), length(0x4, 1 << 20) + [UInt8](repeating: 7, count: 1 << 20)]
        return rawBinaryPlist(objects, offsetSize: 4, refSize: 1)
    }

    /// An archive whose 1-byte `$null` padding once bought `dump --raw` a bigger printing
    /// budget, and an `NSArray` graph that doubles at each of 40 levels.
    static var nullPadding: [UInt8] {
        var objects: [PlistValue] = [.string("$null"), .string("leaf")]
        let cls = 2
        objects.append(classObject(["NSArray", "NSObject"]))
        for _ in 0..<40 { objects.append(object([("NS.objects", .array([.uid(UInt64(objects.count - 1)), .uid(UInt64(objects.count - 1))])), ("$class", .uid(UInt64(cls)))])) }
        let top = objects.count - 1
        objects += Array(repeating: .string("$null"), count: 300_000)
        return (try? PropertyList.write(archiveValue(objects, root: UInt64(top)), format: .binary)) ?? []
    }

    /// One 200,000-name `$classes` shared by 1,000 objects: 200 million printed names.
    static var longClassChain: [UInt8] {
        var objects: [PlistValue] = [.string("$null")]
        objects.append(.dictionary(PlistDictionary([("$classname", .string("X")),
                                                    ("$classes", .array((0..<200_000).map { .string("C\($0)") }))])))
        let first = objects.count + 1
        let items = (0..<1_000).map { PlistValue.uid(UInt64(first + $0)) }
        objects.append(object([("NS.objects", .array(items)), ("$class", .uid(1))]))
        for _ in 0..<1_000 { objects.append(object([("$class", .uid(1))])) }
        return (try? PropertyList.write(archiveValue(objects, root: 2), format: .binary)) ?? []
    }

    /// 15 MB of `<true/>` in one array: 2.2 million values (the input-size cap keeps out larger
    /// ones, which took gigabytes).
    static var xmlTrues: [UInt8] {
        Array(("<?xml version=\"1.0\"?><plist><array>" + String(repeating: "<true/>", count: 2_200_000) + "</array></plist>").utf8)
    }

    /// A defaults file with 80,000 unrelated keys beside the archive (a quadratic key
    /// comparison kept migrate busy for five minutes).
    static var manyKeys: [UInt8] {
        let archive = (try? readBytes(TestPaths.fixtures.appendingPathComponent("valid/ycft/three-records.plist"))) ?? []
        var entries: [(key: String, value: PlistValue)] = [("YCFirstTime", .data(archive))]
        for i in 0..<80_000 { entries.append(("unrelated.key.\(i)", .integer(.signed(Int64(i))))) }
        return (try? PropertyList.write(.dictionary(PlistDictionary(entries)), format: .binary)) ?? []
    }

    static let all: [(String, @Sendable () -> [UInt8])] = [
        ("array chain", { arrayChain }), ("shared data", { sharedData }), ("null padding", { nullPadding }),
        ("long class chain", { longClassChain }), ("XML trues", { xmlTrues }), ("many keys", { manyKeys }),
    ]
}

@Suite(.serialized) struct ResourceBounds {
    let ycft = TestPaths.executable("ycft")

    @Test(arguments: Bombs.all.map(\.0))
    func everyCommandStaysBounded(_ name: String) throws {
        let bytes = try #require(Bombs.all.first { $0.0 == name }).1()
        #expect(bytes.count > 200_000 && bytes.count <= 32 << 20, "\(name): \(bytes.count) bytes")
        let dir = try TestPaths.temporaryDirectory()
        let file = dir.appendingPathComponent("bomb.plist")
        try writeBytes(bytes, to: file)
        let sanitized = ProcessInfo.processInfo.environment["YCFT_SANITIZER"] != nil
        var commands = [["dump"], ["dump", "--raw"], ["dump", "--raw", "--refs"], ["dump", "--objects"], ["verify"], ["status"],
                        ["migrate", "--dry-run"], ["migrate", "--to", "interval", "-o", dir.appendingPathComponent("out.plist").path]]
        // Every command reads through the same XML guard, which is what this input exercises; three
        // of them keep the suite's time down in a debug build (each takes seconds there).
        if name == "XML trues" { commands = [["dump", "--raw"], ["verify"], ["migrate", "--dry-run"]] }
        for command in commands {
            let result = try runMeasured(ycft, command + [file.path])
            #expect((0...2).contains(result.status), "\(name): \(command) exited \(result.status)")
            if !sanitized {
                // A watchdog, not a benchmark: the work is bounded in CPU time (several times what
                // a debug build takes), which other work on a loaded machine barely moves, where
                // wall time flaked; a hang that spends no CPU is caught by wall time.
                #expect(result.cpuSeconds < 30, "\(name): \(command) took \(result.cpuSeconds) s of CPU")
                #expect(result.seconds < 120, "\(name): \(command) took \(result.seconds) s")
                #expect(result.maxRSSKiB < 1 << 20, "\(name): \(command) used \(result.maxRSSKiB) KiB")
            }
            #expect(result.stdout.count < 256 << 20, "\(name): \(command) printed \(result.stdout.count) bytes")
        }
    }

    /// pack never writes an archive that ycft would refuse to read with the same limits: 2,000
    /// empty records are 21 KB of JSON but about 10,000 values, over the node ceiling of a
    /// 100K limit (one per 16 bytes), and 81 KB of archive, over a 32K limit. Nothing is
    /// written, to -o or --into.
    @Test func packDoesNotWriteWhatItWouldRefuseToRead() throws {
        let dir = try TestPaths.temporaryDirectory()
        let names = (0..<2000).map { "\"k\($0)\":{}" }.joined(separator: ",")
        let json = Array("{\"format\":\"ycfirsttime-records\",\"formatVersion\":1,\"records\":{\(names)}}".utf8)
        let out = dir.appendingPathComponent("out.plist")
        let prefs = dir.appendingPathComponent("prefs.plist")
        let original = try PropertyList.write(.dictionary(PlistDictionary([("Theme", .string("dark"))])), format: .binary)
        try writeBytes(original, to: prefs)
        let nodes = "the archive would not be read back with these limits: the values expand to more than 6400 nodes, "
            + "the limit for this input (raise it with --max-input-size); nothing was written\n"
        // Named by the input for -o, by the file that was to change for --into.
        for (target, named) in [(["-o", out.path], "<stdin>"), (["--into", prefs.path], prefs.path)] {
            let pack = try runProcess(ycft, ["pack", "--max-input-size", "100K"] + target + ["-"], stdin: json)
            #expect(pack.status == 1)
            #expect(pack.stderr == "ycft: \(named): " + nodes)
        }
        let size = try runProcess(ycft, ["pack", "--max-input-size", "32K", "-o", out.path, "-"], stdin: json)
        #expect(size.status == 1)
        #expect(size.stderr.hasPrefix("ycft: <stdin>: the archive would not be read back with these limits: input is "), "\(size.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out.path))
        #expect(try readBytes(prefs) == original)
        // With the default limits it is written, and read back.
        let packed = try runProcess(ycft, ["pack", "-o", out.path, "-"], stdin: json)
        #expect(packed.status == 0, "\(packed.stderr)")
        #expect(try runProcess(ycft, ["dump", out.path]).status == 0)
    }

    /// An archive inside a defaults file over the node bound that --max-input-size sets: dump
    /// names the option (it pointed at --raw, which cannot show the archive either).
    @Test func anEmbeddedArchiveOverTheNodeBoundNamesTheOption() throws {
        let file = TestPaths.fixtures.appendingPathComponent("valid/defaults/export.binary.plist").path
        let small = try runProcess(ycft, ["dump", "--max-input-size", "1K", file])
        #expect(small.status == 1)
        #expect(small.stderr == "ycft: \(file): \"YCFirstTime\" holds an archive beyond ycft's bounds: the values expand to more than "
            + "64 nodes, the limit for this input (raise it with --max-input-size)\n")
        #expect(try runProcess(ycft, ["dump", file]).status == 0)
    }

    @Test func theBoundsAreNamed() throws {
        let result = try runMeasured(ycft, ["dump", "--raw", "-"], stdin: Bombs.arrayChain)
        #expect(result.status == 1)
        #expect(result.stderr == "ycft: <stdin>: the values expand to more than 2097152 nodes, the limit for this input\n")
        let shared = try runMeasured(ycft, ["dump", "--raw", "-"], stdin: Bombs.sharedData)
        #expect(shared.stderr == "ycft: <stdin>: shared references copy strings and data to 68157440 bytes, over the limit of 67108864\n")
        let chain = try runMeasured(ycft, ["dump", "--raw", "--refs", "-"], stdin: Bombs.longClassChain)
        #expect(chain.status == 1)
        #expect(chain.stderr.contains("expanding shared objects would print more than"), "\(chain.stderr)")
        let padded = try runMeasured(ycft, ["dump", "--raw", "-"], stdin: Bombs.nullPadding)
        #expect(padded.stderr == "ycft: <stdin>: expanding shared objects would print more than 200000 values (a reference bomb?); use --refs to print each object once\n")
        let migrated = try runMeasured(ycft, ["migrate", "--dry-run", "-"], stdin: Bombs.manyKeys)
        #expect(migrated.status == 2)  // migrate takes files, not standard input
    }
}
