// ycft-bench: how ycft compares with libplist's own floor and with Linux Foundation, measured
// in one run on the same bytes. `swift run -c release ycft-bench` (add --quick for a smoke run;
// `--instructions [RECORDS]` counts instructions under valgrind's callgrind instead of time;
// `--inputs DIR [RECORDS]` writes the generated inputs to DIR and stops; `--startup` times
// only the start-up of the ycft and startup-floor binaries built beside it; `--batch [FILES]`
// only a batch migrate of small files against a durable copy of them).

import CBenchFloor
import FirstTimeArchive
import FirstTimeCore
import Foundation
import KeyedArchive
import Plist
import PlistCore
import YcftCLI

#if DEBUG
let banner = """
################################################################
#  ycft-bench was built in DEBUG: numbers mean nothing.         #
#  Run: swift run -c release ycft-bench                         #
################################################################

"""
FileHandle.standardError.write(Data(banner.utf8))
#endif

// MARK: Inputs (deterministic)

/// A fixed-seed generator (xorshift64*): every run generates the same inputs.
struct InputRandom: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed | 1 }
    mutating func next() -> UInt64 {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        return state &* 2_685_821_657_736_338_717
    }
    mutating func pick<T>(_ items: [T]) -> T { items[Int(next() % UInt64(items.count))] }
    mutating func chance(_ inHundred: UInt64) -> Bool { next() % 100 < inHundred }
}

/// `count` records shaped like an app's YCFirstTime state, in the order an archiver writes
/// them. Block keys are gate names: reverse-DNS, an area and a feature, often a version or a
/// build, from a few bytes to about a hundred, about one in ten with non-ASCII; versions are
/// app versions (`2.4`, `10.3.1`, a few betas), some missing; times are fractional seconds
/// over recent years, some missing. Apple's and Linux Foundation's `NSKeyedArchiver` write a
/// dictionary's entries in hash order, so the keys are shuffled (fixed seed), not sorted.
func makeEntries(_ count: Int) -> [(key: String, record: FirstTimeRecord)] {
    var random = InputRandom(seed: 0x59C6_F1A5_7713_2026 &+ UInt64(count))
    let domains = ["com", "com", "com", "io", "org", "net", "de", "jp.co", "fr", "co.uk"]
    let vendors = ["acme", "example", "yourcompany", "northwind", "contoso", "bücherwelt", "mañana-labs",
                   "ycfirsttime", "zeitgeist", "スタジオ", "blueorchard", "kraftwerk"]
    let apps = ["shop", "maps", "notes", "reader", "camera", "fitness", "bank", "weather", "podcasts", "chat"]
    let areas = ["onboarding", "tooltip", "whatsnew", "rating-prompt", "paywall", "tutorial", "coachmark",
                 "banner", "sync.migration", "settings.privacy", "feature-flag", "announcement.sheet"]
    let features = ["welcome-tour", "swipe-hint", "first-launch", "dark-mode", "widget", "éditeur", "übersicht",
                    "share-extension", "offline-download", "face-id", "siri-shortcut", "引导", "cart.button",
                    "export.pdf", "icloud-sync", "live-activity"]
    let shortKeys = ["intro", "tip", "hint", "ask", "promo", "nps", "tour", "café"]
    var entries: [(key: String, record: FirstTimeRecord)] = []
    entries.reserveCapacity(count)
    for i in 0..<count {
        // i makes every key unique; where it goes, and what surrounds it, varies.
        let key: String
        switch random.next() % 20 {
        case 0: key = "\(random.pick(shortKeys)).\(i)"
        case 1, 2: key = "\(random.pick(areas)).\(random.pick(features)).\(i)"
        case 3: key = "\(random.pick(domains)).\(random.pick(vendors)).\(random.pick(apps)).\(random.pick(areas)).\(random.pick(features))"
            + ".campaign-\(2020 + i % 7)-\(i % 12 + 1).variant-\(random.pick(["a", "b", "control"])).\(i)"
        default:
            let version = random.chance(60) ? ".v\(random.next() % 9 + 1)" : ".\(random.next() % 12 + 1).\(random.next() % 10)"
            key = "\(random.pick(domains)).\(random.pick(vendors)).\(random.pick(apps)).\(random.pick(areas)).\(random.pick(features))-\(i)\(version)"
        }
        var version: String?
        if !random.chance(8) {
            let major = random.chance(20) ? 2020 + random.next() % 7 : random.next() % 12 + 1
            let text = random.chance(50) ? "\(major).\(random.next() % 20)" : "\(major).\(random.next() % 20).\(random.next() % 10)"
            version = random.chance(3) ? "\(text)-beta.\(random.next() % 5 + 1)" : text
        }
        // 2022 to 2026 in seconds since 2001, with the fractions NSDate carries.
        let time: Double? = random.chance(6) ? nil : 662_688_000 + Double(random.next() % 157_680_000_000) / 1000 + 0.000_123
        entries.append((key, FirstTimeRecord(lastVersion: version, lastTime: time)))
    }
    entries.shuffle(using: &random)
    return entries
}

/// An archive of `makeEntries(count)` in Apple's layout (`LegacyArchive.encode`), its entries
/// in the archiver's order: the records are handed over in that order (`init(sorted:)`, not
/// sorted on purpose), so the group's keys, its records and their objects are in hash order as
/// in an archive an app writes.
func archiverOrderArchive(_ count: Int) throws -> [UInt8] {
    try LegacyArchive.encode(FirstTimeRecords(sorted: makeEntries(count)), format: .binary)
}

/// An archive of `makeEntries(count)` written by Linux Foundation's `NSKeyedArchiver`, through
/// the test oracle (`foundation-oracle encode`, built beside this executable; root
/// `NSMutableDictionary`, group `NSDictionary` as Linux Foundation writes a nested dictionary,
/// the record class renamed as Apple writes it), hashing with a fixed seed so every run writes
/// the same bytes. Nil when the oracle is not built
/// (`swift build -c release --product foundation-oracle`) or fails.
func foundationArchive(_ count: Int, at file: URL) -> [UInt8]? {
    let oracle = selfExecutable.deletingLastPathComponent().appendingPathComponent("foundation-oracle")
    guard FileManager.default.isExecutableFile(atPath: oracle.path) else { return nil }
    func hex(_ text: String) -> String { text.utf8.map { String(format: "%02x", $0) }.joined() }
    var lines = "root NSMutableDictionary\ngroup NSDictionary\n"
    for (key, record) in makeEntries(count) {
        lines += "record \(hex(key)) \(record.lastVersion.map(hex) ?? "-") \(record.lastTime.map { String($0.bitPattern, radix: 16) } ?? "-")\n"
    }
    let process = Process()
    process.executableURL = oracle
    process.arguments = ["encode", file.path]
    process.environment = ProcessInfo.processInfo.environment.merging(["SWIFT_DETERMINISTIC_HASHING": "1"]) { _, new in new }
    let input = Pipe()
    process.standardInput = input
    guard (try? process.run()) != nil else { return nil }
    input.fileHandleForWriting.write(Data(lines.utf8))
    try? input.fileHandleForWriting.close()
    process.waitUntilExit()
    guard process.terminationStatus == 0, let data = try? Data(contentsOf: file) else { return nil }
    return Array(data)
}

/// A binary defaults file of `keys` unrelated keys (integers, strings, reals, booleans) with a
/// 20-record `YCFirstTime` archive in the middle.
func makeDefaultsFile(keys: Int) throws -> [UInt8] {
    var entries: [(key: String, value: PlistValue)] = []
    entries.reserveCapacity(keys + 1)
    for i in 0..<keys {
        let value: PlistValue
        switch i % 4 {
        case 0: value = .integer(.signed(Int64(i)))
        case 1: value = .string("value \(i)")
        case 2: value = .real(Double(i) / 7)
        default: value = .bool(i % 3 == 0)
        }
        entries.append(("com.example.setting.\(i)", value))
    }
    entries.insert(("YCFirstTime", .data(try archiverOrderArchive(20))), at: keys / 2)
    return try PropertyList.write(.dictionary(PlistDictionary(entries)), format: .binary)
}

