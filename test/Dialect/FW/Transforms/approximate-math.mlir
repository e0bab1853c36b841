// RUN: %fw-opt %s --pass-pipeline='builtin.module(func.func(fw-approximate-math))' | FileCheck %s

/// exp and tanh become arithmetic; sqrt (a native instruction) and sin (not
/// approximated) stay as they are.
// CHECK-LABEL: func.func @math
// CHECK-NOT: math.exp
// CHECK-NOT: math.tanh
// CHECK: arith.mulf
// CHECK: math.sqrt
// CHECK: math.sin
func.func @math(%x: f32) -> (f32, f32, f32) {
  %e = math.exp %x : f32
  %t = math.tanh %e : f32
  %s = math.sqrt %t : f32
  %n = math.sin %s : f32
  return %t, %s, %n : f32, f32, f32
}
