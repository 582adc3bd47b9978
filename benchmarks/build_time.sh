#!/bin/sh
# Build time of one marked loop whose body has N statements (3 array accesses and a store
# each), through the cgpredict driver and with plain clang -O2, for N = 1000, 2000, 4000.
# Build time should grow about linearly with N (pass defect: it used to grow with N^2).
#   benchmarks/build_time.sh [BUILD_DIR]      (default: build)
set -e
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
driver=$build/driver/cgpredict
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gen() {
  n=$1
  {
    echo '#include <stdio.h>'
    echo '#include <stdlib.h>'
    echo '#define N 256'
    echo 'float *a, *b, *c;'
    echo 'int main(int argc, char **argv) {'
    echo '  int n = N + argc - 1;'
    echo '  a = calloc(N, 4); b = calloc(N, 4); c = calloc(N, 4);'
    echo '#pragma cgpredict kernel name(big)'
    echo '  for (int i = 0; i < n; i++) {'
    k=0
    while [ $k -lt "$n" ]; do
      echo "    a[i] += b[(i + $k) % N] * c[(i * $((k + 1))) % N];"
      k=$((k + 1))
    done
    echo '  }'
    printf '%s\n' '  printf("%f\n", a[1]);'
    echo '  return 0;'
    echo '}'
  } > "$tmp/big$n.c"
}
secs() { start=$(date +%s.%N); "$@" > /dev/null 2>&1; end=$(date +%s.%N); echo "$end - $start" | bc; }
printf '%-10s %12s %12s\n' statements cgpredict_s clang_O2_s
for n in 1000 2000 4000; do
  gen $n
  t1=$(secs "$driver" build -- cc -O2 -o "$tmp/big" "$tmp/big$n.c")
  t2=$(secs clang-14 -O2 -c -o "$tmp/plain.o" "$tmp/big$n.c")
  printf '%-10s %12.1f %12.1f\n' $n "$t1" "$t2"
done
