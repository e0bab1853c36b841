#!/usr/bin/env python3
"""Offline reference for the runtime's scheduling quality: CP-SAT on the bench's DAGs.

fw-runtime-bench --only=sched compares each policy's makespan with the runtime's own
lower bound (the largest of a critical path with moves between device classes, an area
bound and a bound on the work within time windows), which can be loose on machines with
accelerators. This script schedules
the same DAGs with Google OR-tools CP-SAT and reports, per DAG and machine,

  - a proven lower bound on the optimal makespan (CP-SAT's objective bound), and
  - the best schedule found within the time limit (the better of CP-SAT's best
    solution and the list schedule it is seeded with), timed in seconds,

next to the runtime's bound and heft's makespan. The input is written by

  build-bench/fw-runtime-bench --only=sched --dag-dir=DIR
  bench/sched/optimal.py [--time-limit=60] [--workers=2] [--only=SUBSTRING] DIR

(pip install ortools). Each file holds one DAG on one machine: per task its run time
on a CPU worker and on an accelerator (absent: it cannot run there) and its buffer
accesses, the machine's worker counts and link, the runtime's bounds and each
policy's makespan.

The model (integer time in units of UNIT_S):

  - Dependencies are inferred per buffer in submission order, as the runtime does:
    a read depends on the buffer's last writer, a write ("w", "rw") on the readers
    since the last write, or on the last writer when there are none.
  - Each task runs once, without preemption, on the CPU pool (cpu_workers identical
    workers sharing host memory: a cumulative resource) or on one of the identical
    accelerators (one worker each, each with its own memory: no overlap per
    accelerator), for its run time there. Symmetry breaking: the accelerators are
    numbered by the first task, in submission order, that each one runs.
  - A task that reads a buffer ("r", "rw") starts no earlier than its producer (the
    buffer's last writer before it) ends plus the move: zero within one memory
    space, one hop (latency + bytes / bandwidth) between host memory and an
    accelerator, two hops between two accelerators (through host memory).
  - The objective is the makespan.

Relaxations, so that the bound stays valid for the runtime's simulator:

  - Copies do not contend: the simulator serializes the copies on each direction of
    a link and writes evicted replicas back; here every move takes one or two hops
    from the producer's end, independently of all others (of several buffers read
    from one producer, the largest one's move counts).
  - Accelerator memory is unlimited (no evictions).
  - Durations and moves are rounded down to the unit, which can only shorten the
    optimum; CP-SAT's bound times UNIT_S is thus a lower bound on the optimal
    makespan in seconds.
  - Buffers that no task wrote before cost no move: the bench creates its buffers
    without data, and the simulator fills never-written buffers with zeros in
    place. For DAGs whose buffers start with data in host memory,
    --inputs-on-host charges one hop before an accelerator may read them.

Search: a HEFT-like list schedule (insertion, ranks from the mean and from the
fastest run time, the better of the two) seeds CP-SAT as a complete hint and bounds
the horizon. Redundant constraints, all implied by the model, strengthen the bound:
per task and device class its earliest start and the least time from its start to
the end (the runtime's critical path: moves between the classes counted), the
fractional split of the work between the classes (the runtime's area bound), and
the work each class must run within time windows. The bound is thus never below
the runtime's (up to rounding, and unless a task reads several buffers from one
producer: the runtime then charges one latency and all their bytes). With more than
one search worker CP-SAT is not deterministic: bounds and schedules vary a little
from run to run.

The best schedule found is a schedule of this relaxed model (its placement and its
per-worker order, timed again with the exact run times), so it is a reference for
what a policy could reach, not a simulator run; the runtime's policies pay for link
contention that it ignores.

Columns: runtime bound = the file's bound_s; cp-sat bound = the proven lower bound;
best = the best schedule found; status = CP-SAT's (OPTIMAL: best equals the bound up
to rounding; FEASIBLE: the time limit ended the search); heft = the heft policy's
makespan in the simulator; then heft over both and the runtime's bound over
CP-SAT's (< 1: CP-SAT's is tighter). A row noted
WARNING has a bound above some policy's makespan or above the best schedule found,
which means the model is stricter than the simulator, or the runtime's bound above the
best schedule found, which means the runtime's bound is not one.
"""
import argparse
import bisect
import heapq
import json
import math
import os
import sys

