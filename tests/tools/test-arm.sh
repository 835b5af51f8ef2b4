#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Armed patterns through the CLI (issue 14): a producer that registers,
# writes at once and exits (tests/tools/arm-provider.c, raw DIAG_IOCSREG +
# writev, EventHeader names) is recorded whole by run and record -- CMD,
# with forks too, with and without the interposer; -p selects by provider,
# level and keyword; a stream's patterns end with it, SIGKILL included; a
# glob naming nothing is harmless.  Needs root and /dev/fuse (77 otherwise).
#
#   test-arm.sh USEREVENTS USEREVENTSD ARM_PROVIDER USER_EVENTS_EXAMPLE
set -u
tool=$1
daemon=$2
prov=$3
example=$4

[ "$(id -u)" = 0 ] || { echo "SKIP: needs root"; exit 77; }
[ -c /dev/fuse ] || { echo "SKIP: no /dev/fuse"; exit 77; }
if [ -z "${UE_ARM_NS:-}" ]; then
	UE_ARM_NS=1 exec unshare -m --propagation private -- "$0" "$@"
fi

. "$(dirname "$0")/workdir.sh"
workdir arm
unset USEREVENTS_TRACEFS

# count FILE EVENT: trace lines of EVENT in FILE (run's text, report's output)
count() { grep -c " $2: " "$1"; }

# expect WHAT FILE EVENT N
expect() {
	n=$(count "$2" "$3")
	[ "$n" = "$4" ] && ok "$1: $3 $n of $4" || fail "$1: $3 $n, not $4"
}

# ---- run and record -- CMD: a program that registers, writes and exits ----
for preload in "" --no-preload; do
	"$tool" run -q $preload -o "$work/run.txt" -- "$prov" -n 5 Prov_L4K1 Prov_L5K2Gx \
		>/dev/null 2>"$work/err"
	rc=$?
	[ $rc = 0 ] || fail "run $preload: exit $rc: $(cat "$work/err")"
	expect "run $preload -- CMD" "$work/run.txt" Prov_L4K1 5
	expect "run $preload -- CMD" "$work/run.txt" Prov_L5K2Gx 5

	rm -f "$work/rec.dat"
	"$tool" record -q $preload -o "$work/rec.dat" -- "$prov" -n 5 Prov_L4K1 Prov_L5K2Gx \
		>/dev/null 2>"$work/err"
	rc=$?
	[ $rc = 0 ] || fail "record $preload: exit $rc: $(cat "$work/err")"
	"$tool" report "$work/rec.dat" >"$work/rep.txt"
	expect "record $preload -- CMD" "$work/rep.txt" Prov_L4K1 5
	expect "record $preload -- CMD" "$work/rep.txt" Prov_L5K2Gx 5
done

# ---- the race with forks: 3 rounds of 4 children, each writes 20 on what it
# inherited and 20 on its own registration: 20 + 3 * 4 * 40 = 500 each ----
rm -f "$work/rec.dat"
"$tool" record -q -e 'user_events:Prov*' -o "$work/rec.dat" -- \
	"$prov" -n 20 -f 4 -r 3 Prov_L4K1 Prov_L5K2Gx >/dev/null 2>"$work/err"
rc=$?
[ $rc = 0 ] || fail "record, forks: exit $rc: $(cat "$work/err")"
"$tool" report "$work/rec.dat" >"$work/rep.txt"
expect "record -- CMD with forks" "$work/rep.txt" Prov_L4K1 500
expect "record -- CMD with forks" "$work/rep.txt" Prov_L5K2Gx 500

# ---- -p PROVIDER:LEVEL:KEYWORDS: level <= 4, keyword & 1 (or keyword 0) ----
rm -f "$work/rec.dat"
"$tool" record -q -p Prov:4:1 -o "$work/rec.dat" -- "$prov" -n 7 Prov_L4K1 Prov_L5K1 \
	Prov_L4K2 Prov_L4K0 Prov_L3K3Gx Other_L4K1 ProvX_L4K1 >/dev/null 2>"$work/err"
