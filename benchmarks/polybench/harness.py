"""Helpers shared by the PolyBench accuracy harness (run) and speed benchmark (speed)."""
import csv
import os
import subprocess
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
REF = os.path.join(os.path.dirname(ROOT), "shared", "reference")
DEVICE = "jetson-tk1"
PAPER_BLOCKS = "256,32x32"
POLYBENCH_BLOCKS = "256,32x8"


def read_csv(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def _run(cmd, env=None, cwd=None):
    """Run a command; return (exit status, wall seconds, CPU seconds (user + system), peak RSS in
    MiB, stdout, stderr)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.monotonic()
        proc = subprocess.Popen(cmd, env=env, cwd=cwd, stdout=out, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.monotonic() - start
        out.seek(0)
        err.seek(0)
        return (os.waitstatus_to_exitcode(status), wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024.0,
                out.read().decode(errors="replace"), err.read().decode(errors="replace"))


def run_measured(cmd, env=None, cwd=None):
    """Run a command; return (exit status, wall seconds, peak RSS in MiB, stdout, stderr)."""
    c, wall, _, rss, out, err = _run(cmd, env, cwd)
    return c, wall, rss, out, err


def run_cpu(cmd, env=None, cwd=None):
    """Run a command; return (exit status, CPU seconds (user + system), peak RSS in MiB, stdout,
    stderr). CPU time, not wall time: on a machine shared with other jobs it is what the
    program itself cost."""
    c, _, cpu, rss, out, err = _run(cmd, env, cwd)
    return c, cpu, rss, out, err


def run_wall_cpu(cmd, env=None, cwd=None):
    """Run a command; return (exit status, wall seconds, CPU seconds (user + system), stdout, stderr)."""
    c, wall, cpu, _, out, err = _run(cmd, env, cwd)
    return c, wall, cpu, out, err


def build_tool(build_dir):
    subprocess.run(["cmake", "-S", ROOT, "-B", build_dir], check=True,
                   stdout=subprocess.DEVNULL)
    subprocess.run(["cmake", "--build", build_dir, "-j", str(os.cpu_count() or 2)], check=True,
                   stdout=subprocess.DEVNULL)
    return os.path.join(build_dir, "driver", "cgpredict")
