// Tasks that compute the same thing on the same types pool their candidates' figures
// (the fastest run of each candidate over all of them), so one noisy trial does not
// send identical kernels different ways. Tasks that differ keep their own.
// RUN: %fw-opt %s --pass-pipeline="builtin.module(fwc-pipeline{compile-to=tasks}, fw-apply-profile{profile=%S/Inputs/profile_pooling.json}, fw-outline-tasks, fw-tune-variants)" \
// RUN:   --remarks-filter="fw-profile" --remark-format=emitRemark 2>&1 | FileCheck %s

// main_dispatch_0 is the zero fill both projections share. main_dispatch_0 alone would
// keep x86-64-v4 (90 us against 100 us), main_dispatch_1 x86-64-v3 (80 us against 150
// us); pooled, both keep x86-64-v3 (80 us).
// CHECK: Function=main_dispatch_0 | Remark="task main_dispatch_0: 2 CPU variant(s) measured (x86-64-v3 defaults: 80.0 us; x86-64-v4 defaults: 90.0 us; fastest runs of the identical tasks main_dispatch_0, main_dispatch_1)"
// CHECK: Function=main_dispatch_1 | Remark="task main_dispatch_1: 2 CPU variant(s) measured (x86-64-v3 defaults: 80.0 us; x86-64-v4 defaults: 90.0 us; fastest runs of the identical tasks main_dispatch_0, main_dispatch_1)"
// CHECK: Function=main_dispatch_2 | Remark="task main_dispatch_2: 2 CPU variant(s) measured (x86-64-v3 defaults: 100.0 us; x86-64-v4 defaults: 50.0 us)"
// CHECK: Remark="task main_dispatch_0: kept the CPU variant with the defaults, the fastest of 2 measured"
// CHECK: Remark="task main_dispatch_1: kept the CPU variant with the defaults, the fastest of 2 measured"
// CHECK: Remark="task main_dispatch_2: kept the CPU x86-64-v4 variant with the defaults

func.func @main(%x: tensor<128x256xf32>, %wq: tensor<256x64xf32>, %wk: tensor<256x64xf32>,
                %wv: tensor<256x64xf32>)
    -> (tensor<128x64xf32>, tensor<128x64xf32>, tensor<128x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<128x64xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<128x64xf32>) -> tensor<128x64xf32>
  %q = linalg.matmul ins(%x, %wq : tensor<128x256xf32>, tensor<256x64xf32>)
                     outs(%z : tensor<128x64xf32>) -> tensor<128x64xf32>
  %k = linalg.matmul ins(%x, %wk : tensor<128x256xf32>, tensor<256x64xf32>)
                     outs(%z : tensor<128x64xf32>) -> tensor<128x64xf32>
  // Same types, another computation: starts from ones, not zeros.
  %o = linalg.fill ins(%one : f32) outs(%e : tensor<128x64xf32>) -> tensor<128x64xf32>
  %v = linalg.matmul ins(%x, %wv : tensor<128x256xf32>, tensor<256x64xf32>)
                     outs(%o : tensor<128x64xf32>) -> tensor<128x64xf32>
  return %q, %k, %v : tensor<128x64xf32>, tensor<128x64xf32>, tensor<128x64xf32>
}
