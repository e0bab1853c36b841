// Case 4a: softmax over the rows of a 4096x1024 f32 matrix, written as four
// linalg.generic ops (max-reduce, sub + exp, sum-reduce, divide), and the same
// with the named op linalg.softmax.
// Reference: a plain C loop per row (max, exp + sum, divide).

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

func.func @softmax(%x: tensor<4096x1024xf32>) -> tensor<4096x1024xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32

  %m0 = tensor.empty() : tensor<4096xf32>
  %m1 = linalg.fill ins(%ninf : f32) outs(%m0 : tensor<4096xf32>) -> tensor<4096xf32>
  %max = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4096x1024xf32>) outs(%m1 : tensor<4096xf32>) {
  ^bb0(%v: f32, %a: f32):
    %r = arith.maximumf %v, %a : f32
    linalg.yield %r : f32
  } -> tensor<4096xf32>

  %e0 = tensor.empty() : tensor<4096x1024xf32>
  %exp = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %max : tensor<4096x1024xf32>, tensor<4096xf32>) outs(%e0 : tensor<4096x1024xf32>) {
  ^bb0(%v: f32, %mx: f32, %o: f32):
    %d = arith.subf %v, %mx : f32
    %e = math.exp %d : f32
    linalg.yield %e : f32
  } -> tensor<4096x1024xf32>

  %s0 = tensor.empty() : tensor<4096xf32>
  %s1 = linalg.fill ins(%zero : f32) outs(%s0 : tensor<4096xf32>) -> tensor<4096xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%exp : tensor<4096x1024xf32>) outs(%s1 : tensor<4096xf32>) {
  ^bb0(%v: f32, %a: f32):
    %r = arith.addf %v, %a : f32
    linalg.yield %r : f32
  } -> tensor<4096xf32>

  %o0 = tensor.empty() : tensor<4096x1024xf32>
  %out = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%exp, %sum : tensor<4096x1024xf32>, tensor<4096xf32>) outs(%o0 : tensor<4096x1024xf32>) {
  ^bb0(%e: f32, %s: f32, %o: f32):
    %q = arith.divf %e, %s : f32
    linalg.yield %q : f32
  } -> tensor<4096x1024xf32>
  return %out : tensor<4096x1024xf32>
}

func.func @softmax_named(%x: tensor<4096x1024xf32>) -> tensor<4096x1024xf32> {
  %init = tensor.empty() : tensor<4096x1024xf32>
  %r = linalg.softmax dimension(1) ins(%x : tensor<4096x1024xf32>)
                                   outs(%init : tensor<4096x1024xf32>) -> tensor<4096x1024xf32>
  return %r : tensor<4096x1024xf32>
}
