// Conditions the canonicalizer would fold away with their ops (a size of a cast
// to a static size folded to that size, a rank-1 reshape to its own type, a
// reshape of a reshape, an insert of a cast) are still checked: data that
// breaks them fails the call and names the op; good data gives the answer.
// RUN: %fwc %s -o %t.fwb
//
// RUN: %fw-run %t.fwb --function=size_of_cast --input=4xf32=1 | FileCheck %s --check-prefix=SIZE
// SIZE: i64=4
// RUN: not %fw-run %t.fwb --function=size_of_cast --input=3xf32=1 2>&1 | FileCheck %s --check-prefix=CAST
// RUN: not %fw-run %t.fwb --function=zeros_like_cast --input=3xf32=1 2>&1 | FileCheck %s --check-prefix=CAST
// CAST: 'tensor.cast': dimension 0 of the operand must be 4 (
// CAST-SAME: folded_checks.mlir:{{[0-9]+}})
//
// RUN: %fw-run %t.fwb --function=same_shape --input=3xf32=1,2,3 --input=1xi64=3 | FileCheck %s --check-prefix=SAME
// SAME: 3xf32=1 2 3
// RUN: not %fw-run %t.fwb --function=same_shape --input=3xf32=1,2,3 --input=1xi64=5 2>&1 | FileCheck %s --check-prefix=RESHAPE
// RUN: not %fw-run %t.fwb --function=same_shape --input=3xf32=1,2,3 --input=1xi64=-3 2>&1 | FileCheck %s --check-prefix=RESHAPE
// RUN: not %fw-run %t.fwb --function=same_shape_const --input=3xf32=1,2,3 2>&1 | FileCheck %s --check-prefix=CONST
// CONST: 'tensor.reshape': the source has another number of elements than the result (4)
// RESHAPE: 'tensor.reshape': the shape's sizes are negative or do not multiply to the source's number of elements (
// RESHAPE-SAME: folded_checks.mlir:{{[0-9]+}})
//
// RUN: %fw-run %t.fwb --function=through_rows --input=6xf32=1,2,3,4,5,6 --input=2xi64=2,3 --input=1xi64=6 | FileCheck %s --check-prefix=ROWS
// ROWS: 6xf32=1 2 3 4 5 6
// RUN: not %fw-run %t.fwb --function=through_rows --input=6xf32=1,2,3,4,5,6 --input=2xi64=3,2 --input=1xi64=9 2>&1 | FileCheck %s --check-prefix=ROWBAD
// ROWBAD: 'tensor.reshape': dimension 1 of the shape differs from the result's (3)
// RUN: not %fw-run %t.fwb --function=through_rows --input=6xf32=1,2,3,4,5,6 --input=2xi64=1,3 --input=1xi64=6 2>&1 | FileCheck %s --check-prefix=RESHAPE
//
// RUN: %fw-run %t.fwb --function=insert_cast --input=4xf32=1,2,3,4 --input=6xf32=0 --input=i64=4 | FileCheck %s --check-prefix=INSERT
// RUN: %fw-run %t.fwb --function=insert_cast_like --input=4xf32=1,2,3,4 --input=6xf32=0 --input=4xf32=0 | FileCheck %s --check-prefix=INSERT
// INSERT: 6xf32=1 2 3 4 0 0
// RUN: not %fw-run %t.fwb --function=insert_cast --input=4xf32=1,2,3,4 --input=6xf32=0 --input=i64=2 2>&1 | FileCheck %s --check-prefix=INSERTBAD
// RUN: not %fw-run %t.fwb --function=insert_cast_like --input=4xf32=1,2,3,4 --input=6xf32=0 --input=2xf32=0 2>&1 | FileCheck %s --check-prefix=INSERTBAD
// INSERTBAD: 'tensor.insert_slice': dimension 0 of the inserted tensor differs from the slice size
//
// RUN: not %fw-run %t.fwb --function=through_cast --input=6xf32=1,2,3,4,5,6 --input=2xi64=5,2 --input=1xi64=6 2>&1 | FileCheck %s --check-prefix=RESHAPE
// RUN: %fw-run %t.fwb --function=through_cast --input=6xf32=1,2,3,4,5,6 --input=2xi64=3,2 --input=1xi64=6 | FileCheck %s --check-prefix=ROWS
// RUN: not %fw-run %t.fwb --function=via_unranked --input=3xf32=1 2>&1 | FileCheck %s --check-prefix=CAST
// RUN: %fw-run %t.fwb --function=via_unranked --input=4xf32=1 | FileCheck %s --check-prefix=SIZE
// RUN: not %fw-run %t.fwb --function=insert_two_casts --input=4xf32=1,2,3,4 --input=6xf32=0 --input=2xf32=0 2>&1 | FileCheck %s --check-prefix=INSERTBAD
// RUN: %fw-run %t.fwb --function=insert_two_casts --input=4xf32=1,2,3,4 --input=6xf32=0 --input=4xf32=0 | FileCheck %s --check-prefix=INSERT
// Both sizes differ (checked in two tasks): either message.
// RUN: not %fw-run %t.fwb --function=ones_reshaped --input=2xi64=3,2 2>&1 | FileCheck %s --check-prefix=ONESBAD
// ONESBAD: 'tensor.reshape': dimension {{0 of the shape differs from the result's \(2\)|1 of the shape differs from the result's \(3\)}}
// RUN: %fw-run %t.fwb --function=ones_reshaped --input=2xi64=2,3 | FileCheck %s --check-prefix=ONES
// ONES: 2x3xf32=[1 1 1][1 1 1]
// Two checks fail (the size on the host, the shape in a task): either message.
// RUN: not %fw-run %t.fwb --function=size_of_reshape --input=6xf32=1 --input=1xi64=6 2>&1 | FileCheck %s --check-prefix=COUNT
// COUNT: 'tensor.reshape': {{the source has another number of elements than the result \(4\)|dimension 0 of the shape differs from the result's \(4\)}}
// RUN: %fw-run %t.fwb --function=size_of_reshape --input=4xf32=1 --input=1xi64=4 | FileCheck %s --check-prefix=SIZE
//
// Inside a loop, the check is the kernel's; a loop left with nothing but the
// check still runs.
// RUN: %fw-run %t.fwb --function=reshape_each --input=3xf32=1,2,3 --input=1xi64=3 --input=i64=2 | FileCheck %s --check-prefix=SAME
// RUN: not %fw-run %t.fwb --function=reshape_each --input=3xf32=1,2,3 --input=1xi64=5 --input=i64=2 2>&1 | FileCheck %s --check-prefix=RESHAPE
// RUN: %fw-run %t.fwb --function=reshape_each --input=3xf32=1,2,3 --input=1xi64=5 --input=i64=0 | FileCheck %s --check-prefix=SAME

