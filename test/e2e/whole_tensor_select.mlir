// arith.select and scf.if with a scalar condition pick a whole tensor: the two
// may differ in size. With a condition computed from sizes the result takes the
// size of the one picked; with one read from tensor data, the two must have the
// same size (the result's must be known before the task runs; the select is then
// elementwise, fused with its users), checked with a message naming the op. Inside
// a loop, the kernel picks either way.
// RUN: %fwc %s -o %t.fwb
// RUN: %fw-run %t.fwb --function=pick --input=2xf32=1,2 --input=3xf32=5,6,7 --input=4xf32=0 | FileCheck %s --check-prefix=FIRST
// RUN: %fw-run %t.fwb --function=pick_if --input=2xf32=1,2 --input=3xf32=5,6,7 --input=4xf32=0 | FileCheck %s --check-prefix=FIRST
// FIRST: 2xf32=1 2
// RUN: %fw-run %t.fwb --function=pick --input=2xf32=1,2 --input=3xf32=5,6,7 --input=1xf32=0 | FileCheck %s --check-prefix=SECOND
// RUN: %fw-run %t.fwb --function=pick_if --input=2xf32=1,2 --input=3xf32=5,6,7 --input=1xf32=0 | FileCheck %s --check-prefix=SECOND
// SECOND: 3xf32=5 6 7
// RUN: %fw-run %t.fwb --function=pick_by_data --input=2xf32=1,2 --input=2xf32=5,6 --input=i1=0 | FileCheck %s --check-prefix=DATA
// DATA: 2xf32=5 6
// RUN: not %fw-run %t.fwb --function=pick_by_data --input=2xf32=1,2 --input=3xf32=5,6,7 --input=i1=1 2>&1 | FileCheck %s --check-prefix=DIFFER
// DIFFER: 'arith.select': dimension 0 of operand 1 and dimension 0 of operand 2 must be equal (
// DIFFER-SAME: whole_tensor_select.mlir:{{[0-9]+}})
// An scf.if picking by data (the canonicalizer makes it such a select):
// RUN: %fw-run %t.fwb --function=pick_if_by_data --input=2xf32=1,2 --input=2xf32=5,6 --input=i1=0 | FileCheck %s --check-prefix=DATA
// RUN: not %fw-run %t.fwb --function=pick_if_by_data --input=2xf32=1,2 --input=3xf32=5,6,7 --input=i1=1 2>&1 | FileCheck %s --check-prefix=DIFFERIF
// DIFFERIF: 'arith.select': dimension 0 of the two tensors differs, and the condition that picks one is read from tensor data (
// DIFFERIF-SAME: whole_tensor_select.mlir:{{[0-9]+}})
// RUN: %fw-run %t.fwb --function=negate_per_sign --input=3xf32=1,-2,3 --input=3xi64=1,0,5 | FileCheck %s --check-prefix=SIGNS
// SIGNS: 3xf32=1 -2 3
// RUN: %fw-run %t.fwb --function=negate_per_sign --input=3xf32=1,-2,3 --input=2xi64=1,-1 | FileCheck %s --check-prefix=ONCE
// ONCE: 3xf32=-1 2 -3
// RUN: %fw-run %t.fwb --function=same_size --input=i1=1 --input=3xf32=1,2,3 --input=3xf32=4,5,6 | FileCheck %s --check-prefix=SAME
// SAME: 3xf32=1 2 3

func.func @pick(%a: tensor<?xf32>, %b: tensor<?xf32>, %c: tensor<?xf32>)
    -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %n = tensor.dim %c, %c0 : tensor<?xf32>
  %first = arith.cmpi sgt, %n, %c2 : index
  %r = arith.select %first, %a, %b : tensor<?xf32>
  return %r : tensor<?xf32>
}

func.func @pick_if(%a: tensor<?xf32>, %b: tensor<?xf32>, %c: tensor<?xf32>)
    -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %n = tensor.dim %c, %c0 : tensor<?xf32>
  %first = arith.cmpi sgt, %n, %c2 : index
  %r = scf.if %first -> tensor<?xf32> {
    scf.yield %a : tensor<?xf32>
  } else {
    scf.yield %b : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}

func.func @pick_by_data(%a: tensor<?xf32>, %b: tensor<?xf32>, %ct: tensor<i1>)
    -> tensor<?xf32> {
  %first = tensor.extract %ct[] : tensor<i1>
  %r = arith.select %first, %a, %b : tensor<?xf32>
  return %r : tensor<?xf32>
}

func.func @pick_if_by_data(%a: tensor<?xf32>, %b: tensor<?xf32>, %ct: tensor<i1>)
    -> tensor<?xf32> {
  %first = tensor.extract %ct[] : tensor<i1>
  %r = scf.if %first -> tensor<?xf32> {
    scf.yield %a : tensor<?xf32>
  } else {
    scf.yield %b : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}

// Negates %a once for each positive entry of %signs.
func.func @negate_per_sign(%a: tensor<?xf32>, %signs: tensor<?xi64>)
    -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0 : i64
  %k = tensor.dim %signs, %c0 : tensor<?xi64>
  %r = scf.for %i = %c0 to %k step %c1 iter_args(%t = %a) -> tensor<?xf32> {
    %s = tensor.extract %signs[%i] : tensor<?xi64>
    %positive = arith.cmpi sgt, %s, %zero : i64
    %n = arith.negf %t : tensor<?xf32>
    %u = arith.select %positive, %n, %t : tensor<?xf32>
    scf.yield %u : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}

func.func @same_size(%ct: tensor<i1>, %a: tensor<3xf32>, %b: tensor<3xf32>)
    -> tensor<3xf32> {
  %first = tensor.extract %ct[] : tensor<i1>
  %r = arith.select %first, %a, %b : tensor<3xf32>
  return %r : tensor<3xf32>
}
