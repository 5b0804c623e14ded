#!/bin/bash
# make-review-history.sh: build a deterministic three-year history in which
# engagement follows known rules, for the model fit tests (t0410).
#
#   bash tests/lib/make-review-history.sh DIR           create the repository in DIR
#   bash tests/lib/make-review-history.sh --extend DIR  append the later commits to DIR
#
# or, sourced:
#
#   . "$TEST_DIRECTORY/lib/make-review-history.sh"
#   make_review_history DIR && extend_review_history DIR
#
# DIR must not exist yet for make_review_history. The commits are written with
# git fast-import (about 900 of them in a second or two), every choice made by
# a fixed linear congruential generator: the same input always gives the same
# commit ids, whatever the caller's git configuration or environment.
#
# The history, 2022-01-01 .. 2025-01-01:
#   - a first commit by Lead Person <lead@example.org> adds MAINTAINERS (Lead
#     is the only M:, for everything, so get_maintainer.pl puts Lead in To:
#     and everyone below in Cc) and 40 files: drivers/a/a[1-8].c,
#     drivers/b/b[1-8].c, fs/c/c[1-8].c, fs/d/d[1-8].c, net/e/e[1-8].c;
#   - 900 non-merge commits, each touching 1-3 files of one directory (a new
#     function appended, sometimes a line changed), the directory and files
#     drawn uniformly, so that everyone has history everywhere;
#   - authors: paul 25%, alan 20%, beth, carl, dina 15% each, rita 6%,
#     max 4%; each commit Signed-off-by its author;
#   - rita@example.org puts Reviewed-by on every patch by alan@example.org
#     and on no other (her reviews make her a get_maintainer.pl --git signer
#     of the files alan touches, that is of all of them, so she is Cc'd on
#     everyone's patches and engages with alan's only);
#   - paul@example.org never reviews, acks, tests or applies anything;
#   - max@example.org applies (is the committer of, with his Signed-off-by
#     after the author's) 70% of the others' patches, one to four days after
#     they were written; the rest are committed by their authors;
#   - about 12% of the patches get an Acked-by or Tested-by from one of
#     alan, beth, carl or dina (never the author).
#
# --extend appends 50 commits, all committed after 2024-07-01 (the tip of the
# base history is about 2025-01-01): 40 authored and committed between
# 2024-07-02 and 2024-09-30, 10 authored in March and April 2024 but committed
# in January 2025. In them the rules change (rita reviews everyone's, paul
# reviews and acks, a newcomer nora@example.org appears), so that a fit as of
# 2024-07-01 that saw any of them would come out different.
#
# MRH_RITA=everyone (environment) swaps rita's rule: she reviews every patch
# not her own. Only for checking that t0410 notices.

# _mrh_git ARGS...: git with nothing from the user's configuration.
_mrh_git() {
	git -c init.defaultBranch=master -c core.autocrlf=false -c core.safecrlf=false \
	    -c core.hooksPath=/dev/null -c i18n.commitEncoding=UTF-8 "$@"
}

# _mrh_env: run inside the builder's subshell; isolates git from the caller.
_mrh_env() {
	unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_OBJECT_DIRECTORY \
	      GIT_ALTERNATE_OBJECT_DIRECTORIES GIT_TEMPLATE_DIR GIT_CEILING_DIRECTORIES \
	      GIT_NAMESPACE GIT_COMMON_DIR GIT_CONFIG GIT_CONFIG_PARAMETERS \
	      GIT_CONFIG_COUNT GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_AUTHOR_DATE \
	      GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL GIT_COMMITTER_DATE EMAIL \
	      GIT_REPLACE_REF_BASE GIT_GRAFT_FILE GIT_NO_REPLACE_OBJECTS GIT_DEFAULT_HASH
	export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_SYSTEM=/dev/null
	export GIT_TERMINAL_PROMPT=0 TZ=UTC LC_ALL=C LANG=C
	umask 022
}

# --- people -----------------------------------------------------------------