// MARK: Measuring

nonisolated(unsafe) var sink: UInt64 = 0

struct Sample {
    var median: Double
    var min: Double
}

/// One timed run of `body` (seconds), ending with `ycft_bench_settle()` inside the timing: glibc
/// merges freed small blocks only at the next larger allocation, so without it an operation that
/// frees a libplist tree (the floor, decode) leaves that work to whatever runs next: a parse that
/// follows a freed tree executes measurably more instructions (callgrind counts in
/// docs/performance.md). In rounds, the floor's share fell on the ycft operation after it, and
/// ycft's on nothing, since its own large frees settle it.
func timed(_ body: () throws -> UInt64) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    sink &+= try body()
    sink &+= ycft_bench_settle()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

func measure(samples: Int, warmup: Bool = true, _ body: () throws -> UInt64) rethrows -> Sample {
    if warmup { _ = try timed(body) }
    var times: [Double] = []
    for _ in 0..<samples { times.append(try timed(body)) }
    times.sort()
    return Sample(median: times[times.count / 2], min: times[0])
}

/// Operations timed side by side: each round runs every operation once (starting with a
/// different one each round), after one warm-up round. `ratio(i)` is the median over rounds of
/// operation i's time over operation 0's (the baseline) in the same round, so load that comes
/// and goes moves both sides of each ratio alike, where a floor timed in a block of its own moved
/// a lot between blocks (docs/performance.md).
struct Rounds {
    var samples: [Sample]
    private var ratios: [[Double]]

    init(rounds: Int, _ operations: [() throws -> UInt64]) throws {
        for operation in operations { _ = try timed(operation) }
        var times = [[Double]](repeating: [], count: operations.count)
        for round in 0..<rounds {
            for k in 0..<operations.count {
                let i = (round + k) % operations.count
                times[i].append(try timed(operations[i]))
            }
        }
        samples = times.map { t in
            let sorted = t.sorted()
            return Sample(median: sorted[sorted.count / 2], min: sorted[0])
        }
        ratios = times.map { t in zip(t, times[0]).map { $0 / $1 }.sorted() }
    }

    /// Operation i's time over the baseline's, the median over rounds.
    func ratio(_ i: Int) -> Double { ratios[i][ratios[i].count / 2] }

    /// The same, as text (`1.23×`).
    func ratioText(_ i: Int) -> String { String(format: "%.2f×", ratio(i)) }
}

/// Peak RSS (KiB) of this executable run as a child with `--child MODE FILE`. The child reports
/// its own VmHWM: `ru_maxrss` from `wait4` would include the parent's peak, which Linux copies
/// into the child's accounting at exec.
/// This executable, for the child runs (`--child MODE FILE`).
let selfExecutable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()

/// A child run of this executable in `mode` on `file`, not started.
func childProcess(_ mode: String, _ file: String) -> Process {
    let process = Process()
    process.executableURL = selfExecutable
    process.arguments = ["--child", mode, file]
    return process
}

func peakMemory(_ mode: String, _ file: String) -> Int {
    let process = childProcess(mode, file)
    let pipe = Pipe()
    process.standardOutput = pipe
    guard (try? process.run()) != nil else { return -1 }
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return Int(output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
}

/// CPU time (user + system) of one child run (`--child MODE FILE`), start-up and reading the
/// file included: the child's share of `RUSAGE_CHILDREN` once it has been waited for. CPU time
/// rather than wall time, because a child's wall time moved with the machine's load far more
/// than its CPU time (what `perf stat` calls task-clock) did (docs/performance.md); for a
/// single-threaded child that does not wait on I/O the two are the same work.
func childCPUSeconds(_ mode: String, _ file: String) -> Double {
    func cpu() -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_CHILDREN.rawValue), &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }
    let process = childProcess(mode, file)
    process.standardOutput = FileHandle.nullDevice
    let before = cpu()
    guard (try? process.run()) != nil else { return .nan }
    process.waitUntilExit()
    return process.terminationStatus == 0 ? cpu() - before : .nan
}

/// The operations run as separate processes, the way a user runs `ycft dump FILE`: each round
/// runs a child that only starts and reads the file, the floor's child, and one child per
/// operation (in a different order each round). An operation's time is its child's CPU time
/// less the start-up child's of that round; its ratio, the median over rounds of that net time
/// over the floor's. Each child starts with a fresh heap, as a command does; in one long process
/// the floor gains far more from the warm heap than ycft does. `kept` is each ratio against the
/// floor that leaves its tree to the exit as ycft does (`floor-kept`): like for like.
func processRounds(_ rounds: Int, _ file: String, _ modes: [String]) -> (net: [String: Double], ratio: [String: Double], kept: [String: Double]) {
    let all = ["noop", "floor", "floor-kept"] + modes
    var times: [String: [Double]] = [:]
    for round in 0..<rounds {
        for k in 0..<all.count {
            let mode = all[(round + k) % all.count]
            times[mode, default: []].append(childCPUSeconds(mode, file))
        }
    }
    func median(_ values: [Double]) -> Double { let v = values.sorted(); return v[v.count / 2] }
    func netOf(_ mode: String) -> [Double] { zip(times[mode, default: []], times["noop", default: []]).map { $0 - $1 } }
    let floors = netOf("floor"), keptFloors = netOf("floor-kept")
    var net: [String: Double] = [:], ratio: [String: Double] = [:], kept: [String: Double] = [:]
    for mode in all where mode != "noop" {
        let perRound = netOf(mode)
        net[mode] = median(perRound)
        ratio[mode] = median(zip(perRound, floors).map { $0 / $1 })
        kept[mode] = median(zip(perRound, keptFloors).map { $0 / $1 })
    }
    return (net, ratio, kept)
}

/// This process's peak resident set (VmHWM), in KiB.
func ownPeakKiB() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
          let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }) else { return -1 }
    return Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]) ?? -1
}

func format(_ s: Double) -> String {
    s >= 1 ? String(format: "%.2f s", s) : s >= 0.001 ? String(format: "%.1f ms", s * 1000) : String(format: "%.0f µs", s * 1e6)
}

// MARK: Operations

func floor(_ bytes: [UInt8]) -> UInt64 {
    bytes.withUnsafeBufferPointer { buffer in
        buffer.withMemoryRebound(to: CChar.self) { ycft_bench_parse_visit_free($0.baseAddress, UInt32($0.count)) }
    }
}

/// The floor without its free: the tree left to the process's exit, as `ycft` leaves its own.
func floorKept(_ bytes: [UInt8]) -> UInt64 {
    bytes.withUnsafeBufferPointer { buffer in
        buffer.withMemoryRebound(to: CChar.self) { ycft_bench_parse_visit_keep($0.baseAddress, UInt32($0.count)) }
    }
}

func parseOnly(_ bytes: [UInt8]) -> UInt64 {
    bytes.withUnsafeBufferPointer { buffer in
        buffer.withMemoryRebound(to: CChar.self) { ycft_bench_parse_free($0.baseAddress, UInt32($0.count)) }
    }
}

func guardedParseOnly(_ bytes: [UInt8]) -> UInt64 {
    (try? PlistDocument(bytes, limits: PlistLimits(maxInputSize: 1 << 31))).map { $0.format == .binary ? 1 : 2 } ?? 0
}

/// The guard pass over binary bytes, alone: the part of every ycft read that the floor does not
/// do and that cannot be skipped (libplist 2.2.0 crashes, hangs or changes strings without it).
func guardPass(_ bytes: [UInt8]) -> UInt64 {
    bytes.withUnsafeBytes { raw in
        var scanner = BinaryPlistScanner(bytes: raw, limits: PlistLimits(maxInputSize: 1 << 31))
        return (try? scanner.scan()).map { UInt64($0.objectCount) } ?? 0
    }
}

