// One attention head over a dynamic sequence of 256-wide embeddings:
//   q = x @ wq;  k = x @ wk;  v = x @ wv            [S, 64]
//   a = softmax(q @ k^T / 8)                         [S, S], row-wise
//   o = (a @ v) @ wo + x                             [S, 256], with the residual
//
//   fwc examples/attention.mlir -o attention.fwb
//   fw-run attention.fwb --default-dim=256 --benchmark=20

#id2 = affine_map<(i, j) -> (i, j)>
#rowv = affine_map<(i, j) -> (i)>

func.func @main(%x: tensor<?x256xf32>, %wq: tensor<256x64xf32>, %wk: tensor<256x64xf32>,
                %wv: tensor<256x64xf32>, %wo: tensor<64x256xf32>) -> tensor<?x256xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant -3.40282347e+38 : f32
  %scale = arith.constant 0.125 : f32
  %s = tensor.dim %x, %c0 : tensor<?x256xf32>

  %eh = tensor.empty(%s) : tensor<?x64xf32>
  %zh = linalg.fill ins(%zero : f32) outs(%eh : tensor<?x64xf32>) -> tensor<?x64xf32>
  %q = linalg.matmul ins(%x, %wq : tensor<?x256xf32>, tensor<256x64xf32>) outs(%zh : tensor<?x64xf32>) -> tensor<?x64xf32>
  %k = linalg.matmul ins(%x, %wk : tensor<?x256xf32>, tensor<256x64xf32>) outs(%zh : tensor<?x64xf32>) -> tensor<?x64xf32>
  %v = linalg.matmul ins(%x, %wv : tensor<?x256xf32>, tensor<256x64xf32>) outs(%zh : tensor<?x64xf32>) -> tensor<?x64xf32>

  // Scores, scaled.
  %es = tensor.empty(%s, %s) : tensor<?x?xf32>
  %zs = linalg.fill ins(%zero : f32) outs(%es : tensor<?x?xf32>) -> tensor<?x?xf32>
  %qk = linalg.matmul indexing_maps = [affine_map<(m, n, d) -> (m, d)>,
                                       affine_map<(m, n, d) -> (n, d)>,
                                       affine_map<(m, n, d) -> (m, n)>]
      ins(%q, %k : tensor<?x64xf32>, tensor<?x64xf32>) outs(%zs : tensor<?x?xf32>) -> tensor<?x?xf32>
  %scaled = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%qk : tensor<?x?xf32>) outs(%es : tensor<?x?xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %scale : f32
    linalg.yield %m : f32
  } -> tensor<?x?xf32>

  // Softmax over each row.
  %er = tensor.empty(%s) : tensor<?xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%er : tensor<?xf32>) -> tensor<?xf32>
  %max = linalg.generic {indexing_maps = [#id2, #rowv], iterator_types = ["parallel", "reduction"]}
      ins(%scaled : tensor<?x?xf32>) outs(%mi : tensor<?xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %m = arith.maximumf %a, %acc : f32
    linalg.yield %m : f32
  } -> tensor<?xf32>
  %ex = linalg.generic {indexing_maps = [#id2, #rowv, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%scaled, %max : tensor<?x?xf32>, tensor<?xf32>) outs(%es : tensor<?x?xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %e = math.exp %d : f32
    linalg.yield %e : f32
  } -> tensor<?x?xf32>
  %zr = linalg.fill ins(%zero : f32) outs(%er : tensor<?xf32>) -> tensor<?xf32>
  %sum = linalg.generic {indexing_maps = [#id2, #rowv], iterator_types = ["parallel", "reduction"]}
      ins(%ex : tensor<?x?xf32>) outs(%zr : tensor<?xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %t = arith.addf %a, %acc : f32
    linalg.yield %t : f32
  } -> tensor<?xf32>
  %p = linalg.generic {indexing_maps = [#id2, #rowv, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%ex, %sum : tensor<?x?xf32>, tensor<?xf32>) outs(%es : tensor<?x?xf32>) {
  ^bb0(%a: f32, %t: f32, %o: f32):
    %d = arith.divf %a, %t : f32
    linalg.yield %d : f32
  } -> tensor<?x?xf32>

  // Weighted values, output projection and residual.
  %ctx = linalg.matmul ins(%p, %v : tensor<?x?xf32>, tensor<?x64xf32>) outs(%zh : tensor<?x64xf32>) -> tensor<?x64xf32>
  %eo = tensor.empty(%s) : tensor<?x256xf32>
  %zo = linalg.fill ins(%zero : f32) outs(%eo : tensor<?x256xf32>) -> tensor<?x256xf32>
  %proj = linalg.matmul ins(%ctx, %wo : tensor<?x64xf32>, tensor<64x256xf32>) outs(%zo : tensor<?x256xf32>) -> tensor<?x256xf32>
  %o = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%proj, %x : tensor<?x256xf32>, tensor<?x256xf32>) outs(%eo : tensor<?x256xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %t = arith.addf %a, %b : f32
    linalg.yield %t : f32
  } -> tensor<?x256xf32>
  return %o : tensor<?x256xf32>
}
