// conv_2d_nhwc_hwcf, stride 1, no padding: 2x18x18x4 * 3x3x4x8 -> 2x16x16x8.
// RUN: %fwc %s -o %t.fwb
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=conv2d --case=conv2d --arg-shapes="2x18x18x4;3x3x4x8" --tmp=%t

func.func @conv2d(%x: tensor<2x18x18x4xf32>, %w: tensor<3x3x4x8xf32>) -> tensor<2x16x16x8xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<2x16x16x8xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<2x16x16x8xf32>) -> tensor<2x16x16x8xf32>
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<2x18x18x4xf32>, tensor<3x3x4x8xf32>)
      outs(%acc : tensor<2x16x16x8xf32>) -> tensor<2x16x16x8xf32>
  return %r : tensor<2x16x16x8xf32>
}
