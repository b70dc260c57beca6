#!/usr/bin/env bash
# Runs several fuzz targets one after another, SECONDS each, logging to Fuzz/logs/TARGET.log.
#   Scripts/fuzz-lane.sh SECONDS TARGET...
# Start two lanes to use both cores.
set -uo pipefail
cd "$(dirname "$0")/.."
seconds=$1
shift
mkdir -p Fuzz/logs
for target in "$@"; do
    nice -n 15 Scripts/fuzz.sh "$target" "$seconds" > "Fuzz/logs/$target.log" 2>&1
    echo "$(date -u +%FT%TZ) $target exited $?" >> Fuzz/logs/lanes.log
done
