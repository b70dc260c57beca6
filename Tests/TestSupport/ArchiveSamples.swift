import FirstTimeArchive
import FirstTimeCore
import Plist
import PlistCore

/// Hand-built archives for tests: the envelope around a literal `$objects` table.
package func archiveValue(_ objects: [PlistValue], root: UInt64 = 1, archiver: String = "NSKeyedArchiver",
                         version: Int64 = 100_000) -> PlistValue {
    .dictionary(PlistDictionary([
        ("$version", .integer(.signed(version))),
        ("$objects", .array(objects)),
        ("$archiver", .string(archiver)),
        ("$top", .dictionary(PlistDictionary([("root", .uid(root))]))),
    ]))
}

/// A dictionary object (`NS.keys`, `NS.objects`, `$class`).
package func dictObject(keys: [UInt64], values: [UInt64], classUID: UInt64) -> PlistValue {
    .dictionary(PlistDictionary([
        ("NS.keys", .array(keys.map { .uid($0) })),
        ("NS.objects", .array(values.map { .uid($0) })),
        ("$class", .uid(classUID)),
    ]))
}

/// A class descriptor.
package func classObject(_ chain: [String]) -> PlistValue {
    .dictionary(PlistDictionary([("$classname", .string(chain[0])), ("$classes", .array(chain.map { .string($0) }))]))
}

/// An arbitrary dictionary object with fields.
package func object(_ fields: [(String, PlistValue)]) -> PlistValue {
    .dictionary(PlistDictionary(fields.map { (key: $0.0, value: $0.1) }))
}

/// Records from a literal list; fails the test on duplicate keys.
package func records(_ entries: [(String, String?, Double?)]) -> FirstTimeRecords {
    try! FirstTimeRecords(entries.map { ($0.0, FirstTimeRecord(lastVersion: $0.1, lastTime: $0.2)) })
}

/// The YCFirstTime archive of one key `k` with version "1.2.3" and time 2.5, in Apple's layout.
package let appleLayoutOneKey: [PlistValue] = [
    .string("$null"),
    dictObject(keys: [2], values: [3], classUID: 10),
    .string("sharedGroup"),
    dictObject(keys: [4], values: [5], classUID: 10),
    .string("k"),
    object([("lastVersion", .uid(6)), ("lastTime", .uid(7)), ("$class", .uid(9))]),
    .string("1.2.3"),
    object([("NS.time", .real(2.5)), ("$class", .uid(8))]),
    classObject(["NSDate", "NSObject"]),
    classObject(["YCFirstTimeObject", "NSObject"]),
    classObject(["NSMutableDictionary", "NSDictionary", "NSObject"]),
]

/// Runs the Linux Foundation oracle's decoder on archive bytes.
/// - Returns: the root and group classes and the records, or the oracle's failure.
package func oracleDecode(_ bytes: [UInt8]) throws -> (root: String, group: String?, records: FirstTimeRecords) {
    let dir = try TestPaths.temporaryDirectory()
    let file = dir.appendingPathComponent("archive.plist")
    try writeBytes(bytes, to: file)
    let result = try runProcess(TestPaths.executable("foundation-oracle"), ["decode", file.path])
    guard result.status == 0 else { throw OracleError(message: "status \(result.status): \(result.stderr)") }
    var root = "", group: String?
    var entries: [(key: String, record: FirstTimeRecord)] = []
    for line in result.stdoutText.split(separator: "\n") {
        let parts = line.split(separator: " ", omittingEmptySubsequences: false)
        switch parts[0] {
        case "root": root = String(parts[1])
        case "group": group = String(parts[1])
        default:
            let key = String(decoding: unhex(parts[1]), as: UTF8.self)
            let version = parts[2] == "-" ? nil : String(decoding: unhex(parts[2]), as: UTF8.self)
            let time = parts[3] == "-" ? nil : Double(bitPattern: UInt64(parts[3], radix: 16)!)
            entries.append((key, FirstTimeRecord(lastVersion: version, lastTime: time)))
        }
    }
    return (root, group, try FirstTimeRecords(entries))
}

/// Archives records with Linux Foundation's NSKeyedArchiver (class names fixed up as Apple's).
package func oracleEncode(_ records: FirstTimeRecords, rootClass: String = "NSMutableDictionary",
                         groupClass: String = "NSMutableDictionary") throws -> [UInt8] {
    let dir = try TestPaths.temporaryDirectory()
    let file = dir.appendingPathComponent("archive.plist")
    var input = "root \(rootClass)\ngroup \(groupClass)\n"
    for (key, record) in records {
        input += "record \(hex(key.utf8)) \(record.lastVersion.map { hex($0.utf8) } ?? "-") "
            + "\(record.lastTime.map { String($0.bitPattern, radix: 16) } ?? "-")\n"
    }
    let result = try runProcess(TestPaths.executable("foundation-oracle"), ["encode", file.path], stdin: Array(input.utf8))
    guard result.status == 0 else { throw OracleError(message: "status \(result.status): \(result.stderr)") }
    return try readBytes(file)
}

/// The oracle failed.
package struct OracleError: Error, CustomStringConvertible {
    package var message: String
    package var description: String { message }
}

func hex(_ bytes: some Sequence<UInt8>) -> String {
    bytes.map { $0 < 16 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
}

func unhex(_ text: Substring) -> [UInt8] {
    var out: [UInt8] = []
    var i = text.startIndex
    while i < text.endIndex {
        let j = text.index(i, offsetBy: 2)
        out.append(UInt8(text[i..<j], radix: 16)!)
        i = j
    }
    return out
}
