#!/bin/sh
# The test command: install dependencies, build, run every test with ctest.
set -eu
cd "$(dirname "$0")/.."
contrib/install-deps.sh
contrib/build.sh
cd "${BUILD_DIR:-build}" && ctest --output-on-failure -j 2
