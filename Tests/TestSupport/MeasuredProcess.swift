import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A child process's result with its peak memory and wall time.
public struct MeasuredResult: Sendable {
    /// Exit status (or 128 + signal).
    public var status: Int32
    /// Standard output.
    public var stdout: [UInt8]
    /// Standard error, as text.
    public var stderr: String
    /// Peak resident set size, in KiB (`ru_maxrss` from `wait4`). An upper bound: Linux carries
    /// the spawning process's own peak into the child's count at exec, so an assertion on it can
    /// only fail spuriously (if the test runner itself grew past the bound), never pass falsely.
    public var maxRSSKiB: Int
    /// Wall-clock seconds.
    public var seconds: Double
}

/// Runs an executable with standard input from `stdin`, through files (no pipe can deadlock),
/// and measures it with `wait4`.
public func runMeasured(_ executable: URL, _ arguments: [String], stdin: [UInt8] = []) throws -> MeasuredResult {
    let dir = try TestPaths.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let inPath = dir.appendingPathComponent("in").path, outPath = dir.appendingPathComponent("out").path
    let errPath = dir.appendingPathComponent("err").path
    try Data(stdin).write(to: URL(fileURLWithPath: inPath))
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, inPath, O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    let argv = ([executable.path] + arguments).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var pid: pid_t = 0
    let start = DispatchTime.now()
    let spawned = posix_spawn(&pid, executable.path, &actions, nil, argv, environ)
    guard spawned == 0 else { throw NSError(domain: "posix_spawn", code: Int(spawned)) }
    var status: Int32 = 0
    var usage = rusage()
    while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
    let exited = status & 0x7F == 0
    let code = exited ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
    return MeasuredResult(status: code, stdout: Array(try Data(contentsOf: URL(fileURLWithPath: outPath))),
                          stderr: String(decoding: try Data(contentsOf: URL(fileURLWithPath: errPath)), as: UTF8.self),
                          maxRSSKiB: Int(usage.ru_maxrss), seconds: seconds)
}
