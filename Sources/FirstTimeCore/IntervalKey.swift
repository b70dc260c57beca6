package import PlistCore

/// IntervalClient's keys in a defaults domain: `interval.<name>` = seconds since 1970.
package enum IntervalKey {
    /// The prefix of IntervalClient keys in a defaults domain: `interval.<name>`.
    package static let prefix = "interval."
    /// Seconds from 1970-01-01 to 2001-01-01: IntervalClient counts from 1970, NSDate from 2001.
    package static let epochOffset: Double = 978_307_200

    /// The time (seconds since 2001) an `interval.*` key holds for `time`, read back: the
    /// key counts from 1970 in a double, which holds a time since 2001 to its nearest value
    /// (`-0.0` becomes `0.0`; a fraction may move by a few hundred nanoseconds).
    package static func storedTime(_ time: Double) -> Double { (time + epochOffset) - epochOffset }

    /// A stored `interval.*` value as IntervalClient reads it (`as? TimeInterval`, which
    /// bridges an `NSNumber` when exact): a real (a 4-byte one widened), an integer a double holds exactly, or a
    /// boolean (1 or 0); nil for anything else (the gate runs as if it never ran).
    package static func seconds(_ stored: PlistValue) -> Double? {
        switch stored {
        case .real, .real32: return stored.realValue
        case let .integer(.signed(i)): return Double(exactly: i)
        case let .integer(.unsigned(u)): return Double(exactly: u)
        case let .bool(b): return b ? 1 : 0
        default: return nil
        }
    }

    /// The records IntervalClient keys hold (every `interval.*` entry; versions nil), an
    /// ``ContractRule/intervalValue`` finding for each value IntervalClient cannot read (its
    /// gate runs as if it never ran; the value is not state), and a
    /// ``ContractRule/timeNonFinite`` finding for each NaN or infinite time.
    ///
    /// - Parameters:
    ///   - copyOf: the records of the form the keys copy (`StateSource.forms` decides when); only
    ///     keys that name one of them are read, the others being IntervalClient's own gates. Nil
    ///     when the keys are the state.
    /// - Throws: ``FirstTimeError/duplicateKey(_:at:)`` when two keys name the same gate.
    package static func read(_ entries: some Sequence<(key: String, value: PlistValue)>,
                                       copyOf primary: FirstTimeRecords? = nil) throws(FirstTimeError) -> ArchiveJudgement {
        var records: [(key: String, record: FirstTimeRecord)] = []
        var findings: [ContractFinding] = []
        for (name, stored) in entries where name.hasPrefix(prefix) {
            if let primary, primary[String(name.dropFirst(prefix.count))] == nil { continue }
            guard let seconds = seconds(stored) else {
                findings.append(ContractFinding(.intervalValue, at: .key(name),
                                                "holds \(stored.typeName), not a number IntervalClient can read: its gate runs as if it never ran"))
                continue
            }
            let block = String(name.dropFirst(prefix.count)), time = seconds - epochOffset
            if let finding = ContractRule.nonFiniteTime(time, named: "the value", at: .key(name), record: block) { findings.append(finding) }
            records.append((block, FirstTimeRecord(lastVersion: nil, lastTime: time)))
        }
        return ArchiveJudgement(records: try FirstTimeRecords(records), findings: findings)
    }
}
