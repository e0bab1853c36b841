#!/usr/bin/env python3
"""How far off the runtime's run-time estimates are for a size it has not run yet.

Runs a compiled module with fw-run at a small size, then at a large one, into one
history file (fw-run --history). Each sample of the history keeps its ratio to the
device model's estimate for that run (measured / modelled), so from the file alone,
per task, with r_small and r_large the median ratios at the two sizes:

  - the device model alone (before any run at the large size) is off by 1 / r_large;
  - the model calibrated by the small size's history (what the runtime uses for a size
    class without samples) is off by r_small / r_large.

Both are printed as factors >= 1 (x or 1/x, whichever is larger), with their geometric
mean over the tasks.

  bench/history/calibration.py --fw-run=build/tools/fw-run/fw-run \\
      --small=64 --large=1024 model.fwb [more.fwb ...]
"""
import argparse
import math
import os
import statistics
import subprocess
import sys
import tempfile


def read_history(path):
    """{(task, kind): {size_class: median ratio}} of a history file (format 2)."""
    with open(path) as f:
        lines = f.read().splitlines()
    if not lines or lines[0] != "fw-history 2":
        sys.exit(f"{path}: not a history file of format 2")
    table = {}
    for line in lines[1:]:
        if not line or line.startswith("#"):
            continue
        fields = line.split(" ")
        kind, size_class, n = int(fields[0]), int(fields[1]), int(fields[3])
        ratios = [float(r) for r in fields[4 + n:4 + 2 * n] if float(r) > 0]
        name = " ".join(fields[4 + 2 * n:])
        if len(ratios) >= 3:
            table.setdefault((name, kind), {})[size_class] = statistics.median(ratios)
    return table


def off(x):
    return max(x, 1 / x)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--fw-run", required=True)
    p.add_argument("--small", type=int, default=64, help="--default-dim of the first run")
    p.add_argument("--large", type=int, default=1024, help="--default-dim of the second")
    p.add_argument("--benchmark", type=int, default=5, help="calls per run")
    p.add_argument("modules", nargs="+")
    args = p.parse_args()
    alone, calibrated = [], []
    print("| task | model alone off by | calibrated at the small size, off by |")
    print("|---|---|---|")
    for module in args.modules:
        with tempfile.TemporaryDirectory() as tmp:
            history = os.path.join(tmp, "history")
            classes = []
            for dim in (args.small, args.large):
                before = read_history(history) if os.path.exists(history) else {}
                command = [args.fw_run, module, f"--default-dim={dim}",
                           f"--benchmark={args.benchmark}", f"--history={history}",
                           "--print-max-elements=0"]
                try:
                    run = subprocess.run(command, stdout=subprocess.DEVNULL,
                                         stderr=subprocess.PIPE, text=True)
                except OSError as e:
                    sys.exit(f"cannot run {args.fw_run}: {e.strerror}")
                if run.returncode != 0:
                    sys.exit(f"{' '.join(command)} failed:\n{run.stderr.strip()}")
                after = read_history(history)
                # The size classes this run added, per task.
                classes.append({key: set(after[key]) - set(before.get(key, {}))
                                for key in after})
            table = read_history(history)
        for key, by_class in sorted(table.items()):
            small, large = classes[0].get(key, set()), classes[1].get(key, set())
            if len(small) != 1 or len(large) != 1:
                continue  # the two sizes fell in one size class
            r_small, r_large = by_class[min(small)], by_class[min(large)]
            alone.append(off(1 / r_large))
            calibrated.append(off(r_small / r_large))
            print(f"| {key[0]} | {alone[-1]:.2f}x | {calibrated[-1]:.2f}x |")
    if not alone:
        sys.exit("no task ran in distinct size classes at the two sizes")
    geo = lambda v: math.exp(sum(math.log(x) for x in v) / len(v))
    print(f"| geometric mean ({len(alone)} tasks) | {geo(alone):.2f}x | {geo(calibrated):.2f}x |")


if __name__ == "__main__":
    main()
