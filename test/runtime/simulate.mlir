// fw-run --simulate runs the scheduler in virtual time on a described machine: no kernel
// executes, and the report gives the makespan against its lower bound.
// RUN: %fwc %s --module-name=sim -o %t.fwb
// RUN: %fw-run %t.fwb --default-dim=1024 --simulate=%S/Inputs/machine_cpu_gpu.json --stats | FileCheck %s
// CHECK: simulation: 2 tasks
// CHECK-NEXT: makespan: {{[0-9.]+}} {{[mu]?s}}
// CHECK-NEXT: lower bound: {{[0-9.]+}} {{[mu]?s}} (critical path {{.*}}, work over capacity {{.*}}, work in time windows {{.*}})
// CHECK-NEXT: makespan / bound: {{1\.[0-9]+}}
// CHECK: stats: scheduler heft, 2 tasks submitted, 2 executed, 0 failed
// CHECK-NEXT: device cpu: 4 workers, 2 tasks
// The module has CPU variants only, so the simulated GPU gets nothing.
// CHECK-NEXT: device gpu0: 1 worker, 0 tasks
//
// Every policy runs in simulation.
// RUN: %fw-run %t.fwb --scheduler=eager --simulate=%S/Inputs/machine_cpu_gpu.json | FileCheck %s --check-prefix=POLICY
// RUN: %fw-run %t.fwb --scheduler=ws --simulate=%S/Inputs/machine_cpu_gpu.json | FileCheck %s --check-prefix=POLICY
// POLICY: simulation: 2 tasks
//
// Bad machine files and flags are errors that name the problem.
// RUN: not %fw-run %t.fwb --simulate=%t.missing.json 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: fw-run: error: cannot read the machine file '{{.*}}missing.json'
// RUN: echo '{"devices": [' > %t.trunc.json
// RUN: not %fw-run %t.fwb --simulate=%t.trunc.json 2>&1 | FileCheck %s --check-prefix=TRUNC
// TRUNC: fw-run: error: {{.*}}trunc.json:2:1: not valid JSON
// RUN: printf '{"devices": [\n  {"kind": "cpu", "gflops": 1,}\n]}\n' > %t.comma.json
// RUN: not %fw-run %t.fwb --simulate=%t.comma.json 2>&1 | FileCheck %s --check-prefix=COMMA
// COMMA: fw-run: error: {{.*}}comma.json:2:31: not valid JSON
// RUN: echo '{"devices": []}' > %t.empty.json
// RUN: not %fw-run %t.fwb --simulate=%t.empty.json 2>&1 | FileCheck %s --check-prefix=EMPTY
// EMPTY: fw-run: error: {{.*}}: "devices" must be a non-empty array
// RUN: echo '{"devices": [{"kind": "tpu", "gflops": 1}]}' > %t.kind.json
// RUN: not %fw-run %t.fwb --simulate=%t.kind.json 2>&1 | FileCheck %s --check-prefix=KIND
// KIND: fw-run: error: {{.*}}: devices[0].kind: expected "cpu", "cuda" or "hip"
// RUN: echo '{"devices": [{"kind": "cpu", "gflops": -1}]}' > %t.neg.json
// RUN: not %fw-run %t.fwb --simulate=%t.neg.json 2>&1 | FileCheck %s --check-prefix=NEG
// NEG: fw-run: error: {{.*}}: devices[0].gflops: expected a number from 0.001 to 1e+09
// Speeds so small or large that times would be infinite are refused too.
// RUN: echo '{"devices": [{"kind": "cpu", "gflops": 1e-320}]}' > %t.tiny.json
// RUN: not %fw-run %t.fwb --simulate=%t.tiny.json 2>&1 | FileCheck %s --check-prefix=TINY
// TINY: fw-run: error: {{.*}}: devices[0].gflops: expected a number from 0.001 to 1e+09
// RUN: echo '{"devices": [{"kind": "cpu", "gflops": 1, "kernel_speed": {"k": 1e-30}}]}' > %t.kspeed.json
// RUN: not %fw-run %t.fwb --simulate=%t.kspeed.json 2>&1 | FileCheck %s --check-prefix=KSPEED
// KSPEED: fw-run: error: {{.*}}: devices[0].kernel_speed.k: expected a number from 1e-06 to 1e+06
// RUN: echo '{"devices": [{"kind": "cpu", "gflop": 1}]}' > %t.typo.json
// RUN: not %fw-run %t.fwb --simulate=%t.typo.json 2>&1 | FileCheck %s --check-prefix=TYPO
// TYPO: fw-run: error: {{.*}}: devices[0]: unknown key "gflop"
// RUN: echo '{"devices": [{"kind": "cpu", "workers": 0, "gflops": 1}]}' > %t.workers.json
// RUN: not %fw-run %t.fwb --simulate=%t.workers.json 2>&1 | FileCheck %s --check-prefix=WORKERS
// WORKERS: fw-run: error: {{.*}}: devices[0].workers: expected an integer from 1 to 1024
// RUN: echo '{"devices": [{"kind": "cpu"}]}' > %t.speed.json
// RUN: not %fw-run %t.fwb --simulate=%t.speed.json 2>&1 | FileCheck %s --check-prefix=SPEED
// SPEED: fw-run: error: {{.*}}: devices[0]: needs "gflops" or "memory_gbps"
// A machine without a device kind the module has variants for cannot run it.
// RUN: echo '{"devices": [{"name": "gpu0", "kind": "cuda", "gflops": 1000}]}' > %t.gpuonly.json
// RUN: not %fw-run %t.fwb --simulate=%t.gpuonly.json 2>&1 | FileCheck %s --check-prefix=GPUONLY
// RUN: not %fw-run %t.fwb --scheduler=eager --simulate=%t.gpuonly.json 2>&1 | FileCheck %s --check-prefix=GPUONLY
// GPUONLY: fw-run: error: in @sim: task @sim.sim_dispatch_{{[0-9]+}}: no device here can run it (it runs on: cpu)
// RUN: not %fw-run %t.fwb --simulate=%S/Inputs/machine_cpu_gpu.json --benchmark=3 2>&1 | FileCheck %s --check-prefix=BENCH
// BENCH: fw-run: error: --benchmark cannot be combined with --simulate
// RUN: not %fw-run %t.fwb --simulate=%S/Inputs/machine_cpu_gpu.json --devices=cpu 2>&1 | FileCheck %s --check-prefix=SIMDEV
// SIMDEV: fw-run: error: --devices cannot be combined with --simulate (the machine file lists the devices)
// RUN: not %fw-run %t.fwb --simulate=%S/Inputs/machine_cpu_gpu.json --workers=1 2>&1 | FileCheck %s --check-prefix=SIMWORKERS
// SIMWORKERS: fw-run: error: --workers cannot be combined with --simulate
// A machine file that is not a regular file (a FIFO would block, /dev/zero never ends).
// RUN: rm -f %t.fifo && mkfifo %t.fifo
// RUN: not %fw-run %t.fwb --simulate=%t.fifo 2>&1 | FileCheck %s --check-prefix=FIFO
// FIFO: fw-run: error: cannot read the machine file '{{.*}}.fifo': not a regular file
// RUN: not %fw-run %t.fwb --simulate=/dev/zero 2>&1 | FileCheck %s --check-prefix=ZERO
// ZERO: fw-run: error: cannot read the machine file '/dev/zero': not a regular file
// RUN: not %fw-run %t.fifo 2>&1 | FileCheck %s --check-prefix=FIFOMODULE
// FIFOMODULE: fw-run: error: {{.*}}.fifo: not a regular file
// RUN: not %fw-run %t.fwb --history=%t.fifo 2>&1 | FileCheck %s --check-prefix=FIFOHIST
// FIFOHIST: fw-run: error: the history file '{{.*}}.fifo' is not a regular file
// RUN: not %fw-run %t.fwb --history=%t.nodir/h.txt 2>&1 | FileCheck %s --check-prefix=NODIR
// NODIR: fw-run: error: the history file '{{.*}}.nodir/h.txt' cannot be written (its directory '{{.*}}.nodir': No such file or directory)
// What a run writes at its end is checked before it runs.
// RUN: not %fw-run %t.fwb --trace=%t.nodir/t.json 2>&1 | FileCheck %s --check-prefix=NOTRACE
// NOTRACE: fw-run: error: --trace: cannot write '{{.*}}.nodir/t.json': its directory '{{.*}}.nodir': No such file or directory
// A file where the directory should be is named as such.
// RUN: rm -f %t.afile && touch %t.afile
// RUN: not %fw-run %t.fwb --trace=%t.afile/t.json 2>&1 | FileCheck %s --check-prefix=FILEDIR
// FILEDIR: fw-run: error: --trace: cannot write '{{.*}}.afile/t.json': '{{.*}}.afile' is not a directory
// Listings that cannot be written are errors too.
// RUN: not %fw-run --list %t.fwb > /dev/full 2> %t.full.err
// RUN: FileCheck %s --check-prefix=FULL < %t.full.err
// RUN: not %fw-run --list-devices > /dev/full 2> %t.full.err
// RUN: FileCheck %s --check-prefix=FULL < %t.full.err
// FULL: fw-run: error: cannot write to stdout
// A device name with a control character would garble --stats.
// RUN: printf '{"devices": [{"name": "a\\nb", "kind": "cpu", "gflops": 1}]}' > %t.ctl.json
// RUN: not %fw-run %t.fwb --simulate=%t.ctl.json 2>&1 | FileCheck %s --check-prefix=CTL
// CTL: fw-run: error: {{.*}}devices[0].name: expected a non-empty string without control characters
// RUN: rm -rf %t.outdir && mkdir %t.outdir
// RUN: not %fw-run %t.fwb --output=@%t.outdir 2>&1 | FileCheck %s --check-prefix=OUTDIR
// OUTDIR: fw-run: error: --output: cannot write '{{.*}}.outdir': is a directory
// An empty value after '=' is an error, not the next argument taken as the value.
// RUN: not %fw-run %t.fwb --trace= --stats 2>&1 | FileCheck %s --check-prefix=EMPTYVALUE
// EMPTYVALUE: fw-run: error: option --trace needs a value after '='
// RUN: not %fw-run %t.fwb --benchmark=99999999999999999999 2>&1 | FileCheck %s --check-prefix=HUGEBENCH
// HUGEBENCH: fw-run: error: --benchmark: Value 99999999999999999999 not in range 0 to 1000000000
// A key given twice, a number beyond a double, and memory sizes that would mean something
// else (0 was "no limit", 2^64 - 1 "as little as the tasks allow") or do not apply.
// RUN: echo '{"devices": [{"kind": "cpu", "workers": 4, "workers": 8, "gflops": 1}]}' > %t.dup.json
// RUN: not %fw-run %t.fwb --simulate=%t.dup.json 2>&1 | FileCheck %s --check-prefix=DUP
// DUP: fw-run: error: {{.*}}dup.json: the key "workers" appears twice in one object
// RUN: printf '{"devices": [\n  {"kind": "cpu", "gflops": 1e400}]}\n' > %t.huge.json
// RUN: not %fw-run %t.fwb --simulate=%t.huge.json 2>&1 | FileCheck %s --check-prefix=HUGENUM
// HUGENUM: fw-run: error: {{.*}}huge.json:2:29: not valid JSON (a number out of range: 1e400)
// RUN: echo '{"devices": [{"kind": "cpu", "gflops": 1}, {"kind": "cuda", "gflops": 1, "memory": 0}]}' > %t.mem0.json
// RUN: not %fw-run %t.fwb --simulate=%t.mem0.json 2>&1 | FileCheck %s --check-prefix=MEMSIZE
// RUN: echo '{"devices": [{"kind": "cpu", "gflops": 1}, {"kind": "cuda", "gflops": 1, "memory": 18446744073709551615}]}' > %t.memmax.json
// RUN: not %fw-run %t.fwb --simulate=%t.memmax.json 2>&1 | FileCheck %s --check-prefix=MEMSIZE
// MEMSIZE: fw-run: error: {{.*}}devices[1].memory: expected a size from 1 byte to 1 EiB
// RUN: echo '{"devices": [{"kind": "cpu", "gflops": 1, "memory": "1GiB"}]}' > %t.cpumem.json
// RUN: not %fw-run %t.fwb --simulate=%t.cpumem.json 2>&1 | FileCheck %s --check-prefix=CPUMEM
// CPUMEM: fw-run: error: {{.*}}devices[0].memory: a CPU computes in host memory, whose limit is the host tier's
// Sizes take the units of --tier-limits (K is KiB there too).
// RUN: echo '{"devices": [{"kind": "cpu", "gflops": 20}, {"name": "gpu0", "kind": "cuda", "gflops": 2000, "memory": "64M"}]}' > %t.units.json
// RUN: %fw-run %t.fwb --default-dim=1024 --simulate=%t.units.json --stats | FileCheck %s --check-prefix=UNITS
// UNITS: peak device: {{.*}} of 64.0 MiB
// A kernel name in a machine file that no kernel of the module has is a warning (a typo
// would change nothing silently); the run goes on.
// RUN: echo '{"devices": [{"kind": "cpu", "gflops": 20}, {"name": "gpu0", "kind": "cuda", "gflops": 2000, "kernel_speed": {"sim.sim_dispatch_0": 0.5, "sim.typo": 2}}]}' > %t.ks.json
// RUN: %fw-run %t.fwb --simulate=%t.ks.json 2>&1 | FileCheck %s --check-prefix=KTYPO
// KTYPO: fw-run: warning: {{.*}}ks.json: devices[1].kernel_speed names 'sim.typo', which is no kernel of module sim
// KTYPO-NOT: sim_dispatch_0'
// KTYPO: makespan:
// A device tier cap below a simulated device's memory applies, as on a real device.
// RUN: %fw-run %t.fwb --default-dim=1024 --simulate=%S/Inputs/machine_cpu_gpu.json --tier-limits=device=1MiB --stats | FileCheck %s --check-prefix=DEVCAP
// DEVCAP: peak device: {{.*}} of 1.0 MiB

