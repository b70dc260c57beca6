#!/usr/bin/env bash
# Builds an installable ycft: a release binary with the Swift runtime linked in
# (--static-swift-stdlib), stripped, with its debug information kept beside it in a separate
# file. At run time it needs libplist (Debian 12: libplist3), SQLite >= 3.36 (libsqlite3-0), OpenSSL's
# libcrypto (libssl3; both loaded with dlopen, only for backups), libstdc++6, libgcc-s1 and glibc >= 2.35. Three files in dist/:
#
#   ycft-VERSION-linux-ARCH.tar.gz   laid out like /usr/local:
#       bin/ycft
#       share/man/man1/ycft.1
#       share/bash-completion/completions/ycft
#       share/zsh/site-functions/_ycft
#       share/fish/vendor_completions.d/ycft.fish
#       share/doc/ycft/{README.md,MIGRATING.md,LICENSE,THIRD-PARTY-NOTICES.md,swift-LICENSE.txt}
#       share/doc/ycft/docs/*.md         (the reference the README links to)
#     Install: tar -xzf ycft-*.tar.gz -C /usr/local --strip-components=1
#   ycft_VERSION_DEBARCH.deb         the same files under /usr, as Debian lays them out
#     Install: apt-get install ./ycft_*.deb      Remove: apt-get remove ycft
#   ycft-VERSION-linux-ARCH.debug    the debug information (gdb finds it by the binary's
#                                    .gnu_debuglink; keep it beside the binary to use it)
#
# Then it checks what it made: the binary from the unpacked archive and from the package
# unpacked into a scratch root (dpkg -x) runs from an empty directory, reads a fixture, and its
# manual renders without a warning.
set -euo pipefail
cd "$(dirname "$0")/.."

# The static Foundation library references mktemp(3), and the linker warns of that on every
# link; ycft itself never calls it (its scratch files come from mkdtemp and O_TMPFILE). Said once,
# in those words, instead of the linker's line; any other output is shown as it is.
log="$(mktemp)"
if ! swift build -c release --product ycft --static-swift-stdlib > "$log" 2>&1; then
    cat "$log"
    rm -f "$log"
    exit 1
fi
grep -v "the use of .mktemp. is dangerous" "$log" || true
if grep -q "the use of .mktemp. is dangerous" "$log"; then
    echo "release.sh: the linker's warning about mktemp is about the static Foundation library; ycft never calls mktemp"
fi
rm -f "$log"
binary="$(swift build -c release --product ycft --static-swift-stdlib --show-bin-path)/ycft"
version="$("$binary" --version | awk '{print $2}')"
arch="$(uname -m)"
name="ycft-$version-linux-$arch"
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
root="$stage/$name"

mkdir -p dist
# Strip the binary (75 MB with debug information, most of it DWARF), keeping the debug
# information in a file of its own that gdb finds through the binary's .gnu_debuglink.
debug="dist/$name.debug"
objcopy --only-keep-debug "$binary" "$debug"
install -D -m 0755 "$binary" "$root/bin/ycft"
strip --strip-debug --strip-unneeded "$root/bin/ycft"
objcopy --add-gnu-debuglink="$debug" "$root/bin/ycft"
mkdir -p "$root/share/man/man1" "$root/share/bash-completion/completions" "$root/share/zsh/site-functions" \
    "$root/share/fish/vendor_completions.d" "$root/share/doc/ycft"
