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
    static let hider = preloadLibrary("hide", code: """
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
        """)

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

/// `ycft` leaves the last property-list tree it read to its exit (`PlistTrees.leaveLastToExit`):
/// freeing a large archive's tree node by node was a large share of the process's time,
/// and the kernel takes the memory back at exit anyway. Every earlier tree is freed when the
/// next is released, so a run over many files holds one tree more than it needs, not all.
/// Seen from outside: an `LD_PRELOAD` library records the trees libplist's parsers return and
/// which of them reach `plist_free`.
@Suite struct LastTreeLeftToExit {
    let ycft = TestPaths.executable("ycft")

    static let recorder = preloadLibrary("trees", code: """
        #define _GNU_SOURCE
        #include <dlfcn.h>
        #include <stdint.h>
        #include <stdio.h>
        #include <stdlib.h>
        typedef void *plist_t;
        static plist_t parsed[4096];
        static int count, freed[4096], overlaps;
        static void remember(plist_t tree) {
            /* A tree not yet freed when the next one is made: two trees alive at once. */
            for (int i = 0; i < count; i++) if (freed[i] == 0) overlaps += 1;
            if (tree != NULL && count < 4096) parsed[count++] = tree;
        }
        void plist_from_bin(const char *bytes, uint32_t length, plist_t *out) {
            ((void (*)(const char *, uint32_t, plist_t *))dlsym(RTLD_NEXT, "plist_from_bin"))(bytes, length, out);
            remember(*out);
        }
        void plist_from_xml(const char *bytes, uint32_t length, plist_t *out) {
            ((void (*)(const char *, uint32_t, plist_t *))dlsym(RTLD_NEXT, "plist_from_xml"))(bytes, length, out);
            remember(*out);
        }
        void plist_free(plist_t node) {
            /* The latest tree at that address: a freed tree's address is soon another's. */
            for (int i = count - 1; i >= 0; i--) if (parsed[i] == node) { freed[i] += 1; break; }
            ((void (*)(plist_t))dlsym(RTLD_NEXT, "plist_free"))(node);
        }
        /* At exit: one character per tree parsed, in order: F freed once, K kept, 2 freed twice;
           then, when a tree was parsed while an earlier one was alive, how many times. */
        __attribute__((destructor)) static void report(void) {
            FILE *out = fopen(getenv("YCFT_TEST_TREES"), "w");
            if (out == NULL) return;
            for (int i = 0; i < count; i++) fputc(freed[i] == 0 ? 'K' : freed[i] == 1 ? 'F' : '2', out);
            if (overlaps > 0) fprintf(out, " %d alive at a parse", overlaps);
            fclose(out);
        }
        """)

    /// What became of each tree `ycft arguments` parsed, in order ("FFK"; "FFK 1 alive at a
    /// parse" when a tree was still alive as the next was parsed), and the run's result.
    func trees(_ arguments: [String]) throws -> (String, ProcessResult) {
        let report = try TestPaths.temporaryDirectory().appendingPathComponent("trees")
        var environment = ProcessInfo.processInfo.environment
        environment["LD_PRELOAD"] = try #require(Self.recorder).path
        environment["YCFT_TEST_TREES"] = report.path
        let result = try runProcess(ycft, arguments, environment: environment)
        return (try String(contentsOf: report, encoding: .utf8), result)
    }

    @Test(.enabled(if: recorder != nil, "no C compiler (cc) to build the LD_PRELOAD library"))
    func onlyTheLastTreeIsLeftToTheExit() throws {
        let fixtures = TestPaths.fixtures.appendingPathComponent("valid")
        let archive = fixtures.appendingPathComponent("ycft/three-records.plist").path
        let defaults = fixtures.appendingPathComponent("defaults/export.binary.plist").path
        let xml = fixtures.appendingPathComponent("defaults/export.xml.plist").path
        // One archive: its tree, kept.
        let (one, dumped) = try trees(["dump", archive])
        #expect(dumped.status == 0 && one == "K", "\(one)")
        // A defaults file, then the archive it holds: the file's tree freed (before the
        // archive's is made: never two at once), the archive's kept.
        let (two, fromDefaults) = try trees(["dump", defaults])
        #expect(fromDefaults.status == 0 && two == "FK", "\(two)")
        // Many files: every tree but the last freed, each once, before the next is made.
        let (many, verified) = try trees(["verify", archive, defaults, xml])
        #expect(verified.status == 0, "\(verified.stderr)")
        #expect(many == "FFFFK", "\(many)")
    }
}
#endif