declare -A _mrh_name=(
	[lead]='Lead Person' [alan]='Alan Author' [beth]='Beth Writer' [carl]='Carl Coder'
	[dina]='Dina Developer' [paul]='Paul Prolific' [max]='Max Maintainer'
	[rita]='Rita Reviewer' [nora]='Nora Newcomer'
)
_mrh_id() { printf -v "$1" '%s <%s@example.org>' "${_mrh_name[$2]}" "$2"; }

# --- the generator ----------------------------------------------------------

# _mrh_rand N: R = a pseudo-random number in [0, N).
_mrh_rand() {
	_mrh_state=$(( (_mrh_state * 1103515245 + 12345) & 0x7fffffff ))
	R=$(( (_mrh_state >> 8) % $1 ))
}

_mrh_dirs=(drivers/a drivers/b fs/c fs/d net/e)
declare -A _mrh_file   # path -> content
declare -A _mrh_rev    # path -> revision counter (a line the commits change)
_mrh_fn=0              # functions added so far: unique names

# _mrh_path DIR K: P = the K-th (1-8) file of DIR.
_mrh_path() { local d=$1; P=$d/${d##*/}$2.c; }

# _mrh_new PATH: a new file of a dozen lines.
_mrh_new() {
	local p=$1 base=${1##*/}
	base=${base%.c}
	_mrh_rev[$p]=0
	_mrh_file[$p]="// SPDX-License-Identifier: GPL-2.0
/*
 * $p: part of the ccsift review test tree.
 */
#include <linux/kernel.h>

static int ${base}_revision = 0;

int ${base}_init(void)
{
	return ${base}_revision;
}
"
}

# _mrh_change PATH: append a function of 4-12 body lines; one time in three
# also change the revision line (a real modification: -1 +1).
_mrh_change() {
	local p=$1 base=${1##*/} n i body=''
	base=${base%.c}
	_mrh_fn=$((_mrh_fn + 1))
	_mrh_rand 9; n=$((R + 4))
	for ((i = 1; i <= n; i++)); do
		body+=$'\t'"x = x * $((i + 1)) + $(((_mrh_fn * 7 + i) % 97));"$'\n'
	done
	_mrh_file[$p]+="
static int ${base}_fn${_mrh_fn}(int x)
{
${body}	return x;
}
"
	_mrh_rand 3
	if [ "$R" -eq 0 ]; then
		local old="static int ${base}_revision = ${_mrh_rev[$p]};"
		_mrh_rev[$p]=$((_mrh_rev[$p] + 1))
		_mrh_file[$p]=${_mrh_file[$p]/"$old"/"static int ${base}_revision = ${_mrh_rev[$p]};"}
	fi
}

# _mrh_emit_commit MARK FROM AUTHOR ATIME COMMITTER CTIME MESSAGE PATH...:
# one fast-import commit (FROM: a mark or ref, or '' to follow the branch).
_mrh_emit_commit() {
	local mark=$1 from=$2 a=$3 at=$4 c=$5 ct=$6 msg=$7 p aid cid
	shift 7
	_mrh_id aid "$a"; _mrh_id cid "$c"
	printf 'commit refs/heads/master\nmark :%d\nauthor %s %d +0000\ncommitter %s %d +0000\ndata %d\n%s\n' \
		"$mark" "$aid" "$at" "$cid" "$ct" "${#msg}" "$msg"
	[ -z "$from" ] || printf 'from %s\n' "$from"
	for p; do
		printf 'M 100644 inline %s\ndata %d\n%s\n' "$p" "${#_mrh_file[$p]}" "${_mrh_file[$p]}"
	done
	printf '\n'
}

# _mrh_patch MARK FROM AUTHOR ATIME CTIME-MIN RULES: one patch commit
# by AUTHOR authored at ATIME, committed not before CTIME-MIN; sets CT to its
# committer time. RULES is "base" or "changed" (the --extend rules).
_mrh_patch() {
	local mark=$1 from=$2 a=$3 at=$4 ctmin=$5 rules=$6
	local d nfiles step start k files=() msg id who trailer c=$a ct=$at
	_mrh_rand 5; d=${_mrh_dirs[R]}
	_mrh_rand 10
	if [ "$R" -lt 5 ]; then nfiles=1; elif [ "$R" -lt 8 ]; then nfiles=2; else nfiles=3; fi
	_mrh_rand 8; start=$R
	_mrh_rand 4; step=$((2 * R + 1))
	for ((k = 0; k < nfiles; k++)); do
		_mrh_path "$d" $(((start + k * step) % 8 + 1))
		files+=("$P")
		_mrh_change "$P"
	done
	local base=${files[0]##*/}
	msg="${d//\//: }: ${base%.c}: add helper ${_mrh_fn}"$'\n\n'
	msg+="Add ${base%.c}_fn${_mrh_fn}() and its companions, which the next patches use."$'\n\n'
	_mrh_id id "$a"; msg+="Signed-off-by: $id"$'\n'
	# rita's rule.
	if [ "$a" != rita ] && { [ "$a" = alan ] || [ "${MRH_RITA-}" = everyone ] || [ "$rules" = changed ]; }; then
		_mrh_id id rita; msg+="Reviewed-by: $id"$'\n'
	fi
	# Occasional acks and tests from the other authors (paul too, after the change).
	_mrh_rand 100
	if [ "$R" -lt 12 ] || { [ "$rules" = changed ] && [ "$R" -lt 60 ]; }; then
		local pool=(alan beth carl dina)
		[ "$rules" = changed ] && pool=(paul paul nora)
		_mrh_rand ${#pool[@]}; who=${pool[R]}
		if [ "$who" != "$a" ]; then
			_mrh_rand 2
			if [ "$R" -eq 0 ]; then trailer=Acked-by; else trailer=Tested-by; fi
			_mrh_id id "$who"; msg+="$trailer: $id"$'\n'
		fi
	fi
	# max applies most of the others' patches, a day to four later.
	_mrh_rand 100
	if [ "$a" != max ] && [ "$R" -lt 70 ]; then
		c=max
		_mrh_rand 4; ct=$((at + (R + 1) * 86400 - 3600 * 5))
		_mrh_id id max; msg+="Signed-off-by: $id"$'\n'
	fi
	[ "$ct" -ge "$ctmin" ] || ct=$ctmin
	CT=$ct
	_mrh_emit_commit "$mark" "$from" "$a" "$at" "$c" "$ct" "$msg" "${files[@]}"
}

# _mrh_author: A = an author of the base history, by the shares above.
_mrh_author() {
	_mrh_rand 100
	if [ "$R" -lt 25 ]; then A=paul
	elif [ "$R" -lt 45 ]; then A=alan
	elif [ "$R" -lt 60 ]; then A=beth
	elif [ "$R" -lt 75 ]; then A=carl
	elif [ "$R" -lt 90 ]; then A=dina
	elif [ "$R" -lt 96 ]; then A=rita
	else A=max
	fi
}

_MRH_T0=1640995200   # 2022-01-01T00:00:00Z
_MRH_T1=1735689600   # 2025-01-01T00:00:00Z
_MRH_COMMITS=900

_mrh_base_stream() {
	local d k i at ct=0 last=0 span step
	_mrh_state=20220101
	for d in "${_mrh_dirs[@]}"; do
		for k in 1 2 3 4 5 6 7 8; do _mrh_path "$d" "$k"; _mrh_new "$P"; done
	done
	_mrh_file[MAINTAINERS]="List of maintainers of the ccsift review test tree.

THE WHOLE TREE
M:	Lead Person <lead@example.org>
S:	Maintained
F:	drivers/
F:	fs/
F:	net/
"
	local all=(MAINTAINERS)
	for d in "${_mrh_dirs[@]}"; do
		for k in 1 2 3 4 5 6 7 8; do _mrh_path "$d" "$k"; all+=("$P"); done
	done
	_mrh_emit_commit 1 '' lead $((_MRH_T0 + 9 * 3600)) lead $((_MRH_T0 + 9 * 3600)) \
		$'Initial import\n\nThe tree and its MAINTAINERS.\n\nSigned-off-by: Lead Person <lead@example.org>\n' "${all[@]}"
	# Patches from 2022-01-03 to 2024-12-26, committed by 2024-12-31.
	span=$((_MRH_T1 - _MRH_T0 - 8 * 86400))
	step=$((span / _MRH_COMMITS))
	last=$((_MRH_T0 + 9 * 3600))
	for ((i = 0; i < _MRH_COMMITS; i++)); do
		_mrh_rand $((step / 2)); at=$((_MRH_T0 + 2 * 86400 + i * step + R))
		_mrh_author
		_mrh_patch $((i + 2)) '' "$A" "$at" $((last + 60)) base
		last=$CT
	done
}

# The later commits of --extend: the builder's state is rebuilt by replaying the
# base stream (into /dev/null), so they continue the same files.
_mrh_extend_stream() {
	local tip i at
	_mrh_base_stream >/dev/null
	tip=$(_mrh_git rev-parse refs/heads/master)
	_mrh_state=20240701
	for ((i = 0; i < 50; i++)); do
		_mrh_rand 4
		case $R in 0) A=paul ;; 1) A=nora ;; 2) A=beth ;; *) A=carl ;; esac
		if [ "$i" -lt 40 ]; then
			# 2024-07-02 .. 2024-09-30, committed within days (before the base tip).
			at=$((1719878400 + i * 2 * 86400 + 3600))
			_mrh_patch $((i + 1)) "$([ "$i" -eq 0 ] && echo "$tip")" "$A" "$at" 0 changed
		else
			# Authored in March and April 2024, committed in January 2025.
			at=$((1709251200 + (i - 40) * 4 * 86400))
			_mrh_patch $((i + 1)) '' "$A" "$at" $((1736899200 + (i - 40) * 3600)) changed
		fi
	done
}

# make_review_history DIR: create DIR (which must not exist) holding the history.
make_review_history() (
	set -e -o pipefail
	local dir=${1-}
	[ -n "$dir" ] || { echo "usage: make_review_history DIR" >&2; exit 2; }
	if [ -e "$dir" ] || [ -L "$dir" ]; then
		echo "make-review-history: $dir already exists" >&2
		exit 1
	fi
	_mrh_env
	_mrh_git init -q -- "$dir"
	cd -- "$dir"
	_mrh_base_stream >../.mrh-stream.$$
	_mrh_git fast-import --quiet --date-format=raw <../.mrh-stream.$$
	rm -f ../.mrh-stream.$$
	_mrh_git reset -q --hard refs/heads/master
)

# extend_review_history DIR: append the later commits to DIR's master.
extend_review_history() (
	set -e -o pipefail
	local dir=${1-}
	[ -d "$dir" ] || { echo "usage: extend_review_history DIR" >&2; exit 2; }
	_mrh_env
	cd -- "$dir"
	_mrh_extend_stream >../.mrh-stream.$$
	_mrh_git fast-import --quiet --date-format=raw <../.mrh-stream.$$
	rm -f ../.mrh-stream.$$
	_mrh_git reset -q --hard refs/heads/master
)

# Run, unless sourced.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	case ${1-} in
	--extend)
		[ $# -eq 2 ] || { echo "usage: $0 --extend DIR" >&2; exit 2; }
		extend_review_history "$2"
		;;
	-h | --help)
		sed -n '2,/^$/s/^# \{0,1\}//p' "$0"
		;;
	*)
		[ $# -eq 1 ] && [ "${1#-}" = "$1" ] || { echo "usage: $0 DIR | --extend DIR" >&2; exit 2; }
		make_review_history "$1"
		;;
	esac
fi
