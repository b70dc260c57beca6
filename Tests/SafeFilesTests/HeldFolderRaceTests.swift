import Foundation
import Testing
@testable import SafeFiles
import FileErrors
import TestSupport

/// What `migrate -o` makes (its folders) and `migrate --in-place` keeps (`FILE.bak`) goes into
/// the folder looked at, not where a link swapped in after the look leads: never into an iPhone
/// backup. Each test swaps a folder for a link to a backup at the moment after the look
/// (``SafeFile/WriteHooks/afterLook``); before the folders were held, each made or linked its
/// entry by path, in the backup.
@Suite struct HeldFolderRaceTests {
    /// A fresh folder with `out` (holding `x.plist`) and a backup folder `B`.
    func scene() throws -> (root: String, backup: String) {
        let root = try TestPaths.temporaryDirectory().path
        for folder in ["out", "B"] { try FileManager.default.createDirectory(atPath: root + "/" + folder, withIntermediateDirectories: false) }
        try Data().write(to: URL(fileURLWithPath: root + "/B/Manifest.db"))
        try Data("mine".utf8).write(to: URL(fileURLWithPath: root + "/out/x.plist"))
        return (root, root + "/B")
    }

    /// A hook that moves `folder` aside (to `folder.moved`) and puts a link to `target` in its place.
    func swap(_ folder: String, for target: String) -> SafeFile.WriteHooks {
        var hooks = SafeFile.WriteHooks()
        hooks.afterLook = { _ in
            #expect(rename(folder, folder + ".moved") == 0 && symlink(target, folder) == 0)
        }
        return hooks
    }

    @Test func foldersAreMadeInTheFolderLookedAt() throws {
        let (root, backup) = try scene()
        try SafeFile.makeFolders(root + "/out/new/deeper", backupGuard: BackupFolderGuard(), hooks: swap(root + "/out", for: backup))
        #expect(try FileManager.default.contentsOfDirectory(atPath: backup) == ["Manifest.db"])
        #expect(FileManager.default.fileExists(atPath: root + "/out.moved/new/deeper"))
    }

    @Test func anExistingFolderOnTheWayIsAskedAbout() throws {
        let (root, backup) = try scene()
        // `out/new/../B/sub`: `B` is there already, reached from a folder just made.
        #expect(throws: FileError(.write, root + "/out/new/../../B/sub", .insideBackup(folder: root + "/out/../B"))) {
            try SafeFile.makeFolders(root + "/out/new/../../B/sub", backupGuard: BackupFolderGuard())
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: backup) == ["Manifest.db"])
    }

    @Test func aFileWhereAFolderIsToBeIsTheSystemsError() throws {
        let (root, _) = try scene()
        #expect(throws: FileError(.write, root + "/out/x.plist", .system(SystemError(errno: EEXIST)))) {
            try SafeFile.makeFolders(root + "/out/x.plist", backupGuard: BackupFolderGuard())
        }
        #expect(throws: FileError(.write, root + "/out/x.plist/y", .system(SystemError(errno: ENOTDIR)))) {
            try SafeFile.makeFolders(root + "/out/x.plist/y", backupGuard: BackupFolderGuard())
        }
        try SafeFile.makeFolders(root + "/out//a/b/", backupGuard: BackupFolderGuard())
        #expect(FileManager.default.fileExists(atPath: root + "/out/a/b"))
    }

    @Test func theKeptCopyIsLinkedInTheFolderLookedAt() throws {
        let (root, backup) = try scene()
        #expect(symlink("out", root + "/alias") == 0)
        let read = try FileStatus.of(root + "/out/x.plist").get()
        let kept = try SafeFile.keepBackup(of: root + "/alias/x.plist", expected: read, suffix: ".bak", bytes: Array("mine".utf8),
                                           hooks: swap(root + "/alias", for: "B"))
        #expect(kept.path == root + "/alias/x.plist.bak" && !kept.reused)
        #expect(try FileManager.default.contentsOfDirectory(atPath: backup) == ["Manifest.db"])
        #expect(try FileStatus.of(root + "/out/x.plist.bak").get().identity == read.identity)
    }

    @Test func aDiscardedCopyIsRemovedOnlyFromItsFolder() throws {
        let (root, backup) = try scene()
        #expect(symlink("out", root + "/alias") == 0)
        let read = try FileStatus.of(root + "/out/x.plist").get()
        let kept = try SafeFile.keepBackup(of: root + "/alias/x.plist", expected: read, suffix: ".bak", bytes: Array("mine".utf8))
        // The link now leads into the backup, where a name of the same file is.
        #expect(unlink(root + "/alias") == 0 && symlink("B", root + "/alias") == 0 && link(root + "/out/x.plist", backup + "/x.plist.bak") == 0)
        SafeFile.discardBackup(kept, expected: read)
        #expect(try FileManager.default.contentsOfDirectory(atPath: backup).sorted() == ["Manifest.db", "x.plist.bak"])
        #expect(unlink(root + "/alias") == 0 && symlink("out", root + "/alias") == 0)
        SafeFile.discardBackup(kept, expected: read)
        #expect(!FileManager.default.fileExists(atPath: root + "/out/x.plist.bak"))
    }
}
