#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# userevents export --otlp against the test receiver (receiver.js: requests
# decoded with the official opentelemetry-proto schema), issue 17 item 4.
# otlp-provider writes plain user events, EventHeader events, a Common
# Schema log and an otlp_metrics event, and says what it wrote; check.js
# holds each mapping row against it (protobuf, JSON, gzip, headers, -p),
# then the faults: receiver down at start, down mid-stream (back, and for
# good), slow, 429 with Retry-After, 503, partial success, 400, 400 with
# partial success, stalled.  In each, every record written is delivered or
# counted as dropped or rejected, and export exits within a bound.
# Needs root and /dev/fuse (77 otherwise), node and tests/otlp/node_modules
# (scripts/install-deps; failing without them).  Last, export as a service:
# against a mounted usereventsd until SIGTERM, its counters in `userevents
# stats` while it runs, a clean flush at the signal; and the counters moving
# in `userevents stats` while the collector is down.
#
#   test-export.sh USEREVENTS OTLP_PROVIDER NODE USEREVENTSD
set -u
tool=$1
prov=$2
node=$3
daemon=$4
here=$(cd "$(dirname "$0")" && pwd)

[ "$(id -u)" = 0 ] || { echo "SKIP: needs root"; exit 77; }
[ -c /dev/fuse ] || { echo "SKIP: no /dev/fuse"; exit 77; }
if [ ! -f "$here/node_modules/@opentelemetry/otlp-transformer/package.json" ]; then
	echo "FAIL: $here/node_modules: the OTLP schema is not installed (run scripts/install-deps)"
	exit 1
fi
if [ -z "${UE_OTLP_NS:-}" ]; then
	UE_OTLP_NS=1 exec unshare -m --propagation private -- "$0" "$@"
fi

. "$here/../tools/workdir.sh"
workdir otlp
unset USEREVENTS_TRACEFS
export USEREVENTS_RUNDIR="$work/run"
mkdir "$USEREVENTS_RUNDIR"
"$node" "$here/otlp-tool.js" metrics "$work/metrics.pb" || { echo "FAIL: otlp-tool.js metrics"; exit 1; }

# Bad usage is refused before anything starts, and says what was wrong.
usage_case() { # WANT-TEXT ARGS...
	want=$1
	shift
	"$tool" export "$@" -- true >"$work/usage.out" 2>&1
	rc=$?
	if [ $rc = 2 ] && grep -qF -- "$want" "$work/usage.out"; then
		ok "usage: export $*: exit 2, $want"
	else
		fail "usage: export $*: exit $rc, not 2 with '$want': $(head -n 1 "$work/usage.out")"
	fi
}
usage_case "no --otlp URL"
usage_case "--otlp notaurl: not an http:// or https:// URL" --otlp notaurl
usage_case "unknown option '--otlpp'" --otlpp http://127.0.0.1:1

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# receiver NAME [ARGS]: start the receiver; sets $url, $rpid, $rlog
otlp_dir=$here
. "$here/receiver.sh"
stop_receiver() {
	kill "$rpid" 2>/dev/null
	wait "$rpid" 2>/dev/null
	[ -s "$rerr" ] && fail "$name: the receiver said: $(cat "$rerr")"
}

# export NAME WANT_RC BOUND_S [EXPORT ARGS] -- [PROVIDER ARGS]: run export
# with the provider as CMD; its exit status must be WANT_RC and it must
# exit within BOUND_S seconds of the provider's exit.  Sets $man, $err.
# The provider's -o MANIFEST goes after its arguments.
export_run() {
	want=$2
	bound=$3
	shift 3
	man=$work/$name.man
	err=$work/$name.err
	timeout -s KILL $((bound + 60)) "$tool" export --otlp "$url" "$@" -o "$man" \
		>"$work/$name.out" 2>"$err"
	rc=$?
	end=$(now_ms)
	last=$(sed -n 's/.*"summary":.*"end":\([0-9]*\)[0-9]\{6\}}}$/\1/p' "$man")
	[ "$rc" = "$want" ] && ok "$name: export exited $rc" ||
		fail "$name: export exited $rc, not $want: $(tail -n 3 "$err" | tr '\n' '|')"
	if [ -n "$last" ] && [ "$last" -gt 0 ]; then
		took=$((end - last))
		[ $took -le $((bound * 1000)) ] && ok "$name: export ended $took ms after CMD (bound ${bound} s)" ||
			fail "$name: export ended $took ms after CMD, over the bound of ${bound} s"
	else
		fail "$name: no manifest from the provider"
	fi
	grep -v '^userevents: export: [0-9]* records' "$err" | grep -q . && echo "   ($name: export said: $(tr '\n' '|' <"$err"))"
}

