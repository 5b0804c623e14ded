#!/bin/sh
# Fit the prior shipped in core/model.c: the replay of each tuning repository's
# two years before 2023-07-01 (800 commits each), pooled.
#
#   contrib/eval/fit-prior.sh DIR     DIR holds <name>.git clones and gets
#                                     <name>.db indexes and samples
#
# The tuning repositories are git.git, xen, LTP and EDK II. U-Boot and DPDK
# are the outside checks and are never fitted on.
set -eu
dir=$1
ccsift=${CCSIFT:-ccsift}
files=
for name in git xen ltp edk2; do
	"$ccsift" index --lines --repo "$dir/$name.git" --index "$dir/$name.db" >/dev/null
	"$ccsift" train --repo "$dir/$name.git" --index "$dir/$name.db" --as-of 2023-07-01 \
		--samples-out "$dir/prior-$name.txt" >/dev/null
	files="$files --from-samples $dir/prior-$name.txt"
done
# shellcheck disable=SC2086
"$ccsift" train $files
