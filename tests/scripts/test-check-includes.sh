#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# scripts/check-includes fails when a forbidden include is added: on a copy
# of the tree it passes, then each include below, added alone, must make it
# fail and name the file.  Usage: test-check-includes.sh SOURCE_ROOT
set -eu
src=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0

for d in include core lib tools daemon docs scripts; do
	cp -R "$src/$d" "$work/$d"
done
if ! "$work/scripts/check-includes" "$work" >"$work/out" 2>&1; then
	echo "FAIL: the tree as it is:"; cat "$work/out"; exit 1
fi
echo "ok: the tree as it is passes"

# FILE INCLUDE WHY: the include, added to FILE, must be refused.
refused() {
	cp "$work/$1" "$work/saved"
	printf '#include "%s"\n' "$2" >>"$work/$1"
	if "$work/scripts/check-includes" "$work" >"$work/out" 2>&1; then
		echo "FAIL: $1 including \"$2\" ($3) passed"; status=1
	elif ! grep -q "^$1:[0-9]*: #include \"$2\"" "$work/out"; then
		echo "FAIL: $1 including \"$2\" ($3): the report does not name it:"; cat "$work/out"; status=1
	else
		echo "ok: $1 including \"$2\" is refused ($3)"
	fi
	mv "$work/saved" "$work/$1"
}

refused core/name-args-parse.c registry.h "core/ includes nothing of the daemon"
refused lib/provider.c buffer.h "lib/ is not the daemon's"
refused tools/main.c ../daemon/daemon.h "tools/ is not the daemon's, even by path"
refused daemon/fs/fs.c sink.h "the daemon is not the tools'"
refused daemon/events/registry.c fs.h "events/ does not call fs/"
refused daemon/events/commit.c ../fs/fs.h "nor by a path"
refused daemon/procs/enabler.c registry.h "procs/ does not call events/: one way"
refused daemon/native/native.c daemon.h "native/ does not see the daemon's context"
refused daemon/lock/lock.c buffer.h "lock/ is below every module"
refused daemon/fs/fs-data.c enabler-int.h "a private header of procs/"
refused tools/source/format-table.c filter-int.h "a private header of core/"
# The tools' folders, one way down: commands, otlp/, sinks/, tracefile/,
# source/ (beside launch/), util/.
refused tools/source/tracefs.c sink.h "source/ is below sinks/: no upward include"
refused tools/sinks/sink.c otlp-export.h "sinks/ is below otlp/"
refused tools/tracefile/tracedat-read.c launch.h "tracefile/ and launch/ are side by side: neither includes the other"
refused tools/util/util.c ../commands.h "util/ is below the commands, even by path"

# A header of tools/ named as one of core/: refused (the include path's
# order, not the file, would decide which one an include finds).
cp "$work/core/otlp.h" "$work/tools/otlp.h"
if "$work/scripts/check-includes" "$work" >"$work/out" 2>&1; then
	echo "FAIL: tools/otlp.h beside core/otlp.h passed"; status=1
elif grep -q 'tools/otlp.h: a header named otlp.h is also core/otlp.h' "$work/out"; then
	echo "ok: a shadowing header is refused"
else
	echo "FAIL: a shadowing header: $(cat "$work/out")"; status=1
fi
rm "$work/tools/otlp.h"

# Without its table the check cannot run: it says so and fails.
sed 's/include rules: scripts/include rules gone: scripts/' "$src/docs/ARCHITECTURE.md" \
	>"$work/docs/ARCHITECTURE.md"
if "$work/scripts/check-includes" "$work" >"$work/out" 2>&1; then
	echo "FAIL: no table, and the check passed"; status=1
else
	echo "ok: no table: $(cat "$work/out")"
fi
exit $status
