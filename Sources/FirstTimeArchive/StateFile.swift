public import FirstTimeCore
internal import KeyedArchive
internal import Plist
public import PlistCore
internal import SafeFiles
internal import FileErrors

/// What a file holds: the one answer to "what kind of file is this?". Every command and every
/// library call that reads YCFirstTime state asks this type.
///
/// A file is either a bare archive (what `UserDefaults` holds under `YCFirstTime`), or a
/// defaults domain (an exported preferences file) holding any of: the archive under the key,
/// the plain records under `YCFirstTime.records`, IntervalClient's `interval.<key>` numbers.
///
/// The entry points: read a file's state with ``init(contentsOf:key:limits:)`` and ``state()``,
/// change it in place with ``update(at:key:limits:_:)``; for bytes in memory,
/// ``init(_:key:limits:)`` and `StateEdit`.
///
/// ```swift
/// let file = try StateFile(contentsOf: "Preferences/com.example.app.plist")
/// print(file.forms)                      // [.defaultsArchive], [.plainRecords], ...
/// let state = try file.state()
/// print(state.records["onboarding"]?.lastVersion ?? "never run")
/// if let reset = state.resetsAll { print("the app would start afresh: \(reset)") }
///
/// try StateFile.update(at: "Preferences/com.example.app.plist") { records in
///     records["onboarding"] = nil       // as if onboarding never ran
/// }
/// ```
public struct StateFile: Sendable {
    /// The forms the file holds, in the order they are read: the first is the state; the others
    /// are copies (`migrate --keep-source`), checked to agree. Empty when the file holds none.
    /// `interval.*` keys beside an archive or plain records are a form only when they copy its
    /// records (`StateSource.forms`, the one rule).
    public private(set) var forms: [StateForm]
    /// The defaults domain and its forms (an empty domain for a bare archive): what reads and
    /// writes every form but the bare archive.
    private(set) var source: StateSource<PlistDictionary>
    /// The file's property-list format.
    public let format: PlistFormat
    /// Whether the file is XML after the UTF-8 byte-order mark (`PropertyList.byteOrderMark`,
    /// which CoreFoundation reads past): every rewrite of it in XML keeps the mark
    /// (`StateEdit`, `Migration.migrate`).
    package let byteOrderMark: Bool
    /// The defaults key of the archive.
    public let key: String
    /// The bounds the file was read with.
    public let limits: PlistLimits
    /// The top-level value; nil only for a bare binary archive the fast path decoded.
    let value: PlistValue?
    /// The bare archive, when the fast path decoded it.
    let fastArchive: ArchiveJudgement?

    /// Reads and classifies a file.
    /// - Parameters:
    ///   - key: the defaults key the archive is stored under (`YCFirstTime`).
    /// - Throws: ``FirstTimeError`` when the bytes are not a readable property list.
    public init(_ bytes: [UInt8], key: String = LegacyArchive.defaultsKey, limits: PlistLimits = .default) throws(FirstTimeError) {
        self.key = key
        self.limits = limits
        byteOrderMark = PropertyList.hasByteOrderMark(bytes)
        let document: PlistDocument
        do { document = try PlistDocument(bytes, limits: limits) } catch { throw .archive(.plist(error)) }
        // A bare archive reads through an empty domain: it has no forms of its own there.
        source = StateSource(PlistDictionary(), key: key)
        // An archive whose root holds other keys keeps its value: a write copies them (`rootEntries()`).
        if let decoded = ArchiveReader.fastRead(document), !decoded.findings.contains(where: { $0.rule.spec.rewrite == .keeps }) {
            (forms, format, value, fastArchive) = ([.archive], .binary, nil, decoded)
            return
        }
        do { value = try document.value() } catch { throw .archive(.plist(error)) }
        (forms, format, fastArchive) = ([.archive], document.format, nil)
        guard case let .dictionary(file) = value, !KeyedArchive.isEnvelope(file) else { return }
        source = StateSource(file, key: key) { bytes in try? ArchiveReader.read(bytes, limits: limits).records }
        forms = source.forms
    }

