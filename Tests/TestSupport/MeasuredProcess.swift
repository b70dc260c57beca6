import Foundation
import SafeFiles
import FileErrors
#if canImport(Glibc)
import Glibc
#endif

/// A child process's result with its peak memory and wall time.
package struct MeasuredResult: Sendable {
    /// Exit status (or 128 + signal).
    package var status: Int32
    /// Standard output.
    package var stdout: [UInt8]
    /// Standard error, as text.
    package var stderr: String
    /// Peak resident set size of the program, in KiB: measured by GNU `time` (`/usr/bin/time
    /// -f %M`), whose own small process forks the program, so the count is the program's alone.
    /// (`ru_maxrss` from our own `wait4` would include the test runner's peak: Linux carries the
    /// spawning process's memory into the child's count at exec, and the runner, holding the
    /// generated bombs, passes 200 MiB.) Without GNU time, that upper bound is the fallback.
    package var maxRSSKiB: Int
    /// Wall-clock seconds.
    package var seconds: Double
    /// CPU seconds, user and system, of the program and what it waited for: unlike wall time,
    /// barely moved by other work on the machine.
    package var cpuSeconds: Double
}

/// Where a child's standard output or error goes in ``runSpawned(_:_:stdin:stdout:stderr:environment:)``.
package enum SpawnStream: Sendable {
    /// Captured into a file and returned.
    case capture
    /// Closed before the program starts (`>&-`).
    case closed
    /// Opened for writing at this path (`> /dev/full`).
    case path(String)
}

/// A finished child: its exit status (or 128 + signal), rusage, wall time and captured streams.
private struct Spawned {
    var code: Int32
    var usage: rusage
    var seconds: Double
    var stdout: [UInt8]
    var stderr: String
}

/// The one spawn-and-wait of the test helpers: standard input from a file holding `stdin` (no
/// pipe can deadlock), standard output and error as given, the environment merged into ours.
/// The arguments are ``PathBytes`` strings: `PathBytes.decode([0xFF, 0xFE])` reaches the program
/// as the two bytes FF FE (Foundation's `Process` would pass their UTF-8 repair).
private func spawnAndWait(_ command: [String], in dir: URL, stdin: [UInt8], stdout: SpawnStream, stderr: SpawnStream,
                          environment: [String: String]) throws -> Spawned {
    let inPath = dir.appendingPathComponent("in").path
    try Data(stdin).write(to: URL(fileURLWithPath: inPath))
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, inPath, O_RDONLY, 0)
    var captured: [Int32: String] = [:]
    for (fd, stream) in [(Int32(1), stdout), (Int32(2), stderr)] {
        switch stream {
        case .capture:
            let path = dir.appendingPathComponent("out\(fd)").path
            captured[fd] = path
            posix_spawn_file_actions_addopen(&actions, fd, path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        case .closed: posix_spawn_file_actions_addclose(&actions, fd)
        case let .path(path): posix_spawn_file_actions_addopen(&actions, fd, path, O_WRONLY, 0)
        }
    }
    let env = ProcessInfo.processInfo.environment.merging(environment) { $1 }.map { "\($0.key)=\($0.value)" }
    let argv = command.map { strdup(PathBytes.cString($0)) } + [nil]
    // Values may be PathBytes strings (bytes that are not UTF-8), passed as their own bytes.
    let envp = env.map { strdup(PathBytes.cString($0)) } + [nil]
    defer { argv.forEach { free($0) }; envp.forEach { free($0) } }
    var pid: pid_t = 0
    let start = DispatchTime.now()
    let spawned = posix_spawn(&pid, PathBytes.cString(command[0]), &actions, nil, argv, envp)
    guard spawned == 0 else { throw NSError(domain: "posix_spawn", code: Int(spawned)) }
    var status: Int32 = 0
    var usage = rusage()
    while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
    let code = status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
    func read(_ fd: Int32) -> Data { captured[fd].flatMap { try? Data(contentsOf: URL(fileURLWithPath: $0)) } ?? Data() }
    return Spawned(code: code, usage: usage, seconds: seconds, stdout: Array(read(1)), stderr: String(decoding: read(2), as: UTF8.self))
}

/// Runs an executable with standard input from `stdin` and measures it: wall time, and its
/// peak memory through GNU time (see ``MeasuredResult/maxRSSKiB``).
package func runMeasured(_ executable: URL, _ arguments: [String], stdin: [UInt8] = []) throws -> MeasuredResult {
    let dir = try TestPaths.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let peakPath = dir.appendingPathComponent("peak").path
    let timer = "/usr/bin/time"
    let measured = FileManager.default.isExecutableFile(atPath: timer)
    let command = measured ? [timer, "-f", "%M", "-o", peakPath, executable.path] + arguments : [executable.path] + arguments
    let run = try spawnAndWait(command, in: dir, stdin: stdin, stdout: .capture, stderr: .capture, environment: [:])
    var code = run.code
    var peak = Int(run.usage.ru_maxrss)
    if measured, let report = try? String(contentsOfFile: peakPath, encoding: .utf8) {
        // "%M" is the last line; before it GNU time may say how the program ended.
        let lines = report.split(separator: "\n")
        if let last = lines.last, let kib = Int(last) { peak = kib }
        if let line = lines.first(where: { $0.hasPrefix("Command terminated by signal ") }),
           let signal = Int32(line.dropFirst("Command terminated by signal ".count)) {
            code = 128 + signal
        }
    }
    let cpu = [run.usage.ru_utime, run.usage.ru_stime].reduce(0.0) { $0 + Double($1.tv_sec) + Double($1.tv_usec) / 1e6 }
    return MeasuredResult(status: code, stdout: run.stdout, stderr: run.stderr, maxRSSKiB: peak, seconds: run.seconds,
                          cpuSeconds: cpu)
}

/// Runs an executable with its standard output and error as given (closed, a device, captured)
/// and waits for it; standard input comes from a file holding `stdin`. Arguments that are not
/// UTF-8 are passed as their bytes: build them with ``rawPath(_:_:)``.
package func runSpawned(_ executable: URL, _ arguments: [String], stdin: [UInt8] = [], stdout: SpawnStream = .capture,
                       stderr: SpawnStream = .capture, environment: [String: String] = [:]) throws -> ProcessResult {
    let dir = try TestPaths.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let run = try spawnAndWait([executable.path] + arguments, in: dir, stdin: stdin, stdout: stdout, stderr: stderr,
                               environment: environment)
    return ProcessResult(status: run.code, stdout: run.stdout, stderr: run.stderr)
}

/// Reads a named pipe to its end with plain read(2) (Foundation's file reading takes the size
/// from stat, which is 0 for a pipe). Close-on-exec, as a test's other end of a handshake must
/// be: a child another test starts meanwhile that kept it open answered the handshake's next
/// `open` in its place, and the child `ycft` waited for a writer forever.
package func readFIFO(_ path: String) -> [UInt8] {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return [] }
    defer { close(fd) }
    var out: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let n = read(fd, &buffer, buffer.count)
        if n <= 0 { break }
        out += buffer[..<n]
    }
    return out
}

/// A name or argument made of raw bytes (``PathBytes``): `rawPath([0xFF, 0xFE], ".plist")` is the
/// file name FF FE `.plist`, for ``runSpawned(_:_:stdin:stdout:stderr:environment:)`` and for
/// `PathBytes.cString` in system calls.
package func rawPath(_ raw: [UInt8], _ suffix: String = "") -> String { PathBytes.decode(raw + Array(suffix.utf8)) }
