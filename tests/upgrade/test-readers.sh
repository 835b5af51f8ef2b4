#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Readers outlive their daemon (issue 30, item 1; tools/reattach.c).  In a
# private mount namespace, a usereventsd on $M and a libuserevents producer
# (lib_rate: lib_tick, n counting its writes 0, 1, 2 ...) writing 500 a
# second for 9 s.  For each reader (record, stream, stream --fields,
# export --otlp to the test receiver, top, top --records) attached before
# the producer starts: 2 s in, the daemon is SIGKILLed and a new one mounted
# at the same place with --replace (a new mount: a daemon run by hand, no
# keeper), the producer writing on (it reconnects by itself):
#   - the reader finds the new daemon, arms its events there again and reads
#     on: exit 0, its closing words say the daemon went away once;
#   - what it got is every write but those of the gap: n from 0 to the
#     producer's last, none twice, the missing ones (what was in flight when
#     the daemon died, and until the reader read again) within 2,500 of
#     each other (the 5 s a reader looks for a daemon), and 1,000 at least
#     after them (7 s at 500/s are left after the restart: a loaded
#     machine, ASan, took 3 s to read again once);
#   - the gap is marked where the format can carry it: a
#     "CPU:N [LOST EVENTS]" line for each CPU between the last record
#     before it and the first after (stream; report of record's trace.dat,
#     whose --stat says "+" on each CPU); export counts it (gaps: 1 in
#     `userevents stats`, the closing line); top says it over its tables,
#     whose totals never go down, and ends with it.
# The same with every reader at once under a keeper (usereventsd --keep):
# the same mount served again in milliseconds (the channels' sockets end
# with the dead daemon; top's counts see the crash in usereventsd_stats).
# Then, with no new daemon and --reattach 1: stream, export and top end
# within 1 s of looking, exit 1, with their closing line (the loss of
# unknown count marked), no bare errno.  Last, top across an upgrade (the
# daemon's counts start over in the new daemon): its totals never go down.
# Needs root and /dev/fuse (exit 77 otherwise).
#   test-readers.sh USEREVENTSD USEREVENTS LIB_RATE NODE
set -u
daemon=$1 tool=$2 lib_rate=$3 node=$4
here=$(cd "$(dirname "$0")" && pwd)
otlp=$here/../otlp

. "$here/common.sh"
in_namespace UE_READERS_NS "$@"
workdir readers
mkdir "$W/run"
export USEREVENTS_TRACEFS=$M USEREVENTS_RUNDIR=$W/run
unset LD_PRELOAD
ncpu=$(nproc)