    /// Reads and classifies the file at `path` (bounded by `limits.maxInputSize`).
    /// - Throws: ``FirstTimeError/inFile(path:_:)`` with `path` and the cause:
    ///   ``FirstTimeError/file(_:)`` when it cannot be read, otherwise what
    ///   ``init(_:key:limits:)`` throws (`"/tmp/a.plist: cannot read: No such file or directory"`).
    public init(contentsOf path: String, key: String = LegacyArchive.defaultsKey, limits: PlistLimits = .default) throws(FirstTimeError) {
        let input: InputFile
        do { input = try SafeFile.read(path, limit: limits.maxInputSize) } catch { throw .inFile(path: path, .file(error)) }
        do { try self.init(input.bytes, key: key, limits: limits) } catch { throw .inFile(path: path, error) }
    }

    /// Changes the state of the file at `path` in place, in the file's own form (every other key
    /// kept): reads it under a lock, lets `change` edit the records, and replaces the file
    /// atomically through `SafeFile` only if the records changed and the file is still the
    /// one read. Nothing is written when `change` throws. A defaults file with no state yet
    /// starts with no records, and a first record creates the archive under `key`, as
    /// YCFirstTime's first save does (`ycft set` does the same). Every rule of `ycft set`
    /// applies (`StateEdit`): a state the device discards is not changed.
    /// - Returns: whether the file was written.
    /// - Throws: ``FirstTimeError/inFile(path:_:)`` with `path` and the cause: the file cannot
    ///   be read, holds no readable state, holds one the device discards
    ///   (``FirstTimeError/discarded(_:)``), cannot hold the new state, or cannot be replaced
    ///   (``FirstTimeError/file(_:)``, inside an iPhone backup too); what `change` throws, as it is.
    @discardableResult
    public static func update(at path: String, key: String = LegacyArchive.defaultsKey, limits: PlistLimits = .default,
                              _ change: (inout FirstTimeRecords) throws(FirstTimeError) -> Void) throws(FirstTimeError) -> Bool {
        try update(at: path, key: key, limits: limits, failure: { $0 }, change)
    }

    /// ``update(at:key:limits:_:)`` with a `change` that throws errors of its own (a check of
    /// the app's that vetoes the edit): nothing is written when it throws, and its error comes
    /// out as it was thrown; every other error is a ``FirstTimeError``.
    ///
    /// ```swift
    /// struct TooMany: Error {}
    /// try StateFile.update(at: path) { (records: inout FirstTimeRecords) throws(TooMany) in
    ///     records["tour"] = FirstTimeRecord(lastVersion: "2.0", lastTime: 757_414_800)
    ///     if records.count > 100 { throw TooMany() }     // the file stays as it was
    /// }
    /// ```
    /// - Returns: whether the file was written.
    /// - Throws: `change`'s own error, or a ``FirstTimeError`` as ``update(at:key:limits:_:)``.
    @discardableResult
    public static func update<ChangeError: Error>(at path: String, key: String = LegacyArchive.defaultsKey, limits: PlistLimits = .default,
                                                  change: (inout FirstTimeRecords) throws(ChangeError) -> Void) throws -> Bool {
        try update(at: path, key: key, limits: limits, failure: { (error: FirstTimeError) -> any Error in error },
                   { (records: inout FirstTimeRecords) throws(any Error) in try change(&records) })
    }

