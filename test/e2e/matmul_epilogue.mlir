// A matmul whose fill and elementwise epilogue fw-cpu-matmul folds into the
// micro-kernel: a column bias, a row bias, ReLU, tanh, a scale and a residual
// input, on shapes with partial tiles, several blocks of reduction steps, a
// single row, and no reduction steps at all (K = 0: the result is the
// epilogue applied to the fill value).
// RUN: %fwc %s --targets=x86-64-v3 -o %t.v3.fwb
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.v3.fwb --function=fused --case=matmul_epilogue --arg-shapes="37x1100;1100x45;45;37;37x45" --tmp=%t
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.v3.fwb --function=fused --case=matmul_epilogue --arg-shapes="1x3;3x70;70;1;1x70" --tmp=%t
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.v3.fwb --function=fused --case=matmul_epilogue --arg-shapes="5x0;0x9;9;5;5x9" --tmp=%t
// RUN: %if avx512 %{ %fwc %s --targets=x86-64-v4 -o %t.v4.fwb %}
// RUN: %if avx512 %{ %python %S/e2e.py --fw-run=%fw-run --module=%t.v4.fwb --function=fused --case=matmul_epilogue --arg-shapes="530x300;300x70;70;530;530x70" --tmp=%t %}
// RUN: %if avx512 %{ %python %S/e2e.py --fw-run=%fw-run --module=%t.v4.fwb --function=fused --case=matmul_epilogue --arg-shapes="5x0;0x9;9;5;5x9" --tmp=%t %}

#id = affine_map<(m, n) -> (m, n)>
#col = affine_map<(m, n) -> (n)>
#row = affine_map<(m, n) -> (m)>

func.func @fused(%x: tensor<?x?xf32>, %w: tensor<?x?xf32>, %bcol: tensor<?xf32>,
                 %brow: tensor<?xf32>, %res: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  %m = tensor.dim %x, %c0 : tensor<?x?xf32>
  %n = tensor.dim %w, %c1 : tensor<?x?xf32>
  %init = tensor.empty(%m, %n) : tensor<?x?xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<?x?xf32>) -> tensor<?x?xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<?x?xf32>, tensor<?x?xf32>)
                      outs(%acc : tensor<?x?xf32>) -> tensor<?x?xf32>
  %out = tensor.empty(%m, %n) : tensor<?x?xf32>
  %r = linalg.generic {indexing_maps = [#id, #col, #row, #id, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bcol, %brow, %res : tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?x?xf32>)
      outs(%out : tensor<?x?xf32>) {
  ^bb0(%v: f32, %bc: f32, %br: f32, %rs: f32, %o: f32):
    %s = arith.addf %v, %bc : f32
    %t = arith.addf %s, %br : f32
    %u = arith.maximumf %t, %zero : f32
    %th = math.tanh %u : f32
    %h = arith.mulf %th, %half : f32
    %y = arith.addf %h, %rs : f32
    linalg.yield %y : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
