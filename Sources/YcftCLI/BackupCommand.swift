import FileErrors
import FirstTimeArchive
import FirstTimeCore
import OrderedJSON
import PhoneBackup
import PlistCore
import SafeFiles

/// `--backup BACKUP --app ID [--group ID] [--password-file FILE]` on `dump`, `status` and
/// `verify`: the app's (or app group's) preferences in an iPhone backup stand for the FILE
/// operand. The command then reads the file at its place in the backup, `BACKUP/<xx>/<fileID>`,
/// as it reads any file, so its output is what it prints for that file; of an encrypted backup,
/// it reads the bytes decrypted in memory under that name.
struct BackupInput {
    /// Whose preferences: `--app` alone, or `--group` (with the `--app` given beside it, which
    /// must be in the backup: a mistyped `--app` is not ignored).
    enum Selection {
        case app(String)
        case group(String, app: String?)

        /// From `--app` and `--group`: nil when neither is given.
        init?(app: String?, group: String?) {
            if let group { self = .group(group, app: app) } else if let app { self = .app(app) } else { return nil }
        }
    }

    let folder: String
    let selection: Selection
    /// `--password-file`: where an encrypted backup's password is.
    let passwordFile: String?

    /// The options as given: nil without `--backup`.
    /// - Throws: a usage error for `--backup` without `--app` or `--group`, or with a FILE operand.
    init?(_ parsed: ParsedArguments) throws(UsageError) {
        let (folder, app, group) = (parsed.given(.backup), parsed.given(.app), parsed.given(.group))
        let passwordFile = parsed.given(.passwordFile)
        // `--app`, `--group` and `--password-file` without `--backup`: refused by the parser
        // (`CommandSpec.fromBackupRequires`).
        guard let folder else { return nil }
        if let operand = parsed.operands.first {
            throw UsageError("Unexpected argument '\(operand)' (with '--backup', the app's preferences in the backup are read)")
        }
        guard let selection = Selection(app: app, group: group) else {
            throw UsageError("'--backup' needs '--app <bundle_id>' (the app whose preferences to read) or '--group <group_id>' (an app group's)")
        }
        try Self.refuseEmpty(app: app, group: group)
        (self.folder, self.selection, self.passwordFile) = (folder, selection, passwordFile)
    }

    /// Refuses an empty `--app` or `--group`: no app has an empty id.
    static func refuseEmpty(app: String?, group: String?) throws(UsageError) {
        if app?.isEmpty == true { throw UsageError("The value for '--app <bundle_id>' is empty: give the app's bundle id") }
        if group?.isEmpty == true { throw UsageError("The value for '--group <group_id>' is empty: give the app group's id") }
    }

    init(folder: String, selection: Selection, passwordFile: String?) {
        (self.folder, self.selection, self.passwordFile) = (folder, selection, passwordFile)
    }

    /// The preferences file in the backup, checked as ``PhoneBackup`` checks it, and the IO to
    /// read it with: `io` with the file's bytes, read through the backup's folder (never through
    /// a link swapped in) and, of an encrypted backup, decrypted in memory, in place of its own
    /// under its path.
    /// - Throws: `ycft: BACKUP: what is wrong` (exit 2).
    func open(limits: PlistLimits, io: CommandIO) throws(Ycft.Failure) -> (path: String, io: CommandIO, encrypted: Bool) {
        let backup = try BackupCommand.open(folder, passwordFile: passwordFile, limits: limits, io: io)
        let preferences: PhoneBackup.Preferences
        do throws(BackupError) {
            switch selection {
            case let .app(app): preferences = try backup.preferences(of: .app(app))
            case let .group(group, app):
                if let app, try !backup.lists(.app(app)) { throw .appNotListed(app) }
                preferences = try backup.preferences(of: .group(group))
            }
        } catch {
            let failure = BackupCommand.failure(error, folder: folder)
            // An id the backup holds nothing of: the one it holds that is a typo away (two edits at most:
            // `com.example.nothere` is not a misspelled `com.example.notes`).
            let asked: (option: String, container: PhoneBackup.Container)? = switch (error, selection) {
            case let (.appNotListed(app), _): ("--app", .app(app))
            case let (.notListed(_, _, domainListed: false), .group(group, _)): ("--group", .group(group))
            case let (.notListed(_, _, domainListed: false), .app(app)): ("--app", .app(app))
            default: nil
            }
            // An app's id given as the group (or a group's as the app): the other option.
            if let (option, mistyped) = asked {
                let other: (option: String, container: PhoneBackup.Container) = option == "--group" ? ("--app", .app(mistyped.id)) : ("--group", .group(mistyped.id))
                if (try? backup.lists(other.container)) == true {
                    throw Ycft.Failure(failure.exit, failure.file, failure.message + ". Did you mean '\(other.option) \(PhoneBackup.shown(mistyped.id))'?")
                }
            }
            guard let (option, mistyped) = asked, let ids = try? backup.ids(like: mistyped),
                  let near = Suggestion.closest(to: mistyped.id, among: ids, within: 2) else { throw failure }
            // The same text in another Unicode normalisation (`==` says equal; the bytes differ):
            // "did you mean" the id that was typed would show nothing.
            if near == mistyped.id {
                throw Ycft.Failure(failure.exit, failure.file, failure.message + ". The backup has \(PhoneBackup.spelledOut(near)), "
                                   + "which looks the same but is other characters (this is \(PhoneBackup.spelledOut(mistyped.id))): "
                                   + "ids are matched byte for byte, as on the phone")
            }
            throw Ycft.Failure(failure.exit, failure.file, failure.message + ". Did you mean '\(option) \(PhoneBackup.shown(near))'?")
        }
        let plain = try BackupCommand.contents(preferences, of: backup, folder: folder, limits: limits, io: io)
        var read = io
        let path = preferences.path
        read.readFile = { asked, limit, lock throws(FileError) in
            guard asked == path else { return try io.readFile(asked, limit, lock) }
            return InputFile(path: asked, bytes: plain.count > limit ? Array(plain.prefix(limit + 1)) : plain)
        }
        return (path, read, backup.isEncrypted)
    }
}

