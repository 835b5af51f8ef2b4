#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# EventHeader events end to end: our provider (eh-provider write: raw
# DIAG_IOCSREG + writev, as libeventheader-tracepoint does) traced by
# `userevents record -- CMD` (a private usereventsd), then
#  - report --format=perf-decode prints each EventHeader event as
#    LinuxTracepoints' decoder does: the lines of corpus.expected.json (its
#    output for the same events, see meson.build), time/cpu/pid/tid aside;
#  - the two plain events print with perf-decode's conventions for
#    tracepoint fields (our expectation, from its perf.data.linux.json);
#  - report's trace lines show Provider:Event and fields by name, and
#    `run -- CMD` prints the same lines, and a summary whose columns hold
#    with long names;
#  - report --json has "eventheader" with the name, fields and header, and
#    the otlp_metrics buffer in base64;
#  - live: stream --format=text and --format=perf-decode on a mounted
#    usereventsd show them as they come.
# Needs root and /dev/fuse: exit 77 otherwise.
# Usage: test-eh-record.sh USEREVENTS EH_PROVIDER CORPUS_EXPECTED USEREVENTSD
set -u
tool=$1
provider=$2
expected=$3
daemon=$4

[ "$(id -u)" = 0 ] || { echo "SKIP: needs root"; exit 77; }
[ -c /dev/fuse ] || { echo "SKIP: no /dev/fuse"; exit 77; }
command -v unshare >/dev/null || { echo "SKIP: no unshare"; exit 77; }
if [ -z "${UE_EH_NS:-}" ]; then
	UE_EH_NS=1 exec unshare -m --propagation private -- "$0" "$@"
fi
W=$(mktemp -d "${TMPDIR:-/tmp}/ue-eh.XXXXXX") || exit 1
mkdir "$W/mnt"
spids=
trap 'for p in $spids; do kill $p 2>/dev/null; done; umount "$W/mnt" 2>/dev/null; rm -rf "$W"' EXIT
unset USEREVENTS_TRACEFS
fails=0
ok() { echo "ok - $1"; }
no() { echo "not ok - $1"; fails=$((fails + 1)); }

"$tool" record -q -o "$W/eh.dat" -- "$provider" write 2> "$W/record.err" ||
	{ no "record -- eh-provider write"; cat "$W/record.err"; exit 1; }

"$tool" report --format=perf-decode "$W/eh.dat" > "$W/pd.json" || no "report --format=perf-decode"
# perf-decode's framing: BOM, {, "FILE": [, records, ] }.
head -c 4 "$W/pd.json" | od -An -tx1 | grep -q 'ef bb bf 7b' && tail -c 5 "$W/pd.json" | grep -q ' ]' &&
	ok "perf-decode framing" || no "perf-decode framing"
sed -E -n 's/"time": [0-9]+\.[0-9]{9}, "cpu": [0-9]+, "pid": [0-9]+, "tid": [0-9]+(, )?//p' "$W/pd.json" |
	sed 's/ } } \]$/ } },/' > "$W/ours"
# Their lines: the events eh-provider writes, in its order (not the malformed ones).
n=$(grep -ac '"n": "EhTest' "$W/ours")
grep -a '"n": "EhTest' "$expected" | head -n "$n" > "$W/theirs"
if [ "$n" = 39 ] && grep -a '"n": "EhTest' "$W/ours" | diff "$W/theirs" - > "$W/diff"; then
	ok "39 EventHeader events as LinuxTracepoints' decoder prints them"
else
	no "EventHeader events ($n of 39) differ from LinuxTracepoints' decoder:"; head -20 "$W/diff"
fi
# As perf-decode printed them from a perf.data of the same events (tests/perf:
# its signed fields under 32 bits print their unsigned value).
cat > "$W/plain" <<'X'
  { "n": "user_events:eh_plain", "count": 4, "neg": 65534, "tag": "hello", "path": "a/b", "bytes": [ 1, 2, 3 ], "big": 3735928559, "meta": {  } },
  { "n": "user_events:otlp_metrics", "protocol": 0, "version": "v1", "buffer": [ 10, 3, 97, 98, 99 ], "meta": {  } },
X
grep -a '"n": "user_events:' "$W/ours" | diff "$W/plain" - && ok "plain events in perf-decode's form" ||
	no "plain events in perf-decode's form"

"$tool" report "$W/eh.dat" > "$W/text"
grep -aq ' EhTest:Ints: u8=200 i8=-128 u16=60000 ' "$W/text" &&
	grep -aq ' EhTestBE:Strings: z8="hello ' "$W/text" &&
	ok "trace lines: Provider:Event: name=value" || { no "trace lines"; head -5 "$W/text"; }

