#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# A crash blinds no program for more than a second (issue 30, item 2):
# usereventsd --keep (the keeper that stands in for systemd's fd store and
# Restart=: the same protocol, daemon/keeper.h) holds the mount's
# connection and the daemon's checkpoint; the daemon is killed with SIGKILL
# twice while three producers write 500 events a second each (a raw-ABI
# program through FUSE, the same program interposed, a libuserevents
# program) and a trace_pipe reader reads:
#  - a new daemon serves within 1 s each time, the same mount (its id in
#    mountinfo), with the events, their enable state, the open files;
#  - every producer goes on: none refused, its last write read, at most a
#    few records lost per crash (what the dead daemon held), and the reader
#    sees the gap in-band ("CPU:N [LOST EVENTS]", as the kernel says a loss
#    of unknown count); usereventsd_stats counts the restarts;
#  - enable bits are not stale: disabling an event after the crashes stops
#    the FUSE producer's writes, enabling it again starts them;
#  - SIGTERM to the keeper ends the daemon and unmounts.
# Needs root and /dev/fuse: exit 77 otherwise.  In sanitizer builds (PRELOAD
# is "none") the interposed producer is left out.
# Usage: test-crash.sh USEREVENTSD RATE_PRODUCER LIB_RATE PRELOAD|none
set -u
daemon=$1
producer=$2
lib_rate=$3
preload=$4

[ "$(id -u)" = 0 ] || { echo "SKIP: needs root"; exit 77; }
[ -c /dev/fuse ] || { echo "SKIP: no /dev/fuse"; exit 77; }
command -v unshare >/dev/null || { echo "SKIP: no unshare"; exit 77; }
if [ -z "${UE_CRASH_NS:-}" ]; then
	UE_CRASH_NS=1 exec unshare -m --propagation private -- "$0" "$@"
fi
W=$(mktemp -d "${TMPDIR:-/tmp}/ue-crash.XXXXXX") || exit 1
M=$W/mnt
mkdir "$M"
pids=
trap 'for p in $pids; do kill $p 2>/dev/null; kill -CONT $p 2>/dev/null; done; umount -l "$M" 2>/dev/null; rm -rf "$W"' EXIT
# Killed by meson's timeout: the keeper goes too (dash runs the EXIT trap only on exit).
trap 'exit 1' INT TERM
fails=0
ok() { echo "ok - $1"; }
no() { echo "not ok - $1"; fails=$((fails + 1)); }
mount_id() { awk -v m="$M" '$5 == m { print $1 }' /proc/self/mountinfo; }
alive() { kill -0 "$1" 2>/dev/null && ! grep -q '^[0-9]* (.*) Z ' "/proc/$1/stat" 2>/dev/null; }
# Bounded: a mount nobody serves would block the read for ever.
stat_of() { timeout 5 sed -n "s/^$1: //p" "$M/usereventsd_stats"; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }
# The n of every record of EVENT in FILE: "distinct D last L".
seen() {
	grep " $1: " "$2" | sed 's/.* n=0x[0-9a-f]* (\([0-9]*\)).*/\1/' | sort -n | uniq |
		awk '{ d++; l = $1 } END { printf "distinct %d last %d\n", d, d ? l : -1 }'
}

"$daemon" --keep -f "$M" 2> "$W/keeper.err" & keeper=$!
pids="$keeper"
for i in $(seq 50); do [ -e "$M/user_events_data" ] && break; sleep 0.1; done
id0=$(mount_id)
[ -n "$id0" ] && ok "the keeper's daemon serves" || { no "no mount"; cat "$W/keeper.err"; exit 1; }

USEREVENTS_TRACEFS=$M "$producer" 500 5 cr_fuse > "$W/fuse.out" 2>&1 & pf=$!
if [ "$preload" != none ]; then
	USEREVENTS_TRACEFS=$M LD_PRELOAD=$preload "$producer" 500 5 cr_pre > "$W/pre.out" 2>&1 & pp=$!
else
	pp=
fi
USEREVENTS_TRACEFS=$M "$lib_rate" 500 5 > "$W/lib.out" 2>&1 & pl=$!
pids="$pids $pf ${pp:-} $pl"
evs="cr_fuse lib_tick"
[ -n "$pp" ] && evs="cr_fuse cr_pre lib_tick" ||
	echo "# cr_pre: left out (a sanitizer build: the interposer cannot come first)"
for ev in $evs; do
	for i in $(seq 50); do [ -e "$M/events/user_events/$ev/enable" ] && break; sleep 0.1; done
	echo 1 > "$M/events/user_events/$ev/enable"
