#!/bin/sh
# Builds cgpredict (warnings on) and runs the whole test suite with CTest.
set -eu
cd "$(dirname "$0")/.."
build=${CGP_BUILD_DIR:-build}
cmake -S . -B "$build" -DCGP_TESTS=ON >/dev/null
cmake --build "$build" -j "$(nproc)"
ctest --test-dir "$build" --output-on-failure
