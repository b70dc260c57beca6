import FirstTimeArchive
import FirstTimeCore
import Plist
import PlistCore

/// One file (and `--key`) that holds something other than YCFirstTime state, and what ycft's one
/// judge (`StateFile.heldState()`) says of it. Every command is tested against the same list
/// (``NotStateFiles/all``): nothing may be written, every refusal names the file and why.
package struct NotStateFile: Sendable, CustomStringConvertible {
    /// A short name for test output.
    package var name: String
    /// The file's bytes.
    package var bytes: [UInt8]
    /// The `--key` given, or nil for the default (`YCFirstTime`).
    package var key: String?
    /// Why it holds no state: the message after `ycft: FILE: `.
    package var judgement: String
    /// What `pack --into` and `migrate` say: the same judgement for a defaults domain whose
    /// key holds something else, `top level: the file is ..., not a defaults domain` otherwise.
    package var notDefaults: String? = nil
    /// The rule by which `status` says the device would discard the state (YCFirstTime's
    /// unarchive of such data fails, or the value is not data at all), or nil when the device
    /// reads it but it is not YCFirstTime state.
    package var deviceDiscards: String? = nil
    /// The rule `verify` reports, or nil for `state-missing`.
    package var verifyRule: String? { deviceDiscards }

    /// `--key KEY`, or nothing.
    package var keyArguments: [String] { key.map { ["--key", $0] } ?? [] }
    /// The refusal of a command that writes or migrates a defaults file.
    package var defaultsJudgement: String { notDefaults ?? judgement }

    package var description: String { name }
}

/// The files and keys that are not YCFirstTime state, built once for every command's tests.
package enum NotStateFiles {
    /// Another library's NSKeyedArchiver archive: its root is an NSArray.
    package static let foreignArchive: [UInt8] = AppleStyleBinaryWriter.write(archiveValue([
        .string("$null"),
        object([("NS.objects", .array([.uid(2)])), ("$class", .uid(3))]),
        .string("x"),
        classObject(["NSArray", "NSObject"]),
    ]))

    /// Another library's settings archived by NSKeyedArchiver as an NSMutableDictionary, the
    /// class YCFirstTime's root has, but holding `theme` and `lang` and no `sharedGroup`.
    package static let foreignDictionary: [UInt8] = AppleStyleBinaryWriter.write(archiveValue([
        .string("$null"),
        dictObject(keys: [2, 3], values: [4, 5], classUID: 6),
        .string("theme"), .string("lang"), .string("dark"), .string("en"),
        classObject(["NSMutableDictionary", "NSDictionary", "NSObject"]),
    ]))

    /// A preferences domain with a value of every kind under a key that is not YCFirstTime's,
    /// and no YCFirstTime state at all.
    package static let preferences: [UInt8] = plist(.dictionary(PlistDictionary([
        ("settings", .dictionary(PlistDictionary([("sound", .bool(true))]))),
        ("name", .string("n")),
        ("count", .integer(.signed(3))),
        ("blob", .data(Array("xyz".utf8))),
        ("foreign", .data(foreignArchive)),
        ("plist", .data(plist(.dictionary(PlistDictionary([("a", .integer(.signed(1)))]))))),
        ("AppSettings", .data(foreignDictionary)),
    ])))

    /// Every case.
    package static let all: [NotStateFile] = {
        let root = "$objects[1]: expected NSMutableDictionary (root), found NSArray"
        var cases = [
            NotStateFile(name: "another library's archive", bytes: foreignArchive, key: nil, judgement: root,
                         notDefaults: "top level: the file is a keyed archive, not a defaults domain", deviceDiscards: "root-class"),
        ]
        for (name, value, type, article) in [("array", PlistValue.array([.integer(.signed(1))]), "array", "an array"),
                                             ("string", .string("hello"), "string", "a string"),
                                             ("number", .integer(.signed(42)), "integer", "an integer"),
                                             ("data", .data([0, 1]), "data", "data")] {
            cases.append(NotStateFile(name: "top-level \(name)", bytes: plist(value), key: nil,
                                      judgement: "top level: the top level is \(type), not an archive dictionary",
                                      notDefaults: "top level: the file is \(article), not a defaults domain", deviceDiscards: "envelope-objects"))
        }
        cases += [
            NotStateFile(name: "$archiver only", bytes: plist(.dictionary(PlistDictionary([("$archiver", .string("NSKeyedArchiver")),
                                                                                            ("x", .integer(.signed(1)))]))),
                         key: nil, judgement: "$version: missing $version",
                         notDefaults: "top level: the file is a keyed archive, not a defaults domain", deviceDiscards: "envelope-version"),
            NotStateFile(name: "$objects only", bytes: plist(.dictionary(PlistDictionary([("$objects", .array([.string("$null")])),
                                                                                           ("x", .integer(.signed(1)))]))),
                         key: nil, judgement: "$archiver: missing $archiver",
                         notDefaults: "top level: the file is a keyed archive, not a defaults domain", deviceDiscards: "envelope-archiver"),
            NotStateFile(name: "--key naming data that is not a plist", bytes: preferences, key: "blob",
                         judgement: #""blob" holds data that is not an archive: not a property list (neither binary 'bplist00' nor XML)"#, deviceDiscards: "plist-unreadable"),
            NotStateFile(name: "--key naming another library's archive", bytes: preferences, key: "foreign",
                         judgement: #""foreign" holds data that is not a readable YCFirstTime archive: \#(root)"#, deviceDiscards: "root-class"),
            NotStateFile(name: "--key naming a plist that is no archive", bytes: preferences, key: "plist",
                         judgement: #""plist" holds data that is not a readable YCFirstTime archive: $archiver: missing $archiver"#,
                         deviceDiscards: "envelope-archiver"),
        ]
        return cases
    }()

    /// A value under the archive key that is not data (a dictionary, a string, a number):
    /// YCFirstTime reads no state from it (`UserDefaults.data(forKey:)` is nil), so the reading
    /// commands answer with an empty state and the writers refuse it unless forced.
    package static let notData: [NotStateFile] = [
        NotStateFile(name: "YCFirstTime holding a dictionary", bytes: plist(.dictionary(PlistDictionary([
            ("before", .string("kept")), ("YCFirstTime", .dictionary(PlistDictionary([("a", .bool(true))]))), ("after", .integer(.signed(1))),
        ]))), key: nil, judgement: #""YCFirstTime" holds dictionary, expected archive data"#, deviceDiscards: "state-not-data"),
        NotStateFile(name: "YCFirstTime holding a string", bytes: plist(.dictionary(PlistDictionary([
            ("YCFirstTime", .string("x")), ("other", .bool(false)),
        ]))), key: nil, judgement: #""YCFirstTime" holds string, expected archive data"#, deviceDiscards: "state-not-data"),
        NotStateFile(name: "--key naming a dictionary", bytes: preferences, key: "settings",
                     judgement: #""settings" holds dictionary, expected archive data"#, deviceDiscards: "state-not-data"),
        NotStateFile(name: "--key naming a string", bytes: preferences, key: "name",
                     judgement: #""name" holds string, expected archive data"#, deviceDiscards: "state-not-data"),
        NotStateFile(name: "--key naming a number", bytes: preferences, key: "count",
                     judgement: #""count" holds integer, expected archive data"#, deviceDiscards: "state-not-data"),
    ]

    /// A defaults domain without YCFirstTime state (`preferences` under the default key).
    package static let noState = preferences

    private static func plist(_ value: PlistValue) -> [UInt8] {
        (try? PropertyList.write(value, format: .binary)) ?? []
    }
}
