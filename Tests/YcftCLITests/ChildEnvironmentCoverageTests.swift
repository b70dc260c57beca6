import Testing
import TestSupport

/// A child given an environment of its own still writes its coverage profile where
/// `Scripts/coverage.sh` asked (`LLVM_PROFILE_FILE`), and keeps `Scripts/sanitize.sh`'s
/// `ASAN_OPTIONS` and `SWIFT_BACKTRACE`; nothing changes in an ordinary run.
@Suite struct ChildEnvironmentForCoverage {
    @Test func theProfilePatternIsPassedOnOnlyWhenSet() {
        let pattern = "/work/.build/coverage/profiles/%p-%m.profraw"
        #expect(childEnvironment(["PATH": "/bin"], from: ["LLVM_PROFILE_FILE": pattern, "HOME": "/root"])
                == ["PATH": "/bin", "LLVM_PROFILE_FILE": pattern])
        #expect(childEnvironment(["PATH": "/bin"], from: ["HOME": "/root"]) == ["PATH": "/bin"])
        #expect(childEnvironment([:], from: [:]) == [:])
        // A child given a pattern of its own keeps it.
        #expect(childEnvironment(["LLVM_PROFILE_FILE": "/elsewhere/%p.profraw"], from: ["LLVM_PROFILE_FILE": pattern])
                == ["LLVM_PROFILE_FILE": "/elsewhere/%p.profraw"])
        let sanitizer = ["ASAN_OPTIONS": "detect_leaks=0:abort_on_error=1", "SWIFT_BACKTRACE": "enable=no", "TMPDIR": "/tmp"]
        #expect(childEnvironment(["HOME": "/h"], from: sanitizer)
                == ["HOME": "/h", "ASAN_OPTIONS": "detect_leaks=0:abort_on_error=1", "SWIFT_BACKTRACE": "enable=no"])
    }
}
