package import OrderedJSON
package import PlistCore

/// The plain, archive-free records format, in its JSON form (what `ycft dump` prints and
/// `ycft pack` reads) and its property-list form (what a migrated app stores under
/// `YCFirstTime.records`): docs/json-format.md describes both, member by member.
package enum RecordsFormat {
    /// The `format` value.
    package static let formatName = "ycfirsttime-records"
    /// The `formatVersion` value.
    package static let formatVersion = 1
    /// The `UserDefaults` key of the property-list form.
    package static let defaultsKey = "YCFirstTime.records"

    // MARK: JSON

    /// A time as the records format writes it: the exact number, `null`, or for a non-finite
    /// time the string `"NaN"`, `"Infinity"` or `"-Infinity"` (the one place this is decided;
    /// `status --format json` uses it too).
    package static func timeJSON(_ time: Double?) -> JSON {
        switch time {
        case nil: return .null
        case let t? where t.isNaN: return .string("NaN")
        case let t? where t.isInfinite: return .string(t < 0 ? "-Infinity" : "Infinity")
        // unreachable: a finite Double always has a JSON number (the cases above took NaN and the infinities)
        case let t?: return JSON.number(t) ?? .string(t.description)
        }
    }

    /// The JSON form of records as text (what `ycft dump` prints), with a trailing newline:
    /// written record by record, with no JSON tree in between (building and releasing the
    /// tree was a large share of a large `dump`, docs/performance.md).
    package static func json(_ records: FirstTimeRecords, style: JSON.Style = .pretty) -> [UInt8] {
        var text: [UInt8] = []
        writeJSON(records, style: style, pieces: .max) { text = $0 }
        return text
    }

    /// ``json(_:style:)``'s text handed to `emit` in pieces of about `pieces` bytes, each as
    /// soon as it is written, so that no buffer of the whole text is made (docs/performance.md,
    /// "Left to the exit"). A piece ends after a record; with `.max`, the text is one piece.
    package static func writeJSON(_ records: FirstTimeRecords, style: JSON.Style = .pretty, pieces: Int = 1 << 16,
                                  to emit: ([UInt8]) -> Void) {
        var writer = JSONWriter(style: style)
        // About what a record takes, pretty, with a 20-byte key and both values: the buffer
        // grows a few times at most.
        let perRecord = 160
        writer.reserve(pieces / perRecord < records.count ? pieces + 4 * perRecord : perRecord * records.count)
        writer.beginObject()
        writer.key(named: "format")
        writer.string(formatName)
        writer.key(named: "formatVersion")
        writer.value(.integer(formatVersion))
        writer.key(named: "records")
        writer.beginObject()
        for (key, record) in records {
            writer.key(key)
            writer.beginObject()
            let time = timeJSON(record.lastTime)
            writer.key(named: "lastTime")
            writer.value(time)
            writer.key(named: "lastTimeUTC")
            // The UTC text from the number's text just written (its shortest round-trip text),
            // straight into the output.
            var utcWritten = false
            if let t = record.lastTime, case let .number(text) = time {
                utcWritten = ExactTime.withUTCText(secondsSince2001: t, shortest: text) { writer.string(utf8: $0) }
            }
            if !utcWritten { writer.null() }
            writer.key(named: "lastVersion")
            if let version = record.lastVersion { writer.string(version) } else { writer.null() }
            writer.endObject()
            if writer.pending >= pieces { emit(writer.take()) }
        }
        writer.endObject()
        writer.endObject()
        emit(writer.finish())
    }

    /// ``json(_:style:)`` as a string.
    package static func jsonText(_ records: FirstTimeRecords, style: JSON.Style = .pretty) -> String {
        String(decoding: json(records, style: style), as: UTF8.self)
    }

    /// Reads the JSON form by docs/json-format.md's rules (`lastTime` wins, `lastTimeUTC` must
    /// agree with it; unknown members are refused, so a typo never silently drops data).
    /// - Throws: ``FirstTimeError/json(_:)`` or ``FirstTimeError/recordsFormat(_:at:)``.
    package static func records(fromJSON bytes: [UInt8]) throws(FirstTimeError) -> FirstTimeRecords {
        let document: JSON
        do { document = try JSON.parse(bytes) } catch { throw .json(error) }
        guard case let .object(top) = document else { throw wrongKind(document, .dictionary, at: .topLevel) }
        var format: String?, version: String?, recordsMember: [JSON.Member]?
        for member in try unique(top, at: .topLevel) {
            switch member.key {
            case "format":
                guard case let .string(s) = member.value else { throw wrongKind(member.value, .string, at: .key("format")) }
                format = s
            case "formatVersion":
                guard case let .number(n) = member.value else { throw wrongKind(member.value, .real, at: .key("formatVersion")) }
                version = n
            case "records":
                guard case let .object(m) = member.value else { throw wrongKind(member.value, .dictionary, at: .key("records")) }
                recordsMember = m
            default:
                throw .recordsFormat(.unknownMember(member.key), at: .topLevel)
            }
        }
        guard format == formatName else {
            throw .recordsFormat(.wrongFormat(found: format), at: .key("format"))
        }
        guard version == String(formatVersion) else {
            throw .recordsFormat(.wrongFormatVersion(found: version), at: .key("formatVersion"))
        }
        guard let recordsMember else { throw .recordsFormat(.missingRecords, at: .topLevel) }
        var entries: [(key: String, record: FirstTimeRecord)] = []
        for member in try unique(recordsMember, at: .key("records")) {
            entries.append((member.key, try record(member.value, at: ObjectPath.key("records").member(member.key))))
        }
        return try FirstTimeRecords(entries)
    }

    /// A JSON value's kind as ``FirstTimeError/RecordsDefect`` names it.
    private static func kind(_ value: JSON) -> PlistKind {
        switch value {
        case .object: return .dictionary
        case .array: return .array
        case .string: return .string
        case .number: return .real
        case .bool: return .bool
        case .null: return .other
        }
    }

    /// The error for a JSON value of another kind than the format needs at `path`.
    private static func wrongKind(_ value: JSON, _ expected: PlistKind, orNull: Bool = false, at path: ObjectPath) -> FirstTimeError {
        .recordsFormat(.jsonKind(expected: expected, orNull: orNull, found: kind(value)), at: path)
    }

    private static func unique(_ members: [JSON.Member], at path: ObjectPath) throws(FirstTimeError) -> [JSON.Member] {
        var seen = Set<[UInt8]>()
        for member in members where !seen.insert(Array(member.key.utf8)).inserted {
            // Only in `records` is a member a block key; elsewhere it is a field of the format.
            if path == .key("records") { throw .duplicateKey(member.key, at: path) }
            throw .recordsFormat(.repeatedMember(member.key), at: path)
        }
        return members
    }

    private static func record(_ value: JSON, at path: ObjectPath) throws(FirstTimeError) -> FirstTimeRecord {
        guard case let .object(members) = value else { throw wrongKind(value, .dictionary, at: path) }
        var record = FirstTimeRecord()
        var time: JSON?, utc: JSON?
        for member in try unique(members, at: path) {
            switch member.key {
            case "lastVersion":
                switch member.value {
                case .null: record.lastVersion = nil
                case let .string(s): record.lastVersion = s
                default: throw wrongKind(member.value, .string, orNull: true, at: path.key("lastVersion"))
                }
            case "lastTime": time = member.value
            case "lastTimeUTC": utc = member.value
            default: throw .recordsFormat(.unknownMember(member.key), at: path)
            }
        }
        var parsedUTC: (seconds: Int64, fraction: String, text: String)?
        switch utc {
        case nil, .null?: break
        case let .string(text)?:
            guard let parsed = ExactTime.parseUTC(text) else {
                throw .recordsFormat(.notUTC(text), at: path.key("lastTimeUTC"))
            }
            parsedUTC = (parsed.seconds, parsed.fraction, text)
        case let other?:
            throw wrongKind(other, .string, orNull: true, at: path.key("lastTimeUTC"))
        }
        switch time {
        case .null? where parsedUTC != nil:
            // `"lastTime": null` says the record has no time: a lastTimeUTC beside it contradicts it.
            throw .recordsFormat(.timesDisagreeNull, at: path)
        case nil, .null?:
            if let parsedUTC {
                let nearest = ExactTime.secondsSince2001(seconds: parsedUTC.seconds, fraction: parsedUTC.fraction)
                guard ExactTime.isStorable(nearest) else {
                    throw .recordsFormat(.utcBeyondYears(parsedUTC.text, nearest: nearest), at: path.key("lastTimeUTC"))
                }
                record.lastTime = nearest
            }
            return record
        case let .number(text)?:
            // The double the number stands for: refused where it would read as an infinity or,
            // not zero, as 0; a subnormal is kept (dump writes one's shortest text).
            do throws(ExactTime.DecimalDefect) { record.lastTime = try ExactTime.seconds(decimal: text, allowingSubnormal: true) } catch {
                throw .recordsFormat(.beyondDouble(text), at: path.key("lastTime"))
            }
        case .string("NaN")?: record.lastTime = .nan
        case .string("Infinity")?: record.lastTime = .infinity
        case .string("-Infinity")?: record.lastTime = -.infinity
        case let other?:
            throw .recordsFormat(.notATime(found: kind(other)), at: path.key("lastTime"))
        }
        if let parsedUTC, let t = record.lastTime {
            let digits = parsedUTC.fraction.count
            let given = ExactTime.scaledUTC(seconds: parsedUTC.seconds, fraction: parsedUTC.fraction)
            guard t.isFinite, let actual = ExactTime.scaled(t, digits: digits), actual == given else {
                throw .recordsFormat(.timesDisagree(lastTime: t), at: path)
            }
        }
        return record
    }

    // MARK: Property-list form

    /// The property-list form: the JSON form's dictionary with `lastTime` as an exact real, nil
    /// fields absent, and no `lastTimeUTC`.
    package static func plist(_ records: FirstTimeRecords) -> PlistValue {
        .dictionary(PlistDictionary([
            ("format", .string(formatName)),
            ("formatVersion", .integer(.signed(Int64(formatVersion)))),
            ("records", .dictionary(PlistDictionary(records.map { key, record in
                var fields: [(key: String, value: PlistValue)] = []
                fields.reserveCapacity(2)
                if let t = record.lastTime { fields.append(("lastTime", .real(t))) }
                if let v = record.lastVersion { fields.append(("lastVersion", .string(v))) }
                return (key, .dictionary(PlistDictionary(fields)))
            }))),
        ]))
    }

    /// Reads the property-list form.
    /// - Throws: ``FirstTimeError/recordsFormat(_:at:)`` naming the first problem.
    package static func records(fromPlist value: PlistValue, at base: ObjectPath = .key(defaultsKey)) throws(FirstTimeError) -> FirstTimeRecords {
        guard case let .dictionary(top) = value else {
            throw .recordsFormat(.plistKind(expected: .dictionary, found: value.kind), at: base)
        }
        for (key, _) in top where !["format", "formatVersion", "records"].contains(key) {
            throw .recordsFormat(.unknownMember(key), at: base)
        }
        switch top["format"] {
        case .string(formatName)?: break
        case let .string(other)?: throw .recordsFormat(.wrongFormat(found: other), at: base.key("format"))
        case nil: throw .recordsFormat(.wrongFormat(found: nil), at: base.key("format"))
        case let other?: throw .recordsFormat(.plistKind(expected: .string, found: other.kind), at: base.key("format"))
        }
        switch top["formatVersion"] {
        case let .integer(version)? where version.int64 == Int64(formatVersion): break
        case let .integer(other)?: throw .recordsFormat(.wrongFormatVersion(found: "\(other)"), at: base.key("formatVersion"))
        case nil: throw .recordsFormat(.wrongFormatVersion(found: nil), at: base.key("formatVersion"))
        case let other?: throw .recordsFormat(.plistKind(expected: .integer, found: other.kind), at: base.key("formatVersion"))
        }
        guard case let .dictionary(recordsDict)? = top["records"] else {
            throw .recordsFormat(.plistKind(expected: .dictionary, found: top["records"]?.kind ?? .other), at: base.key("records"))
        }
        var entries: [(key: String, record: FirstTimeRecord)] = []
        for (key, value) in recordsDict {
            let path = base.key("records").key(key)
            guard case let .dictionary(fields) = value else {
                throw .recordsFormat(.plistKind(expected: .dictionary, found: value.kind), at: path)
            }
            var record = FirstTimeRecord()
            for (field, fieldValue) in fields {
                switch (field, fieldValue) {
                case ("lastTime", .real), ("lastTime", .real32): record.lastTime = fieldValue.realValue
                case let ("lastVersion", .string(v)): record.lastVersion = v
                case ("lastTime", _), ("lastVersion", _):
                    throw .recordsFormat(.plistKind(expected: field == "lastTime" ? .real : .string, found: fieldValue.kind), at: path.key(field))
                default:
                    throw .recordsFormat(.unknownMember(field), at: path)
                }
            }
            entries.append((key, record))
        }
        return try FirstTimeRecords(entries)
    }
}

