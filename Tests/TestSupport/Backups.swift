import Foundation

/// iPhone backups written by `Scripts/make-backup.py` (the demo backup, or one spoilt in one
/// way), for the tests of `ycft backup` and `--backup`.
package enum Backups {
    /// The generator.
    package static let generator = TestPaths.packageRoot.appendingPathComponent("Scripts/make-backup.py")

    struct GeneratorFailed: Error, CustomStringConvertible { var description: String }

    /// The password of the encrypted backups the tests make.
    package static let password = "correct horse battery"

    /// A fresh backup folder (`.../Backup`), spoilt as `variant` says (the generator's `--variant`);
    /// encrypted with `password` when one is given.
    package static func make(_ variant: String? = nil, password: String? = nil) throws -> URL {
        let folder = try TestPaths.temporaryDirectory().appendingPathComponent("Backup")
        let result = try runProcess(URL(fileURLWithPath: "/usr/bin/env"),
                                    ["python3", generator.path, folder.path] + (variant.map { ["--variant", $0] } ?? [])
                                        + (password.map { ["--password", $0] } ?? []),
                                    environment: ProcessInfo.processInfo.environment.merging(["EXAMPLES_COPY": TestPaths.examples.path]) { $1 })
        guard result.status == 0 else { throw GeneratorFailed(description: "make-backup.py \(variant ?? ""): \(result.stderr)") }
        return folder
    }

    /// A file holding `password` and a line feed (the first line is the password).
    package static func passwordFile(_ password: String = Backups.password) throws -> URL {
        let file = try TestPaths.temporaryDirectory().appendingPathComponent("password")
        try Data((password + "\n").utf8).write(to: file)
        return file
    }

    /// Every entry below `folder` (relative path: kind, size, modification time and bytes of a
    /// file, the target of a link), to compare before and after a run.
    package static func snapshot(_ folder: URL) throws -> [String: String] {
        var entries: [String: String] = [:]
        let manager = FileManager.default
        for relative in try manager.subpathsOfDirectory(atPath: folder.path) {
            let path = folder.appendingPathComponent(relative).path
            let attributes = try manager.attributesOfItem(atPath: path)
            let kind = attributes[.type] as? FileAttributeType
            var entry = "\(kind?.rawValue ?? "?") \(attributes[.size] ?? 0) \(attributes[.modificationDate] ?? "")"
            if kind == .typeRegular {
                entry += " " + (try Data(contentsOf: URL(fileURLWithPath: path))).base64EncodedString()
            } else if kind == .typeSymbolicLink {
                entry += " -> " + (try manager.destinationOfSymbolicLink(atPath: path))
            }
            entries[relative] = entry
        }
        return entries
    }
}
