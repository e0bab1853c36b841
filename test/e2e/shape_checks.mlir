// Dynamic shapes that an operation cannot accept are caught on the host before
// any kernel runs: fw-run exits with code 1 and names the operation, instead of
// reading or writing out of bounds.
// RUN: %fwc %s -o %t.fwb
//
// A convolution whose output size is fixed needs an input of at least 6x6.
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=conv_fixed_out --case=conv_fixed_out --arg-shapes="1x6x6x1;3x3x1x1" --tmp=%t
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=conv_fixed_out --arg-shapes="1x2x2x1;3x3x1x1" --expect-error="linalg.conv_2d_nhwc_hwcf': operand 0 is too small in dimension 1" --tmp=%t
// Matmul operands whose inner sizes differ.
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=matmul_dyn --arg-shapes="4x8;9x3" --expect-error="dimension 1 of operand 0 and dimension 0 of operand 1 must be equal" --tmp=%t
// Concatenation of tensors whose other sizes differ.
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=concat_rows --arg-shapes="5x4;2x2" --expect-error="tensor.concat': dimension 1 of operand 0 and operand 1 must be equal" --tmp=%t
// A slice past the end of its source.
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=slice_cols --arg-shapes="3x2" --expect-error="tensor.extract_slice': the slice reaches past the end of the source in dimension 1" --tmp=%t

func.func @conv_fixed_out(%x: tensor<1x?x?x1xf32>, %w: tensor<3x3x1x1xf32>) -> tensor<1x4x4x1xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x4x1xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x4x4x1xf32>) -> tensor<1x4x4x1xf32>
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
     ins(%x, %w : tensor<1x?x?x1xf32>, tensor<3x3x1x1xf32>) outs(%f : tensor<1x4x4x1xf32>) -> tensor<1x4x4x1xf32>
  return %r : tensor<1x4x4x1xf32>
}

func.func @matmul_dyn(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %a, %c0 : tensor<?x?xf32>
  %n = tensor.dim %b, %c1 : tensor<?x?xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %r = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%f : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

func.func @concat_rows(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = tensor.concat dim(0) %a, %b : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

func.func @slice_cols(%a: tensor<?x?xf32>) -> tensor<2x2xf32> {
  %s = tensor.extract_slice %a[0, 1] [2, 2] [1, 1] : tensor<?x?xf32> to tensor<2x2xf32>
  return %s : tensor<2x2xf32>
}
