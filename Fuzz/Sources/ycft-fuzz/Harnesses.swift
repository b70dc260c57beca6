// One libFuzzer harness per ycft entry point. The target is chosen by the first argument;
// the rest goes to libFuzzer. Every harness asserts the properties ycft promises: no crash,
// no hang, and decoded data that survives a round trip exactly.

import FirstTimeArchive
import FirstTimeCore
import KeyedArchive
import OrderedJSON
import PhoneBackup
import Plist
import PlistCore

#if YCFT_FUZZ
// libFuzzer's C entry point, under its C name. Only Scripts/fuzz.sh's build (with
// -sanitize=fuzzer and -DYCFT_FUZZ) links libFuzzer; the package's ordinary build compiles the
// harnesses without it, so they keep compiling against the code they exercise.
// swift-format-ignore: AlwaysUseLowerCamelCase
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
) -> Int32
#endif

/// The harnesses, by name.
enum Harness: String, CaseIterable {
    /// `PropertyList.read`: guarded binary and XML reading.
    case plist
    /// `LibPlist.keyedArchive(_:)`: the generic archive envelope and object table.
    case archive
    /// `LegacyArchive.decode`: records decoding (then encode and decode again: identity).
    case records
    /// `StateFile.verify`: verify.
    case verify
    /// `RecordsFormat.records(fromJSON:)`: pack's JSON input (then archive and back: identity).
    case packJSON = "pack-json"
    /// `StateFile` (classify, read) and `Migration.migrate` (every target): the defaults-file reader.
    case defaults
    /// `ArchiveDump.raw` (both modes) and `ArchiveDump.objects`: `ycft dump --raw` and `--objects`.
    case dumpRaw = "dump-raw"
    /// The XML guard against libplist: whatever the guard accepts, libplist reads with exactly
    /// the guard's value count and depth, and ycft's XML writer writes back to the same value.
    case xmlGuard = "xml-guard"
    /// `LegacyArchive.read(binary:)` (the on-device library's pure-Swift reader) against
    /// `LegacyArchive.read` (libplist): on every binary input, the same records and findings or
    /// the same error.
    case pureRead = "pure-read"
    /// `set`, `unset`, `reset` and `pack --into` run in-process on the input as a defaults file
    /// (``InPlaceHarness``): the file is untouched (refused) or holds exactly the asked change,
    /// every other key's value exactly as it was.
    case inPlace = "in-place"
    /// `KeyBag`: an encrypted backup's keybag (`BackupKeyBag`), read bounded and total; what it
    /// accepts has its iteration counts within the bounds and each class once, and, when the
    /// counts are small, unlocks (with a wrong password) without a crash.
    case keybag
    /// `Manifest.db`'s rows, structured (``ManifestHarness``): the input decoded into rows of
    /// `Files`, written by SQLite into a valid database in memory, and read as an encrypted
    /// backup's (`PhoneBackup(folder:manifestDatabase:encrypted:)`): `allPreferences()`,
    /// `preferences(of:)`, `ids(like:)` and each `MBFile` record up to its key. Every file is
    /// named by a checked fileID; nothing decrypts without a key.
    case manifest
    /// A `Manifest.db`'s raw bytes (as an encrypted backup's is, decrypted in memory) read through
    /// SQLite and queried as `backup apps` and `--backup` do, without a crash or a hang (mostly
    /// SQLite's own header checks: ``manifest`` reaches the rows).
    case manifestDB = "manifest-db"

    /// Whether any dictionary in `value` holds two keys with the same exact bytes.
    static func hasDuplicateKeys(_ value: PlistValue) -> Bool {
        switch value {
        case let .array(items): return items.contains(where: hasDuplicateKeys)
        case let .dictionary(dict):
            var seen = Set<ExactKey>()
            for (key, item) in dict {
                if !seen.insert(ExactKey(key)).inserted || hasDuplicateKeys(item) { return true }
            }
            return false
        default: return false
        }
    }

    /// Values and depth of a value as libplist's tree holds them (a `CF$UID` dictionary, which
    /// ycft reads as a UID, is two values and one level there).
    static func shape(_ value: PlistValue) -> (values: Int, depth: Int) {
        switch value {
        case .uid: return (2, 1)
        case let .array(items):
            let inner = items.map(shape)
            return (1 + inner.reduce(0) { $0 + $1.values }, 1 + (inner.map(\.depth).max() ?? 0))
        case let .dictionary(entries):
            let inner = entries.map { shape($0.value) }
            return (1 + inner.reduce(0) { $0 + $1.values }, 1 + (inner.map(\.depth).max() ?? 0))
        default: return (1, 0)
        }
    }

