// A small convolutional network on a dynamic batch of 32x32 images with 8 channels (NHWC):
//   c1 = relu(conv3x3(x, k1) + b1)         8 -> 32 channels, 30x30
//   c2 = relu(conv3x3(c1, k2) + b2)       32 -> 32 channels, 28x28
//   p  = mean over the 28x28 pixels        -> [N, 32]
//   y  = p @ w + bw                        -> [N, 10]
//
//   fwc examples/convnet.mlir -o convnet.fwb
//   fw-run convnet.fwb --default-dim=8 --benchmark=20

#id4 = affine_map<(n, h, w, c) -> (n, h, w, c)>
#chan = affine_map<(n, h, w, c) -> (c)>
#row = affine_map<(n, c) -> (c)>
#id2 = affine_map<(n, c) -> (n, c)>

func.func @main(%x: tensor<?x32x32x8xf32>, %k1: tensor<3x3x8x32xf32>, %b1: tensor<32xf32>,
                %k2: tensor<3x3x32x32xf32>, %b2: tensor<32xf32>,
                %w: tensor<32x10xf32>, %bw: tensor<10xf32>) -> tensor<?x10xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?x32x32x8xf32>

  %e1 = tensor.empty(%n) : tensor<?x30x30x32xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<?x30x30x32xf32>) -> tensor<?x30x30x32xf32>
  %conv1 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %k1 : tensor<?x32x32x8xf32>, tensor<3x3x8x32xf32>)
      outs(%z1 : tensor<?x30x30x32xf32>) -> tensor<?x30x30x32xf32>
  %r1 = linalg.generic {indexing_maps = [#id4, #chan, #id4],
                        iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%conv1, %b1 : tensor<?x30x30x32xf32>, tensor<32xf32>) outs(%e1 : tensor<?x30x30x32xf32>) {
  ^bb0(%v: f32, %b: f32, %o: f32):
    %s = arith.addf %v, %b : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<?x30x30x32xf32>

  %e2 = tensor.empty(%n) : tensor<?x28x28x32xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<?x28x28x32xf32>) -> tensor<?x28x28x32xf32>
  %conv2 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%r1, %k2 : tensor<?x30x30x32xf32>, tensor<3x3x32x32xf32>)
      outs(%z2 : tensor<?x28x28x32xf32>) -> tensor<?x28x28x32xf32>
  %r2 = linalg.generic {indexing_maps = [#id4, #chan, #id4],
                        iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%conv2, %b2 : tensor<?x28x28x32xf32>, tensor<32xf32>) outs(%e2 : tensor<?x28x28x32xf32>) {
  ^bb0(%v: f32, %b: f32, %o: f32):
    %s = arith.addf %v, %b : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<?x28x28x32xf32>

  // Global average pooling: sum over the pixels, then scale.
  %ep = tensor.empty(%n) : tensor<?x32xf32>
  %zp = linalg.fill ins(%zero : f32) outs(%ep : tensor<?x32xf32>) -> tensor<?x32xf32>
  %sum = linalg.reduce ins(%r2 : tensor<?x28x28x32xf32>) outs(%zp : tensor<?x32xf32>) dimensions = [1, 2]
    (%v: f32, %acc: f32) {
      %s = arith.addf %v, %acc : f32
      linalg.yield %s : f32
    }
  %inv = arith.constant 0.0012755102 : f32  // 1 / (28 * 28)
  %mean = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%sum : tensor<?x32xf32>) outs(%ep : tensor<?x32xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.mulf %v, %inv : f32
    linalg.yield %m : f32
  } -> tensor<?x32xf32>

  %ey = tensor.empty(%n) : tensor<?x10xf32>
  %zy = linalg.fill ins(%zero : f32) outs(%ey : tensor<?x10xf32>) -> tensor<?x10xf32>
  %logits = linalg.matmul ins(%mean, %w : tensor<?x32xf32>, tensor<32x10xf32>)
                          outs(%zy : tensor<?x10xf32>) -> tensor<?x10xf32>
  %y = linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%logits, %bw : tensor<?x10xf32>, tensor<10xf32>) outs(%ey : tensor<?x10xf32>) {
  ^bb0(%v: f32, %b: f32, %o: f32):
    %s = arith.addf %v, %b : f32
    linalg.yield %s : f32
  } -> tensor<?x10xf32>
  return %y : tensor<?x10xf32>
}
