import Foundation
import Testing
@testable import SafeFiles
import FileErrors
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// SafeFiles' answers at their limits: a link chain longer than the walk follows, a scratch
/// directory made in the root folder.
@Suite struct SafeFilesCoverage2 {
    /// `links` symbolic links in a row, the last to `/dev/stdout`; the first one's path.
    func chain(_ links: Int, in folder: String) throws -> String {
        for i in 0..<links {
            let target = i == links - 1 ? "/dev/stdout" : "\(folder)/link\(i + 1)"
            try FileManager.default.createSymbolicLink(atPath: "\(folder)/link\(i)", withDestinationPath: target)
        }
        return "\(folder)/link0"
    }

    /// The walk follows 40 names, as the kernel does: 39 links and the stream they end at are
    /// standard output, a chain of 40 links names nothing.
    @Test func aLinkChainLongerThanTheKernelFollowsNamesNoDescriptor() throws {
        #expect(SafeFile.Output(try chain(39, in: TestPaths.temporaryDirectory().path)).descriptor == 1)
        let forty = SafeFile.Output(try chain(40, in: TestPaths.temporaryDirectory().path))
        #expect(!forty.namesDescriptor && forty.descriptor == nil)
    }

    /// In `/` (any number of slashes) the template is `/PREFIXXXXXXX`, not `//PREFIX...`.
    @Test func aScratchDirectoryInTheRootFolder() throws {
        let prefix = "ycft-coverage2-"
        guard getuid() == 0 else {
            #expect(throws: FileError(.write, "//", .system(SystemError(errno: EACCES)))) {
                try ScratchDirectory.make(in: "//", prefix: prefix)
            }
            return
        }
        let scratch = try ScratchDirectory.make(in: "//", prefix: prefix)
        defer { scratch.remove() }
        #expect(scratch.path.hasPrefix("/" + prefix) && scratch.path.utf8.count == 1 + prefix.utf8.count + 6)
        #expect(FileManager.default.fileExists(atPath: scratch.path))
    }
}
