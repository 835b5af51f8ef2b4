#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Consumer channels (issue 22): what record, stream and export read.
#  - recorded + lost = written, for libuserevents' native path, the
#    interposer and a FUSE writer; with the defaults (record blocks: nothing
#    lost), --blocking=MS, and --no-blocking with a small -b (losses forced);
#  - every loss is in the file: trace-cmd report's EVENTS DROPPED lines and
#    our report's LOST lines add up to record's count, and trace-cmd report
#    --stat's dropped events too;
#  - a slow reader in blocking mode loses nothing; a stopped one holds the
#    producer only for its block interval, then loses (counted);
#  - an idle daemon and an idle stream wake up a bounded number of times;
#  - a large read of trace_pipe_raw returns several pages.
# Needs root and /dev/fuse (exit 77 otherwise).
# Usage: test-channel.sh USEREVENTS USEREVENTSD BURST BURST_RAW
# (BURST: bench/bench_burst.c on libuserevents; BURST_RAW: the same on the raw ABI)
set -u
TOOL=$1
DAEMON=$2
BURST=$3
BURST_RAW=$4

[ "$(id -u)" = 0 ] && [ -c /dev/fuse ] || { echo "skip: needs root and /dev/fuse"; exit 77; }
if [ -z "${UE_CHANNEL_NS:-}" ]; then
	UE_CHANNEL_NS=1 exec unshare -m --propagation private "$0" "$@"
fi
W=$(mktemp -d /tmp/ue-chan.XXXXXX)
fail=0
ok() { echo "ok - $1"; }
no() { echo "not ok - $1"; fail=1; }
cleanup() {
	[ -n "${spid:-}" ] && kill -CONT "$spid" 2>/dev/null && kill "$spid" 2>/dev/null
	umount "$W/mnt" 2>/dev/null
	rm -rf "$W"
}
trap cleanup EXIT

# What the producer wrote: its writes that succeeded and those a full ring
# refused (the channel counts those as lost).
written() { sed -n 's/^burst: written \([0-9]*\) refused \([0-9]*\) .*/\1 \2/p' "$1" | awk '{ print $1 + $2 }'; }
refused() { sed -n 's/^burst: written [0-9]* refused \([0-9]*\) .*/\1/p' "$1"; }
dropped() { sed -n 's/^userevents: record: .* \([0-9]*\) dropped.*/\1/p' "$1"; }
in_file() {	# FILE: "records lost unknown" as our report shows them
	"$TOOL" report "$1" | awk '/ burst_ev: / { n++ } /LOST [0-9]+ EVENTS/ { s += $3 }
		/LOST EVENTS\]/ { u++ } END { print n + 0, s + 0, u + 0 }'
}

# Until a reader without CMD says it waits for its event (LOG): it has its
# channel and has armed the pattern (a sleep is not enough under load).
armed() {
	i=0
	until grep -q 'yet (waiting for one)' "$1" 2>/dev/null || [ $i -ge 200 ]; do
		sleep 0.05; i=$((i + 1))
	done
}

