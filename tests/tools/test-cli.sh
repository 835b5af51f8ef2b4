#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The userevents CLI end to end against usereventsd: exit codes and messages
# scripts rely on, list/enable/disable/stats on a mount found from the
# mount table, stream --json against the trace file, and run tracing the
# raw-ABI example (its own count of records written is the expected total).  Needs root and /dev/fuse: exit 77 otherwise.
#
#   test-cli.sh USEREVENTS USEREVENTSD USER_EVENTS_EXAMPLE
set -u
tool=$1
daemon=$2
example=$3

[ "$(id -u)" = 0 ] || { echo "SKIP: needs root"; exit 77; }
[ -c /dev/fuse ] || { echo "SKIP: no /dev/fuse"; exit 77; }
[ -x "$example" ] || { echo "FAIL: $example is not built"; exit 1; }

if [ -z "${UE_CLI_NS:-}" ]; then
	UE_CLI_NS=1 exec unshare -m --propagation private -- "$0" "$@"
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/ue-cli.XXXXXX")
mnt=$work/mnt
runtmp=$work/tmp
mkdir "$mnt" "$runtmp"
fails=0
pid=
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null
	umount "$mnt" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT

fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}
ok() { echo "ok: $*"; }

# expect_rc WANT DESCRIPTION -- COMMAND...
expect_rc() {
	want=$1
	what=$2
	shift 3
	"$@" >"$work/out" 2>"$work/err"
	rc=$?
	if [ "$rc" = "$want" ]; then ok "$what (exit $rc)"; else
		fail "$what: exit $rc, expected $want"
		sed 's/^/#   /' "$work/err"
	fi
}

# closed_stdout PREFIX COMMAND...: COMMAND with its standard output a pipe
# whose reader is gone before it starts (| head that has all it wanted; the
# default SIGPIPE restored, as a shell leaves it); its status in PREFIX.rc
# (-N: killed by signal N), its standard error in PREFIX.err.
closed_stdout() {
	python3 -c 'import os, subprocess, sys
r, w = os.pipe()
os.close(r)
p = subprocess.run(sys.argv[2:], stdout=w, stderr=open(sys.argv[1] + ".err", "w"), timeout=60)
open(sys.argv[1] + ".rc", "w").write("%d\n" % p.returncode)' "$@"
}
# closed_ok DESCRIPTION PREFIX [GREP-V]: ended quietly with status 0 (GREP-V:
# lines of standard error that are not a complaint, e.g. run's summary)
closed_ok() {
	err=$(grep -v "${3:-^$}" "$2.err")
	[ "$(cat "$2.rc")" = 0 ] && [ -z "$err" ] && ok "$1: quiet, exit 0" ||
		fail "$1: exit $(cat "$2.rc"), said: $err"
}

unset USEREVENTS_TRACEFS
norm=$(dirname "$0")/records-norm.py	# trace lines and JSON records in one form

# ---- command line -------------------------------------------------------
expect_rc 0 "--help" -- "$tool" --help
grep -q '^usage: userevents' "$work/out" || fail "--help prints no usage line"
expect_rc 2 "unknown command" -- "$tool" frobnicate
grep -q "^userevents: unknown command 'frobnicate'" "$work/err" || fail "unknown command message"
expect_rc 2 "no command" -- "$tool"
expect_rc 3 "--tracefs that does not exist" -- "$tool" --tracefs "$work/none" list
# A directory that is no tracefs: every command says so, with the same exit code.
for c in list stats stream 'enable x' 'disable x'; do
	# shellcheck disable=SC2086
	expect_rc 3 "--tracefs DIR-that-is-no-tracefs $c" -- "$tool" --tracefs "$work" $c
	grep -q "^userevents: $work: not a tracefs with user_events" "$work/err" ||
		fail "--tracefs DIR $c: no message that it is not a tracefs"
done
expect_rc 2 "--color of no kind" -- "$tool" --color=bogus list
expect_rc 2 "run without a command" -- "$tool" run
expect_rc 2 "enable without a glob" -- "$tool" --tracefs "$mnt" enable
expect_rc 0 "stream --help" -- "$tool" stream --help
grep -q '^usage: userevents stream .*--json' "$work/out" || fail "stream --help: no --json"
# No FILE: trace-cmd's ./trace.dat; none there: said, with how to make one.
mkdir "$work/cwd"
cd "$work/cwd" || exit 1
expect_rc 1 "report without a file and no ./trace.dat" -- "$tool" report
cd - > /dev/null || exit 1
grep -q "^userevents: report: trace.dat: No such file or directory: make one with userevents record -- CMD, or name the file$" \
	"$work/err" || fail "report without a file: message '$(cat "$work/err")'"
expect_rc 1 "report of a missing file" -- "$tool" report "$work/none.dat"
grep -q "^userevents: report: $work/none.dat: No such file or directory" "$work/err" ||
	fail "report of a missing file: message"
expect_rc 2 "report --pid that is no pid" -- "$tool" report --pid x "$work/none.dat"

