// RUN: %fw-opt %s --pass-pipeline='builtin.module(func.func(fw-approximate-math))' | FileCheck %s

/// exp and tanh become arithmetic; sqrt (a native instruction), sin and log
/// (whose approximation is wrong for subnormal inputs) stay as they are.
// CHECK-LABEL: func.func @math
// CHECK-NOT: math.exp
// CHECK-NOT: math.tanh
// CHECK: arith.mulf
// CHECK: math.sqrt
// CHECK: math.sin
// CHECK: math.log
func.func @math(%x: f32) -> (f32, f32, f32, f32) {
  %e = math.exp %x : f32
  %t = math.tanh %e : f32
  %s = math.sqrt %t : f32
  %n = math.sin %s : f32
  %l = math.log %n : f32
  return %t, %s, %n, %l : f32, f32, f32, f32
}
