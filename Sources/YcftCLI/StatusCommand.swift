import FirstTimeArchive
import FirstTimeCore
#if canImport(FoundationEssentials)
import FoundationEssentials
import FoundationInternationalization
#else
import Foundation
#endif
import OrderedJSON
import PlistCore

/// `ycft status`: would each gate fire now, and when next?
enum StatusCommand {
    /// One `--gate KEY=RULE`: the key, the rule, and the rule as given.
    typealias Gate = (key: String, rule: GateRule, text: String)

    struct Options {
        /// `--app-version`; nil with `--no-app-version` or neither.
        let appVersion: String?
        /// The instant judged at (`--now`, or the clock's now, read once) and how it is shown.
        let instants: Shown
        /// `--time-zone`: its name and zone when given (else UTC, and no local column).
        let zoneName: String
        let givenZone: TimeZone?
        let library: LibraryVersion
        let settings: Ycft.CalendarSettings
        let gates: [Gate]
        let json: Bool
        let compact: Bool
        /// `--color`: RUNS NOW, the JSON and the warnings in colour (`diff`, which has no
        /// `--color`, never).
        let colour: Colour.When
        let key: String
        let limits: PlistLimits
        /// The input; with `--backup`, set to the file in the backup.
        var path: String
        let backup: BackupInput?

        init(_ parsed: ParsedArguments, clock: () -> Double) throws(UsageError) {
            let versionSaid = parsed.flag(.appVersion) || parsed.flag(.noAppVersion)
            appVersion = parsed.given(.appVersion)
            // --legacy-day is the name it had when only 1.x's day length was modelled.
            library = try parsed.flag(.legacyDay) ? .v1 : parsed.choice(.library)
            let settings = Ycft.CalendarSettings(identifier: parsed.given(.calendar), locale: parsed.given(.locale),
                                                 firstWeekday: parsed.number(.firstWeekday),
                                                 minimumDaysInFirstWeek: parsed.number(.minimumDaysInFirstWeek))
            (json, compact, key, limits) = (parsed.value(.format) == "json", parsed.flag(.compact), parsed.value(.key), parsed.limits)
            colour = try parsed.spec.option(CommandSpec.Option.Name.color.long) == nil ? .never : parsed.choice(.color)
            (backup, path) = (try BackupInput(parsed), parsed.operands.first ?? "")
            let (nowText, zoneText, gateTexts) = (parsed.given(.now), parsed.given(.timeZone), parsed.all(.gate))
            let zone = try zoneText.map { (text: String) throws(UsageError) in try Ycft.zone(text, for: "--time-zone <zone>") }
            // A date alone, or a time without Z or an offset, is read in --time-zone.
            let instant = try nowText.map { (text: String) throws(UsageError) in
                try Ycft.Instant.parse(text, for: "--now <time>", clock: clock, zone: zone, zoneSaid: "in --time-zone, UTC by default")
            }
            instants = Shown(now: instant?.seconds ?? clock(), nowText: instant?.exactText)
            (zoneName, givenZone) = (zone?.name ?? "UTC", zone?.zone)
            let gates = try gateTexts.map(Self.gate)
            // Judged against no version, a per-version gate would say "yes" for the wrong reason.
            if !versionSaid, let gate = gates.first(where: { $0.rule == .perVersion }) {
                throw UsageError("The gate '\(gate.key)=per-version' needs the app's version: pass --app-version VERSION "
                                 + "(its CFBundleShortVersionString), or --no-app-version for an app without one")
            }
            (self.settings, self.gates) = (settings, gates)
        }

