#!/usr/bin/env python3
"""Profile-guided build against the default build of a model, side by side.

For each model: compile the default build; compile an autotuning build
(fwc --autotune=N), run it with fw-run --benchmark --profile-out; rebuild with
fwc --profile-use (remarks next to it); then time the default and the
profile-guided builds alternately, several rounds of fw-run --benchmark each,
and report the median of the per-round medians and their ratio. The outputs of
both builds are compared (numpy allclose) before anything is timed. With
--native=TARGETS, a third build for those targets only (x86-64-v4: what
-march=native would give on an AVX-512 machine, not portable) is timed in the
same rounds, as the best static choice to compare with.

  bench/pgo/compare.py --fwc build/bin/fwc --fw-run build/tools/fw-run/fw-run \
      --work /tmp/pgo examples/mlp.mlir:256 examples/convnet.mlir:8 examples/attention.mlir:256
"""
import argparse
import os
import re
import statistics
import subprocess
import sys

import numpy as np


def run(cmd, **kw):
    result = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if result.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{result.stderr}")
    return result.stdout


def median_us(output):
    m = re.search(r"median: ([0-9.eE+-]+) (us|ms|s)\b", output)
    if not m:
        sys.exit("no median in fw-run's output:\n" + output)
    scale = {"us": 1, "ms": 1e3, "s": 1e6}[m.group(2)]
    return float(m.group(1)) * scale


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fwc", required=True)
    parser.add_argument("--fw-run", required=True)
    parser.add_argument("--work", required=True, help="directory for builds and profiles")
    parser.add_argument("--autotune", type=int, default=4)
    parser.add_argument("--calls", type=int, default=30, help="calls per fw-run --benchmark")
    parser.add_argument("--rounds", type=int, default=5, help="alternating rounds per build")
    parser.add_argument("--native", help="also time a build for these targets (x86-64-v4)")
    parser.add_argument("models", nargs="+", help="MODEL.mlir:DEFAULT_DIM")
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)

    rows = []
    for spec in args.models:
        path, dim = spec.rsplit(":", 1)
        name = os.path.splitext(os.path.basename(path))[0]
        w = lambda suffix: os.path.join(args.work, name + suffix)
        inputs = ["--default-dim=" + dim]
        run([args.fwc, path, "-o", w(".default.fwb")])
        builds = ["default", "pgo"]
        if args.native:
            run([args.fwc, path, "--targets=" + args.native, "-o", w(".native.fwb")])
            builds.append("native")
        run([args.fwc, path, f"--autotune={args.autotune}", "-o", w(".tune.fwb")])
        if os.path.exists(w(".prof.json")):
            os.remove(w(".prof.json"))
        run([args.fw_run, w(".tune.fwb"), *inputs, f"--benchmark={args.calls}",
             "--profile-out=" + w(".prof.json"), "--print-max-elements=0"])
        run([args.fwc, path, "--profile-use=" + w(".prof.json"),
             "--remarks=" + w(".remarks.yaml"), "-o", w(".pgo.fwb")])
        outs = []
        for build in ("default", "pgo"):
            run([args.fw_run, w(f".{build}.fwb"), *inputs, "--output=@" + w(f".{build}.npy")])
            outs.append(np.load(w(f".{build}.npy")))
        if not np.allclose(outs[0], outs[1], rtol=1e-4, atol=1e-4):
            sys.exit(f"{name}: the profile-guided build computes other results")
        times = {build: [] for build in builds}
        for _ in range(args.rounds):
            for build in builds:
                out = run([args.fw_run, w(f".{build}.fwb"), *inputs,
                           f"--benchmark={args.calls}", "--print-max-elements=0"])
                times[build].append(median_us(out))
        d, p = statistics.median(times["default"]), statistics.median(times["pgo"])
        n = statistics.median(times["native"]) if args.native else None
        remarks = open(w(".remarks.yaml")).read()
        decisions = {k: len(re.findall(r"^Name:\s+" + k, remarks, re.M))
                     for k in ("KeepVariant", "MergeTasks", "SplitTask", "Placement", "Priorities")}
        rows.append((name, dim, d, p, n, decisions))

    native = f" {'native us':>10}" if args.native else ""
    print(f"{'model':<10} {'dim':>5} {'default us':>11} {'pgo us':>9} {'speedup':>8}{native}  decisions")
    for name, dim, d, p, n, decisions in rows:
        what = ", ".join(f"{v} {k}" for k, v in decisions.items() if v)
        native = f" {n:>10.1f}" if n is not None else ""
        print(f"{name:<10} {dim:>5} {d:>11.1f} {p:>9.1f} {d / p:>7.2f}x{native}  {what}")


if __name__ == "__main__":
    main()
