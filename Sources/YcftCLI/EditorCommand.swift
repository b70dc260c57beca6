import FirstTimeArchive
import FirstTimeCore
#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif
import PlistCore
import SafeFiles
import FileErrors

extension EditCommands {
    /// `ycft edit FILE`, like `crontab -e` and `kubectl edit` (`CommandSpec.edit` says what the
    /// user sees): the editor (``ForegroundEditor``) works on a scratch file (``ScratchDirectory``);
    /// FILE is touched only by the final checked replace (``rewriteState(_:_:_:checkFirst:_:)``)
    /// of what ``StateEdit`` makes of the edited records, said as `set` says it.
    static func edit(_ arguments: [String], io: CommandIO) throws(UsageError) -> Ycft.Exit {
        let common = try Common(ParsedArguments(arguments, spec: .edit))
        let path = common.operands[0]
        // Read as bytes (ProcessInfo's environment replaces what is not UTF-8 with U+FFFD).
        func variable(_ name: String) -> String? { getenv(name).map { PathBytes.decode(cString: $0) } }
        let editor = [variable("VISUAL"), variable("EDITOR")].compactMap { $0 }
            .first { !$0.allSatisfy { $0 == " " || $0 == "\t" } } ?? "vi"
        let temporary = variable("TMPDIR").flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var session = EditSession(editor: editor, temporaryDirectory: temporary, limit: common.limits.maxInputSize)
        // A file the edit could not be written to is refused before the editor opens.
        let status = rewriteState(path, common, io, checkFirst: true) { (bytes: [UInt8]) throws(Ycft.Failure) -> StateEdit.Report? in
            // A defaults file with no state yet opens as no records, and the edit creates the
            // state, as `ycft set` does: the one write (StateEdit) judges and writes.
            let edit = try editing(bytes, common)
            return try session.run(edit, try held(edit)?.records ?? FirstTimeRecords())
        }
        return session.finish(status, path: path, io: io)
    }
}

/// One `ycft edit`: the scratch directory, the signal handlers, and how it ended.
private struct EditSession {
    /// Why an edit stopped without a result for ``EditCommands/rewriteState(_:_:_:checkFirst:_:)`` to write.
    enum Stop: Error {
        /// Trouble (exit 2): the editor failed, the scratch file could not be made or read.
        case trouble(String)
        /// A content problem (exit 1), reported by `rewriteState` like any other.
        case content(String)
        /// A signal ends ycft (after cleaning up), with this message first.
        case signal(Int32, String)
    }

    /// How the editing part ended (`rewriteState` may still fail to write).
    enum End {
        case open, cancelled, changed
        /// By trouble, or by a signal that then ends ycft (a content stop is thrown instead).
        case stopped(String, signal: Int32?)
    }

    static let name = "records.json"

    let editor: String
    let temporaryDirectory: String
    let limit: Int
    var scratch: ScratchDirectory?
    var handlers: ForegroundEditor.Handlers?
    var end = End.open
    /// The scratch file holds the user's edit, which is not in FILE unless `rewriteState` wrote it.
    var holdsEdit = false

    /// The edit: the write's report, or nil when nothing is to be written (cancelled, or
    /// stopped by trouble or a signal, which ``finish(_:path:io:)`` reports).
    /// - Throws: a content problem, reported by `rewriteState` (exit 1).
    mutating func run(_ edit: StateEdit, _ original: FirstTimeRecords) throws(Ycft.Failure) -> StateEdit.Report? {
        handlers = ForegroundEditor.catchSignals()
        do throws(Stop) {
            guard let edited = try loop(edit, original) else {
                end = .cancelled
                return nil
            }
            end = .changed
            holdsEdit = true
            return edited
        } catch {
            switch error {
            case let .content(message): throw Ycft.Failure(.content, nil, message)
            case let .trouble(message): end = .stopped(message, signal: nil)
            case let .signal(signal, message): end = .stopped(message, signal: signal)
            }
            return nil
        }
    }

