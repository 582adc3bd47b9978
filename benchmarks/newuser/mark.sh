#!/usr/bin/env bash
# New-user trial: mark loop nests of PolyBench/C 4.2.1 kernels with `#pragma cgpredict kernel`
# the way a first-time user might, build each with its own flags through `cgpredict cc`, and see
# what cgpredict says. Some marks are deliberately NOT parallel as marked (seidel-2d's in-place
# sweep, trisolv's, lu's and cholesky's row loops, floyd-warshall's k loop, atax's and bicg's
# scatter reductions into y[j] / s[j], mvt's first nest with its default 2-D mapping, durbin's
# scalar sum): the report should flag them.
#
#   benchmarks/newuser/mark.sh /path/to/polybench-c-4.2.1 [OUT]
#
# Copies the tree to a scratch directory (OUT, default a mktemp dir; the original is never
# touched), inserts the pragmas, and per kernel: builds plainly (cc -O2) and through
# `cgpredict cc -O2`, both with -DPOLYBENCH_DUMP_ARRAYS and the dataset (DATASET=MINI|SMALL|...,
# default SMALL), runs both, compares the array dumps on stderr, and prints what the report has:
# per kernel parallel_safe, dependences, warnings, every memory site's class, the prediction.
# Environment: CGPREDICT (the driver; default build/driver/cgpredict of this repository, else
# `cgpredict` on PATH), DATASET, CGPREDICT_DEVICE (default jetson-tk1).
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
src=${1:?usage: mark.sh POLYBENCH_C_4.2.1_DIR [OUT]}
out=${2:-$(mktemp -d /tmp/cgp-newuser.XXXXXX)}
dataset=${DATASET:-SMALL}
driver=${CGPREDICT:-$root/build/driver/cgpredict}
[ -x "$driver" ] || driver=$(command -v cgpredict) || { echo "mark.sh: no cgpredict driver" >&2; exit 2; }
export CGPREDICT_DEVICE=${CGPREDICT_DEVICE:-jetson-tk1}
[ -f "$src/utilities/polybench.c" ] || { echo "mark.sh: $src is not a PolyBench/C tree" >&2; exit 2; }

mkdir -p "$out"
cp -r "$src/." "$out/tree"
tree=$out/tree

