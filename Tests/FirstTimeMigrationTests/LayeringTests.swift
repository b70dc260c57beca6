import Foundation
import Testing
import TestSupport

/// The on-device library links no libplist and nothing newer than iOS 15: its targets'
/// closure, as SwiftPM resolves the package (`swift package describe --type json`), holds
/// neither CLibPlist nor a module that links it, and no source file in the closure imports one
/// or uses an API Apple platforms gained in iOS 18.
@Suite struct LayeringTests {
    /// A target as SwiftPM describes it: its directory (relative to the package root) and
    /// everything it depends on, targets and products alike.
    struct Target {
        var path: String
        var dependencies: [String]
    }

    /// Every target of the package, from `swift package describe --type json`, run by SwiftPM
    /// itself rather than read from Package.swift with a pattern (which a reformatted manifest,
    /// a dependency list built in code or a `.product(...)` dependency would have slipped past).
    ///
    /// It runs with a scratch directory of its own: `swift test` holds the lock on the package's
    /// `.build` while the tests run, and `describe` there would wait for it, and so for itself.
    /// The package has no remote dependencies, so nothing is fetched (it runs without a network).
    /// Its `TMPDIR` is in the test's scratch too: SwiftPM leaves a lock file named after the
    /// scratch path there (before, one `_tmp_ycft-tests-…lock` in `/tmp` for every `swift test`).
    static let targets: Result<[String: Target], any Error> = Result {
        let scratch = try TestPaths.temporaryDirectory(), temporary = scratch.appendingPathComponent("tmp")
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: false)
        let result = try runProcess(URL(fileURLWithPath: "/usr/bin/env"),
                                    ["TMPDIR=\(temporary.path)", "swift", "package", "--package-path", TestPaths.packageRoot.path,
                                     "--scratch-path", scratch.path, "describe", "--type", "json"])
        guard result.status == 0 else {
            throw DescribeFailure(message: "swift package describe exited with \(result.status): \(result.stderr)")
        }
        guard let package = try JSONSerialization.jsonObject(with: Data(result.stdout)) as? [String: Any],
              let list = package["targets"] as? [[String: Any]] else {
            throw DescribeFailure(message: "no targets in: \(result.stdoutText.prefix(500))")
        }
        var targets: [String: Target] = [:]
        for entry in list {
            guard let name = entry["name"] as? String, let path = entry["path"] as? String else {
                throw DescribeFailure(message: "a target without a name or a path: \(entry)")
            }
            // Keys are left out when empty. A product dependency (from another package) is named
            // as its product; none belongs in the on-device closure, and its name keeps the
            // closure from equalling the expected set.
            let dependencies = (entry["target_dependencies"] as? [String] ?? [])
                + (entry["product_dependencies"] as? [String] ?? [])
            targets[name] = Target(path: path, dependencies: dependencies)
        }
        return targets
    }

    struct DescribeFailure: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }

    static func closure(of target: String, in targets: [String: Target]) -> Set<String> {
        var seen: Set<String> = [], stack = [target]
        while let next = stack.popLast() {
            if seen.insert(next).inserted { stack += targets[next]?.dependencies ?? [] }
        }
        return seen
    }

    @Test func theOnDeviceClosureHasNoLibplist() throws {
        let targets = try Self.targets.get()
        #expect(targets["Plist"]?.dependencies.contains("CLibPlist") == true, "the description holds the package")
        let closure = Self.closure(of: "FirstTimeMigration", in: targets)
        // The file errors, not the file writer (O_TMPFILE, syncfs, renameat2 have no place on iOS).
        #expect(closure == ["FirstTimeMigration", "FirstTimeCore", "KeyedArchive", "PlistCore", "OrderedJSON", "FileErrors"])
        let linksLibplist = Set(targets.keys.filter { Self.closure(of: $0, in: targets).contains("CLibPlist") })
        #expect(closure.isDisjoint(with: linksLibplist))
    }

    /// docs/library.md's "Modules" paragraph names every module under Sources/ (and each as a
    /// target of the package): the one-line description of the module graph stays the graph.
    @Test func theDocsNameEveryModule() throws {
        let modules = Set(try Self.targets.get().filter { $0.value.path.hasPrefix("Sources/") }.keys)
        let library = try String(contentsOf: TestPaths.packageRoot.appendingPathComponent("docs/library.md"), encoding: .utf8)
        let section = try #require(library.components(separatedBy: "\n## Modules\n").dropFirst().first?
            .components(separatedBy: "\n## ").first, "docs/library.md has a Modules section")
        let named = Set(section.components(separatedBy: "`").enumerated().filter { $0.offset % 2 == 1 }.map(\.element))
        #expect(modules.subtracting(named).isEmpty, "modules the docs do not name: \(modules.subtracting(named).sorted())")
        let targets = Set(try Self.targets.get().keys)
        // Names of other things the paragraph mentions: a type, a test (files and members have a dot).
        let notModules: Set = ["LibPlist", "Tests/FirstTimeMigrationTests/LayeringTests"]
        let unknown = named.filter { $0.first?.isUppercase == true && !$0.contains(" ") && !$0.contains(".") && !targets.contains($0) }
            .subtracting(notModules)
        #expect(unknown.isEmpty, "names in the Modules section that are no target: \(unknown.sorted())")
    }

    @Test func theClosuresSourcesImportNothingElse() throws {
        let targets = try Self.targets.get()
        let closure = Self.closure(of: "FirstTimeMigration", in: targets)
        let allowed = closure.union(["Foundation", "FoundationEssentials", "CoreFoundation", "Glibc", "Darwin"])
        // Standard library and Foundation API that Apple platforms have only from iOS 18 / macOS 15.
        let newerThanIOS15 = ["Synchronization", "Mutex<", "Atomic<", "Int128", "UInt128", "String(validating:", "InlineArray"]
        var files = 0
        for target in closure {
            let path = try #require(targets[target]?.path, "\(target) is a target of the package")
            let directory = TestPaths.packageRoot.appendingPathComponent(path)
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
