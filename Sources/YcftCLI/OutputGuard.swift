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
    /// The refusal's message for replacing `path` with `bytes`, or nil when nothing would be
    /// lost (no such file, not a regular file, nothing ycft reads as preferences, every
    /// preference kept). `hint` ends the message: what to do instead.
    static func refusal(_ path: String, replacingWith bytes: [UInt8], key: String, io: CommandIO, hint: String) -> String? {
        // A descriptor name is the writer's to decide (a standard stream, or refused).
        guard !SafeFile.namesDescriptor(path), let status = io.fileStatus(path), status.kind == .regular,
              let existing = try? io.readFile(path, PlistLimits.default.maxInputSize, false) else { return nil }
        defer { existing.release() }
        let lost = StateFile.preferencesLost(replacing: existing.bytes, with: bytes, key: key)
        guard !lost.isEmpty else { return nil }
        let shown = lost.prefix(5).map { UntrustedText.quoted($0) }.joined(separator: ", ")
            + (lost.count > 5 ? " and \(lost.count - 5) more" : "")
        return "not replaced: it holds preferences the output would lose or change (\(shown)); nothing was written. \(hint)"
    }
}
