#!/bin/bash
# filter.sh [REPO] -- per-message cost of `ccsift filter`, against `cat`.
#
# Times the whole process, fork to exit (python3's perf_counter around
# subprocess.run), of
#     ccsift filter --repo REPO --index IDX --me EMAIL < msg > /dev/null
#     cat msg > /dev/null
# RUNS times each (default 200), alternating, with a warm index and page
# cache, and prints the median and 90th percentile in ms of both and their
# difference. Target: ccsift's median under 10 ms on a 100k-commit history.
# A third peer, `ccsift --version`, measures what any ccsift process costs
# before doing anything (exec, dynamic linking, library constructors).
#
# The message is a real patch mail: `git format-patch -1` of a recent
# non-merge commit touching 1-3 files, with To: and Cc: headers added; the
# Cc names the --me identity, someone with history on the first file (the
# author of its 5th most recent commit that is not the patch's author).
#
# REPO defaults to the synthetic repository of index.sh (generated if missing).
# Environment:
#   CCSIFT   the binary (default: build/ccsift of this project)
#   RUNS     runs per command (default 200)
#   INDEX    the index file (default $TMPDIR/ccsift-bench-filter-NAME.db, built or
#            updated before timing)
#   COMMIT   the commit to turn into the mail (default: picked as above)
#   ME       the --me identity (default: picked as above)
#   SYNTH, SYNTH_COMMITS  as for index.sh
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
ccsift=${CCSIFT:-$top/build/ccsift}
runs=${RUNS:-200}
tmp=${TMPDIR:-/tmp}
synth_commits=${SYNTH_COMMITS:-120000}
synth=${SYNTH:-$tmp/ccsift-bench-synth-$synth_commits}