# check MODE [ARGS]: check.js on this test's files
check() {
	mode=$1
	shift
	"$node" "$here/check.js" "$mode" "$rlog" "$man" "$err" "$@" >"$work/$name.check"
	sed "s/^/$name: /" "$work/$name.check"
	n=$(grep -c '^FAIL' "$work/$name.check")
	fails=$((fails + n))
	[ -s "$work/$name.check" ] || fail "$name: check.js printed nothing"
}

# The closing line says why in words, not "(http 10)", which read as a status.
closing_says() {	# WORDS
	grep -q "dropped [0-9]*: \([0-9]* [^;]*, \)*[0-9]* $1" "$err" && ! grep -q '(http [0-9]*)\|(exit [0-9]*)' "$err" &&
		ok "$name: the closing line says: $1" ||
		fail "$name: the closing line does not say '$1': $(grep 'records,' "$err")"
}

sel="-e user_events:Otlp* -e user_events:otlp_metrics"
all="-n 5 -E -m $work/metrics.pb"

# ---- the mapping: protobuf, JSON, gzip, headers ----
name=map-protobuf
receiver $name
# shellcheck disable=SC2086
export_run $name 0 10 $sel --header 'Authorization=Bearer s3cr=t' --header X-Scope-OrgID=tenant-1 \
	-- "$prov" $all
stop_receiver
check mapping --metrics "$work/metrics.pb" --header 'Authorization=Bearer s3cr=t' \
	--header X-Scope-OrgID=tenant-1

name=map-json
receiver $name
# shellcheck disable=SC2086
export_run $name 0 10 $sel --protocol http/json -- "$prov" $all
stop_receiver
check mapping --protocol json --metrics "$work/metrics.pb"

name=map-gzip
receiver $name
# shellcheck disable=SC2086
export_run $name 0 10 $sel --gzip -- "$prov" $all
stop_receiver
check mapping --gzip --metrics "$work/metrics.pb"

name=map-json-gzip
receiver $name
# shellcheck disable=SC2086
export_run $name 0 10 $sel --protocol http/json --gzip -- "$prov" $all
stop_receiver
check mapping --protocol json --gzip --metrics "$work/metrics.pb"

# -p PROVIDER:LEVEL: EventHeader events of OtlpEh up to level 4 only (the
# provider says 3: the others were, rightly, not enabled).
name=map-provider
receiver $name
export_run $name 3 10 -p OtlpEh:4 -- "$prov" -E -w 500
stop_receiver
check mapping --absent EhLevel5 --absent CsEvent

# --otlp as the collector's docs write it, http://HOST:4318/v1/logs: used as
# is (it posted to /v1/logs/v1/logs, a 404); a path the collector does not
# serve: the 404 names the URL posted to and what --otlp takes.
name=full-url
receiver $name
base=$url
url=$base/v1/logs
export_run $name 0 10 -e user_events:OtlpPlain -- "$prov" -n 20
stop_receiver
check delivery --all
name=wrong-path
receiver $name
url=$url/otlp
export_run $name 5 10 -e user_events:OtlpPlain -- "$prov" -n 20
stop_receiver
grep -qF "export: $url/v1/logs: HTTP 404 Not Found: no OTLP receiver at this URL; --otlp takes the collector's base URL (http://HOST:4318) or its .../v1/logs URL (dropped)" "$err" &&
	ok "$name: the 404 names the URL posted to and what --otlp takes" ||
	fail "$name: the 404 says: $(grep 404 "$err")"

