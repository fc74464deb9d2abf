#!/usr/bin/env bash
# Checks the units in this folder with systemd-analyze verify.
# Usage: Examples/systemd/verify.sh PATH-TO-widgetd
# verify wants ExecStart's program to exist: the units are checked from a copy whose ExecStart names
# the given binary. Any line verify prints about a unit is a failure.
set -euo pipefail
binary=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
for unit in "$here"/*.service; do
    name=$(basename "$unit")
    sed "s#/usr/local/bin/widgetd#$binary#" "$unit" > "$work/$name"
    # A template unit is verified as one of its instances.
    target="$work/$name"
    if [[ "$name" == *@.service ]]; then
        target="$work/${name/@/@1}"
        cp "$work/$name" "$target"
    fi
    output=$(SYSTEMD_LOG_LEVEL=notice systemd-analyze verify --man=no "$target" 2>&1) || status=1
    echo "systemd-analyze verify $name: ${output:-no problems}"
    if [ -n "$output" ]; then status=1; fi
done
exit $status
