// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "ycft",
    // Synchronization.Mutex (the tool's modules) needs macOS 15 on Apple platforms. The
    // on-device library FirstTimeMigration and its dependencies use nothing newer than iOS 15.
    platforms: [.macOS(.v15), .iOS(.v15)],
    products: [
        // Each library product lists every module whose types its public API uses (adopters
        // import those they name: `import FirstTimeArchive` and `import FirstTimeCore` for the
        // records and errors). Nothing is re-exported.
        // Reading, checking, migrating and writing YCFirstTime state in files, off the device.
        .library(name: "FirstTimeArchive",
                 targets: ["FirstTimeArchive", "FirstTimeCore", "PlistCore", "KeyedArchive", "OrderedJSON", "FileErrors"]),
        // For apps: migrate YCFirstTime state in UserDefaults on the device. No libplist.
        .library(name: "FirstTimeMigration",
                 targets: ["FirstTimeMigration", "FirstTimeCore", "PlistCore", "KeyedArchive", "OrderedJSON", "FileErrors"]),
        .executable(name: "ycft", targets: ["ycft"]),
    ],
    targets: [
        // libplist, found through pkg-config: the one C library every command links.
        .systemLibrary(
            name: "CLibPlist",
            pkgConfig: "libplist-2.0",
            providers: [.apt(["libplist-dev"]), .brew(["libplist"])]
        ),
        // The system SQLite, for an iPhone backup's Manifest.db (the tool's side only). Loaded
        // with dlopen when a backup is read, not linked (no pkg-config, no header): other
        // commands start without it.
        .systemLibrary(name: "CSQLite"),
        // The system OpenSSL libcrypto, for an encrypted iPhone backup (PBKDF2, AES key unwrap,
        // AES-CBC); the tool's side only. Loaded with dlopen when a backup is decrypted, not
        // linked (no pkg-config, no header): other commands start without it.
        .systemLibrary(name: "CCrypto"),
        // The Linux calls SafeFiles makes that Glibc's Swift module does not declare (renameat2,
        // syncfs, the extended-attribute calls, O_TMPFILE); empty elsewhere.
        .systemLibrary(name: "CLinuxCalls"),
        // Property-list values, paths, exact time, the guards every read runs first, and ycft's
        // own binary and XML writers and pure binary reader: no libplist.
        .target(name: "PlistCore"),
        // Reading through libplist (LibPlist: property lists and keyed archives), after the
        // guards in PlistCore: the package's one adapter over the C library (nothing else imports it).
        .target(name: "Plist", dependencies: ["CLibPlist", "PlistCore", "KeyedArchive"]),
        // Why a file could not be read or written (FileError, SystemError, FileKind): values only.
        .target(name: "FileErrors"),
        // The one file writer (atomic replace, links, devices, owners) and guarded reads; no
        // libplist.
        .target(name: "SafeFiles", dependencies: ["FileErrors", "CLinuxCalls"]),
        // Order-preserving, exact JSON text (no Foundation number or key mangling).
        .target(name: "OrderedJSON"),
        // The generic NSKeyedArchiver object graph and builder; knows nothing of YCFirstTime; no libplist.
        .target(name: "KeyedArchive", dependencies: ["PlistCore", "OrderedJSON"]),
        // The YCFirstTime contract without libplist or files: records, the state, the rule table,
        // the contract walker, the plain format, the archive encoder, the migration plan, the run
        // rules. Shared by the tool and the on-device library.
        .target(name: "FirstTimeCore", dependencies: ["KeyedArchive", "PlistCore", "OrderedJSON", "FileErrors"]),
        // Migrating in the app's UserDefaults (Foundation + FirstTimeCore): what `ycft migrate` does to files.
        .target(name: "FirstTimeMigration", dependencies: ["FirstTimeCore", "PlistCore"]),
        // YCFirstTime state in files: what a file holds (StateFile), the fast walk over libplist's
        // tree, migration of files, the writer's use, the store.
        .target(name: "FirstTimeArchive", dependencies: ["FirstTimeCore", "KeyedArchive", "Plist", "OrderedJSON", "SafeFiles"]),
        // An iPhone backup folder, read-only: Manifest.db opened immutable through the system
        // SQLite, the Manifest/Info/Status property lists, an app's preferences found by domain
        // and path and named only by its checked fileID; an encrypted one's keybag, keys and
        // files through libcrypto, decrypted in memory. The tool's side only; no public type.
        .target(name: "PhoneBackup", dependencies: ["CSQLite", "CCrypto", "Plist", "PlistCore", "KeyedArchive", "SafeFiles", "FileErrors"]),
        // The command-line tool's logic, runnable in-process under test.
        .target(name: "YcftCLI", dependencies: ["FirstTimeArchive", "KeyedArchive", "Plist", "OrderedJSON", "SafeFiles", "PhoneBackup"]),
        .executableTarget(name: "ycft", dependencies: ["YcftCLI"]),
        // Benchmark: swift run -c release ycft-bench (see docs/performance.md).
        .target(name: "CBenchFloor", dependencies: ["CLibPlist"], path: "Benchmarks/CBenchFloor"),
        // ycft-bench's start-up floor: a program that only prints.
        .executableTarget(name: "startup-floor", path: "Benchmarks/startup-floor"),
        .executableTarget(
            name: "ycft-bench",
            dependencies: ["CBenchFloor", "FirstTimeArchive", "KeyedArchive", "Plist", "YcftCLI"],
            path: "Benchmarks/ycft-bench"
        ),
        // libFuzzer harnesses (Fuzz/README.md). The ordinary build compiles them without
        // libFuzzer, so they keep up with the code; Scripts/fuzz.sh builds them with it.
        .executableTarget(
            name: "ycft-fuzz",
            dependencies: ["FirstTimeArchive", "KeyedArchive", "Plist", "OrderedJSON", "SafeFiles", "YcftCLI", "PhoneBackup",
                           "CSQLite"],
            path: "Fuzz/Sources/ycft-fuzz"
        ),
        // Every harness reaches its subject on a valid seed (Fuzz/README.md).
        .testTarget(name: "FuzzHarnessTests", dependencies: ["ycft-fuzz", "TestSupport"]),
        // Test oracle: Linux Foundation's NSKeyedArchiver/NSKeyedUnarchiver, run as a child process.
        .executableTarget(name: "foundation-oracle", path: "Tests/FoundationOracle"),
        // An app's first read of its state, started with `ycft pack --launch-arguments`'s words.
        .executableTarget(name: "launch-state-reader", dependencies: ["FirstTimeMigration", "FirstTimeCore"], path: "Tests/LaunchStateReader"),

        .target(name: "TestSupport", dependencies: ["CLibPlist", "Plist", "PlistCore", "FirstTimeArchive", "OrderedJSON", "SafeFiles"], path: "Tests/TestSupport"),
        .testTarget(name: "PlistTests", dependencies: ["Plist", "PlistCore", "TestSupport"]),
        .testTarget(name: "OrderedJSONTests", dependencies: ["OrderedJSON"]),
        .testTarget(name: "KeyedArchiveTests", dependencies: ["KeyedArchive", "Plist", "OrderedJSON", "TestSupport"],
                    exclude: ["Goldens"]),
        .testTarget(
            name: "FirstTimeArchiveTests",
            dependencies: ["FirstTimeArchive", "KeyedArchive", "Plist", "TestSupport", "foundation-oracle"]
        ),
        .testTarget(name: "YcftCLITests", dependencies: ["YcftCLI", "TestSupport", "ycft", "SafeFiles", "FirstTimeArchive", "OrderedJSON",
                                                         "PhoneBackup", "launch-state-reader"]),
        .testTarget(name: "SafeFilesTests", dependencies: ["SafeFiles", "TestSupport"]),
        // The on-device library against the tool, in UserDefaults(suiteName:) domains.
        .testTarget(name: "FirstTimeMigrationTests",
                    dependencies: ["FirstTimeMigration", "FirstTimeArchive", "Plist", "TestSupport", "ycft"]),
        // docs/library.md's examples, importing only the modules the products list.
        .testTarget(name: "LibraryExampleTests", dependencies: ["FirstTimeArchive", "FirstTimeCore", "FirstTimeMigration", "PlistCore", "TestSupport"]),
        // The persistence contract, locked by Fixtures/ (see Fixtures/README.md).
        .testTarget(
            name: "ContractTests",
            dependencies: ["FirstTimeArchive", "KeyedArchive", "Plist", "OrderedJSON", "YcftCLI", "TestSupport",
                           "foundation-oracle"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