/// `ycft backup apps|extract BACKUP`: the apps with state in an iPhone backup, and a copy of one
/// app's preferences. The backup is only read.
enum BackupCommand {
    enum Format: String { case text, json }

    struct Options {
        /// `apps`, or `extract` of `--app` or `--group` (one at least) to `-o` (required).
        enum Action {
            case apps
            case extract(BackupInput.Selection, output: String)
        }

        let action: Action
        let folder: String
        let format: Format
        let compact: Bool
        /// `extract`: `--force`.
        let force: Bool
        let passwordFile: String?
        let limits: PlistLimits

        init(_ parsed: ParsedArguments) throws(UsageError) {
            (format, compact, limits) = (try parsed.choice(.format), parsed.flag(.compact), parsed.limits)
            let (app, group, output) = (parsed.given(.app), parsed.given(.group), parsed.given(.output))
            (force, folder, passwordFile) = (parsed.flag(.force), parsed.operands[1], parsed.given(.passwordFile))
            // The parser refused any word but the actions' names, and an option of the other
            // action (the spec's actions).
            guard parsed.operands[0] == "extract" else {
                action = .apps
                return
            }
            guard let selection = BackupInput.Selection(app: app, group: group) else {
                throw UsageError("'extract' needs '--app <bundle_id>' (the app whose preferences to copy) or '--group <group_id>' (an app group's)")
            }
            guard let output else { throw UsageError("'extract' needs '-o <file|->', where to copy the preferences") }
            try BackupInput.refuseEmpty(app: app, group: group)
            action = .extract(selection, output: output)
        }
    }

    static func run(_ arguments: [String], io: CommandIO) throws(UsageError) -> Ycft.Exit {
        let options = try Options(ParsedArguments(arguments, spec: .backup))
        do throws(Ycft.Failure) {
            switch options.action {
            case .apps:
                return try apps(options.folder, passwordFile: options.passwordFile, format: options.format, compact: options.compact,
                                limits: options.limits, io: io)
            case let .extract(selection, output):
                let input = BackupInput(folder: options.folder, selection: selection, passwordFile: options.passwordFile)
                try extract(input, to: output, force: options.force, limits: options.limits, io: io)
                return .success
            }
        } catch {
            return error.report(io)
        }
    }

