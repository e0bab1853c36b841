// The profile-guided split end to end. The task graph's join task (a packed GEMM, its
// tanh, and the join that reads the three other branches) is a kernel the CPU code
// generator does not divide, so it runs whole on one worker; its profile makes the
// rebuild split it into two tasks that the CPU code divides, with the same results
// (whatever FW_E2E_FWC_FLAGS says: with the GPU mapping emulated on the CPU no kernel
// divides, and the join task splits all the same).
// RUN: %fwc %S/task_graph.mlir -O3 -o %t.fwb
// RUN: rm -f %t.json
// RUN: %fw-run %t.fwb --devices=cpu --workers=2 --default-dim=1024 --benchmark=3 --profile-out=%t.json --print-max-elements=0 > /dev/null
// RUN: %fwc %S/task_graph.mlir -O3 --profile-use=%t.json --remarks=%t.yaml -o %t.pgo.fwb
// RUN: FileCheck %s --check-prefix=REMARKS < %t.yaml
// REMARKS: Name: SplitTask
// REMARKS: ran whole on one of 2 CPU workers for {{.*}}: split into 2 tasks (linalg.fill + linalg.matmul + linalg.generic | linalg.generic + linalg.generic)
// RUN: %fw-run --list %t.pgo.fwb | FileCheck %s --check-prefix=LIST
// LIST-COUNT-6: executable @task_graph_dispatch_
// LIST-NOT: executable
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.pgo.fwb --function=task_graph --case=task_graph --arg-shapes="200x256;256x256;256x256;256x256;256x256" --tmp=%t
// RUN: env FW_NUM_WORKERS=1 %python %S/e2e.py --fw-run=%fw-run --module=%t.pgo.fwb --function=task_graph --case=task_graph --arg-shapes="33x256;256x256;256x256;256x256;256x256" --tmp=%t
