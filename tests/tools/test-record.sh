#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# userevents record/report against Debian's trace-cmd (suite 'interop'): in a
# private mount namespace usereventsd is stacked over a tracefs.  Checks:
# trace-cmd report reads our trace.dat and prints the records our `trace`
# showed; our report prints them exactly as `trace` did, for our file and for
# one from trace-cmd extract; filters; record -- CMD with a private daemon.
# Needs root, /dev/fuse, trace-cmd, unshare: exit 77 (skip) otherwise.
# Usage: test-record.sh USEREVENTS USEREVENTSD EXAMPLE
set -u
TOOL=$1
DAEMON=$2
EXAMPLE=$3

skip() { echo "SKIP: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "not root"
[ -c /dev/fuse ] || skip "no /dev/fuse"
command -v trace-cmd >/dev/null || skip "no trace-cmd"
command -v unshare >/dev/null || skip "no unshare"

if [ "${UE_RECORD_INNER:-}" != 1 ]; then
	UE_RECORD_INNER=1 exec unshare -m --propagation private "$0" "$@"
fi

T=/sys/kernel/tracing
W=$(mktemp -d /tmp/ue-record.XXXXXX) || exit 1
fail=0
cleanup() {
	umount "$T" 2>/dev/null
	rm -rf "$W"
}
trap cleanup EXIT

# A tracefs to stack on: ours, or one already there.
mount -t tracefs nodev "$T" 2>/dev/null
grep -q " $T tracefs " /proc/mounts || skip "no tracefs to stack on"
"$DAEMON" "$T" || { echo "not ok: usereventsd did not mount"; exit 1; }
export USEREVENTS_TRACEFS=$T

echo 'u:example_tick u64 count' >> $T/dynamic_events &&
echo 'u:example_request u32 status; u64 bytes; __rel_loc char[] path' >> $T/dynamic_events &&
echo 'u:example_message char[16] text; s32 level' >> $T/dynamic_events ||
	{ echo "not ok: dynamic_events"; exit 1; }

# The event part of our trace's lines, and of trace-cmd report's (as test-interop.sh).
ours() {
	grep -v '^#' | sed -E 's/^ *.{16}-([0-9]+) +\[([0-9]+)\] [^ ]+ +([0-9.]+): ([^:]+): /\1 \2 \3 \4 /; s/=0x[0-9a-f]+ \((-?[0-9]+)\)/=\1/g'
}
theirs() {
	grep -v '^cpus=' | sed -E 's/^ *.{16}-([0-9]+) +\[([0-9]+)\] +([0-9.]+): ([^:]+): +/\1 \2 \3 \4 /'
}
check() {	# NAME: compare $W/a and $W/b
	if [ -s "$W/a" ] && diff "$W/a" "$W/b" > "$W/diff"; then
		echo "ok - $1 ($(wc -l < "$W/a") lines)"
	else
		echo "not ok - $1"; head -10 "$W/diff"; fail=1
	fi
}

# 1. Records in the buffer, then record until SIGINT (consumes them).
echo 1 > $T/events/user_events/enable
"$EXAMPLE" "$T" 1 > /dev/null || { echo "not ok: example failed"; exit 1; }
grep -v '^#' $T/trace > "$W/trace1"
"$TOOL" record -q -o "$W/ours.dat" -e 'user_events:*' & rec=$!
sleep 1
kill -INT $rec
wait $rec || { echo "not ok - record exited $?"; fail=1; }
ours < "$W/trace1" > "$W/a"
trace-cmd report "$W/ours.dat" 2> "$W/tc.err" | theirs > "$W/b"
check "trace-cmd report of userevents record prints what trace showed"
cp "$W/trace1" "$W/a"
"$TOOL" report "$W/ours.dat" > "$W/b"
check "userevents report of our file prints trace's lines"

# 2. A file of trace-cmd extract (uncompressed: no zstd here).
"$EXAMPLE" "$T" 1 > /dev/null || { echo "not ok: example failed"; exit 1; }
grep -v '^#' $T/trace > "$W/a"
( cd "$W" && trace-cmd extract --compression none -o "$W/tc.dat" ) > "$W/extract.log" 2>&1
"$TOOL" report "$W/tc.dat" > "$W/b"
check "userevents report of a trace-cmd extract file prints trace's lines"
ours < "$W/b" > "$W/a"
trace-cmd report "$W/tc.dat" 2>/dev/null | theirs > "$W/b"
check "same events from trace-cmd report of that file"

# 3. Filters: --pid and -e.
pid=$(awk '{print $1; exit}' "$W/trace1" | sed 's/.*-//')
grep -c example_tick "$W/trace1" > "$W/a"
"$TOOL" report -e example_tick "$W/ours.dat" | grep -c example_tick > "$W/b"
check "report -e example_tick"
"$TOOL" report -e 'user_events:example_t*' --json "$W/ours.dat" | grep -c '"event":"example_tick"' > "$W/b"
check "report -e GLOB --json"
wc -l < "$W/trace1" > "$W/a"
"$TOOL" report --pid "$pid" "$W/ours.dat" | wc -l > "$W/b"
check "report --pid $pid"
echo 0 > "$W/a"
"$TOOL" report --pid 1 "$W/ours.dat" | wc -l > "$W/b"
diff -q "$W/a" "$W/b" >/dev/null && echo "ok - report --pid 1: none" || { echo "not ok - report --pid 1"; fail=1; }

# 4. record -- CMD against the tracefs: every record the program wrote.
echo 0 > $T/events/user_events/enable
( cd "$W" && "$TOOL" record -q -o "$W/cmd.dat" -- "$EXAMPLE" "$T" 1 ) \
	> "$W/cmd.log" 2>&1
wrote=$(sed -n 's/^wrote \([0-9]*\) records.*/\1/p' "$W/cmd.log")
got=$(trace-cmd report "$W/cmd.dat" 2>/dev/null | grep -c ' example_')
ours_n=$("$TOOL" report "$W/cmd.dat" | grep -c ' example_')
if [ -n "$wrote" ] && [ "$wrote" -gt 0 ] && [ "$got" = "$wrote" ] && [ "$ours_n" = "$wrote" ]; then
	echo "ok - record -- example: $wrote records in trace-cmd and userevents report"
else
	echo "not ok - record -- example: wrote ${wrote:-?}, trace-cmd $got, ours $ours_n"
	tail -5 "$W/cmd.log"; fail=1
fi

# 5. A compressed or foreign file is refused with a reason.
printf 'not a trace' > "$W/bad.dat"
"$TOOL" report "$W/bad.dat" > /dev/null 2> "$W/err"
r=$?
if [ $r = 1 ] && grep -q 'not a trace.dat' "$W/err"; then echo "ok - report refuses a non-trace.dat"; else echo "not ok - bad file: $r"; fail=1; fi
exit $fail
