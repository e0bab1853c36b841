// Reshapes and padding with a dynamic batch: result sizes are inferred on the
// host from the operands.
// RUN: %fwc %s -o %t.fwb
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=flatten_exp --case=flatten_exp --arg-shapes="5x3x4" --tmp=%t
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=pad_top --case=pad_top --arg-shapes="4x6" --tmp=%t

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
