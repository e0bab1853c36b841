// heft plans a module call as a whole, and a simulated run of it follows the plan. Here
// every task goes to gpu0 (64 rows: 42 us per task on a CPU worker, 5 us on a GPU plus
// 12.6 us per 64 KiB input over its 25 GB/s, 10 us link).
// - The weights the later tasks read start moving when the plan is made, one after
//   another in the order the plan needs them, so the link never idles: the last task
//   ends at 5 copies × 12.6 us + 5 us.
// - The lower bound's critical path counts the first move of the inputs: 12.6 us before a
//   task can start on a GPU (one link each; that the five copies share it, it does not).
// - An idle CPU worker could end the second projection 0.9 us before gpu0 would, but its
//   result would then cross the link back to gpu0 for the next task: it leaves it there.
// REQUIRES: ptxas
// RUN: %fwc %s --targets=cpu,sm_90 --module-name=plan -o %t.fwb
// RUN: %fw-run %t.fwb --default-dim=64 --simulate=%S/../../examples/machines/cpu16-h100x2.json --stats | FileCheck %s
// CHECK: simulation: 4 tasks
// CHECK-NEXT: makespan: 68.2 us
// CHECK-NEXT: lower bound: 27.8 us (critical path 27.8 us,
// CHECK: device cpu: 16 workers, 0 tasks
// CHECK-NEXT: device gpu0: 1 worker, 4 tasks
// CHECK: evictions: 0, prefetches: 5, prefetch hits: 5, demand fetches: 0
//
// A simulated GPU's memory binds as a real one's: a task whose buffers exceed it at once
// (64 KiB of rows, 64 KiB of weights, 16 or 64 KiB out) is not planned there, and runs on
// the CPU without a failed attempt.
// RUN: echo '{"devices": [{"name": "cpu", "kind": "cpu", "workers": 2, "gflops": 50}, {"name": "gpu0", "kind": "cuda", "gflops": 50000, "memory": "100KiB"}]}' > %t.small.json
// RUN: %fw-run %t.fwb --default-dim=64 --simulate=%t.small.json --stats | FileCheck %s --check-prefix=SMALL
// SMALL-NOT: GPU failures
// SMALL: device cpu: 2 workers, 4 tasks
// SMALL-NEXT: device gpu0: 1 worker, 0 tasks
// SMALL: peak device: 0 B of 100.0 KiB
// Where no other device can run it, the call fails with the reason.
// RUN: echo '{"devices": [{"name": "gpu0", "kind": "cuda", "gflops": 50000, "memory": "100KiB"}]}' > %t.gpuonly.json
// RUN: not %fw-run %t.fwb --default-dim=64 --simulate=%t.gpuonly.json 2>&1 | FileCheck %s --check-prefix=NOROOM
// NOROOM: fw-run: error: in @proj: task @plan.proj_dispatch_{{[0-9]+}} needs 147456 bytes of gpu0 memory at once, but the device tier holds at most 102400 bytes (the device's memory, or FW_TIER_LIMITS)

func.func @proj(%x: tensor<?x256xf32>, %wq: tensor<256x64xf32>, %wk: tensor<256x64xf32>,
                %wv: tensor<256x64xf32>, %wo: tensor<64x256xf32>) -> tensor<?x256xf32> {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x256xf32>
  %eh = tensor.empty(%n) : tensor<?x64xf32>
  %zh = linalg.fill ins(%zero : f32) outs(%eh : tensor<?x64xf32>) -> tensor<?x64xf32>
  %q = linalg.matmul ins(%x, %wq : tensor<?x256xf32>, tensor<256x64xf32>) outs(%zh : tensor<?x64xf32>) -> tensor<?x64xf32>
  %k = linalg.matmul ins(%x, %wk : tensor<?x256xf32>, tensor<256x64xf32>) outs(%zh : tensor<?x64xf32>) -> tensor<?x64xf32>
  %v = linalg.matmul ins(%x, %wv : tensor<?x256xf32>, tensor<256x64xf32>) outs(%zh : tensor<?x64xf32>) -> tensor<?x64xf32>
  %s = arith.addf %q, %k : tensor<?x64xf32>
  %t = arith.mulf %s, %v : tensor<?x64xf32>
  %eo = tensor.empty(%n) : tensor<?x256xf32>
  %zo = linalg.fill ins(%zero : f32) outs(%eo : tensor<?x256xf32>) -> tensor<?x256xf32>
  %o = linalg.matmul ins(%t, %wo : tensor<?x64xf32>, tensor<64x256xf32>) outs(%zo : tensor<?x256xf32>) -> tensor<?x256xf32>
  return %o : tensor<?x256xf32>
}
