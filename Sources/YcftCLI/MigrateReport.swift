import FirstTimeArchive
import FirstTimeCore
import OrderedJSON
import Plist
import PlistCore

extension MigrateCommand {
    /// What happened to one file, for the summary and the report.
    struct FileReport: Sendable {
        let path: String
        var status: String
        var outcome: Migration.Outcome?
        var error: String?
        var trouble = false
        var backup: String?
        /// The backup was there already (left by a run that stopped before replacing the file).
        var backupReused = false
        /// The dry-run line, printed in input order once the batch is done.
        var listing: String?
    }

    /// The run in one line on standard error: `ycft migrate: 3 files: 1 migrated, 1 unchanged,
    /// 1 skipped, 0 failed`.
    static func summary(_ reports: [FileReport], mode: Destination) -> String {
        let counts = Dictionary(reports.map { ($0.status, 1) }, uniquingKeysWith: +)
        return "ycft migrate: \(reports.count) file\(reports.count == 1 ? "" : "s"): "
            + "\(counts["migrated", default: 0]) \(mode == .dryRun ? "would migrate" : "migrated"), "
            + "\(counts["unchanged", default: 0]) unchanged, "
            + "\(counts["skipped", default: 0]) skipped, \(counts["failed", default: 0]) failed"
            + (mode == .dryRun ? " (dry run: nothing written)" : "") + "\n"
    }

    static func listed(_ keys: [String]) -> String {
        let shown = keys.prefix(10).map(UntrustedText.quoted).joined(separator: ", ")
        return keys.count > 10 ? shown + ", and \(keys.count - 10) more" : shown
    }

    static func dryRunLine(_ path: String, _ outcome: Migration.Outcome) -> String {
        switch outcome.status {
        case .unchanged: return "\(Ycft.shown(path)): unchanged\n"
        case .skipped: return "\(Ycft.shown(path)): skipped (no source state)\n"
        case .migrated:
            let parts = outcome.added.map { "+\(UntrustedText.quoted($0))" } + outcome.removed.map { "-\(UntrustedText.quoted($0))" }
                + outcome.changed.map { "~\(UntrustedText.quoted($0))" }
            return "\(Ycft.shown(path)): would migrate \(outcome.recordCount) record\(outcome.recordCount == 1 ? "" : "s"): \(parts.joined(separator: " "))\n"
        }
    }

    static func reportJSON(_ reports: [FileReport], target: Migration.Target, options: Migration.Options, mode: Destination) -> JSON {
        let counts = Dictionary(reports.map { ($0.status, 1) }, uniquingKeysWith: +)
        return .object([
            .init("formatVersion", .integer(1)),
            .init("target", .string(target.rawValue)),
            .init("dryRun", .bool(mode == .dryRun)),
            .init("summary", .object(["migrated", "unchanged", "skipped", "failed"].map { .init($0, .integer(counts[$0, default: 0])) })),
            .init("files", .array(reports.map { r in
                .object([
                    .init("path", .string(Ycft.reported(r.path))),
                    .init("status", .string(r.status)),
                    .init("added", .array((r.outcome?.added ?? []).map { .string($0) })),
                    .init("removed", .array((r.outcome?.removed ?? []).map { .string($0) })),
                    .init("changed", .array((r.outcome?.changed ?? []).map { .string($0) })),
                    .init("records", r.outcome.map { .integer($0.recordCount) } ?? .null),
                    .init("error", r.error.map { .string($0) } ?? .null),
                    .init("backup", r.backup.map { .string(Ycft.reported($0)) } ?? .null),
                    .init("backupReused", .bool(r.backupReused)),
                ])
            })),
        ])
    }
}
