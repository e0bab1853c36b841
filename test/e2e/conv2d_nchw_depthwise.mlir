// linalg.conv_2d_nchw_fchw and linalg.depthwise_conv_2d_nhwc_hwc (stride 1, no padding).
// RUN: %fwc %s -o %t.fwb
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=conv2d_nchw_fchw --case=conv2d_nchw_fchw --arg-shapes="2x3x10x10;4x3x3x3" --tmp=%t
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=depthwise_conv2d --case=depthwise_conv2d --arg-shapes="1x10x10x6;3x3x6" --tmp=%t

func.func @conv2d_nchw_fchw(%x: tensor<2x3x10x10xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<2x4x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<2x4x8x8xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<2x3x10x10xf32>, tensor<4x3x3x3xf32>)
      outs(%acc : tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
  return %r : tensor<2x4x8x8xf32>
}

func.func @depthwise_conv2d(%x: tensor<1x10x10x6xf32>, %w: tensor<3x3x6xf32>) -> tensor<1x8x8x6xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<1x8x8x6xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<1x8x8x6xf32>) -> tensor<1x8x8x6xf32>
  %r = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x10x10x6xf32>, tensor<3x3x6xf32>)
      outs(%acc : tensor<1x8x8x6xf32>) -> tensor<1x8x8x6xf32>
  return %r : tensor<1x8x8x6xf32>
}
