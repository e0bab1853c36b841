// The packed, register-tiled GEMM (fw-cpu-matmul) on shapes that cross every
// block boundary and leave partial register tiles: 530 rows (> mc = 126 for
// x86-64-v3, 504 for v4), 601 reduction steps (> kc = 512 and 256; not a
// multiple of the 8 steps transposed at once), 2100 columns (> nc = 2048),
// none a multiple of the 6 x 16 (v3) or 12 x 32 (v4) tile. Also transposed
// operands, a batch, dynamic sizes and accumulation into a nonzero C.
// RUN: %fwc %s --targets=x86-64-v3 -o %t.v3.fwb
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.v3.fwb --function=edges --case=matmul --arg-shapes="530x601;601x2100" --tmp=%t
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.v3.fwb --function=transpose_b --case=matmul_transpose_b --arg-shapes="37x29;45x29" --tmp=%t
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.v3.fwb --function=transpose_a --case=matmul_transpose_a --arg-shapes="29x37;29x45" --tmp=%t
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.v3.fwb --function=batched --case=batch_matmul --arg-shapes="3x17x33;3x33x19" --tmp=%t
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.v3.fwb --function=dynamic --case=matmul --arg-shapes="1x1;1x1" --tmp=%t
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.v3.fwb --function=dynamic --case=matmul --arg-shapes="7x700;700x17" --tmp=%t
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.v3.fwb --function=accumulate --case=matmul_accumulate --arg-shapes="50x70;70x40;50x40" --tmp=%t
// RUN: %if avx512 %{ %fwc %s --targets=x86-64-v4 -o %t.v4.fwb %}
// RUN: %if avx512 %{ %python %S/e2e.py --fw-run=%fw-run --module=%t.v4.fwb --function=edges --case=matmul --arg-shapes="530x601;601x2100" --tmp=%t %}
// RUN: %if avx512 %{ %python %S/e2e.py --fw-run=%fw-run --module=%t.v4.fwb --function=transpose_b --case=matmul_transpose_b --arg-shapes="37x29;45x29" --tmp=%t %}
// RUN: %if avx512 %{ %python %S/e2e.py --fw-run=%fw-run --module=%t.v4.fwb --function=transpose_a --case=matmul_transpose_a --arg-shapes="29x37;29x45" --tmp=%t %}
// RUN: %if avx512 %{ %python %S/e2e.py --fw-run=%fw-run --module=%t.v4.fwb --function=dynamic --case=matmul --arg-shapes="33x1030;1030x65" --tmp=%t %}

#mk = affine_map<(m, n, k) -> (m, k)>
#km = affine_map<(m, n, k) -> (k, m)>
#kn = affine_map<(m, n, k) -> (k, n)>
#nk = affine_map<(m, n, k) -> (n, k)>
#mn = affine_map<(m, n, k) -> (m, n)>

func.func @edges(%a: tensor<530x601xf32>, %b: tensor<601x2100xf32>) -> tensor<530x2100xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<530x2100xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<530x2100xf32>) -> tensor<530x2100xf32>
  %c = linalg.matmul ins(%a, %b : tensor<530x601xf32>, tensor<601x2100xf32>)
                     outs(%acc : tensor<530x2100xf32>) -> tensor<530x2100xf32>
  return %c : tensor<530x2100xf32>
}

func.func @transpose_b(%a: tensor<37x29xf32>, %b: tensor<45x29xf32>) -> tensor<37x45xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<37x45xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<37x45xf32>) -> tensor<37x45xf32>
  %c = linalg.matmul indexing_maps = [#mk, #nk, #mn]
                     ins(%a, %b : tensor<37x29xf32>, tensor<45x29xf32>)
                     outs(%acc : tensor<37x45xf32>) -> tensor<37x45xf32>
  return %c : tensor<37x45xf32>
}

// The same contraction as a linalg.generic.
func.func @transpose_a(%a: tensor<29x37xf32>, %b: tensor<29x45xf32>) -> tensor<37x45xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<37x45xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<37x45xf32>) -> tensor<37x45xf32>
  %c = linalg.generic {indexing_maps = [#km, #kn, #mn],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<29x37xf32>, tensor<29x45xf32>) outs(%acc : tensor<37x45xf32>) {
  ^bb0(%x: f32, %y: f32, %s: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %s, %p : f32
    linalg.yield %r : f32
  } -> tensor<37x45xf32>
  return %c : tensor<37x45xf32>
}

func.func @batched(%a: tensor<3x17x33xf32>, %b: tensor<3x33x19xf32>) -> tensor<3x17x19xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<3x17x19xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<3x17x19xf32>) -> tensor<3x17x19xf32>
  %c = linalg.batch_matmul ins(%a, %b : tensor<3x17x33xf32>, tensor<3x33x19xf32>)
                           outs(%acc : tensor<3x17x19xf32>) -> tensor<3x17x19xf32>
  return %c : tensor<3x17x19xf32>
}

func.func @dynamic(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %m = tensor.dim %a, %c0 : tensor<?x?xf32>
  %n = tensor.dim %b, %c1 : tensor<?x?xf32>
  %init = tensor.empty(%m, %n) : tensor<?x?xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<?x?xf32>) -> tensor<?x?xf32>
  %c = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>)
                     outs(%acc : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %c : tensor<?x?xf32>
}

func.func @accumulate(%a: tensor<50x70xf32>, %b: tensor<70x40xf32>, %c: tensor<50x40xf32>) -> tensor<50x40xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<50x70xf32>, tensor<70x40xf32>)
                     outs(%c : tensor<50x40xf32>) -> tensor<50x40xf32>
  return %r : tensor<50x40xf32>
}