func decode(_ bytes: [UInt8]) throws -> UInt64 {
    UInt64(try ArchiveReader.decode(bytes, limits: PlistLimits(maxInputSize: 1 << 31)).count)
}

/// `ycft dump FILE` in process, standard output counted and thrown away.
func dump(_ path: String) -> UInt64 {
    let counter = ByteCounter()
    var io = CommandIO.live
    io.writeStdout = { counter.add($0.count) }
    io.writeStderr = { _ in }
    let status = Ycft.run(["dump", "--max-input-size", "4095M", path], io: io)
    precondition(status == 0, "dump failed")
    return counter.value
}

final class ByteCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count: UInt64 = 0
    func add(_ n: Int) { lock.withLock { count &+= UInt64(n) } }
    var value: UInt64 { lock.withLock { count } }
}

final class YCFirstTimeObject: NSObject, NSSecureCoding {
    static var supportsSecureCoding: Bool { true }
    var lastVersion: NSString?
    var lastTime: NSDate?
    init?(coder: NSCoder) {
        lastVersion = coder.decodeObject(of: NSString.self, forKey: "lastVersion")
        lastTime = coder.decodeObject(of: NSDate.self, forKey: "lastTime")
    }
    func encode(with coder: NSCoder) {}
}

/// Linux Foundation's NSKeyedUnarchiver to records (the class mapping the tests use).
func foundationDecode(_ bytes: [UInt8]) throws -> UInt64 {
    NSKeyedUnarchiver.setClass(YCFirstTimeObject.self, forClassName: "YCFirstTimeObject")
    let root = try NSKeyedUnarchiver.unarchivedObject(
        ofClasses: [NSMutableDictionary.self, NSDictionary.self, NSString.self, NSDate.self, YCFirstTimeObject.self],
        from: Data(bytes)) as? NSDictionary
    let group = root?.object(forKey: "sharedGroup") as? NSDictionary
    var records: [(key: String, record: FirstTimeRecord)] = []
    group?.forEach { key, value in
        if let key = key as? String, let object = value as? YCFirstTimeObject {
            records.append((key, FirstTimeRecord(lastVersion: object.lastVersion as String?,
                                                 lastTime: object.lastTime?.timeIntervalSinceReferenceDate)))
        }
    }
    return UInt64(records.count)
}

// MARK: A batch of small files

/// `count` small defaults files in `dir`, as exported preferences are: a launch count, a name and
/// a YCFirstTime archive of 3 to 7 records (about 600 bytes each), in 100 folders.
func writeDefaultsBatch(_ count: Int, to dir: URL) throws {
    for i in 0..<count {
        let archive = try archiverOrderArchive(3 + i % 5)
        let file = PlistValue.dictionary(PlistDictionary([
            ("LaunchCount", .integer(.signed(Int64(i)))), ("YCFirstTime", .data(archive)), ("Name", .string("user \(i)")),
        ]))
        let sub = dir.appendingPathComponent(String(format: "%03d", i % 100))
        try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
        try Data(try PropertyList.write(file, format: .binary)).write(to: sub.appendingPathComponent("\(i).plist"))
    }
}

/// `ycft migrate --to records -o OUT --jobs 2` of the batch in `dir`, in this process.
func migrateBatch(_ dir: String, to out: String) {
    var io = CommandIO.live
    io.writeStderr = { _ in }
    io.writeStdout = { _ in }
    let status = Ycft.run(["migrate", "--to", "records", "-o", out, "--jobs", "2", "--quiet", dir], io: io)
    precondition(status == 0, "migrate of the batch failed")
}

/// This process's CPU time so far (user + system, every thread), in seconds.
func ownCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

/// The batch against a durable copy of the same files, `cp -r DIR OUT` then `sync -f OUT` (one
/// `syncfs` of the copy's file system: every file's data and folder on disk, as migrate's group
/// commit flushes its files), in the same rounds: each round runs both, the copy first in even
/// rounds, each into a new folder, after one round to warm up. Wall time, and CPU time (the
/// children's for the copy, this process's for migrate), which the machine's load moves less;
/// a ratio is the median of the rounds' ratios. Beside them, libplist's share of any migration
/// built on it: each file read and parsed with its archive, one thread, nothing written
/// (`ycft_bench_defaults_floor`). No output is deleted before the last round:
/// ext4 passes over recently deleted inodes when it allocates one (the batch above).
func batchTable(files count: Int, rounds: Int, work: URL) throws {
    let dir = work.appendingPathComponent("batch-\(count)")
    try writeDefaultsBatch(count, to: dir)
    let bytes = (try FileManager.default.subpathsOfDirectory(atPath: dir.path)).reduce(0) { total, name in
        total + ((try? FileManager.default.attributesOfItem(atPath: dir.path + "/" + name)).flatMap { attributes in
            attributes[.type] as? FileAttributeType == .typeRegular ? attributes[.size] as? Int : nil
        } ?? 0)
    }
    var outputs: [String] = []
    func output() -> String {
        outputs.append(work.appendingPathComponent("batch-out-\(outputs.count)").path)
        return outputs[outputs.count - 1]
    }
    func copy() -> (wall: Double, cpu: Double) {
        let out = output()
        guard let copied = spawnTimes(["/usr/bin/cp", "-r", dir.path, out]), let synced = spawnTimes(["/usr/bin/sync", "-f", out]) else {
            preconditionFailure("cp -r or sync -f failed")
        }
        return (copied.wall + synced.wall, copied.cpu + synced.cpu)
    }
    func migrate() -> (wall: Double, cpu: Double) {
        let out = output(), cpu = ownCPUSeconds(), start = DispatchTime.now().uptimeNanoseconds
        migrateBatch(dir.path, to: out)
        return (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9, ownCPUSeconds() - cpu)
    }
    // libplist's share of a migration, whatever the tool: each file read, parsed, its archive
    // parsed, both trees freed, one thread, nothing written (the files were just read: cached).
    let files = (try FileManager.default.subpathsOfDirectory(atPath: dir.path)).sorted().map { dir.path + "/" + $0 }.filter { $0.hasSuffix(".plist") }
    func parseFloor() -> (wall: Double, cpu: Double) {
        let cpu = ownCPUSeconds(), start = DispatchTime.now().uptimeNanoseconds
        var parsed: UInt64 = 0
        for file in files { parsed += ycft_bench_defaults_floor(file) }
        precondition(parsed == UInt64(count), "libplist did not parse every file of the batch")
        return (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9, ownCPUSeconds() - cpu)
    }
    _ = (copy(), migrate(), parseFloor())
    var copies: [(wall: Double, cpu: Double)] = [], migrates: [(wall: Double, cpu: Double)] = [], floors: [(wall: Double, cpu: Double)] = []
    for round in 0..<rounds {
        if round % 2 == 0 {
            copies.append(copy())
            migrates.append(migrate())
        } else {
            migrates.append(migrate())
            copies.append(copy())
        }
        floors.append(parseFloor())
    }
    for out in outputs { try? FileManager.default.removeItem(atPath: out) }
    func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
    func perFile(_ seconds: Double) -> String { String(format: "%.1f µs", seconds / Double(count) * 1e6) }
    let wallRatio = median(zip(migrates, copies).map { $0.wall / $1.wall }), cpuRatio = median(zip(migrates, copies).map { $0.cpu / $1.cpu })
    let floorWall = median(zip(floors, copies).map { $0.wall / $1.wall }), floorCPU = median(zip(floors, copies).map { $0.cpu / $1.cpu })
    print("")
    print("| write path: \(count) small defaults files (\(bytes / count) bytes each), \(rounds) rounds | wall time | per file | ratio "
          + "| CPU time | per file | ratio |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    print("| durable copy: cp -r, then sync -f | \(format(median(copies.map(\.wall)))) | \(perFile(median(copies.map(\.wall)))) | 1.00× "
          + "| \(format(median(copies.map(\.cpu)))) | \(perFile(median(copies.map(\.cpu)))) | 1.00× |")
    print("| ycft migrate --to records -o OUT --jobs 2 | \(format(median(migrates.map(\.wall)))) | \(perFile(median(migrates.map(\.wall)))) "
          + "| \(String(format: "%.2f×", wallRatio)) | \(format(median(migrates.map(\.cpu)))) | \(perFile(median(migrates.map(\.cpu)))) "
          + "| \(String(format: "%.2f×", cpuRatio)) |")
    print("| libplist alone: read, parse each file and its archive, free (1 thread, no write) | \(format(median(floors.map(\.wall)))) "
          + "| \(perFile(median(floors.map(\.wall)))) | \(String(format: "%.2f×", floorWall)) | \(format(median(floors.map(\.cpu)))) "
          + "| \(perFile(median(floors.map(\.cpu)))) | \(String(format: "%.2f×", floorCPU)) |")
}

