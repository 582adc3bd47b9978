#!/usr/bin/env python3
"""The HTML report in a real browser (issue 29 item 4). Builds the bundled GEMM and SYRK examples
small, runs them on three devices with CGPREDICT_HTML set (the runtime's page) and rewrites the
page with `cgpredict report FILE --html` (the driver's); then for each page:
  - static: one file, no script, no link, no URL at all (nothing to fetch);
  - headless Chromium (Debian's chromium) loads it with every host name unresolvable and a network
    log: the rendered DOM holds every kernel's name, every device's, and every prediction's time
    exactly as the JSON has it (each time cell's data-ms), and the log shows no request but the
    page's own file.
Without Chromium the test says so and exits 77, which CTest reports as skipped, never as passed.

    tests/test_html.py --driver CGPREDICT --source SOURCE --work DIR"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys

SKIP = 77


def sh(cmd, cwd, env=None):
    r = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{r.stdout[-2000:]}\n{r.stderr[-2000:]}")
    return r


def browser():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def load(chrome, page, work):
    """The rendered DOM of page and the URLs the page itself asked for (the net log's requests of
    any priority but IDLE, which is the browser's own background work: updates, accounts)."""
    netlog = os.path.join(work, "net.json")
    if os.path.exists(netlog):
        os.unlink(netlog)
    # the browser's own traffic off as far as flags go, host names unresolvable: nothing leaves
    r = subprocess.run([chrome, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                        "--disable-background-networking", "--disable-component-update", "--disable-sync",
                        "--disable-default-apps", "--no-default-browser-check",
                        f"--user-data-dir={os.path.join(work, 'profile')}",
                        "--host-resolver-rules=MAP * ~NOTFOUND", f"--log-net-log={netlog}",
                        "--dump-dom", "file://" + os.path.abspath(page)],
                       capture_output=True, text=True, timeout=120)
    log = open(netlog, encoding="utf-8", errors="replace").read() if os.path.exists(netlog) else None
    asked = None
    if log is not None:
        asked = sorted({m.group(2) for m in re.finditer(r'"priority":"([A-Z]+)"[^{}]*?"url":"([^"]+)"', log)
                        if m.group(1) != "IDLE" and not m.group(2).startswith(("file://", "data:"))})
    return r.stdout, asked


def check_page(page, report, chrome, work):
    text = open(page, encoding="utf-8").read()
    failed = []
    for bad in (r"<script", r"<link", r"<img", r"<iframe", r"@import", r"url\(", r"https?://", r"src="):
        if re.search(bad, text, re.I):
            failed.append(f"{page}: holds {bad!r}: the page must need nothing from anywhere")
    dom, asked = load(chrome, page, work)
    if "cgpredict report" not in dom:
        failed.append(f"{page}: the browser rendered no report")
    times = [float(v) for v in re.findall(r'data-ms="([^"]+)"', dom)]
    for k in report["kernels"]:
        if k["name"] not in dom:
            failed.append(f"{page}: kernel {k['name']} not in the rendered page")
        for p in k["predictions"]:
            if p["device"] not in dom:
                failed.append(f"{page}: device {p['device']} not in the rendered page")
            # cJSON prints 15 significant digits where they read back within its tolerance: the
            # page's 17 are the double itself, the JSON's agree to 1e-12
            if not any(abs(t - p["time_ms"]) <= 1e-12 * abs(p["time_ms"]) for t in times):
                failed.append(f"{page}: {k['name']} on {p['device']}: {p['time_ms']} ms not in the page")
    # the offload decision (docs/model.md section 12): the program's and every prediction's
    offloads = [float(v) for v in re.findall(r'data-offload-ms="([^"]+)"', dom)]
    wanted = [("program", o) for o in report.get("offload", [])]
    wanted += [(k["name"], p["offload"]) for k in report["kernels"] for p in k["predictions"] if "offload" in p]
    if not report.get("offload"):
        failed.append(f"{page}: the report has no offload decision to show")
    for who, o in wanted:
        if not any(abs(t - o["offload_ms"]) <= 1e-12 * abs(o["offload_ms"]) for t in offloads):
            failed.append(f"{page}: {who}: offloaded time {o['offload_ms']} ms not in the page")
        if o["verdict"] not in dom:
            failed.append(f"{page}: {who}: verdict {o['verdict']!r} not in the page")
    if asked is None:
        failed.append(f"{page}: the browser wrote no network log")
    elif asked:
        failed.append(f"{page}: the page asked for {asked[:5]}")
    return failed


def check_the_check(chrome, work):
    """A page that does fetch something must be caught, or the network check proves nothing."""
    ctl = os.path.join(work, "control.html")
    with open(ctl, "w") as f:
        f.write('<!DOCTYPE html><html><body>x<img src="http://example.invalid/a.png"></body></html>')
    _, asked = load(chrome, ctl, work)
    return [] if asked == ["http://example.invalid/a.png"] else [f"the control page's request was not seen: {asked}"]


def check_suite(a, chrome):
    """The PolyBench suite (benchmarks/polybench, every source of kernels.csv) at small sizes, each
    program's report, and `cgpredict page` joining them into one page: every kernel of every
    report, as PROGRAM: kernel, with its times."""
    import csv
    work = os.path.join(a.work, "suite")
    os.makedirs(work)
    here = os.path.join(a.source, "benchmarks", "polybench")
    rows = [r for r in csv.DictReader(l for l in open(os.path.join(here, "kernels.csv")) if not l.startswith("#"))]
    reports = []
    for r in rows:
        defs = [f"-D{m}={2 if m == 'TSTEPS' else 64}" for m in r["size_macros"].split()]
        for item in filter(None, r.get("block_macros", "").split(";")):      # LU sizes grids by its block
            name, which = item.split("=")
            defs.append(f"-D{name}={256 if which == '1x' else 32 if which == '2x' else 8}")
        exe = r["file"][:-2].replace("-", "_")
        sh([a.driver, "build", "--", "cc", "-O2", *defs, "-o", exe, os.path.abspath(os.path.join(here, r["file"]))], work)
        env = dict(os.environ, CGPREDICT_QUIET="1", CGPREDICT_DEVICE="jetson-tk1,h100-sxm5",
                   CGPREDICT_REPORT=exe + ".json", CGPREDICT_TRACE="0")
        sh(["./" + exe], work, env)
        reports.append(exe + ".json")
    sh([a.driver, "page", "suite.html", *reports], work)
    joined = {"kernels": [], "offload": []}
    for rep in reports:
        data = json.load(open(os.path.join(work, rep)))
        prog = rep[:-5]
        for k in data["kernels"]:
            k["name"] = f"{prog}: {k['name']}"
            joined["kernels"].append(k)
        joined["offload"] += data.get("offload", [])
    failed = check_page(os.path.join(work, "suite.html"), joined, chrome, work)
    if len(joined["kernels"]) < 40:
        failed.append(f"the suite page has {len(joined['kernels'])} kernels: the suite has more")
    print(f"suite page: {len(reports)} programs, {len(joined['kernels'])} kernels, "
          f"{os.path.getsize(os.path.join(work, 'suite.html')) // 1024} KiB")
    return failed


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--driver", required=True)
    ap.add_argument("--source", required=True)
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    chrome = browser()
    if not chrome:
        print("SKIPPED: Chromium is not installed (scripts/install-deps.sh installs Debian's chromium); "
              "the HTML page was not checked in a browser")
        return SKIP
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    failed = check_the_check(chrome, a.work)
    for ex, sizes in (("gemm", ["-DN=128"]), ("syrk", ["-DN=128"])):
        src = os.path.abspath(os.path.join(a.source, "examples", ex + ".c"))
        sh([a.driver, "build", "--", "cc", "-O2", *sizes, "-o", ex, src], a.work)
        env = dict(os.environ, CGPREDICT_QUIET="1", CGPREDICT_DEVICE="jetson-tk1,h100-sxm5,v100-sxm2",
                   CGPREDICT_REPORT=ex + ".json", CGPREDICT_HTML=ex + "-run.html")
        sh(["./" + ex], a.work, env)
        sh([a.driver, "report", ex + ".json", "--html", ex + ".html"], a.work)
        report = json.load(open(os.path.join(a.work, ex + ".json")))
        for page in (ex + "-run.html", ex + ".html"):
            failed += check_page(os.path.join(a.work, page), report, chrome, a.work)
    failed += check_suite(a, chrome)
    for f in failed:
        print(f)
    print(f"{'FAILED' if failed else 'passed'}: 5 pages checked in {os.path.basename(chrome)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