    /// Opens the backup; one that did not finish (`Status.plist`'s `SnapshotState` is not
    /// `finished`: Finder was interrupted) is read, with a warning on standard error. An
    /// encrypted one is unlocked with the password from `passwordFile`, else typed on the
    /// terminal (``CommandIO/askPassword``); without either it is refused.
    /// - Throws: `ycft: BACKUP: what is wrong`, or `ycft: FILE: ...` for an unreadable password
    ///   file (exit 2).
    static func open(_ folder: String, passwordFile: String?, limits: PlistLimits, io: CommandIO) throws(Ycft.Failure) -> PhoneBackup {
        var backup: PhoneBackup
        do throws(BackupError) { backup = try PhoneBackup(folder, limits: limits) } catch { throw failure(error, folder: folder) }
        // Nothing the run writes goes into it, under any path.
        io.backupGuard.remember(backup: folder)
        if let state = backup.snapshotState, state != "finished" {
            Ycft.warn("the backup did not finish (Status.plist's SnapshotState is \(UntrustedText.quoted(state))); "
                      + "Manifest.db may not list every file", path: folder, io: io)
        }
        guard backup.isEncrypted else { return backup }
        // A password typed at the prompt may be mistyped: asked again, up to three times in all,
        // as sudo and ssh do; one typed again is known wrong without deriving its key again.
        var tried: [[UInt8]] = []
        while true {
            guard let (password, typed) = try password(passwordFile, folder: folder, io: io) else { throw failure(.encrypted, folder: folder) }
            // Enter alone is a try without a password, said at once.
            if typed, password.isEmpty {
                tried.append(password)
                guard tried.count < maxPasswordTries else { throw Ycft.Failure(.trouble, folder, "no password was typed") }
                io.writeStderr("ycft: \(Ycft.shown(folder)): no password was typed; try again\n")
                continue
            }
            do throws(BackupError) {
                if tried.contains(password) { throw .wrongPassword }
                // What iOS asks for takes seconds: say so on a terminal, where someone waits.
                if let rounds = backup.keyDerivationRounds, rounds >= 1_000_000, io.stderrIsTerminal() {
                    io.writeStderr("ycft: \(Ycft.shown(folder)): deriving the backup's key from the password "
                                   + "(\(KeyBagError.grouped(rounds)) rounds of PBKDF2)...\n")
                }
                try backup.unlock(password)
                return backup
            } catch {
                guard error == .wrongPassword, typed else { throw failure(error, folder: folder) }
                tried.append(password)
                guard tried.count < maxPasswordTries else {
                    throw Ycft.Failure(.trouble, folder, "\(error.description), \(maxPasswordTries) times")
                }
                io.writeStderr("ycft: \(Ycft.shown(folder)): \(error.description); try again\n")
            }
        }
    }

    /// How many passwords the prompt asks for before a wrong one ends the run.
    static let maxPasswordTries = 3

    /// The password: the first line of `file` (without its line ending; `-` is standard input),
    /// else the line typed at the terminal's prompt (`typed`); nil when there is neither. `-` when
    /// standard input is a terminal is the prompt: read from the terminal as a file, the
    /// password would be echoed, and only end of input would end it.
    /// - Throws: `ycft: FILE: ...` for a password file that cannot be read or whose first line is
    ///   empty; `ycft: BACKUP: ...` when the terminal fails or end of input is typed at the
    ///   prompt (`no password was given`).
    static func password(_ file: String?, folder: String, io: CommandIO) throws(Ycft.Failure) -> (bytes: [UInt8], typed: Bool)? {
        if file == nil || file == "-" {
            let answer: PasswordPrompt.Answer?
            do {
                answer = try io.askPassword("Password of the encrypted backup \(Ycft.shown(folder)): ")
            } catch {
                throw Ycft.Failure(.trouble, folder, "cannot read the password from the terminal: \(error)")
            }
            switch answer {
            case let .line(typed)?: return (typed, true)
            // End of input (Ctrl-D) with nothing typed: the person gives none, and is not asked again (as sudo).
            case .endOfInput?: throw Ycft.Failure(.trouble, folder, "no password was given")
            case nil: break
            }
            if file == nil { return nil }
        }
        guard let file else { return nil }
        let bytes: [UInt8]
        do {
            // From standard input, only its first line: a password manager may keep its end open.
            bytes = file == "-" ? try io.readStdin(PasswordPrompt.maxLength, true) : try io.readFile(file, PasswordPrompt.maxLength, false).bytes
        } catch {
            // Not named: a password given where its file belongs would be shown.
            throw Ycft.Failure(.trouble, nil, "--password-file: \(error.description) (the value given is not shown: it may be the password itself)")
        }
        var line = bytes.prefix { $0 != UInt8(ascii: "\n") }
        if line.last == UInt8(ascii: "\r") { line.removeLast() }
        // A byte-order mark that an editor put before the text (Notepad's UTF-8) is not typed
        // as part of a password.
        if line.starts(with: [0xEF, 0xBB, 0xBF]) { line.removeFirst(3) }
        guard line.count <= PasswordPrompt.maxLength else {
            throw Ycft.Failure(.trouble, file, "the password's line is longer than \(PasswordPrompt.maxLength) bytes")
        }
        guard !line.isEmpty else { throw Ycft.Failure(.trouble, file, "the first line is empty; it should hold the password") }
        return (Array(line), false)
    }