// MARK: Child mode (peak memory)

let arguments = Array(CommandLine.arguments.dropFirst())

// What it accepts, checked before anything runs: a mistyped flag (`--help` was one) used to
// start the whole benchmark, minutes of it.
let usage = """
    usage: ycft-bench [--quick]                 the timed tables (a few minutes; --quick: one small round)
           ycft-bench --instructions [RECORDS]  instruction counts under valgrind's callgrind
           ycft-bench --inputs DIR [RECORDS]    write the generated inputs to DIR, then stop
           ycft-bench --startup                 start-up of ycft and startup-floor built beside it
           ycft-bench --batch [FILES]           a batch migrate of small files against a durable copy (4,000),
                                                then per file in instructions and system calls
    """
let records = { (index: Int) in arguments.count <= index || (Int(arguments[index]).map { $0 > 0 } ?? false) }
let understood = switch arguments.first {
case nil: true
case "--quick", "--startup": arguments.count == 1
case "--instructions": arguments.count <= 2 && records(1)
case "--inputs": (2...3).contains(arguments.count) && records(2)
case "--batch": arguments.count <= 2 && records(1)
case "--child": arguments.count == 3
default: false
}
if arguments.first == "--help" || arguments.first == "-h" {
    print(usage)
    exit(0)
}
if !understood {
    FileHandle.standardError.write(Data("ycft-bench: not understood: \(arguments.joined(separator: " "))\n\(usage)\n".utf8))
    exit(2)
}
if arguments.first == "--child", arguments.count == 3 {
    // A child that stands for a ycft command leaves its last tree to its exit, as `ycft` does
    // (`Ycft.main`); the floor and the stages that split decode's time free theirs. `pack`
    // stands for `ycft pack`, which reads records JSON, not a property list: its child decodes
    // an archive for the records, freeing the tree as before, and its encoder is `pack` less
    // `decode-free` (the same decode).
    if ["decode", "dump", "verify", "migrate"].contains(arguments[1]) { PlistTrees.leaveLastToExit() }
    // `ycft migrate --to records -o DIR.out --jobs 2` of the batch folder DIR (the caller removes DIR.out).
    if arguments[1] == "batch" {
        migrateBatch(arguments[2], to: arguments[2] + ".out")
        exit(0)
    }
    let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: arguments[2])))
    switch arguments[1] {
    case "noop": sink &+= UInt64(bytes.count)
    case "floor": sink &+= floor(bytes)
    // The floor that leaves its tree to the exit, as a ycft command does: the like-for-like baseline.
    case "floor-kept": sink &+= floorKept(bytes)
    // The floor without its visit (libplist's parse and free), and ycft's guarded parse and free
    // (the guard, then the same): with the floor and decode, they split decode's time into the
    // guard, libplist, and ycft's conversion against the floor's visit.
    case "parse": sink &+= parseOnly(bytes)
    case "guarded-parse": sink &+= guardedParseOnly(bytes)
    // ycft's guard pass alone (what every read through libplist runs before libplist sees the bytes).
    case "guard": sink &+= guardPass(bytes)
    // Reading a file into values: guard, libplist's parse, the value tree, libplist's free.
    case "read": sink &+= UInt64(try LibPlist.read(bytes, limits: PlistLimits(maxInputSize: 1 << 31)).value.dictionaryValue?.count ?? 1)
    // The same, then the values written back as binary: the writer's share is this less `read`.
    case "rewrite":
        let value = try LibPlist.read(bytes, limits: PlistLimits(maxInputSize: 1 << 31)).value
        sink &+= UInt64(try PropertyList.write(value, format: .binary).count)
    case "decode": sink &+= try decode(bytes)
    case "dump": sink &+= dump(arguments[2])
    case "verify": sink &+= UInt64(StateFile.verify(bytes, limits: PlistLimits(maxInputSize: 1 << 31)).count + 1)
    case "decode-free": sink &+= try decode(bytes)
    case "pack": sink &+= UInt64(try LegacyArchive.encode(ArchiveReader.decode(bytes, limits: PlistLimits(maxInputSize: 1 << 31)), format: .binary).count)
    // `ycft migrate --to records` of a defaults file, in memory (the output bytes, not written).
    case "migrate":
        sink &+= UInt64(try Migration.migrate(bytes, to: .records).output?.count ?? 0)
    default: exit(2)
    }
    print(ownPeakKiB())
    exit(sink == 0 ? 1 : 0)
}

// MARK: Inputs to keep: ycft-bench --inputs DIR [RECORDS]

// The generated archives of RECORDS records (100,000 if not given) and the 4,000 files of
// `--batch`, written to DIR, to profile or time ycft on them by hand (`perf record ycft dump
// DIR/foundation-100000.plist`).
if arguments.first == "--inputs", arguments.count >= 2 {
    let dir = URL(fileURLWithPath: arguments[1])
    let size = arguments.count > 2 ? Int(arguments[2]) ?? 100_000 : 100_000
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    let apple = dir.appendingPathComponent("archive-\(size).plist"), linux = dir.appendingPathComponent("foundation-\(size).plist")
    try Data(try archiverOrderArchive(size)).write(to: apple)
    print(apple.path)
    if foundationArchive(size, at: linux) != nil { print(linux.path) }
    // The batch of `--batch` (`ycft migrate --to records -o OUT DIR/batch` by hand).
    try writeDefaultsBatch(4_000, to: dir.appendingPathComponent("batch"))
    print(dir.appendingPathComponent("batch").path)
    exit(0)
}

// MARK: Instructions (callgrind): ycft-bench --instructions [RECORDS]

/// Instructions (callgrind's `Ir`) a child run of `mode` on `file` executes, less nothing: the
/// caller subtracts the `noop` child (start-up and reading the file).
func instructions(_ mode: String, _ file: String) -> UInt64? {
    instructions([selfExecutable.path, "--child", mode, file], label: mode)
}

/// Instructions (callgrind's `Ir`) one run of `command` executes, start-up included.
func instructions(_ command: [String], label: String) -> UInt64? {
    let out = FileManager.default.temporaryDirectory.appendingPathComponent("ycft-callgrind-\(getpid())-\(label).out").path
    defer { try? FileManager.default.removeItem(atPath: out) }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    // Swift seeds its hashing per process; fixed here, so that a count is the same on every run
    // (with a random seed, pack's sharing table moved the count between two runs of the same
    // code).
    process.environment = ProcessInfo.processInfo.environment.merging(["SWIFT_DETERMINISTIC_HASHING": "1"]) { _, new in new }
    process.arguments = ["valgrind", "--tool=callgrind", "--callgrind-out-file=\(out)"] + command
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    guard (try? process.run()) != nil else { return nil }
    process.waitUntilExit()
    guard process.terminationStatus == 0, let text = try? String(contentsOfFile: out, encoding: .utf8),
          let line = text.split(separator: "\n").first(where: { $0.hasPrefix("summary:") }) else { return nil }
    return UInt64(line.dropFirst("summary:".count).trimmingCharacters(in: .whitespaces))
}

