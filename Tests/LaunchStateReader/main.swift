// An app's first read of its state, for the launch-arguments test: the records
// `Migration.records(in: .standard)` finds in `UserDefaults.standard`, whose argument
// domain holds what `ycft pack --launch-arguments` printed.
//
//   launch-state-reader [--key NAME] [--save KEY] [-NAME VALUE ...]
//
// Prints one line per record, `record KEYHEX VERSIONHEX|- TIMEBITS|-` (UTF-8 bytes and the
// double's bit pattern in hex: nothing rounds or normalises in between), or `none`. With
// `--save KEY`, records a run of KEY (version "9.9", time 0) through `Migration.save`,
// as a migrated app does, then prints what a second read finds.

import FirstTimeCore
import FirstTimeMigration
import Foundation

func hex(_ bytes: some Sequence<UInt8>) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

func lines(_ state: FirstTimeState?) -> String {
    guard let state else { return "none\n" }
    return state.records.map { key, record in
        "record \(hex(key.utf8)) \(record.lastVersion.map { hex($0.utf8) } ?? "-") "
            + "\(record.lastTime.map { String($0.bitPattern, radix: 16) } ?? "-")\n"
    }.joined()
}

let arguments = CommandLine.arguments
var options = Migration.Options()
if let index = arguments.firstIndex(of: "--key"), index + 1 < arguments.count { options.key = arguments[index + 1] }
do {
    print(lines(try Migration.records(in: .standard, options: options)), terminator: "")
    if let index = arguments.firstIndex(of: "--save"), index + 1 < arguments.count {
        var records = try Migration.records(in: .standard, options: options)?.records ?? FirstTimeRecords()
        records[arguments[index + 1]] = FirstTimeRecord(lastVersion: "9.9", lastTime: 0)
        try Migration.save(records, in: .standard)
        // Linux Foundation writes the app's domain out lazily; an app that runs on does too.
        UserDefaults.standard.synchronize()
        print("saved")
        print(lines(try Migration.records(in: .standard, options: options)), terminator: "")
    }
} catch {
    print("error \(error)")
    exit(1)
}
