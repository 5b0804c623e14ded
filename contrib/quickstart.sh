#!/bin/sh
# The quick start: install dependencies, build, run the demo end to end.
set -eu
cd "$(dirname "$0")/.."
contrib/install-deps.sh
contrib/build.sh
exec contrib/demo.sh "${BUILD_DIR:-build}"
