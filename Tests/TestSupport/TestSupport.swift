import Foundation
import Plist
import PlistCore
import Synchronization

/// Paths and child processes for tests.
package enum TestPaths {
    /// The package root (found from this file's location).
    package static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `Fixtures/` at the package root.
    package static let fixtures = packageRoot.appendingPathComponent("Fixtures")

    /// `../shared/corpus/apple` beside the package, when present.
    package static var appleCorpus: URL? {
        let url = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/corpus/apple")
        return FileManager.default.fileExists(atPath: url.path) ? url : nil
    }

    /// The directory holding the built products (the test bundle's own directory).
    package static let productsDirectory: URL = {
        let exe = URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
                      ?? CommandLine.arguments[0])
        var dir = exe.deletingLastPathComponent()
        // Inside a bundle (`ycftPackageTests.xctest/...`) step out to the products directory.
        while dir.path.contains(".xctest") { dir = dir.deletingLastPathComponent() }
        return dir
    }()

    /// A built executable product by name.
    package static func executable(_ name: String) -> URL {
        productsDirectory.appendingPathComponent(name)
    }

    /// `Examples/` as committed (git's index), copied once per test process, so trying the
    /// examples in a clone, as the README invites (`ycft migrate --in-place` rewrites
    /// `Examples/exported`), cannot change what the tests read. Outside a git checkout (a source
    /// tarball) it is `Examples/` itself.
    package static let examples: URL = {
        let source = packageRoot.appendingPathComponent("Examples")
        guard let scratch = try? temporaryDirectory() else { return source }
        let git = URL(fileURLWithPath: "/usr/bin/env")
        guard let listed = try? runProcess(git, ["git", "-C", packageRoot.path, "ls-files", "-z", "--", "Examples"]),
              listed.status == 0, !listed.stdout.isEmpty,
              let copied = try? runProcess(git, ["git", "-C", packageRoot.path, "checkout-index", "-z", "--stdin",
                                                 "--prefix=\(scratch.path)/"], stdin: listed.stdout),
              copied.status == 0 else { return source }
        return scratch.appendingPathComponent("Examples")
    }()

    /// A file of the package by its path from the root, with `Examples/…` read from
    /// ``examples`` (as committed).
    package static func committed(_ path: String) -> URL {
        path.hasPrefix("Examples/") ? examples.appendingPathComponent(String(path.dropFirst("Examples/".count)))
                                    : packageRoot.appendingPathComponent(path)
    }

    /// A fresh temporary directory, inside this test process's own directory (see
    /// ``TestScratch``), which is removed when the process exits.
    package static func temporaryDirectory() throws -> URL {
        let url = TestScratch.root.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

/// A shared library compiled from C `code` with the system's C compiler (`cc`), to be put in a
/// child's `LD_PRELOAD`: it stands in for functions of the libraries a real `ycft` process
/// loads (`dlsym(RTLD_NEXT, ...)` reaches the real ones). Nil when there is no C compiler.
package func preloadLibrary(_ name: String, code: String) -> URL? {
    guard let directory = try? TestPaths.temporaryDirectory() else { return nil }
    let source = directory.appendingPathComponent("\(name).c"), library = directory.appendingPathComponent("\(name).so")
    guard (try? Data(code.utf8).write(to: source)) != nil,
          let built = try? runProcess(URL(fileURLWithPath: "/usr/bin/env"),
                                      ["cc", "-shared", "-fPIC", "-o", library.path, source.path, "-ldl"]),
          built.status == 0 else { return nil }
    return library
}

/// The one directory a test process writes its scratch files under
/// (`$TMPDIR/ycft-tests-PID-UUID`), removed with everything in it when the process exits.
/// Before, each test's directory stayed behind: every `swift test` left over a hundred of them
/// (some of several MB) in `/tmp`, and they piled up run after run. `YCFT_KEEP_TEST_FILES=1`
/// keeps them, to look at after a failure.
package enum TestScratch {
    /// Created once, on first use; its removal is registered with `atexit` at the same time.
    package static let root: URL = {
        if ProcessInfo.processInfo.environment["YCFT_KEEP_TEST_FILES"] != "1" {
            // Runs at exit, when `root` has long been set (this is its first use).
            atexit { try? FileManager.default.removeItem(at: TestScratch.root) }
        }
        return FileManager.default.temporaryDirectory.appendingPathComponent("ycft-tests-\(getpid())-\(UUID().uuidString)")
    }()
}

/// The result of running a child process.
package struct ProcessResult: Sendable {
    /// Exit status (or 128 + signal).
    package var status: Int32
    /// Everything written to standard output.
    package var stdout: [UInt8]
    /// Everything written to standard error, as text.
    package var stderr: String
    /// Standard output as text.
    package var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
}

/// Runs an executable with arguments and standard input, and waits for it.
///
/// Standard input comes from a file holding `stdin`, as in ``runSpawned(_:_:stdin:stdout:stderr:environment:)``:
/// written into a pipe, it killed the whole test process with SIGPIPE whenever the child exited
/// without reading it (a usage error, `migrate -`) before the write, which the test process does
/// not ignore.
package func runProcess(_ executable: URL, _ arguments: [String], stdin: [UInt8] = [],
                       environment: [String: String]? = nil) throws -> ProcessResult {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    if let environment { process.environment = childEnvironment(environment) }
    let inputFile = try TestPaths.temporaryDirectory().appendingPathComponent("stdin")
    try writeBytes(stdin, to: inputFile)
    let input = try FileHandle(forReadingFrom: inputFile)
    defer { try? input.close() }
    let output = Pipe(), error = Pipe()
    process.standardInput = input
    process.standardOutput = output
    process.standardError = error
    try process.run()
    nonisolated(unsafe) var errData = Data()
    let errReader = Thread { errData = error.fileHandleForReading.readDataToEndOfFile() }
    errReader.start()
    let outData = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    while errReader.isExecuting || !errReader.isFinished { usleep(1000) }
    let status = process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
    return ProcessResult(status: status, stdout: Array(outData), stderr: String(decoding: errData, as: UTF8.self))
}

/// The variables of an instrumented run that a child keeps even when a test gives it an
/// environment of its own: `LLVM_PROFILE_FILE` (`Scripts/coverage.sh` sets it to an absolute
/// pattern; without it an instrumented child writes `default.profraw` into its working folder,
/// where tests look at what a command left), and `ASAN_OPTIONS` and `SWIFT_BACKTRACE`
/// (`Scripts/sanitize.sh` sets them: without them a child that AddressSanitizer stopped started
/// Swift's backtracer, which kept the test's pipes open and hung the run until CI's time ran out).
package let instrumentationVariables = ["LLVM_PROFILE_FILE", "ASAN_OPTIONS", "SWIFT_BACKTRACE"]

/// `environment`, for a child given an environment of its own instead of this process's, with
/// each of ``instrumentationVariables`` that `parent` (this process's) has and `environment`
/// does not set. In an ordinary run, `environment` itself.
package func childEnvironment(_ environment: [String: String],
                              from parent: [String: String] = ProcessInfo.processInfo.environment) -> [String: String] {
    var child = environment
    for name in instrumentationVariables where child[name] == nil {
        if let value = parent[name] { child[name] = value }
    }
    return child
}

/// A value that closures on other threads change and a test then reads (what a hook saw).
package final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    package init(_ value: Value) { mutex = Mutex(value) }

    /// The value now.
    package var value: Value { mutex.withLock { $0 } }

    /// Changes the value under the lock.
    package func change(_ body: (inout Value) -> Void) { mutex.withLock { body(&$0) } }
}

