// --targets: unknown names are errors (exit 1, no crash) that list the supported targets;
// several CPU targets end up in one fat binary; the last --targets wins. NVIDIA targets:
// cuda.mlir; AMD targets: rocm.mlir.
// RUN: not %fwc %s --targets=nonsense -o %t.fwb 2>&1 | FileCheck %s --check-prefix=NONSENSE
// RUN: not %fwc %s --targets=x86-64-v5 -o %t.fwb 2>&1 | FileCheck %s --check-prefix=V5
// RUN: not %fwc %s --targets=cpu,nonsense -o %t.fwb 2>&1 | FileCheck %s --check-prefix=NONSENSE
// RUN: not %fwc %s --targets=gfx1100 -o %t.fwb 2>&1 | FileCheck %s --check-prefix=GFX
// RUN: not %fwc %s --targets=, -o %t.fwb 2>&1 | FileCheck %s --check-prefix=EMPTY
// RUN: %fwc %s --targets=sm_90 --targets=x86-64,x86-64-v4 -o %t.fwb
// RUN: %fw-run --list %t.fwb | FileCheck %s --check-prefix=LIST

// NONSENSE: fwc: error: unknown target 'nonsense'; supported targets: cpu, x86-64, x86-64-v2, x86-64-v3, x86-64-v4, sm_80, sm_90, gfx90a, gfx942, cuda, rocm
// V5: fwc: error: unknown target 'x86-64-v5'
// GFX: fwc: error: unknown target 'gfx1100'; supported targets:
// EMPTY: fwc: error: --targets is empty; supported targets:
// LIST-NOT: cuda
// LIST: target cpu x86-64 (
// LIST: target cpu x86-64-v4 (
// LIST: func @add(4xf32, 4xf32) -> (4xf32)

func.func @add(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %r = arith.addf %a, %b : tensor<4xf32>
  return %r : tensor<4xf32>
}
