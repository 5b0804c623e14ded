#!/bin/bash
# index.sh [REPO...] -- time `ccsift index` from scratch against `git log`.
#
# For each repository (a synthetic one, generated on first use with
# make-synthetic-repo.sh, then every REPO given), time the best of N wall
# clock runs of
#     git -C REPO log --no-merges --name-only --format=%H HEAD >/dev/null
#     ccsift index --repo REPO --index TMPFILE        (index deleted each run)
# alternating the two, and print: repository, non-merge commits, git seconds,
# ccsift seconds, the ratio ccsift/git (target: at most 1.5) and the maximum
# RSS of both. The absolute times depend on the machine; the ratio is the
# number to compare.
#
# Environment:
#   CCSIFT     the binary (default: build/ccsift next to this script's project)
#   N          runs per command, the best is kept (default 3)
#   SYNTH      the synthetic repository (default $TMPDIR/ccsift-bench-synth-$SYNTH_COMMITS,
#              generated if missing, reused if present)
#   SYNTH_COMMITS  its size (default 120000)
#   NO_SYNTH=1 only the repositories given
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
ccsift=${CCSIFT:-$top/build/ccsift}
n=${N:-3}
synth_commits=${SYNTH_COMMITS:-120000}
tmp=${TMPDIR:-/tmp}
synth=${SYNTH:-$tmp/ccsift-bench-synth-$synth_commits}

[ -x "$ccsift" ] || { echo "$0: no ccsift binary at $ccsift (build it, or set CCSIFT)" >&2; exit 1; }

repos=()
if [ "${NO_SYNTH:-0}" != 1 ]; then
	if ! git -C "$synth" rev-parse -q --verify HEAD >/dev/null 2>&1; then
		"$here/make-synthetic-repo.sh" "$synth" "$synth_commits"
	fi
	repos+=("$synth")
fi
repos+=("$@")
[ ${#repos[@]} -gt 0 ] || { echo "$0: no repository" >&2; exit 2; }

work=$(mktemp -d "$tmp/ccsift-bench-index.XXXXXX")
trap 'rm -rf "$work"' EXIT
idx=$work/index.db

have_time=0
[ -x /usr/bin/time ] && /usr/bin/time -f %e true 2>/dev/null && have_time=1

# run OUTFILE CMD... : run CMD with stdout to OUTFILE; sets secs and rss_kb,
# returns CMD's exit status.
run() {
	local out=$1 rc=0; shift
	if [ $have_time = 1 ]; then
		/usr/bin/time -o "$work/time" -f '%e %M' "$@" >"$out" || rc=$?
		read -r secs rss_kb < <(tail -n 1 "$work/time")
	else
		local TIMEFORMAT=%R
		{ time "$@" >"$out" || rc=$?; } 2>"$work/time"
		secs=$(tail -n 1 "$work/time")
		rss_kb=
	fi
	return $rc
}

min() { awk -v a="$1" -v b="$2" 'BEGIN { print (a == "" || b + 0 < a + 0) ? b : a }'; }
max() { awk -v a="$1" -v b="$2" 'BEGIN { print (a == "" || b + 0 > a + 0) ? b : a }'; }
mib() { [ -n "$1" ] && awk -v k="$1" 'BEGIN { printf "%.0f", k / 1024 }' || echo "n/a"; }

echo "ccsift: $ccsift ($("$ccsift" --version)); git: $(git --version | cut -d' ' -f3); best of $n runs; $(nproc) cores" >&2
rows=()
for repo in "${repos[@]}"; do
	name=$(basename "$repo")
	[ "$name" = repo ] && name=$(basename "$(dirname "$repo")")
	commits=$(git -C "$repo" rev-list --count --no-merges HEAD)
	echo "== $name ($repo): $commits non-merge commits" >&2
	# Warm the page cache with one untimed walk, so neither side pays for it.
	git -C "$repo" log --no-merges --name-only --format=%H HEAD >/dev/null
	git_best='' cc_best='' git_rss='' cc_rss='' status=ok
	for i in $(seq "$n"); do
		run /dev/null git -C "$repo" log --no-merges --name-only --format=%H HEAD ||
			{ echo "$0: git log failed on $repo" >&2; exit 1; }
		git_best=$(min "$git_best" "$secs"); git_rss=$(max "$git_rss" "$rss_kb")
		echo "  run $i: git log $secs s" >&2

		rm -f "$idx" "$idx-wal" "$idx-shm" "$idx-journal"
		if ! run "$work/out" "$ccsift" index --repo "$repo" --index "$idx"; then
			echo "  run $i: ccsift index FAILED:" >&2
			cat "$work/out" >&2
			status=FAILED
			break
		fi
		cc_best=$(min "$cc_best" "$secs"); cc_rss=$(max "$cc_rss" "$rss_kb")
		added=$(sed -n 's/.*: \([0-9][0-9]*\) commits added.*/\1/p' "$work/out")
		echo "  run $i: ccsift index $secs s, ${added:-?} commits added" >&2
		if [ "$added" != "$commits" ]; then
			echo "  ccsift indexed ${added:-?} commits, git counts $commits" >&2
			status="indexed ${added:-?}"
		fi
	done
	if [ "$status" = FAILED ]; then
		rows+=("$(printf '%-26s %9s %8s %9s %7s %10s %10s  %s' "$name" "$commits" "$git_best" - - "$(mib "$git_rss")" - FAILED)")
		continue
	fi
	ratio=$(awk -v a="$cc_best" -v b="$git_best" 'BEGIN { printf "%.2f", (b > 0) ? a / b : 0 }')
	verdict=$(awk -v r="$ratio" 'BEGIN { print (r <= 1.5) ? "target met" : "over 1.5" }')
	[ "$status" = ok ] || verdict="$verdict; $status"
	rows+=("$(printf '%-26s %9s %8s %9s %7s %10s %10s  %s' "$name" "$commits" "$git_best" "$cc_best" "$ratio" \
		"$(mib "$git_rss")" "$(mib "$cc_rss")" "$verdict")")
done

echo
printf '%-26s %9s %8s %9s %7s %10s %10s  %s\n' repo commits git_s ccsift_s ratio git_MiB ccsift_MiB note
printf '%s\n' "${rows[@]}"