/// Reads a file's bytes.
package func readBytes(_ url: URL) throws -> [UInt8] { Array(try Data(contentsOf: url)) }

/// Writes bytes to a file.
package func writeBytes(_ bytes: [UInt8], to url: URL) throws { try Data(bytes).write(to: url) }

/// The first differing offset of two byte arrays and both sizes, for failure messages.
package func firstDifference(_ a: [UInt8], _ b: [UInt8]) -> String {
    let index = zip(a, b).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(a.count, b.count)
    return "first difference at byte \(index); sizes \(a.count) and \(b.count)"
}

/// Tests that use `UserDefaults` suites run one at a time in this process: swift-corelibs-
/// foundation, used from several threads at once, reloads suites from their XML files on disk,
/// where a `-0.0` real becomes `0.0` and dates lose their fractions (see MIGRATING.md).
package enum UserDefaultsTests {
    private static let lock = NSLock()

    /// Runs `body` while no other test uses `UserDefaults`.
    package static func exclusively<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }
}

/// JUnit XML (`ycft verify --format junit`) with the value of every `time="…"` attribute
/// replaced by `…`, so that the rest can be compared byte for byte; nil when a value is not a
/// non-negative decimal number of seconds (`0.004`), or when there is none.
package func junitTimesHidden(_ xml: String) -> String? {
    let times = xml.matches(of: /\ time="([^"]*)"/)
    guard !times.isEmpty, times.allSatisfy({ $0.output.1.wholeMatch(of: /[0-9]+(\.[0-9]+)?/) != nil }) else { return nil }
    return xml.replacing(/\ time="[^"]*"/, with: " time=\"…\"")
}

/// Running `ycft` as a user without privileges, for the checks that only hold for one (root
/// reads and writes any file, whatever its mode): directly when the tests are not root; as
/// root, through util-linux's `setpriv` as nobody (uid 65534).
package enum Unprivileged {
    /// The words to put before the command, or nil when it cannot be done here: as root
    /// without `setpriv`, or with a `ycft` binary that nobody cannot reach (a folder above it
    /// closed to others). Tests gate on it with `.enabled(if: Unprivileged.prefix != nil, "…")`.
    package static let prefix: [String]? = {
        if geteuid() != 0 { return [] }
        let tools = ["/usr/bin/setpriv", "/bin/setpriv"]
        guard let tool = tools.first(where: { (path: String) in access(path, X_OK) == 0 }),
              othersCanRun(TestPaths.executable("ycft").path) else { return nil }
        return [tool, "--reuid=65534", "--regid=65534", "--clear-groups", "--"]
    }()

    /// Whether a user who is neither owner nor in the group can execute `path`: every folder
    /// above it searchable by others, and the file executable by them.
    static func othersCanRun(_ path: String) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & 0o001 != 0 else { return false }
        var folder = (path as NSString).deletingLastPathComponent
        while !folder.isEmpty {
            guard stat(folder, &info) == 0, info.st_mode & 0o001 != 0 else { return false }
            if folder == "/" { break }
            folder = (folder as NSString).deletingLastPathComponent
        }
        return true
    }
}

@_silgen_name("setxattr") private func probeSetxattr(_ path: UnsafePointer<CChar>, _ name: UnsafePointer<CChar>,
                                                     _ value: UnsafeRawPointer?, _ size: Int, _ flags: Int32) -> Int32

/// Whether the scratch folder's file system takes `user.*` extended attributes (tmpfs before
/// Linux 6.6 does not), for the tests of keeping them: they are skipped, and say so, where not.
package let userAttributesWork: Bool = {
    guard let file = try? TestPaths.temporaryDirectory().appendingPathComponent("probe"),
          (try? writeBytes([], to: file)) != nil else { return false }
    return probeSetxattr(file.path, "user.probe", [UInt8(1)], 1, 0) == 0
}()