# One wording for a refused command line, whatever the command (issue 24):
# "userevents: CMD: what", then CMD's usage line, both on stderr, exit 2.
# The global options' refusals say so alike, without a command ('-' as CMD).
# A usage error comes before the tracefs is looked for: a USEREVENTS_TRACEFS
# that does not exist does not turn it into exit 3.
# expect_usage CMD EXPECTED-MESSAGE -- ARGS...
expect_usage() {
	ucmd=$1
	umsg=$2
	shift 3
	if [ "$ucmd" = - ]; then
		USEREVENTS_TRACEFS=$work/none expect_rc 2 "$*: refused" -- "$tool" "$@"
		upre="userevents: "
		uusage="usage: userevents \\[--tracefs"
	else
		USEREVENTS_TRACEFS=$work/none expect_rc 2 "$ucmd $*: refused" -- "$tool" "$ucmd" "$@"
		upre="userevents: $ucmd: "
		uusage="usage: userevents $ucmd"
	fi
	[ "$(sed -n 1p "$work/err")" = "$upre$umsg" ] ||
		fail "$ucmd $*: first line '$(sed -n 1p "$work/err")', expected '$upre$umsg'"
	sed -n 2p "$work/err" | grep -q "^$uusage" ||
		fail "$ucmd $*: no usage line on stderr after the message"
	[ -s "$work/out" ] && fail "$ucmd $*: something on stdout"
}
expect_usage - "unknown option '--bogus'" -- --bogus
expect_usage - "--color bogus: not auto, always or never" -- --color=bogus list
expect_usage - "unknown command 'frobnicate' (see userevents --help)" -- frobnicate
expect_usage run "no command (-- CMD)" --
expect_usage run "--blocking and --no-blocking apply to record, stream and export" -- --blocking -- true
expect_usage stream "unexpected argument 'x'" -- x
expect_usage stats "unexpected argument 'x'" -- x
expect_usage list "unknown option '--bogus'" -- --bogus
expect_usage enable "no GLOB" --
expect_usage disable "unknown option '-x'" -- -x
expect_usage run "option --duration does not apply" -- --duration 1 -- true
expect_usage stream "option --max-size does not apply" -- --max-size 1M

# ---- errors that say what to do (issue 34 item 6) ------------------------
# No tracefs at all (a kernel's hidden under a tmpfs of this namespace).
[ -e /sys/kernel/tracing/user_events_data ] && mount -t tmpfs ue-cli-hide /sys/kernel/tracing
expect_rc 3 "list with no tracefs" -- "$tool" list
grep -q "usereventsd MOUNTPOINT" "$work/err" && grep -q "userevents run -- CMD" "$work/err" ||
	fail "list with no tracefs: no word of usereventsd or run -- CMD: $(cat "$work/err")"
