#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# userevents record/report against Debian's trace-cmd (suite 'interop'): in a
# private mount namespace usereventsd is stacked over a tracefs (stack.sh).  Checks:
# trace-cmd report reads our trace.dat (our saved_tgids too: no warning)
# and prints the records our `trace`
# showed; our report prints them exactly as `trace` did, for our file and for
# one from trace-cmd extract; filters; record -- CMD with a private daemon;
# its limits (--duration, --max-size).
# Needs root, /dev/fuse, trace-cmd, unshare: exit 77 (skip) otherwise.
# Usage: test-record.sh USEREVENTS USEREVENTSD EXAMPLE BURST
# (BURST: bench/bench_burst.c on libuserevents)
set -u
TOOL=$1
DAEMON=$2
EXAMPLE=$3
BURST=$4

. "$(dirname "$0")/stack.sh"

command -v trace-cmd >/dev/null || skip "no trace-cmd"
stack_enter "$@"
stack_up "$DAEMON"
fail=0
export USEREVENTS_TRACEFS=$T

echo 'u:example_tick u64 count' >> $T/dynamic_events &&
echo 'u:example_request u32 status; u64 bytes; __rel_loc char[] path' >> $T/dynamic_events &&
echo 'u:example_message char[16] text; s32 level' >> $T/dynamic_events ||
	{ echo "not ok: dynamic_events"; exit 1; }

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
# The threads' processes (saved_tgids, after the task names in their
# section) are ours alone: trace-cmd warns of nothing, reads the names.
pid=$(sed -n 's/^ *user_events_exa-\([0-9]*\) .*/\1/p' "$W/trace1" | head -1)
if [ ! -s "$W/tc.err" ] && grep -qa "saved_tgids" "$W/ours.dat" &&
   trace-cmd dump --cmd-lines "$W/ours.dat" 2>&1 | grep -q "^$pid user_events_exa"; then
	echo "ok - trace-cmd reads past our saved_tgids: no warning, the task names"
else
	echo "not ok - trace-cmd and our saved_tgids (pid '$pid')"; cat "$W/tc.err"; fail=1
fi
cp "$W/trace1" "$W/a"
"$TOOL" report "$W/ours.dat" > "$W/b"
check "userevents report of our file prints trace's lines"
"$TOOL" report --fields "$W/ours.dat" > "$W/b"
check "report --fields prints them as trace does too (the style of user events)"
NORM=$(dirname "$0")/records-norm.py	# trace lines and JSON records in one form
"$NORM" trace < "$W/trace1" > "$W/a"
"$TOOL" report --json "$W/ours.dat" | "$NORM" json > "$W/b"
check "report --json: the same records, fields and values"

# 2. A file of trace-cmd extract, uncompressed (zstd: 6.).
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

# 4b. record -- CMD with no tracefs named: a private usereventsd, every record.
t0=$(date +%s%N)
mkdir "$W/tmp"
( cd "$W" && unset USEREVENTS_TRACEFS && export TMPDIR=$W/tmp &&
	exec "$TOOL" record -o "$W/priv.dat" -- "$EXAMPLE" /sys/kernel/tracing 2 ) \
	> "$W/priv.log" 2>&1
rc=$?
wrote=$(sed -n 's/^wrote \([0-9]*\) records.*/\1/p' "$W/priv.log")
got=$(trace-cmd report "$W/priv.dat" 2>/dev/null | grep -c '^ *user_events_exa-[0-9]* .* example_')
ours_n=$("$TOOL" report "$W/priv.dat" | grep -c '^ *user_events_exa-[0-9]* .* example_')
if [ $rc = 0 ] && [ -n "$wrote" ] && [ "$wrote" -gt 0 ] && [ "$got" = "$wrote" ] &&
	[ "$ours_n" = "$wrote" ]; then
	echo "ok - record -- example, private daemon: $wrote records in both reports"
else
	echo "not ok - record -- example, private daemon: exit $rc, wrote ${wrote:-?}, trace-cmd $got, ours $ours_n"
	tail -5 "$W/priv.log"; fail=1
fi
grep -q '^userevents: record: command exited with status 0$' "$W/priv.log" ||
	{ echo "not ok - record -- example: no exit line"; fail=1; }
# report --json --wall-clock: the same records, stamped in ns since the epoch
# between the wall times around the recording (this system's clocks, since
# the file was recorded here since its last boot).
t1=$(date +%s%N)
if "$TOOL" report --json --wall-clock "$W/priv.dat" > "$W/wall.json" &&
	"$TOOL" report --json "$W/priv.dat" > "$W/boot.json" &&
	python3 - "$W" "$t0" "$t1" <<'PY'; then
