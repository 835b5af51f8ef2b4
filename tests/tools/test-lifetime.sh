#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Nothing outlives the tool (issue 18, items 1 and 4): run and stream ended by
# a closed pipe (| head), by SIGHUP or by SIGKILL leave no private
# usereventsd, no directory, no mount and no event enabled; a second
# usereventsd on a live mount is refused (--replace detaches the first), a
# dead one's mount is still recovered; an unmount ends the daemon at once,
# unless another mount namespace holds a copy of the mount: it then serves
# that copy, says so, and ends with it (issue 24).
# Needs root and /dev/fuse (77 otherwise).
#
#   test-lifetime.sh USEREVENTS USEREVENTSD USER_EVENTS_EXAMPLE
set -u
tool=$1
daemon=$2
example=$3

[ "$(id -u)" = 0 ] || { echo "SKIP: needs root"; exit 77; }
[ -c /dev/fuse ] || { echo "SKIP: no /dev/fuse"; exit 77; }
if [ -z "${UE_LIFETIME_NS:-}" ]; then
	UE_LIFETIME_NS=1 exec unshare -m --propagation private -- "$0" "$@"
fi

. "$(dirname "$0")/workdir.sh"
workdir lifetime
unset USEREVENTS_TRACEFS

# What a private daemon could leave: its process, its directory, a mount of
# it in any mount namespace a live process has.
leftovers() {
	left=""
	pgrep -f "usereventsd.*$TMPDIR" >/dev/null && left="$left process"
	[ -n "$(ls -A "$TMPDIR")" ] && left="$left directory($(ls -A "$TMPDIR" | tr '\n' ' '))"
	grep -qs "$TMPDIR" /proc/[0-9]*/mountinfo && left="$left mount"
	echo "$left"
}

