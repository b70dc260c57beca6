import Foundation
import Testing
import TestSupport

/// SQLite and OpenSSL's libcrypto are loaded (`dlopen`) only when a backup needs them: a command
/// that reads no backup starts without either (they were 3.8 M of the 7.1 M instructions of
/// `ycft --version`, docs/performance.md), and a machine without one gets one line naming the
/// package to install, not a loader error before `main`.
#if os(Linux)
@Suite struct SystemLibrariesLoadedOnDemand {
    let ycft = TestPaths.executable("ycft")

    /// The shared objects glibc's loader loads for `arguments` (`LD_DEBUG=libs`, its own trace).
    func loaded(_ arguments: [String]) throws -> (ProcessResult, [String]) {
        var environment = ProcessInfo.processInfo.environment
        environment["LD_DEBUG"] = "libs"
        let result = try runProcess(ycft, arguments, environment: environment)
        let names = result.stderr.split(separator: "\n").compactMap { line -> String? in
            guard let range = line.range(of: "calling init: ") else { return nil }
            return String(line[range.upperBound...].split(separator: "/").last ?? "")
        }
        return (result, names)
    }

    @Test func aCommandWithoutABackupLoadsNeither() throws {
        let fixture = TestPaths.fixtures.appendingPathComponent("valid/ycft/three-records.plist").path
        for arguments in [["--version"], ["dump", fixture], ["verify", fixture]] {
            let (result, names) = try loaded(arguments)
            #expect(result.status == 0, "\(arguments)")
            #expect(names.contains { $0.hasPrefix("libplist-2.0.so") }, "\(arguments): \(names)")
            #expect(!names.contains { $0.hasPrefix("libsqlite3") || $0.hasPrefix("libcrypto") }, "\(arguments): \(names)")
        }
    }

    @Test func aBackupLoadsSQLiteAndOnlyAnEncryptedOneLibcrypto() throws {
        let (plain, encrypted, password) = (try Backups.make(), try Backups.make(password: Backups.password), try Backups.passwordFile())
        let (listed, names) = try loaded(["backup", "apps", plain.path])
        #expect(listed.status == 0)
        #expect(names.contains { $0.hasPrefix("libsqlite3.so") } && !names.contains { $0.hasPrefix("libcrypto") }, "\(names)")
        let (decrypted, withCrypto) = try loaded(["backup", "apps", "--password-file", password.path, encrypted.path])
        #expect(decrypted.status == 0)
        #expect(withCrypto.contains { $0.hasPrefix("libsqlite3.so") } && withCrypto.contains { $0.hasPrefix("libcrypto.so") }, "\(withCrypto)")
    }

    /// A library that `dlopen` cannot find: `LD_PRELOAD` of a `dlopen` that returns NULL for
    /// names containing `$YCFT_TEST_HIDE`, compiled here with the system's C compiler.
    static let hider: URL? = {
        guard let directory = try? TestPaths.temporaryDirectory() else { return nil }
        let source = directory.appendingPathComponent("hide.c"), library = directory.appendingPathComponent("hide.so")
        let code = """
            #define _GNU_SOURCE
            #include <dlfcn.h>
            #include <stdlib.h>
            #include <string.h>
            void *dlopen(const char *name, int flags) {
                void *(*real)(const char *, int) = (void *(*)(const char *, int))dlsym(RTLD_NEXT, "dlopen");
                const char *hidden = getenv("YCFT_TEST_HIDE");
                if (name != NULL && hidden != NULL && strstr(name, hidden) != NULL) return NULL;
                return real(name, flags);
            }
            """
        guard (try? Data(code.utf8).write(to: source)) != nil,
              let built = try? runProcess(URL(fileURLWithPath: "/usr/bin/env"),
                                          ["cc", "-shared", "-fPIC", "-o", library.path, source.path, "-ldl"]),
              built.status == 0 else { return nil }
        return library
    }()

    func runHiding(_ hidden: String, _ arguments: [String]) throws -> ProcessResult {
        var environment = ProcessInfo.processInfo.environment
        environment["LD_PRELOAD"] = try #require(Self.hider).path
        environment["YCFT_TEST_HIDE"] = hidden
        return try runProcess(ycft, arguments, environment: environment)
    }

    @Test(.enabled(if: hider != nil, "no C compiler (cc) to build the LD_PRELOAD library"))
    func aMissingLibraryIsOneLineNamingThePackage() throws {
        let (plain, encrypted, password) = (try Backups.make(), try Backups.make(password: Backups.password), try Backups.passwordFile())
        let fixture = TestPaths.fixtures.appendingPathComponent("valid/ycft/three-records.plist").path
        let noSQLite = try runHiding("libsqlite3", ["backup", "apps", plain.path])
        #expect(noSQLite.status == 2 && noSQLite.stdout.isEmpty)
        #expect(noSQLite.stderr == "ycft: \(plain.path): SQLite 3.36 or later could not be loaded, "
                + "which reading Manifest.db needs (Debian and Ubuntu: libsqlite3-0)\n")
        let noCrypto = try runHiding("libcrypto", ["dump", "--backup", encrypted.path, "--app", "com.example.notes", "--password-file", password.path])
        #expect(noCrypto.status == 2 && noCrypto.stdout.isEmpty)
        #expect(noCrypto.stderr == "ycft: \(encrypted.path): OpenSSL's libcrypto (3 or 1.1) could not be loaded, "
                + "which an encrypted backup needs (Debian and Ubuntu: libssl3)\n")
        // Without either, everything that reads no backup works as before.
        let hidingBoth = try runHiding("lib", ["dump", fixture])
        let normal = try runProcess(ycft, ["dump", fixture])
        #expect(hidingBoth.status == 0 && hidingBoth.stdout == normal.stdout && hidingBoth.stderr.isEmpty)
    }
}
#endif
