#!/usr/bin/env bash
# Runs the whole test suite under AddressSanitizer (in its own build directory).
# UndefinedBehaviorSanitizer: Swift 6.3 rejects -sanitize=undefined on Linux, and Swift's own
# arithmetic and bounds checks already trap on what it would find in Swift code.
set -euo pipefail
cd "$(dirname "$0")/.."
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1}
# AddressSanitizer prints its own report; Swift's backtracer, started by the abort, held the
# test's pipes open after the child ended (a CI run hung on it until its time ran out).
export SWIFT_BACKTRACE=enable=no
# Tells the tests to skip their time and memory bounds, which sanitizers distort.
export YCFT_SANITIZER=address
# Linked with the toolchain's lld when it has one: the default gold linker prints a warning for
# each of AddressSanitizer's report functions it cannot export (564 lines per run, which buried
# the test output in CI's log), and lld links the same objects without them.
linker=()
if [ -x "$(dirname "$(readlink -f "$(command -v swift)")")/ld.lld" ]; then linker=(-Xswiftc -use-ld=lld); fi
swift test --build-path .build/asan -Xswiftc -sanitize=address ${linker[@]+"${linker[@]}"} "$@"
