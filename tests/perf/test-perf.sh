#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# perf users keep their tools (issue 32): `userevents record` writes a
# perf.data that perf reads as one from `perf record` on a kernel with
# user_events, and `userevents report` reads perf.data files.
#  - One run of eh-provider (EventHeader events of every kind, a plain
#    event with u32, s16, char[8], __rel_loc char[], __rel_loc u8[] and u64
#    fields, and otlp_metrics) and rate_producer, recorded at once by two
#    `record`s of one daemon: -o FILE.perf.data and -o FILE.dat.
#  - perf script's view of the perf.data, field by field, is report's
#    (perf_check.py: comm, tid, CPU, time to the ns, event, each field);
#    report of the perf.data is report of the trace.dat, line for line;
#    perf script, perf evlist -v and perf report --header-only say nothing
#    on stderr; evlist names every event; report's other formats read it.
#  - Losses: a producer at full speed into a small channel that does not
#    block: perf script --show-lost-events adds up to record's dropped
#    count, and so does report --stat; recorded + lost = written.
#  - A perf.data of this host's kernel tracepoints (perf record -e
#    sched:sched_switch) reads in report, as many records as perf script.
# Needs root, /dev/fuse and perf (linux-perf): exit 77 otherwise.
# Usage: test-perf.sh USEREVENTS USEREVENTSD EH_PROVIDER RATE_PRODUCER LIB_RATE CHECKER
set -u
tool=$1
daemon=$2
provider=$3
producer=$4
lib_rate=$5
checker=$6

[ "$(id -u)" = 0 ] || { echo "SKIP: needs root"; exit 77; }
[ -c /dev/fuse ] || { echo "SKIP: no /dev/fuse"; exit 77; }
command -v perf >/dev/null || { echo "SKIP: no perf (apt-get install linux-perf)"; exit 77; }
command -v unshare >/dev/null || { echo "SKIP: no unshare"; exit 77; }
if [ -z "${UE_PERF_NS:-}" ]; then
	UE_PERF_NS=1 exec unshare -m --propagation private -- "$0" "$@"
fi
W=$(mktemp -d "${TMPDIR:-/tmp}/ue-perf.XXXXXX") || exit 1
M=$W/mnt
mkdir "$M"
pids=
trap 'for p in $pids; do kill $p 2>/dev/null; done; umount -l "$M" 2>/dev/null; rm -rf "$W"' EXIT
fails=0
ok() { echo "ok - $1"; }
no() { echo "not ok - $1"; fails=$((fails + 1)); }
# perf's home for its caches and config: the test's own.
export HOME=$W

"$daemon" -f "$M" 2> "$W/d.err" & d=$!
pids=$d
for i in $(seq 50); do [ -e "$M/user_events_data" ] && break; sleep 0.1; done
# eh-provider opens the kernel's path, as libeventheader-tracepoint does.
mount --bind "$M" /sys/kernel/tracing || { no "no bind mount at /sys/kernel/tracing"; exit 1; }
export USEREVENTS_TRACEFS=$M
"$tool" record -o "$W/r.perf.data" -e 'user_events*:*' > /dev/null 2> "$W/rp.err" & rp=$!
"$tool" record -o "$W/r.dat" -e 'user_events*:*' > /dev/null 2> "$W/rd.err" & rd=$!
pids="$pids $rp $rd"
for f in rp rd; do
	for i in $(seq 50); do grep -q 'waiting\|recording' "$W/$f.err" 2>/dev/null && break; sleep 0.1; done
done
"$provider" write > "$W/prov.out" 2>&1 || no "eh-provider write: $(cat "$W/prov.out")"
"$producer" 1000 1 pf_tick > "$W/prod.out" 2>&1
sleep 0.5
kill -INT "$rp" "$rd"
wait "$rp"; rcp=$?
wait "$rd"; rcd=$?
[ "$rcp" = 0 ] && [ "$rcd" = 0 ] && ok "two records at once: $(tail -1 "$W/rp.err")" ||
	{ no "record: exit $rcp and $rcd"; cat "$W/rp.err" "$W/rd.err"; }