done
timeout 15 cat "$M/trace_pipe" > "$W/pipe" & reader=$!
pids="$pids $reader"
sleep 1

for crash in 1 2; do
	d=$(pgrep -P "$keeper")
	t0=$(now_ms)
	kill -9 "$d"
	served=
	while [ $(($(now_ms) - t0)) -lt 3000 ]; do
		[ "$(stat_of restarts 2>/dev/null)" = "$crash" ] && { served=$(($(now_ms) - t0)); break; }
		sleep 0.01
	done
	[ -n "$served" ] && [ "$served" -lt 1000 ] &&
		ok "crash $crash: served again in $served ms (under 1 s)" ||
		no "crash $crash: served again in ${served:-no} ms"
	[ "$(mount_id)" = "$id0" ] && ok "crash $crash: the same mount ($id0)" ||
		no "crash $crash: the mount changed: $id0 -> $(mount_id)"
	ok=1
	for ev in $evs; do
		[ "$(cat "$M/events/user_events/$ev/enable")" = 1 ] || ok=
	done
	[ -n "$ok" ] && ok "crash $crash: every event still there and enabled" ||
		{ no "crash $crash: an event or its enable state was lost"; cat "$M/user_events_status"; }
	sleep 1
done

wait "$pf" ${pp:+"$pp"} "$pl"
sleep 0.3
for ev in $evs; do
	case $ev in cr_fuse) f=fuse.out ;; cr_pre) f=pre.out ;; lib_tick) f=lib.out ;; esac
	set -- $(sed -n 's/^wrote \([0-9]*\) (\([0-9]*\) refused).*/\1 \2/p' "$W/$f")
	s=$(seen "$ev" "$W/pipe")
	echo "# $ev: $(cat "$W/$f"); read: $s"
	set -- "${1:-0}" "${2:-x}" $s
	# rate_producer's n is its tick (2500 in 5 s, fewer when a wake-up
	# late under load ends its loop first: it says its last), lib_rate's
	# its write: the last one is read; two crashes may take what the dead daemons held
	# and, for the native path, what its rings took until the producer saw
	# the new daemon (a few ms alone, 0.2 s a crash under a loaded make
	# check; counted: native_lost_reconnect): a fifth at most.
	[ "$ev" = lib_tick ] && last=$(($1 - 1)) || last=$(sed -n 's/^# last tick //p' "$W/$f")
	[ "$2" = 0 ] && [ "$6" = "$last" ] && [ "$4" -ge $(($1 * 4 / 5)) ] &&
		ok "$ev: kept writing across both crashes, none refused, $4 of $1 read" ||
		no "$ev: $4 of $1 read, last $6, $2 refused"
done
[ "$(grep -c '^CPU:[0-9]* \[LOST EVENTS\]$' "$W/pipe")" -ge 1 ] &&
	ok "the reader sees each crash's loss in-band: $(grep -c 'LOST EVENTS' "$W/pipe") marks" ||
	no "no loss marked in trace_pipe"
echo "# the native producers' losses they told the new daemons: $(stat_of native_lost_reconnect)"
[ "$(stat_of restarts)" = 2 ] && [ "$(stat_of checkpoints)" -ge 1 ] &&
	ok "usereventsd_stats: restarts 2, checkpoints $(stat_of checkpoints), $(stat_of checkpoint_bytes) bytes" ||
	no "usereventsd_stats: restarts $(stat_of restarts)"

# Enable bits are the daemon's, not a stale copy: off stops the writes, on starts them.
USEREVENTS_TRACEFS=$M "$producer" 200 3 cr_fuse > "$W/fuse2.out" 2>&1 & pf=$!
pids="$pids $pf"
sleep 1
echo 0 > "$M/events/user_events/cr_fuse/enable"
sleep 1
echo 1 > "$M/events/user_events/cr_fuse/enable"
wait "$pf"
set -- $(sed -n 's/^wrote \([0-9]*\) (\([0-9]*\) refused).*/\1 \2/p' "$W/fuse2.out")
# 3 s at 200/s, 1 s of it disabled: about 400 writes.
# A write racing the disable gets EBADF, as on the kernel: a few may be refused.
[ "${2:-99}" -lt 10 ] && [ "${1:-0}" -ge 300 ] && [ "${1:-0}" -le 500 ] &&
	ok "disabling the event after the crashes stops its writes: $1 in 3 s at 200/s, 1 s off" ||
	no "enable bits after the crashes: wrote ${1:-?} (${2:-?} refused) in 3 s at 200/s, 1 s off"

