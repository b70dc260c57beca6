import FirstTimeArchive
import FirstTimeCore
import Plist
import PlistCore
import SafeFiles
import FileErrors

/// `-o OUT` over an existing preferences file (`pack -o`, `migrate -o`): not replaced when the
/// new output would lose or change a preference it holds (``StateFile/preferencesLost(replacing:with:key:limits:)``
/// decides), unless `--force`. Trouble (exit 2), as a read-only OUT is: the input is fine, the
/// output is not one ycft replaces unasked.
enum OutputGuard {
    /// The refusal's message for replacing `output` with `bytes`, or nil when nothing would be
    /// lost (no such file, not a regular file, nothing ycft reads as preferences, every
    /// preference kept). `hint` ends the message: what to do instead.
    static func refusal(_ output: SafeFile.Output, replacingWith bytes: [UInt8], key: String, io: CommandIO, hint: String) -> String? {
        // A descriptor name is the writer's to decide (a standard stream, or refused).
        guard output.status?.kind == .regular, !output.namesDescriptor,
              let existing = try? io.readFile(output.path, PlistLimits.default.maxInputSize, false) else { return nil }
        defer { existing.release() }
        let lost = StateFile.preferencesLost(replacing: existing.bytes, with: bytes, key: key)
        guard !lost.isEmpty else { return nil }
        return lostMessage(lost) + " " + hint
    }

    /// What an existing `path` holds against `bytes`, for an output that replaces a file only
    /// when it holds those very bytes (`backup extract -o`: a copy edited since it was
    /// extracted is the user's work).
    enum Comparison {
        /// The file holds `bytes`; replace only this file (its identity when read).
        case same(FileIdentity?)
        /// It holds other bytes: the refusal's message (without the hint).
        case differs(String)
    }

    /// ``Comparison`` of the regular file at `output` with `bytes`; nil when there is no regular
    /// file to compare (none, a descriptor name, a pipe: the writer decides) or it cannot be read
    /// (the writer says why).
    static func comparison(_ output: SafeFile.Output, with bytes: [UInt8], key: String, io: CommandIO) -> Comparison? {
        guard output.status?.kind == .regular, !output.namesDescriptor,
              let existing = try? io.readFile(output.path, max(bytes.count, PlistLimits.default.maxInputSize), false) else { return nil }
        defer { existing.release() }
        if existing.bytes == bytes { return .same(existing.status?.identity) }
        let lost = StateFile.preferencesLost(replacing: existing.bytes, with: bytes, key: key)
        if !lost.isEmpty { return .differs(lostMessage(lost)) }
        return .differs("not replaced: it differs from the backup's file (edited since it was extracted?); nothing was written.")
    }

    /// The refusal for preferences `lost`: the first five named.
    private static func lostMessage(_ lost: [String]) -> String {
        let shown = lost.prefix(5).map { UntrustedText.quoted($0) }.joined(separator: ", ")
            + (lost.count > 5 ? " and \(lost.count - 5) more" : "")
        return "not replaced: it holds preferences the output would lose or change (\(shown)); nothing was written."
    }
}
