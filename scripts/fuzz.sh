#!/bin/sh
# Runs one libFuzzer harness of tests/fuzz: scripts/fuzz.sh TARGET SECONDS|-runs=N [libFuzzer flags]
#   TARGET: device, report, pragma, warps, trace or hls (the csynth.xml reader). Builds (incrementally) build-fuzz: clang-14, CGP_FUZZ=ON.
#   The committed corpus tests/fuzz/corpus/TARGET seeds a working corpus in
#   ${CGP_FUZZ_WORK:-/tmp/cgp-fuzz}/TARGET (the committed one is never written to); crashes
#   land in that directory too. Exit status: libFuzzer's (0: no crash).
set -eu
cd "$(dirname "$0")/.."
if [ $# -lt 2 ]; then
  echo "usage: scripts/fuzz.sh device|report|pragma|warps|trace|hls SECONDS|-runs=N [libFuzzer flags...]" >&2
  exit 2
fi
target=$1 amount=$2
shift 2
case $target in device|report|pragma|warps|trace|hls) ;; *) echo "scripts/fuzz.sh: unknown target '$target'" >&2; exit 2 ;; esac
case $amount in
  -runs=*) limit=$amount ;;
  *[!0-9]*|'') echo "scripts/fuzz.sh: '$amount' is neither SECONDS nor -runs=N" >&2; exit 2 ;;
  *) limit=-max_total_time=$amount ;;
esac
case $target in
  warps) max_len=4120 ;;      # the harness reads no further (MAX_READ in fuzz_warps.c)
  *) max_len=65536 ;;
esac
build=${CGP_FUZZ_BUILD_DIR:-build-fuzz}
[ -f "$build/CMakeCache.txt" ] ||
  cmake -S . -B "$build" -DCMAKE_C_COMPILER=clang-14 -DCGP_FUZZ=ON -DCGP_TESTS=OFF >/dev/null
cmake --build "$build" -j "$(nproc)" --target "fuzz_$target" >/dev/null   # incremental
work=${CGP_FUZZ_WORK:-/tmp/cgp-fuzz}/$target
mkdir -p "$work/corpus"
exec "$build/tests/fuzz/fuzz_$target" "$limit" -print_final_stats=1 -artifact_prefix="$work/" \
  -max_len=$max_len "$@" "$work/corpus" "tests/fuzz/corpus/$target"