# The producer says 3: some of its events were (rightly) not enabled.
[ $? = 3 ] || fail "record -p: the producer's exit: $(cat "$work/err")"
"$tool" report "$work/rec.dat" >"$work/rep.txt"
for ev in Prov_L4K1 Prov_L4K0 Prov_L3K3Gx; do expect "record -p Prov:4:1" "$work/rep.txt" $ev 7; done
for ev in Prov_L5K1 Prov_L4K2 Other_L4K1 ProvX_L4K1; do expect "record -p Prov:4:1" "$work/rep.txt" $ev 0; done
"$tool" run -q -p 'Prov:4:x' -- true 2>"$work/err"
[ $? = 2 ] && grep -q 'not PROVIDER' "$work/err" && ok "run -p with a bad spec: usage (2)" ||
	fail "run -p Prov:4:x: $(cat "$work/err")"

# ---- -e GLOB -f FILTER: armed with its filter, set before the enable ----
"$tool" run -q -o "$work/run.txt" -e 'Prov_L5*' -f 'id < 3' -- "$prov" -n 5 Prov_L5K2Gx \
	>/dev/null 2>"$work/err"
rc=$?
[ $rc = 0 ] || fail "run -e -f: exit $rc: $(cat "$work/err")"
expect "run -e Prov_L5* -f 'id < 3'" "$work/run.txt" Prov_L5K2Gx 3

# ---- a glob that names nothing: harmless, said at the end (exit 4) ----
"$tool" run -q -o "$work/run.txt" -e Prov_L4K1 -e 'NoSuch*' -- "$prov" -n 5 Prov_L4K1 \
	>/dev/null 2>"$work/err"
rc=$?
[ $rc = 4 ] && grep -q "no event matched 'NoSuch\*'" "$work/err" &&
	ok "run -e NoSuch*: exit 4, said" || fail "run -e NoSuch*: exit $rc: $(cat "$work/err")"
expect "run -e NoSuch* -e Prov_L4K1" "$work/run.txt" Prov_L4K1 5

# ---- a stream on a mounted daemon: armed while it runs, disarmed by SIGKILL ----
"$daemon" "$mnt" || { echo "FAIL: usereventsd did not mount"; exit 1; }
stat_of() { sed -n "s/^$1: //p" "$mnt/usereventsd_stats"; }
"$tool" --tracefs "$mnt" stream -p Prov:4 >"$work/stream.txt" 2>/dev/null &
spid=$!
pids="$pids $spid"
i=0
until [ "$(stat_of armed_patterns)" = 1 ] || [ $i -ge 100 ]; do sleep 0.05; i=$((i + 1)); done
[ "$(stat_of armed_patterns)" = 1 ] || fail "stream -p: armed_patterns $(stat_of armed_patterns)"
USEREVENTS_TRACEFS=$mnt "$prov" -n 5 Prov_L4K1 Prov_L5K1 2>"$work/err"
[ $? = 3 ] || fail "stream -p Prov:4: the producer's exit: $(cat "$work/err")"
i=0
until [ "$(count "$work/stream.txt" Prov_L4K1)" = 5 ] || [ $i -ge 100 ]; do sleep 0.05; i=$((i + 1)); done
expect "stream -p Prov:4" "$work/stream.txt" Prov_L4K1 5
expect "stream -p Prov:4" "$work/stream.txt" Prov_L5K1 0
kill -KILL "$spid"
wait "$spid" 2>/dev/null
i=0
until [ "$(stat_of armed_patterns)" = 0 ] || [ $i -ge 100 ]; do sleep 0.05; i=$((i + 1)); done
[ "$(stat_of armed_patterns)" = 0 ] && ok "stream killed by SIGKILL: disarmed" ||
	fail "stream killed by SIGKILL: armed_patterns $(stat_of armed_patterns)"
