#!/usr/bin/env bash
# Region coverage of the whole test suite (llvm-cov), the in-process tests and every `ycft`
# child they start merged: builds the tests with coverage in .build/coverage (never the normal
# .build), runs `swift test` with LLVM_PROFILE_FILE an absolute pattern in a profiles folder of
# its own (the test process and each instrumented child write their own file there; the test
# helpers pass the variable on to children they give an environment of their own, so none
# writes default.profraw into its working folder), merges the profiles with the toolchain's
# llvm-profdata and prints, from llvm-cov over the test bundle and the ycft executable:
# region coverage per module for the modules that read and write, their total, the package
# total (Sources/), and the lowest files of those modules. The marks `// unreachable:` (no input
# reaches the region) and `// untested:` (reachable, but only through a race or a machine the
# tests cannot stage) in Sources are counted per module. Exits non-zero when the build or a
# test fails (the table is printed all the same when there are profiles).
#
# Usage: Scripts/coverage.sh [swift test options, e.g. --filter NAME]
# The merged profile stays in .build/coverage/coverage.profdata, to look at a file's regions:
#   llvm-cov show -instr-profile=.build/coverage/coverage.profdata BUNDLE -object YCFT FILE
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
build=$root/.build/coverage
profiles=$build/profiles
toolchain=$(dirname "$(readlink -f "$(command -v swiftc)")")
modules=(PlistCore KeyedArchive FirstTimeCore FirstTimeArchive SafeFiles PhoneBackup)

rm -rf "$profiles" "$build/coverage.profdata"
mkdir -p "$profiles"
# Some tests run ycft as nobody (setpriv), which must be able to write its profile too.
chmod 1777 "$profiles"
flags=(--build-path "$build" -Xswiftc -profile-generate -Xswiftc -profile-coverage-mapping)
start=$(date +%s)
# %p: one file per process (the test process and each child); %m: per instrumented binary.
LLVM_PROFILE_FILE="$profiles/%p-%m.profraw" swift test "${flags[@]}" "$@"
status=$?
seconds=$(($(date +%s) - start))

bin=$(swift build "${flags[@]}" --show-bin-path)
bundle=$bin/ycftPackageTests.xctest
find "$profiles" -name '*.profraw' > "$build/profiles.txt"
if [ ! -s "$build/profiles.txt" ]; then
    echo "coverage: no profiles were written (swift test exited with $status)" >&2
    exit $((status == 0 ? 1 : status))
fi
# Tests kill ycft children with SIGKILL, some while they write their profile: such a file is
# cut short, and llvm-profdata names it and merges the rest.
"$toolchain/llvm-profdata" merge -sparse --failure-mode=all -f "$build/profiles.txt" -o "$build/coverage.profdata" || exit 1
"$toolchain/llvm-cov" export -summary-only -instr-profile="$build/coverage.profdata" "$bundle" -object "$bin/ycft" \
    > "$build/summary.json" || exit 1

python3 - "$root" "$build/summary.json" "$(wc -l < "$build/profiles.txt")" "$seconds" "${modules[@]}" <<'PY'
import json, pathlib, re, sys
root, summary, profiles, seconds, modules = pathlib.Path(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
files = {}
for data in json.load(open(summary))["data"]:
    for f in data["files"]:
        path = pathlib.Path(f["filename"])
        try: relative = path.relative_to(root)
        except ValueError: continue
        if relative.parts[0] != "Sources": continue
        regions = f["summary"]["regions"]
        files[relative] = (regions["count"], regions["count"] - regions["covered"])

def percent(count, missed): return 100.0 * (count - missed) / count if count else 100.0
def marks(paths, mark): return sum(len(re.findall(mark, (root / p).read_text())) for p in paths)
def row(name, paths):
    count = sum(files[p][0] for p in paths); missed = sum(files[p][1] for p in paths)
    return f"| {name} | {count} | {missed} | {percent(count, missed):.1f}% | {marks(paths, '// unreachable:')} | {marks(paths, '// untested:')} |"

ours = [p for p in files if p.parts[1] in modules]
print(f"\nRegion coverage: {profiles} profiles, build and tests took {seconds} s\n")
print("| module | regions | missed | covered | `// unreachable:` | `// untested:` |")
print("|---|---:|---:|---:|---:|---:|")
for module in modules:
    print(row(module, [p for p in ours if p.parts[1] == module]))
print(row("**the six**", ours))
print(row("package (Sources/)", list(files)))
print("\n| lowest files | regions | missed | covered |\n|---|---:|---:|---:|")
for p in sorted(ours, key=lambda p: (percent(*files[p]), -files[p][1]))[:10]:
    print(f"| {p.relative_to('Sources')} | {files[p][0]} | {files[p][1]} | {percent(*files[p]):.1f}% |")
PY
exit $status