    /// Runs the harness on one input; fails (`fatalError`) when ycft breaks a promise.
    /// - Returns: how far the input went (``Reach``).
    func run(_ bytes: [UInt8]) -> Reach {
        switch self {
        case .plist:
            guard let read = try? LibPlist.read(bytes) else { return .early }
            // The guard alone refuses duplicate keys (the reader no longer checks again).
            guard !Self.hasDuplicateKeys(read.value) else { fatalError("a dictionary read with two equal keys") }
            // Whatever reads must write and read back to the same value (XML may refuse).
            var roundTrips = 0
            if let again = try? PropertyList.write(read.value, format: .binary) {
                guard let back = try? LibPlist.read(again), back.value == read.value else {
                    fatalError("binary round trip changed a value")
                }
                roundTrips = 1
            }
            return .subject(["values": Self.shape(read.value).values, "roundTrips": roundTrips])
        case .archive:
            guard let archive = try? LibPlist.keyedArchive(bytes) else { return .early }
            return .subject(["objects": archive.objects.count])
        case .records:
            guard let records = try? ArchiveReader.decode(bytes) else { return .early }
            let encoded = try? LegacyArchive.encode(records, format: .binary)
            guard let encoded, let back = try? ArchiveReader.decode(encoded), back == records else {
                fatalError("records did not survive encode and decode")
            }
            return .subject(["records": records.count])
        case .verify:
            return .subject(["findings": StateFile.verify(bytes).count])
        case .packJSON:
            guard let records = try? RecordsFormat.records(fromJSON: bytes) else { return .early }
            var encodes = 0
            if let encoded = try? LegacyArchive.encode(records, format: .binary) {
                guard let back = try? ArchiveReader.decode(encoded), back == records else {
                    fatalError("packed records did not decode to themselves")
                }
                encodes = 1
            }
            let text = RecordsFormat.jsonText(records)
            guard let again = try? RecordsFormat.records(fromJSON: Array(text.utf8)), again == records else {
                fatalError("JSON form did not read back to the same records")
            }
            return .subject(["records": records.count, "encodes": encodes])
        case .defaults:
            guard let file = try? StateFile(bytes) else { return .early }
            var migrated = 0
            for target in Migration.Target.allCases {
                guard let outcome = try? Migration.migrate(bytes, to: target) else { continue }
                guard let output = outcome.output else { continue }
                // A migrated file is itself migratable, and a second run changes nothing.
                guard let again = try? Migration.migrate(output, to: target) else {
                    fatalError("a migrated file could not be migrated again")
                }
                guard again.status != .migrated else { fatalError("migration is not idempotent") }
                migrated += 1
            }
            return .subject(["records": (try? file.state().records.count) ?? -1, "migrated": migrated])
        case .dumpRaw:
            guard let value = try? LibPlist.read(bytes).value else { return .early }
            var dumps = 0
            for mode in [ArchiveDump.SharedObjects.expand, .references] {
                if let json = try? ArchiveDump.raw(value, shared: mode) {
                    let text = json.text()
                    guard (try? JSON.parse(Array(text.utf8), maxDepth: 100_000)) != nil else {
                        fatalError("dump --raw printed JSON that does not parse")
                    }
                    dumps += 1
                }
            }
            let objects = (try? ArchiveDump.objects(value)) == nil ? 0 : 1
            return .subject(["rawDumps": dumps, "objectDumps": objects])
        case .xmlGuard:
            guard let guarded = try? PropertyList.xmlShape(bytes) else { return .early }
            guard let read = try? LibPlist.read(bytes) else { return .early }  // refused later: safe
            let built = Harness.shape(read.value)
            guard built.values == guarded.values, built.depth == guarded.depth else {
                fatalError("the XML guard counted \(guarded) but libplist built \(built)")
            }
            var rewritten = 0
            if let xml = try? PropertyList.write(read.value, format: .xml) {
                guard let back = try? LibPlist.read(xml), back.value == read.value else {
                    fatalError("ycft's XML writer did not write back the value the guard accepted")
                }
                rewritten = 1
            }
            return .subject(["values": guarded.values, "depth": guarded.depth, "rewritten": rewritten])
        case .pureRead:
            guard PropertyList.detectFormat(bytes) == .binary else { return .early }
            let pure = Result { () throws(FirstTimeError) in try LegacyArchive.read(binary: bytes) }
            let viaLibplist = Result { () throws(FirstTimeError) in try ArchiveReader.read(bytes) }
            switch (pure, viaLibplist) {
            case let (.success(a), .success(b)):
                guard a == b else { fatalError("the pure reader and libplist read different records or findings") }
                return .subject(["records": a.records.count])
            case let (.failure(a), .failure(b)):
                guard a == b else { fatalError("the pure reader and libplist fail differently: \(a) / \(b)") }
                return .subject(["refusedByBoth": 1])
            default:
                fatalError("one reader accepts what the other refuses: pure \(pure), libplist \(viaLibplist)")
            }
        case .inPlace:
            return InPlaceHarness.run(bytes)
        case .keybag:
            guard let keyBag = try? KeyBag(bytes) else { return .early }
            guard keyBag.dpic <= KeyBag.maxDPIC, keyBag.iterations <= KeyBag.maxITER,
                  Set(keyBag.classKeys.map(\.protectionClass)).count == keyBag.classKeys.count,
                  keyBag.classKeys.allSatisfy({ $0.wrappedKey.count == 40 }) else {
                fatalError("the keybag reader accepted counts over its bounds, a class twice or a short key")
            }
            var unlocks = 0
            if keyBag.dpic <= 1000, keyBag.iterations <= 1000 {
                _ = try? keyBag.unlock(Array("fuzz".utf8))
                unlocks = 1
            }
            return .subject(["classKeys": keyBag.classKeys.count, "unlocks": unlocks])
        case .manifest:
            return ManifestHarness.run(bytes)
        case .manifestDB:
            guard let backup = try? PhoneBackup(folder: FuzzFolder.path, manifestDatabase: bytes) else { return .early }
            var found = ["preferences": (try? backup.allPreferences().count) ?? -1, "ids": 0]
            for kind in [PhoneBackup.Container.app(""), .group("")] {
                if let ids = try? backup.ids(like: kind) { found["ids", default: 0] += ids.count }
            }
            _ = try? backup.preferences(of: .app("com.example.notes"))
            _ = try? backup.preferences(of: .group("group.com.example.shared"))
            return .subject(found)
        }
    }
}

