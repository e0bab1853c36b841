// conv_2d_nhwc_hwcf with every dimension dynamic; the output size is computed on the host
// from the input and filter sizes. Includes batch 0, and a channel mismatch that must be a
// run-time error.
// RUN: %fwc %s -o %t.fwb
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=conv2d_dynamic --case=conv2d_dynamic --arg-shapes="3x7x9x5;2x4x5x6" --tmp=%t
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=conv2d_dynamic --case=conv2d_dynamic --arg-shapes="1x3x3x2;3x3x2x4" --tmp=%t
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=conv2d_dynamic --case=conv2d_dynamic --arg-shapes="0x7x9x5;3x3x5x6" --tmp=%t
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=conv2d_dynamic --arg-shapes="3x7x9x5;2x4x4x6" --expect-error="must be equal" --tmp=%t

func.func @conv2d_dynamic(%x: tensor<?x?x?x?xf32>, %w: tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32> {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %n = tensor.dim %x, %c0 : tensor<?x?x?x?xf32>
  %h = tensor.dim %x, %c1 : tensor<?x?x?x?xf32>
  %wd = tensor.dim %x, %c2 : tensor<?x?x?x?xf32>
  %kh = tensor.dim %w, %c0 : tensor<?x?x?x?xf32>
  %kw = tensor.dim %w, %c1 : tensor<?x?x?x?xf32>
  %f = tensor.dim %w, %c3 : tensor<?x?x?x?xf32>
  %oh0 = arith.subi %h, %kh : index
  %oh = arith.addi %oh0, %c1 : index
  %ow0 = arith.subi %wd, %kw : index
  %ow = arith.addi %ow0, %c1 : index
  %init = tensor.empty(%n, %oh, %ow, %f) : tensor<?x?x?x?xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>)
      outs(%acc : tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  return %r : tensor<?x?x?x?xf32>
}
