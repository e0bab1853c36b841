// pooling_nhwc_sum (2x2 window, stride 2, dynamic batch) and pooling_nchw_max (3x3 window,
// stride 3) in one module.
// RUN: %fwc %s -o %t.fwb
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=pooling_nhwc_sum --case=pooling_nhwc_sum --arg-shapes="2x8x8x3" --tmp=%t
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=pooling_nhwc_sum --case=pooling_nhwc_sum --arg-shapes="1x8x8x3" --tmp=%t
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=pooling_nhwc_sum --case=pooling_nhwc_sum --arg-shapes="0x8x8x3" --tmp=%t
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=pooling_nchw_max --case=pooling_nchw_max --arg-shapes="2x3x9x9" --tmp=%t

func.func @pooling_nhwc_sum(%x: tensor<?x8x8x3xf32>) -> tensor<?x4x4x3xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?x8x8x3xf32>
  %window = tensor.empty() : tensor<2x2xf32>
  %init = tensor.empty(%n) : tensor<?x4x4x3xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<?x4x4x3xf32>) -> tensor<?x4x4x3xf32>
  %r = linalg.pooling_nhwc_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x, %window : tensor<?x8x8x3xf32>, tensor<2x2xf32>)
      outs(%acc : tensor<?x4x4x3xf32>) -> tensor<?x4x4x3xf32>
  return %r : tensor<?x4x4x3xf32>
}

func.func @pooling_nchw_max(%x: tensor<2x3x9x9xf32>) -> tensor<2x3x3x3xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %window = tensor.empty() : tensor<3x3xf32>
  %init = tensor.empty() : tensor<2x3x3x3xf32>
  %acc = linalg.fill ins(%ninf : f32) outs(%init : tensor<2x3x3x3xf32>) -> tensor<2x3x3x3xf32>
  %r = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<3> : tensor<2xi64>}
      ins(%x, %window : tensor<2x3x9x9xf32>, tensor<3x3xf32>)
      outs(%acc : tensor<2x3x3x3xf32>) -> tensor<2x3x3x3xf32>
  return %r : tensor<2x3x3x3xf32>
}