/// How far one input went in a harness: whether it reached the harness's subject (the code
/// the harness is for), and what the subject found there, by name (records decoded,
/// preferences listed). `FuzzHarnessTests` runs every harness on a valid seed and asserts it
/// reached its subject with what the seed holds: a harness that returns early for every input
/// (as `manifest` once did, opening a folder that did not exist: 28.6 million runs, 79
/// features) fails a test instead of fuzzing nothing.
struct Reach: Equatable, CustomStringConvertible {
    /// What the subject found; nil when an earlier step refused the input.
    var found: [String: Int]?

    /// Refused before the subject (what most fuzzed inputs are, and no valid seed may be).
    static let early = Reach(found: nil)
    /// The subject ran and found this.
    static func subject(_ found: [String: Int]) -> Reach { Reach(found: found) }

    var description: String {
        guard let found else { return "returned before its subject" }
        return found.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
    }
}

nonisolated(unsafe) var selected: Harness = .plist

@_cdecl("ycft_fuzz_main")
func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    let names = Harness.allCases.map(\.rawValue).joined(separator: ", ")
    let arguments = (0..<Int(argc)).map { argv[$0].map { String(cString: $0) } ?? "" }
    // `ycft-fuzz in-place-seeds DIR`: the generated seeds of the in-place harness.
    if arguments.count == 3, arguments[1] == "in-place-seeds" {
        print("wrote \(InPlaceSeeds.write(to: arguments[2])) seeds")
        return 0
    }
    // `ycft-fuzz manifest-seeds DIR MANIFEST.DB`: the manifest harness's rows, from a Manifest.db.
    if arguments.count == 4, arguments[1] == "manifest-seeds" {
        print("wrote \(ManifestSeeds.write(to: arguments[2], fromDatabaseAt: arguments[3])) seeds")
        return 0
    }
    guard argc >= 2, let name = argv[1].map({ String(cString: $0) }), let harness = Harness(rawValue: name) else {
        print("usage: ycft-fuzz TARGET [libFuzzer options] [CORPUS...]; targets: \(names)")
        return 2
    }
    selected = harness
    #if YCFT_FUZZ
    // Hand libFuzzer the program name and everything after the target.
    var args = [argv[0]] + (2..<Int(argc)).map { argv[$0] }
    var count = Int32(args.count)
    return args.withUnsafeMutableBufferPointer { buffer in
        var base = buffer.baseAddress
        return LLVMFuzzerRunDriver(&count, &base) { data, size in
            let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
            _ = selected.run(bytes)
            return 0
        }
    }
    #else
    print("ycft-fuzz: built without libFuzzer; build and run it with Scripts/fuzz.sh \(name) SECONDS")
    return 2
    #endif
}
