// The start-up floor of ycft-bench: a Swift program that only prints a line, built by the same
// `swift build -c release` as ycft, so the two start with the same runtime and linking.
print("startup-floor 1")