import json, sys
w, t0, t1 = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
wall = [json.loads(l) for l in open(w + "/wall.json")]
boot = [json.loads(l) for l in open(w + "/boot.json")]
assert len(wall) == len(boot) > 0
assert all(t0 <= r["ts"] <= t1 for r in wall), (t0, wall[0]["ts"], wall[-1]["ts"], t1)
off = {a["ts"] - b["ts"] for a, b in zip(wall, boot)}
assert len(off) == 1, off
for a, b in zip(wall, boot):
    del a["ts"], b["ts"]
assert wall == boot
PY
	echo "ok - report --json --wall-clock: every record within the recording's wall times, one offset"
else
	echo "not ok - report --json --wall-clock"; head -3 "$W/wall.json"; fail=1
fi

# 4c. report --stat of that file: per event and per CPU as report --json
# counts them (lost: its {"cpu","lost"} objects), first and last time as
# report's first and last lines; trace-cmd report --stat's cpus= and the
# per-CPU counts of trace-cmd report's [CPU] column.
"$TOOL" report --stat "$W/priv.dat" > "$W/stat" 2> "$W/stat.err"
rc=$?
"$TOOL" report --json "$W/priv.dat" > "$W/priv.json"
"$TOOL" report "$W/priv.dat" > "$W/priv.txt"
trace-cmd report "$W/priv.dat" 2>/dev/null > "$W/priv.tc"
trace-cmd report --stat "$W/priv.dat" 2>/dev/null > "$W/priv.tcstat"
if [ $rc = 0 ] && python3 - "$W" <<'PY'; then
import collections, json, re, sys
w = sys.argv[1]
lines = open(w + "/stat").read().split("\n")
ev, cpu, lost, kv = {}, {}, {}, {}
part = 0
for l in lines:
    f = l.split()
    if not f:
        continue
    if f[0] in ("EVENT", "CPU"):
        part = 1 if f[0] == "EVENT" else 2
    elif ":" in f[0] and f[0].endswith(":"):
        kv[f[0][:-1]] = f[1]
    elif part == 1:
        ev[f[0]] = int(f[1])
    elif part == 2:
        cpu[int(f[0])] = int(f[1])
        lost[int(f[0])] = int(f[2])
recs = [json.loads(l) for l in open(w + "/priv.json")]
want_ev = collections.Counter(r["system"] + ":" + r["event"] for r in recs if "event" in r)
want_cpu = collections.Counter(r["cpu"] for r in recs if "event" in r)
want_lost = collections.Counter()
for r in recs:
    if "lost" in r:
        want_lost[r["cpu"]] += r["lost"]
total = ev.pop("total")
assert ev == dict(want_ev) and total == len([r for r in recs if "event" in r]), (ev, want_ev)
assert cpu == dict(want_cpu), (cpu, want_cpu)
assert all(lost[c] == want_lost[c] for c in lost), (lost, want_lost)
txt = [re.search(r" (\d+\.\d{6}):", l).group(1) for l in open(w + "/priv.txt")]
assert kv["first"] == txt[0] and kv["last"] == txt[-1], (kv, txt[0], txt[-1])
tc_cpus = re.search(r"^cpus=(\d+)", open(w + "/priv.tcstat").read(), re.M).group(1)
assert kv["cpus"] == tc_cpus, (kv["cpus"], tc_cpus)
tc = collections.Counter(int(m.group(1)) for m in
                         (re.search(r"\[(\d+)\]", l) for l in open(w + "/priv.tc")) if m)
assert dict(tc) == cpu, (tc, cpu)
print("# report --stat:", total, "events on", len(cpu), "CPUs, first", kv["first"])
PY
	echo "ok - report --stat agrees with report and trace-cmd report"
else
	echo "not ok - report --stat (exit $rc)"; sed 's/^/#   /' "$W/stat" "$W/stat.err"; fail=1
fi
grep -q "^userevents: record: $wrote events, [0-9]* bytes, 0 dropped$" "$W/priv.log" ||
	{ echo "not ok - record -- example: no closing line of $wrote events, 0 dropped"; fail=1; }
[ -z "$(ls -A "$W/tmp")" ] || { echo "not ok - record -- CMD left $(ls -A "$W/tmp")"; fail=1; }

