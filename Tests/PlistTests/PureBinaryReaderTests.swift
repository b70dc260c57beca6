import Foundation
import Testing
@testable import PlistCore
import Plist
import PlistCore
import TestSupport

/// The pure-Swift binary reader (what the on-device library reads archives with) and the libplist
/// path give the same value, or the same error, for every binary plist we have.
@Suite struct PureBinaryReaderTests {
    /// Every binary plist under Fixtures/ and the Apple corpus, and what each writer makes of `everything`.
    static func inputs() throws -> [(name: String, bytes: [UInt8])] {
        var roots = [TestPaths.fixtures]
        if let apple = TestPaths.appleCorpus { roots.append(apple) }
        var found: [(String, [UInt8])] = []
        for root in roots {
            let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
            for url in files.sorted(by: { $0.path < $1.path }) where !url.hasDirectoryPath {
                let bytes = [UInt8](try Data(contentsOf: url))
                guard PropertyList.detectFormat(bytes) == .binary else { continue }
                found.append((url.path.replacingOccurrences(of: root.path, with: root.lastPathComponent), bytes))
            }
        }
        found.append(("ycft writer: everything", try BinaryPlistWriter.write(everything)))
        found.append(("libplist writer: everything", try LibplistWriter.write(everything)))
        found.append(("Apple-style writer: everything", AppleStyleBinaryWriter.write(everything)))
        return found
    }

    @Test func readsWhatLibplistReads() throws {
        let inputs = try Self.inputs()
        #expect(inputs.count > 40)
        var compared = 0
        for (name, bytes) in inputs {
            let viaLibplist = Result { () throws(PlistError) in try LibPlist.read(bytes).value }
            let pure = Result { () throws(PlistError) in try BinaryPlistReader.read(bytes) }
            switch (viaLibplist, pure) {
            case let (.success(a), .success(b)):
                #expect(a == b, "\(name)")
                compared += 1
            case let (.failure(a), .failure(b)):
                #expect(a == b, "\(name)")
            default:
                Issue.record("\(name): libplist \(viaLibplist), pure \(pure)")
            }
        }
        #expect(compared > 30)
    }

    @Test func exactScalars() throws {
        let value = try BinaryPlistReader.read(try BinaryPlistWriter.write(everything))
        guard case let .dictionary(d) = value else { Issue.record("not a dictionary"); return }
        #expect(d["negzero"].flatMap { if case let .real(x) = $0 { x.bitPattern } else { nil } } == (-0.0).bitPattern)
        #expect(d["huge"] == .integer(.unsigned(.max)))
        #expect(d["min"] == .integer(.signed(.min)))
        #expect(d["date"] == .date(599_529_600.123_456_789))
        #expect(d.map(\.key) == ["zeta", "é", "e\u{301}", "emoji", "empty", "negative", "min", "max", "huge", "negzero", "tiny",
                                  "tenth", "half", "largest", "inf", "yes", "no", "date", "olddate", "data", "nodata", "uid", "list"])
    }

    /// Found by the pure-read fuzzer: CoreFoundation reads an empty UTF-16 string as "", libplist
    /// 2.2.0 fails the parse. The guard refuses it, so both readers give the same error.
    @Test func anEmptyUTF16StringIsRefusedByBoth() throws {
        let bytes = rawBinaryPlist([[0xA1, 0x01], [0x60]])
        let expected = PlistError.malformedBinary(.emptyUTF16String, offset: 10)
        #expect(throws: expected) { try BinaryPlistReader.read(bytes) }
        #expect(throws: expected) { try LibPlist.read(bytes) }
        // An empty ASCII string (what CoreFoundation writes) reads as "" in both.
        let ascii = rawBinaryPlist([[0xA1, 0x01], [0x50]])
        #expect(try BinaryPlistReader.read(ascii) == .array([.string("")]))
        #expect(try LibPlist.read(ascii).value == .array([.string("")]))
    }

    @Test func refusesWhatTheGuardRefuses() {
        #expect(throws: PlistError.empty) { try BinaryPlistReader.read([]) }
        #expect(throws: PlistError.unknownFormat) { try BinaryPlistReader.read(Array("<plist/>".utf8)) }
        // A container that holds itself.
        let cycle = rawBinaryPlist([[0xA1, 0x00]])
        #expect(throws: PlistError.self) { try BinaryPlistReader.read(cycle) }
    }
}
