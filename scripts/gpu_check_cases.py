#!/usr/bin/env python3
"""Lists the end-to-end cases scripts/gpu-check.sh carries to the GPU node.

Reads the lit RUN lines of test/e2e/*.mlir: a test qualifies when it compiles
one module with plain fwc flags (`%fwc SRC [-O3] -o %t.fwb`) and checks it with
e2e.py in normal mode. Prints one line per e2e.py run:

    NAME|SOURCE|FUNCTION|CASE|ARG_SHAPES

with SOURCE relative to the repository root and NAME unique (the test's name,
numbered when it checks several shapes).
"""

import os
import re
import shlex
import sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
e2e = os.path.join(root, "test", "e2e")


def run_lines(path):
    """The RUN lines of a test, continuation lines joined."""
    lines, current = [], ""
    with open(path) as f:
        for line in f:
            m = re.match(r"\s*//\s*RUN:\s?(.*)$", line)
            if not m:
                continue
            text = m.group(1).rstrip()
            if text.endswith("\\"):
                current += text[:-1] + " "
                continue
            lines.append(current + text)
            current = ""
    return lines


def main():
    for file in sorted(os.listdir(e2e)):
        if not file.endswith(".mlir"):
            continue
        path = os.path.join(e2e, file)
        source = None
        runs = []
        for line in run_lines(path):
            words = shlex.split(line)
            if words[:1] == ["%fwc"]:
                if "-o" not in words or words[words.index("-o") + 1] != "%t.fwb":
                    continue
                flags = [w for w in words[1:] if w not in ("-o", "%t.fwb")]
                srcs = [w for w in flags if w == "%s" or w.endswith(".mlir")]
                if len(srcs) != 1 or any(f not in srcs + ["-O3"] for f in flags):
                    source = None
                    break
                src = srcs[0]
                if src == "%s":
                    source = os.path.relpath(path, root)
                else:
                    source = os.path.normpath(os.path.relpath(
                        os.path.join(e2e, src.replace("%S/", "")), root))
            elif len(words) > 1 and words[0] == "%python" and words[1].endswith("e2e.py"):
                opts = dict(w[2:].split("=", 1) for w in words[2:] if w.startswith("--") and "=" in w)
                if "expect-error" in opts or opts.get("module") != "%t.fwb":
                    continue
                runs.append(opts)
        if not source:
            continue
        base = file[:-len(".mlir")]
        for i, opts in enumerate(runs):
            name = base if len(runs) == 1 else "%s_%d" % (base, i)
            print("|".join([name, source, opts["function"], opts["case"],
                            opts.get("arg-shapes", "")]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