# Selected by the names report prints (issue 34 item 1): PROVIDER:EVENT, by
# the event's own name; a bare system name selects all its events (trace-cmd's -e).
"$tool" report -e 'EhTest:Ints' "$W/eh.dat" > "$W/sel.ints" 2>&1
grep -aq ' EhTest:Ints: u8=200 ' "$W/sel.ints" && [ "$(grep -ac . "$W/sel.ints")" = 1 ] &&
	ok "report -e 'EhTest:Ints': that event only" || { no "report -e 'EhTest:Ints'"; head -3 "$W/sel.ints"; }
"$tool" report -e 'EhTest*:Strin*' "$W/eh.dat" > "$W/sel.str" 2>&1
grep -aq ' EhTest:Strings: ' "$W/sel.str" && grep -aq ' EhTestBE:Strings: ' "$W/sel.str" &&
	! grep -av ':Strings: ' "$W/sel.str" | grep -aq . &&
	ok "report -e 'EhTest*:Strin*': the Strings of both providers only" ||
	{ no "report -e 'EhTest*:Strin*'"; head -3 "$W/sel.str"; }
"$tool" report -e user_events "$W/eh.dat" > "$W/sel.sys" 2>&1
[ -s "$W/text" ] && cmp -s "$W/text" "$W/sel.sys" &&
	ok "report -e user_events: every event of the system" || { no "report -e user_events"; head -3 "$W/sel.sys"; }
# -p SPEC: a provider in report as in run (was --pid's short form there).
"$tool" report -p EhTest "$W/eh.dat" > "$W/sel.p" 2>&1
grep -aq ' EhTest:Ints: ' "$W/sel.p" && ! grep -av ' EhTest:' "$W/sel.p" | grep -aq . &&
	ok "report -p EhTest: that provider's events" || { no "report -p EhTest"; head -3 "$W/sel.p"; }
# A glob that names no record: said, exit 4, as run and record (issue 34 item 2).
"$tool" report -e nomatch -e 'EhTest:Ints' -e 'EhTest:NoSuch' "$W/eh.dat" > "$W/sel.no" 2> "$W/sel.no.err"
rc=$?
[ $rc = 4 ] && grep -aq ' EhTest:Ints: ' "$W/sel.no" &&
	grep -qx "userevents: report: $W/eh.dat: no event matched 'nomatch' (see userevents report --stat $W/eh.dat)" "$W/sel.no.err" &&
	grep -q "no event matched 'EhTest:NoSuch'" "$W/sel.no.err" && ! grep -q "'EhTest:Ints'" "$W/sel.no.err" &&
	ok "report -e nomatch: said, exit 4" || { no "report -e nomatch: exit $rc"; cat "$W/sel.no.err"; }
"$tool" run -e 'EhAct:*' -- "$provider" activities > "$W/run.act" 2> "$W/run.act.err"
grep -aq ' EhAct:Tick: n=42' "$W/run.act" && grep -aq ' EhAct:Task' "$W/run.act" &&
	ok "run -e 'EhAct:*' arms the provider's events" || { no "run -e 'EhAct:*'"; cat "$W/run.act.err"; }
"$tool" run -e 'EhAct:Tick' -- "$provider" activities > "$W/run.tick" 2> "$W/run.tick.err"
grep -aq ' EhAct:Tick: n=42' "$W/run.tick" && [ "$(grep -ac ': EhAct:' "$W/run.tick")" = 1 ] &&
	ok "run -e 'EhAct:Tick': that event only" || { no "run -e 'EhAct:Tick'"; cat "$W/run.tick" "$W/run.tick.err"; }

# run renders as report and stream do (one renderer): the same lines, EventHeader decoded.
"$tool" run -- "$provider" write > "$W/run.text" 2> "$W/run.err" ||
	{ no "run -- eh-provider write"; cat "$W/run.err"; }
sed -E -n 's/^.* [0-9]+\.[0-9]{6}: //p' "$W/text" > "$W/text.cut"
sed -E -n 's/^.* [0-9]+\.[0-9]{6}: //p' "$W/run.text" > "$W/run.cut"
grep -aq ' EhTest:Ints: u8=200 i8=-128 u16=60000 ' "$W/run.text" &&
	diff "$W/text.cut" "$W/run.cut" > "$W/run.diff" &&
	ok "run prints report's lines (EventHeader decoded)" ||
	{ no "run's lines differ from report's"; head -5 "$W/run.diff"; }
# run's summary keeps its columns whatever the names' length: a long
# provider's tracepoint names (55 characters here) pushed them right.
EH_PROVIDER=LinuxTracepoints_Sample_Provider "$tool" run -q -- "$provider" write 2> "$W/run.sum" ||
	{ no "run -- eh-provider write, a long provider"; cat "$W/run.sum"; }