# NAME FILE RECORDED LOST: trace-cmd report's EVENTS DROPPED lines add up
# to LOST, the last loss of a CPU (no record after it) included, and
# trace-cmd report --stat shows each CPU's stats: dropped events add up to
# LOST, read events to RECORDED.
trace_cmd_sees() {
	command -v trace-cmd >/dev/null || return 0
	tc=$(trace-cmd report "$2" 2>/dev/null |
	     awk '/EVENTS DROPPED\]/ { gsub(/\[/, "", $2); s += $2 } END { print s + 0 }')
	[ "$tc" = "$4" ] && ok "$1: trace-cmd report prints the $4 dropped" ||
		no "$1: trace-cmd report prints $tc dropped, record $4"
	st=$(trace-cmd report --stat "$2" 2>&1 | awk '/^cpus=/ { sub(/cpus=/, ""); n = $0 }
		/^CPU: / { c++ } /^dropped events: / { d += $3 } /^read events: / { r += $3 }
		END { print (c == n ? "all" : c + 0 "/" n), d + 0, r + 0 }')
	[ "$st" = "all $4 $3" ] &&
		ok "$1: trace-cmd report --stat: every CPU, $4 dropped, $3 read" ||
		{ no "$1: trace-cmd report --stat: CPUs, dropped, read: $st, not all $4 $3";
		  trace-cmd report --stat "$2" 2>&1 | head -20; }
}

# NAME EXPECT_LOSS(0|1|any) RECORD-OPTIONS -- PRODUCER ARGS
rec_case() {
	name=$1 loss=$2
	shift 2
	"$TOOL" record -o "$W/t.dat" "$@" > "$W/log" 2>&1
	rc=$?
	w=$(written "$W/log") d=$(dropped "$W/log")
	set -- $(in_file "$W/t.dat")
	r=$1 l=$2 u=$3
	if [ $rc != 0 ] || [ -z "$w" ] || [ -z "$d" ]; then
		no "$name: record exited $rc"; cat "$W/log"; return
	fi
	[ "$((r + d))" = "$w" ] && ok "$name: $r recorded + $d lost = $w written" ||
		no "$name: $r recorded + $d lost != $w written"
	[ "$l" = "$d" ] && [ "$u" = 0 ] && ok "$name: the file marks the $d lost" ||
		no "$name: the file marks $l lost ($u without a count), record said $d"
	case $loss in
	0) [ "$d" = 0 ] && [ "$(refused "$W/log")" = 0 ] && ok "$name: none lost" ||
		no "$name: $d lost ($(refused "$W/log") refused by a full ring)" ;;
	1) [ "$d" -gt 0 ] && ok "$name: losses forced" || no "$name: no loss forced" ;;
	esac
	[ "$d" -gt 0 ] && trace_cmd_sees "$name" "$W/t.dat" "$r" "$d"
}

# Defaults: record blocks, nothing lost, whatever the producer.
rec_case "native, 2 threads" 0 -- "$BURST" 2 100000
rec_case "interposed" 0 -- "$BURST_RAW" 1 200000
rec_case "FUSE writer (--no-preload)" 0 --no-preload -- "$BURST_RAW" 1 20000
rec_case "interposed, --blocking=2000" 0 --blocking=2000 -- "$BURST_RAW" 2 100000
# A filter on the native path: its records take the drain's checked copy
# (the plain ones are built in the reader's page): exactly those it passes.
"$TOOL" record -o "$W/f.dat" -e burst_ev -f 'a < 1000 || a >= 99000' -- "$BURST" 1 100000 \
	> "$W/flog" 2>&1
set -- $(in_file "$W/f.dat")
[ "$1" = 2000 ] && [ "$2" = 0 ] && ok "native, filtered: the 2000 records it passes" ||
	no "native, filtered: $1 records, $2 lost of 2000: $(cat "$W/flog")"
# A 256 KiB channel that does not wait for us: losses, each counted and marked.
# On one CPU, and a record 300 ms after: trace-cmd tells a loss at the next
# record of its CPU (ours at the end too), so every loss is before one.
rec_case "interposed, --no-blocking -b 256" any --no-blocking -b 256 -- taskset -c 0 "$BURST_RAW" 2 150000 tail
# Two CPUs, nothing after: each CPU's last loss has no record after it.
rec_case "interposed, --no-blocking -b 256, no event after" any --no-blocking -b 256 -- "$BURST_RAW" 2 150000

# A mounted daemon for the readers that follow.
mkdir "$W/mnt"
"$DAEMON" "$W/mnt" || { no "usereventsd did not mount"; exit 1; }
export USEREVENTS_TRACEFS="$W/mnt"

