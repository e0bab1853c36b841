// out = tanh(a*b + 1) * exp(-a) + sqrt(b) / (2 + log(b)), b (positive) broadcast over rows.
// RUN: %fwc %s -o %t.fwb
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=elementwise_broadcast --case=elementwise_broadcast --arg-shapes="13x256;256" --tmp=%t
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=elementwise_broadcast --case=elementwise_broadcast --arg-shapes="64x256;256" --tmp=%t

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>

func.func @elementwise_broadcast(%a: tensor<?x256xf32>, %b: tensor<256xf32>) -> tensor<?x256xf32> {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f32
  %n = tensor.dim %a, %c0 : tensor<?x256xf32>
  %init = tensor.empty(%n) : tensor<?x256xf32>
  %r = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<?x256xf32>, tensor<256xf32>) outs(%init : tensor<?x256xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %xy = arith.mulf %x, %y : f32
    %p = arith.addf %xy, %one : f32
    %t = math.tanh %p : f32
    %nx = arith.negf %x : f32
    %e = math.exp %nx : f32
    %te = arith.mulf %t, %e : f32
    %sq = math.sqrt %y : f32
    %lg = math.log %y : f32
    %den = arith.addf %two, %lg : f32
    %q = arith.divf %sq, %den : f32
    %v = arith.addf %te, %q : f32
    linalg.yield %v : f32
  } -> tensor<?x256xf32>
  return %r : tensor<?x256xf32>
}
