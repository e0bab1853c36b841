// conv_2d_nhwc_hwcf, stride 2, no padding: 1x17x17x3 * 3x3x3x8 -> 1x8x8x8.
// RUN: %fwc %s -o %t.fwb
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=conv2d_stride2 --case=conv2d_stride2 --arg-shapes="1x17x17x3;3x3x3x8" --tmp=%t

func.func @conv2d_stride2(%x: tensor<1x17x17x3xf32>, %w: tensor<3x3x3x8xf32>) -> tensor<1x8x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<1x8x8x8xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x, %w : tensor<1x17x17x3xf32>, tensor<3x3x3x8xf32>)
      outs(%acc : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  return %r : tensor<1x8x8x8xf32>
}
