// tensor dialect ops between linalg ops: tensor.pad (static amounts on a static axis,
// dynamic batch), strided tensor.extract_slice with a dynamic size,
// tensor.concat along a static axis with a dynamic batch,
// tensor.insert_slice.
// RUN: %fwc %s -o %t.fwb
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=tensor_pad_slice --case=tensor_pad_slice --arg-shapes="5x6" --tmp=%t
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=tensor_pad_slice --case=tensor_pad_slice --arg-shapes="1x6" --tmp=%t
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=concat_cols_tanh --case=concat_cols_tanh --arg-shapes="5x4;5x2" --tmp=%t
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=insert_block --case=insert_block --arg-shapes="8x8;2x3" --tmp=%t

func.func @tensor_pad_slice(%x: tensor<?x6xf32>) -> tensor<?x4xf32> {
  %seven = arith.constant 7.0 : f32
  %c0 = arith.constant 0 : index
  %p = tensor.pad %x low[0, 2] high[0, 0] {
  ^bb0(%i: index, %j: index):
    tensor.yield %seven : f32
  } : tensor<?x6xf32> to tensor<?x8xf32>
  %d = arith.addf %p, %p : tensor<?x8xf32>
  %n = tensor.dim %x, %c0 : tensor<?x6xf32>
  %s = tensor.extract_slice %d[0, 0] [%n, 4] [1, 2] : tensor<?x8xf32> to tensor<?x4xf32>
  return %s : tensor<?x4xf32>
}

func.func @concat_cols_tanh(%a: tensor<?x4xf32>, %b: tensor<?x2xf32>) -> tensor<?x6xf32> {
  %c = tensor.concat dim(1) %a, %b : (tensor<?x4xf32>, tensor<?x2xf32>) -> tensor<?x6xf32>
  %r = math.tanh %c : tensor<?x6xf32>
  return %r : tensor<?x6xf32>
}

func.func @insert_block(%a: tensor<8x8xf32>, %b: tensor<2x3xf32>) -> tensor<8x8xf32> {
  %r = tensor.insert_slice %b into %a[1, 2] [2, 3] [1, 1] : tensor<2x3xf32> into tensor<8x8xf32>
  return %r : tensor<8x8xf32>
}