USEREVENTS_TRACEFS=$mnt "$prov" -n 1 Prov_L4K1 2>/dev/null
[ $? = 3 ] && ok "after the stream: Prov_L4K1 registers disabled" ||
	fail "after the stream: Prov_L4K1 still armed"
# Gone (the producer's exit deletes it, a moment later): nothing enabled either.
en=$(cat "$mnt/events/user_events/Prov_L4K1/enable" 2>/dev/null) || en=0
[ "$en" = 0 ] && ok "after the stream: nothing left enabled" ||
	fail "after the stream: Prov_L4K1 enabled"

# ---- a stream's batch: a known event's record, then a new event's ----
# Seq_L4K1 is known to the stream (its format read once its first record
# came); each round writes it, then registers and writes a new event.  The
# stream read the tracefs again for a batch only until a known type came
# first: the new events' records were then dropped unless a 200 ms tick
# fell between their registration and the pass that read them (the stall
# of stream --format=text: 3 of 41 records); 8 rounds in one go.
"$tool" --tracefs "$mnt" stream -e 'Seq_*' >"$work/seq.txt" 2>/dev/null &
spid=$!
pids="$pids $spid"
i=0
until [ "$(stat_of armed_patterns)" = 1 ] || [ $i -ge 100 ]; do sleep 0.05; i=$((i + 1)); done
USEREVENTS_TRACEFS=$mnt "$prov" -n 1 Seq_L4K1 2>"$work/err" || fail "Seq_L4K1: $(cat "$work/err")"
i=0
until [ "$(count "$work/seq.txt" Seq_L4K1)" = 1 ] || [ $i -ge 100 ]; do sleep 0.05; i=$((i + 1)); done
for k in 2 3 4 5 6 7 8 9; do
	USEREVENTS_TRACEFS=$mnt "$prov" -n 1 Seq_L4K1 "Seq_L4K$k" 2>"$work/err" ||
		fail "Seq_L4K$k: $(cat "$work/err")"
done
i=0
until [ "$(grep -c ' Seq_L4K[2-9]: ' "$work/seq.txt")" = 8 ] || [ $i -ge 100 ]; do
	sleep 0.05
	i=$((i + 1))
done
kill -INT "$spid"
wait "$spid"
expect "stream: the known event" "$work/seq.txt" Seq_L4K1 9
[ "$(grep -c ' Seq_L4K[2-9]: ' "$work/seq.txt")" = 8 ] &&
	ok "stream: each new event's record after a known one's" ||
	fail "stream: new events after a known one: $(grep -c ' Seq_L4K[2-9]: ' "$work/seq.txt") of 8"

# ---- a type reused: a stream -e Zed_* saw Other's type, Other is deleted ----
# and Zed_L4Kk registered takes its type at once (the lowest free, as the
# kernel's): the stream renders Zed's records as Zed's, before any tick
# (it took them for Other's, not wanted, until its next tick; 0 of 3 in 5 of
# 6 rounds).  Two rounds; 0.5 s lets the stream's 200 ms tick see Other.
"$tool" --tracefs "$mnt" stream -e 'Zed_*' >"$work/zed.txt" 2>/dev/null &
spid=$!
pids="$pids $spid"
for k in 1 2; do
	echo 'u:Other u32 x' >>"$mnt/dynamic_events" || fail "dynamic_events: u:Other"
	sleep 0.5
	echo '!u:Other u32 x' >>"$mnt/dynamic_events" || fail "dynamic_events: !u:Other"
	USEREVENTS_TRACEFS=$mnt "$prov" -n 3 "Zed_L4K$k" 2>"$work/err" || fail "Zed_L4K$k: $(cat "$work/err")"
	i=0
	until [ "$(count "$work/zed.txt" "Zed_L4K$k")" = 3 ] || [ $i -ge 60 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	expect "stream, type of a deleted event reused" "$work/zed.txt" "Zed_L4K$k" 3
done
kill -INT "$spid"
wait "$spid"

umount "$mnt"
[ $fails = 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "all passed"