# A dead daemon's mount: its error (not "no tracefs found"), and how to clear it.
mkdir "$work/dead"
"$daemon" -f "$work/dead" & dpid=$!
i=0
while [ ! -e "$work/dead/user_events_data" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
kill -KILL "$dpid"
wait "$dpid" 2>/dev/null
expect_rc 3 "list with a dead daemon's mount" -- "$tool" list
grep -q "^userevents: $work/dead: Transport endpoint is not connected" "$work/err" &&
	grep -q "fusermount3 -uz $work/dead" "$work/err" ||
	fail "list with a dead daemon's mount: not its error and the fix: $(cat "$work/err")"
expect_rc 3 "--tracefs of a dead daemon's mount" -- "$tool" --tracefs "$work/dead" list
grep -q "fusermount3 -uz $work/dead" "$work/err" ||
	fail "--tracefs of a dead daemon's mount: no fix said: $(cat "$work/err")"
umount -l "$work/dead"
# CMD that cannot be run: exit 127, and no empty summary table before it.
TMPDIR=$runtmp expect_rc 127 "run -- nosuchcmd" -- "$tool" run -- nosuchcmd-ue
grep -q "EVENT .*EVENTS\|^total" "$work/err" && fail "run -- nosuchcmd: an empty summary table: $(cat "$work/err")"

# ---- a mounted daemon, found in the mount table -------------------------
"$daemon" "$mnt" || { echo "FAIL: usereventsd did not mount"; exit 1; }
# Its events live as long as it does: long enough for the checks below, then killed.
"$example" "$mnt" 30 >/dev/null &
pid=$!
i=0
while ! grep -q example_message "$mnt/user_events_status" 2>/dev/null && [ $i -lt 50 ]; do
	sleep 0.1
	i=$((i + 1))
done

expect_usage list "unknown option '--bogus'" -- --bogus
expect_usage list "unknown option '-Z'" -- -Z
expect_usage stats "unknown option '--bogus'" -- --bogus
expect_usage stream "unknown option '--bogus'" -- --bogus
expect_usage stream "unknown option '--bogus'" -- --bogus=1
expect_usage stream "option '--event' needs a value" -- --event
expect_usage stream "option '-e' needs a value" -- -e
expect_usage report "--pid abc: not a pid" -- --pid abc x.dat
expect_usage run "unknown option '--bogus'" -- --bogus
expect_usage record "option '-o' needs a value" -- -o
expect_usage report "unknown option '--bogus'" -- --bogus x.dat
expect_usage report "one FILE" -- a.dat b.dat
# -p is a provider in report too, as everywhere (was --pid's short form there).
expect_usage report "-p EhHello:x: not PROVIDER[:LEVEL[:KEYWORDS]] (LEVEL 0..255, KEYWORDS hex)" -- -p EhHello:x x.dat
# An empty -e is a usage error (was: "warning: '' not armed (Invalid argument)").
expect_usage run "-e '': an empty GLOB names no event ('*' names all)" -- -e '' -- true
expect_usage record "-e '': an empty GLOB names no event ('*' names all)" -- -o x.dat -e '' -- true
expect_usage report "-e '': an empty GLOB names no event ('*' names all)" -- -e '' x.dat
expect_usage export "unknown option '--bogus'" -- --otlp http://127.0.0.1:1 --bogus
expect_usage export "option '--otlp' needs a value" -- --otlp
expect_usage export "--otlp 127.0.0.1:14318: not an http:// or https:// URL" -- \
	--otlp 127.0.0.1:14318
expect_usage export "--drop some: not oldest or newest" -- --otlp http://127.0.0.1:1 --drop some
expect_usage export "no --otlp URL" -- -q

expect_rc 0 "list (auto-detected tracefs)" -- "$tool" list
grep -q '^user_events:example_tick id=[0-9]* enabled=0 used-by=-$' "$work/out" ||
	fail "list: no disabled example_tick line"
grep -q "$(printf '^\tu64 count\toffset:8 size:8 signed:0$')" "$work/out" ||
	fail "list: example_tick's field"
grep -q "$(printf '^\t__rel_loc char\\[\\] path\toffset:20 size:4 signed:1$')" "$work/out" ||
	fail "list: example_request's __rel_loc field"
expect_rc 4 "list GLOB matching nothing" -- "$tool" list 'nosuch*'
grep -qx "userevents: list: no event matches 'nosuch\*'" "$work/err" ||
	fail "list 'nosuch*': the glob not named: $(cat "$work/err")"
expect_rc 4 "enable 'zzz*' matching nothing" -- "$tool" enable 'zzz*' 'yyy'
grep -qx "userevents: enable: no event matches 'zzz\*' or 'yyy' (see userevents list)" "$work/err" ||
	fail "enable 'zzz*': the glob not named: $(cat "$work/err")"
# list --json: one object a line, read by a JSON parser; the same events as
# list -n, the same fields as the text above.
expect_rc 0 "list --json" -- "$tool" list --json
mv "$work/out" "$work/list.json"
expect_rc 0 "list -n" -- "$tool" list -n
python3 - "$work/list.json" "$work/out" <<'PY' || fail "list --json"
import json, sys
evs = [json.loads(l) for l in open(sys.argv[1])]
names = [l.strip() for l in open(sys.argv[2])]
assert [e["system"] + ":" + e["name"] for e in evs] == names, "not the events of list -n"
by = {e["name"]: e for e in evs}
t = by["example_tick"]
assert t["enabled"] is False and t["used_by"] == [] and isinstance(t["id"], int), t
assert {"name": "count", "type": "u64", "offset": 8, "size": 8, "signed": False} in t["fields"], t
r = by["example_request"]
assert {"name": "path", "type": "__rel_loc char[]", "offset": 20, "size": 4,
        "signed": True} in r["fields"], r
PY
expect_usage list "--names and --json exclude each other" -- -n --json
expect_rc 0 "enable example_t*" -- "$tool" enable 'example_t*'
[ "$(cat "$mnt/events/user_events/example_tick/enable")" = 1 ] || fail "enable: example_tick not enabled"
[ "$(cat "$mnt/events/user_events/example_request/enable")" = 0 ] || fail "enable: example_request enabled"
expect_rc 0 "list -n user_events:*tick" -- "$tool" list -n 'user_events:*tick'
[ "$(cat "$work/out")" = "user_events:example_tick" ] || fail "list -n: $(cat "$work/out")"
expect_rc 0 "list example_tick, enabled" -- "$tool" list example_tick
grep -q 'enabled=1 used-by=ftrace$' "$work/out" || fail "list: example_tick not shown as used by ftrace"
expect_rc 0 "list --json example_tick, enabled" -- "$tool" list --json example_tick
python3 -c 'import json, sys
e = [json.loads(l) for l in open(sys.argv[1])]
assert len(e) == 1 and e[0]["enabled"] is True and e[0]["used_by"] == ["ftrace"], e' \
	"$work/out" || fail "list --json: example_tick not enabled and used by ftrace"
expect_rc 4 "disable GLOB matching nothing" -- "$tool" disable 'nosuch'
# stream -e of an event that does not exist: said at once, exit 4 at the end.
"$tool" stream -e nosuch > "$work/out" 2> "$work/err" &
spid=$!
sleep 1
kill -INT $spid
wait $spid
rc=$?
[ $rc = 4 ] || fail "stream -e nosuch: exit $rc, expected 4"
grep -q "^userevents: stream: warning: no event matches 'nosuch' yet" "$work/err" ||
	fail "stream -e nosuch: no warning"
grep -q "^userevents: stream: no event matched 'nosuch'" "$work/err" ||
	fail "stream -e nosuch: no closing message"
# A filter with a missing quote: the parser's words, not the kernel's errno
# (ESRCH, "No such process"), a usage error before anything is enabled.
expect_rc 2 "stream -f with a missing quote" -- \
	timeout 10 "$tool" stream -e example_request -f 'path ~ "abc'
grep -q 'Missing matching quote' "$work/err" || fail "stream -f: no parse error shown"
grep -q 'No such process' "$work/err" && fail "stream -f: the raw ESRCH shown"
[ "$(cat "$mnt/events/user_events/example_request/enable")" = 0 ] ||
	fail "stream -f: example_request left enabled"
expect_rc 0 "stats" -- "$tool" stats
grep -qx 'events: 3' "$work/out" || fail "stats: events"
grep -qx 'enabled: 1' "$work/out" || fail "stats: enabled"
# stats --json: one object, read by a JSON parser: the keys of the text form,
# the same values where they cannot move between the two runs, numbers as numbers.
mv "$work/out" "$work/stats.txt"
expect_rc 0 "stats --json" -- "$tool" stats --json
python3 - "$work/stats.txt" "$work/out" <<'PY' || fail "stats --json"
import json, sys
text = dict(l.rstrip("\n").split(": ", 1) for l in open(sys.argv[1]) if not l.startswith("export."))
j = json.loads(open(sys.argv[2]).read())
keys = set(j) - {"exports"}
assert keys == set(text), (sorted(keys), sorted(text))
assert isinstance(j["exports"], list) and j["exports"] == [], j["exports"]
for k in ("tracefs", "events", "enabled", "cpus"):
    assert str(j[k]) == text[k], (k, j[k], text[k])
assert all(isinstance(j[k], int) for k in keys - {"tracefs"}), j
assert j["events"] == 3 and j["enabled"] == 1 and "writes_fuse" in j, j
PY
expect_usage stats "unexpected argument 'x'" -- --json x
# stats --interval: the counters' increase per second, a line (an object) per
# interval; the example writes its enabled event ten times a second.
expect_rc 0 "stats --interval 0.5 --count 2 --json" -- "$tool" stats --interval 0.5 --count 2 --json
python3 - "$work/out" <<'PY' || fail "stats --interval --json: $(cat "$work/out")"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert len(rows) == 2, rows
for r in rows:
    assert 0.4 < r["interval"] < 2, r
    assert set(r) == {"interval", "read", "overrun", "dropped", "writes_fuse", "records_native",
                      "records_interposed"}, r
    assert 2 <= r["writes_fuse"] <= 50 and r["dropped"] == 0, r
PY
expect_rc 0 "stats --interval 0.5 --count 1" -- "$tool" stats --interval 0.5 --count 1
[ "$(sed -n 1p "$work/out" | tr -s ' ' | sed 's/^ //')" = \
	"read/s overrun/s dropped/s writes_fuse/s records_native/s records_interposed/s" ] &&
	[ "$(sed -n 2p "$work/out" | wc -w)" = 6 ] && [ "$(wc -l < "$work/out")" = 2 ] ||
	fail "stats --interval: not a header and a line of six rates: $(cat "$work/out")"
expect_usage stats "--interval 0: not a time in seconds from 0.1 to 86400" -- --interval 0
expect_usage stats "--count needs --interval" -- --count 3
expect_rc 0 "disable user_events:*" -- "$tool" disable 'user_events:*'
[ "$(cat "$mnt/events/enable")" = 0 ] || fail "disable: something still enabled"
USEREVENTS_TRACEFS=$work/none expect_rc 3 "USEREVENTS_TRACEFS wins over the mount table" -- \
	"$tool" list
kill "$pid"
{ wait "$pid"; } 2>/dev/null
pid=

# ---- stream --json: the records trace shows, as JSON ---------------------
expect_rc 2 "stream --fields --json" -- "$tool" --tracefs "$mnt" stream --fields --json
expect_rc 2 "stream -o (an option of another command)" -- "$tool" --tracefs "$mnt" stream -o x
for e in 'example_tick u64 count' 'example_request u32 status; u64 bytes; __rel_loc char[] path' \
	'example_message char[16] text; s32 level'; do
	echo "u:$e" >> "$mnt/dynamic_events"
done
: > "$mnt/trace"	# O_TRUNC: the records of the example run above go
echo 1 > "$mnt/events/user_events/enable"
"$example" "$mnt" 1 > "$work/example.out"
grep -v '^#' "$mnt/trace" > "$work/trace"
"$tool" --tracefs "$mnt" stream --json > "$work/json" 2> "$work/err" &
spid=$!
i=0
while grep -vq '^#' "$mnt/trace" && [ $i -lt 50 ]; do	# until it has read them all
	sleep 0.1
	i=$((i + 1))
done
kill -INT $spid
wait $spid
rc=$?
"$norm" trace < "$work/trace" > "$work/a"
"$norm" json < "$work/json" > "$work/b" 2>&1
written=$(sed -n 's/^wrote \([0-9]*\) records.*/\1/p' "$work/example.out")
if [ $rc = 0 ] && [ "$(wc -l < "$work/a")" = "$written" ] && [ "$written" -gt 0 ] &&
	diff "$work/a" "$work/b" > "$work/diff"; then
	ok "stream --json: the $written records trace showed, same fields and values"
else
	fail "stream --json: exit $rc, wrote $written, $(wc -l < "$work/a") trace lines"
	head -5 "$work/diff" "$work/err"
fi
# --wall-clock: "ts" in ns since the epoch, between the wall times before and after.
expect_rc 2 "stream --wall-clock without --json" -- "$tool" --tracefs "$mnt" stream --wall-clock
"$tool" --tracefs "$mnt" stream --json --wall-clock > "$work/json" 2> "$work/err" &
spid=$!
sleep 0.5
t0=$(date +%s%N)
"$example" "$mnt" 1 > "$work/example.out"
t1=$(date +%s%N)
sleep 1.5
kill -INT $spid
wait $spid
rc=$?
written=$(sed -n 's/^wrote \([0-9]*\) records.*/\1/p' "$work/example.out")
if [ $rc = 0 ] && python3 - "$work/json" "$t0" "$t1" "$written" <<'PY'; then
import json, sys
ts = [json.loads(l)["ts"] for l in open(sys.argv[1])]
t0, t1, n = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
assert len(ts) == n and n > 0, (len(ts), n)
assert all(t0 <= t <= t1 for t in ts), (t0, min(ts), max(ts), t1)
PY
	ok "stream --json --wall-clock: the $written records stamped between the wall times around them"
else
	fail "stream --json --wall-clock: exit $rc"; head -3 "$work/json" "$work/err"
fi
# A reader gone (stream | head -2 once it has its lines): the end, quiet and 0.
closed_stdout "$work/cs" "$tool" --tracefs "$mnt" stream -e 'user_events:example_*' &
cpid=$!
sleep 0.5
"$example" "$mnt" 1 > /dev/null
wait $cpid
closed_ok "stream with its reader gone" "$work/cs"
closed_stdout "$work/cs" "$tool" --tracefs "$mnt" stream --json -e 'user_events:example_*' &
cpid=$!
sleep 0.5
"$example" "$mnt" 1 > /dev/null
wait $cpid
closed_ok "stream --json with its reader gone" "$work/cs"
echo 0 > "$mnt/events/user_events/enable"
umount "$mnt"

# ---- run ----------------------------------------------------------------
# Mounts of usereventsd before run (other tests or people may have some).
mounts_before=$(grep -c ' fuse.usereventsd ' /proc/self/mountinfo || true)
# The example finds the daemon at /sys/kernel/tracing: run binds it there.
TMPDIR=$runtmp expect_rc 0 "run -e 'user_events:*' -- example" -- \
	"$tool" run -e 'user_events:*' -- "$example" /sys/kernel/tracing 2
written=$(sed -n 's/^wrote \([0-9]*\) records.*/\1/p' "$work/out")
total=$(sed -n 's/^total *\([0-9]*\) .*/\1/p' "$work/err")
lines=$(grep -c ': example_\(tick\|request\|message\): ' "$work/out")
[ -n "$written" ] && [ "$written" -gt 0 ] || fail "run: the example wrote nothing"
[ "$total" = "$written" ] || fail "run: summary total $total, the example wrote $written"
[ "$lines" = "$written" ] || fail "run: $lines event lines, the example wrote $written"
grep -q '^ *user_events_exa-[0-9]* *\[[0-9]*\] ..... *[0-9]*\.[0-9]*: example_request: status=0x[0-9a-f]* ([0-9]*) bytes=0x[0-9a-f]* ([0-9]*) path=/index.html$' "$work/out" ||
	fail "run: no example_request trace line"
grep -q '^dropped: 0 ' "$work/err" || fail "run: summary has no 'dropped: 0'"
grep -q 'command exited with status 0' "$work/err" || fail "run: exit line"
# -o FILE, as strace -o and perf trace -o: the trace lines there, not on
# standard output, which is CMD's own (issue 24).
TMPDIR=$runtmp expect_rc 0 "run -o FILE -- example" -- \
	"$tool" run -e 'user_events:*' -o "$work/copy" -- sh -c 'echo CMD-OUTPUT; exec "$0" "$@"' \
	"$example" /sys/kernel/tracing 2
written=$(sed -n 's/^wrote \([0-9]*\) records.*/\1/p' "$work/out")
[ -n "$written" ] && [ "$(grep -c ': example_' "$work/copy")" = "$written" ] ||
	fail "run -o: ${written:-?} written, $(grep -c ': example_' "$work/copy") lines in the file"
[ "$(grep -vc '^\(CMD-OUTPUT\|registered .*\|wrote .*\)$' "$work/out")" = 0 ] &&
	[ "$(sed -n 1p "$work/out")" = CMD-OUTPUT ] ||
	fail "run -o: standard output is not CMD's alone: $(head -3 "$work/out")"
[ -z "$(ls -A "$runtmp")" ] || fail "run left $(ls -A "$runtmp") behind"
[ "$(grep -c ' fuse.usereventsd ' /proc/self/mountinfo || true)" = "$mounts_before" ] ||
	fail "run left a usereventsd mount"

# Only the events asked for, found through USEREVENTS_TRACEFS.
TMPDIR=$runtmp expect_rc 0 "run -e example_tick (USEREVENTS_TRACEFS)" -- \
	"$tool" run -e example_tick -- sh -c 'exec "$0" "$USEREVENTS_TRACEFS" 1' "$example"
written=$(sed -n 's/^wrote \([0-9]*\) records.*/\1/p' "$work/out")
[ "$(grep -c ': example_tick: count=' "$work/out")" = "$written" ] || fail "run -e example_tick: count"
grep -q ': example_\(request\|message\): ' "$work/out" && fail "run -e example_tick: other events shown"

# A filter (-f after -e): example_request is a 404 when its count is a multiple of 7.
TMPDIR=$runtmp expect_rc 0 "run -e example_request -f 'status == 404'" -- \
	"$tool" run -e example_request -f 'status == 404' -- \
	sh -c 'exec "$0" "$USEREVENTS_TRACEFS" 2' "$example"
n404=$(grep -c ': example_request: status=0x194 (404) ' "$work/out")
nreq=$(grep -c ': example_request: ' "$work/out")
[ "$n404" -gt 0 ] && [ "$n404" = "$nreq" ] || fail "run -f: $n404 of $nreq requests are 404s"
# A filter the tracefs refuses: its reason, as the filter file shows it; nothing
# enabled, and the run stops with an error instead of tracing nothing.
t0=$(date +%s)
TMPDIR=$runtmp expect_rc 125 "run -f with an unknown field" -- \
	"$tool" run -e example_request -f 'nosuch == 1' -- \
	sh -c 'exec "$0" "$USEREVENTS_TRACEFS" 30' "$example"
grep -q '^parse_error: Field not found$' "$work/err" || fail "run -f: no parse error shown"
grep -q 'run: stopped the command' "$work/err" || fail "run -f: no word that the run stopped"
[ $(($(date +%s) - t0)) -lt 20 ] || fail "run -f: the command was not stopped (ran its 30 s)"
grep -q ': example_request: ' "$work/out" && fail "run -f: an event with a refused filter was enabled"
# The same refusal with a program that registers, writes once and exits before
# any scan (issue 24): the daemon keeps why it refused the armed filter, and
# run, record and export say it as above, not "no event matched".
for c in run record export; do
	case $c in
	run) set -- run -q ;;
	record) set -- record -q -o "$work/f.dat" ;;
	export) set -- export -q --otlp http://127.0.0.1:9 ;;
	esac
	for f in 'nosuch > 5' 'count == "x"'; do
		TMPDIR=$runtmp expect_rc 125 "$c -f '$f' -- a program of one write" -- \
			"$tool" "$@" -e example_tick -f "$f" -- \
			sh -c 'exec "$0" "$USEREVENTS_TRACEFS" 0' "$example"
		grep -q "^userevents: $c: filter of user_events/example_tick refused:$" "$work/err" &&
			grep -q '^parse_error: \(Field not found\|Expecting numeric field\)$' "$work/err" ||
			fail "$c -f '$f' of a short-lived program: not the parser's words: $(cat "$work/err")"
		# (Ran to its end, or stopped when the refusal was read before it ended.)
		grep -q "^userevents: $c: \(the command ran to its end untraced\|stopped the command\)" \
			"$work/err" || fail "$c -f '$f' of a short-lived program: no word of the command"
		grep -q 'no event matched' "$work/err" && fail "$c -f '$f': 'no event matched'"
	done
	# A filter that parses for no event: refused before CMD starts (usage, exit 2).
	rm -f "$work/started"
	TMPDIR=$runtmp expect_rc 2 "$c -f 'count > 5 &&& ' (syntax)" -- \
		"$tool" "$@" -e example_tick -f 'count > 5 &&& ' -- sh -c ': > "$0"' "$work/started"
	[ "$(sed -n 1p "$work/err")" = "userevents: $c: -f: the filter does not parse:" ] &&
		grep -q '^parse_error: Expecting a field name$' "$work/err" ||
		fail "$c -f with a syntax error: $(cat "$work/err")"
	[ -e "$work/started" ] && fail "$c -f with a syntax error: CMD was started"
