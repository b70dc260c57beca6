#!/usr/bin/env bash
# Builds the DocC documentation of the library products offline, with warnings as errors: the
# symbol graphs of the debug build (`swift package dump-symbol-graph`, with CI's
# -warnings-as-errors so that the build CI has just made is reused), then the toolchain's
# `docc convert` of each product's catalog (Sources/<Product>/<Product>.docc) into
# .build/docs/<Product>.doccarchive (scratch, never committed). A broken ``symbol`` link, an
# ambiguous one, or a topic that names nothing fails the run.
#
# A product is documented as what depending on it gives an adopter: the modules it lists in
# Package.swift (as `swift package describe` reports them), as one module. Parameter and return
# documentation is not validated: doc comments describe the parameters that need words. It also
# counts the public types (structs, enums, classes, protocols, actors, type aliases, nested ones
# included) of every module a library product lists, and fails above the budget of 40 (issue 28).
# Extra arguments go to `swift package`.
set -euo pipefail
cd "$(dirname "$0")/.."

# "Product module module ..." for each library product, from SwiftPM's own description.
mapfile -t products < <(swift package describe --type json | python3 -c '
import json, sys
for product in json.load(sys.stdin)["products"]:
    if "library" in product["type"]:
        print(" ".join([product["name"]] + product["targets"]))')
budget=40
out=.build/docs
build=(-Xswiftc -warnings-as-errors "$@")

rm -rf "$out"
mkdir -p "$out"
# dump-symbol-graph asks every module of the package for its graph, the test module too, which
# only --build-tests builds: on a fresh tree it failed with "Couldn't load module
# 'ycftPackageTests'". Built first (nothing to do where CI's build with these flags ran).
if ! swift build --build-tests "${build[@]}" >"$out/build.log" 2>&1 ||
    ! swift package "${build[@]}" dump-symbol-graph --minimum-access-level public >"$out/symbol-graphs.log" 2>&1; then
    cat "$out/build.log" >&2
    [ ! -e "$out/symbol-graphs.log" ] || cat "$out/symbol-graphs.log" >&2
    exit 1
fi
graphs="$(swift build "${build[@]}" --show-bin-path)/../symbolgraph"

# The conversions run side by side (each spends most of its time waiting, not computing).
pids=()
names=()
for line in "${products[@]}"; do
    read -r product modules_text <<<"$line"
    read -ra modules <<<"$modules_text"
    names+=("$product")
    dir="$out/graphs/$product"
    mkdir -p "$dir"
    for module in "${modules[@]}"; do
        for file in "$graphs/$module".symbols.json "$graphs/$module"@*.symbols.json; do
            [ -e "$file" ] || continue
            name=$(basename "$file")
            # An extension of a module documented here is part of the one module (A@B -> A+B).
            extended=${name#*@}; extended=${extended%.symbols.json}
            for m in "${modules[@]}"; do [ "$name" != "$extended.symbols.json" ] && [ "$extended" = "$m" ] && name=${name/@/+}; done
            sed "s/\"module\":{\"name\":\"$module\"/\"module\":{\"name\":\"$product\"/" "$file" >"$dir/$name"
        done
    done
    docc convert "Sources/$product/$product.docc" --additional-symbol-graph-dir "$dir" \
        --output-path "$out/$product.doccarchive" --warnings-as-errors \
        --disable-parameters-and-returns-validation >"$out/$product.log" 2>&1 &
    pids+=($!)
done
status=0
for i in "${!names[@]}"; do
    if ! wait "${pids[$i]}"; then
        cat "$out/${names[$i]}.log" >&2
        echo "docs.sh: ${names[$i]}'s documentation has errors (above)" >&2
        status=1
    fi
done

# The public surface: every type the products' modules declare public, each module once.
count=$(for line in "${products[@]}"; do read -r _ m <<<"$line"; echo "$m"; done | tr ' ' '\n' | sort -u |
    while read -r module; do echo "$graphs/$module.symbols.json"; done | python3 -c '
import json, sys
kinds = {"swift.struct", "swift.enum", "swift.class", "swift.protocol", "swift.actor", "swift.typealias"}
names = []
for path in sys.stdin.read().split():
    for symbol in json.load(open(path))["symbols"]:
        if symbol["kind"]["identifier"] in kinds:
            names.append(".".join(symbol["pathComponents"]))
print(len(names))
print("\n".join(sorted(names)), file=open(sys.argv[1], "w"))' "$out/public-types.txt")
echo "docs.sh: $count public types in the library products (budget $budget; list in $out/public-types.txt)" >&2
if [ "$count" -gt "$budget" ]; then
    echo "docs.sh: more public types than the budget of $budget" >&2
    status=1
fi
exit $status
