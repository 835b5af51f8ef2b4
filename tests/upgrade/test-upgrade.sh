#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# usereventsd --upgrade (issue 30): a second daemon takes over the mount of
# a running one without unmounting it.  With a producer writing through
# FUSE at a steady rate and its event enabled:
#  - the mount stays the same mount (its id in mountinfo), the old daemon
#    exits, the new one serves the events, their enable state and the
#    records written before;
#  - nothing is refused and nothing is lost: record's file holds every
#    write of each producer, n = 0, 1, 2 ... with no gap, across two
#    upgrades in a row;
#  - a trace_pipe reader blocked in read() when the daemon changes gets the
#    records written after (the kernel sends its read again);
#  - a user who is not the daemon's may not take it: refused, and the old
#    daemon serves on.
# The producers are of the three kinds: a raw-ABI program writing through
# FUSE, the same program interposed (libuserevents-preload.so: the native
# path's shared-memory rings) and a libuserevents program; a `userevents
# record` attached before the upgrades reads through a consumer channel and
# must end with every record of each, none lost, its closing line, exit 0.
# Needs root and /dev/fuse: exit 77 otherwise.
# In sanitizer builds (PRELOAD is "none") the interposed producer is left out.
# Usage: test-upgrade.sh USEREVENTSD RATE_PRODUCER LIB_RATE USEREVENTS PRELOAD|none
set -u
daemon=$1
producer=$2
lib_rate=$3
tool=$4
preload=$5

[ "$(id -u)" = 0 ] || { echo "SKIP: needs root"; exit 77; }
[ -c /dev/fuse ] || { echo "SKIP: no /dev/fuse"; exit 77; }
command -v unshare >/dev/null || { echo "SKIP: no unshare"; exit 77; }
if [ -z "${UE_UPGRADE_NS:-}" ]; then
	UE_UPGRADE_NS=1 exec unshare -m --propagation private -- "$0" "$@"
fi
W=$(mktemp -d "${TMPDIR:-/tmp}/ue-upgrade.XXXXXX") || exit 1
M=$W/mnt
mkdir "$M"
pids=
trap 'for p in $pids; do kill $p 2>/dev/null; done; pkill -f -- "$M" 2>/dev/null; umount -l "$M" 2>/dev/null; rm -rf "$W"' EXIT
fails=0
ok() { echo "ok - $1"; }
no() { echo "not ok - $1"; fails=$((fails + 1)); }
mount_id() { awk -v m="$M" '$5 == m { print $1 }' /proc/self/mountinfo; }
# Alive: there, and not a zombie yet to be reaped.
alive() { kill -0 "$1" 2>/dev/null && ! grep -q '^[0-9]* (.*) Z ' "/proc/$1/stat" 2>/dev/null; }
# Gone within 5 s (the old daemon exits once its successor's answer came).
gone() { i=0; while alive "$1" && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done; ! alive "$1"; }
# The n of every record of EVENT in FILE ("n=0x5 (5)"): "records R
# distinct D span S" (S: last - first + 1); N writes with no loss and no
# duplicate are "records N distinct N span N".  Order is not asked: records a
# producer wrote while the daemons changed hands are drained later, and the
# buffer raises a late record's time stamp to keep each CPU's ring in order.
gaps() {
	grep " $1: " "$2" | sed 's/.* n=0x[0-9a-f]* (\([0-9]*\)).*/\1/' | sort -n |
		awk 'NR == 1 { f = $1 } NR > 1 && $1 != p { d++ } NR == 1 { d = 1 } { p = $1 }
		     END { printf "records %d distinct %d span %d\n", NR, d, NR ? p - f + 1 : 0 }'
}
whole() { echo "records $1 distinct $1 span $1"; }

"$daemon" -f "$M" 2> "$W/d0.err" & d0=$!
pids="$d0"
for i in $(seq 50); do [ -e "$M/user_events_data" ] && break; sleep 0.1; done
id0=$(mount_id)

USEREVENTS_TRACEFS=$M "$tool" record -o "$W/rec.dat" -e 'up_*' -e 'lib_*' > "$W/rec.out" 2> "$W/rec.err" & rec=$!
pids="$pids $rec"
for i in $(seq 50); do grep -q 'waiting\|recording' "$W/rec.err" 2>/dev/null && break; sleep 0.1; done
# CLOCK_MONOTONIC, the trace clock, as the kernel says it (root only).
mono_ns() { sed -n 's/^now at \([0-9]*\) nsecs$/\1/p;/^now at/q' /proc/timer_list 2>/dev/null; }
m0=$(mono_ns)
USEREVENTS_TRACEFS=$M "$producer" 500 4 up_tick > "$W/prod.out" 2>&1 & prod=$!
if [ "$preload" != none ]; then
	USEREVENTS_TRACEFS=$M LD_PRELOAD=$preload "$producer" 500 4 up_pre > "$W/pre.out" 2>&1 & pre=$!
