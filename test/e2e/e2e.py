#!/usr/bin/env python3
"""End-to-end test driver: run a compiled .fwb with fw-run, compare with numpy.

Normal mode (compare against test/e2e/reference.py):

  e2e.py --fw-run=PATH --module=M.fwb --function=NAME --case=CASE \
         --arg-shapes="64x128;128x32" --tmp=DIR

  Generates deterministic inputs (seeded from the case name and shapes, or
  --seed), writes them as DIR/argN.npy, runs
  `fw-run M.fwb --function=NAME --input=@DIR/arg0.npy ... --output=@DIR/out0.npy ...`
  (one --output per result of the reference), loads the outputs and compares
  them with the reference: shape and dtype must match exactly; floats with
  np.allclose(rtol, atol) from the case (overridable with --rtol/--atol),
  integers and booleans exactly.  Prints "PASS <case>" and exits 0, or prints a
  diff summary and exits 1.

Error mode:

  e2e.py --fw-run=PATH --module=M.fwb --function=NAME --expect-error="SUBSTR" \
         --arg-shapes="4x9;8" [--arg-types="f32;i32"] --tmp=DIR

  Runs fw-run with the given (deliberately wrong) inputs and checks that it
  exits with code 1 (not a signal, not a crash) and that stderr contains
  SUBSTR (case-insensitive; "a|b" accepts either alternative).  --case is
  optional here; without it, argument types default to f32 (or --arg-types).

Shapes: ';' separates arguments, 'x' separates dimensions; "" or "scalar" is a
rank-0 tensor.  Types (--arg-types): f32, f16, f64, i1, i8, i16, i32, i64.
"""

import argparse
import os
import subprocess
import sys
import zlib

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference  # noqa: E402

TYPE_NAMES = {
    "f32": np.float32, "f16": np.float16, "f64": np.float64, "i1": np.bool_,
    "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
}


def parse_shapes(text):
    if text is None:
        return None
    shapes = []
    for part in text.split(";"):
        part = part.strip()
        if part in ("", "scalar"):
            shapes.append(())
        else:
            shapes.append(tuple(int(d) for d in part.split("x")))
    return shapes


def parse_types(text):
    if text is None:
        return None
    try:
        return [np.dtype(TYPE_NAMES[t.strip()]) for t in text.split(";")]
    except KeyError as e:
        sys.exit("e2e.py: unknown type %s in --arg-types" % e)


def generate(rng, shape, dtype, lo, hi, step=None):
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.integers(0, 2, size=shape).astype(np.bool_)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        lo = max(int(lo), int(info.min))
        hi = min(int(hi), int(info.max))
        if hi <= lo:  # default float range (-1, 1) used for an int type
            lo, hi = -100, 100
        return rng.integers(lo, hi, size=shape, dtype=dtype)
    # floats: draw in f64, round once to the element type
    x = rng.uniform(lo, hi, size=shape)
    if step:
        x = np.round(x / step) * step
    return x.astype(dtype)


def run_fw(args, inputs, num_outputs):
    os.makedirs(args.tmp, exist_ok=True)
    cmd = [args.fw_run, args.module, "--function=" + args.function]
    for i, x in enumerate(inputs):
        p = os.path.join(args.tmp, "arg%d.npy" % i)
        np.save(p, x)
        cmd.append("--input=@" + p)
    out_paths = []
    for i in range(num_outputs):
        p = os.path.join(args.tmp, "out%d.npy" % i)
        if os.path.exists(p):
            os.remove(p)  # never read a stale result of an earlier run
        out_paths.append(p)
        cmd.append("--output=@" + p)
    print("e2e.py: running: " + " ".join(cmd))
    sys.stdout.flush()
    try:
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              timeout=args.timeout)
    except subprocess.TimeoutExpired:
        print("FAIL %s: fw-run timed out after %ss" % (args.case or args.function, args.timeout))
        sys.exit(1)
    return proc, out_paths


def describe_proc(proc):
    out = proc.stdout.decode(errors="replace")
    err = proc.stderr.decode(errors="replace")
    msg = "  exit code: %d%s\n" % (
        proc.returncode,
        " (killed by signal %d)" % -proc.returncode if proc.returncode < 0 else "")
    if out.strip():
        msg += "  stdout:\n" + "".join("    " + l + "\n" for l in out.splitlines())
    if err.strip():
        msg += "  stderr:\n" + "".join("    " + l + "\n" for l in err.splitlines())
    return msg


