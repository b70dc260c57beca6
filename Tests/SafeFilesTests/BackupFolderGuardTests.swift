import Foundation
import Testing
@testable import SafeFiles
import FileErrors
import TestSupport

/// The one rule "never write inside an iPhone backup", as the writer asks it: which folders are
/// backups, which paths are inside one (spelled, through links, not made yet), and that a
/// guard asks about each folder once.
@Suite struct BackupFolderGuardTests {
    /// A fresh folder holding an empty entry of each name.
    func folder(holding names: [String]) throws -> String {
        let folder = try TestPaths.temporaryDirectory().appendingPathComponent("Folder")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        for name in names { try Data().write(to: folder.appendingPathComponent(name)) }
        return folder.path
    }

    /// Every combination of the five names, and the verdict: Manifest.db or Manifest.mbdb
    /// alone, or two of the three property lists.
    @Test(arguments: [
        ([], false),
        (["Info.plist"], false),
        (["Manifest.plist"], false),
        (["Status.plist"], false),
        (["Manifest.db"], true),
        (["Manifest.mbdb"], true),
        (["Manifest.plist", "Status.plist"], true),
        (["Manifest.plist", "Info.plist"], true),
        (["Status.plist", "Info.plist"], true),
        (["Manifest.mbdb", "Manifest.plist", "Status.plist", "Info.plist"], true),
        (["Manifest.db", "Manifest.plist", "Status.plist", "Info.plist"], true),
        // An Xcode project's folder: an Info.plist among sources.
        (["Info.plist", "AppDelegate.swift", "Assets.xcassets", "Manifest.json"], false),
    ] as [([String], Bool)])
    func whatMarksABackupFolder(_ names: [String], _ isBackup: Bool) throws {
        #expect(BackupFolderGuard.marksBackup { names.contains($0) } == isBackup, "\(names)")
        let folder = try folder(holding: names)
        #expect(BackupFolderGuard().folder(holding: folder + "/file.plist") == (isBackup ? folder : nil), "\(names)")
        let inside = folder + "/00/file.plist"
        #expect(BackupFolderGuard().folder(holding: inside) == (isBackup ? folder : nil), "\(names)")
    }

    /// A folder still to make, with `..` in the part that does not exist yet, is judged where
    /// `mkdir -p` would make it: `missing/..` is taken out, and a `..` that climbs above the
    /// nearest folder that exists climbs from it. The root is no backup.
    @Test func aPathToMakeIsFoldedAsMkdirMakesIt() throws {
        let backup = try folder(holding: ["Manifest.db"])
        let outside = (backup as NSString).deletingLastPathComponent
        let name = (outside as NSString).lastPathComponent
        let guardian = BackupFolderGuard()
        #expect(guardian.folder(holding: backup + "/missing/../f.plist") == backup)
        #expect(guardian.folder(holding: outside + "/missing/../../\(name)/Folder/new/f.plist") != nil)
        #expect(guardian.folder(holding: outside + "/missing/../other/f.plist") == nil)
        #expect(guardian.folder(holding: "/f.plist") == nil)
    }

    /// The marks are entries of any kind: a link named Manifest.db counts, even one to nothing.
    @Test func aMarkIsAnyEntryOfThatName() throws {
        let folder = try folder(holding: [])
        try FileManager.default.createSymbolicLink(atPath: folder + "/Manifest.mbdb", withDestinationPath: "/nonexistent")
        #expect(BackupFolderGuard().folder(holding: folder + "/f.plist") == folder)
    }

