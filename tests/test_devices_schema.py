#!/usr/bin/env python3
"""Every device file through devices/device.schema.json (python3-jsonschema) and through the C
loader (`cgpredict devices NAME`, which loads with model/cgp_device.c), and the two must agree:
every shipped file accepted by both; every broken variant refused by both, the C loader's message
naming the file and the field.

    test_devices_schema.py --driver build/driver/cgpredict --source .
"""
import argparse
import copy
import glob
import json
import os
import subprocess
import sys
import tempfile

import jsonschema

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def schema_errors(validator, doc):
    """All error texts, nested ones (if/then, allOf) included, each with its instance path."""
    out = []

    def walk(errs):
        for e in errs:
            out.append("/".join(str(p) for p in e.absolute_path) + ": " + e.message)
            walk(e.context or [])
    walk(validator.iter_errors(doc))
    return out


def c_loader(driver, folder, name):
    env = dict(os.environ, CGPREDICT_DEVICES_DIR=folder)
    r = subprocess.run([driver, "devices", name], env=env, capture_output=True, text=True)
    return r.returncode, r.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--driver", required=True)
    ap.add_argument("--source", required=True)
    args = ap.parse_args()
    devdir = os.path.join(args.source, "devices")
    with open(os.path.join(devdir, "device.schema.json")) as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)

    shipped = sorted(p for p in glob.glob(os.path.join(devdir, "*.json")) if not p.endswith(".schema.json"))
    check(len(shipped) >= 11, "expected at least 11 device files, found %d" % len(shipped))
    for path in shipped:
        name = os.path.basename(path)[:-5]
        with open(path) as f:
            doc = json.load(f)
        errs = schema_errors(validator, doc)
        check(not errs, "%s: schema refuses a shipped file: %s" % (name, errs[:3]))
        rc, err = c_loader(args.driver, devdir, name)
        check(rc == 0, "%s: C loader refuses a shipped file: %s" % (name, err.strip()))
        check(doc.get("name") == name, "%s: name field is not the file's base name" % name)

    with open(os.path.join(devdir, "jetson-tk1.json")) as f:
        tk1 = json.load(f)

    def variant(edit, base=None):
        d = copy.deepcopy(base or tk1)
        edit(d)
        return d

    def set_(k, v):
        return lambda d: d.__setitem__(k, v)

    def drop(k):
        return lambda d: d.pop(k)

    def set_indexed(sets, nbytes):
        def e(d):
            d["l2_index"] = "modulo"
            d["l2_assoc"] = 16
            d["l2_sets"] = sets
            d["l2_bytes"] = nbytes
            d["sources"]["l2_sets"] = "test variant"
        return e

    def drop_source(k):
        return lambda d: d["sources"].pop(k)

    def host_kind(v):
        return lambda d: d["host_link"].__setitem__("kind", v)

    # (name, edit, field the C loader must name)
    broken = [
        ("missing-field", drop("freq_hz"), "freq_hz"),
        ("mistyped-field", set_("freq_hz", "fast"), "freq_hz"),
        ("unsigned-2-32", set_("regs_per_sm", 2 ** 32), "regs_per_sm"),
        ("negative-clock", set_("freq_hz", -852e6), "freq_hz"),
        ("non-pow2-line", set_("l2_line_bytes", 96), "l2_line_bytes"),
        ("non-pow2-sets", set_indexed(96, 96 * 16 * 64), "l2_sets"),
        ("sector-not-dividing-line", set_("l2_sector_bytes", 128), "l2_sector_bytes"),
        ("fractional-count", set_("no_sm", 1.5), "no_sm"),
        ("zero-clock", set_("freq_hz", 0), "freq_hz"),
        ("missing-source", drop_source("lat_l2"), "lat_l2"),
        ("unknown-field", set_("freq_mhz", 852), "freq_mhz"),
        ("set-indexed-without-sets", set_("l2_index", "modulo"), "l2_sets"),
        ("bad-index", set_("l2_index", "hashed"), "l2_index"),
        ("bad-host-link", host_kind("usb"), "host_link.kind"),
        ("bool-as-number", set_("l1_caches_global", 1), "l1_caches_global"),
        ("warp-size-64", set_("warp_size", 64), "warp_size"),
        ("numeric-citation", lambda d: d["sources"].__setitem__("lat_dram", 332), "sources.lat_dram"),
        ("sets-for-fully-associative", lambda d: d.__setitem__("l2_sets", 1) or d["sources"].__setitem__("l2_sets", "x"),
         "l2_sets"),
        # issue 31 item 11: values no GPU has (they printed 300-digit times or inf), names a file
        # system, CGPREDICT_DEVICE's list or a terminal cannot hold
        ("huge-latency", set_("lat_dram", 1e300), "lat_dram"),
        ("tiny-clock", set_("freq_hz", 1e-300), "freq_hz"),
        ("huge-bandwidth", set_("dram_bandwidth_bytes_per_s", 1e300), "dram_bandwidth_bytes_per_s"),
        ("tiny-l2-bandwidth", lambda d: d.__setitem__("l2_read_bandwidth_bytes_per_s", 1e-300) or
         d["sources"].__setitem__("l2_read_bandwidth_bytes_per_s", "x"), "l2_read_bandwidth_bytes_per_s"),
        ("million-sms", set_("no_sm", 2 ** 24), "no_sm"),
        ("huge-host-latency", lambda d: d["host_link"].__setitem__("latency_s", 1e300), "host_link.latency_s"),
        ("name-with-comma", set_("name", "tk1,evil"), "name"),
        ("name-with-slash", set_("name", "../tk1"), "name"),
        ("name-with-escape", set_("name", "tk1\u001b[2J"), "name"),
        ("description-with-escape", set_("description", "TK1 \u001b]0;owned\u0007"), "description"),
    ]
    accepted = [
        ("set-indexed-pow2", set_indexed(128, 128 * 16 * 64)),
        ("kind-gpu-said", set_("kind", "gpu")),
    ]
    broken.append(("kind-unknown", set_("kind", "asic"), "kind"))

    # FPGA files (kind fpga): the schema's $defs/fpga and model/cgp_fpga_device.c
    with open(os.path.join(devdir, "zc702.json")) as f:
        zc = json.load(f)

    def fset(path, v):
        def e(d):
            *head, last = path
            for k in head:
                d = d[k]
            d[last] = v
        return e

    def fdrop(path):
        def e(d):
            *head, last = path
            for k in head:
                d = d[k]
            d.pop(last)
        return e

    fpga_broken = [
        ("fpga-missing-clock", fdrop(["clock_mhz"]), "clock_mhz"),
        ("fpga-zero-clock", fset(["clock_mhz"], 0), "clock_mhz"),
        ("fpga-uncited-dsp", fdrop(["sources", "resources.dsp"]), "resources.dsp"),
        ("fpga-unknown-field", fset(["freq_mhz"], 100), "freq_mhz"),
        ("fpga-unknown-resource", fset(["resources", "carry"], 1), "resources.carry"),
        ("fpga-operator-uncited", fdrop(["operators", 0, "source"]), "operators[0].source"),
        ("fpga-bad-op", fset(["operators", 0, "op"], "fma"), "operators[0].op"),
        ("fpga-negative-latency", fset(["operators", 2, "latency"], -1), "operators[2].latency"),
        ("fpga-fractional-dsp", fset(["operators", 2, "dsp"], 0.5), "operators[2].dsp"),
        ("fpga-three-ports", fset(["bram", "ports"], 3), "bram.ports"),
        ("fpga-bad-burst", fset(["offchip", "max_burst_beats"], 0), "offchip.max_burst_beats"),
    ]
    for name, edit, field in fpga_broken:
        broken.append((name, edit, field, zc))
    with tempfile.TemporaryDirectory() as tmp:
        for name, edit, field, *base in broken:
            doc = variant(edit, *base)
            path = os.path.join(tmp, name + ".json")
            with open(path, "w") as f:
                json.dump(doc, f, indent=1)
            errs = schema_errors(validator, doc)
            check(errs, "%s: the schema accepts it" % name)
            key = field.split(".")[-1].split("[")[0]
            check(any(key in e for e in errs), "%s: no schema error mentions %s: %s" % (name, key, errs[:3]))
            rc, err = c_loader(args.driver, tmp, name)
            check(rc != 0, "%s: the C loader accepts it" % name)
            check(path in err, "%s: the C loader's message does not name the file: %s" % (name, err.strip()))
            check('field "%s"' % field in err, "%s: the C loader's message does not name field %s: %s"
                  % (name, field, err.strip()))
        for name, edit in accepted:
            doc = variant(edit)
            doc["name"] = name              # a device is looked up by its file's name
            with open(os.path.join(tmp, name + ".json"), "w") as f:
                json.dump(doc, f, indent=1)
            errs = schema_errors(validator, doc)
            check(not errs, "%s: the schema refuses it: %s" % (name, errs[:3]))
            rc, err = c_loader(args.driver, tmp, name)
            check(rc == 0, "%s: the C loader refuses it: %s" % (name, err.strip()))

    # the GPU list (`cgpredict devices`' first table, CGPREDICT_DEVICE=all) holds no FPGA
    r = subprocess.run([args.driver, "devices"], capture_output=True, text=True,
                       env=dict(os.environ, CGPREDICT_DEVICES_DIR=devdir))
    gpu_part = r.stdout.split("FPGA device")[0]
    check(r.returncode == 0, "cgpredict devices failed: %s" % r.stderr.strip())
    for name in ("zc702", "zcu102", "alveo-u250"):
        check(name not in gpu_part, "%s is listed among the GPUs" % name)
        check(name in r.stdout.split("FPGA device")[-1], "%s is not in the FPGA list" % name)

    # one FPGA with every field, its citation and the scheduler's choice at the clock budget
    r = subprocess.run([args.driver, "devices", "zc702"], capture_output=True, text=True,
                       env=dict(os.environ, CGPREDICT_DEVICES_DIR=devdir))
    check(r.returncode == 0, "cgpredict devices zc702 failed: %s" % r.stderr.strip())
    check("resources.dsp                220" in r.stdout and "source: DS190" in r.stdout,
          "cgpredict devices zc702: no cited DSP count")
    check("clock_budget_ns              8.75" in r.stdout, "cgpredict devices zc702: no clock budget")
    check("fadd      32 bits: latency 4, delay 8.75 ns, 2 DSP, 390 LUT, 205 FF" in r.stdout,
          "cgpredict devices zc702: no fadd choice")

    print("%d shipped files, %d broken variants, %d accepted variants: %s"
          % (len(shipped), len(broken), len(accepted), "FAILED" if failures else "ok"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
