import Foundation
import SafeFiles
import FileErrors
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// An output named through a descriptor (`-o /dev/stdin`, `/dev/fd/N`, `/proc/self/fd/N`, a link
/// to one) is standard output or standard error, written as a stream, or refused at once: the
/// file behind the descriptor is never replaced (`ycft pack -o /dev/stdin r.json < v.plist`
/// replaced v.plist with a bare archive, exit 0, until 2026-12).
@Suite(.serialized) struct DescriptorOutputsThroughTheTool {
    let ycft = TestPaths.executable("ycft")
    let defaults = TestPaths.fixtures.appendingPathComponent("valid/defaults/export.binary.plist")
    let refused = "cannot write: it names an open descriptor, not a file; ycft writes to standard output "
        + "(- or /dev/stdout), standard error (/dev/stderr) or a file by its own path"

    /// Runs a bash script in `dir` with `$YCFT` set; every ycft in it runs under `timeout 10`.
    func shell(_ script: String, in dir: URL) throws -> ProcessResult {
        var env = ProcessInfo.processInfo.environment
        env["YCFT"] = ycft.path
        return try runProcess(URL(fileURLWithPath: "/bin/bash"), ["-c", "cd \"$1\" && " + script, "bash", dir.path], environment: env)
    }

    func setUp() throws -> (dir: URL, original: [UInt8], archive: [UInt8]) {
        let dir = try TestPaths.temporaryDirectory()
        let original = try readBytes(defaults)
        try writeBytes(original, to: dir.appendingPathComponent("v.plist"))
        try writeBytes(original, to: dir.appendingPathComponent("a.plist"))
        let dumped = try runProcess(ycft, ["dump", defaults.path])
        #expect(dumped.status == 0)
        try writeBytes(dumped.stdout, to: dir.appendingPathComponent("r.json"))
        let packed = try runProcess(ycft, ["pack", dir.appendingPathComponent("r.json").path])
        #expect(packed.status == 0)
        #expect(symlink("/dev/stdin", dir.appendingPathComponent("in-link").path) == 0)
        #expect(symlink("/dev/stdout", dir.appendingPathComponent("out-link").path) == 0)
        #expect(symlink("/proc/self/fd/2", dir.appendingPathComponent("err-link").path) == 0)
        return (dir, original, packed.stdout)
    }

    @Test func everyOtherDescriptorNameIsRefusedAndTheFileBehindItKept() throws {
        let (dir, original, _) = try setUp()
        let targets = ["/dev/stdin", "/dev/fd/0", "/proc/self/fd/0", "/proc/thread-self/fd/0", "in-link", "/dev/fd/3", "/proc/1/fd/1"]
        for target in targets {
            // Standard input is v.plist; descriptor 3 is the file three, opened for appending.
            let redirect = " < v.plist 3>> three"
            let pack = try shell("timeout -k 1 10 \"$YCFT\" pack -o \(target) r.json\(redirect)", in: dir)
            #expect(pack.status == 2, "pack -o \(target)")
            #expect(pack.stderr == "ycft: \(target): \(refused)\n", "pack -o \(target)")
            #expect(pack.stdout.isEmpty)
            // a.plist is the input, so the output is no input by name: the writer refuses it.
            let migrate = try shell("timeout -k 1 10 \"$YCFT\" migrate -o \(target) a.plist\(redirect)", in: dir)
            #expect(migrate.status == 2, "migrate -o \(target)")
            #expect(migrate.stderr == "ycft: \(target): \(refused)\nycft migrate: 1 file: 0 migrated, 0 unchanged, 0 skipped, 1 failed\n",
                    "migrate -o \(target)")
            #expect(migrate.stdout.isEmpty)
            let report = try shell("timeout -k 1 10 \"$YCFT\" migrate --dry-run --report \(target) a.plist\(redirect)", in: dir)
            #expect(report.status == 2, "--report \(target)")
            // The report's destination is checked before anything is migrated.
            #expect(report.stderr == "ycft: --report \(target): \(refused); nothing was migrated\n", "--report \(target)")
            #expect(report.stdoutText == "")
            #expect(try readBytes(dir.appendingPathComponent("v.plist")) == original, "\(target)")
            #expect(try readBytes(dir.appendingPathComponent("a.plist")) == original, "\(target)")
            #expect(try readBytes(dir.appendingPathComponent("three")) == [], "\(target)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
                == ["a.plist", "err-link", "in-link", "out-link", "r.json", "three", "v.plist"])
    }

    @Test func standardOutputAndErrorByAnyNameAreStreams() throws {
        let (dir, original, archive) = try setUp()
        for target in ["/dev/stdout", "/dev/fd/1", "/proc/self/fd/1", "out-link"] {
            // Standard output is a pipe here: written as a stream.
            let result = try shell("timeout -k 1 10 \"$YCFT\" pack -o \(target) r.json < v.plist", in: dir)
            #expect(result.status == 0, "\(target)")
            #expect(result.stderr == "", "\(target)")
            #expect(result.stdout == archive, "\(target)")
        }
        for target in ["/dev/stderr", "/dev/fd/2", "err-link"] {
            let result = try shell("timeout -k 1 10 \"$YCFT\" pack -o \(target) r.json 2> err.bin < v.plist && cat err.bin && rm err.bin",
                                   in: dir)
            #expect(result.status == 0, "\(target)")
            #expect(result.stdout == archive, "\(target)")
        }
        // Standard output redirected to a file is still that descriptor: written into it.
        let redirected = try shell("timeout -k 1 10 \"$YCFT\" pack -o /dev/stdout r.json > out.bin < v.plist && cat out.bin && rm out.bin",
                                   in: dir)
        #expect(redirected.status == 0)
        #expect(redirected.stdout == archive)
        #expect(try readBytes(dir.appendingPathComponent("v.plist")) == original)
    }

    @Test func theDecisionIsTheWritersOwn() throws {
        for name in ["/dev/stdout", "/dev/fd/1", "/proc/self/fd/1", "/dev//stdout", "/dev/stderr", "/proc/self/fd/2"] {
            let expected: Int32 = name.hasSuffix("1") || name.hasSuffix("stdout") ? 1 : 2
            #expect(try SafeFile.standardStream(forOutput: name) == expected, "\(name)")
        }
        for name in ["/dev/stdin", "/dev/fd/0", "/dev/fd/3", "/proc/self/fd/0", "/proc/1/fd/1", "/dev/fd/+1"] {
            #expect(throws: FileError(.write, name, .descriptorName)) { try SafeFile.standardStream(forOutput: name) }
            #expect(throws: FileError(.write, name, .descriptorName)) { try SafeFile.write([1], to: name) }
        }
        for name in ["/dev/null", "/tmp/out.plist", "-"] { #expect(try SafeFile.standardStream(forOutput: name) == nil, "\(name)") }
    }
}