done
set --
# -e of an event the program never registers: said, and exit 4 instead of 0.
TMPDIR=$runtmp expect_rc 4 "run -q -e nosuch" -- \
	"$tool" run -q -e nosuch -- sh -c 'exec "$0" "$USEREVENTS_TRACEFS" 1' "$example"
# CMD's daemon is gone: the events it registered are named, not "see userevents list"
# (those the scans saw: under load a 1 s program may leave before all three are).
grep -qx "userevents: run: no event matched 'nosuch'; the events seen: user_events:example_[a-z]*\(, user_events:example_[a-z]*\)*" \
	"$work/err" || fail "run -e nosuch: not the events that registered: $(cat "$work/err")"
TMPDIR=$runtmp expect_rc 4 "run -q -e nosuch -- true" -- "$tool" run -q -e nosuch -- true
grep -qx "userevents: run: no event matched 'nosuch'; no other event was seen either" "$work/err" ||
	fail "run -e nosuch -- true: no word that no event was seen: $(cat "$work/err")"
# Said whatever CMD's exit; CMD's status is the exit (issue 34 item 2).
for c in run record; do
	[ $c = record ] && set -- -o "$work/n.dat" || set --
	TMPDIR=$runtmp expect_rc 2 "$c -q -e nosuch -- sh -c 'exit 2'" -- \
		"$tool" $c -q "$@" -e nosuch -- sh -c 'exit 2'
	grep -q "^userevents: $c: no event matched 'nosuch'" "$work/err" ||
		fail "$c -e nosuch, CMD exiting 2: the glob not said: $(cat "$work/err")"