    /// Both `update(at:key:limits:_:)`: `failure` makes the cycle's own errors `Failure`s.
    private static func update<Failure: Error>(at path: String, key: String, limits: PlistLimits, failure: (FirstTimeError) -> Failure,
                                               _ change: (inout FirstTimeRecords) throws(Failure) -> Void) throws(Failure) -> Bool {
        // Every error of the cycle's own names the file, as an app logs it.
        func failed(_ error: FirstTimeError) -> Failure { failure(.inFile(path: path, error)) }
        return try StateEdit.cycle(path, read: { (path: String) throws(Failure) in
            do throws(FileError) { return try SafeFile.read(path, limit: limits.maxInputSize, lock: true) } catch { throw failed(.file(error)) }
        }, change: { (bytes: [UInt8]) throws(Failure) in
            let edit: StateEdit, held: FirstTimeState?
            do throws(FirstTimeError) {
                edit = StateEdit(try StateFile(bytes, key: key, limits: limits))
                held = try edit.state()
            } catch { throw failed(error) }
            var records = held?.records ?? FirstTimeRecords()
            try change(&records)
            do throws(FirstTimeError) { return try edit.apply(.records(records))?.bytes } catch { throw failed(error) }
        }, write: { (path: String, bytes: [UInt8], options: SafeFile.WriteOptions) throws(Failure) in
            do throws(FileError) { _ = try SafeFile.write(bytes, to: path, options: options) } catch { throw failed(.file(error)) }
        })
    }

    /// Whether the file is a defaults domain (not a bare archive).
    public var isDefaults: Bool { forms.first != .archive }

    /// What the file's top level is, as ``FirstTimeError/notDefaults(found:)`` names it: a
    /// dictionary for a defaults domain or a bare archive (any dictionary with an envelope key,
    /// `KeyedArchive.isEnvelope(_:)`, broken or not), else the value's kind.
    package var topLevelKind: PlistKind { value?.kind ?? .dictionary }

    /// Whether the file cannot hold YCFirstTime state whatever its values say: a defaults domain
    /// with none of the state's keys (no ``forms``), or a property list whose top level is no
    /// dictionary (an array, a string), which is neither an archive nor a defaults domain. What
    /// `verify --skip-stateless` passes over; a dictionary with an envelope key is an archive,
    /// broken or not, and is judged as one.
    package var holdsNoState: Bool { forms.isEmpty || topLevelKind != .dictionary }

    /// The defaults domain's keys and values (nil for a bare archive).
    package var defaults: PlistDictionary? {
        guard isDefaults, case let .dictionary(file)? = value else { return nil }
        return file
    }

    // MARK: Reading

    /// The one answer to "does this file hold YCFirstTime state?", which every command asks
    /// before it reads or changes one: the state, as decoding its first form gives it
    /// (non-fatal findings included); nil when the file is a defaults domain that holds none.
    ///
    /// The state is what decodes: a file that is no archive throws its decoding error, and so
    /// does a key that holds something other than YCFirstTime's archive
    /// (``FirstTimeError/notArchiveData(key:found:)``, ``FirstTimeError/embeddedNotPlist(key:_:)``,
    /// ``FirstTimeError/notStateArchive(key:_:)``).
    ///
    /// ```swift
    /// let file = try StateFile(prefsBytes, key: "settings")
    /// do { _ = try file.heldState() } catch {
    ///     print(error)   // "settings" holds dictionary, expected archive data
    /// }
    /// ```
    /// - Throws: ``FirstTimeError`` when the file, or its first form, holds something other
    ///   than YCFirstTime state.
    public func heldState() throws(FirstTimeError) -> FirstTimeState? { try state(asDevice: false) }

    /// The state as the device reads it, for the commands that answer as the device would
    /// (`dump`, `status`): ``heldState()``, or, where that throws for a value the app reads as
    /// no state at all (a finding ``heldState()``'s error gives that is not fatal: a value under
    /// the key that is not data, ``ContractRule/stateNotData``), the empty state the app starts
    /// from, with that finding. Writers ask ``heldState()``, which refuses such a value.
    /// - Throws: ``heldState()``'s error when the device would not read the file so.
    package func deviceState() throws(FirstTimeError) -> FirstTimeState? { try state(asDevice: true) }

