#!/bin/sh
# The test command: install dependencies, build, run every test with ctest;
# then the same suite built with ASan and UBSan, and the fuzzers, briefly.
# SANITIZE=0 or FUZZ_SECONDS=0 skips those two.
set -eu
cd "$(dirname "$0")/.."
contrib/install-deps.sh
contrib/build.sh
(cd "${BUILD_DIR:-build}" && ctest --output-on-failure -j 2)
if [ "${SANITIZE:-1}" != 0 ]; then
	contrib/sanitize.sh
fi
if [ "${FUZZ_SECONDS:-10}" != 0 ]; then
	FUZZ_SECONDS=${FUZZ_SECONDS:-10} contrib/fuzz.sh
fi