        /// A `--gate KEY=RULE`: the rule is what follows the last "=", parsed once.
        static func gate(_ text: String) throws(UsageError) -> Gate {
            guard let eq = text.lastIndex(of: "=") else {
                throw UsageError("The value '\(text)' is invalid for '--gate <key=rule>': expected KEY=RULE, like onboarding.v1=\(GateRule(parsing: text) == nil ? "once" : text)")
            }
            let ruleText = String(text[text.index(after: eq)...])
            if ruleText.hasPrefix("every:"), ruleText.hasSuffix("d"), case let days = ruleText.dropFirst("every:".count).dropLast(), Float(days) != nil {
                throw UsageError("The rule '\(ruleText)' is now 'days:\(days)' (YCFirstTime's executeOncePerInterval, days of "
                                 + "86,400 seconds); 'every:\(days)day' is IntervalClient's calendar day")
            }
            guard let rule = GateRule(parsing: ruleText) else {
                if ruleText.hasPrefix("every:") {
                    // `week` was a unit of earlier versions (IntervalClient's weekly); no
                    // Calendar.Component has that name, so a script that used it gets the one that does.
                    let body = ruleText.dropFirst("every:".count)
                    let unit = body.hasSuffix("weeks") ? "weeks" : "week"
                    if body.hasSuffix(unit), case let count = body.dropLast(unit.count), Int(count) != nil {
                        throw UsageError("The value '\(text)' is invalid for '--gate <key=rule>': no Calendar.Component is called '\(unit)'; "
                                         + "did you mean 'every:\(count)weekOfYear' (or 'weekly' for every week)?")
                    }
                    let units = CalendarInterval.Unit.allCases.map(\.rawValue).joined(separator: ", ")
                    throw UsageError("The value '\(text)' is invalid for '--gate <key=rule>': every:<n><unit> takes an integer n and a "
                                     + "Calendar.Component: \(units)")
                }
                throw UsageError("The value '\(text)' is invalid for '--gate <key=rule>': rules are once, per-version, days:<n>, hourly, daily, weekly, monthly, yearly, every:<n><unit> (see 'ycft status --help' for the units)")
            }
            return (String(text[..<eq]), rule, ruleText)
        }

        /// The calendar of `--calendar`, `--locale` and the week options, in `--time-zone` (UTC by default).
        func calendar() throws(UsageError) -> Calendar {
            try settings.calendar(in: givenZone ?? TimeZone(identifier: "UTC") ?? .gmt)
        }
    }

    static func run(_ arguments: [String], io: CommandIO) throws(UsageError) -> Ycft.Exit {
        var options = try Options(ParsedArguments(arguments, spec: .status), clock: Ycft.now)
        let calendar = try options.calendar()
        do throws(Ycft.Failure) {
            var io = io
            io.colour = Colour(options.colour, io: io)
            if let backup = options.backup { (options.path, io, _) = try backup.open(limits: options.limits, io: io) }
            let bytes = try Ycft.readInput(options.path, io: io, limit: options.limits.maxInputSize)
            let answer = try Answer(load(bytes, of: options.path, options: options).load, options: options, calendar: calendar)
            for warning in answer.warnings { Ycft.warn(warning, path: options.path, io: io) }
            if options.json {
                Ycft.writeJSON(answer.json().bytes(style: options.compact ? .compact : .pretty), io: io)
            } else {
                Ycft.writeText(answer.text(), to: io)
            }
            return .success
        } catch {
            return error.report(io)
        }
    }

    /// What the device loads from the state in `bytes`, read from `path` (``DeviceLoad``): a
    /// state YCFirstTime would discard makes every gate run. Exit 1 for bytes that hold no
    /// state, or an archive the app reads but ycft cannot (said as the edit commands say it).
    static func load(_ bytes: [UInt8], of path: String, options: Options) throws(Ycft.Failure) -> (file: StateFile, load: DeviceLoad) {
        let file: StateFile
        do { file = try StateFile(bytes, key: options.key, limits: options.limits) } catch {
            throw Ycft.Failure(.content, path, error.description)
        }
        do { return (file, try file.deviceLoad()) } catch {
            throw Ycft.Failure(.content, path, EditCommands.refusal(error, in: file).message)
        }
    }

    /// What `status` answers of one file: what the device loads, the warnings said on standard
    /// error, and each gate's decision; written as the table or the JSON document.
    struct Answer {
        let options: Options
        let calendar: Calendar
        let load: DeviceLoad
        /// What standard error says after `warning: `, line for line the JSON's `warnings`.
        let warnings: [String]
        let decisions: [(Gate, GateDecision)]

