// fw-run --trace writes Chrome/Perfetto JSON with a track per worker and per copy
// direction; --stats prints tasks per device and data movement; the runtime's flags
// are checked.
// RUN: %fwc %s --module-name=ts -o %t.fwb
// RUN: %fw-run %t.fwb --workers=2 --trace=%t.json --stats --print-max-elements=0 | FileCheck %s --check-prefix=STATS
// STATS: stats: scheduler heft, 2 tasks submitted, 2 executed, 0 failed
// STATS-NEXT: device cpu: 2 workers, 2 tasks, busy
// STATS-NEXT: moved: nothing between tiers
// heft planned the call's tasks as one batch (on one device class: one or two plans, as
// the estimates make a second worth it).
// STATS: planning: 1 batch, {{[12]}} plan{{s?}}, {{[0-9.]+ (us|ms)}}
// RUN: %fw-run %t.fwb --workers=2 --scheduler=eager --stats --print-max-elements=0 | FileCheck %s --check-prefix=EAGER
// EAGER: stats: scheduler eager
// EAGER-NOT: planning:
// RUN: %python -c "import json,sys; d=json.load(open(sys.argv[1])); ev=d['traceEvents']; names={e['args']['name'] for e in ev if e.get('name')=='thread_name'}; tasks=[e['name'] for e in ev if e.get('ph')=='X']; print(sorted(n for n in names if 'worker' in n)); print(sorted(set(tasks))); print(sorted({e['name'] for e in ev if e.get('args', {}).get('expected_us', 0) > 0}))" %t.json | FileCheck %s --check-prefix=TRACE
// TRACE: ['cpu worker 0', 'cpu worker 1']
// TRACE: ['ts.ts_dispatch_0', 'ts.ts_dispatch_1']
// Each task's run carries the runtime's estimate of it (a helper's share of a dispatch's
// workgroups, on another worker, does not).
// TRACE-NEXT: ['ts.ts_dispatch_0', 'ts.ts_dispatch_1']
//
// RUN: not %fw-run %t.fwb --scheduler=fifo 2>&1 | FileCheck %s --check-prefix=SCHED
// SCHED: fw-run: error: --scheduler: fifo not in {eager,ws,heft}
// RUN: env FW_SCHED=fifo not %fw-run %t.fwb 2>&1 | FileCheck %s --check-prefix=ENVSCHED
// ENVSCHED: fw-run: error: unknown scheduler 'fifo' (FW_SCHED): expected eager, ws or heft
// RUN: not %fw-run %t.fwb --tier-limits=host=lots 2>&1 | FileCheck %s --check-prefix=LIMITS
// LIMITS: fw-run: error: tier limits 'host=lots': expected a comma-separated list of TIER=SIZE
// RUN: env FW_TIER_LIMITS=disk=1GiB not %fw-run %t.fwb 2>&1 | FileCheck %s --check-prefix=ENVLIMITS
// ENVLIMITS: fw-run: error: tier limits 'disk=1GiB': {{.*}}got 'disk=1GiB'
// RUN: not %fw-run %t.fwb --tier-limits=host=min,storage=min 2>&1 | FileCheck %s --check-prefix=MINLIMITS
// MINLIMITS: fw-run: error: tier limits 'host=min,storage=min': 'storage=min' cannot be: storage is the bottom tier
// With host=min only what a task uses at once stays in host memory: the rest spills.
// RUN: %fw-run %t.fwb --tier-limits=host=min --stats --print-max-elements=0 | FileCheck %s --check-prefix=MIN
// MIN: storage I/O: 0 B direct, {{[0-9.]+ (B|KiB)}} through the page cache
// MIN: evictions: {{[1-9][0-9]*}}
// MIN: peak host: 48.0 KiB of 48.0 KiB
// Without a cap the host tier holds what the machine has available; FW_HOST_MEMORY
// replaces what was read ("unlimited": no capacity).
// RUN: %fw-run %t.fwb --stats --print-max-elements=0 | FileCheck %s --check-prefix=MACHINE
// MACHINE: peak host: {{[0-9.]+ (B|KiB|MiB)}} of {{[0-9.]+ (MiB|GiB|TiB)}}
// RUN: env FW_HOST_MEMORY=3MiB %fw-run %t.fwb --stats --print-max-elements=0 | FileCheck %s --check-prefix=SIZED
// SIZED: peak host: {{[0-9.]+ (B|KiB|MiB)}} of 3.0 MiB
// RUN: env FW_HOST_MEMORY=unlimited %fw-run %t.fwb --stats --print-max-elements=0 | FileCheck %s --check-prefix=UNLIMITED
// UNLIMITED: peak host: {{[0-9.]+ (B|KiB|MiB)}}{{$}}
// RUN: env FW_HOST_MEMORY=lots not %fw-run %t.fwb 2>&1 | FileCheck %s --check-prefix=BADHOST
// BADHOST: fw-run: error: FW_HOST_MEMORY='lots': expected 'unlimited' or a positive size
// --host-memory (the option field host_memory) wins over FW_HOST_MEMORY.
// RUN: env FW_HOST_MEMORY=unlimited %fw-run %t.fwb --host-memory=5MiB --stats --print-max-elements=0 | FileCheck %s --check-prefix=FLAG
// FLAG: peak host: {{[0-9.]+ (B|KiB|MiB)}} of 5.0 MiB
// RUN: not %fw-run %t.fwb --host-memory=5MB, 2>&1 | FileCheck %s --check-prefix=BADFLAG
// BADFLAG: fw-run: error: host_memory='5MB,': expected 'unlimited' or a positive size
// The trace names the kind of I/O of each copy to or from the storage tier (these buffers
// are below the direct-I/O threshold).
// RUN: %fw-run %t.fwb --tier-limits=host=min --trace=%t.min.json --print-max-elements=0 > /dev/null
// RUN: %python -c "import json,sys; ev=json.load(open(sys.argv[1]))['traceEvents']; tracks={e['tid']: e['args']['name'] for e in ev if e.get('name')=='thread_name'}; print(sorted({(tracks[e['tid']], e['name']) for e in ev if e.get('ph')=='X' and 'copy' in tracks[e['tid']]}))" %t.min.json | FileCheck %s --check-prefix=MINTRACE
// MINTRACE: [('copy host -> storage', 'copy (page cache)'), ('copy storage -> host', 'copy (page cache)')]
// RUN: not %fw-run %t.fwb --storage-dir=%t.nonexistent 2>&1 | FileCheck %s --check-prefix=NODIR
// NODIR: fw-run: error: storage directory '{{.*}}nonexistent': No such file or directory
// RUN: not %fw-run %t.fwb --storage-dir=%t.fwb 2>&1 | FileCheck %s --check-prefix=NOTDIR
// NOTDIR: fw-run: error: storage directory '{{.*}}.fwb' is not a directory
// RUN: env FW_NUM_WORKERS=many not %fw-run %t.fwb 2>&1 | FileCheck %s --check-prefix=WORKERS
// WORKERS: fw-run: error: FW_NUM_WORKERS='many': expected a number from 0 to 1024
// A sign or blanks before the digits are refused, not wrapped around.
// RUN: env FW_NUM_WORKERS=" -18446744073709551613" not %fw-run %t.fwb 2>&1 | FileCheck %s --check-prefix=WORKERSNEG
// WORKERSNEG: fw-run: error: FW_NUM_WORKERS=' -18446744073709551613': expected a number from 0 to 1024
// RUN: env FW_PREFETCH_THREADS=+2 not %fw-run %t.fwb 2>&1 | FileCheck %s --check-prefix=THREADSPLUS
// THREADSPLUS: fw-run: error: FW_PREFETCH_THREADS='+2': expected a number from 1 to 8
// RUN: env FW_STORAGE_IO=mmap not %fw-run %t.fwb 2>&1 | FileCheck %s --check-prefix=STORAGEIO
// STORAGEIO: fw-run: error: FW_STORAGE_IO='mmap': expected direct or buffered
// RUN: env FW_PREFETCH=maybe not %fw-run %t.fwb 2>&1 | FileCheck %s --check-prefix=PREFETCH
// PREFETCH: fw-run: error: FW_PREFETCH='maybe': expected 0, 1, off or on
// RUN: env FW_CALLER_RUNS=maybe not %fw-run %t.fwb 2>&1 | FileCheck %s --check-prefix=CALLERRUNS
// CALLERRUNS: fw-run: error: FW_CALLER_RUNS='maybe': expected 0, 1, off or on
// RUN: not %fw-run %t.fwb --benchmark-gap-us=100 2>&1 | FileCheck %s --check-prefix=GAPALONE
// GAPALONE: fw-run: error: --benchmark-gap-us needs --benchmark=N
// Calls 300 us apart with the threads sleeping at once: the calling thread runs the first
// task of each call itself once the workers sleep (no worker is woken for it), which the
// stats count and the trace marks ("run_by"), on the track of the worker whose place it
// took (at least half of the 20 calls' tasks: a worker still awake after the warm-up
// under load may take one).
// RUN: env FW_SPIN_US=0 %fw-run %t.fwb --workers=2 --benchmark=20 --benchmark-gap-us=300 --stats --trace=%t.gap.json --print-max-elements=0 | FileCheck %s --check-prefix=GAP
// GAP: benchmark @ts: 20 calls after 1 warm-up, 300 us apart
// GAP: stats: scheduler heft, 42 tasks submitted, 42 executed, 0 failed
// GAP-NEXT: device cpu: 2 workers, 42 tasks, busy {{.*}} ({{[0-9]+}} run by waiting threads)
// RUN: %python -c "import json,sys; ev=json.load(open(sys.argv[1]))['traceEvents']; tracks={e['tid']: e['args']['name'] for e in ev if e.get('name')=='thread_name'}; mine=[e for e in ev if e.get('ph')=='X' and e.get('args', {}).get('run_by')=='waiting thread']; print(len(mine) >= 10, sorted({tracks[e['tid']].split()[0] for e in mine}))" %t.gap.json | FileCheck %s --check-prefix=GAPTRACE
// GAPTRACE: True ['cpu']
// RUN: echo "not a history" > %t.hist
// RUN: not %fw-run %t.fwb --history=%t.hist 2>&1 | FileCheck %s --check-prefix=HIST
// HIST: fw-run: error: '{{.*}}.hist' is not an fw history file (expected the first line 'fw-history 3', 'fw-history 2' or 'fw-history 1')
//
// The history file is created at exit and read back by the next run.
// RUN: rm -f %t.good.hist
// RUN: %fw-run %t.fwb --history=%t.good.hist --benchmark=3 > /dev/null
// RUN: head -1 %t.good.hist | FileCheck %s --check-prefix=GOODHIST
// GOODHIST: fw-history 3
// RUN: %fw-run %t.fwb --history=%t.good.hist --print-max-elements=0 > /dev/null

func.func @ts(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<64x64xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<64x64xf32>) -> tensor<64x64xf32>
  %m = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%acc : tensor<64x64xf32>) -> tensor<64x64xf32>
  %m2 = linalg.matmul ins(%m, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%acc : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %m2 : tensor<64x64xf32>
}
