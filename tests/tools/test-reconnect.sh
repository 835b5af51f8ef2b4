#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Programs outlive a daemon run by hand (issue 30, items 3 and 4): no
# keeper holds its FUSE connection, so when it dies every client sees it
# die.  In a private mount namespace, a usereventsd on $mnt and three
# producers of reconnect_producer at 1,000 writes/s: one through
# libuserevents (shared memory), one raw under libuserevents-preload.so
# (shared memory), one static (FUSE writes).  Both events enabled and
# recorded; then the daemon is stopped for 300 ms (its producers keep
# writing into rings nobody drains) and SIGKILLed, and separately SIGTERMed:
#   - the library's and the interposed program's enable bits are clear
#     within 1 s, under load (10 to 30 ms idle: nobody pays for writes
#     nobody reads);
#   - the static program's writes fail with ENOTCONN, as FUSE says for a
#     dead connection, at once: none takes 1 s (nothing hangs);
#   - a new usereventsd mounted at the same place: within 1 s of it serving
#     both events are registered there again, their bits clear (it has
#     them off); enabled, the bits are set and both are recorded again
#     within 1 s; disabled, the bits are clear again;
#   - what could not be written is counted: the library's
#     ue_provider_lost(), and the new daemon's native_lost_reconnect (both
#     programs told it) after the SIGKILL.
# Needs root and /dev/fuse (exit 77 otherwise).  In sanitizer builds (no
# interposer, no static program) the library producer alone.
#   test-reconnect.sh USEREVENTSD RECONNECT_PRODUCER PRELOAD|none STATIC|none
set -u
daemon=$1 producer=$2 preload=$3 static=$4

[ "$(id -u)" = 0 ] || { echo "SKIP: needs root"; exit 77; }
[ -c /dev/fuse ] || { echo "SKIP: no /dev/fuse"; exit 77; }
command -v unshare >/dev/null || { echo "SKIP: no unshare"; exit 77; }
if [ -z "${UE_RECONNECT_NS:-}" ]; then
	UE_RECONNECT_NS=1 exec unshare -m --propagation private -- "$0" "$@"
fi
. "$(dirname "$0")/workdir.sh"
workdir reconnect
unset LD_PRELOAD USEREVENTS_PRELOAD
export USEREVENTS_TRACEFS=$mnt
dpid=

# The status a producer publishes (reconnect_producer.c): FIELD of FILE.
st() {
	od -An -v -t u8 -w8 "$work/$1.st" | awk -v f="$2" '
		BEGIN { split("bit wrote refused skipped lost errno enotconn max_us", k, " ") }
		{ v[k[NR]] = $1 } END { print v[f] + 0 }'
}
now_ms() { echo $(($(date +%s%N) / 1000000)); }
# until MS COMMAND...: COMMAND succeeds within MS milliseconds.
until_ms() {
	end=$(($(now_ms) + $1))
	shift
	while ! "$@"; do
		[ "$(now_ms)" -lt "$end" ] || return 1
		sleep 0.01
	done
}
serving() { [ -e "$mnt/user_events_data" ] && [ -r "$mnt/usereventsd_stats" ]; }
serve() {
	"$daemon" -f "$mnt" 2>>"$work/daemon.err" &
	dpid=$!
	pids="$pids $dpid"
	until_ms 10000 serving || { echo "FAIL: usereventsd did not mount $mnt"; exit 1; }
}
registered() { grep -q "^$1\( \|$\)" "$mnt/user_events_status"; }
recorded() { [ "$(grep -c " $1: " "$mnt/trace")" -gt 0 ]; }
bit_is() { [ "$(st "$1" bit)" = "$2" ]; }
stat_of() { sed -n "s/^$1: //p" "$mnt/usereventsd_stats"; }

names="rc_lib"
serve
"$producer" lib 1000 30 rc_lib "$work/rc_lib.st" >"$work/rc_lib.out" 2>&1 &
pids="$pids $!"
if [ "$preload" != none ]; then
	names="$names rc_pre"
	LD_PRELOAD=$preload "$producer" raw 1000 30 rc_pre "$work/rc_pre.st" >"$work/rc_pre.out" 2>&1 &
	pids="$pids $!"
