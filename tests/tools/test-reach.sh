#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Unmodified programs reach usereventsd wherever it runs (issue 23): the
# README's system-wide recipe end to end.  In a private mount namespace of
# this test (the host never changes): a tmpfs on /run with the service
# mounted at /run/usereventsd as its unit does (mode 0755, user_events_data
# 0666), /etc overlaid so that /etc/ld.so.preload names the interposer, and
# nothing of the host's usereventsd, tracefs or debugfs mounts visible.
# tests/tools/tp_producer finds user_events_data as libtracepoint and the
# Rust crate do (the kernel's path, then /proc/mounts); started outside our
# tools, by root and by nobody, it is traced by `userevents record`, which
# finds the service by itself:
#   - no tracefs: the kernel's path leads to the service; a program that
#     reads /proc/mounts or /proc/self/mountinfo first finds it as a tracefs;
#   - the kernel's tracefs mounted (no user_events in it): ENOENT for root,
#     EACCES for nobody (tracefs is 0700) lead to the service too;
#   - no daemon: every answer is the kernel's (the static build's, which
#     nothing interposes, is the reference);
#   - a user_events_data already at the kernel's path is never replaced,
#     unless USEREVENTS_TRACEFS names another;
#   - a static program reaches the service projected at the kernel's path
#     (unshare -m + bind mount, as BindPaths= or docker -v do).
#
#   test-reach.sh USEREVENTS USEREVENTSD PRELOAD TP_PRODUCER TP_PRODUCER_STATIC
set -u
tool=$1 daemon=$2 preload=$3 tp=$4 tps=$5

skip() { echo "SKIP: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "needs root"
[ -c /dev/fuse ] || skip "no /dev/fuse"
command -v setpriv >/dev/null || skip "no setpriv (util-linux)"
uid=$(id -u nobody 2>/dev/null) || skip "no user 'nobody'"
if [ -z "${UE_REACH_NS:-}" ]; then
	UE_REACH_NS=1 exec unshare -m --propagation private -- "$0" "$@"
fi

. "$(dirname "$0")/workdir.sh"
workdir reach
# Our daemons end first, then what is mounted on $work (the namespace goes with us).
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null; done
	wait
	pids=
	umount -l /etc "$work/ov" "$work/k" 2>/dev/null
	workdir_cleanup
}
trap cleanup EXIT
unset USEREVENTS_TRACEFS USEREVENTS_PRELOAD LD_PRELOAD
svc=/run/usereventsd

# Nothing of the host: its usereventsd mounts, tracefs and debugfs go (here only).
for t in fuse.usereventsd tracefs debugfs; do
	awk -v t=$t '{ for (i = 7; i < NF; i++) if ($i == "-") { if ($(i + 1) == t) print $5; break } }' \
		/proc/self/mountinfo | sort -r | while read -r m; do umount -l "$m"; done
done
mount -t tmpfs -o mode=755 ue-reach-run /run || exit 1

