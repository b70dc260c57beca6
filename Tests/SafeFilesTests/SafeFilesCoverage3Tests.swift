import Testing
@testable import SafeFiles
import FileErrors
#if canImport(Glibc)
import Glibc
#endif

/// What SafeFiles does that needs a process of its own.
@Suite struct SafeFilesCoverage3 {
    /// A staged write to standard error that cannot take the bytes (here `/dev/full`) fails
    /// with the stream's error (its name is the caller's to show).
    @Test func aStagedWriteToAFullStreamFails() async throws {
        let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
            let full = open("/dev/full", O_WRONLY)
            guard full >= 0, dup2(full, 2) == 2 else { exit(3) }
            do throws(FileError) { _ = try SafeFile.stage([0x41], to: SafeFile.Output("/dev/stderr")); print("staged") } catch {
                print(error == FileError(.write, "/dev/stderr", .system(SystemError(errno: ENOSPC))), error)
            }
        }
        let printed = String(decoding: try #require(result).standardOutputContent, as: UTF8.self)
        #expect(printed == "true cannot write: No space left on device\n")
    }
}
