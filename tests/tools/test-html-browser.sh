#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# report --html (tools/sink-html.c) of a trace of over 1 M records in a real
# browser, Debian's headless Chromium (package chromium, scripts/deps.txt):
#  - the trace: three rate_producers (rate_tick 500,000/s with net_rx and
#    disk_io beside it, 5 s), recorded as test-chrome.sh records its 1 M
#    records, with a 1 MiB buffer a CPU and the reader stopped (SIGSTOP) for
#    2 s while they write: record holds them back for 1 s (its default
#    --blocking), then records are lost, and marked, until it reads again;
#  - the page opens within 10 s: chromium --dump-dom of it, browser start
#    included, timed (a tiny page's time is printed beside it);
#  - the DOM holds what the file holds (html-check.py on both: a plot
#    series per event, a timeline row per thread, the loss markers, 500 rows,
#    the summary, nothing fetched), the summary's, legend's and rows' text;
#  - a screenshot (--screenshot) is not blank (png-check.py decodes it):
#    4 % of its pixels or more not the background, 50 colours or more,
#    pixels of each series' colour and of the loss markers' red.
# Chromium runs hermetically: its own --user-data-dir and HOME in the test's
# directory, file:// only, in a network namespace with no network and a pid
# namespace of its own, SIGKILLed at 60 s (its last process goes with the
# namespace); no process of it may be left, after a timeout either (one
# forced on a page that never loads, at 10 s).  No chromium fails the test.
# UE_HTML_SHOT=FILE also writes the README's screenshot (docs/img/report.png)
# to FILE: this page at --window-size=1240,820 with --force-device-scale-factor=0.75
# (930 by 615 pixels: the summary, the plot, the timeline).
# Needs root and /dev/fuse for the trace: exit 77 otherwise.
# Usage: test-html-browser.sh USEREVENTS RATE_PRODUCER
set -u
tool=$1
producer=$2
here=$(dirname "$0")

