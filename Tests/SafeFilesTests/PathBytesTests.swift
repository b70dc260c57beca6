import Foundation
import Testing
import SafeFiles
import FileErrors
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Paths are bytes: the codec keeps every one, and the file system sees exactly them.
@Suite struct PathBytesCodec {
    @Test func everyByteSequenceSurvivesTheTrip() {
        // Every single byte, every pair, and random strings biased to UTF-8 lead bytes.
        for b in 0...255 { #expect(PathBytes.encode(PathBytes.decode([UInt8(b)])) == [UInt8(b)]) }
        for a in 0...255 {
            for b in stride(from: 0, through: 255, by: 3) {
                let pair = [UInt8(a), UInt8(b)]
                #expect(PathBytes.encode(PathBytes.decode(pair)) == pair, "\(pair)")
            }
        }
        var random = SplitMix64(seed: 25)
        let alphabet: [UInt8] = [0x41, 0x2F, 0x80, 0xBF, 0xC2, 0xC3, 0xE0, 0xED, 0xEF, 0xF0, 0xF4, 0x8F, 0xBC, 0xFF, 0xA0]
        for _ in 0..<20_000 {
            let count = Int(random.next() % 12)
            let raw = (0..<count).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] }
            let decoded = PathBytes.decode(raw)
            #expect(PathBytes.encode(decoded) == raw, "\(raw)")
            // Decoding is a function of the bytes only: the same string again (bijective on its image).
            #expect(PathBytes.decode(PathBytes.encode(decoded)) == decoded)
        }
    }

    @Test func validUTF8IsItsTextAndOtherBytesAreReservedScalars() {
        #expect(PathBytes.decode(Array("été/x.plist".utf8)) == "été/x.plist")
        #expect(PathBytes.decode([0xFF, 0xFE, 0x2E]).unicodeScalars.map(\.value) == [0x10FFFF, 0x10FFFE, 0x2E])
        // C3 28: C3 starts a sequence that 28 does not continue; only C3 is escaped.
        #expect(PathBytes.decode([0xC3, 0x28]).unicodeScalars.map(\.value) == [0x10FFC3, 0x28])
        // Overlong, surrogate, above U+10FFFF: not UTF-8.
        #expect(PathBytes.decode([0xC0, 0xAF]).unicodeScalars.map(\.value) == [0x10FFC0, 0x10FFAF])
        #expect(PathBytes.decode([0xED, 0xA0, 0x80]).unicodeScalars.map(\.value) == [0x10FFED, 0x10FFA0, 0x10FF80])
        #expect(PathBytes.decode([0xF4, 0x90, 0x80, 0x80]).unicodeScalars.count == 4)
        // Valid UTF-8 for a reserved scalar (U+10FF41) is escaped byte by byte, so a reserved
        // scalar in a decoded string always means one byte.
        #expect(PathBytes.decode([0xF4, 0x8F, 0xBD, 0x81]).unicodeScalars.map(\.value) == [0x10FFF4, 0x10FF8F, 0x10FFBD, 0x10FF81])
        // A valid scalar just below the reserved range is itself.
        #expect(PathBytes.decode([0xF4, 0x8F, 0xBB, 0xBF]).unicodeScalars.map(\.value) == [0x10FEFF])
    }

    @Test func textIsTheUTF8OfAnArgumentOrNil() {
        #expect(PathBytes.text("plain") == "plain")
        #expect(PathBytes.text(rawPath([0xFF, 0xFE])) == nil)
        #expect(PathBytes.text(rawPath([0xC3, 0x28])) == nil)
        // U+10FF41 typed as valid UTF-8 comes back as itself.
        #expect(PathBytes.text(PathBytes.decode([0xF4, 0x8F, 0xBD, 0x81]))?.unicodeScalars.map(\.value) == [0x10FF41])
    }

    @Test func displayShowsEachByteAsHex() {
        #expect(PathBytes.displayed(rawPath([0xFF, 0xFE], ".plist")) == "\\xff\\xfe.plist")
        #expect(PathBytes.displayed(rawPath([0x61, 0x0A, 0xC3, 0x28])) == "a\n\\xc3(")
        #expect(PathBytes.displayed(rawPath([0x61, 0x0A, 0x81]), other: { $0.replacingOccurrences(of: "\n", with: "\\n") }) == "a\\n\\x81")
        #expect(PathBytes.displayed("plain") == "plain")
    }

    @Test func theFileSystemSeesTheBytesAndTheListingReadsThemBack() throws {
        let dir = try TestPaths.temporaryDirectory().path
        let name = rawPath([0xFF, 0xFE], ".plist")
        try SafeFile.write([1, 2, 3], to: "\(dir)/\(name)")
        // The entry on disk is named by exactly these bytes (lstat of a path built by hand).
        let raw = (Array("\(dir)/".utf8) + [0xFF, 0xFE] + Array(".plist".utf8) + [0]).map { CChar(bitPattern: $0) }
        var info = stat()
        #expect(lstat(raw, &info) == 0)
        #expect(info.st_size == 3)
        #expect(try SafeFile.read("\(dir)/\(name)", limit: 10).bytes == [1, 2, 3])
        let listing = try DirectoryListing.regularFiles(below: dir)
        #expect(listing.files == [name])
        #expect(listing.unreadable.isEmpty)
    }

    @Test func theListingFollowsNoLinkAndReportsWhatItCannotOpen() throws {
        let dir = try TestPaths.temporaryDirectory().path
        try SafeFile.write([1], to: "\(dir)/a.plist")
        #expect(mkdir("\(dir)/sub", 0o755) == 0)
        try SafeFile.write([2], to: "\(dir)/sub/b.plist")
        #expect(symlink("\(dir)/a.plist", "\(dir)/sub/link.plist") == 0)
        #expect(symlink(dir, "\(dir)/loop") == 0)
        let listing = try DirectoryListing.regularFiles(below: dir)
        #expect(listing.files == ["a.plist", "sub/b.plist"])
        #expect(throws: SystemError(errno: ENOENT)) { try DirectoryListing.regularFiles(below: "\(dir)/missing") }
        #expect(throws: SystemError(errno: ENOTDIR)) { try DirectoryListing.regularFiles(below: "\(dir)/a.plist") }
    }
}