def compare(name, idx, got, want, rtol, atol):
    """Returns None if OK, else a diff summary string."""
    label = "%s result %d" % (name, idx)
    want = np.asarray(want)
    if got.shape != want.shape:
        return "%s: shape mismatch: got %s, expected %s" % (label, got.shape, want.shape)
    if want.dtype == np.bool_:
        if got.dtype != np.bool_:
            return "%s: dtype mismatch: got %s, expected bool (i1)" % (label, got.dtype)
    elif got.dtype != want.dtype:
        return "%s: dtype mismatch: got %s, expected %s" % (label, got.dtype, want.dtype)
    if got.size == 0:
        return None

    if want.dtype.kind == "f":
        g = got.astype(np.float64)
        w = want.astype(np.float64)
        ok = np.isclose(g, w, rtol=rtol, atol=atol, equal_nan=False)
        # NaN/Inf in the expected values must be reproduced exactly
        ok |= (np.isnan(g) & np.isnan(w)) | (np.isinf(w) & (g == w))
    else:
        ok = got == want
    if ok.all():
        return None

    bad = np.argwhere(~ok)
    first = tuple(int(i) for i in bad[0])
    lines = ["%s: %d of %d elements differ (rtol=%g, atol=%g)" %
             (label, len(bad), ok.size, rtol, atol)]
    if want.dtype.kind == "f":
        with np.errstate(invalid="ignore"):
            err = np.abs(got.astype(np.float64) - want.astype(np.float64))
            finite = np.where(np.isfinite(err), err, np.inf)
        worst = tuple(int(i) for i in np.unravel_index(np.argmax(finite), finite.shape))
        lines.append("  max abs error: %g at index %s (got %r, expected %r)" %
                     (finite[worst], worst, got[worst].item(), want[worst].item()))
        nz = np.abs(want.astype(np.float64)) > 0
        if nz.any():
            rel = finite[nz] / np.abs(want.astype(np.float64))[nz]
            lines.append("  max rel error (nonzero expected): %g" % rel.max())
    elif want.dtype.kind in "iu":
        d = np.abs(got.astype(np.int64) - want.astype(np.int64))
        lines.append("  max abs error: %d" % d.max())
    lines.append("  first mismatch at index %s: got %r, expected %r" %
                 (first, got[first].item(), want[first].item()))
    return "\n".join(lines)


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--fw-run", required=True)
    p.add_argument("--module", required=True)
    p.add_argument("--function", required=True)
    p.add_argument("--case")
    p.add_argument("--arg-shapes")
    p.add_argument("--arg-types")
    p.add_argument("--tmp", required=True)
    p.add_argument("--seed", type=int)
    p.add_argument("--rtol", type=float)
    p.add_argument("--atol", type=float)
    p.add_argument("--expect-error")
    p.add_argument("--num-outputs", type=int, default=1,
                   help="--output count in --expect-error mode")
    p.add_argument("--timeout", type=float, default=120)
    p.add_argument("--keep-reference", action="store_true",
                   help="also write the reference results as expected<i>.npy "
                        "next to the inputs (for checks on other machines)")
    args = p.parse_args()

    case = None
    if args.case is not None:
        if args.case not in reference.CASES:
            sys.exit("e2e.py: unknown case '%s' (see reference.CASES)" % args.case)
        case = reference.CASES[args.case]
    elif args.expect_error is None:
        sys.exit("e2e.py: --case is required unless --expect-error is given")

    shapes = parse_shapes(args.arg_shapes)
    types = parse_types(args.arg_types)
    if shapes is None:
        sys.exit("e2e.py: --arg-shapes is required")
    n = len(shapes)
    if case is not None and args.expect_error is None and n != len(case.args):
        sys.exit("e2e.py: case %s takes %d arguments, --arg-shapes gives %d" %
                 (args.case, len(case.args), n))
    if types is not None and len(types) != n:
        sys.exit("e2e.py: --arg-types gives %d types for %d shapes" % (len(types), n))

    seed = args.seed
    if seed is None:
        seed = zlib.crc32(("%s|%s" % (args.case or args.function, args.arg_shapes)).encode())
    rng = np.random.default_rng(seed)

    inputs = []
    for i, shape in enumerate(shapes):
        spec = case.args[i] if case is not None and i < len(case.args) else reference.Arg()
        dtype = types[i] if types is not None else spec.dtype
        inputs.append(generate(rng, shape, dtype, spec.lo, spec.hi, spec.step))

    # ---------------------------------------------------------------- errors
    if args.expect_error is not None:
        proc, _ = run_fw(args, inputs, args.num_outputs)
        err = proc.stderr.decode(errors="replace")
        alternatives = [s.strip().lower() for s in args.expect_error.split("|")]
        problems = []
        if proc.returncode < 0:
            problems.append("fw-run was killed by signal %d" % -proc.returncode)
        elif proc.returncode != 1:
            problems.append("expected exit code 1, got %d" % proc.returncode)
        if not any(a in err.lower() for a in alternatives):
            problems.append("stderr does not contain %r" % args.expect_error)
        label = args.case or args.function
        if problems:
            print("FAIL %s (expect-error): %s" % (label, "; ".join(problems)))
            print(describe_proc(proc), end="")
            return 1
        print("PASS %s (expected error: %s)" % (label, err.strip().splitlines()[-1] if err.strip() else ""))
        return 0

    # ---------------------------------------------------------------- compare
    expected = case.fn(*[x.copy() for x in inputs])
    if not isinstance(expected, tuple):
        expected = (expected,)
    rtol, atol = case.tolerances(inputs)
    if args.rtol is not None:
        rtol = args.rtol
    if args.atol is not None:
        atol = args.atol

    proc, out_paths = run_fw(args, inputs, len(expected))
    if proc.returncode != 0:
        print("FAIL %s: fw-run failed" % args.case)
        print(describe_proc(proc), end="")
        return 1

    failures = []
    for i, (path, want) in enumerate(zip(out_paths, expected)):
        if not os.path.exists(path):
            failures.append("%s result %d: fw-run wrote no %s" % (args.case, i, path))
            continue
        try:
            got = np.load(path, allow_pickle=False)
        except Exception as e:  # noqa: BLE001
            failures.append("%s result %d: cannot load %s: %s" % (args.case, i, path, e))
            continue
        msg = compare(args.case, i, got, want, rtol, atol)
        if msg:
            failures.append(msg)
        if args.keep_reference:
            np.save(os.path.join(args.tmp, "expected%d.npy" % i),
                    np.asarray(want).astype(got.dtype))

    shapes_txt = ";".join("x".join(map(str, s)) for s in shapes)
    if failures:
        print("FAIL %s [%s]" % (args.case, shapes_txt))
        for f in failures:
            print(f)
        if proc.stderr.strip():
            print(describe_proc(proc), end="")
        return 1
    print("PASS %s [%s]" % (args.case, shapes_txt))
    return 0


if __name__ == "__main__":
    sys.exit(main())