        /// Decides each gate (``RunRules/decide(_:record:now:appVersion:calendar:library:)``)
        /// on the records the app's gates see.
        /// - Throws: exit 2 for a gate named by the empty key when no record has it.
        init(_ load: DeviceLoad, options: Options, calendar: Calendar) throws(Ycft.Failure) {
            (self.options, self.calendar, self.load) = (options, calendar, load)
            var warnings = Ycft.warnings(load.findings)
            // A gate no record has is "never run" and runs now; named close to a record that
            // is there, it is most often a typo, which would answer for the wrong gate.
            let keys = load.held.map(\.key)
            for gate in options.gates where load.held[gate.key] == nil {
                // An empty name (`--gate "$GATE=once"` with GATE unset) that no record has: an
                // answer would be "never run, runs now" for a gate no app has. (A record may
                // have the empty key; then it is asked about.)
                if gate.key.isEmpty {
                    throw Ycft.Failure(.trouble, options.path, "'--gate =\(UntrustedText.escaped(gate.text))' names the empty key, and no record has it "
                                       + "(a variable in the command left empty?)")
                }
                let hint = Suggestion.hint(for: gate.key, among: keys)
                if !hint.isEmpty { warnings.append("no record \(UntrustedText.quoted(gate.key)) for --gate\(hint)") }
            }
            self.warnings = warnings
            let judged = load.records
            decisions = options.gates.map { gate in
                (gate, RunRules.decide(gate.rule, record: judged[gate.key], now: options.instants.now, appVersion: options.appVersion,
                                       calendar: calendar, library: options.library))
            }
        }

        /// `status --format json`.
        func json() -> JSON {
            let (instants, instant) = (options.instants, options.instants.now)
            return .object([
                .init("formatVersion", .integer(1)),
                .init("now", instants(instant).map { .string($0) } ?? .null),
                .init("timeZone", .string(options.zoneName)),
                .init("library", .string(options.library.rawValue)),
                .init("calendar", .object([
                    .init("identifier", .string(Ycft.CalendarSettings.name(of: calendar))),
                    .init("locale", options.settings.locale.map { .string($0) } ?? .null),
                    .init("firstWeekday", .integer(calendar.firstWeekday)),
                    .init("minimumDaysInFirstWeek", .integer(calendar.minimumDaysInFirstWeek)),
                ])),
                .init("appVersion", options.appVersion.map { .string($0) } ?? .null),
                .init("warnings", .array(warnings.map { .string($0) })),
                .init("noState", .bool(load.noState)),
                .init("deviceResetsAll", load.resetsAll.map { Ycft.json($0, severity: false) } ?? .null),
                .init("records", .array(load.held.map { key, record in
                    .object([
                        .init("key", .string(key)),
                        .init("lastVersion", record.lastVersion.map { .string($0) } ?? .null),
                        .init("lastTime", RecordsFormat.timeJSON(record.lastTime)),
                        .init("lastTimeUTC", record.lastTime.map(utc) ?? .null),
                        .init("ageSeconds", record.lastTime.map { RecordsFormat.timeJSON(instant - $0) } ?? .null),
                    ])
                })),
                .init("gates", .array(decisions.map { gate, decision in
                    .object([
                        .init("key", .string(gate.key)),
                        .init("rule", .string(gate.text)),
                        .init("intervalSeconds", intervalSeconds(gate.rule, library: options.library).map { RecordsFormat.timeJSON($0) } ?? .null),
                    ] + instants.json(decision))
                })),
            ])
        }

