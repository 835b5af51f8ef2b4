#compdef userevents usereventsd
# SPDX-License-Identifier: LGPL-2.1-or-later
# zsh completion of userevents(1) and usereventsd(8): commands, options, and
# the event names of the tracefs the command would use (userevents list -n).

_userevents_events() {
	local -a evs tf
	[[ -n $opt_args[--tracefs] ]] && tf=(--tracefs $opt_args[--tracefs])
	evs=(${(f)"$(_call_program events userevents $tf list -n 2>/dev/null)"})
	compadd -a evs
}

_userevents_cmd() {
	local -a ev=('*'{-e,--event}'[events: SYSTEM:NAME glob]:event:_userevents_events'
		'*'{-f,--filter}'[filter of the -e before it]:filter:')
	local -a pv=('*'{-p,--provider}'[EventHeader provider PROVIDER\[:LEVEL\[:KEYWORDS\]\]]:provider:')
	local -a bu=({-b,--buffer-size}'[channel KiB per CPU]:KiB:' '(--no-blocking)--blocking=-[hold producers back up to MS]::ms:' '(--blocking)--no-blocking[lose records rather than wait]')
	local -a ra=('--reattach[look for a daemon again for SECONDS when it goes away]:seconds:')
	case $words[1] in
	list) _arguments '(-n --names --json)'{-n,--names}'[names only]' \
		'(-n --names --json)--json[one JSON object per event]' '*:event:_userevents_events' ;;
	enable|disable) _arguments '*:event:_userevents_events' ;;
	stream) _arguments $ev $pv $bu $ra '(--json --format)--fields[fields as name=value]' \
		'(--fields --format)--json[one JSON object a record]' \
		'--wall-clock[JSON ts in ns since the epoch]' \
		'(--fields --json)--format=[output format]:format:(text fields json perf-decode)' ;;
	stats) _arguments '--json[one JSON object]' '--interval[rates every SECONDS]:seconds:' \
		'--count[that many intervals]:count:' '--help[usage]' ;;
	run) _arguments $ev $pv {-o,--output}'[copy of the output]:file:_files' {-q,--quiet}'[summary only]' \
		{-b,--buffer-size}'[ring buffer KiB per CPU]:KiB:' '--no-preload[CMD without the interposer]' \
		'(-):command:_command_names -e' '*::args:_normal' ;;
	record) _arguments $ev $pv $bu $ra {-o,--output}'[trace.dat or perf.data to write (default ./trace.dat)]:file:_files' {-q,--quiet}'[no progress]' \
		'--format=-[the file: trace-cmd'\''s or perf'\''s]:format:(trace.dat perf)' \
		'--duration[stop after SECONDS]:seconds:' '--max-size[stop at a file of SIZE (K, M, G)]:size:' \
		'--no-preload[CMD without the interposer]' \
		'(-):command:_command_names -e' '*::args:_normal' ;;
	export) _arguments $ev $pv $bu $ra '--otlp[OTLP/HTTP endpoint]:url:' \
		'--protocol[encoding]:protocol:(http/protobuf http/json)' '--gzip[compress the bodies]' \
		'*--header[extra header K=V]:header:' '--batch-records[records per request]:n:' \
		'--batch-bytes[bytes per request]:size:' '--batch-delay[longest wait of a record, ms]:ms:' \
		'--queue-bytes[queue bound]:size:' '--drop[when the queue is full]:which:(oldest newest)' \
		'--timeout[one request, ms]:ms:' '--retry-timeout[retrying one request, ms]:ms:' \
		'--flush-timeout[the flush at exit, ms]:ms:' {-q,--quiet}'[no counters at exit]' \
		'--no-preload[CMD without the interposer]' \
		'(-):command:_command_names -e' '*::args:_normal' ;;
	top) _arguments $ev $pv $ra '-d[seconds between refreshes]:seconds:' \
		'--once[one table after one interval]' \
		'--records[count records read, not the daemon'\''s counts]' \
		'--group[rows per]:group:(event provider process)' \
		'--sort[sort by]:key:(events bytes lost name)' \
		'(-b --buffer-size)'{-b,--buffer-size}'[KiB per CPU]:KiB:' \
		'--no-preload[CMD without the interposer]' \
		'(-):command:_command_names -e' '*::args:_normal' ;;
	report) _arguments '*'{-e,--event}'[events: SYSTEM:NAME glob]:event:' $pv '--pid[only this process]:pid:' \
		'(--json --html --format --stat)--fields[fields as name=value]' \
		'(--fields --html --format --stat)--json[one JSON object a record]' \
		'--wall-clock[JSON ts in ns since the epoch]' \
		'(--fields --json --format --stat)--html[one self-contained HTML page (--format=html)]' \
		'(--fields --json --html --stat)--format=[output format]:format:(text fields json perf-decode chrome html)' \
		'(--fields --json --html --format)--stat[counts per event and CPU, lost, first and last time]' \
		'*--counter[a numeric field as a counter (--format=chrome)]:EVENT.FIELD:' \
		'::trace.dat (default ./trace.dat):_files' ;;
	esac
}

_userevents() {
	local curcontext=$curcontext state line
	typeset -A opt_args
	if [[ $service == usereventsd ]]; then
		_arguments -s '-f[stay in the foreground]' '-d[print every FUSE request]' \
			'*-o[options]:options:(uid= gid= mode= max_events= buffer_size_kb= threads= max_files= max_text_mb= max_enablers= max_enabler_processes= max_file_events= allow_other)' \
			'--replace[detach a usereventsd mounted there]' \
			'--exit-with-parent[end with the process that started it]' \
			'--rmdir[remove the mount point at the end]' \
			'(- *)'{-h,--help}'[usage]' '(- *)'{-V,--version}'[version]' \
			':mount point:_directories'
		return
	fi
	_arguments -C '--tracefs[tracefs directory]:directory:_directories' \
		'--color=[bold text]:when:(auto always never)' \
		'(- *)'{-h,--help}'[usage]' '(- *)'{-V,--version}'[version]' \
		'1:command:((list\:"events, fields, state, filter, triggers" enable\:"enable events" disable\:"disable events" stream\:"records as they come" stats\:"counters" run\:"trace one program privately" record\:"record a trace.dat" report\:"print a trace.dat" export\:"send to an OpenTelemetry collector" top\:"live rates per event, provider, process" help\:"usage"))' \
		'*::arg:->args'
	[[ $state == args ]] && _userevents_cmd
}

_userevents "$@"