/// System calls one run of `command` makes, its threads' and children's included (`strace -f
/// -c`), by name and in all (`total`); nil when strace is not there or the command fails.
func systemCalls(_ command: [String], label: String) -> [String: Int]? {
    let out = FileManager.default.temporaryDirectory.appendingPathComponent("ycft-strace-\(getpid())-\(label).out").path
    defer { try? FileManager.default.removeItem(atPath: out) }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["strace", "-f", "-c", "-o", out] + command
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    guard (try? process.run()) != nil else { return nil }
    process.waitUntilExit()
    guard process.terminationStatus == 0, let text = try? String(contentsOfFile: out, encoding: .utf8) else { return nil }
    // Rows: % time, seconds, usecs/call, calls, [errors,] name.
    var calls: [String: Int] = [:]
    for line in text.split(separator: "\n") {
        let fields = line.split(separator: " ", omittingEmptySubsequences: true)
        guard fields.count >= 5, let name = fields.last, let count = Int(fields[3]) else { continue }
        calls[String(name)] = count
    }
    return calls["total"] == nil ? nil : calls
}

/// The write path per file, in instructions (callgrind) and system calls (strace): `ycft migrate
/// --to records -o OUT --jobs 2` of `count` small defaults files (a child of this executable, net
/// of one that only starts, `noop` on `small`), against `cp -r` of the same files then `sync -f`.
func batchCounts(files count: Int, work: URL, small: URL) throws {
    let batch = work.appendingPathComponent("batch")
    try writeDefaultsBatch(count, to: batch)
    let child = [selfExecutable.path, "--child", "batch", batch.path], copy = ["/usr/bin/cp", "-r", batch.path, batch.path + ".out"]
    let sync = ["/usr/bin/sync", "-f", batch.path + ".out"]
    func clean() { try? FileManager.default.removeItem(atPath: batch.path + ".out") }
    defer { clean() }
    print("")
    print("| write path, per file (\(count) small defaults files) | instructions | system calls |")
    print("|---|---:|---:|")
    let base = instructions("noop", small.path), ycft = instructions(child, label: "batch")
    clean()
    let baseCalls = systemCalls([selfExecutable.path, "--child", "noop", small.path], label: "noop")
    let ycftCalls = systemCalls(child, label: "batch")
    clean()
    let copyIr = instructions(copy, label: "cp"), copyCalls = systemCalls(copy, label: "cp"), syncCalls = systemCalls(sync, label: "sync")
    func perFile(_ value: Double) -> String { String(format: "%.1f", value / Double(count)) }
    let ycftIr = ycft.map { Double($0) - Double(base ?? 0) }, ycftNet = ycftCalls.map { Double($0["total"]! - (baseCalls?["total"] ?? 0)) }
    let copyNet = copyCalls.map { Double($0["total"]! + (syncCalls?["total"] ?? 0)) }
    print("| durable copy: cp -r, then sync -f | \(copyIr.map { perFile(Double($0)) } ?? "-") | \(copyNet.map(perFile) ?? "-") |")
    print("| ycft migrate --to records -o OUT --jobs 2 (net of start-up) | \(ycftIr.map(perFile) ?? "-") | \(ycftNet.map(perFile) ?? "-") |")
    // Where ycft's system calls go: those made at least once a file, most first.
    if let ycftCalls {
        let frequent = ycftCalls.filter { $0.key != "total" && $0.value >= count }.sorted { ($1.value, $0.key) < ($0.value, $1.key) }
        print("")
        print("ycft's system calls per file: " + frequent.map { "\($0.key) \(perFile(Double($0.value)))" }.joined(separator: ", "))
    }
}

// MARK: Start-up: ycft as a user starts it, against a program that only prints

/// The binaries the start-up rows run: `ycft` and `startup-floor` (a Swift program that only
/// prints a line) beside this executable, from the same `swift build -c release`, both with the
/// Swift runtime shared or both with it linked in (`--static-swift-stdlib`, as the released
/// binary is built); nil, with the reason, otherwise.
func startupBinaries() -> (ycft: String, floor: String, linkage: String, problem: String?) {
    let dir = selfExecutable.deletingLastPathComponent()
    let ycft = dir.appendingPathComponent("ycft").path, floor = dir.appendingPathComponent("startup-floor").path
    func linkage(_ path: String) -> String? {
        // A binary that loads the Swift runtime names it among its needed libraries.
        guard let bytes = FileManager.default.contents(atPath: path) else { return nil }
        return bytes.range(of: Data("libswiftCore.so".utf8)) == nil ? "Swift runtime linked in" : "Swift runtime shared"
    }
    guard let ycftLinkage = linkage(ycft), let floorLinkage = linkage(floor) else {
        return (ycft, floor, "", "no start-up rows: build ycft and startup-floor first (swift build -c release)")
    }
    guard ycftLinkage == floorLinkage else {
        return (ycft, floor, "", "no start-up rows: ycft (\(ycftLinkage)) and startup-floor (\(floorLinkage)) were built "
                + "differently; build both with the same swift build -c release command")
    }
    return (ycft, floor, ycftLinkage, nil)
}

/// Wall and CPU time (user + system, from `wait4`) of one run of `command`, its output to
/// /dev/null; nil when it cannot start or does not exit with 0.
func spawnTimes(_ command: [String]) -> (wall: Double, cpu: Double)? {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    let argv = command.map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var pid: pid_t = 0, status: Int32 = 0, usage = rusage()
    let start = DispatchTime.now().uptimeNanoseconds
    guard posix_spawn(&pid, command[0], &actions, nil, argv, environ) == 0,
          wait4(pid, &status, 0, &usage) == pid else { return nil }
    let wall = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    guard status == 0 else { return nil }
    let cpu = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    return (wall, cpu)
}

/// The start-up table: the floor program, `ycft --version`, and `ycft dump` and `ycft verify`
/// of a small archive, each run `perRound` times a round in an order that turns every round.
/// A row's time is the median over rounds of its runs' median; its ratio, the median of the
/// rounds' ratios to the floor's.
func startupTable(rounds: Int, perRound: Int, small: URL) {
    let binaries = startupBinaries()
    print("")
    if let problem = binaries.problem { print("(\(problem))"); return }
    let size = (try? FileManager.default.attributesOfItem(atPath: small.path)[.size] as? Int) ?? 0
    let rows: [(label: String, command: [String])] = [
        ("a Swift program that only prints a line (startup-floor)", [binaries.floor]),
        ("ycft --version", [binaries.ycft, "--version"]),
        ("ycft dump of a \(size)-byte archive", [binaries.ycft, "dump", small.path]),
        ("ycft verify of the same archive", [binaries.ycft, "verify", small.path]),
    ]
    func median(_ values: [Double]) -> Double { let v = values.sorted(); return v.isEmpty ? .nan : v[v.count / 2] }
    var wall = Array(repeating: [Double](), count: rows.count), cpu = wall
    for round in 0..<rounds {
        var runs = Array(repeating: [(wall: Double, cpu: Double)](), count: rows.count)
        for k in 0..<(rows.count * perRound) {
            let row = (round + k) % rows.count
            guard let times = spawnTimes(rows[row].command) else {
                print("(no start-up rows: \(rows[row].command.joined(separator: " ")) failed)")
                return
            }
            runs[row].append(times)
        }
        for row in rows.indices {
            wall[row].append(median(runs[row].map(\.wall)))
            cpu[row].append(median(runs[row].map(\.cpu)))
        }
    }
    print("Start-up, \(binaries.linkage) (\(rounds) rounds of \(perRound) runs each; medians):")
    print("")
    print("| process | wall time | ratio | CPU time | ratio |")
    print("|---|---:|---:|---:|---:|")
    for row in rows.indices {
        let wallRatio = median(zip(wall[row], wall[0]).map { $0 / $1 }), cpuRatio = median(zip(cpu[row], cpu[0]).map { $0 / $1 })
        print("| \(rows[row].label) | \(String(format: "%.2f ms", median(wall[row]) * 1000)) | \(String(format: "%.2f×", wallRatio)) "
              + "| \(String(format: "%.2f ms", median(cpu[row]) * 1000)) | \(String(format: "%.2f×", cpuRatio)) |")
    }
}