[ -x "$ccsift" ] || { echo "$0: no ccsift binary at $ccsift (build it, or set CCSIFT)" >&2; exit 1; }
[ $# -le 1 ] || { echo "usage: $0 [REPO]" >&2; exit 2; }
if [ $# = 1 ]; then
	repo=$1
else
	repo=$synth
	if ! git -C "$repo" rev-parse -q --verify HEAD >/dev/null 2>&1; then
		"$here/make-synthetic-repo.sh" "$repo" "$synth_commits"
	fi
fi
name=$(basename "$repo")
[ "$name" = repo ] && name=$(basename "$(dirname "$repo")")
index=${INDEX:-$tmp/ccsift-bench-filter-$name.db}
# In-process deliveries, each paying its own start (filter-uboot.sh has the
# served rows): no server asked, none started.
export CCSIFT_SOCKET=

work=$(mktemp -d "$tmp/ccsift-bench-filter.XXXXXX")
trap 'rm -rf "$work"' EXIT
msg=$work/patch.eml

# The mail: a recent commit touching 1-3 files whose first file has history.
pick() {
	local c f n me author
	for c in $(git -C "$repo" rev-list --no-merges --max-count=500 HEAD); do
		n=$(git -C "$repo" diff-tree --no-commit-id --name-only -r "$c" | wc -l)
		[ "$n" -ge 1 ] && [ "$n" -le 3 ] || continue
		f=$(git -C "$repo" diff-tree --no-commit-id --name-only -r "$c" | sed -n 1p)
		author=$(git -C "$repo" log -1 --format=%ae "$c")
		me=$(git -C "$repo" log --format=%ae "$c" -- "$f" | { grep -vxF "$author" || true; } | sed -n 5p)
		[ -n "$me" ] || continue
		echo "$c $me"
		return 0
	done
	return 1
}
if [ -n "${COMMIT:-}" ]; then
	commit=$(git -C "$repo" rev-parse --verify "$COMMIT^{commit}")
	f=$(git -C "$repo" diff-tree --no-commit-id --name-only -r "$commit" | sed -n 1p)
	me=${ME:-$(git -C "$repo" log --format=%ae "$commit" -- "$f" | sed -n 5p)}
else
	read -r commit me < <(pick) || { echo "$0: no suitable commit in $repo" >&2; exit 1; }
	me=${ME:-$me}
fi
[ -n "$me" ] || { echo "$0: no --me identity: set ME" >&2; exit 1; }
git -C "$repo" format-patch -1 --stdout "$commit" |
	awk -v me="$me" 'NR == 2 { print "To: maintainers@lists.example.org"
	                           print "Cc: Some One <some.one@example.com>, " me }
	                 { print }' >"$msg"

echo "ccsift: $ccsift ($("$ccsift" --version)); $(nproc) cores; $runs runs each" >&2
echo "repo: $repo ($(git -C "$repo" rev-list --count --no-merges HEAD) non-merge commits)" >&2
echo "index: $index" >&2
"$ccsift" index --repo "$repo" --index "$index" >&2
echo "mail: $(git -C "$repo" log -1 --format='%h %s' "$commit"), $(wc -c <"$msg") bytes," \
	"files: $(git -C "$repo" diff-tree --no-commit-id --name-only -r "$commit" | paste -sd' ')" >&2
echo "--me $me" >&2
"$ccsift" filter --repo "$repo" --index "$index" --me "$me" <"$msg" | grep '^X-Ccsift' >&2 ||
	{ echo "$0: ccsift filter added no X-Ccsift header" >&2; exit 1; }

python3 - "$runs" "$msg" "$ccsift" "$repo" "$index" "$me" <<'EOF'
import math, statistics, subprocess, sys, time

runs, msg, ccsift, repo, index, me = int(sys.argv[1]), *sys.argv[2:]
filt = [ccsift, "filter", "--repo", repo, "--index", index, "--me", me]
cat = ["cat", msg]

def once(argv, use_stdin):
    with open(msg, "rb") as f:
        t0 = time.perf_counter()
        p = subprocess.run(argv, stdin=f if use_stdin else subprocess.DEVNULL,
                           stdout=subprocess.DEVNULL)
        t1 = time.perf_counter()
    if p.returncode != 0:
        sys.exit(f"{argv[0]} exited with {p.returncode}")
    return (t1 - t0) * 1000.0

# A third peer, `ccsift --version`, is the floor every ccsift run pays:
# exec, dynamic linking and library constructors, no work.
cmds = [("ccsift filter", filt, True), ("cat", cat, False),
        ("ccsift --version", [ccsift, "--version"], False)]
times = {name: [] for name, _, _ in cmds}
for _ in range(5):                      # warm up
    for name, argv, use_stdin in cmds:
        once(argv, use_stdin)
for i in range(runs):                   # interleave, rotating who goes first
    for j in range(len(cmds)):
        name, argv, use_stdin = cmds[(i + j) % len(cmds)]
        times[name].append(once(argv, use_stdin))

def pct(v, p):                          # nearest rank
    return sorted(v)[max(0, math.ceil(p / 100.0 * len(v)) - 1)]

stats = {n: (statistics.median(v), pct(v, 90), min(v)) for n, v in times.items()}
print()
print(f"{'command':<20} {'runs':>5} {'median_ms':>10} {'p90_ms':>8} {'min_ms':>8}")
for n, (med, p90, lo) in stats.items():
    print(f"{n:<20} {runs:>5} {med:>10.2f} {p90:>8.2f} {lo:>8.2f}")
f, c, v = stats["ccsift filter"], stats["cat"], stats["ccsift --version"]
print(f"{'filter - cat':<20} {'':>5} {f[0] - c[0]:>10.2f} {f[1] - c[1]:>8.2f} {f[2] - c[2]:>8.2f}")
print(f"{'filter - --version':<20} {'':>5} {f[0] - v[0]:>10.2f} {f[1] - v[1]:>8.2f} {f[2] - v[2]:>8.2f}")
print(f"ratio of medians filter/cat: {f[0] / c[0]:.1f}; target median < 10 ms: "
      f"{'met' if f[0] < 10 else 'missed'}")
EOF
