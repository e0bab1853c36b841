// fw-run --list on the compiled example shows its functions, their
// signatures (with the dynamic batch) and the CPU target.
// RUN: %fwc %examples/mlp.mlir -o %t.fwb
// RUN: %fw-run --list %t.fwb | FileCheck %s
// CHECK: module mlp
// CHECK: target cpu x86-64-v3 (x86_64-unknown-linux-gnu)
// CHECK: func @main(?x784xf32, 784x256xf32, 256xf32, 256x10xf32, 10xf32) -> (?x10xf32)
// One task per layer: matmul with its bias and ReLU, one packed GEMM divided among the
// CPU workers.
// CHECK: executable @main_dispatch_0(read ?x784xf32, read 784x256xf32, read 256xf32, write ?x256xf32)
// CHECK-NEXT: variant cpu x86-64-v3: symbol __fwk_main_dispatch_0_cpu_x86_64_v3 (divided among workers)
// CHECK: executable @main_dispatch_1(read ?x256xf32, read 256x10xf32, read 10xf32, write ?x10xf32)
// CHECK-NOT: executable
// And it runs without input files (generated inputs, dynamic dims = 4).
// RUN: %fw-run %t.fwb 2>&1 | FileCheck %s --check-prefix=EXEC
// EXEC: input[0]: 4x784xf32 (generated)
// EXEC: result[0]: 4x10xf32
// EXEC-NEXT: 4x10xf32=[
// fw-run --benchmark=N times N more calls after the first and prints the
// minimum and median time per call, with units.
// RUN: %fw-run %t.fwb --benchmark=3 2>&1 | FileCheck %s --check-prefix=BENCH
// BENCH: result[0]: 4x10xf32
// BENCH: benchmark @main: 3 calls after 1 warm-up
// BENCH-NEXT: min: {{[0-9.e+-]+}} {{us|ms|s}}
// BENCH-NEXT: median: {{[0-9.e+-]+}} {{us|ms|s}}
// RUN: not %fw-run %t.fwb --benchmark=-1 2>&1 | FileCheck %s --check-prefix=BADBENCH
// BADBENCH: fw-run: error: --benchmark: Value -1 not in range 0 to 1000000000