    /// A backup's file, read through the backup's folder (``PhoneBackup/contents(of:limit:)``:
    /// at most `limits.maxInputSize` bytes, and one block more for an encrypted file's padding)
    /// and, of an encrypted backup, decrypted in memory.
    /// A decrypted length other than the record's `Size` is a warning on standard error
    /// (`ycft: BACKUP: warning: xx/<fileID>: decrypts to ...`).
    /// - Throws: `ycft: BACKUP: xx/<fileID>: what is wrong` (exit 2); `ycft: FILE: input is
    ///   larger than the limit` (exit 1) as for any file.
    static func contents(_ preferences: PhoneBackup.Preferences, of backup: PhoneBackup, folder: String,
                         limits: PlistLimits, io: CommandIO) throws(Ycft.Failure) -> [UInt8] {
        let (padded, overflow) = limits.maxInputSize.addingReportingOverflow(backup.isEncrypted ? 16 : 0)
        let contents: PhoneBackup.FileContents?
        do { contents = try backup.contents(of: preferences, limit: overflow ? Int.max : padded) } catch { throw failure(error, folder: folder) }
        guard let contents else { throw Ycft.tooLarge(preferences.path, limit: limits.maxInputSize) }
        if let warning = contents.warning { Ycft.warn(warning.description, path: folder, io: io) }
        return contents.bytes
    }

    /// A backup's error as the command's: `ycft: BACKUP: what is wrong` (exit 2), with the
    /// flag that raises the limit when a property list is over it.
    static func failure(_ error: BackupError, folder: String) -> Ycft.Failure {
        // --max-input-size bounds the property lists and preferences files, not Manifest.db.
        let hint = if case let .tooLarge(name, _) = error, name != "Manifest.db" { " (raise it with --max-input-size)" } else { "" }
        return Ycft.Failure(.trouble, folder, error.description + hint)
    }

    /// One app or app group whose preferences hold state: the form it is in, and its record count.
    typealias Listed = (preferences: PhoneBackup.Preferences, form: StateForm, records: Int)

    /// `backup apps`: every app's and app group's preferences, judged by `StateFile` (the one
    /// answer to what a file holds); those holding state are listed. A file that cannot be read
    /// or judged is named on standard error and makes the exit status 1 (content) or 2 (I/O).
    static func apps(_ folder: String, passwordFile: String?, format: Format, compact: Bool, limits: PlistLimits,
                     io: CommandIO) throws(Ycft.Failure) -> Ycft.Exit {
        let backup = try open(folder, passwordFile: passwordFile, limits: limits, io: io)
        let all: [(container: PhoneBackup.Container, preferences: Result<PhoneBackup.Preferences, BackupError>)]
        do throws(BackupError) { all = try backup.allPreferences() } catch { throw failure(error, folder: folder) }
        var listed: [Listed] = []
        var exit = Ycft.Exit.success
        for (container, found) in all {
            // Escaped: an id is Manifest.db's text, and a line feed in it would start a line of its own.
            let owner = "\(PhoneBackup.shown(container.id)): "
            do throws(Ycft.Failure) {
                let preferences: PhoneBackup.Preferences
                do throws(BackupError) { preferences = try found.get() } catch { throw failure(error, folder: folder) }
                let bytes = try contents(preferences, of: backup, folder: folder, limits: limits, io: io)
                let state: FirstTimeState?
                do { state = try StateFile(bytes, limits: limits).heldState() } catch {
                    throw Ycft.Failure(.content, preferences.path, owner + error.description)
                }
                if let state { listed.append((preferences, state.form, state.records.count)) }
            } catch {
                _ = Ycft.Failure(error.exit, error.file, error.message.hasPrefix(owner) ? error.message : owner + error.message).report(io)
                exit = Ycft.Exit(rawValue: max(exit.rawValue, error.exit.rawValue)) ?? .trouble
            }
        }
        switch format {
        case .text:
            var text = ""
            if let name = backup.deviceName {
                text += UntrustedText.escaped("\(name)\(backup.productVersion.map { ", iOS \($0)" } ?? "")") + "\n"
            }
            if listed.isEmpty {
                io.writeStderr("ycft: \(Ycft.shown(folder)): no app or app group holds YCFirstTime state or IntervalClient keys\n")
            } else {
                // Ids that look like another (one composed, one decomposed) are written out, in
                // quotes, so that two rows differ; then an id that holds a quote is quoted too.
                let alike = Suggestion.lookAlike(listed.map(\.preferences.container.id))
                let quoting = alike.contains(true)
                let rows = [["KIND", "ID", "FORM", "RECORDS"]] + listed.enumerated().map { i, app in
                    let id = app.preferences.container.id
                    let shown = alike[i] || quoting && id.contains("\"") ? PhoneBackup.spelledOut(id) : PhoneBackup.shown(id)
                    return [kind(app.preferences.container), shown, app.form.rawValue, String(app.records)]
                }
                text += StyledText.table(rows).plain
                if quoting { text += "(ids in quotes look like another id but are other characters: written out beyond ASCII)\n" }
            }
            Ycft.writeText(text, to: io)
        case .json:
            let apps: [JSON] = listed.map {
                .object([
                    .init("kind", .string(kind($0.preferences.container))),
                    .init("id", .string(PathBytes.displayed($0.preferences.container.id))),
                    .init("domain", .string(PathBytes.displayed($0.preferences.container.domain))),
                    .init("path", .string(Ycft.reported($0.preferences.path))),
                    .init("form", .string($0.form.rawValue)),
                    .init("records", .integer($0.records)),
                ])
            }
            let document = JSON.object([
                .init("formatVersion", .integer(1)),
                .init("backup", .string(Ycft.reported(folder))),
                .init("deviceName", backup.deviceName.map { .string($0) } ?? .null),
                .init("productVersion", backup.productVersion.map { .string($0) } ?? .null),
                .init("apps", .array(apps)),
            ])
            io.writeStdout(document.bytes(style: compact ? .compact : .pretty))
        }
        return exit
    }