extension RecordsFormat {
    /// The property-list form as the contract judges it (the plain-records form of a defaults
    /// file): its records (``records(fromPlist:at:)``), and a ``ContractRule/timeNonFinite``
    /// finding for each `lastTime` that is NaN or infinite.
    /// - Throws: what ``records(fromPlist:at:)`` throws.
    package static func judged(fromPlist value: PlistValue, at base: ObjectPath = .key(defaultsKey)) throws(FirstTimeError) -> ArchiveJudgement {
        let records = try records(fromPlist: value, at: base)
        return ArchiveJudgement(records: records, findings: nonFinite(records) { base.key("records").key($0).key("lastTime") })
    }

    /// The JSON form as the contract judges it: its records (``records(fromJSON:)``), and a
    /// ``ContractRule/timeNonFinite`` finding for each `lastTime` that is `"NaN"` or infinite
    /// (`pack` stores it as written, and warns: `verify` fails such an archive).
    /// - Throws: what ``records(fromJSON:)`` throws.
    package static func judged(fromJSON bytes: [UInt8]) throws(FirstTimeError) -> ArchiveJudgement {
        let records = try records(fromJSON: bytes)
        return ArchiveJudgement(records: records, findings: nonFinite(records) { ObjectPath.key("records").member($0).key("lastTime") })
    }

