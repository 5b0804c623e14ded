#!/bin/bash
# linux.sh [REPO] -- issue 12's Linux-scale questions on a Linux-shaped history.
#
# REPO defaults to $TMPDIR/ccsift-bench-linux-$COMMITS, generated on first
# use with `SHAPE=linux make-synthetic-repo.sh` (COMMITS default 1200000),
# then reused. In a scratch directory, a view of REPO (a bare repository
# borrowing its objects through objects/info/alternates) has its main ref
# set NEW first-parent commits behind HEAD (default 1000, counted with
# `git rev-list --count OLD..HEAD`, merges included). Then:
#
#   build    `git log --no-merges --name-only --format=%H OLD` (warmed by
#            one untimed run) against `ccsift index` from scratch at OLD:
#            seconds, the ratio (target: at most 1.5) and peak RSS of both
#            (/usr/bin/time -f '%e %M');
#   size     the index file after a WAL checkpoint, and its bytes per commit;
#   update   the ref moved to HEAD, `ccsift index` again: seconds for the
#            commits it adds (incremental);
#   filter   contrib/bench/filter-uboot.sh on the view and the index: a patch
#            to the hottest file as the busiest committer (hot: median and
#            p99 against cat), the newest patches (cold), --version.
#
# Environment: CCSIFT, COMMITS, NEW, RUNS and COLD (for filter-uboot.sh,
# default 200 and 100), KEEP=1 keeps the scratch directory, TMPDIR.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
ccsift=${CCSIFT:-$top/build/ccsift}
commits=${COMMITS:-1200000}
new=${NEW:-1000}
tmp=${TMPDIR:-/tmp}
repo=${1:-$tmp/ccsift-bench-linux-$commits}

[ -x "$ccsift" ] || { echo "$0: no ccsift binary at $ccsift" >&2; exit 1; }
command -v sqlite3 >/dev/null || { echo "$0: needs the sqlite3 shell" >&2; exit 1; }
if ! git -C "$repo" rev-parse -q --verify HEAD >/dev/null 2>&1; then
	SHAPE=linux "$here/make-synthetic-repo.sh" "$repo" "$commits"
fi
repo=$(cd "$repo" && pwd)

work=$(mktemp -d "$tmp/ccsift-bench-linux.XXXXXX")
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$work"' EXIT
view=$work/view.git
idx=$work/index.db

head=$(git -C "$repo" rev-parse HEAD)
old=$(git -C "$repo" rev-parse "HEAD~$new")
git init -q --bare "$view"
objects=$(git -C "$repo" rev-parse --git-path objects)
echo "$(cd "$repo" && cd "$objects" && pwd)" >"$view/objects/info/alternates"
git -C "$view" update-ref refs/heads/main "$old"
git -C "$view" symbolic-ref HEAD refs/heads/main
git -C "$view" config gc.auto 0
added_new=$(git -C "$repo" rev-list --count "$old..$head")
nonmerge_old=$(git -C "$view" rev-list --count --no-merges HEAD)

timed() {  # timed NAME CMD... : stdout to $work/NAME.out, each line prefixed
	# with the seconds since the start; sets secs, rss_kb
	local name=$1 t0; shift
	t0=$(date +%s.%N)
	/usr/bin/time -o "$work/$name.time" -f '%e %M' stdbuf -oL "$@" |
		while IFS= read -r line; do
			echo "$(awk -v a="$(date +%s.%N)" -v b="$t0" 'BEGIN { printf "%.2f", a - b }') $line"
		done >"$work/$name.out"
	read -r secs rss_kb < <(tail -n 1 "$work/$name.time")
}
# ccsift index prints "N commits added" when the history is in, then fits
# the relevance model (training.h): the seconds of the first line.
indexed_at() { awk '/commits added/ { print $1; exit }' "$work/$1.out"; }

echo "ccsift: $ccsift ($("$ccsift" --version)); git $(git --version | cut -d' ' -f3); $(nproc) cores" >&2
echo "repo: $repo; OLD = HEAD~$new ($nonmerge_old non-merge commits); $added_new commits from OLD to HEAD" >&2
git -C "$view" log --no-merges --name-only --format=%H HEAD >/dev/null
/usr/bin/time -o "$work/gitlog.time" -f '%e %M' git -C "$view" log --no-merges --name-only --format=%H HEAD >/dev/null
read -r git_s git_kb < <(tail -n 1 "$work/gitlog.time")
echo "git log: $git_s s, $((git_kb / 1024)) MiB" >&2
timed build "$ccsift" index --repo "$view" --index "$idx"
cc_s=$secs cc_kb=$rss_kb
echo "ccsift index: $cc_s s, $((cc_kb / 1024)) MiB:" >&2
cat "$work/build.out" >&2
sqlite3 "$idx" 'PRAGMA wal_checkpoint(TRUNCATE);' >/dev/null
size=$(stat -c %s "$idx")
indexed=$(sqlite3 -readonly "$idx" 'SELECT count(*) FROM commits')

git -C "$view" update-ref refs/heads/main "$head"
timed update "$ccsift" index --repo "$view" --index "$idx"
up_s=$secs up_kb=$rss_kb
echo "ccsift index (update): $up_s s, $((up_kb / 1024)) MiB:" >&2
cat "$work/update.out" >&2
sqlite3 "$idx" 'PRAGMA wal_checkpoint(TRUNCATE);' >/dev/null
size2=$(stat -c %s "$idx")
indexed2=$(sqlite3 -readonly "$idx" 'SELECT count(*) FROM commits')

echo
printf '%-34s %s\n' "build: git log (s, MiB)" "$git_s, $((git_kb / 1024))"
printf '%-34s %s\n' "build: ccsift index (s, MiB)" "$cc_s, $((cc_kb / 1024))"
printf '%-34s %s\n' "build: ratio ccsift/git" "$(awk -v a="$cc_s" -v b="$git_s" 'BEGIN { r = a / b; printf "%.2f (target <= 1.5: %s)", r, r <= 1.5 ? "met" : "missed" }')"
printf '%-34s %s\n' "build: of which the history (s)" "$(indexed_at build), ratio $(awk -v a="$(indexed_at build)" -v b="$git_s" 'BEGIN { printf "%.2f", a / b }'); the rest fits the model"
printf '%-34s %s\n' "index size (bytes, per commit)" "$size, $((size / indexed)) for $indexed commits"
printf '%-34s %s\n' "update: $added_new commits (s, MiB)" "$up_s, $((up_kb / 1024)); $((indexed2 - indexed)) commits added; the history in $(indexed_at update) s"
printf '%-34s %s\n' "index size after (bytes, per commit)" "$size2, $((size2 / indexed2))"
echo
RUNS=${RUNS:-200} COLD=${COLD:-100} CCSIFT=$ccsift "$here/filter-uboot.sh" "$view" "$idx"
