"""Prints a profile file's essentials for test/runtime/profile.mlir: the header, the
counter source, and per entry its count, whether its times are ordered
(min <= p10 <= median <= p90 <= max), how many runs its histogram holds, whether it
has a value for every counter the header names, and the workgroups its runs were
divided into."""
import json
import sys

d = json.load(open(sys.argv[1]))
print(d["format"], d["version"], d["module"]["name"], "runs=%d" % d["runs"],
      "cpu_workers=%d" % d["cpu_workers"])
print("counters", d["counters"]["source"], ",".join(d["counters"]["names"]))
for t in d["tasks"]:
    s = t["seconds"]
    ordered = s["min"] <= s["p10"] <= s["median"] <= s["p90"] <= s["max"]
    runs = sum(n for _, n in t["histogram"])
    counters = "ok" if set(t["counters"]) == set(d["counters"]["names"]) else "missing"
    moved = ",".join("%s=%d" % kv for kv in sorted(t["bytes_moved"].items())) or "nothing"
    print(t["task"], t["device"], "count=%d" % t["count"], "ordered=%s" % ordered,
          "histogram=%d" % runs, "counters=%s" % counters, "moved=%s" % moved,
          "workgroups=%d" % t.get("workgroups", 0))