func.func @size_of_cast(%a: tensor<?xf32>) -> tensor<i64> {
  %c = tensor.cast %a : tensor<?xf32> to tensor<4xf32>
  %c0 = arith.constant 0 : index
  %d = tensor.dim %c, %c0 : tensor<4xf32>
  %di = arith.index_cast %d : index to i64
  %t = tensor.from_elements %di : tensor<i64>
  return %t : tensor<i64>
}

func.func @zeros_like_cast(%a: tensor<?xf32>) -> tensor<?xf32> {
  %c = tensor.cast %a : tensor<?xf32> to tensor<4xf32>
  %c0 = arith.constant 0 : index
  %d = tensor.dim %c, %c0 : tensor<4xf32>
  %e = tensor.empty(%d) : tensor<?xf32>
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  return %f : tensor<?xf32>
}

func.func @same_shape(%a: tensor<?xf32>, %s: tensor<1xi64>) -> tensor<?xf32> {
  %r = tensor.reshape %a(%s) : (tensor<?xf32>, tensor<1xi64>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}

func.func @same_shape_const(%a: tensor<?xf32>) -> tensor<?xf32> {
  %s = arith.constant dense<[4]> : tensor<1xi64>
  %r = tensor.reshape %a(%s) : (tensor<?xf32>, tensor<1xi64>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}

func.func @through_rows(%a: tensor<?xf32>, %s: tensor<2xi64>, %t: tensor<1xi64>)
    -> tensor<?xf32> {
  %r = tensor.reshape %a(%s) : (tensor<?xf32>, tensor<2xi64>) -> tensor<?x3xf32>
  %q = tensor.reshape %r(%t) : (tensor<?x3xf32>, tensor<1xi64>) -> tensor<?xf32>
  return %q : tensor<?xf32>
}

func.func @insert_cast(%a: tensor<4xf32>, %d: tensor<?xf32>, %nt: tensor<i64>)
    -> tensor<?xf32> {
  %ni = tensor.extract %nt[] : tensor<i64>
  %n = arith.index_cast %ni : i64 to index
  %c = tensor.cast %a : tensor<4xf32> to tensor<?xf32>
  %r = tensor.insert_slice %c into %d[0][%n][1] : tensor<?xf32> into tensor<?xf32>
  return %r : tensor<?xf32>
}

func.func @insert_cast_like(%a: tensor<4xf32>, %d: tensor<?xf32>, %b: tensor<?xf32>)
    -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %b, %c0 : tensor<?xf32>
  %c = tensor.cast %a : tensor<4xf32> to tensor<?xf32>
  %r = tensor.insert_slice %c into %d[0][%n][1] : tensor<?xf32> into tensor<?xf32>
  return %r : tensor<?xf32>
}

func.func @reshape_each(%a: tensor<?xf32>, %s: tensor<1xi64>, %kt: tensor<i64>)
    -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ki = tensor.extract %kt[] : tensor<i64>
  %k = arith.index_cast %ki : i64 to index
  %r = scf.for %i = %c0 to %k step %c1 iter_args(%t = %a) -> tensor<?xf32> {
    %u = tensor.reshape %t(%s) : (tensor<?xf32>, tensor<1xi64>) -> tensor<?xf32>
    scf.yield %u : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}

func.func @through_cast(%a: tensor<?xf32>, %s: tensor<2xi64>, %t: tensor<1xi64>)
    -> tensor<?xf32> {
  %r = tensor.reshape %a(%s) : (tensor<?xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  %c = tensor.cast %r : tensor<?x?xf32> to tensor<?x?xf32>
  %q = tensor.reshape %c(%t) : (tensor<?x?xf32>, tensor<1xi64>) -> tensor<?xf32>
  return %q : tensor<?xf32>
}

func.func @via_unranked(%a: tensor<?xf32>) -> tensor<i64> {
  %u = tensor.cast %a : tensor<?xf32> to tensor<*xf32>
  %c = tensor.cast %u : tensor<*xf32> to tensor<4xf32>
  %c0 = arith.constant 0 : index
  %d = tensor.dim %c, %c0 : tensor<4xf32>
  %di = arith.index_cast %d : index to i64
  %t = tensor.from_elements %di : tensor<i64>
  return %t : tensor<i64>
}

func.func @insert_two_casts(%a: tensor<4xf32>, %d: tensor<?xf32>, %b: tensor<?xf32>)
    -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %b, %c0 : tensor<?xf32>
  %c = tensor.cast %a : tensor<4xf32> to tensor<?xf32>
  %c2 = tensor.cast %c : tensor<?xf32> to tensor<?xf32>
  %r = tensor.insert_slice %c2 into %d[0][%n][1] : tensor<?xf32> into tensor<?xf32>
  return %r : tensor<?xf32>
}

func.func @ones_reshaped(%s: tensor<2xi64>) -> tensor<2x3xf32> {
  %c = arith.constant dense<1.0> : tensor<6xf32>
  %r = tensor.reshape %c(%s) : (tensor<6xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

func.func @size_of_reshape(%a: tensor<?xf32>, %s: tensor<1xi64>) -> tensor<i64> {
  %r = tensor.reshape %a(%s) : (tensor<?xf32>, tensor<1xi64>) -> tensor<4xf32>
  %c0 = arith.constant 0 : index
  %d = tensor.dim %r, %c0 : tensor<4xf32>
  %di = arith.index_cast %d : index to i64
  %t = tensor.from_elements %di : tensor<i64>
  return %t : tensor<i64>
}
