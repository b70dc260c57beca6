// The `in-place` harness: ycft's in-place commands (set, unset, reset, pack --into) run
// in-process on a fuzzed file, through the command core with an in-memory file system. After
// each command the file is either untouched (byte for byte; the command refused) or holds
// exactly the asked change, with every other key's value kept exactly.

import FirstTimeArchive
import FirstTimeCore
import OrderedJSON
import Plist
import PlistCore
import SafeFiles
import FileErrors
import Synchronization
import YcftCLI

/// Files in memory for ``CommandIO``: what a command reads and every write it makes.
final class MemoryFiles: Sendable {
    private struct State {
        var files: [String: [UInt8]] = [:]
        var writes: [String] = []
    }
    private let state = Mutex(State())

    init(_ files: [String: [UInt8]]) { state.withLock { $0.files = files } }

    func bytes(_ path: String) -> [UInt8]? { state.withLock { $0.files[path] } }
    /// The paths written, in order.
    var writes: [String] { state.withLock { $0.writes } }

    var io: CommandIO {
        CommandIO(
            writeStdout: { _ in },
            writeStderr: { _ in },
            readStdin: { _, _ in [] },
            readFile: { path, _, _ throws(FileError) in
                guard let bytes = self.state.withLock({ $0.files[path] }) else {
                    throw FileError(.read, path, .system(SystemError(errno: 2)))
                }
                return InputFile(path: path, bytes: bytes)
            },
            writeFile: { path, bytes, _ in
                self.state.withLock { $0.files[path] = bytes; $0.writes.append(path) }
                return .replaced(path)
            },
            keepBackup: { path, _, suffix, bytes in
                self.state.withLock { $0.files[path + suffix] = bytes; $0.writes.append(path + suffix) }
                return SafeFile.Backup(path: path + suffix, reused: false)
            },
            stdoutIsTerminal: { false })
    }
}

/// One in-place command and the change it asks for.
struct InPlaceCommand {
    /// The arguments, `FILE` standing for the file.
    var arguments: [String]
    /// The records the file must hold afterwards, from those it held (nil: no record state at all).
    var change: (FirstTimeRecords) -> FirstTimeRecords?

    /// The records `pack --into` puts into the file.
    static let packed: FirstTimeRecords = {
        var records = FirstTimeRecords()
        records["fuzz.packed"] = FirstTimeRecord(lastVersion: "1.0", lastTime: 757_414_800.125)
        records["fuzz.nil"] = FirstTimeRecord()
        return records
    }()

    /// What is asked of a file whose records (before) are `records`: some commands name an
    /// existing record (the first), which a fuzzed file decides.
    static func all(existing records: FirstTimeRecords?) -> [InPlaceCommand] {
        let first = records?.entries.first?.key ?? "rate.prompt"
        return [
            InPlaceCommand(arguments: ["set", "FILE", "onboarding.v1", "--last-version", "9.9"]) { r in
                var r = r
                var record = r["onboarding.v1"] ?? FirstTimeRecord()
                record.lastVersion = "9.9"
                r["onboarding.v1"] = record
                return r
            },
            // A new key, an exact negative zero and no version.
            InPlaceCommand(arguments: ["set", "--seconds", "--last-time", "-0.0", "--no-last-version", "FILE", "fuzz.new"]) { r in
                var r = r
                var record = r["fuzz.new"] ?? FirstTimeRecord()
                record.lastVersion = nil
                record.lastTime = -0.0
                r["fuzz.new"] = record
                return r
            },
            InPlaceCommand(arguments: ["set", "--no-last-time", "FILE", first]) { r in
                var r = r
                var record = r[first] ?? FirstTimeRecord()
                record.lastTime = nil
                r[first] = record
                return r
            },
            InPlaceCommand(arguments: ["unset", "FILE", first]) { r in
                var r = r
                r[first] = nil
                return r
            },
            InPlaceCommand(arguments: ["reset", "FILE"]) { _ in nil },
            InPlaceCommand(arguments: ["pack", "--into", "FILE", "records.json"]) { _ in packed },
        ]
    }
}

enum InPlaceHarness {
    static let path = "/fuzz/Preferences/d.plist"

    /// The keys a command may change in a defaults file: the archive's, the plain records',
    /// and IntervalClient's.
    static func isStateKey(_ key: String) -> Bool {
        exactlyEqual(key, LegacyArchive.defaultsKey) || exactlyEqual(key, RecordsFormat.defaultsKey) || key.hasPrefix(IntervalKey.prefix)
    }

    /// `records` as a file of IntervalClient keys alone holds them: each time to its nearest
    /// value through the 1970 epoch (``IntervalKey/storedTime(_:)``, which `set` says on
    /// stderr). A record without a time is refused there, so none reaches this.
    static func asIntervalKeysHold(_ records: FirstTimeRecords) -> FirstTimeRecords {
        var held = FirstTimeRecords()
        for (key, record) in records {
            guard let time = record.lastTime else { fatalError("a record without a time was written as IntervalClient keys") }
            held[key] = FirstTimeRecord(lastVersion: record.lastVersion, lastTime: IntervalKey.storedTime(time))
        }
        return held
    }