/// The same processes' instructions under callgrind (start-up included, nothing subtracted).
func startupInstructions(small: URL) {
    let binaries = startupBinaries()
    print("")
    if let problem = binaries.problem { print("(\(problem))"); return }
    print("| start-up, \(binaries.linkage) | instructions | ratio to the floor program |")
    print("|---|---:|---:|")
    guard let floorIr = instructions([binaries.floor], label: "startup-floor") else { print("| startup-floor | failed | - |"); return }
    print("| a Swift program that only prints a line (startup-floor) | \(floorIr) | 1.00× |")
    for (label, command) in [("ycft --version", ["--version"]), ("ycft dump (small archive)", ["dump", small.path]),
                             ("ycft verify (small archive)", ["verify", small.path])] {
        guard let ir = instructions([binaries.ycft] + command, label: command[0]) else { print("| \(label) | failed | - |"); continue }
        print("| \(label) | \(ir) | \(String(format: "%.2f×", Double(ir) / Double(floorIr))) |")
    }
}

if arguments.first == "--instructions" {
    let size = arguments.count > 1 ? Int(arguments[1]) ?? 100_000 : 100_000
    let work = FileManager.default.temporaryDirectory.appendingPathComponent("ycft-bench-ir-\(getpid())")
    try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
    // Removed by hand before each exit: exit() ends the process without running a defer, and
    // every run left its archives (a Foundation-written one among them) behind.
    func finish(_ status: Int32) -> Never {
        try? FileManager.default.removeItem(at: work)
        exit(status)
    }
    let file = work.appendingPathComponent("archive.plist")
    try Data(try archiverOrderArchive(size)).write(to: file)
    print("# ycft-bench --instructions: \(size) records, callgrind Ir (deterministic: load does not move it)")
    print("")
    guard let base = instructions("noop", file.path), let floorIr = instructions("floor", file.path) else {
        print("valgrind is not available (apt-get install valgrind)")
        finish(2)
    }
    let floorNet = Double(floorIr - min(floorIr, base))
    // ycft leaves the last tree it reads to the exit (PlistTrees.leaveLastToExit): the last
    // column compares with the floor that does the same.
    let keptIr = instructions("floor-kept", file.path) ?? floorIr
    let keptNet = Double(keptIr - min(keptIr, base))
    /// An operation's row: its count, net count, and ratios to both floors.
    func row(_ label: String, _ ir: UInt64?, net: Double, floorNet: Double, keptNet: Double) -> String {
        "| \(label) | \(ir.map(String.init) ?? "-") | \(Int(net)) | \(String(format: "%.2f×", net / floorNet)) | \(String(format: "%.2f×", net / keptNet)) |"
    }
    print("| operation | instructions | net of start-up and read | ratio to the libplist floor | ratio to the floor leaving its tree to the exit |")
    print("|---|---:|---:|---:|---:|")
    print("| start-up and reading the file | \(base) | - | - | - |")
    print(row("libplist floor (parse, visit, free)", floorIr, net: floorNet, floorNet: floorNet, keptNet: keptNet))
    print(row("libplist floor, its tree left to the exit as ycft leaves its (parse, visit)", keptIr, net: keptNet, floorNet: floorNet, keptNet: keptNet))
    var counts: [String: UInt64] = [:]
    if let ir = instructions("guard", file.path) {
        print(row("ycft's guard pass alone (inside each row below)", ir, net: Double(ir - min(ir, base)), floorNet: floorNet, keptNet: keptNet))
    }
    for mode in ["decode", "dump", "verify", "pack"] {
        guard let ir = instructions(mode, file.path) else { print("| \(mode) | failed | - | - | - |"); continue }
        counts[mode] = ir
        print(row("ycft \(mode)\(mode == "pack" ? " (decode + encode)" : "")", ir, net: Double(ir - min(ir, base)), floorNet: floorNet, keptNet: keptNet))
    }
    // pack's own share: the encoder, net of the decode that gives it its records. Its output is
    // the archive itself, so the floor is also the floor's parse of what pack writes.
    if let decode = instructions("decode-free", file.path), let pack = counts["pack"] {
        print(row("encode only (pack less decode)", nil, net: Double(pack - min(pack, decode)), floorNet: floorNet, keptNet: keptNet))
    }
    // The same records as Linux Foundation's NSKeyedArchiver writes them: another layout (an
    // NSDictionary group, every object's keys in hash order, a larger file), its own floor.
    let foundationFile = work.appendingPathComponent("foundation.plist")
    print("")
    if let foundationBytes = foundationArchive(size, at: foundationFile),
       let base = instructions("noop", foundationFile.path), let floorIr = instructions("floor", foundationFile.path) {
        let floorNet = Double(floorIr - min(floorIr, base))
        let keptIr = instructions("floor-kept", foundationFile.path) ?? floorIr
        let keptNet = Double(keptIr - min(keptIr, base))
        print("| archive written by Linux Foundation, \(size) records (\(foundationBytes.count >> 10) KiB) | instructions | "
              + "net of start-up and read | ratio to the libplist floor | ratio to the floor leaving its tree to the exit |")
        print("|---|---:|---:|---:|---:|")
        print(row("libplist floor (parse, visit, free)", floorIr, net: floorNet, floorNet: floorNet, keptNet: keptNet))
        print(row("libplist floor, its tree left to the exit", keptIr, net: keptNet, floorNet: floorNet, keptNet: keptNet))
        for mode in ["guard", "decode", "dump", "verify"] {
            guard let ir = instructions(mode, foundationFile.path) else { print("| \(mode) | failed | - | - | - |"); continue }
            print(row(mode == "guard" ? "ycft's guard pass alone" : "ycft \(mode)", ir, net: Double(ir - min(ir, base)), floorNet: floorNet, keptNet: keptNet))
        }
    } else {
        print("(no archive written by Linux Foundation: swift build -c release --product foundation-oracle)")
    }
    // A defaults file with as many unrelated keys as the archive has records (the README's
    // large defaults file at 100,000), against libplist's floor of that file.
    let defaults = work.appendingPathComponent("defaults.plist")
    let defaultsBytes = try makeDefaultsFile(keys: size)
    try Data(defaultsBytes).write(to: defaults)
    print("")
    print("| defaults file, \(size) unrelated keys (\(defaultsBytes.count >> 10) KiB) | instructions | net of start-up and read | ratio to the libplist floor |")
    print("|---|---:|---:|---:|")
    if let base = instructions("noop", defaults.path), let floorIr = instructions("floor", defaults.path),
       let migrate = instructions("migrate", defaults.path) {
        let floorNet = Double(floorIr - min(floorIr, base)), net = Double(migrate - min(migrate, base))
        print("| libplist floor (parse, visit, free) | \(floorIr) | \(Int(floorNet)) | 1.00× |")
        if let ir = instructions("guard", defaults.path) {
            let guardNet = Double(ir - min(ir, base))
            print("| ycft's guard pass alone | \(ir) | \(Int(guardNet)) | \(String(format: "%.2f×", guardNet / floorNet)) |")
        }
        if let ir = instructions("read", defaults.path) {
            let readNet = Double(ir - min(ir, base))
            print("| reading the file into values (guard, libplist's parse and free, the value tree) | \(ir) | \(Int(readNet)) | \(String(format: "%.2f×", readNet / floorNet)) |")
            // What writing a file of this size costs ycft's writer: any migrate of this file writes
            // one (the output keeps every unrelated key).
            if let rewrite = instructions("rewrite", defaults.path) {
                let writeNet = Double(rewrite - min(rewrite, ir))
                print("| writing those values back as binary (the writer alone: read and write, less read) | \(rewrite) | \(Int(writeNet)) | \(String(format: "%.2f×", writeNet / floorNet)) |")
            }
        }
        print("| ycft migrate --to records (in memory) | \(migrate) | \(Int(net)) | \(String(format: "%.2f×", net / floorNet)) |")
    } else {
        print("| migrate | failed | - | - |")
    }
    let small = work.appendingPathComponent("small.plist")
    try Data(try archiverOrderArchive(3)).write(to: small)
    try batchCounts(files: 1_000, work: work, small: small)
    startupInstructions(small: small)
    finish(0)
}

