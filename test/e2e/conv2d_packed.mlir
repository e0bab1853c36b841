// Convolutions computed as a packed GEMM by fw-cpu-matmul (channel counts that are
// multiples of 8): the input is read through an implicit im2col while it is packed.
// Strides and dilations, partial register tiles (198 and 112 output pixels, 20 and 24
// filters), several blocks of reduction steps (K = 576), dynamic batch and image sizes.
// RUN: %fwc %s --targets=x86-64-v3 -o %t.v3.fwb
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.v3.fwb --function=conv_s1 --case=conv2d --arg-shapes="2x13x11x16;3x3x16x20" --tmp=%t
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.v3.fwb --function=conv_s21_d23 --case=conv2d_s21_d23 --arg-shapes="1x19x17x8;3x2x8x24" --tmp=%t
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.v3.fwb --function=conv_dynamic --case=conv2d --arg-shapes="2x30x20x64;3x3x64x40" --tmp=%t
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.v3.fwb --function=conv_dynamic --case=conv2d --arg-shapes="1x3x3x64;3x3x64x40" --tmp=%t
// RUN: %if avx512 %{ %fwc %s --targets=x86-64-v4 -o %t.v4.fwb %}
// RUN: %if avx512 %{ %python %S/e2e.py --fw-run=%fw-run --module=%t.v4.fwb --function=conv_s1 --case=conv2d --arg-shapes="2x13x11x16;3x3x16x20" --tmp=%t %}
// RUN: %if avx512 %{ %python %S/e2e.py --fw-run=%fw-run --module=%t.v4.fwb --function=conv_s21_d23 --case=conv2d_s21_d23 --arg-shapes="1x19x17x8;3x2x8x24" --tmp=%t %}
// RUN: %if avx512 %{ %python %S/e2e.py --fw-run=%fw-run --module=%t.v4.fwb --function=conv_dynamic --case=conv2d --arg-shapes="2x30x20x64;3x3x64x40" --tmp=%t %}

func.func @conv_s1(%x: tensor<2x13x11x16xf32>, %w: tensor<3x3x16x20xf32>) -> tensor<2x11x9x20xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<2x11x9x20xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<2x11x9x20xf32>) -> tensor<2x11x9x20xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
     ins(%x, %w : tensor<2x13x11x16xf32>, tensor<3x3x16x20xf32>) outs(%acc : tensor<2x11x9x20xf32>) -> tensor<2x11x9x20xf32>
  return %c : tensor<2x11x9x20xf32>
}

func.func @conv_s21_d23(%x: tensor<1x19x17x8xf32>, %w: tensor<3x2x8x24xf32>) -> tensor<1x8x14x24xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<1x8x14x24xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<1x8x14x24xf32>) -> tensor<1x8x14x24xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<[2, 3]> : tensor<2xi64>, strides = dense<[2, 1]> : tensor<2xi64>}
     ins(%x, %w : tensor<1x19x17x8xf32>, tensor<3x2x8x24xf32>) outs(%acc : tensor<1x8x14x24xf32>) -> tensor<1x8x14x24xf32>
  return %c : tensor<1x8x14x24xf32>
}

func.func @conv_dynamic(%x: tensor<?x?x?x64xf32>, %w: tensor<3x3x64x40xf32>) -> tensor<?x?x?x40xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?x?x?x64xf32>
  %h = tensor.dim %x, %c1 : tensor<?x?x?x64xf32>
  %wd = tensor.dim %x, %c2 : tensor<?x?x?x64xf32>
  %oh = arith.subi %h, %c2 : index
  %ow = arith.subi %wd, %c2 : index
  %init = tensor.empty(%n, %oh, %ow) : tensor<?x?x?x40xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<?x?x?x40xf32>) -> tensor<?x?x?x40xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
     ins(%x, %w : tensor<?x?x?x64xf32>, tensor<3x3x64x40xf32>) outs(%acc : tensor<?x?x?x40xf32>) -> tensor<?x?x?x40xf32>
  return %c : tensor<?x?x?x40xf32>
}

// With a bias and ReLU applied to the register tile (the staging output disappears) and a
// residual input indexed like the output.
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.v3.fwb --function=conv_bias_relu --case=conv2d_bias_relu_residual --arg-shapes="2x13x11x16;3x3x16x20;20;2x11x9x20" --tmp=%t
// RUN: %if avx512 %{ %python %S/e2e.py --fw-run=%fw-run --module=%t.v4.fwb --function=conv_bias_relu --case=conv2d_bias_relu_residual --arg-shapes="2x13x11x16;3x3x16x20;20;2x11x9x20" --tmp=%t %}
#id4 = affine_map<(n, h, w, f) -> (n, h, w, f)>
#f4 = affine_map<(n, h, w, f) -> (f)>
func.func @conv_bias_relu(%x: tensor<2x13x11x16xf32>, %w: tensor<3x3x16x20xf32>, %b: tensor<20xf32>,
                          %res: tensor<2x11x9x20xf32>) -> tensor<2x11x9x20xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<2x11x9x20xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<2x11x9x20xf32>) -> tensor<2x11x9x20xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
     ins(%x, %w : tensor<2x13x11x16xf32>, tensor<3x3x16x20xf32>) outs(%acc : tensor<2x11x9x20xf32>) -> tensor<2x11x9x20xf32>
  %out = tensor.empty() : tensor<2x11x9x20xf32>
  %r = linalg.generic {indexing_maps = [#id4, #f4, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c, %b, %res : tensor<2x11x9x20xf32>, tensor<20xf32>, tensor<2x11x9x20xf32>) outs(%out : tensor<2x11x9x20xf32>) {
  ^bb0(%v: f32, %bias: f32, %rs: f32, %o: f32):
    %s = arith.addf %v, %bias : f32
    %m = arith.maximumf %s, %zero : f32
    %y = arith.addf %m, %rs : f32
    linalg.yield %y : f32
  } -> tensor<2x11x9x20xf32>
  return %r : tensor<2x11x9x20xf32>
}