# The programs where nobody reaches them.
mkdir "$work/bin" && cp "$tp" "$tps" "$preload" "$work/bin/" && chmod 755 "$work" "$work/bin" &&
	chmod 755 "$work/bin"/* || exit 1
tp=$work/bin/$(basename "$tp")
tps=$work/bin/$(basename "$tps")
preload=$work/bin/$(basename "$preload")

# serve DIR [OPTION]...: a usereventsd of ours on DIR, ended at exit.
serve() {
	d=$1
	shift
	mkdir -p "$d" && "$daemon" -f "$@" "$d" &
	pids="$pids $!"
	for _ in $(seq 200); do
		[ -e "$d/user_events_data" ] && return
		sleep 0.025
	done
	echo "usereventsd did not mount $d"
	exit 1
}

# The service as its unit mounts it, open to every user as README's recipe makes it.
serve "$svc" -o mode=0755
chmod 0666 "$svc/user_events_data" || exit 1

stat_of() { sed -n "s/^$2: //p" "$1/usereventsd_stats"; }

# record_start DIR NAME: `userevents record` of tp_reach (on DIR; "" finds it), armed.
record_start() {
	"$tool" ${1:+--tracefs "$1"} record -q -e user_events:tp_reach -o "$work/$2.dat" \
		>"$work/$2.rec" 2>&1 &
	recpid=$!
	for _ in $(seq 200); do
		[ "$(stat_of "${1:-$svc}" armed_patterns)" -ge 1 ] 2>/dev/null && return
		sleep 0.025
	done
	fail "$2: record did not arm: $(cat "$work/$2.rec")"
}

# record_stop NAME: stop it; $recorded: the records of tp_reach in its file.
record_stop() {
	kill -INT "$recpid"
	wait "$recpid"
	recorded=$("$tool" report "$work/$1.dat" 2>>"$work/$1.rec" | grep -c ' tp_reach: ')
}

# traced WHAT EXPECTED_PATH CMD...: CMD (a tp_producer writing 50) traced through the service.
traced() {
	what=$1 want=$2
	shift 2
	before=$(stat_of "$svc" native_records_interposed)
	record_start "" case
	"$@" >"$work/out" 2>&1
	rc=$?
	record_stop case
	through=$(($(stat_of "$svc" native_records_interposed) - before))
	if [ $rc = 0 ] && grep -qx "tp_producer: $want: wrote 50" "$work/out" && [ "$recorded" = 50 ] &&
		[ "$through" -ge 50 ]; then
		ok "$what: 50 records through the interposer, recorded by userevents record"
	else
		fail "$what: exit $rc, $(cat "$work/out"); recorded $recorded; interposed $through"
	fi
}

nobody="setpriv --reuid=$uid --regid=$(id -g nobody) --clear-groups --"

# ---- one service: LD_PRELOAD in its environment (a unit's Environment=) -------
kdata=/sys/kernel/tracing/user_events_data
traced "LD_PRELOAD in the environment, root" "$kdata" env LD_PRELOAD="$preload" "$tp" 50 kernel

# /etc/ld.so.preload naming the interposer, in an overlay of /etc on a tmpfs of ours.
mkdir "$work/ov" && mount -t tmpfs ue-reach-etc "$work/ov" && mkdir "$work/ov/up" "$work/ov/wk" ||
	exit 1
mount -t overlay ue-reach-etc -o "lowerdir=/etc,upperdir=$work/ov/up,workdir=$work/ov/wk" /etc ||
	skip "no overlayfs: /etc/ld.so.preload cannot be set without changing the host's"
echo "$preload" >/etc/ld.so.preload

# ---- every program: /etc/ld.so.preload; no tracefs mounted ------------------
traced "no tracefs, root, the kernel's path" "$kdata" "$tp" 50 kernel
traced "no tracefs, root, /proc/mounts first" "$svc/user_events_data" "$tp" 50 mounts
traced "no tracefs, root, /proc/self/mountinfo first" "$svc/user_events_data" "$tp" 50 mountinfo
traced "no tracefs, nobody, the kernel's path" "$kdata" $nobody "$tp" 50 kernel
# Every dynamic program here sees the view (grep too): the static build shows the real table.
"$tps" 0 mounts >"$work/out" && fail "the real table has a tracefs: $(cat "$work/out")"
"$tp" 0 mounts >/dev/null || fail "the interposed table has no tracefs"

# No daemon: the answers are the kernel's, as the static build (not interposed) gets them.
same_as_static() {
	what=$1
	shift
	"$@" "$tp" 1 kernel >"$work/dyn" 2>&1
	a=$?
	"$@" "$tps" 1 kernel >"$work/sta" 2>&1
	b=$?
	if [ $a = $b ] && [ $a != 0 ] && cmp -s "$work/dyn" "$work/sta"; then
		ok "$what: the kernel's answer, exit $a: $(cat "$work/dyn")"
	else
		fail "$what: interposed exit $a '$(cat "$work/dyn")', static exit $b '$(cat "$work/sta")'"
	fi
}
nodaemon() { unshare -m --propagation private -- sh -c 'umount -l "$0" && exec "$@"' "$svc" "$@"; }
same_as_static "no tracefs, no daemon" nodaemon

# ---- a user_events_data at the kernel's path is the program's ----------------
serve "$work/k"
kpid=$!
# in_k CMD...: CMD with that daemon projected on the kernel's path.
in_k() {
	unshare -m --propagation private -- sh -c 'mount --bind "$0" /sys/kernel/tracing && exec "$@"' \
		"$work/k" "$@"
}
k_case() {
	what=$1 want_k=$2 want_svc=$3
	shift 3
	record_start "$work/k" k
	krec=$recpid
	record_start "$svc" s
	"$@" >"$work/out" 2>&1
	record_stop s
	s=$recorded
	recpid=$krec
	record_stop k
	[ "$recorded" = "$want_k" ] && [ "$s" = "$want_svc" ] &&
		ok "$what: $recorded records there, $s in the service" ||
		fail "$what: $recorded records at the kernel's path (want $want_k), $s in the service (want $want_svc): $(cat "$work/out")"
}
k_case "a user_events_data at the kernel's path" 50 0 in_k "$tp" 50 kernel
k_case "USEREVENTS_TRACEFS names the service" 0 50 in_k env USEREVENTS_TRACEFS="$svc" "$tp" 50 kernel
# The service is the only daemon again (record and the interposer would take the last mounted).
kill "$kpid" && wait "$kpid"

# ---- static programs: the service projected at the kernel's path -------------
before=$(stat_of "$svc" fuse_writes)
record_start "" static
unshare -m --propagation private -- sh -c 'mount --bind "$0" /sys/kernel/tracing && exec "$1" 50 kernel' \
	"$svc" "$tps" >"$work/out" 2>&1
rc=$?
record_stop static
w=$(($(stat_of "$svc" fuse_writes) - before))
[ $rc = 0 ] && [ "$recorded" = 50 ] && [ "$w" -ge 50 ] &&
	ok "a static program, the service bound on /sys/kernel/tracing: 50 records through FUSE" ||
	fail "static, projected: exit $rc, $(cat "$work/out"); recorded $recorded, FUSE writes $w"

# ---- the kernel's tracefs mounted, without user_events -----------------------
if ! grep -qw tracefs /proc/filesystems; then
	echo "skip: this kernel has no tracefs (the cases with one mounted)"
elif grep -q ' user_events_' /proc/kallsyms; then
	echo "skip: this kernel has user_events (the cases of a tracefs without it)"
else
	mount -t tracefs ue-reach-tracefs /sys/kernel/tracing || exit 1
	traced "tracefs mounted, root (ENOENT)" "$kdata" "$tp" 50 kernel
	traced "tracefs mounted, root, /proc/mounts first" "$kdata" "$tp" 50 mounts
	traced "tracefs mounted, nobody (EACCES: tracefs is 0700)" "$kdata" $nobody "$tp" 50 kernel
	same_as_static "tracefs mounted, no daemon" nodaemon
	same_as_static "tracefs mounted, nobody, no daemon" nodaemon $nobody
fi

[ "$fails" = 0 ] || exit 1
echo "all passed"
