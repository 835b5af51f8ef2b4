#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# meson install as a system would get it (issue 13, item 4; issue 18, items 6
# and 8): into a DESTDIR, every program, the library and its pkg-config file,
# every man page, the systemd unit (systemd-analyze verify, when systemd is
# installed), bash and zsh completions.  The installed programs run; a
# program built with pkg-config runs without LD_LIBRARY_PATH; bash completes
# commands, options and, from a running usereventsd (root and /dev/fuse),
# event names.  Then meson's uninstall removes every file and directory the
# install made (issue 23 item 6).  The install runs from a scratch copy of
# the build's install data, so the build's own meson-logs/install-log.txt
# (what `ninja uninstall` and `make uninstall` read) is never touched.
#
#   test-install.sh BUILD_DIR USEREVENTSD USER_EVENTS_EXAMPLE
set -u
build=$1
daemon=$2
example=$3
work=$(mktemp -d "${TMPDIR:-/tmp}/ue-install.XXXXXX")
dest=$work/dest
fails=0
mpid=
cleanup() {
	[ -n "$mpid" ] && kill "$mpid" 2>/dev/null
	[ -d "$work/mnt" ] && umount -l "$work/mnt" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }

# The build's install log, untouched by this test (a sum, or its absence).
buildlog() { md5sum <"$build/meson-logs/install-log.txt" 2>/dev/null || echo none; }
log_before=$(buildlog)
# The build seen through links (install.dat names its files relative to it), with logs of its own.
scratch=$work/scratch
# (meson-private a directory: meson writes to meson-private/../meson-logs).
mkdir -p "$scratch/meson-logs" "$scratch/meson-private" &&
	cp "$build/meson-private/install.dat" "$scratch/meson-private/" || exit 1
for e in "$build"/* "$build"/.[!.]*; do
	case $(basename "$e") in meson-logs|meson-private) continue ;; esac
	[ -e "$e" ] && ln -s "$e" "$scratch/"
done
meson install -C "$scratch" --no-rebuild --quiet --destdir "$dest" >"$work/log" 2>&1 ||
	{ cat "$work/log"; echo "FAIL: meson install"; exit 1; }
opt() {
	meson introspect "$build" --buildoptions |
		python3 -c 'import json,sys; print([o["value"] for o in json.load(sys.stdin) if o["name"]==sys.argv[1]][0])' "$1"
}
prefix=$(opt prefix)
# A sanitized library links only into a sanitized program.
san=$(opt b_sanitize)
[ "$san" = none ] && san="" || san="-fsanitize=$san"
root=$dest$prefix
for f in bin/userevents sbin/usereventsd include/userevents/userevents.h include/userevents/abi.h \
	share/man/man1/userevents.1 share/man/man8/usereventsd.8 share/man/man3/userevents.3 \
	share/man/man3/UE_EVENT.3 share/man/man3/ue_provider_open.3 \
	share/man/man3/ue_tracepoint_register.3 lib/systemd/system/usereventsd.service \
	lib/systemd/system/usereventsd-export.service \
	share/bash-completion/completions/userevents share/bash-completion/completions/usereventsd \
	share/zsh/site-functions/_userevents; do
	[ -e "$root/$f" ] || fail "not installed: $f"
done
lib=$(find "$root" -name 'libuserevents.so.0' | head -1)
pc=$(find "$root" -name libuserevents.pc | head -1)
[ -n "$lib" ] || fail "not installed: libuserevents.so.0"
[ -n "$pc" ] || fail "not installed: libuserevents.pc"
# Every man page cited by an installed one is installed.
for ref in $(grep -ho '^\.BR [a-z_A-Z-]* ([0-9])' "$root"/share/man/man*/* | sed 's/^\.BR //; s/ (\([0-9]\))/.\1/' | sort -u); do
	case $ref in userevents*|usereventsd*|ue_*|UE_*|libuserevents*)
		[ -e "$root/share/man/man${ref##*.}/$ref" ] || fail "cited but not installed: $ref" ;;
	esac
done

# The installed programs run from where they are.
"$root/bin/userevents" --version >/dev/null && "$root/sbin/usereventsd" --version >/dev/null &&
	ok "installed userevents and usereventsd run" || fail "an installed program does not run"

# A provider built with pkg-config runs without LD_LIBRARY_PATH (rpath).
cat >"$work/p.c" <<'EOC'
#include <stdio.h>
#include <userevents/userevents.h>
UE_EVENT(inst, UE_U32(n))
int main(void)
{
	struct ue_provider *p;

	if (ue_provider_open(NULL, &p) < 0)
		return 0;
	ue_provider_close(p);
	return 0;
}
EOC
if [ -n "$pc" ]; then
	flags=$(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --define-variable=prefix="$root" --cflags --libs libuserevents)
	# shellcheck disable=SC2086
	if cc $san -o "$work/p" "$work/p.c" $flags 2>"$work/err"; then
		env -u LD_LIBRARY_PATH USEREVENTS_TRACEFS=/nonexistent "$work/p" >/dev/null 2>"$work/err" &&
			ok "a pkg-config build runs without LD_LIBRARY_PATH" ||
			fail "a pkg-config build does not run: $(cat "$work/err")"
	else
		fail "cannot build with pkg-config: $(cat "$work/err")"
	fi
