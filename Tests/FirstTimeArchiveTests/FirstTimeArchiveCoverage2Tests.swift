import Foundation
import Testing
import FirstTimeArchive

/// What FirstTimeArchive does that needs a process of its own: ``FirstTimeStore/shared`` is
/// opened once per process, and another test opens it on a readable file.
@Suite struct FirstTimeArchiveCoverage2 {
    /// A shared store whose file cannot be read starts empty, says why, and refuses to save
    /// rather than overwrite the file.
    @Test func anUnreadableSharedFileLeavesTheStoreEmptyAndUnsaved() async throws {
        let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
            FirstTimeStore.sharedPath = "/"
            let shared = FirstTimeStore.shared
            print(shared.loadError.map { "\($0)" } ?? "no error")
            print(shared.records.count)
            do { try shared.markRun("k"); print("saved") } catch { print(error) }
        }
        #expect(String(decoding: try #require(result).standardOutputContent, as: UTF8.self) == """
            /: cannot read: Is a directory
            0
            /: not saved: the file could not be read when the store opened (/: cannot read: Is a directory)

            """)
    }
}