serve() {	# serve NAME [--replace]: a daemon on $M, its pid in $dpid
	"$daemon" -f ${2:-} "$M" 2>"$W/$1.derr" &
	dpid=$!
	pids="$pids $dpid"
	i=0
	until [ -r "$M/usereventsd_stats" ] || [ $i -ge 100 ]; do sleep 0.05; i=$((i + 1)); done
}
armed() {	# armed LOG: the reader has armed its glob (or 5 s passed)
	i=0
	until grep -q 'yet (waiting for one)' "$1" 2>/dev/null || [ $i -ge 100 ]; do
		sleep 0.05; i=$((i + 1))
	done
}
# window N-FILE WRITTEN: the n a reader got (one a line) against the
# producer's count: "records R distinct D first F last L missing X window
# M1 M2 after A": the missing n all between M1 and M2 (the gap: records
# lost there may interleave with records kept, the producer's thread moving
# between CPUs whose pages were handed over or not), A the records after it.
window() {
	sort -n "$1" | awk -v w="$2" 'NR == 1 { f = $1 } { if (!($1 in seen)) d++; seen[$1] = 1; p = $1 }
		END { m1 = m2 = -1
		      for (i = 0; i < w; i++) if (!(i in seen)) { if (m1 < 0) m1 = i; m2 = i; x++ }
		      for (i = m2 + 1; i < w; i++) if (i in seen) a++
		      printf "records %d distinct %d first %d last %d missing %d window %d %d after %d\n",
			NR, d, NR ? f : -1, NR ? p : -1, x, m1, m2, a }'
}
# the n of lib_tick in trace lines ("n=0x5 (5)")
n_of_lines() { grep ' lib_tick: ' "$1" | sed 's/.* n=0x[0-9a-f]* (\([0-9]*\)).*/\1/'; }
# Where the gap is marked in trace lines (FILE M1 M2, the window; -1 -1
# when nothing was lost: then the n before the first mark): a "CPU:N [LOST
# EVENTS]" for each CPU, the first after every record before the gap, each
# before the first record of its CPU after it, 1,000 records after the first.
marked() {
	awk -v m1="$2" -v m2="$3" -v ncpu="$ncpu" '
		/ lib_tick: / { n = $0; sub(/.* n=0x[0-9a-f]* \(/, "", n); sub(/\).*/, "", n)
			c = $0; sub(/^[^[]*\[/, "", c); sub(/\].*/, "", c)
			k++; rl[k] = NR; rn[k] = n + 0; rc[k] = c + 0
			if (!fm && n + 0 >= top) top = n + 1 }
		/^CPU:[0-9]+ \[LOST EVENTS\]$/ { c = $0; sub(/^CPU:/, "", c); sub(/ .*/, "", c)
			ml[c + 0] = NR; m++; if (!fm) fm = NR }
		END { if (m1 < 0) { m1 = top; m2 = top - 1 }
		      ok = m == ncpu
		      for (i = 1; i <= k; i++) {
			if (rn[i] < m1 && rl[i] > fm) { ok = 0; late++ }
			if (rn[i] > m2 && !(rc[i] in fa)) fa[rc[i]] = rl[i]
			if (rl[i] > fm) after++ }
		      ok = ok && after >= 1000
		      for (c in fa) if (!(c in ml) || ml[c] > fa[c]) ok = 0
		      printf "%s: %d marks from line %d, %d records after, %d of before the gap after it\n",
			ok ? "yes" : "no", m, fm, after, late }' "$1"
}
# The whole check: one window missing, nothing twice, the producer's last write in, 1,000 after.
n_check() {	# NAME NFILE TRACE-LINES-FILE|-
	wrote=$(sed -n 's/^wrote \([0-9]*\) .*/\1/p' "$W/lib.out")
	r=$(window "$2" "${wrote:-0}")
	echo "# $1: producer $(cat "$W/lib.out"); reader $r"
	set -- "$1" "$2" "$3" $r
	# $5 R, $7 D, $9 F, ${11} L, ${13} X, ${15} M1, ${16} M2, ${18} A
	if [ "$5" = "$7" ] && [ "$9" = 0 ] && [ "${11}" = $((wrote - 1)) ] &&
		[ $((${16} - ${15})) -lt 2500 ] && [ "${18}" -ge 1000 ]; then
		ok "$1: every write but the gap's (${13} of $wrote lost, n ${15} to ${16}), ${18} after it, none twice"
	else
		no "$1: $r of $wrote written"
	fi
	[ "$3" = - ] && return
	m=$(marked "$3" "${15}" "${16}")
	case $m in yes*) ok "$1: the gap marked on each CPU where it is ($m)" ;;
		*) no "$1: the gap is not marked where it is: $m" ;; esac
}
work=$W otlp_dir=$otlp
. "$otlp/receiver.sh"
# The n of every log record the receiver decoded.
otlp_n() {
	"$node" -e '
		for (const l of require("fs").readFileSync(process.argv[1], "utf8").split("\n")) {
			if (!l) continue;
			const r = JSON.parse(l);
			if (r.ev !== "request" || !r.decoded) continue;
			for (const rl of r.decoded.resourceLogs || [])
				for (const sl of rl.scopeLogs || [])
					for (const lr of sl.logRecords || [])
						for (const a of lr.attributes || [])
							if (a.key === "n") console.log(a.value.intValue);
		}' "$1"
}
# The totals of lib_tick in top's tables, in order; whether they never go down.
top_totals() { awk '$1 == "lib_tick" { print $NF }' "$1"; }
monotone() { awk 'NR > 1 && $1 < p { bad = 1 } { p = $1 } END { exit bad }'; }