    /// A ``ContractRule/timeNonFinite`` finding for each record whose time is NaN or infinite, at `path(key)`.
    private static func nonFinite(_ records: FirstTimeRecords, at path: (String) -> ObjectPath) -> [ContractFinding] {
        records.compactMap { key, record in
            record.lastTime.flatMap { ContractRule.nonFiniteTime($0, named: "lastTime", at: path(key), record: key) }
        }
    }
}

extension FirstTimeRecords {
    /// Reads records in the plain format's JSON form, exactly as `ycft pack` reads it: unknown
    /// members, repeated keys and a wrong `format` or `formatVersion` are refused, never dropped.
    ///
    /// ```swift
    /// do {
    ///     let records = try FirstTimeRecords(json: Array(text.utf8))
    ///     print(records["onboarding.v1"]?.lastVersion ?? "never run")
    /// } catch let FirstTimeError.recordsFormat(defect, at: path) {
    ///     print("\(path): \(defect)")   // records["k"]: unknown member "lastTme"
    /// }
    /// ```
    /// - Throws: ``FirstTimeError/json(_:)`` for text that is not JSON,
    ///   ``FirstTimeError/recordsFormat(_:at:)`` or ``FirstTimeError/duplicateKey(_:at:)``.
    public init(json bytes: [UInt8]) throws(FirstTimeError) {
        self = try RecordsFormat.records(fromJSON: bytes)
    }

    /// The plain format's JSON form, as `ycft dump` prints it (pretty, with a final newline
    /// left to the caller): exact times, `lastTimeUTC` beside them, records in key order.
    public var json: String { RecordsFormat.jsonText(self) }
}
