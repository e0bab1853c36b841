// RUN: %fw-opt %s --pass-pipeline='builtin.module(func.func(fw-form-tasks{fuse-epilogues=false}))' | FileCheck %s

/// negative_: without epilogue fusion every operation is a task of its own.
// CHECK-LABEL: func.func @unfused
// CHECK: fw.task
// CHECK: linalg.matmul
// CHECK: fw.task
// CHECK: linalg.generic
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @unfused(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>) -> tensor<8x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
  %m = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%f : tensor<8x4xf32>) -> tensor<8x4xf32>
  %e1 = tensor.empty() : tensor<8x4xf32>
  %s = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m : tensor<8x4xf32>) outs(%e1 : tensor<8x4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %v = arith.maximumf %x, %zero : f32
    linalg.yield %v : f32
  } -> tensor<8x4xf32>
  return %s : tensor<8x4xf32>
}
