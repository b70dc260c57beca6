// Seeds for the `in-place` harness: defaults files with many unrelated keys of every plist
// type (16-byte integers, negative zero, NaN payloads, fractional dates, data, nested
// containers, canonically equivalent keys) beside the YCFirstTime state in each of its forms,
// binary and XML (some after the UTF-8 byte-order mark). `ycft-fuzz in-place-seeds DIR` writes
// them; Scripts/fuzz.sh calls it.

import FirstTimeArchive
import FirstTimeCore
import Plist
import PlistCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// SplitMix64: the same seeds on every run.
struct SeedRandom {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
}

enum InPlaceSeeds {
    static let integers: [PlistInteger] = [
        .signed(0), .signed(-1), .signed(255), .signed(256), .signed(65_536), .signed(.max), .signed(.min),
        .unsigned(1 << 63), .unsigned(.max), .unsigned(5), .wide(high: 1, low: 1), .wide(high: -1, low: .max),
        .wide(high: .max, low: .max), .wide(high: .min, low: 0), .wide(high: -1, low: 0x7FFF_FFFF_FFFF_FFFF),
    ]
    static let reals: [Double] = [
        0, -0.0, 0.1, -1e308, .leastNonzeroMagnitude, .infinity, -.infinity, .nan, Double(bitPattern: 0x7FF8_0000_0000_0001),
        Double(bitPattern: 0xFFF4_0000_0000_0000), 1.5, 3.4028234663852886e38,
    ]
    static let dates: [Double] = [0, -0.0, 757_414_800.5, 757_414_800, -63_114_076_800, 1e-7, .greatestFiniteMagnitude]
    static let strings: [String] = ["", "a", "é", "e\u{301}", "😀", "\u{FFFD}", "line\nbreak", "tab\tand<&>", String(repeating: "x", count: 40),
                                    "\u{1}control"]

    static func scalar(_ random: inout SeedRandom) -> PlistValue {
        switch random.below(8) {
        case 0: return .integer(integers[random.below(integers.count)])
        case 1: return .real(reals[random.below(reals.count)])
        case 2: return .date(dates[random.below(dates.count)])
        case 3: return .bool(random.below(2) == 0)
        case 4: return .data((0..<random.below(40)).map { _ in UInt8(truncatingIfNeeded: random.next()) })
        case 5: return .uid(UInt64(random.below(300)))
        default: return .string(strings[random.below(strings.count)])
        }
    }

    static func value(_ random: inout SeedRandom, depth: Int) -> PlistValue {
        guard depth < 4, random.below(4) == 0 else { return scalar(&random) }
        let n = random.below(5)
        if random.below(2) == 0 { return .array((0..<n).map { _ in value(&random, depth: depth + 1) }) }
        return .dictionary(PlistDictionary((0..<n).map { i in ("k\(i)\(strings[random.below(strings.count)])", value(&random, depth: depth + 1)) }))
    }

    /// Unrelated keys: `count` of them, distinct, with a pair of canonically equivalent ones.
    static func unrelated(_ random: inout SeedRandom, count: Int) -> [(key: String, value: PlistValue)] {
        var entries: [(key: String, value: PlistValue)] = [("caf\u{E9}", .integer(.wide(high: 1, low: 1))), ("cafe\u{301}", .real(-0.0))]
        for i in 0..<count { entries.append(("key\(i).\(strings[random.below(strings.count)])", value(&random, depth: 0))) }
        return entries
    }

    static func records(_ random: inout SeedRandom) -> FirstTimeRecords {
        var records = FirstTimeRecords()
        for i in 0..<(1 + random.below(4)) {
            let version: String? = random.below(3) == 0 ? nil : ["1.0", "2.1.0", "é", ""][random.below(4)]
            let time: Double? = random.below(3) == 0 ? nil : [757_414_800.123456, -0.0, 0, 1e-9, -1.5][random.below(5)]
            records[["onboarding.v1", "rate.prompt", "whats-new", "k\(i)"][random.below(4)]] = FirstTimeRecord(lastVersion: version, lastTime: time)
        }
        return records
    }

    /// The seed files: name and bytes.
    static func all() -> [(String, [UInt8])] {
        var out: [(String, [UInt8])] = []
        var random = SeedRandom(state: 25)
        for n in 0..<24 {
            let count = [3, 12, 40, 120][n % 4]
            var entries = unrelated(&random, count: count)
            let records = records(&random)
            guard let archive = try? LegacyArchive.encode(records, format: .binary) else { continue }
            entries.insert((LegacyArchive.defaultsKey, .data(archive)), at: random.below(entries.count + 1))
            guard let file = try? PropertyList.write(.dictionary(PlistDictionary(entries)), format: .binary) else { continue }
            out.append(("generated-\(n)-archive.binary.plist", file))
            // The other forms, through migrate; and XML where XML holds every value.
            for target in Migration.Target.allCases {
                if let migrated = try? Migration.migrate(file, to: target).output {
                    out.append(("generated-\(n)-\(target).binary.plist", migrated))
                }
            }
            if let xml = try? Migration.migrate(file, to: .records, options: .init(outputFormat: .xml)).output {
                out.append(("generated-\(n)-records.xml.plist", xml))
            }
            let xmlSafe = entries.filter { (try? PropertyList.write(.dictionary(PlistDictionary([$0])), format: .xml)) != nil }
            if let xml = try? PropertyList.write(.dictionary(PlistDictionary(xmlSafe)), format: .xml) {
                out.append(("generated-\(n)-archive.xml.plist", xml))
                // After the UTF-8 byte-order mark, which every rewrite keeps.
                if n % 4 == 0 { out.append(("generated-\(n)-archive.bom.xml.plist", PropertyList.byteOrderMark + xml)) }
            }
        }
        return out
    }

    /// Writes the seeds into `directory`; returns how many.
    static func write(to directory: String) -> Int {
        var written = 0
        for (name, bytes) in all() {
            guard let file = fopen("\(directory)/\(name)", "wb") else { continue }
            if fwrite(bytes, 1, bytes.count, file) == bytes.count { written += 1 }
            fclose(file)
        }
        return written
    }
}
