#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# make bench after make check (issue 18, item 7): a package of deps.txt or
# bench/deps.txt installed after the build directory was configured (LTTng-UST)
# makes scripts/reconfigure-if-deps reconfigure it; nothing changed, nothing
# is done.  dpkg-query and meson are stand-ins that log what they are asked.
#
#   test-reconfigure.sh SOURCE_DIR
set -u
src=$1
work=$(mktemp -d "${TMPDIR:-/tmp}/ue-reconf.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir "$work/bin" "$work/build"
touch "$work/build/build.ninja"
cat >"$work/bin/dpkg-query" <<'EOS'
#!/bin/sh
# Every package asked for is installed, except those named in $work/absent.
for a in "$@"; do
	case $a in -*) continue ;; esac
	grep -qx "$a" "$UE_TEST_WORK/absent" 2>/dev/null && continue
	echo "$a install ok installed"
done
EOS
cat >"$work/bin/meson" <<'EOS'
#!/bin/sh
echo "meson $*" >>"$UE_TEST_WORK/meson.log"
EOS
chmod +x "$work/bin/dpkg-query" "$work/bin/meson"
export UE_TEST_WORK=$work PATH="$work/bin:$PATH"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

echo liblttng-ust-dev >"$work/absent"
"$src/scripts/reconfigure-if-deps" --configured "$work/build" >/dev/null
[ -e "$work/meson.log" ] && fail "--configured reconfigured"
"$src/scripts/reconfigure-if-deps" "$work/build" >/dev/null
[ -e "$work/meson.log" ] && fail "nothing installed since, but reconfigured"
: >"$work/absent"	# make bench installs LTTng-UST
"$src/scripts/reconfigure-if-deps" "$work/build" >/dev/null
grep -q "^meson setup --reconfigure $work/build\$" "$work/meson.log" 2>/dev/null &&
	echo "ok: a package installed since the setup reconfigures" ||
	fail "LTTng-UST installed since the setup: not reconfigured"
rm -f "$work/meson.log"
"$src/scripts/reconfigure-if-deps" "$work/build" >/dev/null
[ -e "$work/meson.log" ] && fail "reconfigured twice for one change"
# A build directory from before this script: reconfigured once.
rm -f "$work/build/deps.seen"
"$src/scripts/reconfigure-if-deps" "$work/build" >/dev/null
[ -e "$work/meson.log" ] || fail "a directory that never recorded its packages is not reconfigured"
# make bench's own Makefile path calls it.
grep -q 'reconfigure-if-deps' "$src/bench/run" || fail "bench/run does not check its build directory"
grep -q 'exit 1' "$src/bench/run" || fail "bench/run cannot fail"
[ $fails = 0 ] || exit 1
echo "all passed"