command -v chromium >/dev/null ||
	{ echo "not ok - no chromium (Debian's package chromium: scripts/install-deps installs it)"; exit 1; }
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root"; exit 77; }
[ -c /dev/fuse ] || { echo "SKIP: no /dev/fuse"; exit 77; }
command -v unshare >/dev/null || { echo "SKIP: no unshare"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
if [ -z "${UE_BROWSER_NS:-}" ]; then
	UE_BROWSER_NS=1 exec unshare -m --propagation private -- "$0" "$@"
fi
W=$(mktemp -d "${TMPDIR:-/tmp}/ue-browser.XXXXXX") || exit 1
rec=
trap '[ -n "$rec" ] && kill -CONT "$rec" 2>/dev/null; rm -rf "$W"' EXIT
unset USEREVENTS_TRACEFS
fails=0
ok() { echo "ok - $1"; }
no() { echo "not ok - $1"; fails=$((fails + 1)); }

# chromium ARGS...: headless, its profile, cache and HOME in $W, no network
# (a network namespace with only a loopback that is down), in a pid
# namespace (its id kept in $W/pidns) whose first process is SIGKILLed with
# unshare: all of its processes go with it, at the latest when timeout
# SIGKILLs unshare after $secs seconds.
secs=60
browse() {
	mkdir -p "$W/home"
	timeout -s KILL "$secs" unshare --pid --fork --kill-child --mount-proc --net sh -c '
		readlink /proc/self/ns/pid >> "$0/pidns" || exit 1
		export HOME="$0/home" XDG_CONFIG_HOME="$0/home/.config" XDG_CACHE_HOME="$0/home/.cache"
		exec chromium "$@"' "$W" \
		--headless --no-sandbox --user-data-dir="$W/profile" --disable-gpu \
		--no-first-run --no-default-browser-check --disable-background-networking \
		--disable-component-update --disable-sync --disable-extensions --disable-default-apps \
		--disable-breakpad --hide-scrollbars "$@"
}
# The processes of those pid namespaces, on one line.
left() {
	l=
	for p in /proc/[0-9]*; do
		ns=$(readlink "$p/ns/pid" 2>/dev/null) && grep -qxF -- "$ns" "$W/pidns" && l="$l ${p#/proc/}"
	done
	echo $l
}
# None of them left within 2 s (a namespace's first process, killed, waits
# for the others to die).
gone() {
	i=0
	while [ -n "$(left)" ] && [ $i -lt 20 ]; do sleep 0.1; i=$((i + 1)); done
	[ -z "$(left)" ]
}
ms_since() { echo $((($(date +%s%N) - $1) / 1000000)); }

# The trace: 2.8 M records written, about 2 s of them lost (1 s and what
# the producers, held back for 1 s, write to catch up).
"$tool" record -q -b 1024 -o "$W/big.dat" -- sh -c "touch '$W/go'; \
	'$producer' 500000 5 rate_tick & '$producer' 50000 5 net_rx 24 & \
	'$producer' 10000 5 disk_io & wait" > /dev/null 2> "$W/rec.err" &
rec=$!
i=0
while [ ! -e "$W/go" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
sleep 0.8
kill -STOP "$rec"
sleep 2
kill -CONT "$rec"
wait "$rec" || { no "record"; cat "$W/rec.err"; }
rec=
"$tool" report --stat "$W/big.dat" > "$W/stat"
n=$(awk '$1 == "total" {print $2; exit}' "$W/stat")
lost=$(awk '/^CPU /{c=1; next} c && NF==3 {s+=$3} END {print s+0}' "$W/stat")
[ "${n:-0}" -ge 1000000 ] && [ "$lost" -gt 0 ] && ok "a trace of $n records, $lost lost" ||
	{ no "a trace of over 1 M records with losses: ${n:-?} records, $lost lost"; cat "$W/stat" "$W/rec.err"; }

t0=$(date +%s%N)
"$tool" report --html "$W/big.dat" > "$W/big.html" || no "report --html"
echo "# report --html: $(ms_since "$t0") ms, $(wc -c < "$W/big.html") bytes"
rm -f "$W/big.dat"
want=$(python3 "$here/html-check.py" "$W/big.html") &&
	echo "$want" | grep -q '^series=3 rows=500 lost=[1-9][0-9]* slices=0 threads=3$' &&
	ok "the page: $want" || no "the page: $want"

# The browser's start alone, then the page; the DOM as it loaded it.
printf '<!DOCTYPE html>\n<html><body><p id="x">x</p></body></html>\n' > "$W/tiny.html"
t0=$(date +%s%N)
browse --dump-dom "file://$W/tiny.html" > "$W/tiny.dom" 2> "$W/chromium.err"
start_ms=$(ms_since "$t0")
grep -q '<p id="x">x</p>' "$W/tiny.dom" && ok "chromium starts and loads a page: $start_ms ms" ||
	{ no "chromium on a tiny page"; tail -20 "$W/chromium.err"; }
t0=$(date +%s%N)
browse --dump-dom "file://$W/big.html" > "$W/big.dom" 2> "$W/chromium.err"
rc=$?
load_ms=$(ms_since "$t0")
if [ $rc = 0 ] && [ "$load_ms" -lt 10000 ] && grep -q '</table>' "$W/big.dom"; then
	ok "the page of $n records opens in chromium in $load_ms ms (its start: $start_ms ms)"
else
	no "the page of $n records in chromium: exit $rc in $load_ms ms (10 s at most)"
	tail -20 "$W/chromium.err"
fi
got=$(python3 "$here/html-check.py" "$W/big.dom") && [ "$got" = "$want" ] &&
	ok "the DOM: $got" || no "the DOM: $got, the file: $want"
# The summary, the legend and the table's rows as the file has them.
python3 - "$W/big.html" "$W/big.dom" <<'X' && ok "the DOM's summary, legend and rows" || no "the DOM's text"
import html, re, sys
f, d = (open(p, encoding="utf-8").read() for p in sys.argv[1:])
def text(s, pat):
    return [html.unescape(re.sub(r"<[^>]*>", "", m)) for m in re.findall(pat, s, re.S)]
for pat in (r'<p id="summary">(.*?)</p>', r'<ul class="legend">(.*?)</ul>', r"<tr><td>(.*?)</td></tr>\s*</t"):
    a, b = text(f, pat), text(d, pat)
    if not a or a != b:
        print("the file: %r\nthe DOM: %r" % (a[:1], b[:1]))
        sys.exit(1)
for ev in ("rate_tick", "net_rx", "disk_io"):
    if "user_events:%s (" % ev not in text(d, r'<ul class="legend">(.*?)</ul>')[0]:
        print("no %s in the legend" % ev)
        sys.exit(1)
X

# A screenshot of the plot and the timeline.
browse --screenshot="$W/shot.png" --window-size=1280,1000 "file://$W/big.html" \
	> "$W/shot.out" 2> "$W/chromium.err"
shot=$(python3 "$here/png-check.py" "$W/shot.png" --size 1280x1000 --ink 4 --colours 50 \
	--near 1f77b4:300 --near ff7f0e:100 --near 2ca02c:100 --near d62728:100) &&
	ok "the screenshot is not blank: $shot" || { no "the screenshot: $shot"; cat "$W/shot.out"; }
if [ -n "${UE_HTML_SHOT:-}" ]; then
	browse --screenshot="$W/readme.png" --window-size=1240,820 --force-device-scale-factor=0.75 \
		"file://$W/big.html" > /dev/null 2> "$W/chromium.err" && cp "$W/readme.png" "$UE_HTML_SHOT" &&
		echo "# $UE_HTML_SHOT: $(wc -c < "$UE_HTML_SHOT") bytes"
fi

# Nothing of chromium is left, even after a timeout: one on a page that
# never loads (a FIFO) has its processes (3 or more: the browser, its
# zygotes, a renderer...) within 8 s, none once SIGKILLed at 10 s.
if [ -s "$W/pidns" ] && gone; then
	ok "no chromium process left"
else
	no "processes left: $(left)"; kill -9 $(left) 2>/dev/null
fi
mkfifo "$W/never.html"
secs=10 browse --dump-dom "file://$W/never.html" > /dev/null 2>&1 &
i=0
while during=$(left) && [ "$(echo $during | wc -w)" -lt 3 ] && [ $i -lt 40 ]; do
	sleep 0.2; i=$((i + 1))
done
wait $!
rc=$?
gone
after=$(left)
[ "$rc" = 137 ] && [ "$(echo $during | wc -w)" -ge 3 ] && [ -z "$after" ] &&
	ok "a page that never loads: SIGKILLed at 10 s, its $(echo $during | wc -w) processes gone" ||
	{ no "a timeout: exit $rc, processes $during, 2 s after it $after"; kill -9 $after 2>/dev/null; }

# And the checker fails a blank screenshot.
python3 - "$W/blank.png" <<'X'
import struct, sys, zlib
w, h = 64, 48
def chunk(k, b):
    return struct.pack(">I", len(b)) + k + b + struct.pack(">I", zlib.crc32(k + b))
raw = b"".join(b"\0" + b"\xff" * (3 * w) for _ in range(h))
open(sys.argv[1], "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)) +
                              chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
X
python3 "$here/png-check.py" "$W/blank.png" --ink 4 --colours 50 > /dev/null &&
	no "png-check passes a blank image" || ok "png-check fails a blank image"

[ "$fails" = 0 ]