# benchmark path | nth matching line (1-based, counted after `#pragma scop`) | line regex | clauses
# One line per pragma; a benchmark may have several.
marks=$(cat <<'TABLE'
linear-algebra/blas/gemm/gemm.c|1|^for \(i = 0; i < _PB_NI|name(gemm_rows)
linear-algebra/kernels/2mm/2mm.c|1|^for \(i = 0; i < _PB_NI|name(mm2_tmp)
linear-algebra/kernels/2mm/2mm.c|2|^for \(i = 0; i < _PB_NI|name(mm2_d)
linear-algebra/kernels/atax/atax.c|1|^for \(i = 0; i < _PB_M|name(atax_rows_scatter_y)
linear-algebra/kernels/bicg/bicg.c|1|^for \(i = 0; i < _PB_N|name(bicg_rows_scatter_s)
linear-algebra/kernels/mvt/mvt.c|1|^for \(i = 0; i < _PB_N|name(mvt_x1_default_dims)
linear-algebra/kernels/mvt/mvt.c|2|^for \(i = 0; i < _PB_N|name(mvt_x2) dims(1)
linear-algebra/blas/syrk/syrk.c|1|^for \(i = 0; i < _PB_N|name(syrk_rows)
linear-algebra/solvers/trisolv/trisolv.c|1|^for \(i = 0; i < _PB_N|name(trisolv_rows)
linear-algebra/solvers/lu/lu.c|1|^for \(i = 0; i < _PB_N|name(lu_rows)
linear-algebra/solvers/cholesky/cholesky.c|1|^for \(i = 0; i < _PB_N|name(cholesky_rows)
datamining/correlation/correlation.c|1|^for \(j = 0; j < _PB_M|name(corr_mean)
datamining/correlation/correlation.c|3|^for \(i = 0; i < _PB_N; i\+\+\)$|name(corr_center)
datamining/correlation/correlation.c|1|^for \(i = 0; i < _PB_M-1|name(corr_corr)
stencils/jacobi-1d/jacobi-1d.c|1|^for \(i = 1; i < _PB_N - 1|name(jacobi1d_b)
stencils/jacobi-1d/jacobi-1d.c|2|^for \(i = 1; i < _PB_N - 1|name(jacobi1d_a)
stencils/seidel-2d/seidel-2d.c|1|^for \(i = 1; i<= _PB_N - 2|name(seidel_inplace)
linear-algebra/solvers/durbin/durbin.c|1|^for \(i=0; i<k; i\+\+\)|name(durbin_sum)
linear-algebra/solvers/durbin/durbin.c|2|^for \(i=0; i<k; i\+\+\)|name(durbin_z)
linear-algebra/solvers/gramschmidt/gramschmidt.c|2|^for \(i = 0; i < _PB_M|name(gs_q)
linear-algebra/solvers/gramschmidt/gramschmidt.c|1|^for \(j = k \+ 1; j < _PB_N|name(gs_r_a)
medley/floyd-warshall/floyd-warshall.c|1|^for \(k = 0; k < _PB_N|name(fw_k_loop)
TABLE
)

# Insert the pragmas (python: exact line matching, indentation kept).
printf '%s\n' "$marks" >"$out/marks.txt"
python3 - "$tree" "$out/marks.txt" <<'PY' || exit 2
import re, sys
tree = sys.argv[1]
by_file = {}
for line in open(sys.argv[2]):
    line = line.rstrip("\n")
    if not line:
        continue
    path, nth, rx, clauses = line.split("|", 3)
    by_file.setdefault(path, []).append((int(nth), rx, clauses))
for path, marks in by_file.items():
    full = f"{tree}/{path}"
    lines = open(full).read().split("\n")
    start = next(i for i, l in enumerate(lines) if l.strip() == "#pragma scop")
    inserts = []
    for nth, rx, clauses in marks:
        seen = 0
        for i in range(start, len(lines)):
            if re.search(rx, lines[i].strip()):
                seen += 1
                if seen == nth:
                    indent = lines[i][:len(lines[i]) - len(lines[i].lstrip())]
                    inserts.append((i, f"{indent}#pragma cgpredict kernel {clauses}"))
                    break
        else:
            sys.exit(f"mark.sh: {path}: no match {nth} of /{rx}/")
    for i, text in sorted(inserts, reverse=True):
        lines.insert(i, text)
    open(full, "w").write("\n".join(lines))
    print(f"marked {path}: {len(inserts)} nest(s)", file=sys.stderr)
PY

files=$(printf '%s\n' "$marks" | cut -d'|' -f1 | awk '!seen[$0]++')
for rel in $files; do
  name=$(basename "$rel" .c)
  dir=$tree/$(dirname "$rel")
  work=$out/run/$name
  mkdir -p "$work"
  flags=(-O2 -I "$tree/utilities" -I "$dir" -D"${dataset}_DATASET" -DPOLYBENCH_DUMP_ARRAYS
         "$tree/utilities/polybench.c" "$dir/$name.c" -lm)
  echo "=== $name ($rel, ${dataset}_DATASET)"
  echo "--- marked:"
  grep -n -A1 '#pragma cgpredict' "$dir/$name.c" | sed 's/^/    /'
  if ! cc "${flags[@]}" -o "$work/plain" >"$work/plain-build.log" 2>&1; then
    echo "plain build: FAILED"; sed 's/^/    /' "$work/plain-build.log" | tail -5; continue
  fi
  if "$driver" cc "${flags[@]}" -o "$work/inst" >"$work/inst-build.log" 2>&1; then
    echo "cgpredict build: ok"
  else
    echo "cgpredict build: FAILED"; sed 's/^/    /' "$work/inst-build.log" | tail -8; continue
  fi
  grep -i 'warning' "$work/inst-build.log" | grep -v 'unknown-pragmas\|ignoring' | sed 's/^/    build: /' | head -10
  (cd "$work" && ./plain >plain.out 2>plain.err); pc=$?
  (cd "$work" && CGPREDICT_QUIET=1 CGPREDICT_REPORT="$work/report.json" ./inst >inst.out 2>inst.err); ic=$?
  echo "exit status: plain $pc, cgpredict $ic"
  if cmp -s "$work/plain.err" "$work/inst.err" && cmp -s "$work/plain.out" "$work/inst.out"; then
    echo "output identical to the plain build: yes ($(wc -c <"$work/plain.err") bytes of dump)"
  else
    echo "output identical to the plain build: NO"
    diff "$work/plain.err" "$work/inst.err" | head -6 | sed 's/^/    /'
  fi
  if [ -f "$work/report.json" ]; then
    python3 - "$work/report.json" <<'PY'
import json, sys
rep = json.load(open(sys.argv[1]))
for k in rep.get("kernels", []):
    print(f"  kernel {k.get('name')}: dims {k.get('dims')} launches {k.get('launches')} grid {k.get('grid')} block {k.get('block')}")
    for key in ("parallel_safe", "dependences", "dependence", "races"):
        if key in k:
            print(f"    {key}: {json.dumps(k[key])[:600]}")
    if not any(key in k for key in ("parallel_safe", "dependences")):
        print("    parallel_safe / dependences: not in this report")
    for w in k.get("warnings", []):
        print(f"    warning: {str(w)[:300]}")
    sites = [f"{m.get('array')}@{m.get('line')}:{m.get('kind')}={m.get('class')}" for m in k.get("memory", [])]
    print(f"    sites: {' '.join(sites)}")
    for m in k.get("memory", []):
        extra = {x: m[x] for x in m if x not in ("file", "line", "column", "kind", "size", "array", "class",
                 "warp_instructions_traced", "transactions_per_warp", "l2_hit_rate", "by_device",
                 "accumulation_reading", "hoisted")}
        if extra:
            print(f"    site {m.get('array')}@{m.get('line')}: {json.dumps(extra)[:300]}")
    d = k.get("divergence", {})
    if d:
        print(f"    divergence: {d.get('divergent_warps')}/{d.get('warps_traced')} warps divergent")
    for p in k.get("predictions", []):
        print(f"    {p['device']}: {p['time_ms']:.4g} ms, bound {p['bound']}")
PY
  else
    echo "  no report written"; grep -v '^[ 0-9.e+-]*$' "$work/inst.err" | grep -iv 'dump' | tail -5 | sed 's/^/    /'
  fi
done
echo "scratch tree and logs: $out"