# expect_clean WHAT: leftovers gone within 5 s
expect_clean() {
	i=0
	while [ -n "$(leftovers)" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	left=$(leftovers)
	if [ -z "$left" ]; then ok "$1: nothing left"; else
		fail "$1: left behind:$left"
		pkill -f "usereventsd.*$TMPDIR"
		sleep 0.5
		rm -rf "${TMPDIR:?}"/*
	fi
}

# wait_private: the private daemon of a run in the background serves
wait_private() {
	i=0
	until pgrep -f "usereventsd.*$TMPDIR" >/dev/null && [ -n "$(ls -A "$TMPDIR")" ] ||
		[ $i -ge 100 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	sleep 0.3
}

# ---- run ended by a closed pipe -----------------------------------------
# run's output goes first: head takes one line and leaves; run gets SIGPIPE.
timeout 30 sh -c '"$1" run -- "$2" /sys/kernel/tracing 20 2>"$3" | head -1 >/dev/null' \
	sh "$tool" "$example" "$work/head.err"
[ $? = 124 ] && fail "run | head -1: still running after 30 s"
# The reader that went away is the end, not an error.
grep -q 'Broken pipe' "$work/head.err" && fail "run | head -1: $(grep 'Broken pipe' "$work/head.err")"
expect_clean "run -- CMD | head -1"

# ---- run killed by SIGHUP, then by SIGKILL --------------------------------
for sig in HUP KILL; do
	"$tool" run -q -- "$example" /sys/kernel/tracing 3 >/dev/null 2>&1 &
	runpid=$!
	pids="$pids $runpid"
	wait_private
	pgrep -f "usereventsd.*$TMPDIR" >/dev/null || fail "SIG$sig: no private daemon seen"
	kill -s "$sig" "$runpid"
	wait "$runpid" 2>/dev/null
	# After SIGKILL the command lives on (3 s) and ends by itself.
	expect_clean "run killed by SIG$sig"
done

# ---- record -- CMD, its whole process group signaled ----------------------
# A ^C, a hang-up or timeout(1) signals the group: record, its private
# daemon and CMD.  The daemon is not in the group: record reads what it
# holds, closes the file and ends it.
for sig in INT TERM HUP; do
	setsid "$tool" record -o "$work/g.dat" -- "$example" /sys/kernel/tracing 30 \
		> "$work/g.out" 2>&1 &
	gpid=$!
	pids="$pids $gpid"
	wait_private
	i=0
	until grep -qx "user_events_exa" /proc/[0-9]*/comm 2>/dev/null || [ $i -ge 100 ]; do
		sleep 0.05; i=$((i + 1))
	done
	sleep 1
	pg=$(ps -o pgid= -p "$gpid" | tr -d ' ')
	[ -n "$pg" ] && kill -s "$sig" -- "-$pg"
	wait "$gpid" 2>/dev/null
	grep -q "record: [0-9]* events, .* dropped" "$work/g.out" &&
	    ! grep -q "not connected" "$work/g.out" &&
	    [ "$("$tool" report "$work/g.dat" 2>/dev/null | grep -c example_tick)" -gt 0 ] &&
		ok "record -- CMD, group killed by SIG$sig: the file is closed with its events" ||
		{ fail "record -- CMD, group killed by SIG$sig: $(tr '\n' '|' < "$work/g.out")"; }
	expect_clean "record -- CMD, group killed by SIG$sig"
done

# ---- a mounted daemon: stream's enables end with stream -------------------
"$daemon" "$mnt" || { echo "FAIL: usereventsd did not mount"; exit 1; }
"$example" "$mnt" 60 >/dev/null &
pids="$pids $!"
i=0
while ! grep -q example_tick "$mnt/user_events_status" 2>/dev/null && [ $i -lt 100 ]; do
	sleep 0.05
	i=$((i + 1))
done
en=$mnt/events/user_events/example_tick/enable
flt=$mnt/events/user_events/example_tick/filter

# wait_enabled: the stream in the background enabled the event
wait_enabled() {
	i=0
	until [ "$(cat "$en")" = 1 ] || [ $i -ge 100 ]; do sleep 0.05; i=$((i + 1)); done
}

timeout 30 sh -c '"$1" --tracefs "$2" stream -e example_tick -f "count > 0" | head -2 >/dev/null' \
	sh "$tool" "$mnt"
[ "$(cat "$en")" = 0 ] && ok "stream | head -2: example_tick disabled again" ||
	fail "stream | head -2 left example_tick enabled"
[ "$(cat "$flt")" = none ] && ok "stream | head -2: filter cleared" ||
	fail "stream | head -2 left the filter: $(cat "$flt")"

for sig in HUP KILL; do
	"$tool" --tracefs "$mnt" stream -e example_tick -f "count > 0" >/dev/null 2>&1 &
	spid=$!
	wait_enabled
	[ "$(cat "$en")" = 1 ] || fail "stream never enabled example_tick"
	kill -s "$sig" "$spid"
	wait "$spid" 2>/dev/null
	i=0
	while [ "$(cat "$en")" != 0 ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	[ "$(cat "$en")" = 0 ] && ok "stream killed by SIG$sig: example_tick disabled again" ||
		fail "stream killed by SIG$sig left example_tick enabled"
	[ "$(cat "$flt")" = none ] && ok "stream killed by SIG$sig: filter cleared" ||
		fail "stream killed by SIG$sig left the filter: $(cat "$flt")"
done

# wait_session PID: the stream opened usereventsd_session (right before it
# enables through it), and had time to write.
wait_session() {
	i=0
	until ls -l "/proc/$1/fd" 2>/dev/null | grep -q usereventsd_session || [ $i -ge 100 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	ls -l "/proc/$1/fd" 2>/dev/null | grep -q usereventsd_session ||
		fail "stream $1 never opened usereventsd_session"
	sleep 1
}

# Two streams share an enable: it stays on until the last one ends.
"$tool" --tracefs "$mnt" stream -e example_tick >/dev/null 2>&1 &
s1=$!
wait_enabled
# (trace_pipe has one reader at a time: the second reads trace_pipe_raw.)
"$tool" --tracefs "$mnt" stream --json -e example_tick >/dev/null 2>&1 &
s2=$!
wait_session "$s2"
kill -KILL "$s1"
wait "$s1" 2>/dev/null
sleep 0.5
[ "$(cat "$en")" = 1 ] && ok "two streams: the second keeps example_tick on" ||
	fail "two streams: the first one's end disabled the second's event"
kill -TERM "$s2"
wait "$s2" 2>/dev/null
[ "$(cat "$en")" = 0 ] && ok "two streams: off after the last" ||
	fail "two streams: example_tick still enabled after both ended"

# An enable made by hand is not a stream's to undo.
echo 1 >"$en"
"$tool" --tracefs "$mnt" stream -e example_tick >/dev/null 2>&1 &
s1=$!
wait_session "$s1"
kill -KILL "$s1"
wait "$s1" 2>/dev/null
sleep 0.3
[ "$(cat "$en")" = 1 ] && ok "an enable by hand survives a stream" ||
	fail "a stream disabled an event enabled by hand"
echo 0 >"$en"

# The session file as documented: one command per write, undone at close.
exec 3>"$mnt/usereventsd_session"
printf 'enable user_events/example_tick' >&3
[ "$(cat "$en")" = 1 ] || fail "usereventsd_session: enable did not enable"
grep -qx 'enable user_events/example_tick' "$mnt/usereventsd_session" 2>/dev/null &&
	fail "usereventsd_session: another descriptor shows this one's holds"
printf 'enable user_events/nosuch' >&3 2>/dev/null && fail "usereventsd_session: enable of no event"
printf 'frob user_events/example_tick' >&3 2>/dev/null && fail "usereventsd_session: unknown command"
exec 3>&-
i=0
while [ "$(cat "$en")" != 0 ] && [ $i -lt 20 ]; do sleep 0.05; i=$((i + 1)); done
[ "$(cat "$en")" = 0 ] && ok "usereventsd_session: closed, the enable is undone" ||
	fail "usereventsd_session: the enable outlived the descriptor"

# ---- list shows an event's filter and triggers (issue 18, item 8) ---------
echo 'count > 3' >"$flt"
echo 'traceoff if count > 1000000' >"$mnt/events/user_events/example_tick/trigger"
"$tool" --tracefs "$mnt" list example_tick >"$work/out"
grep -qx "	filter: count > 3" "$work/out" && ok "list shows the filter" ||
	fail "list: no filter line: $(cat "$work/out")"
grep -qx "	trigger: traceoff:unlimited if count > 1000000" "$work/out" && ok "list shows the trigger" ||
	fail "list: no trigger line: $(cat "$work/out")"
echo 0 >"$flt"
echo '!traceoff' >"$mnt/events/user_events/example_tick/trigger"
"$tool" --tracefs "$mnt" list example_tick | grep -q "filter:\|trigger:" &&
	fail "list shows a filter or trigger after both were removed"

# ---- mounting twice -------------------------------------------------------
"$daemon" "$mnt" 2>"$work/err"
rc=$?
[ $rc = 1 ] && ok "a second usereventsd on a live mount is refused" ||
	fail "a second usereventsd on a live mount: exit $rc"
grep -q "already mounted there" "$work/err" || fail "mounting twice: no clear message: $(cat "$work/err")"
[ "$(grep -c " $mnt " /proc/self/mountinfo)" = 1 ] || fail "mounting twice stacked a mount"
grep -q example_tick "$mnt/user_events_status" || fail "mounting twice hid the first daemon's events"
first=$(pgrep -f "^$daemon $mnt\$")
"$daemon" --replace "$mnt" 2>"$work/err" && ok "--replace mounts over a live one" ||
	fail "--replace: $(cat "$work/err")"
[ "$(grep -c " $mnt " /proc/self/mountinfo)" = 1 ] || fail "--replace left two mounts"
grep -q example_tick "$mnt/user_events_status" && fail "--replace: the old daemon still answers"
# A dead daemon's mount is recovered as before.
pkill -KILL -f "^$daemon --replace $mnt\$"
sleep 0.3
"$daemon" "$mnt" 2>"$work/err" && grep -q "detached the mount of a usereventsd that died" "$work/err" &&
	ok "a dead daemon's mount is recovered" || fail "stale mount: $(cat "$work/err")"
umount "$mnt"
[ -n "$first" ] && kill "$first" 2>/dev/null

# mountinfo escapes a space (\040): a mount point with one is recognised too.
sp="$work/with space"
mkdir "$sp"
if "$daemon" "$sp"; then
	"$daemon" "$sp" 2>/dev/null && fail "mounting twice on a path with a space: accepted" ||
		ok "mounting twice on a path with a space: refused"
	umount "$sp" 2>/dev/null
	umount "$sp" 2>/dev/null
else
	fail "usereventsd did not mount on a path with a space"
fi

# ---- umount ------------------------------------------------------------
# The last mount gone: the daemon ends at once, and says nothing.
"$daemon" -f "$mnt" 2>"$work/err" & dpid=$!
sleep 2.5	# past its first look at the mount table
t0=$(date +%s%N)
umount "$mnt"
wait $dpid
ms=$((($(date +%s%N) - t0) / 1000000))
[ $ms -lt 1500 ] && [ ! -s "$work/err" ] && ok "umount of its only mount: ended in $ms ms" ||
	fail "umount of its only mount: ended in $ms ms, said '$(cat "$work/err")'"
# A copy in another mount namespace (as unshare -m, a container or a unit's
# private mounts make) keeps the kernel's connection: the daemon serves it,
# says why it is still there, and ends when the copy goes.
"$daemon" -f "$mnt" 2>"$work/err" & dpid=$!
sleep 0.5
unshare -m --propagation private sh -c "cat '$mnt/user_events_status' >/dev/null && exec sleep 30" & copy=$!
sleep 0.5
umount "$mnt"
i=0
until grep -q 'still mounted in another mount namespace' "$work/err" || [ $i -ge 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
if kill -0 $dpid 2>/dev/null && grep -qx "usereventsd: $mnt was unmounted here but is still mounted in another mount namespace (or open after a lazy unmount): serving it until that goes (SIGTERM ends it now)" "$work/err"; then
	ok "umount with a copy in another namespace: serving it, and saying so"
else
	fail "umount with a copy in another namespace: alive $(kill -0 $dpid 2>/dev/null && echo yes || echo no), said '$(cat "$work/err")'"
fi
kill $copy
t0=$(date +%s%N)
wait $dpid
ms=$((($(date +%s%N) - t0) / 1000000))
[ $ms -lt 3000 ] && ok "the copy gone: the daemon ended in $ms ms" || fail "the copy gone: ended in $ms ms"

[ $fails = 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "all passed"
