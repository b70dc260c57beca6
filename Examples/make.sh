#!/usr/bin/env bash
# Rebuilds the demo files that README.md, MIGRATING.md and docs/ use, with ycft itself: every
# archive is written by `ycft pack` (Apple's layout), every defaults file starts as the XML
# below and gets its state through `ycft pack --into` or `ycft migrate`. The one broken archive
# is a copy of a fixture Linux Foundation's NSKeyedArchiver wrote.
#
#   Examples/make.sh                  # with ycft on PATH
#   YCFT=.build/debug/ycft Examples/make.sh
#
# The output is the same on every run; commit it (Tests/YcftCLITests/DocExamplesTests.swift
# runs the documents' examples on a copy of this folder).
set -euo pipefail
cd "$(dirname "$0")"
ycft=${YCFT:-ycft}
case $ycft in /*) ;; */*) ycft=$PWD/../$ycft ;; esac
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

rm -rf Preferences.plist exported TestData Backup EncryptedBackup backup-password.txt
mkdir -p exported/team-b TestData

# A defaults file in XML with the given settings (one <key>/<value> pair per line of stdin).
settings() {
    printf '<?xml version="1.0" encoding="UTF-8"?>\n'
    printf '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">\n'
    printf '<plist version="1.0">\n<dict>\n'
    sed 's/^/\t/'
    printf '</dict>\n</plist>\n'
}

# Records in ycft's JSON form: KEY VERSION TIME lines ("-" for nil; TIME in seconds since 2001).
records() {
    local first=1
    printf '{"format": "ycfirsttime-records", "formatVersion": 1, "records": {'
    while read -r key version time; do
        [ $first -eq 1 ] || printf ','
        first=0
        [ "$version" = - ] && version=null || version="\"$version\""
        [ "$time" = - ] && time=null
        printf '"%s": {"lastVersion": %s, "lastTime": %s}' "$key" "$version" "$time"
    done
    printf '}}\n'
}

# A binary defaults file: the XML one, through ycft (records, then back to the archive).
binary() {
    "$ycft" migrate --to records --plist-format binary -o "$work/records.plist" "$1" 2>/dev/null
    "$ycft" migrate --to legacy -o "$2" "$work/records.plist" 2>/dev/null
}

# Preferences.plist: one user's exported preferences of the notes app (binary, as
# `defaults export` writes it): YCFirstTime's archive beside the app's other settings.
records > "$work/notes.json" <<'R'
onboarding.v1 2.1.0 757414800.123456
rate.prompt 2.0.0 750000000
whats-new - -
R
settings > "$work/notes.plist" <<'S'
<key>AppleLanguages</key><array><string>en</string><string>fr</string></array>
<key>LaunchCount</key><integer>42</integer>
<key>SoundEnabled</key><true/>
<key>Theme</key><string>dark</string>
S
"$ycft" pack --into "$work/notes.plist" "$work/notes.json"
binary "$work/notes.plist" Preferences.plist

# exported/: several apps' files, as a migration finds them.
# com.example.notes.plist: the same app, binary.
cp Preferences.plist exported/com.example.notes.plist
# com.example.weather.plist: XML, as some backup tools export it.
records > "$work/weather.json" <<'R'
onboarding.v1 3.0 760000000.5
location.prompt 3.0 760000123.25
R
settings > exported/com.example.weather.plist <<'S'
<key>Units</key><string>metric</string>
<key>RefreshMinutes</key><integer>30</integer>
S
"$ycft" pack --into exported/com.example.weather.plist "$work/weather.json"
# team-b/com.example.game.plist: migrated already (YCFirstTime.records): left unchanged.
records > "$work/game.json" <<'R'
tutorial 1.4 755000000
daily.bonus 1.4 762000000
R
settings > "$work/game.plist" <<'S'
<key>HighScore</key><integer>1200</integer>
S
"$ycft" pack --into "$work/game.plist" "$work/game.json"
"$ycft" migrate --to records --plist-format binary -o exported/team-b/com.example.game.plist "$work/game.plist" 2>/dev/null

# TestData/: the archives an app's tests ship, checked in CI: one ycft wrote (bare, as
# UserDefaults holds it), one Linux Foundation's NSKeyedArchiver wrote (its group is an
# NSDictionary, which YCFirstTime's next save empties).
records > "$work/fixture.json" <<'R'
onboarding.v1 2.1.0 757414800
R
"$ycft" pack -o TestData/onboarded.plist "$work/fixture.json"
cp ../Fixtures/valid/linux-foundation/immutable-group.plist TestData/linux-foundation.plist

# Backup/: an unencrypted iPhone backup (iOS 10 and later layout, as Finder writes it) holding
# the apps above and a few more, for the support recipe; Scripts/make-backup.py says which.
python3 ../Scripts/make-backup.py Backup
# EncryptedBackup/: the same backup encrypted, its password in backup-password.txt (the generator
# needs the PyPI package cryptography, which Scripts/bootstrap.sh installs).
printf 'correct horse battery\n' > backup-password.txt
python3 ../Scripts/make-backup.py EncryptedBackup --password "$(head -n 1 backup-password.txt)"
