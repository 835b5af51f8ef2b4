#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Large records (issue 14 item 3, suite 'interop'): the OpenTelemetry metrics
# exporter's otlp_metrics events with buffers of 1, 4, 16 KiB and the largest
# usereventsd keeps (a 65504-byte payload), written through FUSE, the
# library's native ring and the interposer, recorded by `userevents record`
# and read back byte-exact by `userevents report`; `trace` shows a large
# record whole; one byte more is taken and not recorded (the kernel's answer
# beyond its own limit); trace-cmd report reads the 64 KiB pages of the file.
# Needs root, /dev/fuse, unshare (exit 77 otherwise); trace-cmd for its part.
# Usage: test-bigpayload.sh USEREVENTS USEREVENTSD OTLP-SIZES PRELOAD
set -u
TOOL=$1
DAEMON=$2
OTLP=$3
PRELOAD=$4
CHECK=$(dirname "$0")/otlp-check.py

. "$(dirname "$0")/stack.sh"

stack_enter "$@"
stack_up "$DAEMON"
fail=0
export USEREVENTS_TRACEFS=$T
export USEREVENTS_PRELOAD=$PRELOAD

stat_of() { sed -n "s/^$1: //p" "$T/usereventsd_stats"; }
ok() { echo "ok - $*"; }
bad() { echo "not ok - $*"; fail=1; }

# MODE NAME PRELOAD-OPTION: record -- otlp-sizes MODE, then report it.
run_case() {
	local mode=$1 name=$2 opt=$3 f="$W/$2.dat"
	local fuse0 nat0 int0
	fuse0=$(stat_of fuse_writes); nat0=$(stat_of native_records)
	int0=$(stat_of native_records_interposed)
	( cd "$W" && "$TOOL" record -q $opt -o "$f" -e 'user_events:otlp_metrics' -- \
		"$OTLP" "$mode" ) > "$W/$name.out" 2> "$W/$name.err" ||
		{ bad "$name: record -- otlp-sizes $mode failed"; cat "$W/$name.err"; return; }
	local fuse=$(( $(stat_of fuse_writes) - fuse0 )) nat=$(( $(stat_of native_records) - nat0 ))
	local int=$(( $(stat_of native_records_interposed) - int0 ))
	case $name in
	fuse) [ "$fuse" -ge 5 ] && [ "$nat" = 0 ] ;;
	lib) [ "$nat" = 4 ] && [ "$int" = 0 ] ;;
	interposed) [ "$int" = 4 ] ;;
	esac && ok "$name: written that way (fuse_writes +$fuse, native +$nat, interposed +$int)" ||
		bad "$name: not written that way (fuse_writes +$fuse, native +$nat, interposed +$int)"
	if "$TOOL" report "$f" | "$CHECK" "$W/$name.out" > "$W/$name.check"; then
		ok "$name: report of record's file: 1, 4, 16 KiB and 65488-byte buffers byte-exact"
	else
		bad "$name: report of record's file"; cat "$W/$name.check"
	fi
	if "$TOOL" report --json "$f" | "$CHECK" "$W/$name.out" --json > "$W/$name.jcheck"; then
		ok "$name: report --json of record's file: the buffers byte-exact"
	else
		bad "$name: report --json of record's file"; cat "$W/$name.jcheck"
	fi
	# One byte over the limit: taken (writev's byte count, the library's 0), nothing recorded.
	local over=$(sed -n 's/^over \([-0-9]*\).*/\1/p' "$W/$name.out")
	local want=65509
	[ "$mode" = lib ] && want=0
	[ "$over" = "$want" ] && ok "$name: a 65505-byte payload: $over, not recorded" ||
		bad "$name: a 65505-byte payload gave '$over', expected $want"
	if command -v trace-cmd >/dev/null; then
		local n
		n=$(trace-cmd report "$f" 2> "$W/$name.tc.err" | grep -c ' otlp_metrics: ')
		if [ "$n" = 4 ] && ! grep -qi 'lost\|error\|fail' "$W/$name.tc.err"; then
			ok "$name: trace-cmd report reads the 4 records of the 64 KiB pages"
		else
			bad "$name: trace-cmd report printed $n otlp_metrics records"
			head -5 "$W/$name.tc.err"
		fi
	fi
}

run_case raw fuse --no-preload
run_case lib lib ""
run_case raw interposed ""