# The writer reserves the file's blocks 64 MiB ahead: the end gives back what it did not fill.
disk=$(($(stat -c %b "$W/r.perf.data") * $(stat -c %B "$W/r.perf.data"))); size=$(stat -c %s "$W/r.perf.data")
[ "$disk" -le $((size + 65536)) ] &&
	ok "perf.data holds no blocks past its end ($disk bytes on disk for $size)" ||
	no "perf.data: $disk bytes on disk for $size: the reserved blocks stayed"
perf script --ns -F trace:comm,tid,cpu,time,event,trace -i "$W/r.perf.data" > "$W/script" 2> "$W/script.err"
"$tool" report --json "$W/r.perf.data" > "$W/report.json" 2> "$W/report.err"
if "$checker" "$W/script" "$W/report.json" > "$W/check"; then
	ok "perf script = report, field by field: $(head -1 "$W/check" | sed 's/^# //')"
else
	no "perf script and report differ"; cat "$W/check"
fi
grep -q ' eh-provider [0-9]* .*user_events:eh_plain: count=4 neg=65534 tag=hello path=a/b ' "$W/script" &&
	ok "perf script shows the plain event as on a kernel (__rel_loc string, s16 as libtraceevent prints it)" ||
	no "perf script's plain event: $(grep eh_plain "$W/script")"
[ "$(grep -c 'user_events:pf_tick: n=' "$W/script")" = "$(sed -n 's/^wrote \([0-9]*\).*/\1/p' "$W/prod.out")" ] &&
	ok "every write of rate_producer is a sample: $(cat "$W/prod.out")" ||
	no "pf_tick: $(grep -c pf_tick "$W/script") samples, $(cat "$W/prod.out")"
"$tool" report "$W/r.perf.data" > "$W/from-perf" 2>&1
"$tool" report "$W/r.dat" > "$W/from-dat" 2>&1
[ -s "$W/from-perf" ] && cmp -s "$W/from-perf" "$W/from-dat" &&
	ok "report of the perf.data = report of the trace.dat of the same run ($(wc -l < "$W/from-perf") lines)" ||
	{ no "report of the perf.data and of the trace.dat differ"; diff "$W/from-perf" "$W/from-dat" | head -5; }
perf evlist -v -i "$W/r.perf.data" > "$W/evlist" 2> "$W/evlist.err"
perf report --header-only -i "$W/r.perf.data" > "$W/header" 2> "$W/header.err"
if [ ! -s "$W/script.err" ] && [ ! -s "$W/evlist.err" ] && [ ! -s "$W/header.err" ]; then
	ok "perf script, perf evlist -v, perf report --header-only: not a word on stderr"
else
	no "perf said:"; cat "$W/script.err" "$W/evlist.err" "$W/header.err"
fi
grep -q '^user_events:eh_plain: type: 2, .*sample_type: TID|TIME|ID|CPU|STREAM_ID|RAW' "$W/evlist" &&
	grep -q '^user_events:EhTest_L5K2: ' "$W/evlist" && grep -q '^user_events:pf_tick: ' "$W/evlist" &&
	ok "perf evlist: $(wc -l < "$W/evlist") tracepoint events with raw samples" ||
	{ no "perf evlist"; cat "$W/evlist"; }
grep -q '^# event : name = user_events:pf_tick' "$W/header" && grep -q '^# nrcpus online' "$W/header" &&
	ok "perf report --header-only: the event descriptions and the machine's" ||
	{ no "perf report --header-only"; cat "$W/header"; }
for f in perf-decode chrome html; do
	"$tool" report --format=$f "$W/r.perf.data" > "$W/fmt.$f" 2> "$W/fmt.err" && [ -s "$W/fmt.$f" ] ||
		no "report --format=$f of the perf.data: $(cat "$W/fmt.err")"
