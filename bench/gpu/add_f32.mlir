// GPU benchmark (scripts/gpu-check.sh): an elementwise add of two 64M-element f32 vectors
// (768 MiB moved per call), against the device's memory bandwidth.
func.func @add_f32(%a: tensor<67108864xf32>, %b: tensor<67108864xf32>) -> tensor<67108864xf32> {
  %r = arith.addf %a, %b : tensor<67108864xf32>
  return %r : tensor<67108864xf32>
}
