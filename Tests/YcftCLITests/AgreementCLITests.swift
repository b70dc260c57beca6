import Foundation
import Testing
import FirstTimeArchive
import FirstTimeCore
import OrderedJSON
import Plist
import PlistCore
import TestSupport
@testable import YcftCLI

/// One truth about a file: every fixture (valid, invalid, raw) and a set of migrated outputs go
/// through dump, verify, status and migrate --dry-run, and the four agree.
@Suite struct CommandsAgree {
    static let ycft = TestPaths.executable("ycft")

    /// Every fixture plist, and migrated forms of the defaults fixtures (records, interval, with
    /// the source kept, and a copy that disagrees).
    static func cases() throws -> [(name: String, bytes: [UInt8])] {
        var out: [(String, [UInt8])] = []
        for folder in ["valid", "invalid", "raw"] {
            let root = TestPaths.fixtures.appendingPathComponent(folder)
            let files = FileManager.default.enumerator(atPath: root.path)?.compactMap { $0 as? String } ?? []
            for file in files.sorted() where file.hasSuffix(".plist") {
                out.append(("\(folder)/\(file)", try readBytes(root.appendingPathComponent(file))))
            }
        }
        for file in ["export.binary.plist", "export.xml.plist", "export.apple-order.plist"] {
            let bytes = try readBytes(TestPaths.fixtures.appendingPathComponent("valid/defaults/\(file)"))
            for (label, target, options) in [("records", Migration.Target.records, Migration.Options()),
                                             ("interval", .interval, Migration.Options()),
                                             ("kept", .records, Migration.Options(keepSource: true))] {
                if let output = try Migration.migrate(bytes, to: target, options: options).output { out.append(("\(file) → \(label)", output)) }
            }
        }
        // A file whose two copies disagree.
        var domain = try LibPlist.read(readBytes(TestPaths.fixtures.appendingPathComponent("valid/defaults/export.binary.plist")))
            .value.dictionaryValue!
        domain["YCFirstTime.records"] = RecordsFormat.plist(records([("other", "1", 1)]))
        out.append(("disagreeing copies", try PropertyList.write(.dictionary(domain), format: .binary)))
        return out
    }

    @Test func dumpVerifyStatusAndMigrateAgree() throws {
        let cases = try Self.cases()
        #expect(cases.count >= 50)
        for (name, bytes) in cases {
            let findings = StateFile.verify(bytes)
            let fatal = findings.filter { $0.rule.spec.isFatal }
            let resets = findings.resetsAll

            let verify = FakeIO(files: ["f.plist": bytes])
            let verified = verify.run(["verify", "f.plist"])
            #expect(verified == (findings.contains { $0.severity == .error } ? 1 : 0), "\(name): verify")

            let dump = FakeIO(files: ["f.plist": bytes])
            let dumped = dump.run(["dump", "f.plist"])
            // dump refuses exactly the files verify fails with a fatal rule from the table.
            #expect((dumped != 0) == !fatal.isEmpty, "\(name): dump \(dumped), fatal \(fatal)")
            var dumpedRecords: FirstTimeRecords?
            if dumped == 0 {
                dumpedRecords = try RecordsFormat.records(fromJSON: dump.stdout)
                #expect(dumpedRecords == (try StateFile(bytes).state().records), "\(name): dump and the library")
                // What dump warns about is what verify reports, less what reads as ycft reads it.
                let warned = dump.stderr.split(separator: "\n").count
                #expect(warned == findings.filter(\.isNotable).count, "\(name): dump warnings \(dump.stderr)")
            }

            // status answers as the device would.
            let keys = (dumpedRecords?.map(\.key) ?? []).prefix(5) + ["never.seen"]
            let status = FakeIO(files: ["f.plist": bytes])
            let statusExit = status.run(["status", "--no-app-version", "--format", "json", "--compact"]
                                        + keys.flatMap { ["--gate", "\($0)=once"] } + ["f.plist"])
            let classified = try? StateFile(bytes)
            if classified == nil {
                // Not a property list at all: nothing says it is a stored state, so no answer.
                #expect(statusExit == 1, "\(name): status on a file that is not a plist")
                #expect(!fatal.isEmpty, "\(name)")
            } else if let resets {
                #expect(statusExit == 0, "\(name): status on a state the device discards")
                let gates = try Self.gates(status.stdout)
                #expect(gates.allSatisfy { $0.wouldRun }, "\(name): every gate runs after a reset")
                #expect(status.stdoutText.contains(#""deviceResetsAll":{"rule":"\#(resets.rule.rawValue)""#), "\(name)")
            } else if let dumpedRecords {
                #expect(statusExit == 0, "\(name): status \(status.stderr)")
                for gate in try Self.gates(status.stdout) {
                    #expect(gate.wouldRun == (dumpedRecords[gate.key] == nil), "\(name): gate \(gate.key)")
                }
            } else {
                #expect(statusExit == 1, "\(name): status on a file nobody reads")
            }

            // migrate reads what dump reads: a defaults file dump reads migrates (or is already
            // migrated); one whose archive dump refuses is refused.
            if let file = classified, file.isDefaults, !file.forms.isEmpty {
                let dir = try TestPaths.temporaryDirectory()
                let path = dir.appendingPathComponent("f.plist")
                try writeBytes(bytes, to: path)
                let migrate = try runProcess(Self.ycft, ["migrate", "--dry-run", path.path])
                // Two copies that disagree are a conflict migrate will not resolve on its own.
                let conflict = findings.contains { $0.rule == .statesDisagree }
                #expect((migrate.status == 0) == (dumped == 0 && !conflict), "\(name): migrate \(migrate.status) \(migrate.stderr)")
            }
        }
    }

    static func gates(_ json: [UInt8]) throws -> [(key: String, wouldRun: Bool)] {
        let document = try JSON.parse(json)
        guard case let .object(members) = document, case let .array(gates)? = members.first(where: { $0.key == "gates" })?.value else {
            return []
        }
        return gates.compactMap { gate in
            guard case let .object(fields) = gate, case let .string(key)? = fields.first(where: { $0.key == "key" })?.value,
                  case let .bool(run)? = fields.first(where: { $0.key == "wouldRun" })?.value else { return nil }
            return (key, run)
        }
    }
}
