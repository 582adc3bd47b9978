#!/bin/sh
# The main job: set up, build cgpredict, predict the bundled GEMM and SYRK on the Jetson TK1; each
# prediction is also one self-contained HTML page, build/examples/<kernel>-report.html.
set -eu
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -DCGP_TESTS=OFF >/dev/null
cmake --build build -j "$(nproc)"
mkdir -p build/examples
for k in gemm syrk; do
  build/driver/cgpredict build -- cc -O2 -o "build/examples/$k" "examples/$k.c"
  CGPREDICT_REPORT="build/examples/$k-report.json" CGPREDICT_HTML="build/examples/$k-report.html" "build/examples/$k"
done
echo "pages: build/examples/gemm-report.html build/examples/syrk-report.html (open them in a browser)"
