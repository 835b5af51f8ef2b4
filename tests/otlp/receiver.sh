# SPDX-License-Identifier: LGPL-2.1-or-later
# Sourced by the tests that export to the test receiver (receiver.js):
#   otlp_dir=DIR-OF-THIS-FILE; . "$otlp_dir/receiver.sh"
# with $node, $work (where its files go) and $pids (killed at exit) set.
# receiver NAME [ARGS]: start the receiver (ARGS: its faults); sets $url,
# $rpid, $rlog (its log of requests) and $rerr (what it said).
receiver() {
	rlog=$work/$1.log
	port=$work/$1.port
	rerr=$work/$1.rerr
	shift
	"$node" "$otlp_dir/receiver.js" --log "$rlog" --port-file "$port" "$@" >/dev/null 2>"$rerr" &
	rpid=$!
	pids="$pids $rpid"
	i=0
	until [ -s "$port" ] || [ $i -ge 200 ]; do sleep 0.05; i=$((i + 1)); done
	url=http://127.0.0.1:$(cat "$port")
}