fi

# The unit, pointed at the installed daemon, as systemd reads it.
if command -v systemd-analyze >/dev/null; then
	unit=$work/usereventsd.service
	sed -e "s|^ExecStart=[^ ]*|ExecStart=$root/sbin/usereventsd|" \
		-e "s|^ExecReload=[^ ]*|ExecReload=$root/sbin/usereventsd|" \
		"$root/lib/systemd/system/usereventsd.service" >"$unit"
	grep -q "^ExecStart=$prefix/sbin/usereventsd -f --replace /run/usereventsd\$" \
		"$root/lib/systemd/system/usereventsd.service" || fail "the unit does not start the installed daemon"
	grep -q "^ExecReload=$prefix/sbin/usereventsd --upgrade /run/usereventsd\$" \
		"$root/lib/systemd/system/usereventsd.service" || fail "the unit's reload is not the installed daemon's --upgrade"
	if MANPATH=$root/share/man systemd-analyze verify "$unit" >"$work/out" 2>&1 &&
		[ ! -s "$work/out" ]; then
		ok "systemd-analyze verify usereventsd.service"
	else
		fail "systemd-analyze verify: $(cat "$work/out")"
	fi
	# The export service: the installed tool, and a unit systemd accepts.
	unit=$work/usereventsd-export.service
	grep -q "^ExecStart=$prefix/bin/userevents export --otlp \${OTLP_ENDPOINT} \$USEREVENTS_EXPORT_ARGS\$" \
		"$root/lib/systemd/system/usereventsd-export.service" ||
		fail "the export unit does not start the installed userevents"
	sed "s|^ExecStart=[^ ]*|ExecStart=$root/bin/userevents|" \
		"$root/lib/systemd/system/usereventsd-export.service" >"$unit"
	if MANPATH=$root/share/man systemd-analyze verify "$unit" >"$work/out" 2>&1 &&
		[ ! -s "$work/out" ]; then
		ok "systemd-analyze verify usereventsd-export.service"
	else
		fail "systemd-analyze verify (export): $(cat "$work/out")"
	fi
else
	echo "skip: no systemd-analyze"
fi

# bash completion: commands, options, events.
comp() {
	# comp WORDS...: what bash completes for the last word
	bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _userevents; printf "%s\n" "${COMPREPLY[@]}"' \
		sh "$root/share/bash-completion/completions/userevents" "$@"
}
export PATH="$root/bin:$root/sbin:$PATH"
[ "$(comp userevents en)" = enable ] && ok "bash completes commands" || fail "bash: 'en' gives: $(comp userevents en)"
comp userevents stream --j | grep -qx -- --json && ok "bash completes options" ||
	fail "bash: 'stream --j' gives: $(comp userevents stream --j)"
if command -v zsh >/dev/null; then
	zsh -n "$root/share/zsh/site-functions/_userevents" && ok "zsh completion parses" ||
		fail "zsh completion does not parse"
fi
if [ "$(id -u)" = 0 ] && [ -c /dev/fuse ]; then
	mkdir "$work/mnt"
	if unshare -m --propagation private bash -c '
		"$1" "$2" || exit 1
		"$3" "$2" 20 >/dev/null & pid=$!
		i=0; while ! grep -q example_tick "$2/user_events_status" && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done
		. "$4"
		COMP_WORDS=(userevents --tracefs "$2" enable user_events:example_t); COMP_CWORD=4
		_userevents; printf "%s\n" "${COMPREPLY[@]}" >"$5"
		COMP_WORDS=(userevents --tracefs "$2" stream -e user_events:example_r); COMP_CWORD=5
		_userevents; printf "%s\n" "${COMPREPLY[@]}" >>"$5"
		kill $pid; wait $pid; umount "$2"' \
		bash "$daemon" "$work/mnt" "$example" "$root/share/bash-completion/completions/userevents" \
		"$work/events" 2>"$work/err"; then
		[ "$(cat "$work/events")" = "user_events:example_tick
user_events:example_request" ] && ok "bash completes event names from the daemon" ||
			fail "bash: event names: $(cat "$work/events")"
	else
		fail "event-name completion: $(cat "$work/err")"
	fi
fi
# Uninstall: nothing of the install is left, and the build's log is as it was.
(cd "$scratch" && meson --internal uninstall) >"$work/unlog" 2>&1
# (the directories above the prefix are the DESTDIR's, made for it)
if grep -q '^Failed: 0$' "$work/unlog" && [ ! -e "$dest$prefix" ] &&
	[ -z "$(find "$dest" -mindepth 1 ! -type d | head -1)" ]; then
	ok "uninstall removed all $(sed -n 's/^Deleted: \([0-9]*\)$/\1/p' "$work/unlog") files and directories"
else
	fail "uninstall: $(grep -E '^(Could not|Failed)' "$work/unlog" | head -5); left: $(find "$dest$prefix" "$dest" -mindepth 1 ! -type d | head -5)"
fi
[ "$(buildlog)" = "$log_before" ] && ok "the build's install-log.txt is untouched" ||
	fail "the test changed $build/meson-logs/install-log.txt"

[ $fails = 0 ] || exit 1
echo "all passed"
