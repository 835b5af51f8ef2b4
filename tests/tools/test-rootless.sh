#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Rootless tracing (issue 16 item 1): `userevents run` and `record -- CMD`
# as an ordinary user with no capability, on a host set up as stock Debian
# is (/dev/fuse 0666, fusermount3 setuid root): the private usereventsd
# mounts through fusermount3, owns its files as that user, learns of forks
# without the proc connector, and fork children inherit enable bits
# (tests/tools/fork_writer).  Then the failures a user meets, each with a
# message naming its cause: /dev/fuse not open to the user, fusermount3
# missing, a mount whose files are another user's.  Yama (no Yama needed
# here): the daemon must be an ancestor of the command, of its fork child
# and of an orphan (tests/tools/ancestry), as ptrace_scope 1 requires, while
# the command's exit status, signals and stdin stay as they were.
#
# A fork child's inherited bit follows its event as soon as the enable
# write returns (tests/tools/fork_follow): the interposer tells the daemon
# of the fork from the child (UE_IOC_FORKED); without it the children
# poller is up to 50 ms late, which the same program shows; libuserevents
# tells the daemon by itself (fork_follow_lib, without the interposer).
#
# A raw-ABI program that opens /sys/kernel/tracing/user_events_data as
# libtracepoint does (tests/tools/tp_producer, issue 23 item 4) is traced:
# built dynamic, through the interposer; built static, in a user and mount
# namespace of its own where run binds the daemon on the kernel's path; and
# where the kernel refuses that namespace, run says why and what to do.
#
#   test-rootless.sh USEREVENTS USEREVENTSD FORK_WRITER USER_EVENTS_EXAMPLE ANCESTRY FORK_FOLLOW \
#                    FORK_FOLLOW_LIB LIBUSEREVENTS TP_PRODUCER TP_PRODUCER_STATIC
#
# Runs as root (CI is root) and drops to the `nobody` account with setpriv
# (an account that exists: fusermount3 refuses a uid without a name).  The
# device is made usable as on a stock host without touching the machine's:
# in a private mount namespace of this test, a device node 10:229 of mode
# 0666 (or 0600) is bound over /dev/fuse, so nothing is left to restore
# whatever ends the test.  Exit 77 when the machine cannot run it.
set -u
tool=$1 daemon=$2 fork_writer=$3 example=$4 ancestry=$5 fork_follow=$6 fork_follow_lib=$7
lib=$8 tp=$9 tps=${10}