done
set --
# -o FILE whose writes fail: said once, naming the file with the error of the write.
TMPDIR=$runtmp expect_rc 125 "run -q -o /dev/full" -- \
	"$tool" run -q -o /dev/full -- sh -c 'exec "$0" "$USEREVENTS_TRACEFS" 1' "$example"
[ "$(grep -c '^userevents: ' "$work/err")" = 2 ] &&
	grep -qx 'userevents: run: /dev/full: No space left on device' "$work/err" ||
	fail "run -o /dev/full: not one message naming the file: $(grep '^userevents' "$work/err")"
expect_rc 2 "run --blocking (run always holds CMD back as record does)" -- "$tool" run --blocking -- true
expect_rc 2 "-f before any -e" -- "$tool" run -f 'a == 1' -- true
expect_rc 2 "two -f for one -e" -- "$tool" run -e x -f 'a == 1' -f 'a == 2' -- true

# The interposer goes into CMD's LD_PRELOAD, first, unless --no-preload.
TMPDIR=$runtmp LD_PRELOAD= expect_rc 0 "run injects libuserevents-preload.so" -- \
	"$tool" run -q -- sh -c 'echo "preload=$LD_PRELOAD" >&2'
grep -q '^preload=/.*/libuserevents-preload\.so$' "$work/err" || fail "run: no interposer in LD_PRELOAD"
TMPDIR=$runtmp LD_PRELOAD= expect_rc 0 "run --no-preload" -- \
	"$tool" run -q --no-preload -- sh -c 'echo "preload=$LD_PRELOAD" >&2'