"$binary" --generate-manual > "$root/share/man/man1/ycft.1"
"$binary" --generate-completion-script bash > "$root/share/bash-completion/completions/ycft"
"$binary" --generate-completion-script zsh > "$root/share/zsh/site-functions/_ycft"
"$binary" --generate-completion-script fish > "$root/share/fish/vendor_completions.d/ycft.fish"
cp README.md MIGRATING.md LICENSE THIRD-PARTY-NOTICES.md "$root/share/doc/ycft/"
mkdir -p "$root/share/doc/ycft/docs"
cp docs/*.md "$root/share/doc/ycft/docs/"
# The Swift runtime linked in is Apache-2.0 with the Runtime Library Exception: its text, from
# the toolchain that built the binary, goes with it.
swift_license="$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")/share/swift/LICENSE.txt"
[ -f "$swift_license" ] || { echo "release.sh: cannot find the toolchain's LICENSE.txt (looked at $swift_license)" >&2; exit 1; }
cp "$swift_license" "$root/share/doc/ycft/swift-LICENSE.txt"

tar -C "$stage" --owner=0 --group=0 --sort=name -czf "dist/$name.tar.gz" "$name"

# The Debian package: the same files under /usr, as Debian lays them out (manual compressed,
# zsh completions in vendor-completions, the license as doc/ycft/copyright).
deb_arch="$(dpkg --print-architecture)"
deb="dist/ycft_${version}_${deb_arch}.deb"
pkg="$stage/deb"
install -D -m 0755 "$root/bin/ycft" "$pkg/usr/bin/ycft"
install -D -m 0644 "$root/share/man/man1/ycft.1" "$pkg/usr/share/man/man1/ycft.1"
gzip -9n "$pkg/usr/share/man/man1/ycft.1"
install -D -m 0644 "$root/share/bash-completion/completions/ycft" "$pkg/usr/share/bash-completion/completions/ycft"
install -D -m 0644 "$root/share/zsh/site-functions/_ycft" "$pkg/usr/share/zsh/vendor-completions/_ycft"
install -D -m 0644 "$root/share/fish/vendor_completions.d/ycft.fish" "$pkg/usr/share/fish/vendor_completions.d/ycft.fish"
install -D -m 0644 README.md "$pkg/usr/share/doc/ycft/README.md"
install -D -m 0644 MIGRATING.md "$pkg/usr/share/doc/ycft/MIGRATING.md"
for page in docs/*.md; do install -D -m 0644 "$page" "$pkg/usr/share/doc/ycft/$page"; done
install -D -m 0644 THIRD-PARTY-NOTICES.md "$pkg/usr/share/doc/ycft/THIRD-PARTY-NOTICES.md"
install -D -m 0644 "$swift_license" "$pkg/usr/share/doc/ycft/swift-LICENSE.txt"
{
    echo "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/"
    echo "Upstream-Name: ycft"
    echo "Comment: The Swift runtime linked into /usr/bin/ycft is Apache-2.0 with the Runtime"
    echo " Library Exception (swift-LICENSE.txt); libplist is used as the system library"
    echo " (LGPL-2.1-or-later, package libplist3). See THIRD-PARTY-NOTICES.md."
    echo ""
    echo "Files: *"
    echo "Copyright: 2026 the ycft authors"
    echo "License: MIT"
    sed -e 's/^$/./' -e 's/^/ /' LICENSE
} > "$pkg/usr/share/doc/ycft/copyright"
mkdir -p "$pkg/DEBIAN"
installed_size="$(du -sk --exclude=DEBIAN "$pkg" | cut -f1)"
cat > "$pkg/DEBIAN/control" <<CONTROL
Package: ycft
Version: $version
Architecture: $deb_arch
Maintainer: the ycft authors <ycft@users.noreply.github.com>
Installed-Size: $installed_size
Depends: libc6 (>= 2.35), libgcc-s1, libstdc++6 (>= 12), libplist3 (>= 2.2.0), libsqlite3-0 (>= 3.36), libssl3 | libssl3t64
Recommends: bash-completion
Section: utils
Priority: optional
Description: read, check, migrate and rewrite YCFirstTime state archives
 ycft reads the NSKeyedArchiver archives in which the iOS library YCFirstTime
 keeps its state (in UserDefaults, under the key YCFirstTime), as exact JSON;
 verifies them against the archive contract for CI; migrates exported
 defaults files to a plain format and back; and edits records in place.
CONTROL
find "$pkg" -type d -exec chmod 0755 {} +
dpkg-deb --root-owner-group -Zxz --build "$pkg" "$deb" > /dev/null

# The packaged binary, unpacked elsewhere, works on its own.
check="$(mktemp -d)"
trap 'rm -rf "$stage" "$check"' EXIT
tar -xzf "dist/$name.tar.gz" -C "$check"
packaged="$check/$name/bin/ycft"
fixture="$PWD/Fixtures/valid/ycft/three-records.plist"
empty="$(mktemp -d)"
trap 'rm -rf "$stage" "$check" "$empty"' EXIT
# From an empty directory, so nothing of the checkout is found by accident.
# The package, unpacked into a scratch root as dpkg would install it.
debroot="$check/debroot"
dpkg-deb -x "$deb" "$debroot"
dpkg-deb -I "$deb" control > /dev/null
for candidate in "$packaged" "$debroot/usr/bin/ycft"; do
    (
        cd "$empty"
        "$candidate" --version
        "$candidate" dump --compact "$fixture" > /dev/null
        "$candidate" verify "$fixture"
        # Calendars and time zones come from ICU (FoundationInternationalization), which the
        # static link keeps only because ycft refers to it: without it Foundation traps.
        "$candidate" status --calendar buddhist --time-zone Europe/Paris --now 2025-07-01T00:00:00Z "$fixture" \
            | grep -q -F '+02:00 (Europe/Paris)'
    )
done
if readelf -S "$packaged" | grep -q '\.debug_info'; then
    echo "release.sh: the packaged binary still carries debug information" >&2
    exit 1
fi
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
echo "$deb"
echo "$debug"