awk '/^EVENT / { w = length($0); on = 1; next } on && length($0) != w { bad++ } on && /^total / { t = 1; exit }
     END { exit !(t && !bad) }' "$W/run.sum" && grep -q '^LinuxTracepoints_Sample_ProviderP32_L4Kf123456789abcdef ' "$W/run.sum" &&
	ok "run's summary: its columns aligned with 55-character names" ||
	{ no "run's summary: columns not aligned"; cat "$W/run.sum"; }

"$tool" report --json "$W/eh.dat" > "$W/json"
grep -aq '"event":"EhTest_L5K8","fields":{"eventheader_flags":7,.*"eventheader":{"provider":"EhTest","name":"Structs","level":5,"keyword":"0x8",.*"fields":{"five": 5, "S1;tag=0xBEEF": {' "$W/json" &&
	grep -aq '"activity":"01020304-0506-0708-090a-0b0c0d0e0f10","related_activity":"f0e1d2c3-b4a5-9687-7869-5a4b3c2d1e0f"' "$W/json" &&
	ok "--json: eventheader with name, header, activity IDs and fields" ||
	no "--json: eventheader"
grep -aq '"event":"otlp_metrics","fields":{"protocol":0,"version":"v1","buffer":"CgNhYmM="}' "$W/json" &&
	ok "--json: otlp_metrics buffer in base64" || no "--json: otlp_metrics buffer in base64"
# Live: a stream on a mounted daemon while the provider writes (one at a
# time: two readers of the same buffer would share its records).
"$daemon" "$W/mnt" || { no "usereventsd did not mount"; exit 1; }
live() {	# FORMAT OUT
	if [ "$1" = default ]; then set -- "" "$2"; else set -- "--format=$1" "$2"; fi
	"$tool" --tracefs "$W/mnt" stream ${1:+"$1"} -e 'user_events:*' > "$2" 2> "$W/s.err" &
	spids="$!"
	sleep 0.3
	"$provider" write "$W/mnt/user_events_data" || no "eh-provider write on the mount"
	i=0
	while [ $i -lt 200 ] && ! grep -aq otlp_metrics "$2"; do
		sleep 0.1
		i=$((i + 1))
	done
	kill -INT $spids
	wait $spids
	spids=
}
live text "$W/s.text"
grep -aq ' EhTest:Formats: e1="EPERM(1)" ' "$W/s.text" && grep -aq 'otlp_metrics: ' "$W/s.text" &&
	ok "stream --format=text decodes EventHeader events" || { no "stream --format=text"; head -3 "$W/s.text" "$W/s.err"; }
live default "$W/s.default"
grep -aq ' EhTest:Formats: e1="EPERM(1)" ' "$W/s.default" && grep -aq 'otlp_metrics: ' "$W/s.default" &&
	ok "stream (no --format) decodes EventHeader events" || { no "stream (no --format)"; head -3 "$W/s.default" "$W/s.err"; }
live perf-decode "$W/s.pd"
sed -E -n 's/"time": [0-9]+\.[0-9]{9}, "cpu": [0-9]+, "pid": [0-9]+, "tid": [0-9]+(, )?//p' "$W/s.pd" |
	sed 's/ } } \]$/ } },/' | grep -a '"n": "EhTest' | diff "$W/theirs" - > /dev/null &&
	tail -c 4 "$W/s.pd" | grep -q '^]' &&
	ok "stream --format=perf-decode: the same 39 events, framing closed" ||
	{ no "stream --format=perf-decode"; head -3 "$W/s.pd"; }
# A reader that goes away (stream | head): stream ends, without an error line.
{ "$tool" --tracefs "$W/mnt" stream -e 'user_events:*' 2> "$W/pipe.err"; echo "$?" > "$W/pipe.rc"; } |
	head -1 > "$W/pipe.out" &
sleep 0.3
"$provider" write "$W/mnt/user_events_data" || no "eh-provider write on the mount"
i=0
while [ $i -lt 200 ] && [ ! -s "$W/pipe.rc" ]; do
	[ $((i % 10)) -eq 9 ] && "$provider" write "$W/mnt/user_events_data"
	sleep 0.1
	i=$((i + 1))
done
[ -s "$W/pipe.rc" ] || pkill -f "$W/mnt stream -e" 2>/dev/null
wait
# Its only line on standard error: the warning that no event existed yet.
grep -aq 'EhTest:' "$W/pipe.out" && [ -s "$W/pipe.rc" ] &&
	! grep -v "warning: no event matches 'user_events:\*' yet" "$W/pipe.err" | grep -q . &&
	ok "stream | head: ends quietly" || { no "stream | head"; cat "$W/pipe.err" "$W/pipe.out"; }
umount "$W/mnt"
exit $((fails > 0))