    /// The records a file holds, or nil when it holds no readable state.
    static func records(_ bytes: [UInt8]) -> FirstTimeRecords? { try? StateFile(bytes).state().records }

    /// Runs the six commands on `bytes`; the reach counts those that did their change
    /// (`done`) and those that refused (`refused`).
    static func run(_ bytes: [UInt8]) -> Reach {
        let before = try? StateFile(bytes)
        // The records an edit starts from: the state's, or none in a defaults file that holds
        // no state yet (whose first change creates it, as YCFirstTime's first save does: the
        // one judge, `heldState`); nil when the file holds something else.
        var beforeRecords: FirstTimeRecords?, heldNothing = false
        if let before, let held = try? Optional(before.heldState()) {
            (beforeRecords, heldNothing) = (held?.records ?? FirstTimeRecords(), held == nil)
        }
        let beforeValue = try? LibPlist.read(bytes)
        var done = 0, refused = 0
        for command in InPlaceCommand.all(existing: beforeRecords) {
            let files = MemoryFiles([path: bytes, "records.json": RecordsFormat.json(InPlaceCommand.packed)])
            let status = Ycft.run(command.arguments.map { $0 == "FILE" ? path : $0 }, io: files.io)
            let after = files.bytes(path) ?? []
            let context = "\(command.arguments) exited \(status)"
            guard files.writes.allSatisfy({ $0 == path }) else { fatalError("\(context): wrote \(files.writes)") }
            if status != 0 {
                // Refused: nothing written, the file as it was.
                guard files.writes.isEmpty, after == bytes else { fatalError("\(context): refused but the file changed") }
                refused += 1
                continue
            }
            done += 1
            // Done: the file holds exactly the asked change (or already held it: not written).
            guard files.writes.count <= 1 else { fatalError("\(context): wrote the file \(files.writes.count) times") }
            guard let beforeValue, let before else { fatalError("\(context): succeeded on a file it cannot read") }
            guard let afterValue = try? LibPlist.read(after) else { fatalError("\(context): wrote a file it cannot read") }
            guard afterValue.format == beforeValue.format else { fatalError("\(context): the format changed") }
            guard PropertyList.hasByteOrderMark(after) == PropertyList.hasByteOrderMark(bytes) else {
                fatalError("\(context): the UTF-8 byte-order mark was not kept")
            }
            let expected: FirstTimeRecords?
            switch command.arguments[0] {
            case "pack", "reset":
                // Whatever the file held, even state the device could not read (reset() clears it).
                expected = command.change(FirstTimeRecords())
            default:
                guard let beforeRecords else { fatalError("\(context): succeeded on a file without readable state") }
                expected = command.change(beforeRecords)
            }
            let afterFile = try? StateFile(after)
            if let expected {
                // IntervalClient keys alone hold each time to its nearest value through the 1970
                // epoch (-0.0 and 1e-9 come back 0.0; `set` says so), and no record without a time
                // (refused); unsetting their last record leaves no state, as the device has none.
                let intervalOnly = before.forms == [.intervalKeys]
                guard let state = try? afterFile?.state() else {
                    // No records left where there were none, or only IntervalClient keys.
                    guard intervalOnly || heldNothing, expected.count == 0 else {
                        fatalError("\(context): no readable state afterwards")
                    }
                    continue
                }
                let got = state.records
                let asked = intervalOnly && state.forms == [.intervalKeys] ? Self.asIntervalKeysHold(expected) : expected
                guard got == asked else { fatalError("\(context): the state is \(got), asked \(expected)") }
            } else if let afterFile, afterFile.forms.first == .archive {
                // A defaults file keeping an unrelated `$objects` or `$archiver` key reads as a bare
                // archive once its state key is gone; its other keys are checked below, and a
                // second reset refuses it (it does not decode), so nothing of it is lost.
                if before.isDefaults { /* the other keys are checked below */ } else {
                    // reset of a bare archive: an empty archive.
                    guard records(after) == FirstTimeRecords() else { fatalError("\(context): a reset archive is not empty") }
                }
            } else if afterFile?.forms == [.intervalKeys], before.forms.contains(.intervalKeys), before.forms.first != .intervalKeys {
                // IntervalClient's own gates beside the state (no record's copy) are kept, as the
                // app's preferences are, and said (`kept "interval.b" ...`): they were there before.
            } else {
                guard afterFile?.forms.isEmpty == true else { fatalError("\(context): state is left after reset") }
            }
            // Every other key of a defaults file: the same values, exactly, in the same order.
            guard before.isDefaults else { continue }
            guard case let .dictionary(old) = beforeValue.value, case let .dictionary(new) = afterValue.value else {
                fatalError("\(context): a defaults file is no longer a dictionary")
            }
            let kept = old.entries.filter { !isStateKey($0.key) }
            let now = new.entries.filter { !isStateKey($0.key) }
            guard kept.count == now.count else { fatalError("\(context): \(kept.count) other keys became \(now.count)") }
            for (a, b) in zip(kept, now) {
                guard exactlyEqual(a.key, b.key) else { fatalError("\(context): key \(a.key) became \(b.key)") }
                guard a.value == b.value else { fatalError("\(context): the value of \(a.key) changed") }
            }
        }
        return .subject(["done": done, "refused": refused])
    }
}
