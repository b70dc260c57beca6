#!/usr/bin/env bash
# Lints the Swift sources with the toolchain's `swift format lint` and the committed
# .swift-format, strictly: any finding is an error and the exit status is non-zero.
#
# The rules run; the pretty printer's layout check does not (--debug-disable-pretty-print):
# the code aligns continuation lines under their opening parenthesis, which swift-format
# cannot express, so its layout findings would ask to re-indent most wrapped lines. For the
# same reason, do not run `swift format format` over the tree.
#
# Sources and Package.swift get .swift-format as it stands, including
# AllPublicDeclarationsHaveDocumentation (a public symbol without a doc comment fails) and
# NeverUseForceTry. Tests, Benchmarks and Fuzz get the same configuration without those two:
# their public declarations only connect test targets.
set -euo pipefail
cd "$(dirname "$0")/.."

lint=(swift format lint --strict --recursive --parallel --debug-disable-pretty-print)

"${lint[@]}" --configuration .swift-format Package.swift Sources

relaxed=$(sed -e 's/"AllPublicDeclarationsHaveDocumentation" : true/"AllPublicDeclarationsHaveDocumentation" : false/' \
              -e 's/"NeverUseForceTry" : true/"NeverUseForceTry" : false/' .swift-format)
if [ "$(grep -c '" : false' <<<"$relaxed")" -ne "$(($(grep -c '" : false' .swift-format) + 2))" ]; then
    echo "format-lint.sh: .swift-format no longer enables AllPublicDeclarationsHaveDocumentation and NeverUseForceTry as this script expects" >&2
    exit 2
fi
"${lint[@]}" --configuration "$relaxed" Tests Benchmarks Fuzz/Sources
