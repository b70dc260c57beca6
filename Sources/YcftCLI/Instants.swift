#if canImport(FoundationEssentials)
import FoundationEssentials
import FoundationInternationalization
#else
import Foundation
#endif
import PlistCore
import SafeFiles

extension Ycft {
    /// The current time in seconds since 2001: what `now` means to every command.
    static func now() -> Double { Date().timeIntervalSinceReferenceDate }

    /// An instant from the command line (`status --now`, `set --last-time`): the one vocabulary
    /// for instants, so every command takes the same words.
    struct Instant {
        /// Seconds since 2001 (the nearest double).
        let seconds: Double
        /// The instant in UTC exactly as given (its fraction never rounded), or nil for `now`.
        let exactText: String?

        /// Parses ISO 8601 with `Z` or an offset (`2025-01-01T10:00:00.5+01:00`), or `now`; and
        /// what people type to `date -d`: a space for the `T`, minutes without seconds
        /// (`2025-03-01 10:00`), a date alone (`2025-02-01`, its midnight). A time without `Z`
        /// or an offset is a wall-clock time in `zone` (UTC unless given).
        /// - Parameters:
        ///   - what: the option as usage errors name it (`--now <time>`).
        ///   - clock: the current time, for `now`.
        ///   - zone: where a time without `Z` or an offset is read, and its name for errors.
        ///   - zoneSaid: where such a time is read, as the usage error says it.
        ///   - also: what else the option takes, for the error (`seconds since 2001 with --seconds`).
        /// - Throws: a usage error naming what is accepted, or saying what is wrong with a time
        ///   of that form (a leap second, more than nine fractional digits:
        ///   ``PlistCore/ExactTime/InstantDefect``), or a wall-clock time the zone skips or repeats.
        static func parse(_ text: String, for what: String, clock: () -> Double, zone: (name: String, zone: TimeZone)? = nil,
                          zoneSaid: String = "UTC", also: String? = nil) throws(UsageError) -> Instant {
            if text == "now" { return Instant(seconds: clock(), exactText: nil) }
            if let edge = [text.first, text.last].firstIndex(where: { $0?.isWhitespace == true }) {
                throw UsageError("The value '\(text)' is invalid for '\(what)': it \(edge == 0 ? "begins" : "ends") with a space; "
                                 + "give the time alone")
            }
            let written = canonical(text)
            var parsed = try exact(written, as: text, for: what)
            if parsed == nil { parsed = try wallClock(written, as: text, for: what, in: zone) }
            guard let parsed else {
                throw UsageError("The value '\(text)' is invalid for '\(what)': expected a time like 2025-01-01T09:00:00Z, "
                                 + "2025-01-01T10:00+01:00, 2025-01-01 10:00 or 2025-01-01 (without Z or an offset: \(zoneSaid)), "
                                 + (also.map { "'now', or \($0)" } ?? "or 'now'"))
            }
            return Instant(seconds: ExactTime.secondsSince2001(seconds: parsed.seconds, fraction: parsed.fraction),
                           exactText: ExactTime.utcText(seconds: parsed.seconds, fraction: parsed.fraction))
        }

        /// `text` as ISO 8601 spells it where `date` and git spell it otherwise: a comma for the
        /// decimal point (`date -Ins`: `11:57:29,770033253`), an offset without its colon
        /// (`date +%FT%T%z`: `+0000`), a space before the offset (`git log --format=%ci`:
        /// `2026-12-07 11:50:53 +0000`). The fraction's digits are kept as they are.
        static func canonical(_ text: String) -> String {
            var bytes = Array(text.utf8)
            func digits(_ range: Range<Int>) -> Bool { range.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[$0]) } }
            func sign(_ i: Int) -> Bool { bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") }
            // The comma after the seconds of `YYYY-MM-DD?HH:MM:SS`.
            if bytes.count > 20, bytes[16] == UInt8(ascii: ":"), bytes[19] == UInt8(ascii: ",") { bytes[19] = UInt8(ascii: ".") }
            // An offset at the end, after the time (`HH:MM` at least): `±HHMM`, then the space before it.
            let end = bytes.count
            if end >= 21, sign(end - 5), digits(end - 4..<end) { bytes.insert(UInt8(ascii: ":"), at: end - 2) }
            let start = bytes.count - 6
            if start > 16, sign(start), bytes[start + 3] == UInt8(ascii: ":"), digits(start + 1..<start + 3),
               bytes[start - 1] == UInt8(ascii: " ") {
                bytes.remove(at: start - 1)
            }
            return String(decoding: bytes, as: UTF8.self)
        }