// RUN: echo '{"devices": [{"kind": "cpu", "gflops": 1, "history_speed": 0}]}' > %t.hs.json
// RUN: not %fw-run %t.fwb --simulate=%t.hs.json 2>&1 | FileCheck %s --check-prefix=HSPEED
// HSPEED: fw-run: error: {{.*}}: devices[0].history_speed: expected a number from 1e-06 to 1e+06
//
// Calibrated by measured times: three real runs record the tasks' times in a history; a
// simulated cpu with a history_speed takes its times from there, divided by it. At a
// millionth of the measured speed each task takes seconds; without a history the same
// machine falls back to its model (64 × 131584 and 64 × 131328 operations, one task after
// the other, at 20 GFLOP/s).
// RUN: rm -f %t.history
// RUN: %fw-run %t.fwb --default-dim=64 --history=%t.history --print-max-elements=0 > /dev/null
// RUN: %fw-run %t.fwb --default-dim=64 --history=%t.history --print-max-elements=0 > /dev/null
// RUN: %fw-run %t.fwb --default-dim=64 --history=%t.history --print-max-elements=0 > /dev/null
// RUN: cp %t.history %t.history.before
// RUN: echo '{"devices": [{"kind": "cpu", "workers": 4, "gflops": 20, "memory_gbps": 10, "history_speed": 1e-6}]}' > %t.slow.json
// RUN: %fw-run %t.fwb --default-dim=64 --history=%t.history --simulate=%t.slow.json | FileCheck %s --check-prefix=HIST
// HIST: timed from the history: 2 of 2{{$}}
// HIST-NEXT: makespan: {{[0-9.e+]+}} s{{$}}
// The simulation reads the history and leaves it as it was.
// RUN: cmp %t.history %t.history.before
// RUN: %fw-run %t.fwb --default-dim=64 --simulate=%t.slow.json | FileCheck %s --check-prefix=MODEL
// MODEL: timed from the history: 0 of 2 (it has no times for these tasks and sizes: run them with --history first)
// MODEL-NEXT: makespan: 841 us
//
// The compiler counts the operations of a dynamic shape as terms in the bindings' dims
// (fill, matmul and tanh: 256 + 2 × 256 × 256 + 256 per row of binding 0); the runtime
// evaluates them at dispatch, so the model's time follows the input's size.
// RUN: %fw-run %t.fwb --list | FileCheck %s --check-prefix=TERMS
// TERMS: executable @sim_dispatch_0(read ?x256xf32, read 256x256xf32, write ?x256xf32) flops=131584*b0.d0 priority=
// TERMS: executable @sim_dispatch_1(read ?x256xf32, read 256x256xf32, write ?x256xf32) flops=131328*b0.d0 priority=
// RUN: echo '{"devices": [{"kind": "cpu", "workers": 1, "gflops": 1}]}' > %t.g1.json
// RUN: %fw-run %t.fwb --default-dim=64 --simulate=%t.g1.json | FileCheck %s --check-prefix=DIM64
// DIM64: makespan: 16.8 ms
// RUN: %fw-run %t.fwb --default-dim=128 --simulate=%t.g1.json | FileCheck %s --check-prefix=DIM128
// DIM128: makespan: 33.7 ms

func.func @sim(%x: tensor<?x256xf32>, %w: tensor<256x256xf32>) -> tensor<?x256xf32> {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x256xf32>
  %init = tensor.empty(%n) : tensor<?x256xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<?x256xf32>) -> tensor<?x256xf32>
  %m = linalg.matmul ins(%x, %w : tensor<?x256xf32>, tensor<256x256xf32>) outs(%acc : tensor<?x256xf32>) -> tensor<?x256xf32>
  %t = math.tanh %m : tensor<?x256xf32>
  %m2 = linalg.matmul ins(%t, %w : tensor<?x256xf32>, tensor<256x256xf32>) outs(%acc : tensor<?x256xf32>) -> tensor<?x256xf32>
  return %m2 : tensor<?x256xf32>
}
