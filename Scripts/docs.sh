#!/usr/bin/env bash
# Builds the DocC documentation of the library products offline, with warnings as errors: the
# symbol graphs of the debug build (`swift package dump-symbol-graph`, with CI's
# -warnings-as-errors so that the build CI has just made is reused), then the toolchain's
# `docc convert` of each product's catalog (Sources/<Product>/<Product>.docc) into
# .build/docs/<Product>.doccarchive (scratch, never committed). A broken ``symbol`` link, an
# ambiguous one, or a topic that names nothing fails the run.
#
# A product is documented as what `import <Product>` gives an adopter: its own module and the
# modules it re-exports (`@_exported public import` in its sources), as one module. Links to
# another product's symbols do not resolve; doc comments name those in code voice. Parameter
# and return documentation is not validated: doc comments describe the parameters that need
# words. Extra arguments go to `swift package`.
set -euo pipefail
cd "$(dirname "$0")/.."

products=(FirstTimeArchive FirstTimeMigration KeyedArchive OrderedJSON FileErrors)
out=.build/docs
build=(-Xswiftc -warnings-as-errors "$@")

rm -rf "$out"
mkdir -p "$out"
if ! swift package "${build[@]}" dump-symbol-graph --minimum-access-level public >"$out/symbol-graphs.log" 2>&1; then
    cat "$out/symbol-graphs.log" >&2
    exit 1
fi
graphs="$(swift build "${build[@]}" --show-bin-path)/../symbolgraph"

# The conversions run side by side (each spends most of its time waiting, not computing).
pids=()
for product in "${products[@]}"; do
    dir="$out/graphs/$product"
    mkdir -p "$dir"
    modules=("$product" $(sed -nE 's/^@_exported public import ([A-Za-z]+)$/\1/p' "Sources/$product"/*.swift | sort -u))
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
for i in "${!products[@]}"; do
    if ! wait "${pids[$i]}"; then
        cat "$out/${products[$i]}.log" >&2
        echo "docs.sh: ${products[$i]}'s documentation has errors (above)" >&2
        status=1
    fi
done
exit $status
