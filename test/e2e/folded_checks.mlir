// Conditions the canonicalizer would fold away with their ops (a size of a cast
// to a static size folded to that size, a rank-1 reshape to its own type, a
// reshape of a reshape, an insert of a cast, and at the top level any op the
// host checks) are still checked: data that breaks them fails the call and
// names the op; good data gives the answer.
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
// The other ops at the top level: a size read off a slice or an add, a collapse
// of an expand, a slice of an insert and an insert of a slice at one place, an
// element of a splat, an identity linalg.generic.
// RUN: not %fw-run %t.fwb --function=size_of_slice --input=5xf32=0 --input=i64=3 2>&1 | FileCheck %s --check-prefix=SLICE
// SLICE: 'tensor.extract_slice': the slice reaches past the end of the source in dimension 0
// RUN: %fw-run %t.fwb --function=size_of_slice --input=5xf32=0 --input=i64=1 | FileCheck %s --check-prefix=SIZE
// RUN: not %fw-run %t.fwb --function=size_of_sum --input=3xf32=0 --input=5xf32=0 2>&1 | FileCheck %s --check-prefix=SUM
// SUM: '{{linalg.add|linalg.generic}}': dimension 0 of operand 0 and dimension 0 of operand 1 must be equal
// RUN: not %fw-run %t.fwb --function=pairs_and_back --input=6xf32=0 --input=5xf32=0 2>&1 | FileCheck %s --check-prefix=PAIRS
// PAIRS: 'tensor.expand_shape': the sizes of result dimensions 0 to 1 do not multiply to dimension 0 of the source
// RUN: %fw-run %t.fwb --function=pairs_and_back --input=6xf32=1,2,3,4,5,6 --input=3xf32=0 | FileCheck %s --check-prefix=BACK
// BACK: 6xf32=1 2 3 4 5 6
// Both slices reach past the end (checked in two tasks): either message.
// RUN: not %fw-run %t.fwb --function=put_and_take --input=3xf32=0 --input=4xf32=0 --input=i64=3 2>&1 | FileCheck %s --check-prefix=PUT
// PUT: '{{tensor.insert_slice': the slice reaches past the end of the destination|tensor.extract_slice': the slice reaches past the end of the source}} in dimension 0
// RUN: %fw-run %t.fwb --function=put_and_take --input=3xf32=7,8,9 --input=4xf32=0 --input=i64=1 | FileCheck %s --check-prefix=TAKE
// TAKE: 3xf32=7 8 9
// RUN: not %fw-run %t.fwb --function=take_and_put --input=4xf32=0 --input=i64=3 --input=5xf32=0 2>&1 | FileCheck %s --check-prefix=PUT
// RUN: not %fw-run %t.fwb --function=one_of_ones --input=i64=100 2>&1 | FileCheck %s --check-prefix=ELEMENT
// RUN: not %fw-run %t.fwb --function=one_of_ones --input=i64=-1 2>&1 | FileCheck %s --check-prefix=ELEMENT
// ELEMENT: 'tensor.extract': the index into dimension 0 is out of range
// RUN: %fw-run %t.fwb --function=one_of_ones --input=i64=3 | FileCheck %s --check-prefix=ONE
// ONE: f32=1
// RUN: not %fw-run %t.fwb --function=copy_into --input=3xf32=0 --input=5xf32=0 2>&1 | FileCheck %s --check-prefix=SUM
//
// A cast of a fill (the canonicalizer folds the cast into the fill's init), a
// reshape to a static type by a shape given as input (its checks run in its own
// kernel), a reshape by a constant shape to a type with a dynamic size.
// RUN: not %fw-run %t.fwb --function=ones_cast --input=6xf32=0 2>&1 | FileCheck %s --check-prefix=CAST
// RUN: %fw-run %t.fwb --function=ones_cast --input=4xf32=0 | FileCheck %s --check-prefix=FOURONES
// FOURONES: 4xf32=1 1 1 1
// RUN: %fw-run %t.fwb --function=by_shape --input=4x3xf32=1,2,3,4,5,6,7,8,9,10,11,12 --input=2xi64=2,6 --stats | FileCheck %s --check-prefix=BYSHAPE
// BYSHAPE: 2x6xf32=[1 2 3 4 5 6][7 8 9 10 11 12]
// BYSHAPE: stats: scheduler {{[a-z]+}}, 1 tasks submitted
// RUN: not %fw-run %t.fwb --function=by_shape --input=4x3xf32=0 --input=2xi64=3,4 2>&1 | FileCheck %s --check-prefix=SHAPEDIM
// SHAPEDIM: 'tensor.reshape': dimension 0 of the shape differs from the result's (2)
// RUN: %fw-run %t.fwb --function=rows_of_three --input=6xf32=1,2,3,4,5,6 | FileCheck %s --check-prefix=THREE
// THREE: 2x3xf32=[1 2 3][4 5 6]
// RUN: not %fw-run %t.fwb --function=rows_of_three --input=5xf32=0 2>&1 | FileCheck %s --check-prefix=COUNT6
// COUNT6: 'tensor.reshape': the source has another number of elements than the result (6)
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

