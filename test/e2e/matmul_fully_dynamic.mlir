// Matmul with M, K and N all dynamic, including empty M and empty K (the result is then all
// zeros), and a K mismatch that must be a run-time error.
// RUN: %fwc %s -o %t.fwb
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=matmul_fully_dynamic --case=matmul_fully_dynamic --arg-shapes="7x13;13x5" --tmp=%t
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=matmul_fully_dynamic --case=matmul_fully_dynamic --arg-shapes="64x100;100x33" --tmp=%t
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=matmul_fully_dynamic --case=matmul_fully_dynamic --arg-shapes="1x1;1x1" --tmp=%t
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=matmul_fully_dynamic --case=matmul_fully_dynamic --arg-shapes="0x13;13x5" --tmp=%t
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=matmul_fully_dynamic --case=matmul_fully_dynamic --arg-shapes="3x0;0x5" --tmp=%t
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=matmul_fully_dynamic --arg-shapes="3x4;5x5" --expect-error="must be equal" --tmp=%t

func.func @matmul_fully_dynamic(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
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
