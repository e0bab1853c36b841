// pooling_nhwc_max, 2x2 window, stride 2: 2x16x16x4 -> 2x8x8x4.
// RUN: %fwc %s -o %t.fwb
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=pooling_max --case=pooling_max --arg-shapes="2x16x16x4" --tmp=%t

func.func @pooling_max(%x: tensor<2x16x16x4xf32>) -> tensor<2x8x8x4xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %window = tensor.empty() : tensor<2x2xf32>
  %init = tensor.empty() : tensor<2x8x8x4xf32>
  %acc = linalg.fill ins(%ninf : f32) outs(%init : tensor<2x8x8x4xf32>) -> tensor<2x8x8x4xf32>
  %r = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x, %window : tensor<2x16x16x4xf32>, tensor<2x2xf32>)
      outs(%acc : tensor<2x8x8x4xf32>) -> tensor<2x8x8x4xf32>
  return %r : tensor<2x8x8x4xf32>
}
