#!/usr/bin/env python3
"""Every report the test suite wrote (the end-to-end tests keep each report the tool wrote and
reads back in <build>/test-reports/, tests/e2e_util.h) against docs/report.schema.json
(python3-jsonschema), and the schema against broken variants of one of them, which it must refuse.

    tests/test_report_schema.py --build BUILD --source SOURCE [--min N]

Fails when fewer than N reports were kept (default 20: the suite writes far more), so that a
suite that kept none cannot pass."""
import argparse
import copy
import glob
import json
import os
import sys

import jsonschema


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--source", required=True)
    ap.add_argument("--min", type=int, default=20)
    a = ap.parse_args()
    with open(os.path.join(a.source, "docs", "report.schema.json")) as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    v = jsonschema.Draft202012Validator(schema)
    files = sorted(glob.glob(os.path.join(a.build, "test-reports", "report.*")))
    bad = 0
    sample = None
    for path in files:
        with open(path) as f:
            doc = json.load(f)
        errors = sorted(v.iter_errors(doc), key=lambda e: list(e.absolute_path))
        for e in errors[:3]:
            print(f"{path}: {'/'.join(map(str, e.absolute_path))}: {e.message[:300]}")
        bad += bool(errors)
        if not errors and sample is None and doc.get("kernels") and doc["kernels"][0].get("predictions"):
            sample = doc
    print(f"{len(files) - bad} of {len(files)} reports valid")
    failed = bad > 0 or len(files) < a.min
    if len(files) < a.min:
        print(f"only {len(files)} reports kept (at least {a.min} expected): run the end-to-end tests first")
    if sample is not None:
        broken = {
            "version 2.0": lambda d: d.__setitem__("version", "cgpredict-report/2.0"),
            "a negative time": lambda d: d["kernels"][0]["predictions"][0].__setitem__("time_ms", -1),
            "an unknown bound": lambda d: d["kernels"][0]["predictions"][0].__setitem__("bound", "luck"),
            "no samples": lambda d: d["kernels"][0].pop("samples"),
            "a field nobody knows": lambda d: d.__setitem__("extra", 1),
        }
        for what, edit in broken.items():
            d = copy.deepcopy(sample)
            edit(d)
            if v.is_valid(d):
                print(f"the schema accepts a report with {what}")
                failed = True
    else:
        print("no valid report with a prediction to break")
        failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