# Losses forced: a 256 KiB channel that does not wait for its record, stopped
# through a burst; with AFTER=1, one more event on the same CPU after it,
# which trace-cmd needed to tell the loss before it; without, the losses
# are the CPU's last, which no record of its own follows, and trace-cmd
# still tells them (issue 34).
# NAME AFTER(0|1)
stopped_case() {
	"$TOOL" record -o "$W/t.dat" --no-blocking -b 256 -e 'user_events:burst_ev' > "$W/log" 2>&1 &
	rpid=$!
	armed "$W/log"
	kill -STOP $rpid
	taskset -c 0 "$BURST" 1 300000 2> "$W/b4.log"
	kill -CONT $rpid
	sleep 0.5
	: > "$W/b5.log"
	if [ "$2" = 1 ]; then
		taskset -c 0 "$BURST" 1 1 2> "$W/b5.log"
		sleep 0.3
	fi
	kill -INT $rpid
	wait $rpid
	w=$(( $(written "$W/b4.log") + $(written "$W/b5.log") + 0 )) d=$(dropped "$W/log")
	set -- "$1" $(in_file "$W/t.dat")
	[ -n "$d" ] && [ "$d" -gt 0 ] && [ "$(($2 + d))" = "$w" ] && [ "$3" = "$d" ] && [ "$4" = 0 ] &&
		ok "$1: $2 recorded + $d lost = $w written, all marked" ||
		{ no "$1: $2 recorded + ${d:-?} lost (marked $3, $4 without a count) vs $w"; cat "$W/log"; }
	trace_cmd_sees "$1" "$W/t.dat" "$2" "${d:-?}"
}
stopped_case "stopped record, --no-blocking -b 256" 1
stopped_case "stopped record, no event after" 0

# A slow reader, blocking: its pipe is read 2 s late; nothing is lost.
"$TOOL" stream -e 'user_events:burst_ev' --json --blocking=5000 -b 256 2> "$W/s.err" |
	{ sleep 2; cat > "$W/s.out"; } &
armed "$W/s.err"
"$BURST" 1 200000 2> "$W/b.log"
n=$(written "$W/b.log")
i=0
while [ "$(wc -l < "$W/s.out" 2>/dev/null || echo 0)" -lt "$n" ] && [ $i -lt 200 ]; do
	sleep 0.1; i=$((i + 1))
done
pkill -INT -f "stream -e user_events:burst_ev --json --blocking=5000 -b 256"
wait
lines=$(grep -c '"event":"burst_ev"' "$W/s.out")
[ "$lines" = "$n" ] && [ "$n" = 200000 ] && [ "$(refused "$W/b.log")" = 0 ] &&
	ok "slow blocking reader: $lines of $n" ||
	no "slow blocking reader: $lines of $n (stream: $(tr '\n' ' ' < "$W/s.err"); burst: $(cat "$W/b.log"))"

# A stopped reader, blocking for 300 ms: the producer waits that long (then
# the channel loses, counted), never for the reader's whole stop.
"$TOOL" stream -e 'user_events:burst_ev' --json --blocking=300 -b 256 > "$W/s2.out" 2> "$W/s2.err" &
spid=$!
armed "$W/s2.err"
kill -STOP $spid
start=$(date +%s)
timeout 60 "$BURST" 1 300000 2> "$W/b2.log"
took=$(( $(date +%s) - start ))
kill -CONT $spid
sleep 0.5
kill -INT $spid
wait $spid
spid=
n=$(written "$W/b2.log")
lines=$(grep -c '"event":"burst_ev"' "$W/s2.out")
lost=$(sed -n 's/^userevents: stream: \([0-9]*\) records lost.*/\1/p' "$W/s2.err")
marks=$(sed -n 's/^{"cpu":[0-9]*,"lost":\([0-9]*\)}$/\1/p' "$W/s2.out" | awk '{ s += $1 } END { print s + 0 }')
[ -n "$n" ] && [ "$took" -lt 30 ] && ok "stopped blocking reader: the producer ended in ${took} s" ||
	no "stopped blocking reader: the producer took ${took} s (written: ${n:-none})"
[ -n "$lost" ] && [ "$((lines + lost))" = "$n" ] && [ "$marks" = "$lost" ] &&
	ok "stopped blocking reader: $lines read + $lost lost = $n, every loss marked" ||
	{ no "stopped blocking reader: $lines read + ${lost:-?} lost (marked $marks) vs $n"; cat "$W/s2.err"; }

