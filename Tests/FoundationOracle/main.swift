// An independent decoder and encoder for tests: Linux Foundation's NSKeyedUnarchiver and
// NSKeyedArchiver, with none of ycft's code. It runs as a child process because Foundation
// on Linux calls fatalError on secure-coding violations instead of throwing.
//
//   foundation-oracle decode FILE      prints the records of a YCFirstTime archive
//   foundation-oracle encode OUT       reads records from stdin, archives them to OUT
//
// Records are exchanged as lines, so no JSON or Unicode normalisation sits in between:
//   root CLASS / group CLASS / record KEYHEX VERSIONHEX|- TIMEBITS|-
// where KEYHEX and VERSIONHEX are the UTF-8 bytes in hex and TIMEBITS is the double's bit
// pattern in hex.

import Foundation

final class YCFirstTimeObject: NSObject, NSSecureCoding {
    static var supportsSecureCoding: Bool { true }
    var lastVersion: NSString?
    var lastTime: NSDate?

    init(lastVersion: NSString?, lastTime: NSDate?) {
        self.lastVersion = lastVersion
        self.lastTime = lastTime
    }

    func encode(with coder: NSCoder) {
        coder.encode(lastVersion, forKey: "lastVersion")
        coder.encode(lastTime, forKey: "lastTime")
    }

    init?(coder: NSCoder) {
        lastVersion = coder.decodeObject(of: NSString.self, forKey: "lastVersion")
        lastTime = coder.decodeObject(of: NSDate.self, forKey: "lastTime")
    }
}

func hex(_ bytes: some Sequence<UInt8>) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

func unhex(_ text: Substring) -> [UInt8] {
    var out: [UInt8] = []
    var i = text.startIndex
    while i < text.endIndex {
        let j = text.index(i, offsetBy: 2)
        out.append(UInt8(text[i..<j], radix: 16)!)
        i = j
    }
    return out
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("foundation-oracle: \(message)\n".utf8))
    exit(2)
}

func className(_ object: AnyObject) -> String {
    if object is NSMutableDictionary { return "NSMutableDictionary" }
    if object is NSDictionary { return "NSDictionary" }
    return String(describing: type(of: object))
}

final class DecodeObserver: NSObject, NSKeyedUnarchiverDelegate {
    var dictionaryClasses: [String] = []
    func unarchiver(_ unarchiver: NSKeyedUnarchiver, didDecode object: Any?) -> Any? {
        if let object = object as? NSDictionary { dictionaryClasses.append(className(object)) }
        return object
    }
    func unarchiver(_ unarchiver: NSKeyedUnarchiver, cannotDecodeObjectOfClassName name: String,
                    originalClasses classNames: [String]) -> AnyClass? { nil }
    func unarchiver(_ unarchiver: NSKeyedUnarchiver, willReplace object: Any, with newObject: Any) {}
    func unarchiverDidFinish(_ unarchiver: NSKeyedUnarchiver) {}
    func unarchiverWillFinish(_ unarchiver: NSKeyedUnarchiver) {}
}