# Another user may not talk to the keeper: a "nobody" who learns its socket
# (root's /proc/PID/environ) and asks it to drop what it holds, to follow
# another process or to take a descriptor is not heard; the next crash is
# a crash like the others.
d=$(pgrep -P "$keeper")
ns=$(tr '\0' '\n' < "/proc/$d/environ" | sed -n 's/^NOTIFY_SOCKET=//p')
# The system's python3: a user's own (pyenv) may not be nobody's to run.
py=/usr/bin/python3
if command -v setpriv >/dev/null && [ -x "$py" ] && [ -n "$ns" ]; then
	setpriv --reuid=65534 --regid=65534 --clear-groups "$py" -c '
import socket, sys
name = sys.argv[1]
addr = "\0" + name[1:] if name.startswith("@") else name
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
for msg in (b"FDSTOREREMOVE=1\nFDNAME=fuse", b"FDSTOREREMOVE=1\nFDNAME=state", b"MAINPID=1",
            b"STOPPING=1"):
    s.sendto(msg, addr)
r, w = socket.socketpair()
s.sendmsg([b"FDSTORE=1\nFDNAME=fuse"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS,
                                            __import__("array").array("i", [r.fileno()]))], 0, addr)
' "$ns" 2> "$W/nobody.err" && sent=1 || sent=
	sleep 0.2
	kill -9 "$d"
	served=
	t0=$(now_ms)
	while [ $(($(now_ms) - t0)) -lt 3000 ]; do
		[ "$(stat_of restarts 2>/dev/null)" = 3 ] && { served=$(($(now_ms) - t0)); break; }
		sleep 0.01
	done
	[ -n "$sent" ] && [ -n "$served" ] && [ "$(mount_id)" = "$id0" ] &&
		ok "another user's words to the keeper are not heard: the next crash is served again in $served ms" ||
		{ no "after another user's words to the keeper (sent: ${sent:-no}): served ${served:-no}"; cat "$W/nobody.err"; }
	restarts=3
else
	echo "# another user and the keeper: left out (no setpriv or python3)"
	restarts=2
fi

# An upgrade under the keeper: it follows the new daemon (MAINPID=, told by
# the old one), and a crash of that one is a crash like the others.  The
# keeper is stopped meanwhile, so that it wakes to the old daemon's MAINPID=
# and its death at once: that death is not the new one's (it once started
# a second daemon on the same connection, whose files the other did not
# know: EBADF for a read of a file the other opened).
d=$(pgrep -P "$keeper")
said=$(grep -c 'starting again' "$W/keeper.err")
kill -STOP "$keeper"
"$daemon" --upgrade -f "$M" 2> "$W/up.err" & up=$!
pids="$pids $up"
for i in $(seq 50); do alive "$d" || break; sleep 0.1; done
kill -CONT "$keeper"
sleep 0.3
! alive "$d" && alive "$up" && [ "$(stat_of upgrades)" = 1 ] &&
	[ "$(grep -c 'starting again' "$W/keeper.err")" = "$said" ] && [ "$(stat_of restarts)" = "$restarts" ] &&
	ok "an upgrade under the keeper: the old daemon exits, the new one serves, no other is started" ||
	{ no "an upgrade under the keeper"; cat "$W/up.err"; }
t0=$(now_ms)
kill -9 "$up"
served=
while [ $(($(now_ms) - t0)) -lt 3000 ]; do
	[ "$(stat_of restarts 2>/dev/null)" = $((restarts + 1)) ] && { served=$(($(now_ms) - t0)); break; }
	sleep 0.01
done
[ -n "$served" ] && [ "$served" -lt 1000 ] && [ "$(stat_of upgrades)" = 1 ] &&
	[ "$(cat "$M/events/user_events/cr_fuse/enable")" = 1 ] &&
	ok "the upgraded daemon killed: served again in $served ms, the event still enabled" ||
	no "the upgraded daemon killed: served again in ${served:-no} ms"

kill "$keeper"
for i in $(seq 50); do alive "$keeper" || break; sleep 0.1; done
! alive "$keeper" && [ -z "$(mount_id)" ] && ok "SIGTERM to the keeper: the daemon ends, unmounted" ||
	no "the keeper or its mount outlived SIGTERM"
wait "$reader" 2>/dev/null
echo "# the keeper said:"
sed 's/^/#   /' "$W/keeper.err"
[ "$fails" = 0 ]
