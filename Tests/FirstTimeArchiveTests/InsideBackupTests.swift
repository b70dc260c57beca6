import Foundation
import Testing
import FirstTimeArchive
import FirstTimeCore
import TestSupport
import FileErrors

/// The library's writers refuse a file inside an iPhone backup, as the tool does: the rule is
/// the writer's, so `StateFile.update` and `FirstTimeStore`'s saves keep it too, and nothing is
/// written.
@Suite struct LibraryWritesStayOutOfBackups {
    /// A folder marked as a backup by `names` (empty files), in a fresh scratch folder.
    func backup(_ names: [String]) throws -> URL {
        let folder = try TestPaths.temporaryDirectory().appendingPathComponent("Backup")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        for name in names { try Data().write(to: folder.appendingPathComponent(name)) }
        return folder
    }

    @Test func storeSavesInsideAnIOS9BackupAreRefused() throws {
        let folder = try backup(["Manifest.mbdb"])
        let path = folder.appendingPathComponent("state.plist").path
        let store = try FirstTimeStore(path: path)
        #expect(throws: FirstTimeError.inFile(path: path, .file(FileError(.write, path, .insideBackup(folder: folder.path))))) {
            try store.markRun("daily")
        }
        #expect(store.lastRun("daily") == nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["Manifest.mbdb"])
    }

    @Test func stateFileUpdatesInsideABackupBeingWrittenAreRefused() throws {
        let folder = try backup(["Manifest.plist", "Status.plist"])
        let file = folder.appendingPathComponent("3f/state.plist")
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: false)
        try FileManager.default.copyItem(at: TestPaths.packageRoot.appendingPathComponent("Examples/exported/com.example.notes.plist"), to: file)
        let before = try readBytes(file)
        #expect(throws: FirstTimeError.inFile(path: file.path, .file(FileError(.write, file.path, .insideBackup(folder: folder.path))))) {
            try StateFile.update(at: file.path) { $0["tour"] = FirstTimeRecord(lastVersion: "2.0", lastTime: 757_414_800) }
        }
        #expect(try readBytes(file) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: file.deletingLastPathComponent().path) == ["state.plist"])
    }
}