        /// The records, and each gate's answer or how to ask one; then why every gate runs,
        /// when the device starts afresh.
        func text() -> StyledText {
            let (records, zone, zoneName, library) = (load.held, options.givenZone, options.zoneName, options.library)
            let instants = options.instants
            // With a zone, the instant in it too (the UTC text alone, labelled with the zone, read as local).
            let now = instants.now
            let shownNow = instants.text(now) + (zone.map { " = " + instants.local(now, $0) } ?? "")
            var out = StyledText()
            out += "now \(shownNow) (\(UntrustedText.escaped(zoneName))), app version \(options.appVersion.map(UntrustedText.quoted) ?? "none")"
                + (library == .v2 ? "" : ", YCFirstTime \(library.rawValue) rules") + "\n"
            if !options.settings.isDefault {
                // The locale as Foundation resolved it (`zh_TW` is `zh_TW`; its calendar and week rules follow).
                let locale = calendar.locale.flatMap { $0.identifier.isEmpty ? nil : ", locale \(UntrustedText.escaped($0.identifier))" } ?? ""
                out += "calendar \(Ycft.CalendarSettings.name(of: calendar))\(locale), first weekday \(calendar.firstWeekday), "
                    + "minimum days in first week \(calendar.minimumDaysInFirstWeek)\n"
            }
            out += "\n"
            // A local-time column only when --time-zone names a zone (two UTC columns say nothing).
            var rows = [["KEY", "LAST VERSION", "LAST TIME (UTC)"] + (zone == nil ? [] : ["LAST TIME (\(UntrustedText.escaped(zoneName)))"]) + ["AGE"]]
            // Keys (of records and gates) that look like another are written out, in quotes, so
            // that two rows differ; then a key that holds a quote is quoted too, so that `"ab"`
            // cannot pass for the key `ab` written out.
            let alike = Suggestion.lookAlike(records.map(\.key) + decisions.map(\.0.key))
            let quoting = alike.contains(true)
            func shown(_ key: String, _ i: Int) -> String {
                alike[i] || quoting && key.contains("\"") ? UntrustedText.spelledOut(key) : UntrustedText.escaped(key)
            }
            for (i, (key, record)) in records.enumerated() {
                let t = record.lastTime
                var row = [shown(key, i), record.lastVersion.map(UntrustedText.escaped) ?? "-",
                           t.map { ExactTime.utcText(secondsSince2001: $0) } ?? "-"]
                if let zone { row.append(t.map { local($0, zone) } ?? "-") }
                row.append(t.map { age(now - $0) } ?? "-")
                rows.append(row)
            }
            out += records.count == 0 ? StyledText("no records\n") : StyledText.table(rows)
            if quoting {
                out += "(keys in quotes look like another key but are other characters: written out beyond ASCII)\n"
            }
            if decisions.isEmpty {
                // The question status answers needs a gate: say how to ask it, with a key of the file.
                // (A key the shell would take apart, or that holds `=`, is not offered as the example.)
                let example = records.map(\.key).first { !$0.contains("=") && LaunchArguments.shellWord($0) == $0 } ?? "onboarding.v1"
                out += "\nno --gate given: add --gate KEY=RULE to ask whether a gate runs now "
                    + "(like --gate \(example)=once, or days:30, per-version, daily; see ycft status --help)\n"
            } else {
                var gateRows = [["GATE", "RULE", "RUNS NOW", "NEXT ELIGIBLE (UTC)"]]
                for (n, (gate, decision)) in decisions.enumerated() {
                    gateRows.append([shown(gate.key, records.count + n) + (load.records[gate.key] == nil ? " (never run)" : ""), UntrustedText.escaped(gate.text) + (intervalSeconds(gate.rule, library: library).map { " (\($0) s)" } ?? ""),
                                     decision.wouldRun ? "yes" : "no", instants.next(decision, gate.rule)])
                }
                out += "\n"
                out += StyledText.table(gateRows, styles: [2: ["yes": .runs, "no": .waits]])
                // Below the table, so the RULE column stays narrow.
                var noted: [String] = []
                for (gate, _) in decisions where addsNothing(gate.rule) && !noted.contains(gate.text) {
                    noted.append(gate.text)
                    out += "\(UntrustedText.escaped(gate.text)): Foundation adds nothing for this unit (date(byAdding:) is nil), so IntervalClient runs the gate every time\n"
                }
            }
            if load.noState {
                out += "\nno YCFirstTime state yet (\(Ycft.noStateKeys(options.key))): every gate runs as on a fresh install\n"
            }
            if let reset = load.resetsAll {
                out += "\nYCFirstTime would discard this state ([\(reset.rule.rawValue)] \(UntrustedText.sanitized(reset.located))): "
                    + "every gate runs as on a fresh install\n"
                if load.unread { out += "('ycft reset --force' removes it, as the app's reset() would)\n" }
            }
            return out
        }
    }

    /// The nominal interval of a YCFirstTime `days:<n>` gate: `Double(days)` days of 86,400
    /// seconds (84,600 for 1.x), for display; the decision is the library's own expression.
    static func intervalSeconds(_ rule: GateRule, library: LibraryVersion) -> Double? {
        guard case let .everyDays(days) = rule, days > 0 else { return nil }
        return Double(days) * (library == .v1 ? RunRules.legacyDay : RunRules.day)
    }

    /// Whether the gate's calendar unit is one Foundation cannot add (`date(byAdding:)` is
    /// nil), so IntervalClient runs it every time.
    static func addsNothing(_ rule: GateRule) -> Bool {
        guard case let .calendar(interval) = rule else { return false }
        return interval.unit?.addsNothing == true
    }