# ---- faults: plain events, 20 batches of 10 over about a second ----
load="-n 200 -b 10 -i 50"
batch="--batch-records 10 --batch-delay 50"

name=down-at-start
receiver $name --start-after 3
# shellcheck disable=SC2086
export_run $name 0 15 -e user_events:OtlpPlain $batch --flush-timeout 10000 -- "$prov" $load
stop_receiver
check delivery --all --retried-min 1

name=down-mid-stream
receiver $name --plan ok,ok,down:2
# shellcheck disable=SC2086
export_run $name 0 15 -e user_events:OtlpPlain $batch --flush-timeout 10000 -- "$prov" $load
stop_receiver
check delivery --all --retried-min 1

name=down-for-good
receiver $name --plan ok,ok,down:inf
# shellcheck disable=SC2086
export_run $name 5 10 -e user_events:OtlpPlain $batch --retry-timeout 2000 --flush-timeout 2000 \
	-- "$prov" $load
stop_receiver
check delivery --dropped-min 1
closing_says "unsent when export exited (--flush-timeout)"

name=slow
receiver $name --delay 300
# shellcheck disable=SC2086
export_run $name 0 25 -e user_events:OtlpPlain $batch --flush-timeout 20000 -- "$prov" $load
stop_receiver
check delivery --all

name=retry-after
receiver $name --plan status:429:2
# shellcheck disable=SC2086
export_run $name 0 15 -e user_events:OtlpPlain $batch --flush-timeout 10000 -- "$prov" $load
stop_receiver
check delivery --all --retried-min 1 --retry-after 2

name=unavailable
receiver $name --plan status:503,status:503
# shellcheck disable=SC2086
export_run $name 0 15 -e user_events:OtlpPlain $batch --flush-timeout 10000 -- "$prov" $load
stop_receiver
check delivery --all --retried-min 2

name=partial-success
receiver $name --plan 'partial:3:3 records too old'
# shellcheck disable=SC2086
export_run $name 5 5 -e user_events:OtlpPlain $batch -- "$prov" $load
stop_receiver
check delivery --rejected 3

name=bad-request
receiver $name --plan status:400
# shellcheck disable=SC2086
export_run $name 5 5 -e user_events:OtlpPlain $batch -- "$prov" $load
stop_receiver
check delivery --dropped-min 1
closing_says "refused by the collector (an HTTP status not retried)"

name=bad-request-partial
receiver $name --plan 'partial400:2:2 records malformed'
# shellcheck disable=SC2086
export_run $name 5 5 -e user_events:OtlpPlain $batch -- "$prov" $load
stop_receiver
check delivery --dropped-min 1

name=stalled
receiver $name --then stall
# shellcheck disable=SC2086
export_run $name 5 12 -e user_events:OtlpPlain $batch --timeout 1000 --retry-timeout 3000 \
	--flush-timeout 3000 -- "$prov" $load
stop_receiver
check delivery --dropped-min 200

# ---- as a service: the running daemon, until SIGTERM ----
# export_service: export against the mount in the background, until
# SIGTERM; sets $xpid, $err and $man (the provider's manifest).
export_service() {
	err=$work/$name.err
	man=$work/$name.man
	# shellcheck disable=SC2086
	"$tool" --tracefs "$mnt" export --otlp "$url" -e user_events:OtlpPlain $batch \
		--flush-timeout 15000 >/dev/null 2>"$err" &
	xpid=$!
	pids="$pids $xpid"
}
name=service
receiver $name --delay 300
"$daemon" "$mnt" || { echo "FAIL: usereventsd did not mount"; exit 1; }
export_service
i=0
until [ -e "$USEREVENTS_RUNDIR/export-$xpid.stats" ] || [ $i -ge 200 ]; do sleep 0.05; i=$((i + 1)); done
# shellcheck disable=SC2086
USEREVENTS_TRACEFS=$mnt "$prov" $load -w 5000 -o "$man" 2>"$work/$name.perr"
prc=$?
[ $prc = 0 ] && ok "$name: the provider's writes were all taken" || fail "$name: provider exit $prc: $(cat "$work/$name.perr")"
sleep 1.2	# the stats file is written every second
"$tool" --tracefs "$mnt" stats >"$work/$name.stats" 2>&1
for k in sent retried dropped; do
	grep -q "^export\.$xpid\.$k: [0-9]" "$work/$name.stats" && ok "$name: userevents stats shows export.$xpid.$k" ||
		fail "$name: userevents stats has no export.$xpid.$k: $(tr '\n' '|' <"$work/$name.stats")"
