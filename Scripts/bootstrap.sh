#!/usr/bin/env bash
# Installs what ycft needs to build and test on Debian/Ubuntu (libplist-dev and pkg-config; the
# run-time SQLite and libcrypto that reading a backup loads; GNU time, tmux and vim; groff and
# mandoc to check the manual page; zsh and fish to check the completion scripts) when missing.
# Swift itself must already be on PATH. Safe to run again: it installs nothing that is present.
set -euo pipefail

if ! command -v swift >/dev/null 2>&1; then
    echo "bootstrap: swift is not on PATH; install a Swift 6 toolchain first (https://swift.org/install)" >&2
    exit 2
fi

missing=()
[ -f /usr/include/plist/plist.h ] || missing+=(libplist-dev)
# An iPhone backup's Manifest.db is read through the system SQLite, and an encrypted backup is
# decrypted with OpenSSL's libcrypto: both loaded with dlopen when needed, so no headers, only
# the libraries (the Swift toolchain's own dependencies bring them on any usual install).
if command -v apt-get >/dev/null 2>&1; then
    libraries=$({ command -v ldconfig >/dev/null 2>&1 && ldconfig -p || /sbin/ldconfig -p; } 2>/dev/null || true)
    grep -q 'libsqlite3\.so\.0 ' <<<"$libraries" || missing+=(libsqlite3-0)
    if ! grep -q 'libcrypto\.so\.3 ' <<<"$libraries"; then
        # Ubuntu 24.04 renamed the package (64-bit time_t).
        if apt-cache show libssl3t64 >/dev/null 2>&1; then missing+=(libssl3t64); else missing+=(libssl3); fi
    fi
fi
command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
# GNU time measures a child's own peak memory for the hostile-input tests.
[ -x /usr/bin/time ] || missing+=(time)
# `ycft edit` is tested with a real vi on a pseudo-terminal (tmux).
command -v tmux >/dev/null 2>&1 || missing+=(tmux)
command -v vi >/dev/null 2>&1 || missing+=(vim)
# The manual page is rendered with groff -ww (always) and linted with mandoc -T lint.
command -v groff >/dev/null 2>&1 || missing+=(groff)
if command -v apt-get >/dev/null 2>&1; then
    command -v mandoc >/dev/null 2>&1 || missing+=(mandoc)
    # The zsh and fish completion scripts are checked with zsh -n and fish -n.
    command -v zsh >/dev/null 2>&1 || missing+=(zsh)
    command -v fish >/dev/null 2>&1 || missing+=(fish)
fi

if [ ${#missing[@]} -gt 0 ]; then
    if command -v apt-get >/dev/null 2>&1; then
        sudo=""
        [ "$(id -u)" -eq 0 ] || sudo="sudo"
        echo "bootstrap: installing ${missing[*]}" >&2
        $sudo apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
    elif command -v brew >/dev/null 2>&1; then
        brew install libplist openssl@3 pkg-config tmux groff
    else
        echo "bootstrap: please install ${missing[*]} (libplist 2.2 or later with its headers; SQLite 3.36 or later and OpenSSL 3 to read backups)" >&2
        exit 2
    fi
fi

# The tests build encrypted backups with the PyPI package cryptography (Scripts/make-backup.py)
# and check them with iphone-backup-decrypt, a decrypter that is not ycft. Pinned; installed
# only when python3 cannot import them.
python_missing=()
python3 -c 'import cryptography' >/dev/null 2>&1 || python_missing+=(cryptography==48.0.0)
python3 -c 'import iphone_backup_decrypt' >/dev/null 2>&1 || python_missing+=(iphone-backup-decrypt==0.11.2 pycryptodome==4.4.0)
# The pre-commit hooks (.pre-commit-hooks.yaml) are tested with the real pre-commit.
python3 -c 'import pre_commit' >/dev/null 2>&1 || python_missing+=(pre-commit==4.7.0)
if [ ${#python_missing[@]} -gt 0 ]; then
    echo "bootstrap: installing ${python_missing[*]} (python3 -m pip)" >&2
    # A Debian python3 marks its packages as the system's (PEP 668): then into it all the same.
    python3 -m pip install --quiet --disable-pip-version-check "${python_missing[@]}" >&2 \
        || python3 -m pip install --quiet --disable-pip-version-check --break-system-packages "${python_missing[@]}" >&2
fi
