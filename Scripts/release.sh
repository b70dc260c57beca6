#!/usr/bin/env bash
# Builds an installable ycft: a release binary with the Swift runtime linked in
# (--static-swift-stdlib; libplist stays a system library: apt-get install libplist-2.0-3),
# its manual page, bash/zsh/fish completions, README, MIGRATING and LICENSE, as
# dist/ycft-VERSION-linux-ARCH.tar.gz, laid out like /usr/local:
#
#   bin/ycft
#   share/man/man1/ycft.1
#   share/bash-completion/completions/ycft
#   share/zsh/site-functions/_ycft
#   share/fish/vendor_completions.d/ycft.fish
#   share/doc/ycft/{README.md,MIGRATING.md,LICENSE}
#
# Install: tar -xzf ycft-*.tar.gz -C /usr/local --strip-components=1
# Then it checks the packaged binary: it runs, reads a fixture, and its manual renders.
set -euo pipefail
cd "$(dirname "$0")/.."

swift build -c release --product ycft --static-swift-stdlib
binary="$(swift build -c release --product ycft --static-swift-stdlib --show-bin-path)/ycft"
version="$("$binary" --version | awk '{print $2}')"
arch="$(uname -m)"
name="ycft-$version-linux-$arch"
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
root="$stage/$name"

install -D -m 0755 "$binary" "$root/bin/ycft"
mkdir -p "$root/share/man/man1" "$root/share/bash-completion/completions" "$root/share/zsh/site-functions" \
    "$root/share/fish/vendor_completions.d" "$root/share/doc/ycft"
"$binary" --generate-manual > "$root/share/man/man1/ycft.1"
"$binary" --generate-completion-script bash > "$root/share/bash-completion/completions/ycft"
"$binary" --generate-completion-script zsh > "$root/share/zsh/site-functions/_ycft"
"$binary" --generate-completion-script fish > "$root/share/fish/vendor_completions.d/ycft.fish"
cp README.md MIGRATING.md "$root/share/doc/ycft/"
if [ -f LICENSE ]; then
    cp LICENSE "$root/share/doc/ycft/"
else
    # The project has no license yet (its owner has not chosen one): say so rather than invent one.
    echo "release.sh: warning: no LICENSE file; the archive carries none" >&2
fi

mkdir -p dist
tar -C "$stage" --owner=0 --group=0 --sort=name -czf "dist/$name.tar.gz" "$name"

# The packaged binary, unpacked elsewhere, works on its own.
check="$(mktemp -d)"
trap 'rm -rf "$stage" "$check"' EXIT
tar -xzf "dist/$name.tar.gz" -C "$check"
packaged="$check/$name/bin/ycft"
fixture="$PWD/Fixtures/valid/ycft/three-records.plist"
empty="$(mktemp -d)"
trap 'rm -rf "$stage" "$check" "$empty"' EXIT
# From an empty directory, so nothing of the checkout is found by accident.
(
    cd "$empty"
    "$packaged" --version
    "$packaged" dump --compact "$fixture" > /dev/null
    "$packaged" verify "$fixture"
)
bash -n "$check/$name/share/bash-completion/completions/ycft"
if command -v groff > /dev/null; then
    warnings="$(groff -ww -man -Tutf8 "$check/$name/share/man/man1/ycft.1" 2>&1 > /dev/null)"
    [ -z "$warnings" ] || { echo "release.sh: the manual page has roff warnings: $warnings" >&2; exit 1; }
fi
if ldd "$packaged" | grep -q 'libswift'; then
    echo "release.sh: the binary still links the Swift runtime dynamically" >&2
    exit 1
fi
echo "dist/$name.tar.gz"
