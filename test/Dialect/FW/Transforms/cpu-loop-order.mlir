// RUN: %fw-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(fw-cpu-loop-order))' | FileCheck %s

/// matmul (i, j, k) becomes (i, k, j): the inner loop walks B and C along
/// rows and A[i, k] is invariant.
// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[B:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[C:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func.func @matmul
// CHECK: linalg.generic {indexing_maps = [#[[A]], #[[B]], #[[C]]], iterator_types = ["parallel", "reduction", "parallel"]}
// CHECK-NOT: linalg.matmul
func.func @matmul(%a: memref<64x32xf32>, %b: memref<32x16xf32>, %c: memref<64x16xf32>) {
  linalg.matmul ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) outs(%c : memref<64x16xf32>)
  return
}

// -----

/// A convolution puts its output channels innermost (unit stride in the
/// filter and the output, invariant in the input).
// CHECK-LABEL: func.func @conv
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "parallel"]
func.func @conv(%x: memref<1x8x8x3xf32>, %w: memref<3x3x3x16xf32>, %y: memref<1x6x6x16xf32>) {
  linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : memref<1x8x8x3xf32>, memref<3x3x3x16xf32>) outs(%y : memref<1x6x6x16xf32>)
  return
}

// -----

/// negative_: a sum along rows already walks its input with unit stride in
/// the reduction loop; it is left alone.
// CHECK-LABEL: func.func @negative_row_sum
// CHECK: linalg.reduce
func.func @negative_row_sum(%x: memref<8x32xf32>, %y: memref<8xf32>) {
  linalg.reduce ins(%x : memref<8x32xf32>) outs(%y : memref<8xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return
}

// -----

/// negative_: a transpose is strided on one side whichever loop is inner;
/// its order is kept.
// CHECK-LABEL: func.func @negative_transpose
// CHECK: linalg.transpose
func.func @negative_transpose(%x: memref<8x4xf32>, %y: memref<4x8xf32>) {
  linalg.transpose ins(%x : memref<8x4xf32>) outs(%y : memref<4x8xf32>) permutation = [1, 0]
  return
}

// -----

/// negative_: tensor-level ops are not touched (the pass runs on buffers).
// CHECK-LABEL: func.func @negative_tensors
// CHECK: linalg.matmul
func.func @negative_tensors(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>, %c: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<4x4xf32>, tensor<4x4xf32>) outs(%c : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}

// -----

/// negative_: a reduction loop is never moved past another reduction loop:
/// that would change the order in which an output accumulates (first-max
/// ties of an argmax, say), even where the other order walks memory better.
// CHECK-LABEL: func.func @negative_two_reductions
// CHECK: iterator_types = ["reduction", "reduction"]
// CHECK-SAME: ins(%{{.*}} : memref<8x4xf32>)
#t = affine_map<(d0, d1) -> (d1, d0)>
#s = affine_map<(d0, d1) -> ()>
func.func @negative_two_reductions(%x: memref<8x4xf32>, %y: memref<f32>) {
  linalg.generic {indexing_maps = [#t, #s], iterator_types = ["reduction", "reduction"]}
      ins(%x : memref<8x4xf32>) outs(%y : memref<f32>) {
  ^bb0(%in: f32, %acc: f32):
    %m = arith.maximumf %in, %acc : f32
    linalg.yield %m : f32
  }
  return
}