fi
if [ "$static" != none ]; then
	"$static" raw 1000 30 rc_static "$work/rc_static.st" >"$work/rc_static.out" 2>&1 &
	pids="$pids $!"
	until_ms 5000 registered rc_static || fail "the static producer registered"
fi
for n in $names; do
	until_ms 5000 registered $n || fail "$n registered"
done

for sig in KILL TERM; do
	echo 1 >"$mnt/events/user_events/enable" || fail "enable ($sig)"
	for n in $names; do
		until_ms 2000 recorded $n || fail "$n recorded before the $sig"
	done
	lost0=$(st rc_lib lost)
	if [ $sig = KILL ]; then
		# Stopped, then killed: what the producers wrote into their rings meanwhile is lost.
		kill -STOP "$dpid"
		sleep 0.3
	fi
	kill -$sig "$dpid"
	kill -CONT "$dpid" 2>/dev/null
	wait "$dpid"
	t_dead=$(now_ms)
	for n in $names; do
		until_ms 1000 bit_is $n 0 && ok "$sig: $n's bit clear $(($(now_ms) - t_dead)) ms after" ||
			fail "$sig: $n's bit still $(st $n bit) 1 s after the daemon died"
	done
	if [ "$static" != none ] && [ $sig = KILL ]; then
		n0=$(st rc_static enotconn)
		sleep 0.2
		n1=$(st rc_static enotconn)
		[ "$n1" -gt "$n0" ] && ok "static: ENOTCONN from a dead daemon's file ($n0 -> $n1)" ||
			fail "static: no ENOTCONN after the SIGKILL ($n0 -> $n1; errno $(st rc_static errno))"
	fi
	sleep 0.3
	serve
	t_new=$(now_ms)
	for n in $names; do
		until_ms 1000 registered $n && ok "$sig: $n registered again $(($(now_ms) - t_new)) ms after" ||
			fail "$sig: $n not registered with the new daemon within 1 s"
		until_ms 500 bit_is $n 0 || fail "$sig: $n's bit set, its event off in the new daemon"
	done
	echo 1 >"$mnt/events/user_events/enable" || fail "enable again ($sig)"
	t_on=$(now_ms)
	for n in $names; do
		until_ms 1000 bit_is $n 1 || fail "$sig: $n's bit not set once enabled"
		until_ms 1000 recorded $n && ok "$sig: $n recorded again $(($(now_ms) - t_on)) ms after" ||
			fail "$sig: $n not recorded within 1 s of the enable"
	done
	echo 0 >"$mnt/events/user_events/enable"
	for n in $names; do
		until_ms 1000 bit_is $n 0 || fail "$sig: $n's bit still set once disabled"
	done
	if [ $sig = KILL ]; then
		lost=$(($(st rc_lib lost) - lost0))
		[ "$lost" -gt 0 ] && ok "KILL: the library counted $lost lost" ||
			fail "KILL: the library counted nothing lost"
		told=$(stat_of native_lost_reconnect)
		[ "${told:-0}" -ge "$lost" ] && ok "KILL: native_lost_reconnect $told" ||
			fail "KILL: native_lost_reconnect '${told}', the library alone lost $lost"
		if [ "$preload" != none ]; then
			[ "${told:-0}" -gt "$lost" ] && ok "KILL: the interposed program told its losses" ||
				fail "KILL: the interposed program told nothing lost (stat ${told}, lib $lost)"
		fi
	fi
	if [ "$static" != none ]; then
		m=$(st rc_static max_us)
		[ "$m" -lt 1000000 ] && ok "$sig: static: the longest write took $m us" ||
			fail "$sig: static: a write took $m us"
	fi
done
cat "$work"/*.out 2>/dev/null
[ "$fails" = 0 ] || { cat "$work/daemon.err"; exit 1; }
exit 0