func decode(_ path: String) {
    guard let data = FileManager.default.contents(atPath: path) else { fail("cannot read \(path)") }
    NSKeyedUnarchiver.setClass(YCFirstTimeObject.self, forClassName: "YCFirstTimeObject")
    let decoded: Any?
    // Linux Foundation bridges a nested dictionary to a Swift Dictionary when it is read back
    // out of its parent, which hides its class; the delegate sees every object as decoded.
    let observer = DecodeObserver()
    do {
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: data)
        unarchiver.requiresSecureCoding = true
        unarchiver.delegate = observer
        decoded = unarchiver.decodeObject(
            of: [NSMutableDictionary.self, NSDictionary.self, NSString.self, NSDate.self, YCFirstTimeObject.self],
            forKey: NSKeyedArchiveRootObjectKey)
        if let error = unarchiver.error { throw error }
        unarchiver.finishDecoding()
    } catch {
        fail("unarchive failed: \(error)")
    }
    guard let root = decoded as? NSDictionary else { fail("root is not a dictionary") }
    // Dictionaries finish decoding innermost first: the group, then the root.
    let dictionaries = observer.dictionaryClasses
    var out = "root \(dictionaries.last ?? className(root))\n"
    if let group = root.object(forKey: "sharedGroup" as NSString) {
        guard let group = group as? NSDictionary else { fail("sharedGroup is not a dictionary") }
        out += "group \(dictionaries.count == 2 ? dictionaries[0] : "unknown")\n"
        for (key, value) in group {
            guard let key = key as? String else { fail("non-string key") }
            guard let record = value as? YCFirstTimeObject else { fail("value is not YCFirstTimeObject") }
            let version = record.lastVersion.map { hex(($0 as String).utf8) } ?? "-"
            let time = record.lastTime.map { String($0.timeIntervalSinceReferenceDate.bitPattern, radix: 16) } ?? "-"
            out += "record \(hex(key.utf8)) \(version) \(time)\n"
        }
    }
    FileHandle.standardOutput.write(Data(out.utf8))
}

func encode(_ path: String) {
    let input = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
    let group = NSMutableDictionary()
    var rootClass = "NSMutableDictionary", groupClass = "NSMutableDictionary"
    for line in input.split(separator: "\n") {
        let parts = line.split(separator: " ", omittingEmptySubsequences: false)
        switch parts.first {
        case "root": rootClass = String(parts[1])
        case "group": groupClass = String(parts[1])
        case "record":
            let key = String(decoding: unhex(parts[1]), as: UTF8.self)
            let version = parts[2] == "-" ? nil : String(decoding: unhex(parts[2]), as: UTF8.self) as NSString
            let time = parts[3] == "-" ? nil : NSDate(timeIntervalSinceReferenceDate: Double(bitPattern: UInt64(parts[3], radix: 16)!))
            group.setObject(YCFirstTimeObject(lastVersion: version, lastTime: time), forKey: key as NSString)
        default: fail("bad input line \(line)")
        }
    }
    let root = NSMutableDictionary()
    root.setObject(group, forKey: "sharedGroup" as NSString)
    // setClassName(_:for:) has no effect on Linux (the names are fixed up below).
    let data: Data
    do {
        data = try NSKeyedArchiver.archivedData(withRootObject: root, requiringSecureCoding: true)
    } catch {
        fail("archive failed: \(error)")
    }
    // Linux Foundation writes module-qualified class names and archives the nested mutable
    // group as NSDictionary; put back the names Apple writes (the reference's fix-up). Only
    // class-descriptor strings change; every UID and value stays as Foundation wrote it.
    guard var plist = try? PropertyListSerialization.propertyList(from: data, options: [], format: nil) as? [String: Any],
          var objects = plist["$objects"] as? [Any] else { fail("cannot reread archive") }
    for (i, object) in objects.enumerated() {
        guard var descriptor = object as? [String: Any], let name = descriptor["$classname"] as? String else { continue }
        var fixed: [String]?
        if name.hasSuffix(".YCFirstTimeObject") { fixed = ["YCFirstTimeObject", "NSObject"] }
        if name == "NSDictionary" && groupClass == "NSMutableDictionary" { fixed = ["NSMutableDictionary", "NSDictionary", "NSObject"] }
        if name == "NSMutableDictionary" && rootClass == "NSDictionary" { fixed = ["NSDictionary", "NSObject"] }
        if let fixed {
            descriptor["$classname"] = fixed[0]
            descriptor["$classes"] = fixed
            objects[i] = descriptor
        }
    }
    plist["$objects"] = objects
    do {
        let fixed = try PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0)
        try fixed.write(to: URL(fileURLWithPath: path))
    } catch {
        fail("cannot write \(path): \(error)")
    }
}

let arguments = CommandLine.arguments
guard arguments.count == 3 else { fail("usage: foundation-oracle decode FILE | encode OUT") }
switch arguments[1] {
case "decode": decode(arguments[2])
case "encode": encode(arguments[2])
default: fail("unknown mode \(arguments[1])")
}