grep -q '^preload=$' "$work/err" || fail "run --no-preload: LD_PRELOAD set"

# A reader gone: run ends its output quietly, CMD's status is the exit (it
# was 125); CMD is sent SIGTERM (nobody reads its trace): this one ignores it.
TMPDIR=$runtmp closed_stdout "$work/cr" "$tool" run -e 'user_events:*' -- \
	sh -c 'trap "" TERM; exec "$0" "$USEREVENTS_TRACEFS" 1 > /dev/null' "$example"
closed_ok "run with its reader gone" "$work/cr" \
	'^EVENT \|^example_\|^total \|^dropped: \|command exited with status 0$\|^$'
# And report, in each format (it was killed by SIGPIPE, or said an I/O error).
TMPDIR=$runtmp "$tool" record -q -o "$work/p.dat" -- sh -c 'exec "$0" "$USEREVENTS_TRACEFS" 1' "$example" \
	> /dev/null 2>&1 || fail "record for report's closed output"
for f in --fields --json --format=chrome --format=perf-decode --html --stat; do
	closed_stdout "$work/cp" "$tool" report $f "$work/p.dat"
	closed_ok "report $f with its reader gone" "$work/cp"
done
# The HTML page's summary counts in words that agree with them: "from 1
# thread", not "from 1 threads" (one thread wrote p.dat's records).
"$tool" report --html "$work/p.dat" > "$work/p.html" 2> "$work/err" || fail "report --html: exit $?"
python3 - "$work/p.html" <<'PY' || fail "report --html: the summary's plurals: $(grep -o '<p id="summary">[^<]*' "$work/p.html")"
import re, sys
m = re.search(r'<p id="summary">(\d+) (records?) of (\d+) (events?) from (\d+) (threads?) over '
              r'[0-9.]+ s; <span class="lostsum">(\d+) (records?) lost', open(sys.argv[1]).read())