done
# stats --json: the same export under "exports", its counters numbers.
"$tool" --tracefs "$mnt" stats --json >"$work/$name.stats.json" 2>&1
python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))
x = [e for e in j["exports"] if e["pid"] == int(sys.argv[2])]
assert len(x) == 1, j["exports"]
assert all(isinstance(x[0][k], int) for k in ("sent", "retried", "dropped")), x
assert x[0]["url"].startswith("http://"), x' "$work/$name.stats.json" "$xpid" &&
	ok "$name: userevents stats --json shows the export" ||
	fail "$name: stats --json: $(cat "$work/$name.stats.json")"
# 20 requests answered in 300 ms each: most are still queued at SIGTERM.
echo "   ($name: at SIGTERM $(sed -n "s/^export\.$xpid\.sent: //p" "$work/$name.stats") of 200 sent)"
start=$(now_ms)
kill -TERM "$xpid"
wait "$xpid"
rc=$?
took=$(($(now_ms) - start))
[ $rc = 0 ] && ok "$name: export exited 0 at SIGTERM" || fail "$name: export exited $rc at SIGTERM: $(tail -n 3 "$err" | tr '\n' '|')"
[ $took -le 17000 ] && ok "$name: export flushed and ended $took ms after SIGTERM (bound 17 s)" ||
	fail "$name: export ended $took ms after SIGTERM, over the bound of 17 s"
[ ! -e "$USEREVENTS_RUNDIR/export-$xpid.stats" ] && ok "$name: its stats file removed at exit" ||
	fail "$name: export-$xpid.stats left behind"
stop_receiver
check delivery --all

# ---- the counters move while the collector is down (issue 34) ----
# The receiver comes up 8 s after export starts.  Meanwhile the stats file
# shows every record read and the attempts: records, requests and retried
# grow between two looks 2.5 s apart (the 5th attempt comes 1.55 to 3.1 s
# after the first); they froze while one request was being retried.
name=stats-while-down
receiver $name --start-after 8
export_service
# At once (the stats file comes with the first counts): the provider waits
# for export to enable its event.
# shellcheck disable=SC2086
USEREVENTS_TRACEFS=$mnt "$prov" $load -w 5000 -o "$man" 2>"$work/$name.perr" ||
	fail "$name: provider: $(cat "$work/$name.perr")"
counters() {	# records requests retried, as userevents stats shows them
	"$tool" --tracefs "$mnt" stats | sed -n "s/^export\.$xpid\.\(records\|requests\|retried\): //p" |
		tr '\n' ' '
}
sleep 0.3
set -- $(counters)
sleep 2.5
a="$1 $2 $3"
set -- $(counters) $a
[ "$1" = 200 ] && [ "$2" -gt "$5" ] && [ "$3" -gt "$6" ] && [ "$6" -ge 1 ] &&
	ok "$name: userevents stats moves while the collector is down: records $4 -> $1, requests $5 -> $2, retried $6 -> $3" ||
	fail "$name: userevents stats while the collector is down: records $4 -> $1 (200 written), requests $5 -> $2, retried $6 -> $3"
kill -TERM "$xpid"
wait "$xpid"
rc=$?
[ $rc = 0 ] && ok "$name: export exited 0 at SIGTERM" || fail "$name: export exited $rc: $(tail -n 3 "$err" | tr '\n' '|')"
stop_receiver
check delivery --all --retried-min 3

echo "$fails failed"
[ "$fails" = 0 ]
