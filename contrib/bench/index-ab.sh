#!/bin/bash
# index-ab.sh REPO ROUNDS BINARY... -- ccsift binaries against each other and
# against `git log`, indexing from scratch, alternating in every round.
#
# Each round runs every BINARY's `ccsift index --repo REPO --index TMPFILE`
# (the index deleted first), then
#     git --git-dir REPO log --no-merges --name-only >/dev/null
# and prints a line per run: round, what ran, wall seconds, user and system
# seconds, peak RSS, and for the binaries their ratio to that round's
# `git log` (issue 12's target: at most 1.5). Alternating puts each binary
# and the peer under the same load: compare within a round, not across.
set -euo pipefail

[ $# -ge 3 ] || { echo "usage: $0 REPO ROUNDS BINARY..." >&2; exit 2; }
repo=$1 rounds=$2
shift 2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ccsift-index-ab.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

timed() {  # timed OUT CMD...: run CMD; /usr/bin/time's "%e %U %S %M" into OUT
	local out=$1
	shift
	/usr/bin/time -o "$out" -f '%e %U %S %M' "$@" >/dev/null 2>"$tmp/stderr" ||
		{ echo "$0: failed: $*" >&2; cat "$tmp/stderr" >&2; exit 1; }
}

printf '%-5s %-24s %8s %8s %8s %10s %6s\n' round run wall_s user_s sys_s rss_kb ratio
for r in $(seq 1 "$rounds"); do
	i=0
	for b in "$@"; do
		rm -f "$tmp"/index.db*
		timed "$tmp/time.$((i += 1))" "$b" index --repo "$repo" --index "$tmp/index.db"
	done
	timed "$tmp/time.git" git --git-dir "$repo" log --no-merges --name-only
	read -r gw gu gs gm <"$tmp/time.git"
	i=0
	for b in "$@"; do
		read -r w u s m <"$tmp/time.$((i += 1))"
		printf '%-5s %-24s %8s %8s %8s %10s %6s\n' "$r" "$b" "$w" "$u" "$s" "$m" \
			"$(awk -v a="$w" -v b="$gw" 'BEGIN { printf "%.2f", a / b }')"
	done
	printf '%-5s %-24s %8s %8s %8s %10s\n' "$r" "git log" "$gw" "$gu" "$gs" "$gm"
done
