#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# report --format=chrome (tools/sink-chrome.c): Chrome's Trace Event Format
# of three traces, each checked by chrome-check.py against the format's
# rules (ph, ts numbers, integer pid/tid, every B with its E on its track,
# every async b with its e by cat and id):
#  - eh-provider activities: EventHeader activity start/stop without an
#    activity ID as B/E slices (nested), with one as an async span begun and
#    ended on two threads, an instant between, --counter on its field; its
#    two threads on one process track (pid the process, tid the thread),
#    from the recording and live (stream --format=chrome);
#  - eh-provider write: every EventHeader encoding as instants, plain
#    events' fields as args, --counter on a plain field, valid UTF-8;
#  - user_events_example: plain events, a counter per tick;
#  - rate_producer's big records into a small buffer without blocking:
#    the losses as LOST N EVENTS markers, N adding up to report --stat's;
#  - otlp-provider -m: an otlp_metrics event's gauge and sum as counters;
# and report --format=html (tools/sink-html.c), checked by html-check.py:
# self-contained, the plot's series, the timeline's threads and slices, the
# lost markers, the table; 1 M records in less than 10 s; --html the same
# page (test-html-browser.sh opens one in Chromium).
# Needs root and /dev/fuse: exit 77 otherwise.
# Usage: test-chrome.sh USEREVENTS EH_PROVIDER USER_EVENTS_EXAMPLE CHROME_CHECK RATE_PRODUCER OTLP_PROVIDER USEREVENTSD
set -u
tool=$1
provider=$2
example=$3
check=$4
producer=$5
otlp_provider=$6
daemon=$7
html_check=$(dirname "$check")/html-check.py

