// RUN: %fw-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(fw-prepare-input))' | FileCheck %s

/// Tensor arithmetic becomes linalg.generic, without folding: x ^ x on a
/// dynamically shaped tensor keeps its shape (folding it would produce a
/// constant of unknown shape).
// CHECK-LABEL: func.func @xor_self
// CHECK: %[[G:.*]] = linalg.generic
// CHECK: arith.xori
// CHECK: return %[[G]] : tensor<?x4xi16>
func.func @xor_self(%a: tensor<?x4xi16>) -> tensor<?x4xi16> {
  %r = arith.xori %a, %a : tensor<?x4xi16>
  return %r : tensor<?x4xi16>
}

// -----

/// A large splat becomes a fill; a small one stays a constant.
// CHECK-LABEL: func.func @splats
// CHECK-DAG: %[[E:.*]] = tensor.empty() : tensor<64x64xf32>
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: %[[F:.*]] = linalg.fill ins(%[[ONE]] : f32) outs(%[[E]] : tensor<64x64xf32>)
// CHECK: arith.constant dense<2.000000e+00> : tensor<4xf32>
// CHECK: return %[[F]]
func.func @splats() -> (tensor<64x64xf32>, tensor<4xf32>) {
  %big = arith.constant dense<1.0> : tensor<64x64xf32>
  %small = arith.constant dense<2.0> : tensor<4xf32>
  return %big, %small : tensor<64x64xf32>, tensor<4xf32>
}

// -----

/// Statically empty concat operands are dropped.
// CHECK-LABEL: func.func @concat_empty
// CHECK: tensor.concat dim(0) %arg0, %arg2 : (tensor<1xf32>, tensor<2xf32>) -> tensor<3xf32>
func.func @concat_empty(%a: tensor<1xf32>, %b: tensor<0xf32>, %c: tensor<2xf32>) -> tensor<3xf32> {
  %r = tensor.concat dim(0) %a, %b, %c : (tensor<1xf32>, tensor<0xf32>, tensor<2xf32>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// -----

/// negative_: a concat of only empty operands is left alone.
// CHECK-LABEL: func.func @negative_concat_all_empty
// CHECK: tensor.concat
func.func @negative_concat_all_empty(%a: tensor<0xf32>, %b: tensor<0xf32>) -> tensor<0xf32> {
  %r = tensor.concat dim(0) %a, %b : (tensor<0xf32>, tensor<0xf32>) -> tensor<0xf32>
  return %r : tensor<0xf32>
}
