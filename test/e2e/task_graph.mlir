// A task graph with independent branches (four matmuls), a join and a dependent matmul.
// Every scheduling policy, worker count, and a host tier capped below the live data (so
// buffers spill to the storage tier and come back) must give the same answers.
// The task counts below are those of the optimized build, whatever FW_E2E_FWC_FLAGS says.
// RUN: %fwc %s -O3 -o %t.fwb
// RUN: %fw-run --list %t.fwb | FileCheck %s --check-prefix=LIST
// LIST-COUNT-5: executable @task_graph_dispatch_
// RUN: env FW_SCHED=eager FW_NUM_WORKERS=1 %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=task_graph --case=task_graph --arg-shapes="64x256;256x256;256x256;256x256;256x256" --tmp=%t
// RUN: env FW_SCHED=eager FW_NUM_WORKERS=4 %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=task_graph --case=task_graph --arg-shapes="64x256;256x256;256x256;256x256;256x256" --tmp=%t
// RUN: env FW_SCHED=ws FW_NUM_WORKERS=3 %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=task_graph --case=task_graph --arg-shapes="64x256;256x256;256x256;256x256;256x256" --tmp=%t
// RUN: env FW_SCHED=heft FW_NUM_WORKERS=2 %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=task_graph --case=task_graph --arg-shapes="64x256;256x256;256x256;256x256;256x256" --tmp=%t
//
// The task that joins the branches needs 5.25 MiB (its branch's matmul reads the input and
// a weight and writes 1 MiB; the join reads the three other branches' 1 MiB results); a
// host tier of 5600 KiB forces weights down to storage and, on the next call, back.
// RUN: env FW_TIER_LIMITS=host=5600KiB FW_SCHED=heft %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=task_graph --case=task_graph --arg-shapes="1024x256;256x256;256x256;256x256;256x256" --tmp=%t
// RUN: env FW_TIER_LIMITS=host=5600KiB FW_SCHED=ws FW_PREFETCH=0 %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=task_graph --case=task_graph --arg-shapes="1024x256;256x256;256x256;256x256;256x256" --tmp=%t
// RUN: env FW_TIER_LIMITS=host=5600KiB FW_SCHED=eager FW_NUM_WORKERS=1 %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=task_graph --case=task_graph --arg-shapes="1024x256;256x256;256x256;256x256;256x256" --tmp=%t
// On the CPU alone (GPU memory would relieve the host tier):
// RUN: %fw-run %t.fwb --devices=cpu --scheduler=heft --default-dim=1024 --tier-limits=host=5600KiB --stats --print-max-elements=0 --benchmark=2 | FileCheck %s --check-prefix=SPILL
// SPILL: stats: scheduler heft, 15 tasks submitted, 15 executed, 0 failed
// SPILL: moved host -> storage: {{[1-9]}}
// SPILL: moved storage -> host: {{[1-9]}}
// SPILL: evictions: {{[1-9][0-9]*}}
//
// A host tier smaller than one task's working set is an error that names the task.
// RUN: not %fw-run %t.fwb --devices=cpu --default-dim=1024 --tier-limits=host=4MiB 2>&1 | FileCheck %s --check-prefix=SMALL
// SMALL: fw-run: error: {{.*}}task @task_graph.task_graph_dispatch_{{[0-9]+}} needs {{[0-9]+}} bytes of host memory at once, but the host tier holds at most 4194304 bytes (FW_TIER_LIMITS)

func.func @task_graph(%x: tensor<?x256xf32>, %w1: tensor<256x256xf32>, %w2: tensor<256x256xf32>,
                      %w3: tensor<256x256xf32>, %w4: tensor<256x256xf32>) -> tensor<?x256xf32> {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x256xf32>
  %init = tensor.empty(%n) : tensor<?x256xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<?x256xf32>) -> tensor<?x256xf32>
  %m1 = linalg.matmul ins(%x, %w1 : tensor<?x256xf32>, tensor<256x256xf32>) outs(%acc : tensor<?x256xf32>) -> tensor<?x256xf32>
  %m2 = linalg.matmul ins(%x, %w2 : tensor<?x256xf32>, tensor<256x256xf32>) outs(%acc : tensor<?x256xf32>) -> tensor<?x256xf32>
  %m3 = linalg.matmul ins(%x, %w3 : tensor<?x256xf32>, tensor<256x256xf32>) outs(%acc : tensor<?x256xf32>) -> tensor<?x256xf32>
  %m4 = linalg.matmul ins(%x, %w4 : tensor<?x256xf32>, tensor<256x256xf32>) outs(%acc : tensor<?x256xf32>) -> tensor<?x256xf32>
  %y1 = math.tanh %m1 : tensor<?x256xf32>
  %y2 = math.tanh %m2 : tensor<?x256xf32>
  %y3 = math.tanh %m3 : tensor<?x256xf32>
  %y4 = math.tanh %m4 : tensor<?x256xf32>
  %s = arith.addf %y1, %y2 : tensor<?x256xf32>
  %p = arith.mulf %y3, %y4 : tensor<?x256xf32>
  %z = arith.subf %s, %p : tensor<?x256xf32>
  %out = linalg.matmul ins(%z, %w1 : tensor<?x256xf32>, tensor<256x256xf32>) outs(%acc : tensor<?x256xf32>) -> tensor<?x256xf32>
  return %out : tensor<?x256xf32>
}