# The page size of the file (after the magic, "tracing", the version string,
# the endianness and long size bytes): 64 KiB.
psize=$(python3 -c 'import sys, struct
b = open(sys.argv[1], "rb").read(64)
at = b.index(b"\0", 10) + 3
print(struct.unpack_from("<I", b, at)[0])' "$W/lib.dat")
[ "$psize" = 65536 ] && ok "trace.dat page size $psize" || bad "trace.dat page size $psize"
if command -v trace-cmd >/dev/null; then
	trace-cmd dump --head-page "$W/lib.dat" 2>&1 | grep -q 'field: char data;.*size:65520;' &&
		ok "trace-cmd dump: header_page's data size 65520" ||
		{ bad "header_page of the file"; trace-cmd dump --head-page "$W/lib.dat" 2>&1 | head; }
fi

# stream (trace_pipe's lines) and run -- CMD print the large records whole.
"$TOOL" stream -e 'user_events:otlp_metrics' > "$W/stream.txt" 2> "$W/stream.err" & st=$!
"$OTLP" raw > "$W/stream.out" 2>&1 || bad "otlp-sizes raw under stream failed"
sleep 0.5
kill -INT $st; wait $st
"$CHECK" "$W/stream.out" < "$W/stream.txt" > "$W/stream.check" &&
	ok "stream prints the four records whole" || { bad "stream"; cat "$W/stream.check"; }
( cd "$W" && "$TOOL" run -e 'user_events:otlp_metrics' -- "$OTLP" raw ) > "$W/run.txt" 2> "$W/run.err"
grep -v ' otlp_metrics: ' "$W/run.txt" > "$W/run.out"
"$CHECK" "$W/run.out" < "$W/run.txt" > "$W/run.check" &&
	ok "run -- CMD prints the four records whole" || { bad "run -- CMD"; cat "$W/run.check" "$W/run.err"; }

# CMD...: run it, enable otlp_metrics by hand once it is registered.
run_enabled() {
	( "$@" > "$W/run.out" 2> "$W/run.err" ) & prog=$!
	for _ in $(seq 100); do
		[ -e "$T/events/user_events/otlp_metrics/enable" ] && break
		sleep 0.05
	done
	echo 1 > "$T/events/user_events/otlp_metrics/enable"
	wait $prog || { bad "$* failed"; cat "$W/run.err"; }
}

# trace: a large record whole; trace_pipe consumes them whole too.
echo > "$T/trace"
run_enabled "$OTLP" raw "$T"
"$CHECK" "$W/run.out" < "$T/trace" > "$W/trace.check" &&
	ok "trace shows the four records whole" || { bad "trace"; cat "$W/trace.check"; }
timeout 3 cat "$T/trace_pipe" > "$W/pipe" 2>/dev/null
"$CHECK" "$W/run.out" < "$W/pipe" > "$W/pipe.check" &&
	ok "trace_pipe gives them whole" || { bad "trace_pipe"; cat "$W/pipe.check"; }

# trace_pipe_raw: a reader of 4 KiB pages (trace-cmd) gets the 1 KiB record
# and the others counted as lost in the header of its next page; a reader of
# 64 KiB pages gets all four.  The native path stores records on the CPU the
# writer ran on: both runs on CPU 0.
if command -v taskset >/dev/null; then
	run_enabled taskset -c 0 "$OTLP" lib
	run_enabled taskset -c 0 "$OTLP" lib
	run_enabled taskset -c 0 "$OTLP" lib
	got=$(python3 -c 'import os, struct, sys
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_NONBLOCK)
out = []
for size in (4096, 4096, 4096, 65536, 65536, 65536):
	try:
		b = os.read(fd, size)
	except BlockingIOError:
		out.append("none")
		continue
	commit = struct.unpack_from("<Q", b, 8)[0]
	n = commit & 0xffffffff & ~(3 << 30)
	missed = struct.unpack_from("<Q", b, 16 + n)[0] if commit & (1 << 30) else 0
	out.append("%d:%d:%d" % (len(b), n, missed))
print(" ".join(out))' "$T/per_cpu/cpu0/trace_pipe_raw")
	# Records of 1056, 4128, 16416 and 65520 bytes (headers included), three
	# times.  4 KiB pages: the 1st run's 1 KiB record, the 2nd run's with the
	# three before it lost, the 3rd run's likewise (its 4 KiB record waits:
	# it does not fit that page).  64 KiB pages: the 3rd run's 4 and 16 KiB
	# records, then its 64 KiB one alone, then nothing.
	want="4096:1056:0 4096:1056:3 4096:1056:3 65536:20544:0 65536:65520:0 none"
	[ "$got" = "$want" ] && ok "trace_pipe_raw: 4 KiB pages count larger records as lost, 64 KiB pages hold them" ||
		bad "trace_pipe_raw pages: '$got', expected '$want'"
fi
echo 0 > "$T/events/user_events/otlp_metrics/enable" 2>/dev/null
exit $fail