    /// `app` or `group`.
    static func kind(_ container: PhoneBackup.Container) -> String {
        if case .group = container { "group" } else { "app" }
    }

    /// `backup extract`: the preferences file's bytes, as read (of an encrypted backup,
    /// decrypted), written to `output` through the one writer (never into the backup folder); a
    /// new file holding decrypted bytes gets mode 0600.
    static func extract(_ input: BackupInput, to output: String, force: Bool, limits: PlistLimits, io: CommandIO) throws(Ycft.Failure) {
        if !Ycft.isStandardOutput(output) {
            // Refused before the backup is read (and a password asked for: each try derives a
            // key for seconds), as the writer will refuse it: inside the backup (one of its
            // folders under another path too), or a folder.
            do throws(FileError) {
                io.backupGuard.remember(backup: input.folder)
                try io.backupGuard.refuse(output, .write)
            } catch {
                // Without failure(_:)'s hint to extract a copy: this is that copy's output.
                throw Ycft.Failure(.trouble, error.path, error.description)
            }
            if io.fileStatus(output)?.kind == .directory { throw Ycft.failure(FileError(.write, output, .isDirectory)) }
        }
        let (path, io, encrypted) = try input.open(limits: limits, io: io)
        let bytes = try Ycft.readInput(path, io: io, limit: limits.maxInputSize)
        try Ycft.refuseBinaryOnTerminal(bytes, to: output, io: io, plistFormatHint: "")
        if Ycft.isStandardOutput(output) {
            io.writeStdout(bytes)
            return
        }
        // Decrypted bytes go only to a file only its owner may read, with or without --force:
        // that refusal first, or --force would only lead to it.
        if encrypted {
            do throws(FileError) { try SafeFile.checkPrivate(output) } catch { throw Ycft.failure(error) }
        }
        // An existing FILE whose bytes are not the copy's (another app's preferences, or this
        // app's copy edited since it was extracted) is not replaced unasked.
        var expected: FileIdentity?
        if !force {
            switch OutputGuard.comparison(io.lookAtOutput(output), with: bytes, key: LegacyArchive.defaultsKey, io: io) {
            case let .same(identity)?: expected = identity
            case let .differs(refusal)?:
                throw Ycft.Failure(.trouble, output, refusal + " Use another FILE, or --force to replace it")
            case nil: break
            }
        }
        let options = SafeFile.WriteOptions(expected: expected, replaceReadOnly: force, confidential: encrypted)
        do { _ = try io.writeFile(output, bytes, options) } catch { throw Ycft.failure(error) }
    }

    /// What to say of an iPhone backup folder given as a file or a folder of files.
    static func backupFolderHint(_ path: String) -> String {
        let shown = Ycft.shown(path)
        return "an iPhone backup, whose files have hashed names: 'ycft backup apps \(shown)' lists the apps with state, "
            + "'--backup \(shown) --app ID' reads one, 'ycft backup extract' copies one out"
    }
}