# 4c. Exit codes of record -- CMD (private daemon) and of bad command lines.
record_rc() {	# WANT WHAT -- ARGS...
	want=$1 what=$2
	shift 3
	( cd "$W" && unset USEREVENTS_TRACEFS && export TMPDIR=$W/tmp && exec "$TOOL" record "$@" ) \
		> /dev/null 2> "$W/err"
	r=$?
	if [ "$r" = "$want" ]; then echo "ok - record $what: exit $r"; else
		echo "not ok - record $what: exit $r, expected $want"; sed 's/^/#   /' "$W/err"; fail=1
	fi
}
record_rc 3 "returns the command's status" -- -q -o "$W/x.dat" -- sh -c 'exit 3'
record_rc 137 "of a killed command" -- -q -o "$W/x.dat" -- sh -c 'kill -9 $$'
record_rc 127 "of a missing command" -- -q -o "$W/x.dat" -- "$W/nosuch"
# An output that cannot be written is found before anything starts: CMD never runs.
record_rc 125 "that cannot write its file" -- -q -o "$W/nodir/x.dat" -- touch "$W/ran"
[ -e "$W/ran" ] && { echo "not ok - record -o into no directory ran CMD"; fail=1; }
grep -q "^userevents: $W/nodir/x.dat: No such file or directory" "$W/err" ||
	{ echo "not ok - record -o into no directory: no message naming the file"; fail=1; }
# trace-cmd's default: no -o writes ./trace.dat (it was a usage error).
record_rc 0 "without -o" -- -q -- true
[ -s "$W/trace.dat" ] || { echo "not ok - record without -o: no ./trace.dat"; fail=1; }
record_rc 2 "with an option of another command" -- --json -o "$W/x.dat" -- true
[ -z "$(ls -A "$W/tmp")" ] || { echo "not ok - record -- CMD left $(ls -A "$W/tmp")"; fail=1; }

# 4d. Without CMD, a bad output fails at once (it used to record until ^C).
timeout 10 "$TOOL" record -q -o "$W/nodir/x.dat" > /dev/null 2> "$W/err"
r=$?
if [ $r = 1 ] && grep -q 'No such file or directory' "$W/err"; then
	echo "ok - record -o into no directory, no CMD: exit 1 at once"
else
	echo "not ok - record -o into no directory, no CMD: exit $r"; fail=1
fi
[ -e "$W/nodir" ] && { echo "not ok - record created $W/nodir"; fail=1; }

# 4e. kill -9 of record: the file holds what was read until then, and both
# readers read it (it is valid after every flush, once a second).
echo 0 > $T/events/user_events/enable
"$TOOL" record -q -o "$W/killed.dat" -e 'user_events:*' & rec=$!
sleep 0.5
"$EXAMPLE" "$T" 2 > "$W/killed.log" || { echo "not ok: example failed"; exit 1; }
sleep 2.5	# two flushes after the last record
kill -9 $rec
wait $rec 2>/dev/null
wrote=$(sed -n 's/^wrote \([0-9]*\) records.*/\1/p' "$W/killed.log")
ours_n=$("$TOOL" report "$W/killed.dat" 2> "$W/err" | grep -c ' example_')
got=$(trace-cmd report "$W/killed.dat" 2>/dev/null | grep -c ' example_')
if [ -n "$wrote" ] && [ "$wrote" -gt 0 ] && [ "$ours_n" = "$wrote" ] && [ "$got" = "$wrote" ]; then
	echo "ok - record killed by SIGKILL: its file has the $wrote records, in both reports"
else
	echo "not ok - record killed by SIGKILL: wrote ${wrote:-?}, ours $ours_n, trace-cmd $got"
	head -3 "$W/err"; fail=1
fi
echo 0 > $T/events/user_events/enable

# 4f. Limits (issue 24).  --duration: the recording ends that long after it
# started, CMD gets SIGINT as from a ^C, and its end by it is no failure;
# --max-size: the file (compact, as left) is at most SIZE, valid for both
# readers; the closing line says which limit stopped it.
limit_case() {	# WHAT LIMIT-OPTION -- CMD...
	what=$1 lim=$2
	shift 3
	t0=$(date +%s)
	( cd "$W" && unset USEREVENTS_TRACEFS && export TMPDIR=$W/tmp &&
		exec "$TOOL" record -o "$W/lim.dat" $lim -- "$@" ) > "$W/lim.log" 2>&1
	rc=$? secs=$(($(date +%s) - t0))
	n=$(sed -n 's/^userevents: record: \([0-9]*\) events, .*; stopped \(after --duration\|at --max-size\)$/\1/p' "$W/lim.log")
	ours_n=$("$TOOL" report "$W/lim.dat" 2>/dev/null | grep -c ': \(example_\|burst_\)')
	got=$(trace-cmd report "$W/lim.dat" 2>/dev/null | grep -c ': \(example_\|burst_\)')
	if [ $rc = 0 ] && [ -n "$n" ] && [ "$n" -gt 0 ] && [ "$ours_n" = "$n" ] && [ "$got" = "$n" ]; then
		echo "ok - record $lim -- $what: exit 0 after $secs s, $n records in both reports"
	else
		echo "not ok - record $lim -- $what: exit $rc, closing line ${n:-none}, ours $ours_n, trace-cmd $got"
		sed 's/^/#   /' "$W/lim.log"; fail=1
	fi
}
limit_case "a 30 s program" "--duration 1.5" -- "$EXAMPLE" /sys/kernel/tracing 30
[ "$secs" -lt 15 ] || { echo "not ok - record --duration 1.5 took $secs s"; fail=1; }
grep -q 'stopped after --duration$' "$W/lim.log" &&
	grep -q '^userevents: record: command stopped by Interrupt$' "$W/lim.log" ||
	{ echo "not ok - record --duration: no word of the limit and of the SIGINT"; fail=1; }
