// Case 6: a ResNet-style 3x3 convolution layer with bias and ReLU, NHWC x HWCF, f32:
// relu(conv(x, w) + b) for x 1x58x58x64 (a 56x56 image with its one-pixel border),
// w 3x3x64x64. One fw function (one task).
// Reference: im2col into a 3136 x 576 matrix (plain C), cblas_sgemm, then a bias+ReLU loop.

#id = affine_map<(n, h, w, f) -> (n, h, w, f)>
#f = affine_map<(n, h, w, f) -> (f)>

func.func @conv_bias_relu(%x: tensor<1x58x58x64xf32>, %w: tensor<3x3x64x64xf32>,
                          %b: tensor<64xf32>) -> tensor<1x56x56x64xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<1x56x56x64xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<1x56x56x64xf32>) -> tensor<1x56x56x64xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
     ins(%x, %w : tensor<1x58x58x64xf32>, tensor<3x3x64x64xf32>) outs(%acc : tensor<1x56x56x64xf32>) -> tensor<1x56x56x64xf32>
  %out = tensor.empty() : tensor<1x56x56x64xf32>
  %r = linalg.generic {indexing_maps = [#id, #f, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c, %b : tensor<1x56x56x64xf32>, tensor<64xf32>) outs(%out : tensor<1x56x56x64xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %s = arith.addf %v, %bias : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x56x56x64xf32>
  return %r : tensor<1x56x56x64xf32>
}