# Idle: a daemon and a stream with nothing written wake up seldom.
sleep 1	# the producers' sessions above end
"$TOOL" stream -e 'user_events:*' > /dev/null 2>&1 &
spid=$!
sleep 1.5
d=$(pgrep -f "usereventsd $W/mnt" | head -1)
# Every thread but ue-proc, the proc connector's, which wakes for each fork,
# exec and exit on the machine (a build beside: thousands), not on a timer.
wakes() {
	for t in /proc/$1/task/*; do
		[ "$(cat "$t/comm")" = ue-proc ] || cat "$t/status"
	done | awk '/^voluntary_ctxt_switches/ { s += $2 } END { print s }'
}
dw=$(wakes "$d") sw=$(wakes "$spid")
sleep 5
dw=$(( $(wakes "$d") - dw )) sw=$(( $(wakes "$spid") - sw ))
kill -INT $spid
wait $spid
spid=
# The drain passes every 100 ms without rings; the rest are the FUSE requests
# of the stream's scan (1 s): about 100 in all.  A poll every ms would be 5000.
[ "$dw" -lt 600 ] && [ "$sw" -lt 60 ] && ok "idle 5 s: daemon $dw wake-ups, stream $sw" ||
	no "idle 5 s: daemon $dw wake-ups (most 600), stream $sw (most 60)"

# trace_pipe_raw: a read with room for many pages gets many.
echo 65536 > "$W/mnt/buffer_size_kb"
taskset -c 0 "$BURST" 1 20000 2> "$W/b3.log" &
bpid=$!
i=0
until echo 1 2>/dev/null > "$W/mnt/events/user_events/burst_ev/enable" || [ $i -ge 100 ]; do
	sleep 0.05; i=$((i + 1))
done
wait $bpid
got=$(dd if="$W/mnt/per_cpu/cpu0/trace_pipe_raw" bs=1M count=1 iflag=nonblock 2>/dev/null | wc -c)
[ "$got" -gt 65536 ] && [ $((got % 65536)) = 0 ] &&
	ok "trace_pipe_raw: one read, $((got / 65536)) pages" ||
	no "trace_pipe_raw: one 1 MiB read returned $got bytes ($(cat "$W/b3.log"))"

# The daemon killed under a record and a stream that look for no other
# (--reattach 0; tests/upgrade/test-readers.sh has them find one): both end
# at once, exit 1, with their closing lines and the loss marked.
"$TOOL" record --reattach 0 -o "$W/k.dat" -e 'user_events:*' > "$W/k.out" 2>&1 &
rpid=$!
"$TOOL" stream --reattach 0 -e 'user_events:*' > "$W/ks.out" 2>&1 &
spid=$!
# Both hold their channels (under load a second may not be enough: stream
# then met the dead daemon while asking for one, "Broken pipe").
i=0
until grep -q '^consumer_channels: 2$' "$W/mnt/usereventsd_stats" 2>/dev/null || [ $i -ge 200 ]; do
	sleep 0.05; i=$((i + 1))
done
sleep 0.3
pkill -KILL -f "usereventsd $W/mnt"
i=0
while { kill -0 $rpid || kill -0 $spid; } 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
kill -0 $rpid 2>/dev/null || kill -0 $spid 2>/dev/null && { kill $rpid $spid; no "killed daemon: a reader still waits"; }
wait $rpid; rrc=$?
wait $spid; src=$?
spid=
# Issue 30: the closing lines, the file ending with a loss of unknown count, stream's lines saying it.
[ $rrc = 1 ] && [ $src = 1 ] && grep -q 'went away: the trace ends here$' "$W/k.out" &&
	grep -q 'then the daemon went away: what came after is lost, count unknown$' "$W/k.out" &&
	grep -q 'then the daemon went away: what came after is lost, count unknown$' "$W/ks.out" &&
	grep -q '^CPU:0 \[LOST EVENTS\]$' "$W/ks.out" &&
	! grep -q 'not connected' "$W/k.out" "$W/ks.out" &&
	ok "killed daemon: record and stream end with their closing lines" ||
	no "killed daemon: record $rrc, stream $src: $(cat "$W/k.out" "$W/ks.out")"

exit $fail
