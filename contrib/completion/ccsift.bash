# bash completion for ccsift(1)                            -*- shell-script -*-
#
# Installed as $datadir/bash-completion/completions/ccsift, where
# bash-completion loads it the first time ccsift is completed. Without
# bash-completion, source it from ~/.bashrc. It needs nothing else.

_ccsift_commands='filter serve tag score explain parse index who eval train calibrate init config stats'

# The long options of a command, as its --help lists them.
_ccsift_options()
{
	case $1 in
	filter)
		echo --config --repo --index --me --as-of --threshold --time-budget --no-server ;;
	serve)
		echo --config --repo --index --me --as-of --threshold --socket --time-budget \
			--idle-exit --max-messages ;;
	score | explain)
		echo --config --repo --index --me --as-of --threshold --json ;;
	tag)
		echo --config --repo --index --query --dry-run --verbose --lock-timeout --time-budget --jobs --untag --undo ;;
	parse)
		echo --config --repo --index --json ;;
	index)
		echo --config --repo --index --json --all --status --lines --lock-timeout ;;
	who)
		echo --config --repo --index --as-of --json --substantive --min-evidence --cc ;;
	eval)
		echo --config --repo --index --json --since --until --sample --seed \
			--threshold --plot --label ;;
	train)
		echo --config --repo --index --as-of --json --force --samples-out \
			--from-samples ;;
	calibrate)
		echo --config --repo --index --me --as-of --json --write ;;
	init)
		echo --repo --config --force --dry-run --notmuch-hook ;;
	config)
		echo --config ;;
	stats)
		echo --config --since --until --plot --json ;;
	esac
	echo --help
}

# The [repo] names of the config (`ccsift config names`, of the --config
# on the line if any) that start with $1, into COMPREPLY. Added one by one:
# compgen -W would expand them ($(...) in a name would run).
_ccsift_repo_names()
{
	local name i cfg=()

	for ((i = 1; i < COMP_CWORD; i++)); do
		if [[ ${COMP_WORDS[i]} == --config && $((i + 1)) -lt $COMP_CWORD ]]; then
			cfg=(--config "${COMP_WORDS[i+1]}")
		fi
	done
	while IFS= read -r name; do
		[[ $name == "$1"* ]] && COMPREPLY+=("$name")
	done < <(command ccsift config names "${cfg[@]}" 2>/dev/null)
}

_ccsift()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
	local cmd=${COMP_WORDS[1]-} i

	COMPREPLY=()
	# "--config=FI": bash splits the word at "=".
	if [[ $cur == = ]]; then
		cur=
	elif [[ $prev == = && $COMP_CWORD -ge 2 ]]; then
		prev=${COMP_WORDS[COMP_CWORD-2]}
	fi

	if ((COMP_CWORD == 1)); then
		mapfile -t COMPREPLY < <(compgen -W "$_ccsift_commands --help --version" -- "$cur")
		return
	fi
	if [[ $cmd == help ]]; then
		return
	fi

	case $prev in
	--config | --index | --plot | --samples-out | --from-samples)
		compopt -o filenames 2>/dev/null
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
		return ;;
	--repo)
		compopt -o filenames 2>/dev/null
		mapfile -t COMPREPLY < <(compgen -d -- "$cur")
		_ccsift_repo_names "$cur"
		return ;;
	--me | --as-of | --threshold | --query | --lock-timeout | --since | --until | --untag | \
	--sample | --seed | --label)
		return ;;  # a value of the user's
	esac

	if [[ $cur == -* ]]; then
		mapfile -t COMPREPLY < <(compgen -W "$(_ccsift_options "$cmd")" -- "$cur")
		return
	fi

	case $cmd in
	config)
		# ccsift config check
		for ((i = 2; i < COMP_CWORD; i++)); do
			[[ ${COMP_WORDS[i]} == check ]] && return
		done
		mapfile -t COMPREPLY < <(compgen -W check -- "$cur") ;;
	filter | score | explain | parse | who)
		# a mail file (explain also takes id:, mid: and thread:)
		compopt -o filenames 2>/dev/null
		mapfile -t COMPREPLY < <(compgen -f -- "$cur") ;;
	esac
}

complete -F _ccsift ccsift
