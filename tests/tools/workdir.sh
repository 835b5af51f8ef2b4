# SPDX-License-Identifier: LGPL-2.1-or-later
# Sourced by the CLI tests that run a daemon of their own on $mnt and let
# `run`/`record -- CMD` make their private mounts under $TMPDIR:
#   . "$(dirname "$0")/workdir.sh"; workdir NAME
# sets $work (removed at exit), $mnt, TMPDIR=$work/tmp, $pids (killed at
# exit), $fails, and fail/ok.
workdir() {
	work=$(mktemp -d "${TMPDIR:-/tmp}/ue-$1.XXXXXX") || exit 1
	mnt=$work/mnt
	export TMPDIR=$work/tmp	# where run makes its private mount point
	mkdir "$mnt" "$TMPDIR"
	fails=0
	pids=
	trap workdir_cleanup EXIT
}

workdir_cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null; done
	# A mount of the daemon, and one left stacked on it by a test: both go.
	umount -l "$mnt" 2>/dev/null
	umount -l "$mnt" 2>/dev/null
	rm -rf "$work"
}

fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

ok() { echo "ok: $*"; }
