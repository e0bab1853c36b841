// Case 3: a chain of 8 elementwise ops on 16M f32:
//   out = max(tanh(exp(a * b + c) - a), 0) * b + 1
// @chain writes each op as its own linalg.generic (scalar constants inside the
// bodies); @chain_arith writes the same ops as arith/math on tensors, with the
// constants 0 and 1 as splat tensors (fwc turns those into linalg.fill).
// References: the same expression as one fused Eigen array expression, and as
// 8 separate loops in plain C (8 passes over memory).
// Keep the two functions in sync.

#id = affine_map<(d0) -> (d0)>

func.func @chain(%a: tensor<16777216xf32>, %b: tensor<16777216xf32>, %c: tensor<16777216xf32>) -> tensor<16777216xf32> {
  %t1_init = tensor.empty() : tensor<16777216xf32>
  %t1 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<16777216xf32>, tensor<16777216xf32>) outs(%t1_init : tensor<16777216xf32>) {
  ^bb0(%x0: f32, %x1: f32, %o: f32):
    %r = arith.mulf %x0, %x1 : f32
    linalg.yield %r : f32
  } -> tensor<16777216xf32>
  %t2_init = tensor.empty() : tensor<16777216xf32>
  %t2 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%t1, %c : tensor<16777216xf32>, tensor<16777216xf32>) outs(%t2_init : tensor<16777216xf32>) {
  ^bb0(%x0: f32, %x1: f32, %o: f32):
    %r = arith.addf %x0, %x1 : f32
    linalg.yield %r : f32
  } -> tensor<16777216xf32>
  %t3_init = tensor.empty() : tensor<16777216xf32>
  %t3 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%t2 : tensor<16777216xf32>) outs(%t3_init : tensor<16777216xf32>) {
  ^bb0(%x0: f32, %o: f32):
    %r = math.exp %x0 : f32
    linalg.yield %r : f32
  } -> tensor<16777216xf32>
  %t4_init = tensor.empty() : tensor<16777216xf32>
  %t4 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%t3, %a : tensor<16777216xf32>, tensor<16777216xf32>) outs(%t4_init : tensor<16777216xf32>) {
  ^bb0(%x0: f32, %x1: f32, %o: f32):
    %r = arith.subf %x0, %x1 : f32
    linalg.yield %r : f32
  } -> tensor<16777216xf32>
  %t5_init = tensor.empty() : tensor<16777216xf32>
  %t5 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%t4 : tensor<16777216xf32>) outs(%t5_init : tensor<16777216xf32>) {
  ^bb0(%x0: f32, %o: f32):
    %r = math.tanh %x0 : f32
    linalg.yield %r : f32
  } -> tensor<16777216xf32>
  %t6_init = tensor.empty() : tensor<16777216xf32>
  %t6 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%t5 : tensor<16777216xf32>) outs(%t6_init : tensor<16777216xf32>) {
  ^bb0(%x0: f32, %o: f32):
    %zero = arith.constant 0.0 : f32
    %r = arith.maximumf %x0, %zero : f32
    linalg.yield %r : f32
  } -> tensor<16777216xf32>
  %t7_init = tensor.empty() : tensor<16777216xf32>
  %t7 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%t6, %b : tensor<16777216xf32>, tensor<16777216xf32>) outs(%t7_init : tensor<16777216xf32>) {
  ^bb0(%x0: f32, %x1: f32, %o: f32):
    %r = arith.mulf %x0, %x1 : f32
    linalg.yield %r : f32
  } -> tensor<16777216xf32>
  %t8_init = tensor.empty() : tensor<16777216xf32>
  %t8 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%t7 : tensor<16777216xf32>) outs(%t8_init : tensor<16777216xf32>) {
  ^bb0(%x0: f32, %o: f32):
    %one = arith.constant 1.0 : f32
    %r = arith.addf %x0, %one : f32
    linalg.yield %r : f32
  } -> tensor<16777216xf32>
  return %t8 : tensor<16777216xf32>
}

func.func @chain_arith(%a: tensor<16777216xf32>, %b: tensor<16777216xf32>, %c: tensor<16777216xf32>) -> tensor<16777216xf32> {
  %zero = arith.constant dense<0.0> : tensor<16777216xf32>
  %one = arith.constant dense<1.0> : tensor<16777216xf32>
  %t1 = arith.mulf %a, %b : tensor<16777216xf32>
  %t2 = arith.addf %t1, %c : tensor<16777216xf32>
  %t3 = math.exp %t2 : tensor<16777216xf32>
  %t4 = arith.subf %t3, %a : tensor<16777216xf32>
  %t5 = math.tanh %t4 : tensor<16777216xf32>
  %t6 = arith.maximumf %t5, %zero : tensor<16777216xf32>
  %t7 = arith.mulf %t6, %b : tensor<16777216xf32>
  %t8 = arith.addf %t7, %one : tensor<16777216xf32>
  return %t8 : tensor<16777216xf32>
}
