// Functions without computation: an argument returned unchanged (dynamic i64), the same
// tensor returned twice, a dense constant, a splat f16 constant, a function without
// arguments; several functions in one module.
// RUN: %fwc %s -o %t.fwb
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=identity_i64 --case=identity_i64 --arg-shapes="3x4" --tmp=%t
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=identity_i64 --case=identity_i64 --arg-shapes="3x0" --tmp=%t
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=same_twice --case=same_twice --arg-shapes="5" --tmp=%t
// RUN: %fw-run %t.fwb --function=dense_const | FileCheck %s --check-prefix=DENSE
// RUN: %fw-run %t.fwb --function=splat_f16 | FileCheck %s --check-prefix=SPLAT
// RUN: %fw-run %t.fwb --function=no_args | FileCheck %s --check-prefix=NOARGS
// RUN: %fw-run --list %t.fwb | FileCheck %s --check-prefix=LIST

// DENSE: result[0]: 2x3xi32
// DENSE-NEXT: 2x3xi32=[1 2 3][4 5 6]
// SPLAT: result[0]: 2x2xf16
// SPLAT-NEXT: 2x2xf16=[1.5 1.5][1.5 1.5]
// NOARGS: result[0]: 3xf32
// NOARGS-NEXT: 3xf32=2 2 2
// LIST-DAG: func @identity_i64(3x?xi64) -> (3x?xi64)
// LIST-DAG: func @same_twice(?xf32) -> (?xf32, ?xf32)
// LIST-DAG: func @dense_const() -> (2x3xi32)
// LIST-DAG: func @splat_f16() -> (2x2xf16)
// LIST-DAG: func @no_args() -> (3xf32)

func.func @identity_i64(%a: tensor<3x?xi64>) -> tensor<3x?xi64> {
  return %a : tensor<3x?xi64>
}

func.func @same_twice(%a: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  return %a, %a : tensor<?xf32>, tensor<?xf32>
}

func.func @dense_const() -> tensor<2x3xi32> {
  %c = arith.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  return %c : tensor<2x3xi32>
}

func.func @splat_f16() -> tensor<2x2xf16> {
  %c = arith.constant dense<1.5> : tensor<2x2xf16>
  return %c : tensor<2x2xf16>
}

func.func @no_args() -> tensor<3xf32> {
  %four = arith.constant 4.0 : f32
  %e = tensor.empty() : tensor<3xf32>
  %f = linalg.fill ins(%four : f32) outs(%e : tensor<3xf32>) -> tensor<3xf32>
  %r = math.sqrt %f : tensor<3xf32>
  return %r : tensor<3xf32>
}