limit_case "a burst of 2 x 400000" "--max-size 1M" -- "$BURST" 2 400000
size=$(stat -c %s "$W/lim.dat")
[ "$size" -le 1048576 ] && [ "$size" -gt 524288 ] && echo "ok - record --max-size 1M: $size bytes" ||
	{ echo "not ok - record --max-size 1M: a file of $size bytes"; fail=1; }
grep -q 'stopped at --max-size$' "$W/lim.log" ||
	{ echo "not ok - record --max-size: no word of the limit"; fail=1; }
# Without CMD: the duration alone ends it.
t0=$(date +%s)
timeout 20 "$TOOL" record -o "$W/lim.dat" --duration 1 -e 'user_events:*' > "$W/lim.log" 2>&1
rc=$? secs=$(($(date +%s) - t0))
[ $rc = 0 ] && [ $secs -lt 10 ] && grep -q 'stopped after --duration$' "$W/lim.log" &&
	echo "ok - record --duration 1 without CMD: exit 0 after $secs s" ||
	{ echo "not ok - record --duration 1 without CMD: exit $rc after $secs s"; sed 's/^/#   /' "$W/lim.log"; fail=1; }
record_rc 2 "--duration 0" -- --duration 0 -o "$W/x.dat" -- true
record_rc 2 "--duration x" -- --duration 1x -o "$W/x.dat" -- true
record_rc 2 "--max-size below 1M" -- --max-size 512K -o "$W/x.dat" -- true
record_rc 2 "--max-size 0" -- --max-size 0 -o "$W/x.dat" -- true
grep -q "^userevents: record: --max-size 0: not a size of 1M or more (N, NK, NM or NG)$" "$W/err" ||
	{ echo "not ok - record --max-size 0: message"; sed 's/^/#   /' "$W/err"; fail=1; }

# 5. A foreign file is refused with a reason.
printf 'not a trace' > "$W/bad.dat"
"$TOOL" report "$W/bad.dat" > /dev/null 2> "$W/err"
r=$?
if [ $r = 1 ] && grep -q 'not a trace.dat' "$W/err"; then echo "ok - report refuses a non-trace.dat"; else echo "not ok - bad file: $r"; fail=1; fi

# 6. zstd: a trace-cmd extract --compression zstd file reads back as trace
# showed, and as its uncompressed conversion (trace-cmd convert) does.
echo 1 > $T/events/user_events/enable
"$EXAMPLE" "$T" 1 > /dev/null || { echo "not ok: example failed"; exit 1; }
grep -v '^#' $T/trace > "$W/trace6"
( cd "$W" && trace-cmd extract --compression zstd -o "$W/z.dat" &&
	trace-cmd convert --compression none -i "$W/z.dat" -o "$W/zn.dat" ) > "$W/z.log" 2>&1
head -c 64 "$W/z.dat" | grep -aq zstd || { echo "not ok - trace-cmd wrote no zstd file"; fail=1; }
"$TOOL" report "$W/z.dat" > "$W/b" 2> "$W/err"
if grep -q 'built without libzstd' "$W/err"; then
	echo "ok - report of a zstd file # SKIP built without libzstd"
else
	cp "$W/trace6" "$W/a"
	check "report of a trace-cmd zstd file prints trace's lines"
	"$TOOL" report --json "$W/zn.dat" > "$W/a"
	"$TOOL" report --json "$W/z.dat" > "$W/b"
	check "report --json: the zstd file and its uncompressed conversion"
fi
echo 0 > $T/events/user_events/enable
exit $fail
