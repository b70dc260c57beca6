import FirstTimeCore
import OrderedJSON
import PlistCore

/// `ycft diff A B`: two states compared as the device reads them (`DeviceLoad`,
/// the answer `status` judges with): records added, removed and changed, and with `--gate`
/// the gates whose answer differs. Exit 0 when the same, 1 when they differ, 2 on trouble, as
/// `diff` and `cmp` do.
enum DiffCommand {
    /// One side: its name as given, what the device loads, and the form the state is in
    /// (`defaults-archive`, `records-json`, ...; nil for no state).
    typealias Side = (path: String, load: DeviceLoad, form: String?)

    /// A record that differs: its key and each side's record (nil where it has none).
    typealias Change = (key: String, a: FirstTimeRecord?, b: FirstTimeRecord?)

    static func run(_ arguments: [String], io: CommandIO) throws(UsageError) -> Ycft.Exit {
        let parsed = try ParsedArguments(arguments, spec: .diff)
        // The gates, the moment and the calendar are judged as status judges them.
        let options = try StatusCommand.Options(parsed, clock: Ycft.now)
        let paths = Array(parsed.operands.prefix(2))
        guard paths.filter({ $0 == "-" }).count <= 1 else { throw UsageError("'-' (standard input) may be given once") }
        let (calendar, shown) = (try options.calendar(), options.instants)
        do throws(Ycft.Failure) {
            let (a, b) = (try side(paths[0], options: options, io: io), try side(paths[1], options: options, io: io))
            let changes = self.changes(a.load.records, b.load.records)
            let gates = options.gates.compactMap { gate -> (StatusCommand.Gate, GateDecision, GateDecision)? in
                let decide = { (records: FirstTimeRecords) in
                    RunRules.decide(gate.rule, record: records[gate.key], now: shown.now, appVersion: options.appVersion,
                                    calendar: calendar, library: options.library)
                }
                let (inA, inB) = (decide(a.load.records), decide(b.load.records))
                return inA == inB ? nil : (gate, inA, inB)
            }
            if options.json {
                io.writeStdout(json(a, b, changes, gates, now: shown).bytes(style: options.compact ? .compact : .pretty))
            } else if !changes.isEmpty || !gates.isEmpty {
                Ycft.writeText(text(a, b, changes, gates, now: shown), to: io)
            }
            return changes.isEmpty && gates.isEmpty ? .success : .content
        } catch {
            // A state that cannot be read is trouble here: exit 1 says "they differ".
            return Ycft.Failure(.trouble, error.file, error.message).report(io)
        }
    }

    /// The state at `path`, as the device loads it; the notable findings warned of.
    static func side(_ path: String, options: StatusCommand.Options, io: CommandIO) throws(Ycft.Failure) -> Side {
        let bytes = try Ycft.readInput(path, io: io, limit: options.limits.maxInputSize)
        // Records in their JSON form (what dump prints, what pack reads): read as they are.
        if PropertyList.detectFormat(bytes) == nil, let records = try? RecordsFormat.records(fromJSON: bytes) {
            return (path, DeviceLoad(held: records), "records-json")
        }
        let (file, load) = try StatusCommand.load(bytes, of: path, options: options)
        // The finding by which the device discards the state is said once, with what it means here.
        Ycft.warn(load.findings.filter { $0 != load.resetsAll }, path: path, io: io)
        if let reset = load.resetsAll {
            Ycft.warn("YCFirstTime would discard this state ([\(reset.rule.rawValue)] \(reset.located)): compared as no records",
                      path: path, io: io)
        }
        return (path, load, load.noState ? nil : file.forms.first?.rawValue)
    }

    /// The records that differ, by key in UTF-8 order: each side's record where it has one. Equal
    /// means the same version and the same time, bit for bit.
    static func changes(_ a: FirstTimeRecords, _ b: FirstTimeRecords) -> [Change] {
        let keys = Set(a.map(\.key)).union(b.map(\.key)).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        return keys.compactMap { key in
            let (x, y) = (a[key], b[key])
            if let x, let y, x.lastVersion == y.lastVersion, x.lastTime?.bitPattern == y.lastTime?.bitPattern { return nil }
            return (key, x, y)
        }
    }

