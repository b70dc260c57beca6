import Foundation
import Plist

extension Ycft {
    /// An instant from the command line (`status --now`, `set --last-time`): the one vocabulary
    /// for instants, so every command takes the same words.
    struct Instant {
        /// Seconds since 2001 (the nearest double).
        let seconds: Double
        /// The instant in UTC exactly as given (its fraction never rounded), or nil for `now`.
        let exactText: String?

        /// Parses ISO 8601 with `Z` or an offset (`2025-01-01T10:00:00.5+01:00`) or `now`.
        /// - Parameters:
        ///   - what: the option as usage errors name it (`--now <time>`).
        ///   - clock: the current time, for `now`.
        ///   - also: what else the option takes, for the error (`seconds since 2001 with --seconds`).
        /// - Throws: a usage error naming what is accepted.
        static func parse(_ text: String, for what: String, clock: () -> Double, also: String? = nil) throws(UsageError) -> Instant {
            if text == "now" { return Instant(seconds: clock(), exactText: nil) }
            guard let parsed = ExactTime.parseExactInstant(text) else {
                throw UsageError("The value '\(text)' is invalid for '\(what)': expected ISO 8601 like 2025-01-01T09:00:00Z or "
                                 + "2025-01-01T10:00:00+01:00, " + (also.map { "'now', or \($0)" } ?? "or 'now'"))
            }
            return Instant(seconds: ExactTime.secondsSince2001(seconds: parsed.seconds, fraction: parsed.fraction),
                           exactText: ExactTime.utcText(seconds: parsed.seconds, fraction: parsed.fraction))
        }
    }

    /// The word for the system's time zone wherever a zone is taken.
    static let localZone = "local"

    /// A time zone from the command line: an IANA name, or `local` for the system's zone
    /// (`TZ`, else `/etc/localtime`), named by its identifier.
    /// - Returns: the zone's name as shown (`local` resolved) and the zone.
    /// - Throws: a usage error for a name Foundation does not know.
    static func zone(_ text: String, for what: String) throws(UsageError) -> (name: String, zone: TimeZone) {
        if text == localZone {
            let zone = TimeZone.current
            return (zone.identifier, zone)
        }
        guard let zone = TimeZone(identifier: text) else {
            throw UsageError("The value '\(text)' is invalid for '\(what)': expected an IANA name like Europe/Paris, or 'local'")
        }
        return (text, zone)
    }
}