PROG = "optimal.py"

# Time unit of the model: 0.1 us. The bench's longest makespans (a few seconds) are a
# few 1e7 units and the sums of run times in its work bounds at most a few 1e8, far
# from CP-SAT's 2^62.
UNIT_S = 1e-7

# The work bounds over time windows take every (count // WINDOWS)-th of a class's
# distinct release times and of its distinct times left after a task (all of them
# when there are fewer than 2 WINDOWS): up to about (2 WINDOWS)^2 windows per class.
WINDOWS = 16


class InputError(Exception):
    """An input file that cannot be read or does not have the expected format."""


def fail(message):
    """Exits with one line on stderr, no traceback."""
    print(f"{PROG}: {message}", file=sys.stderr)
    sys.exit(1)


# ---- Input ------------------------------------------------------------------------------


class Dag:
    """One DAG on one machine, as fw-runtime-bench --dag-dir writes it."""

    def __init__(self, path, doc):
        def need(obj, key, kinds, what):
            if key not in obj:
                raise InputError(f"{path}: {what}: missing \"{key}\"")
            value = obj[key]
            if not isinstance(value, kinds) or isinstance(value, bool):
                raise InputError(f"{path}: {what}: \"{key}\" has the wrong type")
            return value

        def seconds(obj, key, what, optional=False):
            if optional and key not in obj:
                return None
            value = need(obj, key, (int, float), what)
            if not math.isfinite(value) or value < 0:
                raise InputError(f"{path}: {what}: \"{key}\" is not a non-negative number")
            return float(value)

        if not isinstance(doc, dict):
            raise InputError(f"{path}: not a JSON object")
        self.path = path
        self.name = need(doc, "dag", str, "top level")
        self.machine = need(doc, "machine", str, "top level")
        self.cpu_workers = need(doc, "cpu_workers", int, "top level")
        self.accelerators = need(doc, "accelerators", int, "top level")
        if self.cpu_workers < 0 or self.accelerators < 0:
            raise InputError(f"{path}: negative worker count")
        self.hop_latency = seconds(doc, "hop_latency_s", "top level")
        self.hop_bandwidth = seconds(doc, "hop_bytes_per_s", "top level")
        if self.accelerators and self.hop_bandwidth <= 0:
            raise InputError(f"{path}: \"hop_bytes_per_s\" must be positive")
        self.bound = seconds(doc, "bound_s", "top level")
        self.makespans = {}
        for policy, value in need(doc, "makespan_s", dict, "top level").items():
            self.makespans[policy] = seconds({policy: value}, policy, "makespan_s")
        self.buffer_bytes = [
            seconds({"size": b}, "size", f"buffer {i}")
            for i, b in enumerate(need(doc, "buffer_bytes", list, "top level"))
        ]
        # Per task: (kernel, cpu seconds or None, accelerator seconds or None,
        # [(buffer, reads, writes)]). A class the machine lacks counts as absent.
        self.tasks = []
        for t, task in enumerate(need(doc, "tasks", list, "top level")):
            what = f"task {t}"
            if not isinstance(task, dict):
                raise InputError(f"{path}: {what}: not an object")
            kernel = need(task, "kernel", str, what)
            cpu = seconds(task, "cpu_s", what, optional=True)
            acc = seconds(task, "accelerator_s", what, optional=True)
            if not self.cpu_workers:
                cpu = None
            if not self.accelerators:
                acc = None
            if cpu is None and acc is None:
                raise InputError(f"{path}: {what}: no worker of {self.machine} can run it")
            accesses = []
            for a in need(task, "accesses", list, what):
                if (not isinstance(a, list) or len(a) != 2 or not isinstance(a[0], int)
                        or isinstance(a[0], bool) or a[1] not in ("r", "w", "rw")):
                    raise InputError(f"{path}: {what}: bad access {json.dumps(a)}")
                if not 0 <= a[0] < len(self.buffer_bytes):
                    raise InputError(f"{path}: {what}: no buffer {a[0]}")
                accesses.append((a[0], "r" in a[1], "w" in a[1]))
            self.tasks.append((kernel, cpu, acc, accesses))

    def hop(self, buffer):
        """Seconds of one hop of `buffer` between host memory and an accelerator."""
        return self.hop_latency + self.buffer_bytes[buffer] / self.hop_bandwidth


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except OSError as e:
        raise InputError(f"{path}: {e.strerror}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise InputError(f"{path}: not valid JSON ({e})") from None
    return Dag(path, doc)


def dependencies(dag, inputs_on_host):
    """The runtime's inferred dependencies with what must move along them.

    Returns (preds, first_reads): preds[t] maps each predecessor of task t to the
    seconds of one hop of the largest buffer t reads from it (0: an ordering only, or
    a machine without accelerators); first_reads[t] is the largest one hop of a
    buffer t reads that no task wrote before (0 unless inputs_on_host).
    """
    last_writer = [None] * len(dag.buffer_bytes)
    readers = [[] for _ in dag.buffer_bytes]
    preds, first_reads = [], []
    for t, (_, _, _, accesses) in enumerate(dag.tasks):
        pred, first = {}, 0.0

        def depend(p, hop=0.0):
            if p != t:
                pred[p] = max(pred.get(p, 0.0), hop)

        for b, reads, writes in accesses:
            hop = dag.hop(b) if dag.accelerators else 0.0
            if reads:
                if last_writer[b] is not None:
                    depend(last_writer[b], hop)  # the producer of the data read
                elif inputs_on_host:
                    first = max(first, hop)
            if not writes:
                readers[b].append(t)
                continue
            if readers[b]:
                for r in readers[b]:
                    depend(r)
                readers[b] = []
            elif last_writer[b] is not None:
                depend(last_writer[b])
            last_writer[b] = t
        preds.append(pred)
        first_reads.append(first)
    return preds, first_reads


# ---- Schedules --------------------------------------------------------------------------

CPU = -1  # placement of a task on the CPU pool; 0, 1, ...: that accelerator


class Problem:
    """A DAG's durations and moves in one time scale (model units or seconds)."""

    def __init__(self, dag, preds, first_reads, scale):
        self.n = len(dag.tasks)
        self.cpu_workers = dag.cpu_workers
        self.accelerators = dag.accelerators
        self.cpu = [None if c is None else scale(c) for _, c, _, _ in dag.tasks]
        self.acc = [None if a is None else scale(a) for _, _, a, _ in dag.tasks]
        self.preds = [[(p, scale(h)) for p, h in sorted(pred.items())] for pred in preds]
        self.first = [scale(h) for h in first_reads]
        self.succs = [[] for _ in range(self.n)]
        for t in range(self.n):
            for p, h in self.preds[t]:
                self.succs[p].append((t, h))

    def duration(self, t, place):
        return self.cpu[t] if place == CPU else self.acc[t]

    @staticmethod
    def move(hop, src, dst):
        """Time from the producer's end on src until the data is usable on dst."""
        if src == dst:
            return 0
        return hop if CPU in (src, dst) else 2 * hop

    def ready(self, t, place, finish, where):
        """Earliest start of task t on `place` given its predecessors' placement."""
        ready = self.first[t] if place != CPU else 0
        for p, h in self.preds[t]:
            ready = max(ready, finish[p] + self.move(h, where[p], place))
        return ready


def timetable(problem, where, order):
    """Times a placement: tasks in `order` (topological), each as early as its inputs
    and its worker allow; returns (start, finish)."""
    start, finish = [0] * problem.n, [0] * problem.n
    cpu_free = [0] * problem.cpu_workers  # a heap: when each CPU worker is free
    acc_free = [0] * problem.accelerators
    for t in order:
        place = where[t]
        ready = problem.ready(t, place, finish, where)
        if place == CPU:
            start[t] = max(ready, heapq.heappop(cpu_free))
            finish[t] = start[t] + problem.cpu[t]
            heapq.heappush(cpu_free, finish[t])
        else:
            start[t] = max(ready, acc_free[place])
            finish[t] = start[t] + problem.acc[t]
            acc_free[place] = finish[t]
    return start, finish


def earliest_gap(starts, ends, ready, d):
    """The earliest time from `ready` at which a worker with these busy intervals
    (sorted, disjoint) is free for `d`: after them or in a gap between them."""
    at = ready
    for i in range(bisect.bisect_right(ends, ready), len(starts)):
        if starts[i] >= at + d:
            break
        at = max(at, ends[i])
    return at


def heft(problem, fastest):
    """Insertion-based HEFT: ready tasks by upward rank (the mean run time over the
    workers that can run a task, or with `fastest` its run time on the fastest class,
    plus the longest chain after it), each on the worker where it would finish first,
    gaps between planned tasks included. Returns (placement, planned starts)."""
    n = problem.n
    rank = [0.0] * n
    for t in reversed(range(n)):
        costs = [(problem.cpu_workers, problem.cpu[t]), (problem.accelerators, problem.acc[t])]
        costs = [(w, d) for w, d in costs if d is not None]
        cost = (min(d for _, d in costs) if fastest else
                sum(w * d for w, d in costs) / sum(w for w, _ in costs))
        rank[t] = cost + max((rank[s] for s, _ in problem.succs[t]), default=0)
    # Per worker its planned intervals: the CPU workers, then the accelerators.
    workers = [(CPU, [], []) for _ in range(problem.cpu_workers)]
    workers += [(k, [], []) for k in range(problem.accelerators)]
    missing = [len(problem.preds[t]) for t in range(n)]
    ready = [(-rank[t], t) for t in range(n) if not missing[t]]
    heapq.heapify(ready)
    where, start, finish = [CPU] * n, [0] * n, [0] * n
    while ready:
        _, t = heapq.heappop(ready)
        best = None
        for place, starts, ends in workers:
            d = problem.duration(t, place)
            if d is None:
                continue
            at = earliest_gap(starts, ends, problem.ready(t, place, finish, where), d)
            if best is None or at + d < best[0] + best[1]:
                best = (at, d, place, starts, ends)
        at, d, where[t], starts, ends = best
        start[t], finish[t] = at, at + d
        i = bisect.bisect_right(starts, at)
        starts.insert(i, at)
        ends.insert(i, at + d)
        for s, _ in problem.succs[t]:
            missing[s] -= 1
            if not missing[s]:
                heapq.heappush(ready, (-rank[s], s))
    return where, start


def seed_schedule(problem):
    """The better of the two HEFT variants, as (placement, order): the order, by
    planned start, times the placement no later than planned (see timetable). The
    accelerators are numbered by first use in submission order, as in the model."""
    plans = []
    for fastest in (False, True):
        where, start = heft(problem, fastest)
        order = sorted(range(problem.n), key=lambda t: (start[t], t))
        plans.append((max(timetable(problem, where, order)[1], default=0), where, order))
    _, where, order = min(plans, key=lambda plan: plan[0])
    relabel = {}
    for t in range(problem.n):
        if where[t] != CPU and where[t] not in relabel:
            relabel[where[t]] = len(relabel)
    return [relabel.get(w, CPU) for w in where], order


def class_bounds(problem):
    """Per task and device class (0: CPU, 1: accelerators) the earliest start there and
    the least time from that start to the end of the DAG, moves between the classes
    counted (none between two accelerators): bounds the model implies, given to
    CP-SAT explicitly because its linear relaxation does not see them."""
    n, inf = problem.n, math.inf
    dur = [(inf if problem.cpu[t] is None else problem.cpu[t],
            inf if problem.acc[t] is None else problem.acc[t]) for t in range(n)]
    head = [[0, problem.first[t]] for t in range(n)]
    for t in range(n):
        for p, h in problem.preds[t]:
            for c in (0, 1):
                head[t][c] = max(head[t][c], min(
                    head[p][src] + dur[p][src] + (h if src != c else 0) for src in (0, 1)))
    tail = [list(dur[t]) for t in range(n)]
    for t in reversed(range(n)):
        for s, h in problem.succs[t]:
            for c in (0, 1):
                tail[t][c] = max(tail[t][c], dur[t][c] + min(
                    (h if dst != c else 0) + tail[s][dst] for dst in (0, 1)))
    return head, tail


# ---- CP-SAT -----------------------------------------------------------------------------


def work_bound(problem):
    """The least makespan if each task could be split between the CPU pool and the
    accelerators and spread over their workers: the runtime's area bound. The
    accelerators take the tasks where they gain most until the loads balance."""
    cpu_workers, accs = problem.cpu_workers, problem.accelerators
    cpu_load = acc_load = 0.0
    both = []
    for t in range(problem.n):
        if problem.acc[t] is None:
            cpu_load += problem.cpu[t] / cpu_workers
        elif problem.cpu[t] is None:
            acc_load += problem.acc[t] / accs
        else:
            cpu_load += problem.cpu[t] / cpu_workers
            both.append(t)
    both.sort(key=lambda t: -problem.cpu[t] / problem.acc[t] if problem.acc[t] else -math.inf)
    for t in both:
        x, y = problem.cpu[t] / cpu_workers, problem.acc[t] / accs
        if acc_load + y <= cpu_load - x:
            acc_load, cpu_load = acc_load + y, cpu_load - x
            continue
        if acc_load < cpu_load:  # the part of t that balances the loads
            f = (cpu_load - acc_load) / (x + y)
            acc_load, cpu_load = acc_load + f * y, cpu_load - f * x
        break
    return max(cpu_load, acc_load)


class Model:
    """The CP-SAT model of a DAG in integer units (see the module's docstring)."""

    def __init__(self, cp_model, units, seed_where, seed_start, seed_finish):
        n, accs = units.n, units.accelerators
        horizon = max(seed_finish)  # the seed is a solution: the optimum is no later
        head, tail = class_bounds(units)
        m = self.model = cp_model.CpModel()

        # The makespan, at least the class critical path and the work bound.
        critical = max(min(head[t][c] + tail[t][c] for c in (0, 1)) for t in range(n))
        least = max(critical, math.ceil(work_bound(units) - 1e-6))
        self.makespan = m.new_int_var(min(least, horizon), horizon, "makespan")

        # Per task its start and end, whether it runs on an accelerator (g, a constant
        # where it can run on one class only) and on which one (on[t][k]).
        self.start, self.end, self.on_acc, self.on = [], [], [], []
        cpu_intervals, acc_intervals = [], [[] for _ in range(accs)]
        for t in range(n):
            can_cpu, can_acc = units.cpu[t] is not None, units.acc[t] is not None
            # Per class: duration, earliest start, least time from start to the end
            # (a class the task cannot use takes the other's numbers).
            cls = [c for c, ok in ((0, can_cpu), (1, can_acc)) if ok]
            dc, da = (units.cpu[t] if can_cpu else units.acc[t],
                      units.acc[t] if can_acc else units.cpu[t])
            hc, ha = head[t][cls[0]], head[t][cls[-1]]
            tc, ta = tail[t][cls[0]], tail[t][cls[-1]]
            lo = min(hc, ha)
            s = m.new_int_var(lo, max(lo, horizon - min(tc, ta)), f"s{t}")
            e = m.new_int_var(0, horizon, f"e{t}")
            g = m.new_bool_var(f"g{t}") if can_cpu and can_acc else int(can_acc)
            m.add(e == s + dc + (da - dc) * g)
            m.add(s >= hc + (ha - hc) * g)
            m.add(self.makespan >= s + tc + (ta - tc) * g)
            if not units.succs[t]:
                m.add(self.makespan >= e)
            if can_cpu:
                cpu_intervals.append(
                    m.new_optional_fixed_size_interval_var(s, dc, g.Not(), f"cpu{t}")
                    if can_acc else m.new_fixed_size_interval_var(s, dc, f"cpu{t}"))
            lits = []
            if can_acc:
                lits = [m.new_bool_var(f"on{t}_{k}") for k in range(accs)]
                for k, lit in enumerate(lits):
                    acc_intervals[k].append(
                        (m.new_optional_fixed_size_interval_var(s, da, lit, f"acc{t}_{k}"),
                         da, lit))
                m.add(sum(lits) == g)
            self.start.append(s)
            self.end.append(e)
            self.on_acc.append(g)
            self.on.append(lits)

        # Resources: the CPU pool, and each accelerator runs one task at a time.
        if cpu_intervals:
            m.add_cumulative(cpu_intervals, [1] * len(cpu_intervals), units.cpu_workers)
        for k in range(accs):
            m.add_no_overlap([interval for interval, _, _ in acc_intervals[k]])
            m.add(sum(d * lit for _, d, lit in acc_intervals[k]) <= self.makespan)
        self.add_work_bounds(units, head, tail)
        self.add_dependencies(units)
        if accs > 1:
            self.break_symmetry(units, seed_where)

        # The seed as a complete hint.
        m.add_hint(self.makespan, horizon)
        for t in range(n):
            m.add_hint(self.start[t], seed_start[t])
            m.add_hint(self.end[t], seed_finish[t])
            if not isinstance(self.on_acc[t], int):
                m.add_hint(self.on_acc[t], seed_where[t] != CPU)
            for k, lit in enumerate(self.on[t]):
                m.add_hint(lit, seed_where[t] == k)
        m.minimize(self.makespan)

    def add_work_bounds(self, units, head, tail):
        """Redundant constraints for the linear relaxation, which sees fractional
        placements: the work each class runs fits its workers over the makespan, and
        so does the work of its tasks that cannot start before r there and leave at
        least q after their end (all within [r, makespan - q]), for a few r and q."""
        m = self.model
        for c, workers in ((0, units.cpu_workers), (1, units.accelerators)):
            durations = units.cpu if c == 0 else units.acc
            work = [(t, d, 1 - self.on_acc[t] if c == 0 else self.on_acc[t])
                    for t, d in enumerate(durations) if d is not None]
            if not work:
                continue
            release = {t: head[t][c] for t, _, _ in work}
            after = {t: tail[t][c] - d for t, d, _ in work}

            def levels(key):
                values = sorted(set(key.values()))
                return values[::max(1, len(values) // WINDOWS)]

            for r in levels(release):
                for q in levels(after):
                    terms = [d * x for t, d, x in work if release[t] >= r and after[t] >= q]
                    if terms:
                        m.add(sum(terms) <= workers * (self.makespan - r - q))

    def add_dependencies(self, units):
        """Dependencies and moves. With g the accelerator flag and on_k the flag of
        accelerator k, for each edge p -> c along which one hop takes h:
          s_c >= e_p + h (g_p - g_c)                           accelerator -> CPU: h
          s_c >= e_p + 2h (on_k(c) - on_k(p)) - h (1 - g_p)    for each accelerator k:
            CPU -> k: h; another accelerator -> k: 2h; k -> k: 0; c not on k: <= 0."""
        m, start, end, g = self.model, self.start, self.end, self.on_acc

        def on_k(t, k):
            return self.on[t][k] if self.on[t] else 0

        for c in range(units.n):
            for p, h in units.preds[c]:
                m.add(start[c] >= end[p])
                if not h or not units.accelerators:
                    continue
                delays = [h * (g[p] - g[c])]
                if self.on[c]:
                    delays += [2 * h * (on_k(c, k) - on_k(p, k)) - h * (1 - g[p])
                               for k in range(units.accelerators)]
                for delay in delays:
                    if not (isinstance(delay, int) and delay <= 0):  # not always true
                        m.add(start[c] >= end[p] + delay)
            if units.first[c] and self.on[c]:
                m.add(start[c] >= units.first[c] * g[c])

    def break_symmetry(self, units, seed_where):
        """The accelerators are identical: a task runs on accelerator k > 0 only if an
        earlier task (in submission order) runs on k - 1. used[k] implies that a task
        so far runs on k (the converse is not needed)."""
        m, accs = self.model, units.accelerators
        used, seed_used = [None] * accs, [False] * accs
        for t in range(units.n):
            if not self.on[t]:
                continue
            for k in range(1, accs):
                if used[k - 1] is None:
                    m.add(self.on[t][k] == 0)
                else:
                    m.add_implication(self.on[t][k], used[k - 1])
            for k in range(accs):
                now = m.new_bool_var(f"used{t}_{k}")
                before = [used[k]] if used[k] is not None else []
                m.add_bool_or([now.Not(), self.on[t][k]] + before)
                seed_used[k] = seed_used[k] or seed_where[t] == k
                m.add_hint(now, seed_used[k])
                used[k] = now

    def schedule(self, solver):
        """The solution's (placement, order by start)."""
        n = len(self.start)
        where = [next((k for k, lit in enumerate(self.on[t]) if solver.value(lit)), CPU)
                 for t in range(n)]
        order = sorted(range(n), key=lambda t: (solver.value(self.start[t]),
                                                solver.value(self.end[t]), t))
        return where, order


def solve(dag, preds, first_reads, time_limit, workers, cp_model):
    """Returns (lower bound s, best makespan s, CP-SAT's status)."""
    units = Problem(dag, preds, first_reads, lambda s: math.floor(s / UNIT_S))
    exact = Problem(dag, preds, first_reads, lambda s: s)
    if units.n == 0:
        return 0.0, 0.0, "OPTIMAL"
    longest = max(d or 0 for d in units.cpu + units.acc + units.first +
                  [h for pred in units.preds for _, h in pred])
    if longest * (units.n + 1) >= 2**53:
        raise InputError(f"{dag.path}: run times too long for a time unit of {UNIT_S:g} s")
    # The seed is a solution of the model (the same rounded times), so the model's
    # optimum is no later than it.
    seed_where, seed_order = seed_schedule(units)
    seed_start, seed_finish = timetable(units, seed_where, seed_order)
    best = max(timetable(exact, seed_where, seed_order)[1])
    model = Model(cp_model, units, seed_where, seed_start, seed_finish)

    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = time_limit
    solver.parameters.num_workers = workers
    # Probing takes most of a minute on the larger DAGs before the search starts and
    # barely helps the bound.
    solver.parameters.cp_model_probing_level = 0
    status = solver.solve(model.model)
    if status == cp_model.MODEL_INVALID:
        raise RuntimeError(f"{dag.path}: invalid model: {model.model.validate()}")
    if status == cp_model.INFEASIBLE:  # the seed is a solution: a modelling error
        return math.nan, best, "INFEASIBLE"
    bound = math.ceil(solver.best_objective_bound - 1e-6) * UNIT_S
    if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        # The solution's placement and order, timed with the exact durations.
        where, order = model.schedule(solver)
        best = min(best, max(timetable(exact, where, order)[1]))
    return bound, best, solver.status_name(status)


# ---- Report -----------------------------------------------------------------------------


def print_table(header, rows, left):
    """Plain text, columns two spaces apart: the first `left` ones left-aligned."""
    width = [max(len(r[c]) for r in [header] + rows) for c in range(len(header))]

    def line(cells):
        out = "  ".join(s.ljust(width[c]) if c < left else s.rjust(width[c])
                        for c, s in enumerate(cells))
        print(out.rstrip())

    line(header)
    print("-" * (sum(width) + 2 * (len(width) - 1)))
    for r in rows:
        line(r)


def ms(seconds):
    return "-" if seconds is None or math.isnan(seconds) else f"{seconds * 1e3:.3f}"


def ratio(x, y):
    return "-" if x is None or not y or math.isnan(y) else f"{x / y:.3f}"


def input_files(args):
    files = []
    for path in args.paths:
        if os.path.isdir(path):
            names = sorted(f for f in os.listdir(path) if f.endswith(".json"))
            files += [os.path.join(path, f) for f in names]
        elif os.path.exists(path):
            files.append(path)
        else:
            fail(f"{path}: no such file or directory")
    files = [f for f in files if args.only in os.path.basename(f)]
    if not files:
        fail("no DAG files" + (f" matching \"{args.only}\"" if args.only else ""))
    return files


def main():
    parser = argparse.ArgumentParser(
        prog=PROG, description=__doc__.splitlines()[0],
        epilog="Input: build-bench/fw-runtime-bench --only=sched --dag-dir=DIR")
    parser.add_argument("--time-limit", type=float, default=60, metavar="SECONDS",
                        help="CP-SAT time per DAG (default 60)")
    parser.add_argument("--workers", type=int, default=2, metavar="N",
                        help="CP-SAT search workers (default 2)")
    parser.add_argument("--only", default="", metavar="SUBSTRING",
                        help="only the files whose name contains SUBSTRING")
    parser.add_argument("--inputs-on-host", action="store_true",
                        help="buffers no task wrote before start in host memory (one hop "
                             "to an accelerator); the bench's buffers do not")
    parser.add_argument("paths", nargs="+", metavar="FILE_OR_DIR")
    args = parser.parse_args()
    if not args.time_limit > 0 or args.workers < 1:
        fail("--time-limit and --workers must be positive")
    try:
        from ortools.sat.python import cp_model
    except ImportError:
        fail("needs Google OR-tools: pip install ortools")

    files = input_files(args)
    dags = []
    for path in files:  # all inputs are checked before the first (long) solve
        try:
            dag = load(path)
        except InputError as e:
            fail(str(e))
        dags.append(dag)

    rows, warnings = [], 0
    for dag in dags:
        print(f"{os.path.basename(dag.path)}: {len(dag.tasks)} tasks ...",
              file=sys.stderr, flush=True)
        preds, first_reads = dependencies(dag, args.inputs_on_host)
        try:
            bound, best, status = solve(dag, preds, first_reads, args.time_limit,
                                        args.workers, cp_model)
        except (InputError, RuntimeError) as e:
            fail(str(e))
        # A bound above any makespan the simulator reached (or above a schedule of the
        # relaxed model) means the model is stricter than the simulator.
        slack = 1 + 1e-9  # for the float products, not for modelling errors
        above = [p for p, s in dag.makespans.items() if not bound <= s * slack]
        above += ["best"] if not bound <= best * slack else []
        # The runtime's bound relaxes the simulator the same way (and moves nothing
        # between two accelerators), so it must not exceed a schedule of the model either.
        above += ["best (the runtime's bound)"] if not dag.bound <= best * slack else []
        warnings += bool(above)
        heft = dag.makespans.get("heft")
        rows.append([dag.name, dag.machine, str(len(dag.tasks)), ms(dag.bound), ms(bound),
                     ms(best), status, ms(heft), ratio(heft, bound), ratio(heft, best),
                     ratio(dag.bound, bound),
                     "WARNING: bound above " + ", ".join(above) if above else ""])
    print(f"CP-SAT: {args.time_limit:g} s per DAG, {args.workers} workers, time unit "
          f"{UNIT_S * 1e6:g} us; moves without link contention, unlimited accelerator "
          f"memory; best = best schedule found (relaxed model, exact run times)\n")
    print_table(["dag", "machine", "tasks", "runtime bound ms", "cp-sat bound ms", "best ms",
                 "status", "heft ms", "heft / cp-sat bound", "heft / best",
                 "runtime / cp-sat bound", "note"], rows, 2)
    if warnings:
        print(f"\n{warnings} DAG(s) with a bound above a makespan: the model is stricter "
              "than the simulator", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