// MARK: Main

if arguments.first == "--batch" {
    let work = FileManager.default.temporaryDirectory.appendingPathComponent("ycft-bench-batch-\(getpid())")
    try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
    try batchTable(files: arguments.count > 1 ? Int(arguments[1]) ?? 4_000 : 4_000, rounds: 9, work: work)
    // The same per file in instructions and system calls, where valgrind and strace are installed.
    let small = work.appendingPathComponent("small.plist")
    try Data(try archiverOrderArchive(3)).write(to: small)
    try batchCounts(files: 1_000, work: work, small: small)
    try? FileManager.default.removeItem(at: work)
    exit(0)
}

if arguments.first == "--startup" {
    let small = FileManager.default.temporaryDirectory.appendingPathComponent("ycft-bench-small-\(getpid()).plist")
    try Data(try archiverOrderArchive(3)).write(to: small)
    startupTable(rounds: 15, perRound: 20, small: small)
    try? FileManager.default.removeItem(at: small)
    exit(0)
}

let quick = arguments.contains("--quick")
let sizes = quick ? [1_000] : [1, 1_000, 100_000, 1_000_000]
// 9 rounds: with 5, the median ratio of decode at 100,000 records moved by 0.07 between runs.
let samples = quick ? 1 : 9
let work = FileManager.default.temporaryDirectory.appendingPathComponent("ycft-bench-\(getpid())")
try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: work) }

print("# ycft-bench\(quick ? " (quick: one small sample; not for numbers)" : "")")
print("")
print("machine: \(ProcessInfo.processInfo.activeProcessorCount) cores, \(ProcessInfo.processInfo.physicalMemory >> 20) MiB; "
      + "samples: \(samples) rounds (1,000,000 records: 3) after one warm-up; times are medians (min in brackets); "
      + "each round runs the floor and the operations it is compared with, and a ratio is the median of the rounds' ratios")
print("")
print("| records | archive | libplist floor | ycft decode | ratio | ycft dump | ratio | Linux Foundation | ycft speed-up |")
print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")

var decodeBySize: [Int: Double] = [:], floorBySize: [Int: Double] = [:]
var archive100k: URL?
// Every size in Apple's layout, then the same records as Linux Foundation's archiver writes them.
var inputs: [(label: String, size: Int, file: URL)] = []
for size in sizes {
    let file = work.appendingPathComponent("archive-\(size).plist")
    try Data(try archiverOrderArchive(size)).write(to: file)
    if size == 100_000 || (quick && size == 1_000) { archive100k = file }
    inputs.append(("\(size)", size, file))
}
let foundationSize = quick ? 1_000 : 100_000
let foundationFile = work.appendingPathComponent("foundation-\(foundationSize).plist")
let foundationWritten = foundationArchive(foundationSize, at: foundationFile) != nil
if foundationWritten {
    inputs.append(("\(foundationSize), written by Linux Foundation", foundationSize, foundationFile))
} else {
    FileHandle.standardError.write(Data("(no archive written by Linux Foundation: swift build -c release --product foundation-oracle)\n".utf8))
}
for (label, size, file) in inputs {
    let bytes = Array(try Data(contentsOf: file))
    let n = size >= 1_000_000 ? 3 : samples
    let rounds = try Rounds(rounds: n, [{ floor(bytes) }, { try decode(bytes) }, { dump(file.path) }])
    let (floorTime, decodeTime, dumpTime) = (rounds.samples[0], rounds.samples[1], rounds.samples[2])
    if file != foundationFile {
        decodeBySize[size] = decodeTime.median
        floorBySize[size] = floorTime.median
    }
    var foundationText = "-", speedup = "-"
    if size <= 100_000 {
        let f = try measure(samples: size >= 100_000 ? 3 : n) { try foundationDecode(bytes) }
        foundationText = "\(format(f.median)) [\(format(f.min))]"
        speedup = String(format: "%.1f×", f.median / decodeTime.median)
    }
    print("| \(label) | \(bytes.count >> 10) KiB | \(format(floorTime.median)) [\(format(floorTime.min))] | "
          + "\(format(decodeTime.median)) [\(format(decodeTime.min))] | \(rounds.ratioText(1)) | "
          + "\(format(dumpTime.median)) [\(format(dumpTime.min))] | \(rounds.ratioText(2)) | "
          + "\(foundationText) | \(speedup) |")
}
if let big = decodeBySize[1_000_000], let mid = decodeBySize[100_000], let floorBig = floorBySize[1_000_000],
   let floorMid = floorBySize[100_000] {
    // The floor's own growth beside it: a tree ten times larger misses the caches more, for libplist too.
    print("")
    print("linear growth: decode of 1,000,000 records costs \(String(format: "%.1f×", big / mid)) the 100,000-record decode "
          + "(the floor: \(String(format: "%.1f×", floorBig / floorMid)))")
}