else
	pre=
fi
USEREVENTS_TRACEFS=$M "$lib_rate" 500 4 > "$W/lib.out" 2>&1 & lib=$!
pids="$pids $prod ${pre:-} $lib"
for i in $(seq 50); do [ -e "$M/events/user_events/up_tick/enable" ] && break; sleep 0.1; done
sleep 1

"$daemon" --upgrade -f "$M" 2> "$W/d1.err" & d1=$!
pids="$pids $d1"
sleep 1
gone "$d0" && ok "the old daemon exits once the new one serves" || no "the old daemon exits once the new one serves"
alive "$d1" && ok "the new daemon serves" || { no "the new daemon serves"; cat "$W/d1.err"; }
[ "$(mount_id)" = "$id0" ] && ok "the same mount ($id0), never unmounted" ||
	no "the mount changed: $id0 -> $(mount_id)"
[ "$(cat "$M/events/user_events/up_tick/enable")" = 1 ] && ok "the event is still enabled" ||
	no "the event's enable state was lost"
grep -q '^up_tick' "$M/user_events_status" && ok "user_events_status lists the event" ||
	no "user_events_status lost the event"

"$daemon" --upgrade -f "$M" 2> "$W/d2.err" & d2=$!
pids="$pids $d2"
sleep 0.5
gone "$d1" && ok "a second upgrade: the first successor exits" || no "a second upgrade: the first successor exits"
wait "$prod" ${pre:+"$pre"} "$lib"
m1=$(mono_ns)
sleep 0.5
kill -INT "$rec"
wait "$rec"; rc=$?
[ "$rc" = 0 ] && grep -q ' events, .* 0 dropped$' "$W/rec.err" && ! grep -q 'not connected' "$W/rec.err" &&
	ok "record across two upgrades ends with its closing line, exit 0: $(tail -1 "$W/rec.err")" ||
	{ no "record across the upgrades: exit $rc"; sed 's/^/#   /' "$W/rec.err"; }
"$tool" report "$W/rec.dat" > "$W/rec.txt" 2> "$W/report.err" || no "report of record's file"
evs="up_tick lib_tick"
[ -n "$pre" ] && evs="up_tick up_pre lib_tick" ||
	echo "# up_pre: left out (a sanitizer build: the interposer cannot come first)"
for ev in $evs; do
	case $ev in up_tick) f=prod.out ;; up_pre) f=pre.out ;; lib_tick) f=lib.out ;; esac
	set -- $(sed -n 's/^wrote \([0-9]*\) (\([0-9]*\) refused).*/\1 \2/p' "$W/$f")
	g=$(gaps "$ev" "$W/rec.txt")
	echo "# $ev: $(cat "$W/$f"); recorded: $g"
	[ "${2:-x}" = 0 ] && [ "$g" = "$(whole "$1")" ] &&
		ok "$ev: every write recorded by record across the upgrades ($1), none refused" ||
		{ no "$ev: recorded $g of ${1:-?} written, ${2:-?} refused";
		  grep " $ev: " "$W/rec.txt" | sed 's/.* n=0x[0-9a-f]* (\([0-9]*\)).*/\1/' | sort -n |
			awk 'NR > 1 && $1 != p + 1 { print "#   after " p ": " $1 } { p = $1 }' | head -5; }
done
# Every record carries the trace clock across both upgrades, the native
# producers' too (stamped with the CPU's counter where the kernel keeps time
# with it, each daemon turning it into CLOCK_MONOTONIC as it drains,
# lib.md): between the clock read (the kernel's timer_list) before the
# producers started and after they ended.  A successor that read a ring's
# ticks as nanoseconds would put them hours away.
stamps() { awk -v e="$1:" '{ for (i = 2; i <= NF; i++) if ($i == e) { t = $(i - 1); sub(/:$/, "", t); print t } }' "$2" | sort -n; }
if [ -n "$m0" ] && [ -n "$m1" ]; then
	for ev in $evs; do
		t0=$(stamps "$ev" "$W/rec.txt" | head -1) t1=$(stamps "$ev" "$W/rec.txt" | tail -1)
		[ -n "$t0" ] && awk -v a="$m0" -v b="$m1" -v x="$t0" -v y="$t1" \
			'BEGIN { exit !(x >= a / 1e9 && y <= b / 1e9) }' &&
			ok "$ev: its records' times ($t0 to $t1) within the producers' run" ||
			no "$ev: its records at ${t0:-?} to ${t1:-?}, the producers ran from $m0 to $m1 ns"
	done
else
	echo "# the records' times: left out (no /proc/timer_list)"
