#!/usr/bin/env python3
"""How far off the runtime's run-time estimates are for a size it has not run yet.

Runs a compiled module with fw-run at one or more small sizes into a history file
(fw-run --history), then at a large size twice with a trace (fw-run --trace): once with
that history, once without. In a trace each task's run carries what the runtime expected
of it before it counted ("expected_us"), so for each task whose large size falls in a size
class the small runs did not reach, the first run's estimate is compared with the median
of the large size's measured runs (both runs'):

  - without a history, the estimate is the device model alone;
  - with the small sizes' history, it is the model calibrated by them: the model times
    the ratio of measured to modelled time of the nearest size class that has samples
    (interpolated between the nearest on either side).

Both are printed as factors >= 1 (x or 1/x, whichever is larger), with their geometric
mean over the tasks.

  bench/history/calibration.py --fw-run=build/tools/fw-run/fw-run \\
      --small=64,128 --large=1024 model.fwb [more.fwb ...]
"""
import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile


def size_classes(path):
    """{(task, kind): {size classes with samples}} of a history file."""
    if not os.path.exists(path):
        return {}
    with open(path) as f:
        lines = f.read().splitlines()
    if not lines or lines[0] not in ("fw-history 1", "fw-history 2", "fw-history 3"):
        sys.exit(f"{path}: not an fw history file")
    with_ratios = lines[0] != "fw-history 1"
    table = {}
    for line in lines[1:]:
        if not line or line.startswith("#") or line.startswith("link "):
            continue
        fields = line.split(" ")
        kind, size_class, n = int(fields[0]), int(fields[1]), int(fields[3])
        name = " ".join(fields[4 + (2 if with_ratios else 1) * n:])
        table.setdefault((name, kind), set()).add(size_class)
    return table


def task_runs(path):
    """{task: (the first run's expected us, [each run's us])} of a trace."""
    with open(path) as f:
        events = json.load(f)["traceEvents"]
    runs = {}
    for e in sorted((e for e in events if e.get("ph") == "X"), key=lambda e: e["ts"]):
        expected = e.get("args", {}).get("expected_us")
        if expected:  # a task's run (a helper's share of a dispatch has none)
            runs.setdefault(e["name"], []).append((expected, e["dur"]))
    return {name: (r[0][0], [d for _, d in r]) for name, r in runs.items()}


def fw_run(args, module, dim, history=None, trace=None):
    command = [args.fw_run, module, f"--default-dim={dim}", f"--benchmark={args.benchmark}",
               "--print-max-elements=0"]
    if history:
        command.append(f"--history={history}")
    if trace:
        command.append(f"--trace={trace}")
    try:
        run = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             text=True)
    except OSError as e:
        sys.exit(f"cannot run {args.fw_run}: {e.strerror}")
    if run.returncode != 0:
        sys.exit(f"{' '.join(command)} failed:\n{run.stderr.strip()}")


def off(x):
    return max(x, 1 / x)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--fw-run", required=True)
    p.add_argument("--small", default="64",
                   help="--default-dim of the calibrating runs, comma-separated")
    p.add_argument("--large", type=int, default=1024, help="--default-dim of the new size")
    p.add_argument("--benchmark", type=int, default=5, help="calls per run")
    p.add_argument("modules", nargs="+")
    args = p.parse_args()
    try:
        small = [int(d) for d in args.small.split(",")]
    except ValueError:
        sys.exit(f"--small={args.small}: expected comma-separated sizes")
    alone, calibrated = [], []
    print(f"| task | model alone off by | calibrated at {args.small}, off by |")
    print("|---|---|---|")
    for module in args.modules:
        with tempfile.TemporaryDirectory() as tmp:
            history = os.path.join(tmp, "history")
            for dim in small:
                fw_run(args, module, dim, history=history)
            before = size_classes(history)
            with_history, without = os.path.join(tmp, "with.json"), os.path.join(tmp, "without.json")
            fw_run(args, module, args.large, history=history, trace=with_history)
            after = size_classes(history)
            fw_run(args, module, args.large, trace=without)
            new_class = {name for (name, kind), classes in after.items()
                         if classes - before.get((name, kind), set())}
            model, fitted = task_runs(without), task_runs(with_history)
        for name in sorted(new_class & set(model) & set(fitted)):
            measured = statistics.median(model[name][1] + fitted[name][1])
            alone.append(off(model[name][0] / measured))
            calibrated.append(off(fitted[name][0] / measured))
            print(f"| {name} | {alone[-1]:.2f}x | {calibrated[-1]:.2f}x |")
    if not alone:
        sys.exit("no task ran in a new size class at the large size")
    geo = lambda v: math.exp(sum(math.log(x) for x in v) / len(v))
    print(f"| geometric mean ({len(alone)} tasks) | {geo(alone):.2f}x | {geo(calibrated):.2f}x |")


if __name__ == "__main__":
    main()