[ "$(id -u)" = 0 ] || { echo "SKIP: needs root"; exit 77; }
[ -c /dev/fuse ] || { echo "SKIP: no /dev/fuse"; exit 77; }
command -v unshare >/dev/null || { echo "SKIP: no unshare"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
if [ -z "${UE_CHROME_NS:-}" ]; then
	UE_CHROME_NS=1 exec unshare -m --propagation private -- "$0" "$@"
fi
W=$(mktemp -d "${TMPDIR:-/tmp}/ue-chrome.XXXXXX") || exit 1
trap 'rm -rf "$W"' EXIT
unset USEREVENTS_TRACEFS
fails=0
ok() { echo "ok - $1"; }
no() { echo "not ok - $1"; fails=$((fails + 1)); }

"$tool" record -q -o "$W/act.dat" -- "$provider" activities 2> "$W/err" ||
	{ no "record -- eh-provider activities"; cat "$W/err"; }
"$tool" report --format=chrome --counter EhAct:Tick.n "$W/act.dat" > "$W/act.json" ||
	no "report --format=chrome (activities)"
python3 "$check" "$W/act.json" --expect B=2 --expect E=2 --expect b=1 --expect e=1 \
	--expect i=1 --expect C=1 --expect name:EhAct:Task=4 --expect name:EhAct:Job=2 &&
	ok "activities: nested B/E slices, an async span across threads, a counter" ||
	{ no "activities"; cat "$W/act.json"; }
# The span's two ends on two threads, the slices on one.
python3 - "$W/act.json" <<'X' && ok "async span begun and ended on different threads" || no "async span threads"
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
b = [e for e in ev if e["ph"] == "b"][0]
e = [e for e in ev if e["ph"] == "e"][0]
tids = {x["tid"] for x in ev if x["ph"] in "BE"}
names = {x["args"]["name"] for x in ev if x["ph"] == "M"}
sys.exit(not (b["tid"] != e["tid"] and b["id"] == e["id"] and len(tids) == 1 and
              b["tid"] in tids and names == {"eh-provider"}))
X
# perf-decode's meta too: pid the process, tid the thread (the two
# threads of eh-provider activities: one pid, two tids).
"$tool" report --format=perf-decode "$W/act.dat" > "$W/act.pd" || no "report --format=perf-decode"
pt=$(sed -n 's/.*"pid": \([0-9]*\), "tid": \([0-9]*\).*/\1 \2/p' "$W/act.pd" | sort -u)
[ "$(echo "$pt" | cut -d' ' -f1 | sort -u | wc -l)" = 1 ] && [ "$(echo "$pt" | wc -l)" = 2 ] &&
	ok "perf-decode: the two threads' records under one pid" ||
	no "perf-decode: pid and tid pairs: $(echo $pt)"
# EventHeader's meta beside the fields (as perf-decode and report --json
# have it): the span's full activity ID, its opcode and level.
python3 - "$W/act.json" <<'X' && ok "args: the fields and EventHeader's meta (the full activity ID)" ||
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
b = [e for e in ev if e["ph"] == "b"][0]
tick = [e for e in ev if e["ph"] == "i" and e["name"] == "EhAct:Tick"][0]
m = b["args"]["meta"]
sys.exit(not (m["activity"] == "01020304-0506-0708-090a-0b0c0d0e0f10" and m["opcode"] == 1 and
              m["level"] == 4 and tick["args"]["n"] == 42 and tick["args"]["meta"]["level"] == 3))
X
	no "args: EventHeader's meta"
# Its two threads are one process: pid the main thread's id (the recording's
# saved_tgids), each thread its own tid, named once.
procs() {
	python3 "$check" "$1" --expect processes=1 --expect threads=2 > "$W/check" &&
	python3 - "$1" <<'X'
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
main = {x["tid"] for x in ev if x["ph"] == "B"}      # the slices: the main thread's
pids = {x["pid"] for x in ev if x["ph"] != "M"}
tids = {x["tid"] for x in ev if x["ph"] != "M"}
pnames = [x for x in ev if x["ph"] == "M" and x["name"] == "process_name"]
sys.exit(not (len(main) == 1 and pids == main and len(tids) == 2 and len(pnames) == 1 and
              pnames[0]["pid"] in main and pnames[0]["args"]["name"] == "eh-provider"))
X
}
procs "$W/act.json" && ok "record, report: two threads on one process track" ||
	{ no "two threads, one process (record, report)"; cat "$W/check"; grep '"M"' "$W/act.json"; }
# Live: stream --format=chrome of a running daemon (the threads gone by the
# time their records are read: the daemon's saved_tgids; else /proc).
mkdir "$W/mnt"
"$daemon" -f "$W/mnt" 2> "$W/daemon.err" &
dpid=$!
for _ in $(seq 50); do [ -e "$W/mnt/user_events_data" ] && break; sleep 0.1; done
"$tool" --tracefs "$W/mnt" stream --format=chrome -p EhAct > "$W/live.json" 2> "$W/live.err" &
spid=$!
# Armed: the provider's events enabled as they are registered.
for _ in $(seq 100); do grep -q '^armed_patterns: 1$' "$W/mnt/usereventsd_stats" && break; sleep 0.05; done
"$provider" activities "$W/mnt/user_events_data" || no "eh-provider activities (live)"
# Its last record (the other thread's end of the span) read, then stopped.
for _ in $(seq 100); do grep -q '"ph":"e"' "$W/live.json" && break; sleep 0.05; done
kill -INT $spid; wait $spid
procs "$W/live.json" && ok "stream --format=chrome: two threads on one process track" ||
	{ no "two threads, one process (stream)"; cat "$W/check" "$W/live.err"; grep '"M"' "$W/live.json"; }
umount "$W/mnt"; wait $dpid

"$tool" record -q -o "$W/eh.dat" -- "$provider" write 2> "$W/err" ||
	{ no "record -- eh-provider write"; cat "$W/err"; }
"$tool" report --format=chrome --counter eh_plain.count "$W/eh.dat" > "$W/eh.json" ||
	no "report --format=chrome (eh-provider)"
python3 "$check" "$W/eh.json" --expect i=41 --expect C=1 --expect B=0 &&
	grep -q '"name":"EhTest:Ints","args":{"u8": 200, "i8": -128' "$W/eh.json" &&
	grep -q '"name":"eh_plain","args":{"count":4,"neg":-2,"tag":"hello"' "$W/eh.json" &&
	ok "eh-provider: 41 instants with their fields, a counter" || { no "eh-provider"; head -5 "$W/eh.json"; }

"$tool" record -q -o "$W/ex.dat" -- "$example" 2> "$W/err" > /dev/null ||
	{ no "record -- user_events_example"; cat "$W/err"; }
"$tool" report --format=chrome --counter example_tick.count "$W/ex.dat" > "$W/ex.json" ||
	no "report --format=chrome (example)"
n=$("$tool" report "$W/ex.dat" | grep -c .)
python3 "$check" "$W/ex.json" --expect i="$n" --expect M=2 > "$W/check" &&
	grep -q ' C=[1-9]' "$W/check" && ok "user_events_example: $n instants, counters" ||
	{ no "user_events_example"; cat "$W/check"; }

# Losses: 150,000 records of 1 KB a second into 256 KiB a CPU, not blocking.
"$tool" record -q -b 256 --no-blocking -o "$W/lost.dat" -- "$producer" 150000 1 big 1000 2> "$W/err" > /dev/null ||
	{ no "record -- rate_producer"; cat "$W/err"; }
lost=$("$tool" report --stat "$W/lost.dat" | awk '/^CPU /{c=1; next} c && NF==3 {s+=$3} END {print s+0}')
"$tool" report --format=chrome "$W/lost.dat" > "$W/lost.json" || no "report --format=chrome (losses)"
marked=$(grep -o '"name":"LOST [0-9]* EVENTS"' "$W/lost.json" | awk '{s+=$2} END {print s+0}')
if [ "$lost" = 0 ]; then
	echo "ok - # SKIP no record lost this time"
elif python3 "$check" "$W/lost.json" > "$W/check" && [ "$marked" = "$lost" ]; then
	ok "$lost records lost: LOST markers adding up to them"
else
	no "losses: $marked marked of $lost"; cat "$W/check"
fi
rm -f "$W/lost.json"
"$tool" report --format=html "$W/lost.dat" > "$W/lost.html" || no "report --format=html (losses)"
hl=$(python3 "$html_check" "$W/lost.html" --expect rows=500 --expect series=1 --expect threads=1) &&
	{ [ "$lost" = 0 ] || ! echo "$hl" | grep -q ' lost=0 '; } &&
	ok "html of $lost losses: $hl" || no "html of the losses: $hl"

# html: the activities' slices, a series per event, one row per record.
"$tool" report --format=html "$W/act.dat" > "$W/act.html" || no "report --format=html"
python3 "$html_check" "$W/act.html" --expect series=3 --expect rows=7 --expect slices=2 \
	--expect threads=2 --expect lost=0 > "$W/check" && grep -q 'EhAct:Job' "$W/act.html" &&
	ok "html: self-contained, plot, timeline with slices, table" || { no "html"; cat "$W/check"; }
# report --html is --format=html, one format among the others, and report's alone.
"$tool" report --html "$W/act.dat" > "$W/act2.html" && cmp -s "$W/act.html" "$W/act2.html" &&
	ok "report --html is --format=html" || no "report --html differs from --format=html"
"$tool" report --html --json "$W/act.dat" > /dev/null 2> "$W/err"
[ $? = 2 ] && grep -q -- '--json, --html, --format and --stat exclude each other' "$W/err" &&
	ok "report --html --json refused" || { no "report --html --json"; cat "$W/err"; }
"$tool" stream --html > /dev/null 2> "$W/err"
[ $? = 2 ] && grep -q -- 'option --html does not apply' "$W/err" &&
	ok "stream --html refused" || { no "stream --html"; cat "$W/err"; }
# 1 M records: the page in less than 10 s, its size bounded.
"$tool" record -q -o "$W/big.dat" -- "$producer" 1000000 1 > /dev/null 2> "$W/err" ||
	{ no "record 1 M"; cat "$W/err"; }
n=$("$tool" report --stat "$W/big.dat" | awk '$1 == "total" {print $2; exit}')
t0=$(date +%s%N)
"$tool" report --format=html "$W/big.dat" > "$W/big.html" || no "report --format=html (1 M)"
ms=$((($(date +%s%N) - t0) / 1000000))
size=$(wc -c < "$W/big.html")
if [ "${n:-0}" -ge 900000 ] && [ "$ms" -lt 10000 ] && [ "$size" -lt 2000000 ] &&
	python3 "$html_check" "$W/big.html" --expect rows=500 > "$W/check"; then
	ok "html of $n records in $ms ms, $size bytes"
else
	no "html of ${n:-?} records: $ms ms, $size bytes"; cat "$W/check"
fi
rm -f "$W/big.dat" "$W/big.html"

# otlp_metrics: an ExportMetricsServiceRequest of a gauge "depth" (as_int 7)
# and a sum "load" (as_double 2.5), written by hand.
printf '\012\055\022\053\022\024\012\005depth\052\013\012\011\061\007\000\000\000\000\000\000\000\022\023\012\004load\072\013\012\011\041\000\000\000\000\000\000\004\100' > "$W/metrics.pb"
"$tool" record -q -o "$W/m.dat" -- "$otlp_provider" -n 0 -m "$W/metrics.pb" > /dev/null 2> "$W/err" ||
	{ no "record -- otlp-provider -m"; cat "$W/err"; }
"$tool" report --format=chrome "$W/m.dat" > "$W/m.json" || no "report --format=chrome (metrics)"
python3 "$check" "$W/m.json" --expect C=2 > "$W/check" &&
	grep -q '"ph":"C",.*"name":"depth","args":{"value":7}}' "$W/m.json" &&
	grep -q '"ph":"C",.*"name":"load","args":{"value":2.5}}' "$W/m.json" &&
	ok "otlp_metrics: a gauge and a sum as counters" || { no "otlp_metrics"; cat "$W/check"; grep '"C"' "$W/m.json"; }

# The format's name where formats are named; --counter wants it.
"$tool" report --counter a.b "$W/ex.dat" > /dev/null 2> "$W/err"
[ $? = 2 ] && grep -q 'needs --format=chrome' "$W/err" && ok "--counter without chrome refused" ||
	no "--counter without chrome"
# And a checker that fails on a B without its E.
printf '{"traceEvents":[{"ph":"B","ts":1,"pid":1,"tid":1,"name":"x"}],"displayTimeUnit":"ns"}' > "$W/bad.json"
python3 "$check" "$W/bad.json" > /dev/null && no "checker passes an unclosed B" || ok "checker fails an unclosed B"

[ "$fails" = 0 ]