# restart READER-NAME COMMAND...: the reader through a SIGKILL and a --replace.
restart() {
	name=$1
	shift
	serve "$name.d0"
	"$@" >"$W/$name.out" 2>"$W/$name.err" &
	rpid_=$!
	pids="$pids $rpid_"
	armed "$W/$name.err"
	"$lib_rate" 500 9 >"$W/lib.out" 2>&1 &
	ppid_=$!
	pids="$pids $ppid_"
	sleep 2
	kill -9 "$dpid"
	wait "$dpid" 2>/dev/null
	serve "$name.d1" --replace
	wait "$ppid_"
	[ -n "${probe:-}" ] && eval "$probe"
	sleep 1
	[ "$name" = export ] && "$tool" stats >"$W/export.stats" 2>&1
	kill -INT "$rpid_"
	wait "$rpid_"
	rc=$?
	kill "$dpid"
	wait "$dpid" 2>/dev/null
	reader_ok "$name" $rc
}
# reader_ok NAME RC [kept]: exit 0, the new daemon found (kept: top's
# counts, whose session the kept mount still serves, look for none), the
# gap said at the end, no bare errno.
reader_ok() {
	echo "# $1: $(grep -o 'found in .* s' "$W/$1.err"); the last line: $(tail -n 1 "$W/$1.err")"
	if [ "$2" = 0 ] && { [ "${3:-}" = kept ] || grep -q 'a daemon serves .* again, found in' "$W/$1.err"; } &&
		grep -q 'the daemon went away 1 time' "$W/$1.err" && ! grep -q 'not connected' "$W/$1.err"; then
		ok "$1: ${3:+under the keeper: }the daemon's end seen, exit 0, the gap said"
	else
		no "$1: exit $2"
		sed 's/^/#   /' "$W/$1.err"
	fi
}
# top_check NAME: the totals of lib_tick in top's tables never go down, the
# last within a quarter of what was written, 4 tables at least with a rate
# after the one that says the gap.
top_check() {
	top_totals "$W/$1.out" >"$W/$1.totals"
	wrote=$(sed -n 's/^wrote \([0-9]*\) .*/\1/p' "$W/lib.out")
	last=$(tail -n 1 "$W/$1.totals")
	after=$(awk '/^userevents top .* went away 1 time/ { g = 1 } g && $1 == "lib_tick" && $2 + 0 > 0 { n++ }
		END { print n + 0 }' "$W/$1.out")
	echo "# $1: written ${wrote:-?}, the last total ${last:-?}, tables with a rate after the gap: $after"
	monotone <"$W/$1.totals" && [ "${last:-0}" -ge $((${wrote:-1} * 3 / 4)) ] &&
		[ "${last:-0}" -le "${wrote:-0}" ] && [ "$after" -ge 4 ] &&
		ok "$1: counts on after the gap (total $last of $wrote, never down, $after tables after)" ||
		no "$1: totals $(tr '\n' ' ' <"$W/$1.totals") of ${wrote:-?} written, $after tables after"
}

restart record "$tool" record -o "$W/rec.dat" -e 'lib_*'
"$tool" report "$W/rec.dat" >"$W/rec.txt" 2>&1
n_of_lines "$W/rec.txt" >"$W/rec.n"
n_check record "$W/rec.n" "$W/rec.txt"
plus=$("$tool" report --stat "$W/rec.dat" | grep -c '^[0-9]  *[0-9]*  *[0-9]*+$')
[ "$plus" = "$ncpu" ] && ok "record: report --stat says a loss of unknown count on each CPU" ||
	no "record: report --stat: $plus CPUs with '+' of $ncpu"

restart stream "$tool" stream -e 'lib_*'
n_of_lines "$W/stream.out" >"$W/stream.n"
n_check stream "$W/stream.n" "$W/stream.out"

probe='cat "$M/options/fields" >"$W/fields.opt"'
restart fields "$tool" stream --fields -e 'lib_*'
probe=
n_of_lines "$W/fields.out" >"$W/fields.n"
n_check "stream --fields" "$W/fields.n" "$W/fields.out"
[ "$(cat "$W/fields.opt")" = 1 ] && ok "stream --fields: options/fields set again on the new daemon" ||
	no "stream --fields: the new daemon's options/fields is $(cat "$W/fields.opt")"

receiver export
restart export "$tool" export --otlp "$url" -e 'lib_*'
kill "$rpid"
wait "$rpid" 2>/dev/null
otlp_n "$rlog" >"$W/export.n"
n_check export "$W/export.n" -
grep -q "^export\.[0-9]*\.gaps: 1$" "$W/export.stats" &&
	ok "export: userevents stats counts the gap ($(grep '\.gaps:' "$W/export.stats"))" ||
	no "export: no gap in userevents stats: $(grep '^export' "$W/export.stats" | tr '\n' ' ')"
grep -q 'retried; .*the daemon went away 1 time: what was written meanwhile is lost' "$W/export.err" &&
	ok "export: its closing line counts the gap" || no "export: the closing line: $(tail -n 1 "$W/export.err")"

restart top "$tool" top -d 0.5 -e 'lib_*'
top_check top
restart top-records "$tool" top --records -d 0.5 -e 'lib_*'
top_check top-records

# Under a keeper (usereventsd --keep, which stands in for systemd's fd
# store): the same mount, served by a new daemon within milliseconds of a
# kill -9 of its daemon; every reader at once.
"$daemon" --keep -f "$M" 2>"$W/keeper.err" &
keeper=$!
pids="$pids $keeper"
i=0
until [ -r "$M/usereventsd_stats" ] || [ $i -ge 100 ]; do sleep 0.05; i=$((i + 1)); done
receiver kept
"$tool" record -o "$W/krec.dat" -e 'lib_*' >/dev/null 2>"$W/k-record.err" & k1=$!
"$tool" stream -e 'lib_*' >"$W/k-stream.out" 2>"$W/k-stream.err" & k2=$!
"$tool" export --otlp "$url" -e 'lib_*' >/dev/null 2>"$W/k-export.err" & k3=$!
"$tool" top -d 0.5 -e 'lib_*' >"$W/k-top.out" 2>"$W/k-top.err" & k4=$!
"$tool" top --records -d 0.5 -e 'lib_*' >"$W/k-top-records.out" 2>"$W/k-top-records.err" & k5=$!
pids="$pids $k1 $k2 $k3 $k4 $k5"
for n in record stream export top top-records; do armed "$W/k-$n.err"; done
"$lib_rate" 500 9 >"$W/lib.out" 2>&1 & lp=$!
pids="$pids $lp"
sleep 2
kill -9 "$(cat "/proc/$keeper/task/$keeper/children")"
wait "$lp"
sleep 1
kill -INT $k1 $k2 $k3 $k4 $k5
for n in 1 2 3 4 5; do
	eval "wait \$k$n"
	eval "krc$n=\$?"
done
kill "$rpid" "$keeper"
wait "$keeper" 2>/dev/null
echo "# keeper: $(tr '\n' ' ' <"$W/keeper.err")"
reader_ok k-record $krc1
"$tool" report "$W/krec.dat" >"$W/krec.txt" 2>&1
n_of_lines "$W/krec.txt" >"$W/krec.n"
n_check "kept: record" "$W/krec.n" "$W/krec.txt"
reader_ok k-stream $krc2
n_of_lines "$W/k-stream.out" >"$W/kstream.n"
n_check "kept: stream" "$W/kstream.n" "$W/k-stream.out"
reader_ok k-export $krc3
otlp_n "$rlog" >"$W/kexport.n"
n_check "kept: export" "$W/kexport.n" -
reader_ok k-top $krc4 kept
top_check k-top
reader_ok k-top-records $krc5
top_check k-top-records

# No daemon comes back: the readers end, said and marked, exit 1.
serve gone.d0
"$tool" stream --reattach 1 -e 'lib_*' >"$W/gstream.out" 2>"$W/gstream.err" & gs=$!
receiver gone
"$tool" export --reattach 1 --otlp "$url" -e 'lib_*' >/dev/null 2>"$W/gexport.err" & ge=$!
"$tool" top --reattach 1 -d 0.5 -e 'lib_*' >"$W/gtop.out" 2>"$W/gtop.err" & gt=$!
pids="$pids $gs $ge $gt"
armed "$W/gstream.err"; armed "$W/gexport.err"; armed "$W/gtop.err"
"$lib_rate" 500 2 >"$W/lib.out" 2>&1 &
pids="$pids $!"
sleep 1
kill -9 "$dpid"
t0=$(date +%s%N)
for p in $gs $ge $gt; do
	i=0
	while alive "$p" && [ $i -lt 60 ]; do sleep 0.1; i=$((i + 1)); done
done
secs=$((($(date +%s%N) - t0) / 1000000))
for p in $gs $ge $gt; do alive "$p" && { echo "# $p still reads: killed"; kill -9 "$p"; }; done
wait $gs; src=$?
wait $ge; erc=$?
wait $gt; trc=$?
echo "# gone: the readers ended ${secs} ms after the SIGKILL"
[ $src = 1 ] && grep -q 'no daemon served .* again in time: the trace ends here$' "$W/gstream.err" &&
	grep -q 'then the daemon went away: what came after is lost, count unknown$' "$W/gstream.err" &&
	[ "$(grep -c '^CPU:[0-9]* \[LOST EVENTS\]$' "$W/gstream.out")" = "$ncpu" ] &&
	! grep -q 'not connected' "$W/gstream.err" &&
	ok "gone: stream ends with its closing line and the loss marked, exit 1" ||
	{ no "gone: stream exit $src"; sed 's/^/#   /' "$W/gstream.err"; }
[ $erc = 1 ] && grep -q 'no daemon served .* again in time' "$W/gexport.err" &&
	grep -q 'retried; .*the daemon went away 1 time' "$W/gexport.err" && ! grep -q 'not connected' "$W/gexport.err" &&
	ok "gone: export ends with its closing line, the loss counted, exit 1" ||
	{ no "gone: export exit $erc"; sed 's/^/#   /' "$W/gexport.err"; }
[ $trc = 1 ] && grep -q 'no daemon served .* again in time' "$W/gtop.err" &&
	grep -q 'then the daemon went away: what came after is lost' "$W/gtop.err" && ! grep -q 'not connected' "$W/gtop.err" &&
	ok "gone: top ends with its closing line, exit 1" ||
	{ no "gone: top exit $trc"; sed 's/^/#   /' "$W/gtop.err"; }
[ "$secs" -lt 4000 ] && ok "gone: all ended within 4 s of the SIGKILL (--reattach 1)" ||
	no "gone: they took $secs ms"
kill "$rpid"
umount -l "$M" 2>/dev/null

# top across an upgrade: the new daemon's counts start from 0; top's totals go on.
serve up.d0
"$tool" top -d 0.5 -e 'lib_*' >"$W/uptop.out" 2>"$W/uptop.err" & ut=$!
pids="$pids $ut"
armed "$W/uptop.err"
"$lib_rate" 500 4 >"$W/lib.out" 2>&1 & lp=$!
pids="$pids $lp"
sleep 2
"$daemon" --upgrade -f "$M" 2>"$W/up.d1.err" & d1=$!
pids="$pids $d1"
wait "$lp"
sleep 1
kill -INT "$ut"
wait "$ut"; urc=$?
top_totals "$W/uptop.out" >"$W/uptop.totals"
wrote=$(sed -n 's/^wrote \([0-9]*\) .*/\1/p' "$W/lib.out")
last=$(tail -n 1 "$W/uptop.totals")
[ $urc = 0 ] && monotone <"$W/uptop.totals" && [ "${last:-0}" -ge $((${wrote:-1} * 3 / 4)) ] &&
	! grep -q 'went away' "$W/uptop.out" "$W/uptop.err" &&
	ok "top across an upgrade: totals never down ($last of $wrote), no gap said" ||
	no "top across an upgrade: exit $urc, totals $(tr '\n' ' ' <"$W/uptop.totals") of ${wrote:-?}"
kill "$d1"

[ "$fails" = 0 ]