func.func @size_of_slice(%a: tensor<?xf32>, %ot: tensor<i64>) -> tensor<i64> {
  %oi = tensor.extract %ot[] : tensor<i64>
  %o = arith.index_cast %oi : i64 to index
  %e = tensor.extract_slice %a[%o][4][1] : tensor<?xf32> to tensor<4xf32>
  %c0 = arith.constant 0 : index
  %d = tensor.dim %e, %c0 : tensor<4xf32>
  %di = arith.index_cast %d : index to i64
  %t = tensor.from_elements %di : tensor<i64>
  return %t : tensor<i64>
}

func.func @size_of_sum(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<i64> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.add ins(%a, %b : tensor<?xf32>, tensor<?xf32>) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %d = tensor.dim %r, %c0 : tensor<?xf32>
  %di = arith.index_cast %d : index to i64
  %t = tensor.from_elements %di : tensor<i64>
  return %t : tensor<i64>
}

func.func @pairs_and_back(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %b, %c0 : tensor<?xf32>
  %e = tensor.expand_shape %a [[0, 1]] output_shape [%n, 2] : tensor<?xf32> into tensor<?x2xf32>
  %c = tensor.collapse_shape %e [[0, 1]] : tensor<?x2xf32> into tensor<?xf32>
  return %c : tensor<?xf32>
}

func.func @put_and_take(%s: tensor<?xf32>, %d: tensor<?xf32>, %ot: tensor<i64>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %oi = tensor.extract %ot[] : tensor<i64>
  %o = arith.index_cast %oi : i64 to index
  %n = tensor.dim %s, %c0 : tensor<?xf32>
  %i = tensor.insert_slice %s into %d[%o][%n][1] : tensor<?xf32> into tensor<?xf32>
  %e = tensor.extract_slice %i[%o][%n][1] : tensor<?xf32> to tensor<?xf32>
  return %e : tensor<?xf32>
}

func.func @take_and_put(%d: tensor<?xf32>, %ot: tensor<i64>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %oi = tensor.extract %ot[] : tensor<i64>
  %o = arith.index_cast %oi : i64 to index
  %n = tensor.dim %b, %c0 : tensor<?xf32>
  %e = tensor.extract_slice %d[%o][%n][1] : tensor<?xf32> to tensor<?xf32>
  %i = tensor.insert_slice %e into %d[%o][%n][1] : tensor<?xf32> into tensor<?xf32>
  return %i : tensor<?xf32>
}

func.func @one_of_ones(%it: tensor<i64>) -> tensor<f32> {
  %c = arith.constant dense<1.0> : tensor<4xf32>
  %ii = tensor.extract %it[] : tensor<i64>
  %i = arith.index_cast %ii : i64 to index
  %v = tensor.extract %c[%i] : tensor<4xf32>
  %t = tensor.from_elements %v : tensor<f32>
  return %t : tensor<f32>
}

func.func @copy_into(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]}
      ins(%a : tensor<?xf32>) outs(%b : tensor<?xf32>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

func.func @ones_cast(%a: tensor<?xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %f = linalg.fill ins(%one : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %c = tensor.cast %f : tensor<?xf32> to tensor<4xf32>
  return %c : tensor<4xf32>
}

func.func @by_shape(%a: tensor<?x3xf32>, %s: tensor<2xi64>) -> tensor<2x6xf32> {
  %r = tensor.reshape %a(%s) : (tensor<?x3xf32>, tensor<2xi64>) -> tensor<2x6xf32>
  return %r : tensor<2x6xf32>
}

func.func @rows_of_three(%a: tensor<?xf32>) -> tensor<?x3xf32> {
  %s = arith.constant dense<[2, 3]> : tensor<2xi64>
  %r = tensor.reshape %a(%s) : (tensor<?xf32>, tensor<2xi64>) -> tensor<?x3xf32>
  return %r : tensor<?x3xf32>
}
