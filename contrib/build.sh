#!/bin/sh
# Configure and build into ${BUILD_DIR:-build}.
set -eu
cd "$(dirname "$0")/.."
cmake -S . -B "${BUILD_DIR:-build}" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "${BUILD_DIR:-build}" -j "$(nproc)"
