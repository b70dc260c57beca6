#!/usr/bin/env bash
# Builds the libFuzzer harnesses (Fuzz/) and runs one for SECONDS, seeded from Fixtures/.
#   Scripts/fuzz.sh TARGET SECONDS [extra libFuzzer options]
# Targets: plist archive records verify pack-json defaults dump-raw xml-guard pure-read in-place
# keybag manifest manifest-db (ycft-fuzz prints the list); xml-guard uses the XML token dictionary
# Fuzz/xml.dict; in-place is seeded with the defaults fixtures and files the harness generates
# (ycft-fuzz in-place-seeds DIR); keybag, manifest and manifest-db with what
# Scripts/make-backup.py makes (manifest: its Manifest.db's rows, ycft-fuzz manifest-seeds).
# The growing corpus lives in Fuzz/corpus/TARGET and crashes in Fuzz/artifacts/TARGET (both
# ignored by git); turn every crash into a fixture under Fixtures/invalid/.
# FUZZ_TIMEOUT (seconds, default 30) is the per-input limit, generous because instrumented
# builds run many times slower than release ones (Fuzz/README.md).
set -euo pipefail
cd "$(dirname "$0")/.."
target=${1:?usage: Scripts/fuzz.sh TARGET SECONDS}
seconds=${2:?usage: Scripts/fuzz.sh TARGET SECONDS}
shift 2

# The harnesses are a target of the package, built here into a build directory of their own
# with libFuzzer (-DYCFT_FUZZ turns its entry point on). Swift 6.3's default gold linker fails
# with -sanitize=fuzzer; lld works.
flags=(-c release --product ycft-fuzz --scratch-path Fuzz/.build
       -Xswiftc -sanitize=fuzzer,address -Xswiftc -DYCFT_FUZZ -Xswiftc -use-ld=lld)
swift build "${flags[@]}" >&2
binary=$(swift build "${flags[@]}" --show-bin-path)/ycft-fuzz

# Run a private copy, so rebuilding while a fuzzer runs never touches its binary.
mkdir -p Fuzz/.build/runs
cp "$binary" "Fuzz/.build/runs/ycft-fuzz-$target"
binary=Fuzz/.build/runs/ycft-fuzz-$target

corpus=Fuzz/corpus/$target
artifacts=Fuzz/artifacts/$target
mkdir -p "$corpus" "$artifacts"
extra=()
case "$target" in
    pack-json) seeds=$(find Fixtures -name '*.json' ! -name manifest.json) ;;
    xml-guard)
        seeds=$(grep -l '<?xml' $(find Fixtures -name '*.plist'))
        extra=(-dict=Fuzz/xml.dict) ;;
    in-place)
        # Defaults files and archives (every form), and generated files with many unrelated keys.
        seeds=$(find Fixtures/valid Fixtures/invalid -name '*.plist')
        "$binary" in-place-seeds "$corpus" >&2 ;;
    keybag)
        # A generated encrypted backup's keybag.
        scratch=$(mktemp -d)
        python3 Scripts/make-backup.py "$scratch/backup" --password fuzz
        python3 -c 'import plistlib, sys; open(sys.argv[2], "wb").write(plistlib.load(open(sys.argv[1], "rb"))["BackupKeyBag"])' \
            "$scratch/backup/Manifest.plist" "$scratch/keybag"
        seeds="$scratch/keybag" ;;
    manifest|manifest-db)
        # A generated Manifest.db (what an encrypted backup's decrypts to): its bytes for
        # manifest-db, its rows (with the records' keys) for manifest.
        scratch=$(mktemp -d)
        python3 Scripts/make-backup.py "$scratch/plain"
        seeds="$scratch/plain/Manifest.db"
        if [ "$target" = manifest ]; then
            mkdir "$scratch/rows"
            "$binary" manifest-seeds "$scratch/rows" "$scratch/plain/Manifest.db" >&2
            seeds=$(find "$scratch/rows" -type f)
        fi ;;
    *) seeds=$(find Fixtures -name '*.plist') ;;
esac
for seed in $seeds; do
    cp -n "$seed" "$corpus/seed-$(echo "$seed" | tr '/' '_')" 2>/dev/null || true
done
[ -z "${scratch:-}" ] || rm -rf "$scratch"

exec "$binary" "$target" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout="${FUZZ_TIMEOUT:-30}" \
    -artifact_prefix="$artifacts/" -print_final_stats=1 "${extra[@]}" "$@" "$corpus"
