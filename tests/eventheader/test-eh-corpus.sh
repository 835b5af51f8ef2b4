#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Our EventHeader decoder against LinuxTracepoints' on the same events:
# eh-provider writes its events (and malformed ones) as an interceptor file,
# eh-dat-decode prints them as their decode-dat-utest does; the expected
# text is that tool's output on this file (see meson.build).
# Usage: test-eh-corpus.sh EH_PROVIDER EH_DAT_DECODE EXPECTED
set -u
W=$(mktemp -d) || exit 1
trap 'rm -rf "$W"' EXIT
"$1" dat "$W/corpus.dat" || { echo "not ok: eh-provider dat"; exit 1; }
"$2" "$W/corpus.dat" > "$W/ours.json" 2> "$W/errors" || { echo "not ok: dat-decode"; exit 1; }
if cmp -s "$W/ours.json" "$3"; then
	echo "ok - $(grep -c '"n":' "$3") events as LinuxTracepoints' decoder prints them"
else
	echo "not ok - differs from LinuxTracepoints' decoder:"; diff "$3" "$W/ours.json" | head -20
	exit 1
fi
# The malformed ones are refused, each with its reason (21 of them).
n=$(grep -c 'error' "$W/errors")
[ "$n" = 21 ] || { echo "not ok - $n malformed events refused, 21 expected"; cat "$W/errors"; exit 1; }
echo "ok - 21 malformed events refused"