assert m and m.group(5) == "1", m and m.groups()
for n, word in zip(m.groups()[::2], m.groups()[1::2]):
    assert (n == "1") == (not word.endswith("s")), (n, word)
PY
# trace-cmd's defaults: record without -o writes ./trace.dat, report without
# FILE reads it.
cd "$work/cwd" || exit 1
TMPDIR=$runtmp expect_rc 0 "record without -o" -- "$tool" record -q -- \
	sh -c 'exec "$0" "$USEREVENTS_TRACEFS" 1' "$example"
[ -s trace.dat ] || fail "record without -o: no ./trace.dat"
expect_rc 0 "report without a file" -- "$tool" report
cd - > /dev/null || exit 1
"$tool" report "$work/cwd/trace.dat" > "$work/named" 2>&1
cmp -s "$work/out" "$work/named" && [ -s "$work/out" ] ||
	fail "report without a file: not ./trace.dat's records"
# A file report does not read: what it is and how to make one it reads.
TMPDIR=$runtmp "$tool" run -o "$work/run.txt" -- sh -c 'exec "$0" "$USEREVENTS_TRACEFS" 1' "$example" \
	> /dev/null 2>&1 || fail "run -o for report"
# stream --json's lines, as one would save them; an empty file; bytes that
# are no text; text with UTF-8 in it (a string field's) is text.
printf '{"name":"user_events:example","pid":1}\n' > "$work/run.json"
: > "$work/run.empty"
printf 'PK\003\004\000\001\002' > "$work/run.bin"
printf ' sh-1 [000] 1.000000: example: name=caf\303\251\n' > "$work/run.utf8"
for k in txt:"text, as run -o and stream write" json:"JSON, as stream --json writes" empty:empty \
	bin:"not text either" utf8:"text, as run -o and stream write"; do
	expect_rc 1 "report of ${k%%:*}" -- "$tool" report "$work/run.${k%%:*}"
	grep -qF "report: $work/run.${k%%:*}: not a trace.dat file (${k#*:}); userevents record -o FILE -- CMD makes one report reads (or a perf.data)" \
		"$work/err" || fail "report of ${k%%:*}: said '$(cat "$work/err")'"
