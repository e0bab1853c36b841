// A kernel with an op the NVIDIA lowering has no form for (math.trunc,
// math.ctpop) is not compiled for the GPU: with a CPU target beside it, a
// warning and the CPU runs it; alone, an error naming the op.
// REQUIRES: ptxas
// RUN: %fwc %s --targets=cpu,sm_90 -o %t.fwb 2>&1 | FileCheck %s --check-prefix=WARN
// RUN: %fw-run %t.fwb --input=4xf32=1.5,-2.5,3.75,0 --input=4xi32=7,0,255,-1 | FileCheck %s --check-prefix=OUT
// RUN: not %fwc %s --targets=sm_90 -o %t.bad.fwb 2>&1 | FileCheck %s --check-prefix=ONLYGPU

// WARN: warning: not compiled for sm_90: its op 'math.trunc' has no lowering for sm_90 yet; the other targets run it
// WARN: warning: not compiled for sm_90: its op 'math.ctpop' has no lowering for sm_90 yet; the other targets run it
// OUT: 4xf32=1 -2 3 0
// OUT: 4xi32=3 0 8 32
// ONLYGPU: error: 'fw.variant' op cannot be compiled for sm_90: its op 'math.trunc' has no lowering for sm_90 yet; add a CPU target

func.func @f(%a: tensor<4xf32>, %b: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xi32>) {
  %r = math.trunc %a : tensor<4xf32>
  %s = math.ctpop %b : tensor<4xi32>
  return %r, %s : tensor<4xf32>, tensor<4xi32>
}
