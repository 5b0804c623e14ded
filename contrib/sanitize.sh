#!/bin/sh
# The whole test suite again, built with AddressSanitizer and
# UndefinedBehaviorSanitizer (build-asan): any report, leaks included, fails
# the test that ran into it, also under procmail and maildrop
# (filter/sanitizer-options.c). The concurrency test delivers fewer messages
# here: ASan makes each delivery several times slower.
set -eu
cd "$(dirname "$0")/.."
dir=${ASAN_BUILD_DIR:-build-asan}
# -O1, as the sanitizers advise (every report is still made): the model's
# fits run faster; the suite's time is mostly processes starting under ASan.
cmake -S . -B "$dir" -DCCSIFT_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG="-g -O1" >/dev/null
cmake --build "$dir" -j "$(nproc)"
cd "$dir" && CCSIFT_TEST_MESSAGES=${CCSIFT_TEST_MESSAGES:-120} ctest --output-on-failure -j 2