done
expect_rc 3 "run returns the command's status" -- "$tool" run -- sh -c 'exit 3'
expect_rc 127 "run of a missing command" -- "$tool" run -- "$work/nosuch"
expect_rc 137 "run of a killed command" -- "$tool" run -- sh -c 'kill -9 $$'
[ -z "$(ls -A "$runtmp")" ] || fail "run left $(ls -A "$runtmp") behind"

# ---- output meant for people -------------------------------------------
esc=$(printf '\033')
TMPDIR=$runtmp expect_rc 0 "run on pipes" -- "$tool" run -- true
grep -q "$esc" "$work/out" "$work/err" && fail "run on pipes: escape codes"
TMPDIR=$runtmp expect_rc 0 "run --color=always" -- "$tool" --color=always run -- true
grep -q "$esc\[1m" "$work/err" || fail "run --color=always: no bold summary header"
if command -v script >/dev/null; then
	# On a terminal (script's pty): bold, unless NO_COLOR says no.
	TMPDIR=$runtmp script -qec "'$tool' run -- true" /dev/null > "$work/tty" 2>&1
	grep -q "$esc\[1m" "$work/tty" || fail "run on a terminal: no bold header"
	TMPDIR=$runtmp NO_COLOR=1 script -qec "'$tool' run -- true" /dev/null > "$work/tty" 2>&1
	grep -q "$esc" "$work/tty" && fail "run on a terminal with NO_COLOR: escape codes"
	# record -- CMD on a terminal: no progress line for CMD's output to run into.
	TMPDIR=$runtmp script -qec "'$tool' record -o '$work/p.dat' -- sh -c 'sleep 2.5; echo CMD-OUTPUT'" \
		/dev/null > "$work/tty" 2>&1
	if grep -q 'CMD-OUTPUT' "$work/tty" && ! tr '\r' '@' < "$work/tty" | grep -q '@[^$]'; then
		ok "record -- CMD on a terminal: no progress line into CMD's output"
	else
		fail "record -- CMD on a terminal: $(tr '\r' '@' < "$work/tty" | head -3)"
	fi
	# Without CMD: the progress line, each second, with the rate of that second.
	"$daemon" "$mnt" || fail "usereventsd did not mount again"
	"$example" "$mnt" 4 >/dev/null &
	script -qec "'$tool' --tracefs '$mnt' record -o '$work/p.dat' --duration 3.5 -e 'user_events:*'" \
		/dev/null > "$work/tty" 2>&1
	wait
	umount "$mnt"
	if tr '\r' '\n' < "$work/tty" | grep -q '^userevents: record: [0-9]* events ([0-9]*/s), [0-9]* bytes, 0 dropped'; then
		ok "record on a terminal: a progress line with events/s"
	else
		fail "record on a terminal: no rate in the progress line: $(tr '\r' '\n' < "$work/tty" | head -3)"
	fi
else
	echo "SKIP: no script(1): terminal checks not run"
fi
# make demo, piped: no escape codes either.
build=$(dirname "$(dirname "$tool")")
TMPDIR=$runtmp "$(dirname "$0")/../../scripts/demo" "$build" > "$work/demo" 2>&1 ||
	fail "scripts/demo failed: $(tail -2 "$work/demo")"
grep -q "$esc" "$work/demo" && fail "scripts/demo on a pipe: escape codes"
grep -q '^== userevents run' "$work/demo" || fail "scripts/demo: no banner"

[ "$fails" = 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "all passed"
