# SPDX-License-Identifier: LGPL-2.1-or-later
# Sourced by the interop scripts (test-interop.sh, test-record.sh): a private
# mount namespace where usereventsd is stacked on a tracefs at
# /sys/kernel/tracing, so that libtracefs and trace-cmd (which take the first
# "tracefs" line of /proc/mounts and open its path) reach our files; and the
# filters that reduce our trace and trace-cmd report's lines to one form.
#
#   . "$(dirname "$0")/stack.sh"
#   stack_enter "$@"      # root, /dev/fuse, unshare; re-runs "$0" in a new namespace
#   stack_up "$DAEMON"    # a tracefs at $T (the one there, or a new one), usereventsd on it
# stack_up sets T and W (a temporary directory) and cleans up on exit.

T=/sys/kernel/tracing
W=
STACK_DAEMON_UP=
STACK_OWN_TRACEFS=

skip() { echo "SKIP: $*"; exit 77; }

stack_enter() {
	[ "$(id -u)" = 0 ] || skip "not root"
	[ -c /dev/fuse ] || skip "no /dev/fuse"
	command -v unshare >/dev/null || skip "no unshare"
	if [ "${UE_STACK_INNER:-}" != 1 ]; then
		UE_STACK_INNER=1 exec unshare -m --propagation private "$0" "$@"
	fi
	unset UE_STACK_INNER
}

stack_down() {
	if [ -n "$STACK_DAEMON_UP" ]; then
		umount "$T" 2>/dev/null || umount -l "$T"
	fi
	if [ -n "$STACK_OWN_TRACEFS" ]; then
		umount "$T" 2>/dev/null || umount -l "$T"
	fi
	[ -n "$W" ] && rm -rf "$W"
}

# The mount on top of $T is a tracefs (the last /proc/mounts line for $T).
top_is_tracefs() {
	awk -v t="$T" '$2 == t { fs = $3 } END { exit fs != "tracefs" }' /proc/mounts
}

stack_up() {	# DAEMON
	W=$(mktemp -d /tmp/ue-stack.XXXXXX) || exit 1
	trap stack_down EXIT
	# usereventsd mounts copied from the parent namespace would hide ours or
	# be found first: detach them (in this namespace only), innermost first.
	awk '$3 == "fuse.usereventsd" { print $2 }' /proc/mounts | sort -r |
		while read -r m; do umount -l "$m"; done
	if ! top_is_tracefs; then
		mount -t tracefs nodev "$T" 2>/dev/null ||
			skip "no tracefs on $T and none can be mounted there"
		STACK_OWN_TRACEFS=1
	fi
	"$1" "$T" || { echo "not ok - usereventsd did not mount on $T"; exit 1; }
	STACK_DAEMON_UP=1
}

# The event part of a line of our trace: "PID CPU TS NAME field=value...",
# the fields printer's "0x1f (31)" shown as the print fmt's decimal "31".
# That is what trace-cmd prints for the values the example writes; with the
# top bit set, %u and the fields printer's %d differ, and other field types
# differ in other ways (test_libtraceevent.c has them all).
ours() {
	grep -v '^#' |
		sed -E -e 's/^ *.{16}-([0-9]+) +\[([0-9]+)\] [^ ]+ +([0-9.]+): ([^:]+): /\1 \2 \3 \4 /' \
			-e 's/=0x[0-9a-f]+ \((-?[0-9]+)\)/=\1/g'
}
# The same of a trace-cmd report line.
theirs() {
	grep -v '^cpus=' | sed -E 's/^ *.{16}-([0-9]+) +\[([0-9]+)\] +([0-9.]+): ([^:]+): +/\1 \2 \3 \4 /'
}
