#!/usr/bin/env bash
# Bounded memory: a marked kernel of 10^9 dynamic accesses runs under a 256 MiB address-space
# limit (ulimit -v, setrlimit RLIMIT_AS) in every sampling mode with the plain build's output,
# and, given a PolyBench/C 4.2.1 tree, its gemm at LARGE_DATASET runs to the end the same way.
#
#   benchmarks/memory/limit.sh [POLYBENCH_C_DIR]
#
# Prints one line per run: mode, exit status, output identical, wall seconds, peak RSS, traced
# accesses. Exits 1 if any run fails or differs.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
driver=${CGPREDICT:-$root/build/driver/cgpredict}
limit_kb=${LIMIT_KB:-262144}
tmp=$(mktemp -d /tmp/cgp-limit.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail=0

cat > "$tmp/big.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
/* 1000 x 1000 threads, each 500 iterations of 2 loads: 10^9 accesses (and a store each). */
#define N 1000
#define K 500
int main(void) {
  float *A = malloc(sizeof(float) * N * K), *B = malloc(sizeof(float) * K * N), *C = malloc(sizeof(float) * N * N);
  if (!A || !B || !C) return 2;
  for (long i = 0; i < (long)N * K; i++) { A[i] = (float)(i % 7); B[i] = (float)(i % 5); }
#pragma cgpredict kernel name(big) dims(2) block(32,8)
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      float s = 0;
      for (int k = 0; k < K; k++) s += A[i * K + k] * B[k * N + j];
      C[i * N + j] = s;
    }
  double t = 0;
  for (long i = 0; i < (long)N * N; i++) t += C[i];
  printf("%.1f\n", t);
  free(A); free(B); free(C);
  return 0;
}
C

run() {   # name exe env...
  local name=$1 exe=$2; shift 2
  local start end status
  start=$(date +%s.%N)
  ( ulimit -v "$limit_kb"; env "$@" /usr/bin/time -f "%M" -o "$tmp/rss" "$exe" > "$tmp/out" 2> "$tmp/err" )
  status=$?
  end=$(date +%s.%N)
  local same=no
  cmp -s "$tmp/out" "$tmp/plain.out" && same=yes
  local acc=-
  [ -f "$tmp/r.json" ] && acc=$(python3 -c "import json;print(json.load(open('$tmp/r.json'))['runtime']['traced_accesses'])" 2>/dev/null)
  printf '%-28s status %-3s same output %-3s %7.1f s  peak %6s KiB  traced %s\n' "$name" "$status" "$same" \
    "$(echo "$end - $start" | bc)" "$(tail -1 "$tmp/rss")" "$acc"
  [ "$status" = 0 ] && [ "$same" = yes ] || { fail=1; tail -3 "$tmp/err"; }
  rm -f "$tmp/r.json"
}

cc -O2 -Wno-unknown-pragmas -o "$tmp/plain" "$tmp/big.c" && "$tmp/plain" > "$tmp/plain.out"
"$driver" build -- cc -O2 -o "$tmp/big" "$tmp/big.c" || exit 1
for mode in run skip full; do
  if [ "$mode" = skip ]; then   # skip changes results by design: compare only status and bounds
    cp "$tmp/plain.out" "$tmp/plain.keep"
    ( ulimit -v "$limit_kb"; CGPREDICT_SAMPLE=skip CGPREDICT_QUIET=1 CGPREDICT_REPORT="$tmp/r.json" "$tmp/big" > "$tmp/plain.out" 2>/dev/null )
  fi
  run "10^9 accesses, $mode" "$tmp/big" CGPREDICT_SAMPLE=$mode CGPREDICT_QUIET=1 CGPREDICT_REPORT="$tmp/r.json"
  [ "$mode" = skip ] && mv "$tmp/plain.keep" "$tmp/plain.out"
done

if [ $# -ge 1 ] && [ -f "$1/utilities/polybench.c" ]; then
  pb=$1
  g=$pb/linear-algebra/blas/gemm
  cp "$g/gemm.c" "$tmp/gemm.c"
  sed -i 's/^  for (i = 0; i < _PB_NI; i++) {$/#pragma cgpredict kernel name(gemm)\n&/' "$tmp/gemm.c"
  flags="-O2 -I$pb/utilities -I$g -DLARGE_DATASET -DPOLYBENCH_DUMP_ARRAYS"
  cc $flags -Wno-unknown-pragmas -o "$tmp/gemm_plain" "$tmp/gemm.c" "$pb/utilities/polybench.c" -lm
  ( ulimit -v "$limit_kb"; "$tmp/gemm_plain" 2> "$tmp/plain.out" > /dev/null )
  "$driver" cc $flags -o "$tmp/gemm" "$tmp/gemm.c" "$pb/utilities/polybench.c" -lm || exit 1
  start=$(date +%s.%N)
  ( ulimit -v "$limit_kb"; CGPREDICT_QUIET=1 CGPREDICT_REPORT="$tmp/r.json" "$tmp/gemm" 2> "$tmp/out" > /dev/null )
  status=$?
  end=$(date +%s.%N)
  same=no; head -c -0 "$tmp/out" | grep -v '^cgpredict' | cmp -s - "$tmp/plain.out" && same=yes
  printf '%-28s status %-3s same output %-3s %7.1f s\n' "PolyBench/C gemm LARGE, run" "$status" "$same" "$(echo "$end - $start" | bc)"
  [ "$status" = 0 ] && [ "$same" = yes ] || fail=1
fi
exit $fail
