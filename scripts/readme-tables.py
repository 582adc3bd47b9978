#!/usr/bin/env python3
"""Copy the tables benchmarks/polybench/run and speed, benchmarks/gpgpusim/score and
benchmarks/h100/score, benchmarks/tiles/score, benchmarks/fpga/score, benchmarks/fpga/hlsyn_rank and
benchmarks/fpga-choice/score wrote (results.md, speed.md, gpgpusim/results.md, h100/results.md,
tiles/results.md, fpga/results.md, fpga/hlsyn_results.md up to its design points,
fpga-choice/results.md) into README.md,
between the <!-- accuracy:begin/end -->, <!-- speed:begin/end -->, <!-- gpgpusim:begin/end -->,
<!-- h100:begin/end -->, <!-- h200:begin/end --> (h200/results-h200-sxm.md), <!-- tiles:begin/end -->, <!-- fpga:begin/end -->, <!-- hlsyn:begin/end -->,
<!-- fpga-choice:begin/end -->, <!-- speed-user:begin/end --> (speed-user-standard.md),
<!-- speed-user-paper:begin/end --> (speed-user-paper.md), <!-- speed-user-issue30:begin/end -->
(speed-user-issue30.md) and
<!-- vs-full:begin/end --> (vs-full.md) markers. Never type
them in."""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
README = os.path.join(ROOT, "README.md")
TABLES = {"accuracy": "benchmarks/polybench/results.md", "speed": "benchmarks/polybench/speed.md",
          "gpgpusim": "benchmarks/gpgpusim/results.md", "h100": "benchmarks/h100/results.md",
          "h200": "benchmarks/h200/results-h200-sxm.md",
          "tiles": "benchmarks/tiles/results.md", "fpga": "benchmarks/fpga/results.md",
          "hlsyn": "benchmarks/fpga/hlsyn_results.md", "fpga-choice": "benchmarks/fpga-choice/results.md",
          "speed-user": "benchmarks/polybench/speed-user-standard.md",
          "speed-user-paper": "benchmarks/polybench/speed-user-paper.md",
          "speed-user-issue30": "benchmarks/polybench/speed-user-issue30.md", "vs-full": "benchmarks/polybench/vs-full.md"}
CUT = {"hlsyn": "\n## "}  # the README takes the per-kernel table, not the per-point ones


def main():
    with open(README) as f:
        text = f.read()
    for name, rel in TABLES.items():
        path = os.path.join(ROOT, rel)
        if not os.path.exists(path):
            print(f"readme-tables: {rel} not found; run the benchmark first", file=sys.stderr)
            continue
        with open(path) as f:
            table = f.read()
        if name in CUT:
            table = table.split(CUT[name])[0]
        table = table.strip()
        pattern = re.compile(rf"(<!-- {name}:begin -->\n)(?:.*?\n)?(<!-- {name}:end -->)", re.S)
        if not pattern.search(text):
            sys.exit(f"readme-tables: README.md has no {name} markers")
        text = pattern.sub(lambda m: m.group(1) + table + "\n" + m.group(2), text)
    with open(README, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