    /// Opens the editor until a valid edit is saved: its write, or nil when nothing changed.
    private mutating func loop(_ edit: StateEdit, _ original: FirstTimeRecords) throws(Stop) -> StateEdit.Report? {
        try checkSignals()
        let directory: ScratchDirectory
        do { directory = try ScratchDirectory.make(in: temporaryDirectory, prefix: "ycft-edit-") } catch {
            throw .trouble("cannot make a scratch directory in \(UntrustedText.quoted(temporaryDirectory)): \(EditSession.reason(error)); nothing was written")
        }
        scratch = directory
        let scratchPath = directory.path(of: EditSession.name)
        var text = RecordsFormat.json(original)
        var lastMistake: [UInt8]?
        while true {
            try checkSignals()
            do { try directory.create(EditSession.name, text) } catch {
                throw .trouble("cannot write the scratch file \(UntrustedText.quoted(scratchPath)): \(EditSession.reason(error)); nothing was written")
            }
            try checkSignals()
            try runEditor(on: scratchPath)
            try checkSignals()
            let edited = try read(directory, scratchPath)
            // Comment lines (the error of the last try) are not part of the document.
            let document = Array(edited.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
                .filter { !EditSession.isComment($0) }.joined(separator: [UInt8(ascii: "\n")]))
            if document.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x09 || $0 == 0x0D }) || document == text { return nil }
            holdsEdit = true
            let mistake: FirstTimeError
            switch try EditSession.written(document, original, edit) {
            case let .success(written):
                try checkSignals()
                return written
            case let .failure(error): mistake = error
            }
            // Saved again with the same mistake: give up, as kubectl edit does (its line is
            // the saved file's, which is kept).
            if lastMistake == document {
                throw .content("the edit still has an error: \(EditSession.shown(mistake, in: edited)); nothing was written")
            }
            lastMistake = document
            // Reopen with the mistake on top (its line is the reopened file's, the note's
            // lines counted); saving it unchanged (or empty) cancels.
            let shown = EditSession.shown(mistake, in: Array(EditSession.note("").utf8) + document)
            text = Array(EditSession.note(shown).utf8) + document
            holdsEdit = false
        }
    }

    /// Whether a line of the edited file is a comment (the note on top), not the document's.
    private static func isComment(_ line: ArraySlice<UInt8>) -> Bool { line.first == UInt8(ascii: "#") }

    /// The comment lines on top of a file reopened after `mistake`.
    private static func note(_ mistake: String) -> String {
        "# ycft edit: \(mistake)\n# Fix it and save, or save an empty file to cancel.\n"
    }

    /// A mistake as the user reads it in `buffer`, the editor's text of which the document is
    /// the lines that are not comments: a JSON error's line (the document's, as the parser
    /// counts) is counted in `buffer`, comment lines included, as the editor numbers them.
    private static func shown(_ mistake: FirstTimeError, in buffer: [UInt8]) -> String {
        guard case var .json(error) = mistake else { return mistake.description }
        var documentLines = 0
        for (index, line) in buffer.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated()
        where !isComment(line) {
            documentLines += 1
            if documentLines == error.line {
                error.line = index + 1
                break
            }
        }
        return FirstTimeError.json(error).description
    }

    /// What a saved document makes of the file: its write (nil: every record as it was), or
    /// the mistake to show on top when the editor opens again.
    private static func written(_ document: [UInt8], _ original: FirstTimeRecords,
                                _ edit: StateEdit) throws(Stop) -> Result<StateEdit.Report?, FirstTimeError> {
        let records: FirstTimeRecords
        do throws(FirstTimeError) { records = try RecordsFormat.records(fromJSON: document) } catch {
            return .failure(error)
        }
        do throws(FirstTimeError) {
            // The state was judged before the editor opened (`held`, with the same options).
            return .success(records == original ? nil : try edit.apply(.records(records)))
        } catch {
            // A record the file's form cannot hold (a version in IntervalClient keys) is a mistake to fix.
            guard error.isBeyondIntervalKeys else { throw .content("\(error.description); nothing was written") }
            return .failure(error)
        }
    }

    /// Runs the editor once; a failure or a signal stops the edit.
    private func runEditor(on scratchPath: String) throws(Stop) {
        let shown = UntrustedText.quoted(editor)
        let outcome = ForegroundEditor.run(editor, file: scratchPath)
        // SIGTERM or SIGHUP came while it ran (vim exits 1 on SIGHUP): that is why it ended.
        try checkSignals()
        switch outcome {
        case .exited(0): return
        case let .exited(status): throw .trouble("the editor \(shown) exited with status \(status); nothing was written")
        case let .notStarted(error): throw .trouble("cannot start the editor \(shown): \(error); nothing was written")
        case let .lost(error): throw .trouble("cannot wait for the editor \(shown): \(error); nothing was written")
        case let .signaled(signal):
            let message = "the editor \(shown) was ended by \(ForegroundEditor.name(of: signal)); nothing was written"
            // Ctrl-C or Ctrl-\ at the terminal ended the editor: ycft ends the same way, as git does.
            if signal == SIGINT || signal == SIGQUIT { throw .signal(signal, message) }
            throw .trouble(message)
        }
    }

    /// The saved scratch file: a regular file, at most ``limit`` bytes.
    private func read(_ directory: ScratchDirectory, _ scratchPath: String) throws(Stop) -> [UInt8] {
        let shown = UntrustedText.quoted(scratchPath)
        let bytes: [UInt8]?
        do { bytes = try directory.read(EditSession.name, limit: limit) } catch {
            if case let .unsupportedKind(kind) = error.reason {
                throw .trouble("the edited file \(shown) is \(kind.phrase), not a regular file; nothing was written")
            }
            throw .trouble("cannot read the edited file \(shown): \(EditSession.reason(error)); nothing was written")
        }
        guard let bytes else {
            throw .content("the edited file is \(Ycft.overLimit(limit)); nothing was written")
        }
        return bytes
    }

    /// Stops the edit when ycft received SIGTERM, SIGHUP, SIGINT or SIGQUIT.
    private func checkSignals() throws(Stop) {
        if let signal = ForegroundEditor.stopSignal {
            throw .signal(signal, "stopped by \(ForegroundEditor.name(of: signal)); nothing was written")
        }
    }

    /// A file error's cause alone (`Permission denied`), for messages that say what was done.
    private static func reason(_ error: FileError) -> String {
        guard case let .system(system) = error.reason else { return error.description }
        return system.description
    }

    /// Reports how the edit ended, removes the scratch directory (or keeps the edit that could
    /// not be written, naming it), puts the signal handlers back, and ends by a signal received
    /// meanwhile.
    /// - Returns: the exit status.
    mutating func finish(_ status: Ycft.Exit, path: String, io: CommandIO) -> Ycft.Exit {
        var exit = status
        var signal: Int32?
        switch end {
        case let .stopped(message, received):
            exit = Ycft.Failure(.trouble, path, message).report(io)
            signal = received
        case .cancelled where status == .success:
            io.writeStderr("ycft: \(Ycft.shown(path)): no change; nothing was written\n")
        case .open, .cancelled, .changed: break
        }
        if let scratch {
            if holdsEdit && exit != .success && signal == nil {
                scratch.keep()
                io.writeStderr("ycft: \(Ycft.shown(path)): the edit is kept in \(UntrustedText.quoted(scratch.path(of: EditSession.name)))\n")
            } else {
                scratch.remove()
            }
        }
        let caught = handlers != nil
        handlers?.restore()
        handlers = nil
        // A signal that came during the final write ends ycft now, its files cleaned up.
        if caught, let late = signal ?? ForegroundEditor.stopSignal {
            if signal == nil {
                let written = status == .success && { if case .changed = end { return true } else { return false } }()
                _ = Ycft.Failure(.trouble, path, "stopped by \(ForegroundEditor.name(of: late))"
                                 + (written ? " after the edit was written" : "; nothing was written")).report(io)
            }
            ForegroundEditor.raiseByDefault(late)
        }
        return exit
    }
}
