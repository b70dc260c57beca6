import Foundation
internal import FirstTimeCore
internal import PlistCore

#if canImport(Darwin)
import CoreFoundation
#endif

/// Property-list values <-> the objects `UserDefaults` stores, exactly: integers stay integers,
/// reals keep their bits, booleans stay booleans, dictionary keys keep their exact scalars.
enum FoundationValues {
    /// Where Foundation's `UserDefaults` keeps keys: exact on Apple platforms (CFPreferences
    /// compares CFStrings literally), merged by canonical equivalence in swift-corelibs-foundation
    /// (its domains and nested dictionaries are Swift dictionaries: "é" and "e\u{301}" become one key).
    #if canImport(Darwin)
    static let mergesEquivalentKeys = false
    #else
    static let mergesEquivalentKeys = true
    #endif

    /// The object `UserDefaults.set(_:forKey:)` stores as `value`.
    /// - Throws: ``FirstTimeError/cannotHold(_:)`` for a UID (no property-list object in
    ///   `UserDefaults` holds one) and, where Foundation merges canonically equivalent keys, for a
    ///   dictionary holding two such keys (one would be lost).
    static func object(_ value: PlistValue, at path: ObjectPath) throws(FirstTimeError) -> Any {
        switch value {
        case let .string(s): return s
        case let .integer(.signed(i)): return NSNumber(value: i)
        case let .integer(.unsigned(u)): return NSNumber(value: u)
        case let .integer(i):
            // A 16-byte integer beyond 64 bits: NSNumber has no public 128-bit form.
            guard let v = i.int64 else { throw .noUserDefaultsForm(.integer, at: path) }
            return NSNumber(value: v)
        case let .real(d): return NSNumber(value: d)
        case let .real32(bits): return NSNumber(value: Float(bitPattern: bits))
        case let .bool(b): return NSNumber(value: b)
        case let .date(d): return Date(timeIntervalSinceReferenceDate: d)
        case let .data(bytes): return Data(bytes)
        case .uid: throw .noUserDefaultsForm(.uid, at: path)
        case let .array(items):
            return try items.enumerated().map { (i, item) throws(FirstTimeError) in try object(item, at: path.index(i)) }
        case let .dictionary(entries):
            try checkKeys(entries.map(\.key), at: path)
            let dictionary = NSMutableDictionary()
            for (key, item) in entries { dictionary[NSString(string: key)] = try object(item, at: path.key(key)) }
            return dictionary
        }
    }

    /// Throws when Foundation would merge two of `keys` (see ``mergesEquivalentKeys``).
    static func checkKeys(_ keys: [String], at path: ObjectPath) throws(FirstTimeError) {
        guard mergesEquivalentKeys else { return }
        var seen: [String: String] = [:]
        for key in keys {
            if let earlier = seen[key], !exactlyEqual(earlier, key) {
                throw .equivalentKeys(earlier, key, at: path)
            }
            seen[key] = key
        }
    }

    /// The property-list value of an object read from `UserDefaults`, or nil for an object no
    /// property list holds. Dictionaries are read entry by entry from the `NSDictionary`, never
    /// bridged whole to a Swift dictionary (which would merge canonically equivalent keys).
    static func value(_ object: Any) -> PlistValue? {
        if type(of: object) is NSNumber.Type, let number = object as? NSNumber {
            return value(number)
        }
        switch object {
        case let b as Bool: return .bool(b)
        case let i as Int: return .integer(.signed(Int64(i)))
        case let i as Int64: return .integer(.signed(i))
        case let i as Int32: return .integer(.signed(Int64(i)))
        case let u as UInt64: return u > UInt64(Int64.max) ? .integer(.unsigned(u)) : .integer(.signed(Int64(u)))
        case let u as UInt: return value(UInt64(u))
        case let d as Double: return .real(d)
        case let f as Float: return .real32(f.bitPattern)
        case let s as String: return .string(s)
        case let d as Data: return .data([UInt8](d))
        case let d as Date: return .date(d.timeIntervalSinceReferenceDate)
        case is NSDictionary, is [AnyHashable: Any]:
            guard let objects = entries(object) else { return nil }
            // In key order (UTF-8 bytes), so a value read from an unordered dictionary is the same every time.
            let entries = objects.compactMap { key, item in value(item).map { (key: key, value: $0) } }.sorted { utf8Precedes($0.key, $1.key) }
            return entries.count == objects.count ? .dictionary(PlistDictionary(entries)) : nil
        case let array as [Any]:
            let items = array.compactMap { value($0) }
            return items.count == array.count ? .array(items) : nil
        default:
            return nil
        }
    }

    /// A dictionary's entries with string keys, read one by one, never bridged whole to a Swift
    /// dictionary (which would merge canonically equivalent keys); nil for anything else or a
    /// key that is not a string. Linux Foundation hands out nested dictionaries (of
    /// `UserDefaults` and of `NSKeyedUnarchiver`) as Swift dictionaries already.
    static func entries(_ object: Any) -> [(key: String, value: Any)]? {
        let pairs: [(key: Any, value: Any)]
        if let dictionary = object as? NSDictionary {
            pairs = dictionary.map { ($0.key, $0.value) }
        } else if let dictionary = object as? [AnyHashable: Any] {
            pairs = dictionary.map { ($0.key.base, $0.value) }
        } else {
            return nil
        }
        let result = pairs.compactMap { pair in (pair.key as? String).map { (key: $0, value: pair.value) } }
        return result.count == pairs.count ? result : nil
    }

    /// An `NSNumber` as the property-list type it was stored as.
    private static func value(_ number: NSNumber) -> PlistValue {
        if isBoolean(number) { return .bool(number.boolValue) }
        switch String(cString: number.objCType) {
        case "d": return .real(number.doubleValue)
        case "f": return .real32(number.floatValue.bitPattern)
        case "Q", "L", "I", "S", "C":
            let u = number.uint64Value
            return u > UInt64(Int64.max) ? .integer(.unsigned(u)) : .integer(.signed(Int64(u)))
        default: return .integer(.signed(number.int64Value))
        }
    }

    private static func isBoolean(_ number: NSNumber) -> Bool {
        #if canImport(Darwin)
        return CFGetTypeID(number) == CFBooleanGetTypeID()
        #else
        // swift-corelibs-foundation makes booleans instances of its private `__NSCFBoolean`.
        return String(describing: type(of: number)) == "__NSCFBoolean"
        #endif
    }
}