    /// What the app loads from this file (``DeviceLoad``, the one answer): `status` and `diff`
    /// judge gates against it.
    /// - Throws: the error of a state the app reads but ycft cannot.
    package func deviceLoad() throws(FirstTimeError) -> DeviceLoad {
        try DeviceLoad(reading: heldState, unread: { StateEdit.discardsUnread($0, in: self) })
    }

    /// ``heldState()``, and with `asDevice` ``deviceState()``.
    private func state(asDevice: Bool) throws(FirstTimeError) -> FirstTimeState? {
        // No form: a dictionary with none of the state's keys (anything else is a bare archive).
        try StateForm.state(of: forms, asDevice: asDevice ? { $0.finding } : nil, read: {
            (form: StateForm) throws(FirstTimeError) in try read(form)
        })
    }

    /// The state as YCFirstTime (or IntervalClient) would read it: the first form's records,
    /// with every finding that does not stop reading (including a copy in another form that
    /// disagrees). ``heldState()``, for a file that must hold some.
    /// - Throws: ``FirstTimeError`` when the file holds no state, or its first form breaks a
    ///   fatal rule.
    public func state() throws(FirstTimeError) -> FirstTimeState {
        guard let state = try heldState() else { throw .keyNotFound(key) }
        return state
    }

    /// Every finding of every form, for `verify`: fatal ones included, nothing thrown.
    public func check() -> [ContractFinding] { checkForms().map(\.finding) }

    /// ``check()``'s findings, each with the form it was found in: nil for a finding about the
    /// file as a whole (no state, copies that disagree). A `.defaultsArchive` finding's path
    /// lies in the archive stored under ``key``, every other path in the file itself.
    public func checkForms() -> [(form: StateForm?, finding: ContractFinding)] {
        guard let primary = forms.first else {
            return [(nil, ContractFinding(.stateMissing, at: .file, FirstTimeError.keyNotFound(key).description))]
        }
        var findings: [(form: StateForm?, finding: ContractFinding)] = []
        var readable: [(StateForm, FirstTimeRecords)] = []
        for form in forms {
            let judged = judge(form)
            findings += judged.findings.map { (form, $0) }
            if judged.fatal == nil { readable.append((form, judged.records)) }
        }
        if let (form, records) = readable.first, form == primary {
            for (other, copy) in readable.dropFirst() {
                findings += ContractFinding.disagreement(form, records, other, copy).map { (nil, $0) }
            }
        }
        return findings
    }

    /// The records and non-fatal findings of one form.
    /// - Throws: ``FirstTimeError`` for the first fatal finding.
    package func read(_ form: StateForm) throws(FirstTimeError) -> ArchiveJudgement {
        if form == .archive {
            if let fastArchive { return fastArchive }
            return try LegacyArchive.read(checkedArchive(form))
        }
        // The bytes go to ArchiveReader.read, which tries the fast path first.
        return try source.read(form, failure: { $0 }, archive: { (bytes: [UInt8]) throws(FirstTimeError) in
            do throws(FirstTimeError) { return try ArchiveReader.read(bytes, limits: limits) } catch { throw embedded(error) }
        })
    }

    /// Every finding of one form (``ContractWalker`` in collect mode for an archive).
    func judge(_ form: StateForm) -> ArchiveJudgement {
        do throws(FirstTimeError) {
            switch form {
            case .archive where fastArchive == nil, .defaultsArchive:
                return ContractWalker.judge(ResolvedGraph(try checkedArchive(form)), mode: .collect)
            default:
                return try read(form)
            }
        } catch {
            return ArchiveJudgement(records: FirstTimeRecords(), findings: [error.finding])
        }
    }

