// Matmul whose M is known only at run time; run with two different M.
// RUN: %fwc %s -o %t.fwb
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=matmul_dynamic --case=matmul_dynamic --arg-shapes="5x128;128x32" --tmp=%t
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=matmul_dynamic --case=matmul_dynamic --arg-shapes="77x128;128x32" --tmp=%t
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=matmul_dynamic --case=matmul_dynamic --arg-shapes="1x128;128x32" --tmp=%t

func.func @matmul_dynamic(%a: tensor<?x128xf32>, %b: tensor<128x32xf32>) -> tensor<?x32xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %m = tensor.dim %a, %c0 : tensor<?x128xf32>
  %init = tensor.empty(%m) : tensor<?x32xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<?x32xf32>) -> tensor<?x32xf32>
  %c = linalg.matmul ins(%a, %b : tensor<?x128xf32>, tensor<128x32xf32>)
                     outs(%acc : tensor<?x32xf32>) -> tensor<?x32xf32>
  return %c : tensor<?x32xf32>
}