done
grep -q '"EhTest:Ints"' "$W/fmt.perf-decode" && ok "report --format=perf-decode, chrome, html of the perf.data" ||
	no "report --format=perf-decode of the perf.data: no EhTest:Ints"

# Losses, as perf marks them: the native path at full speed, a channel that does not block.
"$tool" record --no-blocking -b 256 -o "$W/l.perf.data" -e 'user_events*:*' > /dev/null 2> "$W/rl.err" & rl=$!
pids="$pids $rl"
for i in $(seq 50); do grep -q 'waiting\|recording' "$W/rl.err" 2>/dev/null && break; sleep 0.1; done
"$lib_rate" 20000000 1 > "$W/fast.out" 2>&1
sleep 0.5
kill -INT "$rl"
wait "$rl"
dropped=$(sed -n 's/.* events, [0-9]* bytes, \([0-9]*\) dropped.*/\1/p' "$W/rl.err")
wrote=$(sed -n 's/^wrote \([0-9]*\).*/\1/p' "$W/fast.out")
lost=$(perf script --show-lost-events -i "$W/l.perf.data" 2>/dev/null |
	awk '/PERF_RECORD_LOST lost/ { s += $NF } END { print s + 0 }')
samples=$(perf script -i "$W/l.perf.data" 2>/dev/null | grep -c 'user_events:lib_tick:')
stat_lost=$("$tool" report --stat "$W/l.perf.data" | awk '/^CPU/ { f = 1; next } f && NF == 3 { s += $3 } END { print s + 0 }')
echo "# written $wrote, perf: $samples samples + $lost lost; record: $(tail -1 "$W/rl.err")"
# Records lost in the channel are marked in the file (samples + those =
# written); the few a full ring refused the producer (lib_rate's "refused",
# not written) are marked too when the daemon tells the channel before the
# end: the file's losses are between the two counts of record's closing line.
full=$(sed -n 's/.*dropped (\([0-9]*\) with the buffer full.*/\1/p' "$W/rl.err")
[ "${full:-0}" -gt 0 ] && [ "$lost" -ge "$full" ] && [ "$lost" -le "${dropped:-0}" ] &&
	[ "$stat_lost" = "$lost" ] && [ $((samples + full)) = "$wrote" ] &&
	ok "losses: perf script --show-lost-events and report --stat say $lost (record: $full with the buffer full, $dropped in all); samples + those with the buffer full = written" ||
	no "losses: buffer full ${full:-?} of ${dropped:-?} dropped, perf lost $lost, report --stat $stat_lost, samples $samples, written ${wrote:-?}"

# A perf.data of this host's kernel tracepoints (the kernel's tracefs back in its place).
umount /sys/kernel/tracing
if perf record -q -e sched:sched_switch -o "$W/host.data" -- sleep 0.2 > "$W/host.out" 2>&1; then
	n=$(perf script -i "$W/host.data" 2>/dev/null | grep -c 'sched:sched_switch:')
	m=$("$tool" report "$W/host.data" 2>"$W/host.err" | grep -c ' sched_switch: prev_comm=')
	[ "$n" -gt 0 ] && [ "$n" = "$m" ] &&
		ok "report reads perf record's file of sched:sched_switch: $m records, as perf script" ||
		no "perf record's file: perf script $n, report $m: $(cat "$W/host.err")"
else
	echo "# perf record -e sched:sched_switch: $(tail -1 "$W/host.out"): left out"
fi
# A file that is not one.
head -c 200 "$W/r.perf.data" > "$W/cut.perf.data"
"$tool" report "$W/cut.perf.data" > /dev/null 2> "$W/cut.err" && no "a cut perf.data read without an error" ||
	ok "a cut perf.data: $(cat "$W/cut.err")"
kill "$d"
[ "$fails" = 0 ]
