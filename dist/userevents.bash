# SPDX-License-Identifier: LGPL-2.1-or-later
# bash completion of userevents(1) and usereventsd(8): commands, options, and
# the event names of the tracefs the command would use (userevents list -n).

_userevents_events()
{
	local tracefs=()
	[ -n "$1" ] && tracefs=(--tracefs "$1")
	userevents "${tracefs[@]}" list -n 2>/dev/null
}

_userevents()
{
	local cur prev cmd="" tracefs="" i=1 word
	COMPREPLY=()
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD - 1]}

	# The global options, then the command.
	while [ $i -lt "$COMP_CWORD" ]; do
		word=${COMP_WORDS[i]}
		case $word in
		--tracefs) tracefs=${COMP_WORDS[i + 1]}; i=$((i + 2)); continue ;;
		--color) i=$((i + 2)); continue ;;
		--tracefs=*) tracefs=${word#--tracefs=} ;;
		-*) ;;
		*) cmd=$word; break ;;
		esac
		i=$((i + 1))
	done
	# After "--" of run and record: a command and its arguments.
	for ((word = i + 1; word < COMP_CWORD; word++)); do
		if [ "${COMP_WORDS[word]}" = -- ]; then
			if [ $((word + 1)) -eq "$COMP_CWORD" ]; then
				COMPREPLY=($(compgen -c -- "$cur"))
			else
				COMPREPLY=($(compgen -f -- "$cur"))
			fi
			return
		fi
	done

	case $prev in
	--tracefs) COMPREPLY=($(compgen -d -- "$cur")); return ;;
	--color) COMPREPLY=($(compgen -W "auto always never" -- "$cur")); return ;;
	-e|--event) COMPREPLY=($(compgen -W "$(_userevents_events "$tracefs")" -- "$cur")); return ;;
	-o|--output) COMPREPLY=($(compgen -f -- "$cur")); return ;;
	-f|--filter|--pid|-p|--provider|-b|--buffer-size|--duration|--max-size|--interval|--count|--reattach) return ;;
	--otlp|--header|--batch-records|--batch-bytes|--batch-delay|--queue-bytes|--timeout|--retry-timeout|--flush-timeout) return ;;
	--protocol) COMPREPLY=($(compgen -W "http/protobuf http/json" -- "$cur")); return ;;
	--drop) COMPREPLY=($(compgen -W "oldest newest" -- "$cur")); return ;;
	esac

	if [ -z "$cmd" ]; then
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "--tracefs --color --help --version" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "list enable disable stream stats run record report export top help" -- "$cur"))
		fi
		return
	fi
	case $cmd in
	list)
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "-n --names --json --help" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "$(_userevents_events "$tracefs")" -- "$cur"))
		fi ;;
	enable|disable)
		COMPREPLY=($(compgen -W "$(_userevents_events "$tracefs") --help" -- "$cur")) ;;
	stream)
		COMPREPLY=($(compgen -W "-e --event -f --filter -p --provider --fields --json --wall-clock --format= -b --buffer-size --blocking --no-blocking --reattach --help" -- "$cur")) ;;
	stats)
		COMPREPLY=($(compgen -W "--json --interval --count --help" -- "$cur")) ;;
	run)
		COMPREPLY=($(compgen -W "-e --event -f --filter -p --provider -o --output -b --buffer-size -q --quiet --no-preload -- --help" -- "$cur")) ;;
	record)
		COMPREPLY=($(compgen -W "-o --output --format -e --event -f --filter -p --provider -b --buffer-size --blocking --no-blocking --duration --max-size --reattach -q --quiet --no-preload -- --help" -- "$cur")) ;;
	export)
		COMPREPLY=($(compgen -W "--otlp -e --event -f --filter -p --provider --protocol --gzip --header --batch-records --batch-bytes --batch-delay --queue-bytes --drop --timeout --retry-timeout --flush-timeout -b --buffer-size --blocking --no-blocking --reattach -q --quiet --no-preload -- --help" -- "$cur")) ;;
	top)
		COMPREPLY=($(compgen -W "-e --event -f --filter -p --provider -d --once --records --group --sort -b --buffer-size --reattach --no-preload -- --help" -- "$cur")) ;;
	report)
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "-e --event -p --provider --pid --fields --json --wall-clock --html --format= --stat --counter --help" -- "$cur"))
		else
			COMPREPLY=($(compgen -f -- "$cur"))
		fi ;;
	esac
}
complete -F _userevents userevents

_usereventsd()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
	COMPREPLY=()
	case $prev in
	-o)
		COMPREPLY=($(compgen -W "uid= gid= mode= max_events= buffer_size_kb= threads= max_files= max_text_mb= max_enablers= max_enabler_processes= max_file_events= allow_other" -- "$cur"))
		compopt -o nospace 2>/dev/null
		return ;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "-f -d -o --replace --exit-with-parent --rmdir --help --version" -- "$cur"))
	else
		COMPREPLY=($(compgen -d -- "$cur"))
	fi
}
complete -F _usereventsd usereventsd
