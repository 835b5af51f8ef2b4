#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Interop of usereventsd with Debian's trace-cmd (suite 'interop'): in a
# private mount namespace, usereventsd is stacked on a tracefs at
# /sys/kernel/tracing (stack.sh).  Checks: trace-cmd extract reads
# trace_pipe_raw pages and trace-cmd report prints every record of our own
# `trace` (same pid, CPU, timestamp, event, values); trace-cmd record
# -- PROGRAM records all the records the program wrote; trace-cmd record -f
# sets a filter that holds; trace-cmd report shows markers.
# Needs root, /dev/fuse, trace-cmd and a tracefs to stack on: exit 77 (skip) otherwise.
# Usage: test-interop.sh USEREVENTSD EXAMPLE
set -u
DAEMON=$1
EXAMPLE=$2
. "$(dirname "$0")/stack.sh"

command -v trace-cmd >/dev/null || skip "no trace-cmd"
stack_enter "$@"
stack_up "$DAEMON"
fail=0
# trace-cmd record always writes 1 to ftrace_enabled; a read-only /proc/sys
# (containers) would make it die: give it a private file to write.
if [ -e /proc/sys/kernel/ftrace_enabled ] && ! ( echo 1 > /proc/sys/kernel/ftrace_enabled ) 2>/dev/null; then
	echo 1 > "$W/ftrace_enabled"
	mount --bind "$W/ftrace_enabled" /proc/sys/kernel/ftrace_enabled || skip "read-only ftrace_enabled"
fi

make_events() {
	echo 'u:example_tick u64 count' >> $T/dynamic_events &&
	echo 'u:example_request u32 status; u64 bytes; __rel_loc char[] path' >> $T/dynamic_events &&
	echo 'u:example_message char[16] text; s32 level' >> $T/dynamic_events
}

# 1. trace-cmd extract + report against our own trace.
make_events || { echo "not ok 1: dynamic_events"; exit 1; }
echo 1 > $T/events/user_events/enable
"$EXAMPLE" "$T" 1 > "$W/example.out" || { echo "not ok 1: example failed"; exit 1; }
ours < $T/trace > "$W/ours.txt"
( cd "$W" && trace-cmd extract -o "$W/extract.dat" ) > "$W/extract.log" 2>&1
trace-cmd report "$W/extract.dat" 2> "$W/report.err" | theirs > "$W/theirs.txt"
n=$(wc -l < "$W/ours.txt")
if [ "$n" -gt 0 ] && diff "$W/ours.txt" "$W/theirs.txt" > "$W/diff.txt"; then
	echo "ok 1 - trace-cmd extract/report prints our $n records as our trace does"
else
	echo "not ok 1 - trace-cmd report differs from our trace ($n records)"
	head -20 "$W/diff.txt" "$W/extract.log" "$W/report.err"
	fail=1
fi

# 2. trace-cmd record -- PROGRAM: every record the program wrote is in the file.
( cd "$W" && timeout 60 trace-cmd record -e user_events -o "$W/record.dat" -- "$EXAMPLE" "$T" 1 ) \
	> "$W/record.log" 2>&1
wrote=$(sed -n 's/^wrote \([0-9]*\) records.*/\1/p' "$W/record.log")
got=$(trace-cmd report "$W/record.dat" 2>/dev/null | grep -c ' example_')
if [ -n "$wrote" ] && [ "$wrote" -gt 0 ] && [ "$got" = "$wrote" ]; then
	echo "ok 2 - trace-cmd record -- example: $got of $wrote records"
else
	echo "not ok 2 - trace-cmd record -- example: ${got:-?} of ${wrote:-?} records"
	tail -20 "$W/record.log"
	fail=1
fi

# 3. saved_cmdlines names the program's task, as trace-cmd shows it.
if trace-cmd report "$W/record.dat" 2>/dev/null | grep -q '^ *user_events_exa-[0-9]'; then
	echo "ok 3 - comm of recorded records (saved_cmdlines)"
else
	echo "not ok 3 - comm of recorded records"
	fail=1
fi
# 4. trace-cmd record -f: the filter it writes holds while it records (the
# example answers 404 on every seventh request).
( cd "$W" && timeout 60 trace-cmd record -e user_events:example_request -f 'status == 404' \
	-o "$W/filter.dat" -- "$EXAMPLE" "$T" 2 ) > "$W/filter.log" 2>&1
trace-cmd report "$W/filter.dat" 2>/dev/null | grep ' example_request: ' > "$W/filter.txt"
n404=$(grep -c 'status=404 ' "$W/filter.txt")
nreq=$(wc -l < "$W/filter.txt")
if [ "$n404" -gt 0 ] && [ "$n404" = "$nreq" ]; then
	echo "ok 4 - trace-cmd record -f 'status == 404': $n404 records, all 404"
else
	echo "not ok 4 - trace-cmd record -f: $n404 of $nreq records are 404s"
	tail -20 "$W/filter.log" "$W/filter.txt"
	fail=1
fi
# 5. trace-cmd extract/report shows trace_marker and trace_marker_raw records
# (the print record's ip is 0: docs/compat.md).
echo > $T/trace
printf 'phase 2\n' > $T/trace_marker
printf '\x34\x12\x00\x00\xaa' > $T/trace_marker_raw
( cd "$W" && trace-cmd extract -o "$W/marker.dat" ) > "$W/marker.log" 2>&1
trace-cmd report "$W/marker.dat" 2>/dev/null > "$W/marker.txt"
if grep -Eq ' print: +0x0: phase 2$' "$W/marker.txt" &&
	grep -Eq ' raw_data: +# 1234 aa 00 ' "$W/marker.txt"; then
	echo "ok 5 - trace-cmd report shows trace_marker and trace_marker_raw records"
else
	echo "not ok 5 - trace-cmd report of markers"
	cat "$W/marker.txt" "$W/marker.log"
	fail=1
fi
exit $fail