// pack, verify, peak memory on the 100,000-record archive (1,000 in quick mode)
if let file = archive100k {
    let bytes = Array(try Data(contentsOf: file))
    let records = try ArchiveReader.decode(bytes)
    print("")
    print("| operation (\(records.count) records) | ycft | baseline | ratio |")
    print("|---|---:|---:|---:|")
    let ops = try Rounds(rounds: samples, [
        { floor(bytes) },
        { UInt64(try LegacyArchive.encode(records, format: .binary).count) },
        { guardPass(bytes) },
        { UInt64(StateFile.verify(bytes).count + 1) },
    ])
    let (floorTime, pack, guardTime, verify) = (ops.samples[0], ops.samples[1], ops.samples[2], ops.samples[3])
    // libplist's own writer is quadratic (its time on 100,000 records is in docs/performance.md)
    // and is only there to show the order of magnitude: three runs (one in quick mode), no
    // warm-up to drop.
    var toBin = [Double]()
    for _ in 0..<(quick ? 1 : 3) {
        var seconds = 0.0
        let total = bytes.withUnsafeBufferPointer { b in
            b.withMemoryRebound(to: CChar.self) { ycft_bench_to_bin($0.baseAddress, UInt32($0.count), 1, &seconds) }
        }
        sink &+= total
        toBin.append(seconds)
    }
    toBin.sort()
    let toBinMedian = toBin[toBin.count / 2]
    print("| pack (records → archive bytes) | \(format(pack.median)) | \(format(toBinMedian)) libplist `plist_to_bin` of the same tree | \(String(format: "%.2f×", pack.median / toBinMedian)) |")
    // pack writes exactly these bytes: its floor is libplist reading them back.
    print("| pack (records → archive bytes) | \(format(pack.median)) | \(format(floorTime.median)) libplist floor of the bytes it writes | \(ops.ratioText(1)) |")
    print("| ycft's guard pass alone (part of decode, dump, verify) | \(format(guardTime.median)) | \(format(floorTime.median)) libplist floor | \(ops.ratioText(2)) |")
    print("| verify | \(format(verify.median)) | \(format(floorTime.median)) libplist floor | \(ops.ratioText(3)) |")
    // The same as separate processes (fresh heap each), net of start-up and reading the file;
    // not in quick mode, whose 1,000 records take less time than start-up varies by.
    let processes = quick ? (net: [:], ratio: [:], kept: [:])
        : processRounds(9, file.path, ["decode", "dump", "verify", "pack", "decode-free"])
    /// One row per mode: its child's CPU time, the floor's child's, the ratio; then the same
    /// against the floor that leaves its tree to the exit, as ycft does.
    func processRows(_ processes: (net: [String: Double], ratio: [String: Double], kept: [String: Double]), of what: String) {
        for mode in ["decode", "dump", "verify"] {
            guard let net = processes.net[mode], let floorNet = processes.net["floor"], let ratio = processes.ratio[mode] else { continue }
            print("| \(mode)\(what), as a separate process (CPU time) | \(format(net)) | \(format(floorNet)) libplist floor's process | "
                  + "\(String(format: "%.2f×", ratio)) |")
        }
        for mode in ["decode", "dump", "verify"] {
            guard let net = processes.net[mode], let floorNet = processes.net["floor-kept"], let ratio = processes.kept[mode] else { continue }
            print("| \(mode)\(what), as a separate process, like for like (CPU time) | \(format(net)) | \(format(floorNet)) "
                  + "the floor's process leaving its tree to the exit, as ycft does | \(String(format: "%.2f×", ratio)) |")
        }
    }
    processRows(processes, of: "")
    // What leaving the tree saves, in the same run: the decode that frees it, as a library does.
    if let net = processes.net["decode-free"], let floorNet = processes.net["floor"], let ratio = processes.ratio["decode-free"] {
        print("| decode freeing its tree, as a library does, as a separate process (CPU time) | \(format(net)) | \(format(floorNet)) libplist floor's process | "
              + "\(String(format: "%.2f×", ratio)) |")
    }
    // The archive Linux Foundation wrote, against the floor's process on that file.
    if foundationWritten && !quick {
        processRows(processRounds(9, foundationFile.path, ["decode", "dump", "verify"]), of: " of the archive Linux Foundation wrote")
    }
    // pack's child decodes (freeing the tree) and then encodes: its encoder is pack less the
    // same decode (decode-free).
    if !quick {
        let encode = processes.net["pack"]! - processes.net["decode-free"]!
        print("| pack's encoder, as a separate process (CPU time, pack less the same decode) | \(format(encode)) | \(format(processes.net["floor"]!)) "
              + "libplist floor's process on the bytes it writes | \(String(format: "%.2f×", encode / processes.net["floor"]!)) |")
    }
    let floorRSS = peakMemory("floor", file.path), decodeRSS = peakMemory("decode", file.path), dumpRSS = peakMemory("dump", file.path)
    print("| peak memory, decode | \(decodeRSS >> 10) MiB | \(floorRSS >> 10) MiB libplist floor | \(String(format: "%.2f×", Double(decodeRSS) / Double(floorRSS))) |")
    print("| peak memory, dump | \(dumpRSS >> 10) MiB | \(floorRSS >> 10) MiB libplist floor | \(String(format: "%.2f×", Double(dumpRSS) / Double(floorRSS))) |")
}

// migrate of one large defaults file: 100,000 unrelated keys beside a small archive
do {
    let keys = quick ? 1_000 : 100_000
    let bytes = try makeDefaultsFile(keys: keys)
    let limits = PlistLimits(maxInputSize: 1 << 31)
    // Where migrate's time goes: the guard, then reading every value out of libplist's tree
    // (both needed before anything can be written), then the rest (the plan and the writer).
    let ops = try Rounds(rounds: samples, [
        { floor(bytes) },
        { UInt64(try Migration.migrate(bytes, to: .records).output?.count ?? 0) },
        { guardPass(bytes) },
        { UInt64(try LibPlist.read(bytes, limits: limits).value.dictionaryValue?.count ?? 0) },
    ])
    let (floorTime, migrate, guardTime, readTime) = (ops.samples[0], ops.samples[1], ops.samples[2], ops.samples[3])
    print("")
    print("| operation | ycft | baseline | ratio |")
    print("|---|---:|---:|---:|")
    print("| migrate --to records, defaults file with \(keys) unrelated keys (\(bytes.count >> 10) KiB) | \(format(migrate.median)) | "
          + "\(format(floorTime.median)) libplist floor of the file | \(ops.ratioText(1)) |")
    print("| of which: the guard pass alone | \(format(guardTime.median)) | \(format(floorTime.median)) | \(ops.ratioText(2)) |")
    print("| of which: reading the file into values (guard, libplist, values) | \(format(readTime.median)) | \(format(floorTime.median)) | \(ops.ratioText(3)) |")
    if !quick {
        let defaultsFile = work.appendingPathComponent("defaults-\(keys).plist")
        try Data(bytes).write(to: defaultsFile)
        let processes = processRounds(9, defaultsFile.path, ["migrate"])
        print("| migrate --to records, as a separate process (CPU time; in memory, no write) | \(format(processes.net["migrate"]!)) | "
              + "\(format(processes.net["floor"]!)) libplist floor's process | \(String(format: "%.2f×", processes.ratio["migrate"]!)) |")
    }
}

// migrate: a directory of small defaults files, 1 job and 2 jobs
do {
    let count = quick ? 200 : 10_000
    let dir = work.appendingPathComponent("defaults")
    try writeDefaultsBatch(count, to: dir)
    var dry: [Int: Double] = [:]
    for jobs in [1, 2] {
        var times: [Double] = []
        for _ in 0..<(quick ? 1 : 3) {
            var io = CommandIO.live
            io.writeStderr = { _ in }
            io.writeStdout = { _ in }
            let start = DispatchTime.now().uptimeNanoseconds
            precondition(Ycft.run(["migrate", "--dry-run", "--jobs", "\(jobs)", dir.path], io: io) == 0)
            times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
        }
        times.sort()
        dry[jobs] = times[times.count / 2]
    }
    // Timed runs alternate 1 and 2 jobs, each into a new directory, and no output is deleted
    // until all have run: ext4 avoids reusing inodes deleted in the last 60-300 seconds, and a
    // batch written just after 10,000 files were deleted spent most of its time in the kernel
    // scanning past them (`recently_deleted` under `ext4_tmpfile`, seen with perf), which made
    // whichever run followed a deletion the slower one.
    var timings: [Int: [Double]] = [1: [], 2: []]
    var outputs: [URL] = []
    for round in 0..<(quick ? 1 : 3) {
        for jobs in [1, 2] {
            let out = work.appendingPathComponent("out-\(jobs)-\(round)")
            outputs.append(out)
            var io = CommandIO.live
            io.writeStderr = { _ in }
            let start = DispatchTime.now().uptimeNanoseconds
            let status = Ycft.run(["migrate", "-o", out.path, "--jobs", "\(jobs)", dir.path], io: io)
            timings[jobs, default: []].append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
            precondition(status == 0)
        }
    }
    for out in outputs { try? FileManager.default.removeItem(at: out) }
    var results: [Int: Double] = [:]
    for (jobs, times) in timings { results[jobs] = times.sorted()[times.count / 2] }
    print("")
    print("migrate --to records of \(count) small defaults files: 1 job \(format(results[1]!)) "
          + "(\(String(format: "%.2f", results[1]! / Double(count) * 1000)) ms per file), 2 jobs \(format(results[2]!)) "
          + "(\(String(format: "%.2f", results[2]! / Double(count) * 1000)) ms per file); speed-up \(String(format: "%.2f×", results[1]! / results[2]!))")
    print("the same with --dry-run (decode and re-encode, no writes): 1 job \(format(dry[1]!)), 2 jobs \(format(dry[2]!)); "
          + "speed-up \(String(format: "%.2f×", dry[1]! / dry[2]!))")
}

// The write path: a batch of small files against a durable copy of them.
try batchTable(files: quick ? 200 : 4_000, rounds: quick ? 1 : 9, work: work)
FileHandle.standardError.write(Data("(sink \(sink % 10))\n".utf8))

let small = work.appendingPathComponent("small.plist")
try Data(try archiverOrderArchive(3)).write(to: small)
startupTable(rounds: quick ? 2 : 15, perRound: quick ? 3 : 20, small: small)
