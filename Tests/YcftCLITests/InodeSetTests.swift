import Testing
import SafeFiles
import TestSupport
@testable import YcftCLI

/// `InodeSet` (the walk's "seen this file?" without a `Set`) answers as a `Set` of the same
/// inodes would, across its merges, with duplicates and equal inodes on other devices.
@Suite struct InodeSetAnswersAsASet {
    func inode(_ device: UInt64, _ number: UInt64) -> FileIdentity.Inode {
        FileIdentity.Inode(FileIdentity(device: device, inode: number, size: 0, modifiedSeconds: 0, modifiedNanoseconds: 0))
    }

    @Test(arguments: [0, 1, 31, 32, 33, 100, 5000])
    func insertAndContains(_ count: Int) {
        var random = SplitMix64(seed: UInt64(count) + 7)
        var set = InodeSet(), reference = Set<FileIdentity.Inode>()
        for _ in 0..<count {
            // Few devices and a narrow range of inodes: many repeats, and equal inodes on two devices.
            let inode = inode(random.next() % 3, random.next() % UInt64(max(count, 1)))
            #expect(set.insert(inode) == reference.insert(inode).inserted)
        }
        for device in UInt64(0)..<4 {
            for number in UInt64(0)..<UInt64(count + 2) {
                let inode = inode(device, number)
                #expect(set.contains(inode) == reference.contains(inode), "\(device):\(number)")
            }
        }
    }
}
