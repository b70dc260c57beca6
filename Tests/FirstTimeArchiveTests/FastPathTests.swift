import Foundation
import Testing
@testable import FirstTimeArchive
import KeyedArchive
import Plist
import TestSupport

/// The fast path must never change an answer: when it returns records, the checked decoder
/// returns the same; when the checked decoder fails, the fast path returns nil.
@Suite struct FastPathAgreesWithTheCheckedDecoder {
    func checked(_ bytes: [UInt8]) -> FirstTimeRecords? {
        guard let archive = try? KeyedArchive(bytes: bytes) else { return nil }
        return try? LegacyArchive.decode(archive)
    }

    func agree(_ bytes: [UInt8], _ label: String) {
        let fast = (try? PlistDocument(bytes)).flatMap({ LegacyArchive.fastRead($0)?.records })
        let slow = checked(bytes)
        if let fast {
            #expect(slow == fast, "\(label): fast path gave records the checked decoder does not")
        }
    }

    @Test func everyFixture() throws {
        let root = TestPaths.fixtures.path
        let files = FileManager.default.enumerator(atPath: root)!.compactMap { $0 as? String }.filter { $0.hasSuffix(".plist") }
        #expect(files.count > 40)
        for file in files {
            let bytes = try readBytes(URL(fileURLWithPath: "\(root)/\(file)"))
            agree(bytes, file)
            // Every clean binary archive ycft writes takes the fast path.
            if file.hasPrefix("valid/ycft/") && !file.hasSuffix(".xml.plist") {
                #expect((try? PlistDocument(bytes)).flatMap({ LegacyArchive.fastRead($0)?.records }) != nil, "\(file) missed the fast path")
            }
        }
    }

    @Test func thousandsOfMutatedArchives() {
        var generator = Generator(seed: 99)
        let base = archiveValue(appleLayoutOneKey).dictionaryValue!
        let replacements: [PlistValue] = [
            .string("$null"), .string("x"), .uid(0), .uid(3), .uid(99), .integer(.signed(1)), .real(.nan), .bool(true),
            .data([]), .array([]), .array([.uid(4)]), .dictionary(PlistDictionary()),
            object([("$class", .uid(8))]), object([("NS.string", .string("s")), ("$class", .uid(9))]),
            classObject(["NSString", "NSObject"]), classObject(["NSDate", "NSObject"]),
            object([("$classname", .string("YCFirstTimeObject")), ("$classes", .string("bad"))]),
        ]
        var fastHits = 0
        for round in 0..<3_000 {
            var objects = appleLayoutOneKey
            for _ in 0..<(1 + Int(generator.next() % 2)) {
                let index = Int(generator.next() % UInt64(objects.count))
                if case var .dictionary(d) = objects[index], generator.next() % 2 == 0, d.count > 0 {
                    let key = d.entries[Int(generator.next() % UInt64(d.count))].key
                    d[key] = generator.next() % 4 == 0 ? nil : replacements[Int(generator.next() % UInt64(replacements.count))]
                    objects[index] = .dictionary(d)
                } else {
                    objects[index] = replacements[Int(generator.next() % UInt64(replacements.count))]
                }
            }
            var envelope = base
            envelope["$objects"] = .array(objects)
            let bytes = AppleStyleBinaryWriter.write(.dictionary(envelope))
            if (try? PlistDocument(bytes)).flatMap({ LegacyArchive.fastRead($0)?.records }) != nil { fastHits += 1 }
            agree(bytes, "round \(round)")
        }
        // Some mutations leave a valid archive (an unused object changed): the fast path takes those.
        #expect(fastHits > 0)
    }
}
