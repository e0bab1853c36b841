// Reshapes and padding with a dynamic batch: result sizes are inferred on the
// host from the operands.
// RUN: %fwc %s -o %t.fwb
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=flatten_exp --case=flatten_exp --arg-shapes="5x3x4" --tmp=%t
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=pad_top --case=pad_top --arg-shapes="4x6" --tmp=%t
// An expansion with two dynamic sizes in one group (to the shape of another
// argument; a reshape once bufferized), and one whose sizes do not multiply
// to the source's.
// RUN: %fw-run %t.fwb --function=unflatten_like --input=6xf32=1,2,3,4,5,6 --input=2x3xf32=10,10,10,10,10,10 | FileCheck %s --check-prefix=LIKE
// LIKE: 2x3xf32=[11 12 13][14 15 16]
// RUN: not %fw-run %t.fwb --function=unflatten_like --input=5xf32=1 --input=2x3xf32=1 2>&1 | FileCheck %s --check-prefix=UNLIKE
// UNLIKE: error: in @unflatten_like: assertion failed: 'tensor.expand_shape': the sizes of result dimensions 0 to 1 do not multiply to dimension 0 of the source

func.func @flatten_exp(%a: tensor<?x3x4xf32>) -> tensor<?x12xf32> {
  %c = tensor.collapse_shape %a [[0], [1, 2]] : tensor<?x3x4xf32> into tensor<?x12xf32>
  %r = math.exp %c : tensor<?x12xf32>
  return %r : tensor<?x12xf32>
}

func.func @pad_top(%a: tensor<?x6xf32>) -> tensor<?x6xf32> {
  %z = arith.constant 0.0 : f32
  %p = tensor.pad %a low[1, 0] high[0, 0] {
  ^bb0(%i: index, %j: index):
    tensor.yield %z : f32
  } : tensor<?x6xf32> to tensor<?x6xf32>
  return %p : tensor<?x6xf32>
}

func.func @unflatten_like(%a: tensor<?xf32>, %r: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %r, %c0 : tensor<?x?xf32>
  %m = tensor.dim %r, %c1 : tensor<?x?xf32>
  %e = tensor.expand_shape %a [[0, 1]] output_shape [%n, %m] : tensor<?xf32> into tensor<?x?xf32>
  %y = arith.addf %e, %r : tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}
