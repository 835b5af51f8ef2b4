#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# report --format=perf-decode of a perf.data written by `userevents record
# --format=perf` (eh.perf.data: eh-provider's events, EventHeader and
# plain, recorded 2026-12-06) against what LinuxTracepoints' perf-decode
# printed for that file (eh.perf-decode.json: perf-decode built from
# github.com/microsoft/LinuxTracepoints at 9ff8fe8, run by hand; CI cannot
# fetch it): the same bytes.  Checks our perf.data reader on a fixed file,
# and our perf-decode output against the tool's own.
# Usage: test-perf-decode.sh USEREVENTS DIR
tool=$1
cd "$2" || exit 1
out=$(mktemp) || exit 1
trap 'rm -f "$out"' EXIT
"$tool" report --format=perf-decode eh.perf.data > "$out" || exit 1
if cmp -s "$out" eh.perf-decode.json; then
	echo "report --format=perf-decode = perf-decode: $(grep -c '"n":' "$out") records"
	exit 0
fi
diff "$out" eh.perf-decode.json | head -20
exit 1
