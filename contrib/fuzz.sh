#!/bin/sh
# Build the libFuzzer harnesses (tests/fuzz) into build-fuzz, run each for
# FUZZ_SECONDS (default 30), then replay seeds and regressions with ctest.
#
# Each harness fuzzes a corpus under build-fuzz/fuzz/corpus/TARGET, seeded
# from its seeds and regressions and kept between runs (rm -rf it to start
# over). A crash, leak or timeout fails the run and leaves its input in
# build-fuzz/fuzz/crashes/TARGET/: minimise it (HARNESS -minimize_crash=1
# -runs=10000 FILE), fix the bug and keep the input in
# tests/fuzz/regressions/TARGET/.
set -eu
cd "$(dirname "$0")/.."
build="build-fuzz"
seconds=${FUZZ_SECONDS:-30}
targets="mail diff maintainers pipe pack"

CC=clang cmake -S . -B "$build" -DCCSIFT_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" --target fuzzers -j 2 >/dev/null

failed=
printf '%-12s %10s %8s %8s  %s\n' harness executions seconds corpus result
for t in $targets; do
	corpus=$build/fuzz/corpus/$t
	crashes=$build/fuzz/crashes/$t
	log=$build/fuzz/$t.log
	mkdir -p "$corpus" "$crashes"
	# mail and pipe start from the parser's corpus of real-shaped mails
	if [ -d "tests/fuzz/seeds/$t" ]; then
		cp tests/fuzz/seeds/"$t"/* "$corpus"/
	else
		cp tests/corpus/*.eml "$corpus"/
	fi
	for f in tests/fuzz/regressions/"$t"/*; do
		[ -f "$f" ] && cp "$f" "$corpus"/
	done
	dict=
	[ -f "tests/fuzz/dict/$t.dict" ] && dict=-dict=tests/fuzz/dict/$t.dict
	start=$(date +%s)
	# shellcheck disable=SC2086
	if "$build/tests/fuzz/fuzz-$t" "$corpus" $dict -max_total_time="$seconds" \
		-timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$crashes/" >"$log" 2>&1; then
		result=ok
	else
		result="FAILED: $(sed -n 's/.*Test unit written to //p' "$log" | tail -n 1)"
		failed="$failed $t"
	fi
	elapsed=$(($(date +%s) - start))
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	printf '%-12s %10s %8s %8s  %s\n' "$t" "${execs:-?}" "$elapsed" \
		"$(find "$corpus" -type f | wc -l)" "$result"
done
if [ -n "$failed" ]; then
	for t in $failed; do
		echo "--- fuzz-$t: $build/fuzz/$t.log"
		grep -v '^#\|^INFO:\|^NEW_FUNC\|^MS:\|^base unit' "$build/fuzz/$t.log" | tail -n 40
	done
	exit 1
fi

cd "$build" && ctest -L fuzz --output-on-failure