    static func utc(_ t: Double) -> JSON {
        ExactTime.utcString(secondsSince2001: t).map { .string($0) } ?? .null
    }

    /// How `status` writes the instants it judges: `now` (its line, the JSON's `now`) and each
    /// next eligible moment (NEXT ELIGIBLE, `nextEligibleUTC`). One formatter, so that a gate
    /// that runs now (its next eligible moment is `now`, the same double) is shown as `now`
    /// is, to the digit. `now` is `--now` exactly as given (no double holds `.1234564`); any
    /// other instant, the clock's reading included, is rounded up to the microsecond (never
    /// before it, so asking again at the moment shown answers yes).
    struct Shown {
        /// The instant judged at: `--now`'s, or the clock's, read once.
        let now: Double
        /// `--now` in UTC exactly as given; nil for the clock.
        let nowText: String?

        /// The instant as ISO 8601 UTC; nil outside years 1-9999.
        func callAsFunction(_ t: Double) -> String? {
            if t == now, let nowText { return nowText }
            return ExactTime.utcStringRoundedUp(secondsSince2001: t)
        }

        /// The instant for the text table: outside years 1-9999, what it is (`beyond year 9999`).
        func text(_ t: Double) -> String { self(t) ?? ExactTime.utcText(secondsSince2001: t) }

        /// When a gate is next eligible, for the text: the instant (``text(_:)``), else never,
        /// or, for a per-version gate that does not run now, once the app's version changes.
        func next(_ decision: GateDecision, _ rule: GateRule) -> String {
            decision.nextEligible.map(text) ?? (rule == .perVersion ? "when the app version changes" : "never")
        }

        /// A gate's answer in JSON: `wouldRun`, `nextEligible` (exact) and `nextEligibleUTC`.
        func json(_ decision: GateDecision) -> [JSON.Member] {
            [
                .init("wouldRun", .bool(decision.wouldRun)),
                .init("nextEligible", RecordsFormat.timeJSON(decision.nextEligible)),
                .init("nextEligibleUTC", decision.nextEligible.flatMap(callAsFunction).map { .string($0) } ?? .null),
            ]
        }

        /// The instant in `zone`, the very digits of ``callAsFunction(_:)`` moved by the zone's
        /// whole-second offset (so the two texts of `now` are one instant to the digit).
        func local(_ t: Double, _ zone: TimeZone) -> String {
            guard let utc = self(t), let shown = ExactTime.parseUTC(utc) else { return StatusCommand.local(t, zone) }
            let offset = zone.secondsFromGMT(for: Date(timeIntervalSinceReferenceDate: Double(shown.seconds)))
            guard let text = ExactTime.utcText(seconds: shown.seconds + Int64(offset), fraction: shown.fraction) else {
                return StatusCommand.local(t, zone)
            }
            return String(text.dropLast()) + ExactTime.offsetSuffix(seconds: offset)
        }
    }

    /// `2025-01-01T10:00:00.123456+01:00` in `zone`; for an instant outside years 1-9999 what
    /// `ExactTime.utcText(secondsSince2001:)` says of it.
    static func local(_ t: Double, _ zone: TimeZone) -> String {
        guard ExactTime.utcString(secondsSince2001: t) != nil else { return ExactTime.utcText(secondsSince2001: t) }
        let offset = zone.secondsFromGMT(for: Date(timeIntervalSinceReferenceDate: t))
        guard let text = ExactTime.utcString(secondsSince2001: t + Double(offset)) else { return ExactTime.utcText(secondsSince2001: t + Double(offset)) }
        return String(text.dropLast()) + ExactTime.offsetSuffix(seconds: offset)
    }

    static func age(_ seconds: Double) -> String {
        guard seconds.isFinite else { return "-" }
        let negative = seconds < 0
        // Whole seconds fit Int64 up to 2^63; beyond about 2^53 a double has no whole seconds to show.
        guard seconds.magnitude < 0x1p53 else { return (negative ? "in the future by " : "") + "more than 104249991374d" }
        var s = Int64(seconds.magnitude.rounded(.down))
        let days = s / 86_400; s %= 86_400
        let text = days > 0 ? "\(days)d \(s / 3600)h \(s / 60 % 60)m" : "\(s / 3600)h \(s / 60 % 60)m \(s % 60)s"
        return negative ? "in the future by \(text)" : text
    }
}
