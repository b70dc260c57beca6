import Foundation
import Testing
import TestSupport

/// The on-device library links no libplist and nothing newer than iOS 15: its targets'
/// closure, read from Package.swift, holds neither CLibPlist nor a module that links it, and
/// no source file in the closure imports one or uses an API Apple platforms gained in iOS 18.
@Suite struct LayeringTests {
    /// Each target's declared dependencies, from Package.swift's `.target(name:dependencies:)`.
    static func targets() throws -> [String: [String]] {
        let text = try String(contentsOf: TestPaths.packageRoot.appendingPathComponent("Package.swift"), encoding: .utf8)
        var result: [String: [String]] = [:]
        let pattern = try NSRegularExpression(pattern: #"\.(?:target|systemLibrary)\(\s*name:\s*"([^"]+)"(?:\s*,\s*dependencies:\s*\[([^\]]*)\])?"#)
        for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
            guard let name = Range(match.range(at: 1), in: text).map({ String(text[$0]) }) else { continue }
            let deps = Range(match.range(at: 2), in: text).map { String(text[$0]) } ?? ""
            result[name] = deps.split(separator: ",").map { $0.trimmingCharacters(in: .whitespacesAndNewlines).trimmingCharacters(in: ["\""]) }
                .filter { !$0.isEmpty }
        }
        return result
    }

    static func closure(of target: String, in targets: [String: [String]]) -> Set<String> {
        var seen: Set<String> = [], stack = [target]
        while let next = stack.popLast() {
            if seen.insert(next).inserted { stack += targets[next] ?? [] }
        }
        return seen
    }

    @Test func theOnDeviceClosureHasNoLibplist() throws {
        let targets = try Self.targets()
        #expect(targets["Plist"]?.contains("CLibPlist") == true, "the parser sees the package")
        let closure = Self.closure(of: "FirstTimeMigration", in: targets)
        // The file errors, not the file writer (O_TMPFILE, syncfs, renameat2 have no place on iOS).
        #expect(closure == ["FirstTimeMigration", "FirstTimeCore", "KeyedArchiveCore", "PlistCore", "OrderedJSON", "FileErrors"])
        let linksLibplist = Set(targets.keys.filter { Self.closure(of: $0, in: targets).contains("CLibPlist") })
        #expect(closure.isDisjoint(with: linksLibplist))
    }

    @Test func theClosuresSourcesImportNothingElse() throws {
        let targets = try Self.targets()
        let closure = Self.closure(of: "FirstTimeMigration", in: targets)
        let allowed = closure.union(["Foundation", "CoreFoundation", "Glibc", "Darwin"])
        // Standard library and Foundation API that Apple platforms have only from iOS 18 / macOS 15.
        let newerThanIOS15 = ["Synchronization", "Mutex<", "Atomic<", "Int128", "UInt128", "String(validating:", "InlineArray"]
        var files = 0
        for target in closure {
            let directory = TestPaths.packageRoot.appendingPathComponent("Sources/\(target)")
            for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) where name.hasSuffix(".swift") {
                files += 1
                let text = try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
                for line in text.split(separator: "\n") {
                    let words = line.split(separator: " ")
                    if let i = words.firstIndex(of: "import"), i + 1 < words.count, !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
                        #expect(allowed.contains(String(words[i + 1])), "\(target)/\(name): \(line)")
                    }
                    let code = line.split(separator: "//", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
                    for api in newerThanIOS15 where code.contains(api) {
                        Issue.record("\(target)/\(name) uses \(api): \(line)")
                    }
                }
            }
        }
        #expect(files >= 20)
    }
}
