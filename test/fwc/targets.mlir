// --targets: unknown names and AMD targets (no code generation yet) are errors (exit 1,
// no crash); several CPU targets end up in one fat binary. NVIDIA targets: cuda.mlir.
// RUN: not %fwc %s --targets=nonsense -o %t.fwb 2>&1 | FileCheck %s --check-prefix=NONSENSE
// RUN: not %fwc %s --targets=x86-64-v5 -o %t.fwb 2>&1 | FileCheck %s --check-prefix=V5
// RUN: not %fwc %s --targets=cpu,nonsense -o %t.fwb 2>&1 | FileCheck %s --check-prefix=NONSENSE
// RUN: not %fwc %s --targets=rocm -o %t.fwb 2>&1 | FileCheck %s --check-prefix=ROCM
// RUN: not %fwc %s --targets=gfx942 -o %t.fwb 2>&1 | FileCheck %s --check-prefix=GFX
// RUN: %fwc %s --targets=x86-64,x86-64-v4 -o %t.fwb
// RUN: %fw-run --list %t.fwb | FileCheck %s --check-prefix=LIST

// NONSENSE: fwc: error: unknown target 'nonsense'; supported targets: cpu, x86-64
// V5: fwc: error: unknown target 'x86-64-v5'
// ROCM: fwc: error: target 'rocm' (AMD code generation) is not implemented in this version of fwc; supported now: {{.*}}sm_90, cuda
// GFX: fwc: error: target 'gfx942' is known but AMD code generation is not implemented
// LIST: target cpu x86-64 (
// LIST: target cpu x86-64-v4 (
// LIST: func @add(4xf32, 4xf32) -> (4xf32)

func.func @add(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %r = arith.addf %a, %b : tensor<4xf32>
  return %r : tensor<4xf32>
}