        /// `text` as ISO 8601 reads (``PlistCore/ExactTime/exactInstant(_:)``); nil when it is not of
        /// that form. `given` is the text as given, for errors.
        /// - Throws: a usage error for a time of that form that is no instant ycft reads.
        static func exact(_ text: String, as given: String, for what: String) throws(UsageError) -> (seconds: Int64, fraction: String)? {
            do throws(ExactTime.InstantDefect) { return try ExactTime.exactInstant(text) } catch {
                guard error == .malformed else { throw UsageError("The value '\(given)' is invalid for '\(what)': \(error)") }
                return nil
            }
        }

        /// `YYYY-MM-DD`, or `YYYY-MM-DD` then `T` or a space and `HH:MM[:SS[.fraction]]`, with
        /// `Z` or an offset or neither (then a wall-clock time in `zone`, UTC when nil): the
        /// instant, exactly (whole seconds since 2001 and the fraction's digits); nil when `text`
        /// is not of that form.
        /// `given` is the text as given, for errors.
        /// - Throws: a usage error for a time of that form that is no instant (``exact(_:as:for:)``),
        ///   or for a wall-clock time `zone` skips (a spring-forward gap) or
        ///   repeats (when its clocks move back).
        static func wallClock(_ text: String, as given: String, for what: String,
                              in zone: (name: String, zone: TimeZone)?) throws(UsageError) -> (seconds: Int64, fraction: String)? {
            let utf8 = Array(text.utf8)
            guard utf8.count >= 10 else { return nil }
            var body = String(decoding: utf8.prefix(10), as: UTF8.self)
            var rest = String(decoding: utf8.dropFirst(10), as: UTF8.self)
            if rest.isEmpty {
                rest = "T00:00:00"
            } else {
                guard rest.hasPrefix(" ") || rest.hasPrefix("T") else { return nil }
                rest = "T" + rest.dropFirst()
            }
            // Minutes without seconds: `THH:MM`, then the zone or nothing.
            let time = Array(rest.utf8)
            if time.count >= 6, time[3] == UInt8(ascii: ":"), time.count == 6 || !(0x30...0x39).contains(time[6]) && time[6] != UInt8(ascii: ":") {
                rest = String(decoding: time.prefix(6), as: UTF8.self) + ":00" + String(decoding: time.dropFirst(6), as: UTF8.self)
            }
            body += rest
            // With its own zone: ISO 8601 as ycft reads it; without, read as UTC first.
            if let instant = try exact(body, as: given, for: what) { return instant }
            guard let asUTC = try exact(body + "Z", as: given, for: what) else { return nil }
            guard let zone else { return asUTC }
            // The wall-clock time in the zone: the instant some offset of the zone maps to it;
            // none in a skipped hour, two in a repeated one (when the clocks move back), where
            // `date -d` picks one without a word and a gate would be judged an hour off.
            let wall = asUTC.seconds
            let candidates = Set([wall - 14 * 3600, wall + 14 * 3600, wall].map { probe in
                Int64(zone.zone.secondsFromGMT(for: Date(timeIntervalSinceReferenceDate: Double(probe))))
            })
            let instants = candidates.map { wall - $0 }.filter { instant in
                Int64(zone.zone.secondsFromGMT(for: Date(timeIntervalSinceReferenceDate: Double(instant)))) == wall - instant
            }
            if instants.count == 1, let instant = instants.first { return (instant, asUTC.fraction) }
            if instants.count > 1 {
                throw UsageError("The value '\(given)' is invalid for '\(what)': that wall-clock time happens twice in \(zone.name) "
                                 + "(its clocks move back then); give an offset or Z")
            }
            throw UsageError("The value '\(given)' is invalid for '\(what)': \(zone.name) skips that wall-clock time "
                             + "(its clocks move forward then); give an offset or Z")
        }
    }

    /// A time zone from the command line: an IANA name, or `local` for the system's zone
    /// (`TZ`, else `/etc/localtime`), named by its identifier.
    /// - Parameters:
    ///   - zoneDirectory: where the C library looks up a `TZ` that is no path (its `TZDIR`).
    /// - Returns: the zone's name as shown (`local` resolved) and the zone.
    /// - Throws: a usage error for a name Foundation does not know, for a `GMT±N`/`UTC±N` name
    ///   (Foundation and the zone database read its sign the opposite ways), and for a `TZ` the
    ///   C library reads as a POSIX rule.
    static func zone(_ text: String, for what: String,
                     tz: String? = ProcessInfo.processInfo.environment["TZ"],
                     zoneDirectory: String = "/usr/share/zoneinfo") throws(UsageError) -> (name: String, zone: TimeZone) {
        if text == "local" {
            guard let tz else {
                let zone = TimeZone.current
                return (zone.identifier, zone)
            }
            // TZ as glibc reads it: an optional leading ':', then the zone file of that name
            // (a path, or a name in the zone database); empty is UTC. What names no file is a
            // POSIX rule (`XYZ-3:30`, `GMT+1`, whose offsets are west of UTC: GMT+1 is -01:00).
            // Foundation reads only a bare name, falls back to UTC without a word for the rest,
            // and reads `GMT+1` as +01:00; so ycft reads TZ itself: a path by the name of the
            // file it leads to in the zone database, and no POSIX rule (refused rather than
            // judged in the wrong zone).
            var name = tz.hasPrefix(":") ? String(tz.dropFirst()) : tz
            if name.isEmpty { return ("UTC", TimeZone.gmt) }
            let path = name.hasPrefix("/")
            let file = path ? name : zoneDirectory + "/" + name
            guard let resolved = SafeFile.realPath(file) else {
                // What the C library makes of a simple rule, and the zone database's name for it.
                let rule = posixOffset(name).map { offset in
                    let shown = ExactTime.offsetSuffix(seconds: offset)
                    let other = ExactTime.offsetSuffix(seconds: -offset)
                    return (" (\(name) is \(shown) there: POSIX offsets are west of UTC)",
                            [etcName(offset).map { "\($0) for \(shown)" }, etcName(-offset).map { "\($0) for \(other)" }].compactMap { $0 })
                }
                throw UsageError("The value 'local' is invalid for '\(what)': TZ is '\(tz)', which "
                                 + (path ? "leads to no file" : "names no file of the zone database")
                                 + ", so the C library reads it as a POSIX rule\(rule?.0 ?? ""), which ycft does not read; "
                                 + "name the zone instead (like \(((rule?.1 ?? []) + ["Europe/Paris", ":Europe/Paris", "/usr/share/zoneinfo/Europe/Paris"]).joined(separator: ", ")))")
            }
            let database = path ? resolved.firstRange(of: "zoneinfo/") : nil
            if path, let database { name = String(resolved[database.upperBound...]) }
            guard let zone = TimeZone(identifier: name), foundationOffset(name) == nil else {
                let why = path && database == nil
                    ? "a path that leads to no file of the zone database (\(resolved)), so ycft cannot name its zone"
                    : "not a zone name ycft can read"
                throw UsageError("The value 'local' is invalid for '\(what)': TZ is '\(tz)', which is \(why) "
                                 + "(like Europe/Paris, :Europe/Paris, :/etc/localtime when it links into the zone database, "
                                 + "or /usr/share/zoneinfo/Europe/Paris); name the zone instead")
            }
            return (name, zone)
        }
        if let offset = foundationOffset(text) {
            let east = ExactTime.offsetSuffix(seconds: offset)
            throw UsageError("The value '\(text)' is invalid for '\(what)': Foundation reads it as \(east), POSIX TZ as "
                             + "\(ExactTime.offsetSuffix(seconds: -offset)) (the zone database's Etc/GMT±N are POSIX's); give an IANA name "
                             + "like Europe/Paris\(etcName(offset).map { ", or \($0) for \(east)" } ?? "")")
        }
        guard let zone = TimeZone(identifier: text) else {
            throw UsageError("The value '\(text)' is invalid for '\(what)': expected an IANA name like Europe/Paris, or 'local'")
        }
        return (text, zone)
    }

    /// The offset east of UTC, in seconds, Foundation reads from a `GMT±…`/`UTC±…` name that is
    /// not UTC (`GMT+1`, `UTC-03:30`: +01:00, -03:30); nil for any other name. The zone
    /// database's `Etc/GMT+1` and POSIX TZ read the sign the other way (-01:00), so such a name
    /// means two zones; an Apple device reports IANA names as its zone, never this form.
    static func foundationOffset(_ name: String) -> Int? {
        guard name.hasPrefix("GMT+") || name.hasPrefix("GMT-") || name.hasPrefix("UTC+") || name.hasPrefix("UTC-"),
              let offset = TimeZone(identifier: name)?.secondsFromGMT(for: Date(timeIntervalSinceReferenceDate: 0)),
              offset != 0 else { return nil }
        return offset
    }

    /// The zone database's name for a whole-hour offset east of UTC (`Etc/GMT-1` for +01:00),
    /// where it has one (-12 to +14 hours).
    static func etcName(_ offset: Int) -> String? {
        guard offset % 3600 == 0, (-12...14).contains(offset / 3600) else { return nil }
        let hours = -offset / 3600
        return "Etc/GMT" + (hours < 0 ? "\(hours)" : "+\(hours)")
    }

    /// The offset east of UTC, in seconds, a simple POSIX rule `NAME±H[H]` without daylight
    /// time means (`GMT+1`: -3600, offsets in POSIX rules being west of UTC); nil for others.
    static func posixOffset(_ rule: String) -> Int? {
        let name = rule.prefix { $0.isASCII && $0.isLetter }
        let rest = rule.dropFirst(name.count)
        guard name.count >= 3, let sign = rest.first, sign == "+" || sign == "-",
              rest.count <= 3, let hours = Int(rest.dropFirst()), rest.dropFirst().allSatisfy(\.isASCII),
              (0...24).contains(hours) else { return nil }
        return (sign == "+" ? -1 : 1) * hours * 3600
    }

    /// The calendar IntervalClient computes with, as `status` is told it: the device's
    /// `Calendar.current` is the user's calendar (`--calendar`, or the locale's
    /// `@calendar=`), with the week rules of the user's locale (`--locale`), unless overridden
    /// (`--first-weekday`, `--minimum-days-in-first-week`). Nothing given: Foundation's
    /// Gregorian calendar, weeks from Sunday, one day in the first week.
    struct CalendarSettings {
        var identifier: String?
        var locale: String?
        var firstWeekday: Int?
        var minimumDaysInFirstWeek: Int?

        /// The calendar identifiers Foundation knows, by their CLDR names.
        static let known = ["gregorian", "buddhist", "chinese", "coptic", "dangi", "ethioaa", "ethiopic", "hebrew", "indian",
                            "islamic", "islamic-civil", "islamic-tbla", "islamic-umalqura", "iso8601", "japanese", "persian",
                            "roc", "bangla", "gujarati", "kannada", "malayalam", "marathi", "odia", "tamil", "telugu",
                            "vikram", "vietnamese"].filter { name(of: Locale(identifier: "und@calendar=\($0)").calendar) == $0 }

        var isDefault: Bool { identifier == nil && locale == nil && firstWeekday == nil && minimumDaysInFirstWeek == nil }

        /// The calendar's CLDR name (`gregorian`, `hebrew`, `islamic-civil`).
        static func name(of calendar: Calendar) -> String { "\(calendar.identifier)" }

        /// The language codes Foundation has locale data for (`zh`, `sr`, `pa`, `en`).
        static let languages = Set(Locale.availableIdentifiers.map { String($0.prefix { $0 != "_" }) })

        /// The user's locale as `Locale(identifier:)` reads `text` on the device: every
        /// identifier Foundation resolves to a language it has data for, whichever form a phone
        /// reports (`zh_TW`, `zh-Hant-TW`, `sr_RS`, `zh_CN@calendar=chinese`,
        /// `zh-TW-u-ca-chinese`), not only `Locale.availableIdentifiers` (which lists
        /// `zh_Hant_TW`, not `zh_TW`). Refused: what resolves to no such language (`xx_YY`,
        /// `nonsense`, empty), a region Foundation does not know (`de_DF`, whose week rules
        /// would be the world's, not Germany's), and a calendar keyword Foundation does not
        /// know (it would fall back to gregorian without a word).
        /// - Throws: a usage error saying which part Foundation does not know.
        static func locale(_ text: String) throws(UsageError) -> Locale {
            let given = Locale(identifier: text)
            func refused(_ why: String) -> UsageError { UsageError("The value '\(text)' is invalid for '--locale <id>': \(why)") }
            guard let language = given.language.languageCode?.identifier, languages.contains(language) else {
                throw refused("expected a locale identifier Foundation knows, like en_US, de_DE, zh_TW or he_IL@calendar=hebrew")
            }
            if let region = given.region, !region.isISORegion {
                throw refused("region '\(region.identifier)' is not one Foundation knows (expected like US, DE, TW or 419)")
            }
            // The calendar keyword in ICU's form, whichever form was given (`-u-ca-` included).
            let canonical = Locale.identifier(.icu, from: text)
            if let range = canonical.firstRange(of: "calendar=") {
                let named = String(canonical[range.upperBound...].prefix { $0 != ";" })
                guard name(of: given.calendar) == named else {
                    throw refused("calendar '\(named)' is not one of \(known.joined(separator: ", "))")
                }
            }
            return given
        }

        func calendar(in zone: TimeZone) throws(UsageError) -> Calendar {
            var calendar = Calendar(identifier: .gregorian)
            var userLocale: Locale?
            if let locale {
                let given = try Self.locale(locale)
                userLocale = given
                calendar = given.calendar
            }
            if let identifier {
                let named = Locale(identifier: "und@calendar=\(identifier)").calendar
                guard Self.name(of: named) == identifier else {
                    throw UsageError("The value '\(identifier)' is invalid for '--calendar <id>': expected one of \(Self.known.joined(separator: ", "))")
                }
                calendar = Calendar(identifier: named.identifier)
            }
            if let userLocale { calendar.locale = userLocale }
            if let firstWeekday { calendar.firstWeekday = firstWeekday }
            if let minimumDaysInFirstWeek { calendar.minimumDaysInFirstWeek = minimumDaysInFirstWeek }
            calendar.timeZone = zone
            return calendar
        }
    }
}
