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
# tests cannot stage) in Sources are counted per module, and so are the missed regions that
# are neither tested nor marked: a missed region is marked when a mark is on its first line or
# in the comment lines right above it, or when it lies inside a missed region so marked. Those
# are listed (file:line:column) in .build/coverage/unmarked.txt. Exits non-zero when the build
# or a test fails (the table is printed all the same when there are profiles).
#
# Usage: Scripts/coverage.sh [swift test options, e.g. --filter NAME]
# The merged profile stays in .build/coverage/coverage.profdata, to look at a file's regions:
#   llvm-cov show -show-regions -instr-profile=.build/coverage/coverage.profdata BUNDLE -object YCFT FILE
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
# Every region of the six modules, to tell the missed ones that are marked from the others.
sources=()
for module in "${modules[@]}"; do sources+=("Sources/$module"); done
"$toolchain/llvm-cov" export -skip-expansions -instr-profile="$build/coverage.profdata" "$bundle" -object "$bin/ycft" "${sources[@]}" \
    > "$build/regions.json" || exit 1

python3 - "$root" "$build" "$(wc -l < "$build/profiles.txt")" "$seconds" "${modules[@]}" <<'PY'
import json, pathlib, re, sys
root, build, profiles, seconds, modules = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5:]
summary = build / "summary.json"
files = {}
for data in json.load(open(summary))["data"]:
    for f in data["files"]:
        path = pathlib.Path(f["filename"])
        try: relative = path.relative_to(root)
        except ValueError: continue
        if relative.parts[0] != "Sources": continue
        regions = f["summary"]["regions"]
        files[relative] = (regions["count"], regions["count"] - regions["covered"])

# The code regions of the six modules (a region of several instantiations counts once, as in
# the summary), each with its highest count; the missed ones, each marked or not.
counts = {}
for data in json.load(open(build / "regions.json"))["data"]:
    for function in data["functions"]:
        for l1, c1, l2, c2, count, file, _, kind in (r[:8] for r in function["regions"]):
            if kind != 0: continue
            try: relative = pathlib.Path(function["filenames"][file]).relative_to(root)
            except ValueError: continue
            if relative.parts[0] != "Sources" or relative.parts[1] not in modules: continue
            key = (relative, l1, c1, l2, c2)
            counts[key] = max(counts.get(key, 0), count)
MARK = re.compile(r"// (unreachable|untested):")
lines = {}
def mark_above(path, line):
    """The mark on `line` or in the comment lines right above it, or None."""
    text = lines.setdefault(path, (root / path).read_text().split("\n"))
    above = line - 1
    found = MARK.search(text[above])
    while not found and above > 0 and text[above - 1].lstrip().startswith("//"):
        above -= 1
        found = MARK.search(text[above])
    return found.group(1) if found else None
missed = sorted(k for k, v in counts.items() if v == 0)
marked = {k: m for k in missed if (m := mark_above(k[0], k[1]))}
for k in missed:
    if k not in marked:
        outer = next((o for o in list(marked) if o[0] == k[0] and o[1:3] <= k[1:3] and k[3:5] <= o[3:5]), None)
        if outer: marked[k] = marked[outer]
unmarked = [k for k in missed if k not in marked]
summarized = sum(missed for path, (_, missed) in files.items() if path.parts[1] in modules)
if summarized != len(missed):
    print(f"coverage: the summary misses {summarized} regions of the six, the regions {len(missed)}", file=sys.stderr)
(build / "unmarked.txt").write_text("".join(f"{p}:{l1}:{c1}-{l2}:{c2}\n" for p, l1, c1, l2, c2 in unmarked))

def percent(count, missed): return 100.0 * (count - missed) / count if count else 100.0
def marks(paths, mark): return sum(len(re.findall(mark, (root / p).read_text())) for p in paths)
def row(name, paths, ours=True):
    count = sum(files[p][0] for p in paths); missed = sum(files[p][1] for p in paths)
    neither = sum(1 for k in unmarked if k[0] in paths) if ours else "-"
    return (f"| {name} | {count} | {missed} | {percent(count, missed):.1f}% | {marks(paths, '// unreachable:')} "
            f"| {marks(paths, '// untested:')} | {neither} |")

ours = [p for p in files if p.parts[1] in modules]
print(f"\nRegion coverage: {profiles} profiles, build and tests took {seconds} s\n")
print("| module | regions | missed | covered | `// unreachable:` | `// untested:` | missed, not marked |")
print("|---|---:|---:|---:|---:|---:|---:|")
for module in modules:
    print(row(module, [p for p in ours if p.parts[1] == module]))
print(row("**the six**", ours))
print(row("package (Sources/)", list(files), ours=False))
print("\n| lowest files | regions | missed | covered |\n|---|---:|---:|---:|")
for p in sorted(ours, key=lambda p: (percent(*files[p]), -files[p][1]))[:10]:
    print(f"| {p.relative_to('Sources')} | {files[p][0]} | {files[p][1]} | {percent(*files[p]):.1f}% |")
kinds = list(marked.values())
print(f"\n{len(missed)} missed regions in the six: {kinds.count('unreachable')} marked unreachable, "
      f"{kinds.count('untested')} marked untested, {len(unmarked)} neither tested nor marked"
      + (f" (listed in {(build / 'unmarked.txt').relative_to(root)})" if unmarked else ""))
PY
exit $status
