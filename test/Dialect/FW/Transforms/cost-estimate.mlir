// RUN: %fw-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(fw-form-tasks))' | FileCheck %s

// The cost estimates fw-form-tasks attaches to each task: one operation per op
// of a linalg body per iteration. Static shapes give `flops` and `bytes`.
// CHECK-LABEL: func.func @static
// CHECK: fw.task{{.*}}attributes {bytes = 96 : i64, flops = 8 : i64, fw.host_checked}
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @static(%a: tensor<2x4xf32>, %b: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %e = tensor.empty() : tensor<2x4xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<2x4xf32>, tensor<2x4xf32>) outs(%e : tensor<2x4xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}

// -----

// Dynamic loop ranges become dims of the task's operands: M is dim 0 and K
// dim 1 of binding 0. The fill counts M × 8, the matmul 2 × M × 8 × K; no
// `flops` or `bytes` (the runtime knows the buffers' sizes).
// CHECK-LABEL: func.func @matmul
// CHECK: fw.task{{.*}}attributes {flops_terms = [array<i64: 8, 0, 0>, array<i64: 16, 0, 0, 0, 1>], fw.host_checked} {
// CHECK-NOT: flops =
// CHECK: linalg.matmul
func.func @matmul(%a: tensor<?x?xf32>, %b: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %m = tensor.dim %a, %c0 : tensor<?x?xf32>
  %e = tensor.empty(%m) : tensor<?x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x8xf32>) -> tensor<?x8xf32>
  %r = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x8xf32>) outs(%f : tensor<?x8xf32>) -> tensor<?x8xf32>
  return %r : tensor<?x8xf32>
}

// -----

// A loop range no input has is traced through the init's tensor.empty to the
// tensor its size was read from (binding 1, dim 0).
// CHECK-LABEL: func.func @broadcast
// CHECK: fw.task{{.*}}attributes {flops_terms = [array<i64: 4, 1, 0>], fw.host_checked} {
#in = affine_map<(d0, d1) -> (d1)>
#out = affine_map<(d0, d1) -> (d0, d1)>
func.func @broadcast(%v: tensor<4xf32>, %s: tensor<?xf32>) -> tensor<?x4xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %s, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?x4xf32>
  %r = linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "parallel"]}
      ins(%v : tensor<4xf32>) outs(%e : tensor<?x4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.mulf %x, %x : f32
    linalg.yield %y : f32
  } -> tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}

// -----

// An op the estimate cannot count (a reshape) leaves the task without one.
// CHECK-LABEL: func.func @reshape
// CHECK: fw.task(%{{.*}}) : (tensor<?x4xf32>) -> tensor<?xf32> dims(%{{.*}}) attributes {fw.host_checked} {{[{]$}}
func.func @reshape(%a: tensor<?x4xf32>) -> tensor<?xf32> {
  %r = tensor.collapse_shape %a [[0, 1]] : tensor<?x4xf32> into tensor<?xf32>
  return %r : tensor<?xf32>
}
