// bf16 tensors in and out, and bf16 arithmetic (expanded to integer
// operations in the kernel, so no compiler-rt routine is needed).
// RUN: %fwc %s -o %t.fwb
// RUN: %fw-run %t.fwb --function=fma --input=4xbf16=1,2.5,-3,0.15625 --input=4xbf16=2,2,2,2 | FileCheck %s --check-prefix=FMA
// FMA: 4xbf16=3 7.5 -9 0.46875
// RUN: %fw-run %t.fwb --function=narrow --input=3xf32=1,0.333333,-1e10 | FileCheck %s --check-prefix=NARROW
// NARROW: 3xbf16=1 0.333984 -9.99922e+09

func.func @fma(%a: tensor<4xbf16>, %b: tensor<4xbf16>) -> tensor<4xbf16> {
  %m = arith.mulf %a, %b : tensor<4xbf16>
  %r = arith.addf %m, %a : tensor<4xbf16>
  return %r : tensor<4xbf16>
}

func.func @narrow(%a: tensor<3xf32>) -> tensor<3xbf16> {
  %r = arith.truncf %a : tensor<3xf32> to tensor<3xbf16>
  return %r : tensor<3xbf16>
}