    /// The archive of `.archive` or `.defaultsArchive` as resolved values (the checked path).
    private func checkedArchive(_ form: StateForm) throws(FirstTimeError) -> KeyedArchive {
        if form == .archive {
            // unreachable: (the `??`) value is nil only when the fast path decoded the archive, and no caller asks then
            do { return try KeyedArchive(plist: value ?? .dictionary(PlistDictionary())) } catch { throw .archive(error) }
        }
        let inner = try archiveData()
        do { return try LibPlist.keyedArchive(inner, limits: limits) } catch { throw embedded(.archive(error)) }
    }

    /// The entries of the archive's root besides `sharedGroup` (the bare archive's, or the one
    /// under ``key``), which a write keeps beside the new group as YCFirstTime's save does
    /// (`LegacyArchive.RootEntries`); nil when there are none.
    /// - Throws: ``FirstTimeError`` when the archive cannot be read.
    package func rootEntries() throws(FirstTimeError) -> LegacyArchive.RootEntries? {
        guard let form = forms.first, form == .archive || form == .defaultsArchive else { return nil }
        if form == .archive && fastArchive != nil { return nil }  // the fast path takes no archive whose root keeps entries
        do throws(FirstTimeError) { return try LegacyArchive.RootEntries(checkedArchive(form)) } catch { throw embedded(error) }
    }

    /// A reading error of the archive a defaults file holds: a plist error is the embedded
    /// data's, and says under which key.
    private func embedded(_ error: FirstTimeError) -> FirstTimeError {
        forms.first == .archive ? error : error.embedded(under: key)
    }

    /// The archive bytes a defaults file holds under the key.
    /// - Throws: when the key is missing or holds something other than data.
    public func archiveData() throws(FirstTimeError) -> [UInt8] { try source.archiveData() }

    /// The archive's property list, bare or held by a defaults file (for `dump --raw`).
    package func archivePlist() throws(FirstTimeError) -> PlistValue {
        if forms.first == .archive, let value { return value }
        let inner = try archiveData()
        do { return try LibPlist.read(inner, limits: limits).value } catch { throw .embeddedNotPlist(key: key, error) }
    }
}

extension StateFile {
    /// Checks archive bytes, or a defaults file holding the state (an archive under `key`, the
    /// plain records, IntervalClient keys), against the contract, as `ycft verify` does.
    ///
    /// Unlike ``state()``, which stops at the first problem, it walks as much of every form the
    /// file holds as it can and returns every finding; bytes that hold no readable state give
    /// the finding of the rule they break (``FirstTimeError/finding``). It never throws.
    ///
    /// ```swift
    /// for finding in StateFile.verify(bytes) where finding.severity == .error { print(finding) }
    /// ```
    public static func verify(_ bytes: [UInt8], key: String = LegacyArchive.defaultsKey,
                             limits: PlistLimits = .default) -> [ContractFinding] {
        verifyPlaced(bytes, key: key, limits: limits).placed.map(\.finding)
    }

    /// A finding, and which document its path is a path of.
    package struct Placed: Sendable, Equatable {
        package var finding: ContractFinding
        /// The defaults key under which the file holds, as data, the archive that the path is
        /// in (`$objects[5].lastTime` of the archive under `YCFirstTime`); nil when the path is
        /// one of the file itself (a bare archive, plain records, interval keys, the file).
        package var archiveKey: String?
    }

    /// ``verify(_:key:limits:)``'s findings, each placed (for `verify`'s line numbers), and
    /// whether the bytes are a property list that holds no state (``holdsNoState``; false for
    /// bytes that are no readable property list).
    package static func verifyPlaced(_ bytes: [UInt8], key: String = LegacyArchive.defaultsKey,
                                   limits: PlistLimits = .default) -> (placed: [Placed], holdsNoState: Bool) {
        do {
            let file = try StateFile(bytes, key: key, limits: limits)
            return (file.checkForms().map { form, finding in
                Placed(finding: finding, archiveKey: form == .defaultsArchive ? key : nil)
            }, file.holdsNoState)
        } catch {
            return ([Placed(finding: error.finding, archiveKey: nil)], false)
        }
    }
}