    /// Refused with the path as given and the folder as the path spells it; a folder still to
    /// be made inside a backup counts as inside; a link outside to a file inside is refused, and
    /// a link inside to a file outside too (the path names a file of the backup).
    @Test func pathsInsideABackupAreRefusedHoweverTheyReachIt() throws {
        let backup = try folder(holding: ["Manifest.mbdb"])
        try FileManager.default.createDirectory(atPath: backup + "/3f", withIntermediateDirectories: false)
        let file = backup + "/3f/file.plist"
        try Data("x".utf8).write(to: URL(fileURLWithPath: file))
        let backups = BackupFolderGuard()
        #expect(throws: FileError(.write, file, .insideBackup(folder: backup))) { try backups.refuse(file, .write) }
        #expect(throws: FileError(.backup, backup + "/new/deeper/x", .insideBackup(folder: backup))) {
            try backups.refuse(backup + "/new/deeper/x", .backup)
        }
        // Spelled through `..`: the folder as the path spells it.
        let roundabout = backup + "/3f/../3f/file.plist"
        #expect(backups.folder(holding: roundabout) == backup + "/3f/..")
        // A link from outside to the file inside: the backup by its own path.
        let outside = try TestPaths.temporaryDirectory()
        try FileManager.default.createSymbolicLink(atPath: outside.path + "/link.plist", withDestinationPath: file)
        #expect(backups.folder(holding: outside.path + "/link.plist") == SafeFile.realPath(backup))
        // A link inside the backup to a file outside.
        try Data().write(to: outside.appendingPathComponent("target.plist"))
        try FileManager.default.createSymbolicLink(atPath: backup + "/3f/out.plist", withDestinationPath: outside.path + "/target.plist")
        #expect(backups.folder(holding: backup + "/3f/out.plist") == backup)
        // A link outside to a folder inside: no folder the path spells is the backup, so it is
        // named by its own path.
        try FileManager.default.createSymbolicLink(atPath: outside.path + "/into", withDestinationPath: backup + "/3f")
        #expect(backups.folder(holding: outside.path + "/into/new.plist") == SafeFile.realPath(backup))
        // Beside the backup, and through a link to a folder outside: not inside.
        #expect(backups.folder(holding: outside.path + "/file.plist") == nil)
        #expect(backups.folder(holding: SafeFile.directory(of: backup) + "/beside.plist") == nil)
        #expect(backups.folder(holding: "/nonexistent-ycft-folder/x/y.plist") == nil)
    }

    /// A backup the run reads is known by device and inode, so a folder of it holding no mark of
    /// its own and none above it (as through a bind mount elsewhere) is refused all the same,
    /// named as the backup was given; an answer given before it was known is asked again; a
    /// link named as a two-digit folder is not followed; other guards know nothing of it.
    @Test func aBackupTheRunReadsIsKnownUnderAnyPath() throws {
        let backup = try folder(holding: ["Manifest.db"])
        for name in ["3f", "00"] { try FileManager.default.createDirectory(atPath: backup + "/" + name, withIntermediateDirectories: false) }
        let elsewhere = try TestPaths.temporaryDirectory().path
        try FileManager.default.createSymbolicLink(atPath: backup + "/a1", withDestinationPath: elsewhere)
        let guardian = BackupFolderGuard()
        // Before: the 3f folder is inside by its mark above; then the mark goes (what a bind
        // mount of 3f elsewhere shows: nothing marked above it).
        #expect(guardian.folder(holding: backup + "/3f/f.plist") == backup)
        try FileManager.default.removeItem(atPath: backup + "/Manifest.db")
        #expect(BackupFolderGuard().folder(holding: backup + "/3f/f.plist") == nil)
        guardian.remember(backup: backup)
        #expect(guardian.folder(holding: backup + "/3f/f.plist") == backup)
        #expect(guardian.folder(holding: backup + "/00/f.plist") == backup)
        #expect(guardian.folder(holding: backup + "/f.plist") == backup)
        #expect(throws: FileError(.write, backup + "/3f/f.plist", .insideBackup(folder: backup))) {
            try guardian.refuse(backup + "/3f/f.plist", .write)
        }
        #expect(guardian.folder(holding: elsewhere + "/f.plist") == nil)
        #expect(BackupFolderGuard().folder(holding: backup + "/3f/f.plist") == nil)
        // A folder that is not one (a file, nothing) leaves the guard as it was.
        let other = BackupFolderGuard()
        other.remember(backup: backup + "/missing")
        try Data().write(to: URL(fileURLWithPath: backup + "/notes.txt"))
        other.remember(backup: backup + "/notes.txt")
        #expect(other.folder(holding: backup + "/3f/f.plist") == nil)
    }

    /// A folder asked about is not asked again by the same guard, for any file in it: a run
    /// sees the answer it started with (the mark made after the first question is not looked
    /// for); a new guard looks again.
    @Test func aGuardAsksAboutEachFolderOnce() throws {
        let folder = try folder(holding: ["Info.plist"])
        let file = folder + "/state.plist"
        let backups = BackupFolderGuard()
        #expect(backups.folder(holding: file) == nil)
        try Data().write(to: URL(fileURLWithPath: folder + "/Manifest.db"))
        #expect(backups.folder(holding: file) == nil)
        #expect(backups.folder(holding: folder + "/second.plist") == nil)
        #expect(BackupFolderGuard().folder(holding: file) == folder)
        // A folder below it, new to the guard, finds the answer kept for the one above it.
        try FileManager.default.createDirectory(atPath: folder + "/sub", withIntermediateDirectories: false)
        #expect(backups.folder(holding: folder + "/sub/x.plist") == nil)
        #expect(BackupFolderGuard().folder(holding: folder + "/sub/x.plist") == folder)
    }

    /// A folder swapped for a link to a backup after the writer looked at the output takes
    /// nothing there: the look holds the folder by a descriptor, the guard is asked about the
    /// folder so held, and the file goes into it, under its new name (before the writer held its
    /// folder, `migrate -o` wrote into the backup under this race).
    @Test(arguments: [false, true])
    func aFolderSwappedForALinkAfterTheLookTakesNothingThere(replacing: Bool) throws {
        let backup = try folder(holding: ["Manifest.db"])
        let root = URL(fileURLWithPath: backup).deletingLastPathComponent().path
        let folder = root + "/out"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        if replacing {
            try Data("mine".utf8).write(to: URL(fileURLWithPath: folder + "/x.plist"))
            try Data("backup's".utf8).write(to: URL(fileURLWithPath: backup + "/x.plist"))
        }
        let before = try FileManager.default.contentsOfDirectory(atPath: backup).sorted()
        let output = SafeFile.Output(folder + "/x.plist")
        #expect(rename(folder, folder + ".moved") == 0 && symlink(backup, folder) == 0)
        #expect(throws: FileError(.write, folder + "/x.plist", .insideBackup(folder: folder))) {
            try SafeFile.write(Array("new".utf8), to: folder + "/x.plist")
        }
        guard case let .pending(write) = try SafeFile.stage(Array("new".utf8), to: output) else { throw SystemError(errno: EINVAL) }
        #expect(throws: Never.self) { try SafeFile.commit([write])[0].get() }
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder + ".moved/x.plist")) == Data("new".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: backup).sorted() == before)
        if replacing { #expect(try Data(contentsOf: URL(fileURLWithPath: backup + "/x.plist")) == Data("backup's".utf8)) }
    }

    /// What a guard keeps never lets a write into a backup: a backup folder is refused for
    /// every file in it; a folder replaced by another (another inode at the path) and a folder
    /// moved into a backup (another path to the inode) are looked at again, so a write there is
    /// refused by the guard that found them outside before.
    @Test func aKeptAnswerNeverLetsAWriteIntoABackup() throws {
        let backups = BackupFolderGuard()
        let backup = try folder(holding: ["Manifest.db"])
        for name in ["a.plist", "b.plist"] {
            #expect(throws: FileError(.write, backup + "/" + name, .insideBackup(folder: backup))) {
                try backups.refuse(backup + "/" + name, .write)
            }
        }
        // Replaced: the folder asked about goes, a backup folder takes its name.
        let parent = try TestPaths.temporaryDirectory().path
        let out = parent + "/out"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: false)
        #expect(backups.folder(holding: out + "/x.plist") == nil)
        try FileManager.default.moveItem(atPath: out, toPath: parent + "/old")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: false)
        try Data().write(to: URL(fileURLWithPath: out + "/Manifest.mbdb"))
        #expect(throws: FileError(.write, out + "/y.plist", .insideBackup(folder: out))) { try backups.refuse(out + "/y.plist", .write) }
        // Moved: the folder found outside, now inside the backup (the same inode, another path).
        try FileManager.default.moveItem(atPath: parent + "/old", toPath: backup + "/old")
        #expect(throws: FileError(.write, backup + "/old/z.plist", .insideBackup(folder: backup))) {
            try backups.refuse(backup + "/old/z.plist", .write)
        }
    }

    /// A file whose name starts with a combining mark, right in a backup folder, is inside it:
    /// its folder is cut at the last `/` byte, not at the last `/` character (the mark makes one
    /// character with the slash, and the folder above the backup was judged). Nothing is made.
    @Test func aNameStartingWithACombiningMarkIsInItsFolder() throws {
        let backup = try folder(holding: ["Manifest.db"])
        let file = backup + "/\u{301}state.plist"
        #expect(SafeFile.directory(of: file) == backup)
        #expect(throws: FileError(.write, file, .insideBackup(folder: backup))) { try BackupFolderGuard().refuse(file, .write) }
        #expect(throws: FileError(.write, file, .insideBackup(folder: backup))) { try SafeFile.write(Array("x".utf8), to: file) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: backup) == ["Manifest.db"])
    }

    /// The writer asks about each output's folder once, as the look holds it; a batch's guard
    /// walks up from a folder once: not again for a second file staged there (whose folder is
    /// held by another descriptor), nor for a file after the first was written.
    @Test func theWriterWalksUpFromAFolderOncePerGuard() throws {
        let folder = try TestPaths.temporaryDirectory().path + "/out"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        let backups = BackupFolderGuard()
        let options = SafeFile.WriteOptions(backupGuard: backups)
        let first = try SafeFile.stage(Array("1".utf8), to: SafeFile.Output(folder + "/a.plist"), options: options)
        #expect(backups.walked == 1)
        let second = try SafeFile.stage(Array("2".utf8), to: SafeFile.Output(folder + "/b.plist"), options: options)
        #expect(backups.walked == 1)
        for case let .pending(write) in [first, second] { #expect(throws: Never.self) { try SafeFile.commit([write])[0].get() } }
        try SafeFile.write(Array("3".utf8), to: folder + "/c.plist", options: options)
        #expect(backups.walked == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == ["a.plist", "b.plist", "c.plist"])
    }

    /// What a batch's guard keeps never takes a file into a backup: the folder it wrote into,
    /// swapped for a link to a backup (another inode), or moved into a backup and reached by a
    /// link left where it was (the same inode, another place), is looked at again as the writer
    /// holds it, and refused.
    @Test(arguments: [false, true])
    func aFolderWrittenIntoBeforeIsLookedAtAgainWhenItMoves(moving: Bool) throws {
        let backup = try folder(holding: ["Manifest.db"])
        let root = URL(fileURLWithPath: backup).deletingLastPathComponent().path
        let folder = root + "/out"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        let backups = BackupFolderGuard()
        try SafeFile.write(Array("1".utf8), to: folder + "/a.plist", options: SafeFile.WriteOptions(backupGuard: backups))
        if moving {
            // The folder goes into the backup, a link to it takes its place.
            try FileManager.default.moveItem(atPath: folder, toPath: backup + "/out")
            try FileManager.default.createSymbolicLink(atPath: folder, withDestinationPath: backup + "/out")
        } else {
            try FileManager.default.moveItem(atPath: folder, toPath: folder + ".moved")
            try FileManager.default.createSymbolicLink(atPath: folder, withDestinationPath: backup)
        }
        let before = try FileManager.default.contentsOfDirectory(atPath: backup).sorted()
        // Named as the path spells it where that is the backup folder.
        #expect(throws: FileError(.write, folder + "/b.plist", .insideBackup(folder: moving ? backup : folder))) {
            try SafeFile.write(Array("2".utf8), to: folder + "/b.plist", options: SafeFile.WriteOptions(backupGuard: backups))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: backup).sorted() == before)
        if moving { #expect(try FileManager.default.contentsOfDirectory(atPath: backup + "/out") == ["a.plist"]) }
    }

    /// The writer itself refuses: a new file, a replacement, a stream, a backup of a file, and
    /// the check before work; nothing is made.
    @Test func theWriterRefusesEveryWayIn() throws {
        let backup = try folder(holding: ["Manifest.plist", "Status.plist"])
        let existing = backup + "/state.plist"
        try Data("old".utf8).write(to: URL(fileURLWithPath: existing))
        let before = try FileManager.default.contentsOfDirectory(atPath: backup).sorted()
        let new = backup + "/new.plist"
        #expect(throws: FileError(.write, new, .insideBackup(folder: backup))) { try SafeFile.write(Array("x".utf8), to: new) }
        #expect(throws: FileError(.write, existing, .insideBackup(folder: backup))) {
            try SafeFile.write(Array("x".utf8), to: existing)
        }
        #expect(throws: FileError(.write, new, .insideBackup(folder: backup))) { try SafeFile.stage(Array("x".utf8), to: SafeFile.Output(new)) }
        let status = try FileStatus.of(existing).get()
        #expect(throws: FileError(.write, existing, .insideBackup(folder: backup))) {
            try SafeFile.checkReplaceable(existing, status: status, options: .init())
        }
        #expect(throws: FileError(.backup, existing, .insideBackup(folder: backup))) {
            try SafeFile.keepBackup(of: existing, expected: status, suffix: ".bak", bytes: Array("old".utf8))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: backup).sorted() == before)
        #expect(try Data(contentsOf: URL(fileURLWithPath: existing)) == Data("old".utf8))
    }
}
