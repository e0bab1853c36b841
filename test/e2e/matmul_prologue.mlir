// Elementwise producers of a matmul's operands join its task and are computed while the
// operands are packed (fw-cpu-matmul): A scaled, B activated with an f16 input widened on
// the way. Partial tiles, several blocks of reduction steps, one row; and at -O0, where
// they stay separate tasks, the same answers.
// RUN: %fwc %s -O3 --targets=x86-64-v3 -o %t.v3.fwb
// RUN: %fw-run --list %t.v3.fwb | grep -c "^executable" | FileCheck %s
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.v3.fwb --function=prologues --case=matmul_prologues --arg-shapes="37x600;600x45;600x45" --tmp=%t
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.v3.fwb --function=prologues --case=matmul_prologues --arg-shapes="1x9;9x70;9x70" --tmp=%t
// RUN: %fwc %s -O0 --targets=x86-64-v3 -o %t.O0.fwb
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.O0.fwb --function=prologues --case=matmul_prologues --arg-shapes="37x600;600x45;600x45" --tmp=%t
// RUN: %if avx512 %{ %fwc %s --targets=x86-64-v4 -o %t.v4.fwb %}
// RUN: %if avx512 %{ %python %S/e2e.py --fw-run=%fw-run --module=%t.v4.fwb --function=prologues --case=matmul_prologues --arg-shapes="530x300;300x70;300x70" --tmp=%t %}

// One executable: the two prologues, the fill and the matmul.
// CHECK: {{^}}1{{$}}

#id = affine_map<(i, j) -> (i, j)>

func.func @prologues(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %h: tensor<?x?xf16>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  %m = tensor.dim %a, %c0 : tensor<?x?xf32>
  %k = tensor.dim %a, %c1 : tensor<?x?xf32>
  %n = tensor.dim %b, %c1 : tensor<?x?xf32>
  %ea = tensor.empty(%m, %k) : tensor<?x?xf32>
  %sa = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<?x?xf32>) outs(%ea : tensor<?x?xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.mulf %x, %half : f32
    linalg.yield %y : f32
  } -> tensor<?x?xf32>
  %eb = tensor.empty(%k, %n) : tensor<?x?xf32>
  %rb = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b, %h : tensor<?x?xf32>, tensor<?x?xf16>) outs(%eb : tensor<?x?xf32>) {
  ^bb0(%x: f32, %g: f16, %o: f32):
    %w = arith.extf %g : f16 to f32
    %s = arith.addf %x, %w : f32
    %y = arith.maximumf %s, %zero : f32
    linalg.yield %y : f32
  } -> tensor<?x?xf32>
  %init = tensor.empty(%m, %n) : tensor<?x?xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<?x?xf32>) -> tensor<?x?xf32>
  %c = linalg.matmul ins(%sa, %rb : tensor<?x?xf32>, tensor<?x?xf32>)
                     outs(%acc : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %c : tensor<?x?xf32>
}