fi
# A reader parked in trace_pipe's read() gets what is written after an upgrade.
timeout 4 cat "$M/trace_pipe" > "$W/pipe" & reader=$!
pids="$pids $reader"
sleep 0.5
USEREVENTS_TRACEFS=$M "$producer" 200 3 up_pipe > "$W/prod2.out" 2>&1 & prod=$!
for i in $(seq 50); do [ -e "$M/events/user_events/up_pipe/enable" ] && break; sleep 0.1; done
echo 1 > "$M/events/user_events/up_pipe/enable"
sleep 0.5
# This one detached, as a service's ExecReload runs it, and told through
# NOTIFY_SOCKET (systemd's protocol) which process serves now.
python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
s.settimeout(20)
print(s.recv(256).decode())
' "$W/notify" > "$W/notify.out" & np=$!
for i in $(seq 50); do [ -S "$W/notify" ] && break; sleep 0.1; done
NOTIFY_SOCKET=$W/notify "$daemon" --upgrade "$M" 2> "$W/d3.err"; urc=$?
wait "$np"
d3=$(sed -n 's/^MAINPID=\([0-9]*\)$/\1/p' "$W/notify.out")
pids="$pids ${d3:-} $prod"
[ "$urc" = 0 ] && [ -n "$d3" ] && alive "$d3" && gone "$d2" &&
	ok "--upgrade detached: exit 0 once the new daemon serves, MAINPID=$d3 told, the old one gone" ||
	no "--upgrade detached: exit $urc, notify '$(cat "$W/notify.out")'"
wait "$prod"
wait "$reader"
set -- $(sed -n 's/^wrote \([0-9]*\) (\([0-9]*\) refused)$/\1 \2/p' "$W/prod2.out")
g=$(gaps up_pipe "$W/pipe")
echo "# trace_pipe: written ${1:-?}, $g"
[ "$g" = "$(whole "${1:-0}")" ] &&
	ok "a trace_pipe reader across an upgrade gets every record ($1)" ||
	no "trace_pipe across an upgrade: $g of ${1:-?} written"

# Only root or the daemon's own user may take it over.
if command -v setpriv >/dev/null; then
	if setpriv --reuid=65534 --regid=65534 --clear-groups "$daemon" --upgrade -f "$M" \
		> "$W/nobody.out" 2>&1; then
		no "a user who is not the daemon's took it over"
	else
		ok "another user is refused: $(head -1 "$W/nobody.out")"
	fi
	alive "$d3" && [ -e "$M/user_events_data" ] && ok "the daemon serves on after a refusal" ||
		no "the daemon stopped serving after a refused upgrade"
fi

kill "$d3"
for i in $(seq 50); do alive "$d3" || break; sleep 0.1; done
[ -z "$(mount_id)" ] && ok "the last daemon unmounts at SIGTERM" || no "still mounted after SIGTERM"
# No upgrade: the daemon is killed under a recording.  Having looked for
# another for 1 s (--reattach 1), record ends with its closing line (no
# bare ENOTCONN), exit 1, and its file ends with a loss of unknown count on
# every CPU.
"$daemon" -f "$M" 2> "$W/d4.err" & d4=$!
pids="$pids $d4"
for i in $(seq 50); do [ -e "$M/user_events_data" ] && break; sleep 0.1; done
USEREVENTS_TRACEFS=$M "$tool" record --reattach 1 -o "$W/gone.dat" -e 'up_*' > /dev/null 2> "$W/gone.err" & rec=$!
for i in $(seq 50); do grep -q 'waiting' "$W/gone.err" 2>/dev/null && break; sleep 0.1; done
USEREVENTS_TRACEFS=$M "$producer" 500 2 up_gone > /dev/null 2>&1 & prod=$!
pids="$pids $rec $prod"
sleep 1
kill -9 "$d4"
wait "$rec"; rc=$?
wait "$prod"
umount -l "$M" 2>/dev/null
if [ "$rc" = 1 ] && grep -q 'again in time: the trace ends here$' "$W/gone.err" &&
	grep -q ' dropped; then the daemon went away: what came after is lost, count unknown$' "$W/gone.err" &&
	! grep -q 'not connected' "$W/gone.err"; then
	ok "record whose daemon was killed: its closing line, exit 1"
else
	no "record whose daemon was killed: exit $rc"; sed 's/^/#   /' "$W/gone.err"
fi
"$tool" report "$W/gone.dat" > "$W/gone.txt" 2>&1
[ "$(grep -c '^CPU:[0-9]* \[LOST EVENTS\]$' "$W/gone.txt")" = "$(nproc)" ] &&
	ok "its file ends with a loss of unknown count on each of $(nproc) CPUs" ||
	{ no "no loss marked at the end"; tail -3 "$W/gone.txt" | sed 's/^/#   /'; }

for f in d0 d1 d2 d3; do
	[ -s "$W/$f.err" ] && { echo "# $f said:"; sed 's/^/#   /' "$W/$f.err"; }
done
[ "$fails" = 0 ]