    /// A version as the text shows it: quoted, or `none`.
    static func version(_ value: String?) -> String { value.map(UntrustedText.quoted) ?? "none" }

    /// A time as the text shows it: UTC to the microsecond and the exact number, or `none`.
    static func time(_ value: Double?) -> String {
        guard let value else { return "none" }
        return "\(ExactTime.utcText(secondsSince2001: value)) (\(Ycft.exactTime(value)))"
    }

    static func text(_ a: Side, _ b: Side, _ changes: [Change], _ gates: [(StatusCommand.Gate, GateDecision, GateDecision)],
                     now: StatusCommand.Shown) -> String {
        func head(_ mark: String, _ side: Side) -> String {
            let count = side.load.records.count
            let what = side.load.resetsAll != nil ? "discarded by YCFirstTime: no records"
                : side.form.map { "\(count) record\(count == 1 ? "" : "s"), \($0)" } ?? "no state yet"
            return "\(mark) \(Ycft.shown(side.path)) (\(what))\n"
        }
        var out = head("---", a) + head("+++", b)
        for change in changes {
            let key = UntrustedText.escaped(change.key)
            switch (change.a, change.b) {
            case let (nil, y?): out += "+ \(key): lastVersion \(version(y.lastVersion)), lastTime \(time(y.lastTime))\n"
            case let (x?, nil): out += "- \(key): lastVersion \(version(x.lastVersion)), lastTime \(time(x.lastTime))\n"
            case let (x?, y?):
                if x.lastVersion != y.lastVersion { out += "~ \(key): lastVersion \(version(x.lastVersion)) -> \(version(y.lastVersion))\n" }
                if x.lastTime?.bitPattern != y.lastTime?.bitPattern { out += "~ \(key): lastTime \(time(x.lastTime)) -> \(time(y.lastTime))\n" }
            case (nil, nil): break
            }
        }
        if !gates.isEmpty {
            out += "gates whose answer differs at \(now.text(now.now)):\n"
            for (gate, x, y) in gates {
                func answer(_ decision: GateDecision) -> String {
                    "\(decision.wouldRun ? "runs" : "waits") (next eligible \(now.next(decision, gate.rule)))"
                }
                out += "  \(UntrustedText.escaped(gate.key))=\(UntrustedText.escaped(gate.text)): \(answer(x)) -> \(answer(y))\n"
            }
        }
        return out
    }

    static func json(_ a: Side, _ b: Side, _ changes: [Change], _ gates: [(StatusCommand.Gate, GateDecision, GateDecision)],
                     now: StatusCommand.Shown) -> JSON {
        func record(_ value: FirstTimeRecord?) -> JSON {
            guard let value else { return .null }
            return .object([
                .init("lastVersion", value.lastVersion.map { .string($0) } ?? .null),
                .init("lastTime", RecordsFormat.timeJSON(value.lastTime)),
                .init("lastTimeUTC", value.lastTime.map { .string(ExactTime.utcText(secondsSince2001: $0)) } ?? .null),
            ])
        }
        func side(_ side: Side) -> JSON {
            .object([
                .init("file", .string(Ycft.reported(side.path))),
                .init("form", side.form.map { .string($0) } ?? .null),
                .init("records", .integer(side.load.records.count)),
                .init("deviceDiscards", side.load.resetsAll.map { .string($0.rule.rawValue) } ?? .null),
            ])
        }
        return .object([
            .init("formatVersion", .integer(1)),
            .init("equal", .bool(changes.isEmpty && gates.isEmpty)),
            .init("a", side(a)),
            .init("b", side(b)),
            .init("records", .array(changes.map { change in
                .object([.init("key", .string(change.key)), .init("a", record(change.a)), .init("b", record(change.b))])
            })),
            .init("now", now(now.now).map { .string($0) } ?? .null),
            .init("gates", .array(gates.map { gate, x, y in
                .object([.init("key", .string(gate.key)), .init("rule", .string(gate.text)), .init("a", .object(now.json(x))), .init("b", .object(now.json(y)))])
            })),
        ])
    }
}
