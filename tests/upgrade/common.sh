# SPDX-License-Identifier: LGPL-2.1-or-later
# Sourced by tests/upgrade's tests that mount daemons of their own:
#   . "$(dirname "$0")/common.sh"; in_namespace UE_NAME_NS "$@"; workdir NAME
# in_namespace: root with /dev/fuse and unshare, or exit 77; the script
# again in a private mount namespace (VAR set there).  workdir: $W (removed
# at exit) with the mount point $M, $pids (killed at exit, then $M
# unmounted), the TAP lines ok/no ($fails counts the second), alive PID.
in_namespace() {
	[ "$(id -u)" = 0 ] || { echo "SKIP: needs root"; exit 77; }
	[ -c /dev/fuse ] || { echo "SKIP: no /dev/fuse"; exit 77; }
	command -v unshare >/dev/null || { echo "SKIP: no unshare"; exit 77; }
	if eval "[ -z \"\${$1:-}\" ]"; then
		var=$1
		shift
		exec env "$var=1" unshare -m --propagation private -- "$0" "$@"
	fi
}
workdir() {
	W=$(mktemp -d "${TMPDIR:-/tmp}/ue-$1.XXXXXX") || exit 1
	M=$W/mnt
	mkdir "$M"
	pids=
	fails=0
	trap workdir_cleanup EXIT
}
workdir_cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null; done
	sleep 0.2
	# The daemon's mount, and a dead one a --replace left under it.
	umount -l "$M" 2>/dev/null
	umount -l "$M" 2>/dev/null
	rm -rf "$W"
}
ok() { echo "ok - $1"; }
no() { echo "not ok - $1"; fails=$((fails + 1)); }
# Alive: there, and not a zombie yet to be reaped.
alive() { kill -0 "$1" 2>/dev/null && ! grep -q '^[0-9]* (.*) Z ' "/proc/$1/stat" 2>/dev/null; }
