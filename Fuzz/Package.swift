// swift-tools-version:6.0
// libFuzzer harnesses for ycft, kept in their own package so the main build never links
// libFuzzer. Build and run with ../Scripts/fuzz.sh TARGET SECONDS.
import PackageDescription

let package = Package(
    name: "ycft-fuzz",
    dependencies: [.package(name: "ycft", path: "..")],
    targets: [
        .executableTarget(
            name: "ycft-fuzz",
            dependencies: [
                .product(name: "FirstTimeArchive", package: "ycft"),
                .product(name: "KeyedArchive", package: "ycft"),
                // The command core, run in-process by the in-place harness.
                .product(name: "YcftCLI", package: "ycft"),
                .product(name: "SafeFiles", package: "ycft"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
