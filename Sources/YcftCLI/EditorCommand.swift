import FirstTimeArchive
import Foundation
import Plist
import SafeFiles

extension EditCommands {
    /// `ycft edit FILE`: the records JSON in `$VISUAL` or `$EDITOR` (else `vi`); saved with a
    /// mistake, the editor opens again with the error on top (`#` lines, ignored when read);
    /// written back only on a valid change, like `crontab -e` and `kubectl edit`.
    static func edit(_ arguments: [String], io: CommandIO) throws(UsageError) -> Ycft.Exit {
        let (common, operands) = try commonOnly(arguments, spec: .edit)
        let path = try singleFile(operands)
        let environment = ProcessInfo.processInfo.environment
        let editor = [environment["VISUAL"], environment["EDITOR"]].compactMap { $0 }.first { !$0.isEmpty } ?? "vi"
        var cancelled = false
        let status = rewrite(path, common, io) { (bytes: [UInt8]) throws(StateWriter.Failure) -> [UInt8] in
            let (file, original) = try classify(bytes, common)
            let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("ycft-edit-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).json")
            defer { try? FileManager.default.removeItem(at: scratch) }
            var text = RecordsFormat.jsonBytes(original)
            var lastMistake: [UInt8]?
            while true {
                do { _ = try SafeFile.write(text, to: scratch.path, options: .init(newFilePermissions: 0o600)) } catch {
                    throw .unreadable("cannot write the file to edit: \(error)")
                }
                let process = Process()
                process.executableURL = URL(fileURLWithPath: "/bin/sh")
                process.arguments = ["-c", "\(editor) \"$1\"", "ycft-edit", scratch.path]
                do { try process.run() } catch { throw .unreadable("cannot start the editor \(UntrustedText.quoted(editor)): \(error)") }
                process.waitUntilExit()
                guard process.terminationStatus == 0 else {
                    throw .unreadable("the editor \(UntrustedText.quoted(editor)) exited with status \(process.terminationStatus); nothing was changed")
                }
                let edited = (try? Data(contentsOf: scratch)).map(Array.init) ?? []
                // Comment lines (the error of the last try) are not part of the document.
                let document = edited.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
                    .filter { $0.first != UInt8(ascii: "#") }.joined(separator: [UInt8(ascii: "\n")])
                if Array(document).allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x09 || $0 == 0x0D }) || Array(document) == text {
                    cancelled = true
                    return bytes
                }
                let records: FirstTimeRecords
                do throws(FirstTimeError) {
                    records = try RecordsFormat.records(fromJSON: Array(document))
                } catch {
                    // Saved again with the same mistake: give up, as kubectl edit does.
                    if lastMistake == Array(document) {
                        throw .unreadable("the edit still has an error: \(error.description); nothing was written")
                    }
                    lastMistake = Array(document)
                    // Reopen with the mistake on top; saving it unchanged (or empty) cancels.
                    let note = "# ycft edit: \(error.description)\n# Fix it and save, or save an empty file to cancel.\n"
                    text = Array(note.utf8) + Array(document)
                    continue
                }
                guard let edited = try StateWriter.write(records, changedFrom: original, into: file) else {
                    cancelled = true
                    return bytes
                }
                return edited
            }
        }
        if status == .success && cancelled { io.writeStderr("ycft: \(Ycft.shown(path)): no change; nothing was written\n") }
        return status
    }
}
