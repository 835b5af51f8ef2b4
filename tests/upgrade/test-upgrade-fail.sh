#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# A failed upgrade loses nothing (issue 30): the old daemon's unread
# records are still its own when the successor dies after taking them.
# A producer writes N records of an enabled event that nobody reads (they
# wait in the buffer: `trace` shows them); then `usereventsd --upgrade`
# runs under strace, whose fault injection kills it with SIGKILL at its
# second sendmsg(): the answer "done" of a successor that received the
# state and restored it (the log shows that message was the one).  The old
# daemon says the upgrade failed and serves on; its `trace` still shows the
# N records and trace_pipe gives all N (before the fix: none, the snapshot
# had consumed them).  Then a real upgrade carries them.
# Needs root, /dev/fuse and strace with -e inject (exit 77 otherwise).
#   test-upgrade-fail.sh USEREVENTSD RATE_PRODUCER
set -u
daemon=$1 producer=$2

. "$(dirname "$0")/common.sh"
strace -qq -o /dev/null -e inject=getpid:retval=1 true 2>/dev/null ||
	{ echo "SKIP: no strace with fault injection"; exit 77; }
in_namespace UE_UPFAIL_NS "$@"
workdir upfail
in_trace() { grep -c ' up_fail: ' "$M/trace"; }

"$daemon" -f "$M" 2>"$W/d0.err" & d0=$!
pids=$d0
for i in $(seq 100); do [ -r "$M/usereventsd_stats" ] && break; sleep 0.05; done
USEREVENTS_TRACEFS=$M "$producer" 500 2 up_fail >"$W/prod.out" 2>&1 & prod=$!
pids="$pids $prod"
for i in $(seq 100); do [ -e "$M/events/user_events/up_fail/enable" ] && break; sleep 0.05; done
echo 1 >"$M/events/user_events/up_fail/enable"
wait "$prod"
n=$(sed -n 's/^wrote \([0-9]*\) (0 refused)$/\1/p' "$W/prod.out")
n0=$(in_trace)
echo "# written: $(cat "$W/prod.out"); in the trace before the upgrade: $n0"
[ -n "$n" ] && [ "$n" -gt 0 ] && [ "$n0" = "$n" ] && ok "the $n records wait unread in the buffer" ||
	no "before: $n0 in the trace of ${n:-?} written"

strace -f -qq -o "$W/strace.out" -e trace=sendmsg -e inject=sendmsg:signal=SIGKILL:when=2 \
	"$daemon" --upgrade -f "$M" 2>"$W/d1.err"
rc=$?
# The message killed: "UUPG" and cmd 4 (MSG_DONE): it had taken and restored the state.
# With -f another thread's line can split the call in two ("<unfinished
# ...>", then "<... sendmsg resumed>"): the call is the last sendmsg, and
# killed means it never returned a count.
killed=$(grep 'sendmsg(' "$W/strace.out" | tail -n 1)
kpid=${killed%% *}
returned=$(grep "^$kpid <... sendmsg resumed>.*= [0-9]" "$W/strace.out" | tail -n 1)
case $rc:$killed in
137:*'iov_base="UUPG\4'*'= ?'|137:*'iov_base="UUPG\4'*'<unfinished ...>')
	[ -z "$returned" ] && ok "the successor died as it was to answer done (exit $rc)" ||
		no "the successor's done returned: $returned" ;;
*) no "the successor was not killed at its answer: exit $rc, $killed" ;;
esac
for i in $(seq 50); do grep -q 'the upgrade failed' "$W/d0.err" && break; sleep 0.1; done
alive "$d0" && grep -q 'the upgrade failed (.*); serving on' "$W/d0.err" &&
	ok "the old daemon serves on: $(grep 'upgrade failed' "$W/d0.err")" ||
	no "the old daemon: $(cat "$W/d0.err")"
n1=$(in_trace)
[ "$n1" = "$n" ] && ok "its trace still shows the $n unread records" ||
	no "its trace shows $n1 of $n records after the failed upgrade"

"$daemon" --upgrade -f "$M" 2>"$W/d2.err" & d2=$!
pids="$pids $d2"
for i in $(seq 100); do alive "$d0" || break; sleep 0.05; done
n2=$(timeout 2 cat "$M/trace_pipe" | grep -c ' up_fail: ')
! alive "$d0" && [ "$n2" = "$n" ] &&
	ok "then an upgrade carries them: trace_pipe gives all $n" ||
	no "the upgrade after: old daemon $(alive "$d0" && echo alive || echo gone), trace_pipe gave $n2 of $n"
kill "$d2"
[ "$fails" = 0 ]