skip() { echo "SKIP: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "needs root (to set up /dev/fuse and drop to another user)"
[ -c /dev/fuse ] || skip "no /dev/fuse"
command -v setpriv >/dev/null || skip "no setpriv (util-linux)"
fm=$(command -v fusermount3) || skip "no fusermount3 (package fuse3)"
# As the fuse3 package installs it; without it no unprivileged FUSE mount exists.
[ -u "$fm" ] && [ "$(stat -c %u "$fm")" = 0 ] ||
	skip "$fm is not setuid root (stock Debian's fuse3 installs it so)"
uid=$(id -u nobody 2>/dev/null) || skip "no user 'nobody'"
gid=$(id -g nobody)
[ "$uid" != 0 ] || skip "'nobody' is uid 0"
[ -r /proc/self/task/$$/children ] || [ -r "/proc/$$/task/$$/children" ] ||
	skip "no /proc/PID/task/TID/children (CONFIG_PROC_CHILDREN): forks cannot be followed"

if [ -z "${UE_ROOTLESS_NS:-}" ]; then
	UE_ROOTLESS_NS=1 exec unshare -m --propagation private -- "$0" "$@"
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/ue-rootless.XXXXXX") || exit 1
cleanup() {
	# Anything of ours still running is a failure already reported; end it.
	for p in $(pgrep -U "$uid" -f "$work/bin/"); do
		kill -KILL "$p" 2>/dev/null
	done
	for m in $(awk -v w="$work/" 'index($5, w) == 1 { print $5 }' /proc/self/mountinfo); do
		umount -l "$m" 2>/dev/null
	done
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
fails=0
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}
ok() { echo "ok: $*"; }

# The programs where the user can reach them, in the build tree's layout (the
# tool finds the daemon at ../daemon/ and the interposer at ../lib/).
mkdir -p "$work/bin/tools" "$work/bin/daemon" "$work/bin/lib" "$work/dev" "$work/home"
cp "$tool" "$work/bin/tools/userevents" && cp "$daemon" "$work/bin/daemon/usereventsd" &&
	cp "$fork_writer" "$example" "$ancestry" "$fork_follow" "$fork_follow_lib" "$tp" "$work/bin/" &&
	cp "$lib" "$work/bin/lib/libuserevents.so.0" || exit 1
preload=$(dirname "$tool")/../lib/libuserevents-preload.so
[ -r "$preload" ] && cp "$preload" "$work/bin/lib/"
chmod -R a+rX "$work"
chown "$uid:$gid" "$work/home"
fw=$work/bin/fork_writer
anc=$work/bin/ancestry
ff=$work/bin/fork_follow
ex=$work/bin/$(basename "$example")
tp=$work/bin/$(basename "$tp")
# "none": no static build (a sanitizer build cannot link statically).
[ "$tps" = none ] || { cp "$tps" "$work/bin/" && tps=$work/bin/$(basename "$tps"); } || exit 1
tool=$work/bin/tools/userevents
unset USEREVENTSD USEREVENTS_TRACEFS USEREVENTS_PRELOAD

# /dev/fuse as a host has it: a node of the same device with MODE, bound on it.
fuse_mode() {
	mount | grep -q " on /dev/fuse " && umount /dev/fuse
	rm -f "$work/dev/fuse"
	mknod -m "$1" "$work/dev/fuse" c 10 229 || exit 1
	mount --bind "$work/dev/fuse" /dev/fuse || exit 1
}
mount -t tmpfs -o mode=755 ue-rootless-dev "$work/dev" || exit 1
# The host's usereventsd mounts (a service on /run/usereventsd) are not ours to see.
awk '{ for (i = 7; i < NF; i++) if ($i == "-") { if ($(i + 1) == "fuse.usereventsd") print $5; break } }' \
	/proc/self/mountinfo | sort -r | while read -r m; do umount -l "$m"; done

# as_user COMMAND...: the user, its own group only, no capability; in its home.
as_user() {
	(cd "$work/home" && HOME=$work/home TMPDIR=$work/home \
		setpriv --reuid="$uid" --regid="$gid" --clear-groups -- "$@")
}

# run_ok RC NAME OUT_RE ERR_RE OK_TEXT FAIL_TEXT: a run that exited 0, its
# $work/NAME.out matching OUT_RE and its summary ($work/NAME.err) ERR_RE.
run_ok() {
	if [ "$1" = 0 ] && grep -q "$3" "$work/$2.out" && grep -Eq "$4" "$work/$2.err"; then
		ok "$5"
	else
		fail "$6: exit $1"
		sed 's/^/#   /' "$work/$2.out" "$work/$2.err"
	fi
}

# No daemon, mount or directory of the runs left behind.
nothing_left() {
	if pgrep -U "$uid" -f "$work/bin/" >/dev/null; then
		fail "$1: processes left: $(pgrep -a -U "$uid" -f "$work/bin/" | tr '\n' ';')"
	fi
	# (the host's, a service on /run/usereventsd, were detached at the start)
	if grep -q 'fuse.usereventsd' /proc/self/mountinfo; then
		fail "$1: a usereventsd mount is left: $(grep 'fuse.usereventsd' /proc/self/mountinfo)"
	fi
	if ls -d "$work"/home/userevents-* >/dev/null 2>&1; then
		fail "$1: mount points left: $(ls -d "$work"/home/userevents-*)"
	fi
}

fuse_mode 0666
echo "# as uid $uid (nobody), /dev/fuse 0666, $fm setuid root"

# ---- run: fork children inherit, every record counted ---------------------
as_user "$tool" run -e 'user_events:*' -- "$fw" 4 25 >"$work/run.out" 2>"$work/run.err"
rc=$?
if [ $rc = 0 ] && grep -q 'all inherited' "$work/run.out"; then
	ok "run -e as uid $uid: the command and its 4 fork children were traced (exit 0)"
else
	fail "run -e as uid $uid: exit $rc"
	sed 's/^/#   /' "$work/run.out" "$work/run.err"
fi
for who in 0 1 2 3 4; do
	n=$(grep -c "fork_writer: who=0x$who ($who)\$" "$work/run.out")
	[ "$n" = 25 ] || fail "run: $n records of writer $who, expected 25"
done
grep -Eq '^fork_writer +125 ' "$work/run.err" || fail "run: the summary does not count 125 records"
grep -q 'proc connector unavailable' "$work/run.err" &&
	fail "run: the daemon still says fork children do not inherit"
nothing_left "run"

# The raw-ABI example (interposed): its own count of records is the summary's.
# (Unprivileged, nothing is bound on /sys/kernel/tracing: it is given the mount.)
as_user "$tool" run -q -e 'user_events:*' -- sh -c 'exec "$0" "$USEREVENTS_TRACEFS" 3' "$ex" \
	>"$work/ex.out" 2>"$work/ex.err"
rc=$?
wrote=$(sed -n 's/^wrote \([0-9]*\) records.*/\1/p' "$work/ex.out")
total=$(awk '$1 == "total" { print $2 }' "$work/ex.err")
if [ $rc = 0 ] && [ -n "$wrote" ] && [ "$wrote" -gt 0 ] && [ "$wrote" = "$total" ]; then
	ok "run as uid $uid: the example wrote $wrote records, the summary counts $total"
else
	fail "run of the example: exit $rc, wrote '$wrote', summary total '$total'"
	sed 's/^/#   /' "$work/ex.out" "$work/ex.err"
fi
nothing_left "run of the example"

# ---- a raw-ABI program that opens the kernel's path (issue 23 item 4) --------
# rawprog WHAT PROGRAM: run traces its 20 writes of tp_reach.
rawprog() {
	as_user "$tool" run -q -e 'user_events:tp_reach' -- "$2" 20 kernel >"$work/tp.out" 2>"$work/tp.err"
	run_ok $? tp '^tp_producer: /sys/kernel/tracing/user_events_data: wrote 20$' '^tp_reach +20 ' \
		"run as uid $uid, $1: its 20 writes to /sys/kernel/tracing/user_events_data traced" \
		"run of tp_producer, $1"
	nothing_left "run of tp_producer, $1"
}
rawprog "dynamic (the interposer)" "$tp"
if [ "$tps" = none ]; then
	echo "skip: no static build of tp_producer (the static cases)"
else
	rawprog "static (a user and mount namespace)" "$tps"
fi
# Where the kernel refuses the namespace: here, in a user namespace of ours
# (every uid below 65536 as itself; its map written from here) whose limit
# of user namespaces is 0, the user's run of the static program.
refused() {
	rm -f "$work/go"
	# (uid 0 there once mapped: the second sh, exec'd then, has its capabilities)
	unshare --user --mount --propagation private -- sh -c '
		while [ ! -e "$0/go" ]; do sleep 0.01; done
		exec sh -c '\''echo 0 >/proc/sys/user/max_user_namespaces || exit 99
		cd "$0/home" && HOME=$0/home TMPDIR=$0/home exec setpriv --reuid="$1" --regid="$2" \
			--clear-groups -- "$3" run -q -e user_events:tp_reach -- "$4" 1 kernel'\'' "$0" "$@"' \
		"$work" "$uid" "$gid" "$tool" "$tps" >"$work/tp.out" 2>"$work/tp.err" &
	upid=$!
	sleep 0.1
	echo "0 0 65536" >"/proc/$upid/uid_map" && echo "0 0 65536" >"/proc/$upid/gid_map" &&
		touch "$work/go" || kill "$upid"
	wait "$upid"
}
if [ "$tps" = none ]; then
	:
else
	refused
	rc=$?
	if [ $rc = 2 ] && grep -q 'is statically linked: it finds user_events_data only at /sys/kernel/tracing, and this kernel does not let uid [0-9]* make the user and mount namespace .*(unshare: No space left on device); run it as root, link it dynamically, or give it the daemon.s path (USEREVENTS_TRACEFS=' "$work/tp.err" &&
		grep -q '^tp_producer: ' "$work/tp.out" && ! grep -q wrote "$work/tp.out"; then
		ok "run of a static program where no user namespace may be made: $(grep -o 'this kernel does not let.*' "$work/tp.err" | cut -c1-70)..."
	else
		fail "run of a static program without user namespaces: exit $rc"
		sed 's/^/#   /' "$work/tp.out" "$work/tp.err"
	fi
fi

# ---- record -- CMD, then report ----------------------------------------------
# Without the interposer (nothing tells the daemon of forks): the children poller.
as_user "$tool" record --no-preload -o "$work/home/fw.dat" -- "$fw" 3 10 >"$work/rec.out" 2>"$work/rec.err"
rc=$?
if [ $rc = 0 ] && grep -q '^userevents: record: 40 events' "$work/rec.err"; then
	ok "record -- CMD as uid $uid: 40 events (exit 0)"
else
	fail "record -- CMD as uid $uid: exit $rc"
	sed 's/^/#   /' "$work/rec.out" "$work/rec.err"
fi
as_user "$tool" report "$work/home/fw.dat" >"$work/rep.out" 2>"$work/rep.err" ||
	fail "report as uid $uid: exit $?"
for who in 0 1 2 3; do
	n=$(grep -c "fork_writer: who=0x$who ($who)\$" "$work/rep.out")
	[ "$n" = 10 ] || fail "report: $n records of writer $who, expected 10"
done
[ "$(grep -c . "$work/rep.out")" = 40 ] || fail "report: $(grep -c . "$work/rep.out") lines, expected 40"
nothing_left "record"

# ---- a fork child's inherited bit follows at once -----------------------------
# follow WHAT PROGRAM [RUN OPTION]...: fork_follow's 20 rounds, every answer right.
follow() {
	what=$1 prog=$2
	shift 2
	as_user env LD_LIBRARY_PATH="$work/bin/lib" "$tool" run -q "$@" \
		-e 'user_events:fork_follow_done' -- "$prog" 20 >"$work/ff.out" 2>"$work/ff.err"
	run_ok $? ff '^fork_follow: 20 rounds, 0 of 80 answers wrong$' '^fork_follow_done +1 ' \
		"run${*:+ $*} as uid $uid, $what: 20 fork children's bits followed at once" \
		"fork_follow $what as uid $uid"
}
follow "through the interposer" "$ff"
follow "through libuserevents" "$work/bin/fork_follow_lib" --no-preload
# Without the interposer nothing tells the daemon: the poller is late (the check can fail).
as_user "$tool" run -q --no-preload -e 'user_events:fork_follow_done' -- "$ff" 20 \
	>"$work/ffn.out" 2>"$work/ffn.err"
rc=$?
if [ $rc = 1 ] && grep -q '^fork_follow: 20 rounds, [1-9][0-9]* of 80 answers wrong$' "$work/ffn.out"; then
	ok "run --no-preload: $(sed -n 's/^fork_follow: 20 rounds, //p' "$work/ffn.out") (the poller's 50 ms)"
else
	fail "fork_follow --no-preload: exit $rc, expected some answers wrong"
	sed 's/^/#   /' "$work/ffn.out"
fi
nothing_left "fork_follow"

# ---- Yama's ptrace_scope 1: the daemon is the command's ancestor ------------
# Its descendants only may be opened through /proc/<pid>/mem by an
# unprivileged daemon: the command, a fork child, and an orphan (given to
# run's launcher, a child subreaper, not to init).
as_user "$tool" run -q -- "$anc" >"$work/anc.out" 2>"$work/anc.err"
rc=$?
n=$(grep -c ': usereventsd [0-9]* is an ancestor$' "$work/anc.out")
if [ $rc = 0 ] && [ "$n" = 3 ] && grep -q '^ancestry: orphan: [0-9]*(ancestry) [0-9]*(ue-launcher) ' "$work/anc.out"; then
	ok "run as uid $uid: usereventsd is an ancestor of the command, its child and an orphan"
else
	fail "run: the daemon is not the ancestor of all three (exit $rc)"
	sed 's/^/#   /' "$work/anc.out" "$work/anc.err"
fi
# The check can fail: a daemon started beside the program (as run did before).
mkdir "$work/home/side" && chown "$uid:$gid" "$work/home/side"
as_user sh -c '"$1" -f "$2" & d=$!
	i=0; while [ ! -e "$2/user_events_data" ] && [ $i -lt 500 ]; do sleep 0.01; i=$((i + 1)); done
	USEREVENTS_TRACEFS=$2 "$3"; rc=$?
	fusermount3 -u "$2"; wait $d; exit $rc' sh "$work/bin/daemon/usereventsd" "$work/home/side" "$anc" \
	>"$work/side.out" 2>"$work/side.err"
rc=$?
if [ $rc = 1 ] && grep -q '^ancestry: command: .* is NOT an ancestor$' "$work/side.out"; then
	ok "a daemon beside the program is not its ancestor (the check fails as it should)"
else
	fail "ancestry of a sibling daemon: exit $rc, expected 1 and NOT"
	sed 's/^/#   /' "$work/side.out" "$work/side.err"
fi
rmdir "$work/home/side"
# The command's status, signals and stdin, as when the tool forked it itself.
as_user "$tool" run -q -- sh -c 'exit 7' 2>/dev/null
rc=$?
[ $rc = 7 ] || fail "run -- sh -c 'exit 7': exit $rc"
as_user "$tool" run -q -- sh -c 'kill -TERM $$' 2>/dev/null
rc=$?
[ $rc = 143 ] || fail "run -- a command killed by SIGTERM: exit $rc, expected 143"
got=$(echo through | as_user "$tool" run -q -- cat 2>/dev/null)
[ "$got" = through ] || fail "run -- cat: stdin gave '$got'"
as_user sh -c 'echo $$ >"$0"; exec "$@"' "$work/home/run.pid" "$tool" run -q -- sleep 30 \
	2>/dev/null &
i=0
while [ ! -s "$work/home/run.pid" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
sleep 0.5
kill -TERM "$(cat "$work/home/run.pid")"
wait $!
rc=$?
[ $rc = 143 ] || fail "run given SIGTERM: exit $rc, expected 143 (the command's SIGTERM)"
ok "run as uid $uid: exit status 7, SIGTERM as 143 (the command's own and one passed on), stdin"
nothing_left "ancestry and status"

# ---- failures, each naming its cause ---------------------------------------
# expect_fail WHAT PATTERN: run as the user fails at once (no mount timeout).
expect_fail() {
	as_user "$tool" run -- true >"$work/f.out" 2>"$work/f.err"
	rc=$?
	if [ $rc = 125 ] && grep -q "$2" "$work/f.err" && ! grep -q 'timed out' "$work/f.err"; then
		ok "$1: exit 125, $(grep -m1 "$2" "$work/f.err")"
	else
		fail "$1: exit $rc, expected 125 and a message matching '$2'"
		sed 's/^/#   /' "$work/f.err"
	fi
	nothing_left "$1"
}

fuse_mode 0600
expect_fail "/dev/fuse 0600" '/dev/fuse: Permission denied'
fuse_mode 0666

# fusermount3 not installed: a file that cannot be executed in its place.
: >"$work/dev/nofm"
mount --bind "$work/dev/nofm" "$fm" || exit 1
expect_fail "no fusermount3" 'fusermount3 is not installed'
umount "$fm"

# A daemon whose files are root's (as the old default): the user is told so.
cat >"$work/bin/daemon/usereventsd-root-owned" <<EOF
#!/bin/sh
exec $work/bin/daemon/usereventsd -o uid=0,gid=0 "\$@"
EOF
chmod 755 "$work/bin/daemon/usereventsd-root-owned"
export USEREVENTSD="$work/bin/daemon/usereventsd-root-owned"
expect_fail "files owned by root" "its files are not open to uid $uid"
unset USEREVENTSD

# root's own usereventsd, given to the user with --tracefs: refused, and
# said as such (it said "not a tracefs with user_events", which it is).
mkdir "$work/rootmnt"
"$work/bin/daemon/usereventsd" -f "$work/rootmnt" 2>"$work/root.err" &
rootd=$!
for _ in $(seq 50); do [ -e "$work/rootmnt/user_events_data" ] && break; sleep 0.1; done
as_user "$work/bin/tools/userevents" --tracefs "$work/rootmnt" list >"$work/r.out" 2>"$work/r.err"
rc=$?
if [ $rc != 0 ] && grep -q "^userevents: $work/rootmnt/user_events_data: Permission denied$" "$work/r.err"; then
	ok "root's tracefs: exit $rc, $(cat "$work/r.err")"
else
	fail "root's tracefs: exit $rc, expected 'user_events_data: Permission denied'"
	sed 's/^/#   /' "$work/r.err"
fi
umount "$work/rootmnt"
wait "$rootd"

[ $fails = 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "PASS"
