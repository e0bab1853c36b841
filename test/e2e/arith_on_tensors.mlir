// arith and math ops applied directly to tensors (no linalg): dynamic 2-D, rank 0, and
// arith.select with an i1 condition tensor.
// RUN: %fwc %s -o %t.fwb
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=tensor_arith --case=tensor_arith --arg-shapes="3x5;3x5" --tmp=%t
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=tensor_arith --case=tensor_arith --arg-shapes="1x1;1x1" --tmp=%t
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=tensor_arith --arg-shapes="3x5;3x4" --expect-error="must be equal" --tmp=%t
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=rank0_add --case=rank0_add --arg-shapes="scalar;scalar" --tmp=%t
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=select_i1 --case=select_i1 --arg-shapes="37;37;37" --tmp=%t

func.func @tensor_arith(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %half = arith.constant 0.5 : f32
  %s = arith.addf %a, %b : tensor<?x?xf32>
  %e = math.exp %s : tensor<?x?xf32>
  %p = arith.mulf %e, %a : tensor<?x?xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %b, %c0 : tensor<?x?xf32>
  %n = tensor.dim %b, %c1 : tensor<?x?xf32>
  %hb0 = tensor.empty(%m, %n) : tensor<?x?xf32>
  %hb1 = linalg.fill ins(%half : f32) outs(%hb0 : tensor<?x?xf32>) -> tensor<?x?xf32>
  %hb = arith.mulf %b, %hb1 : tensor<?x?xf32>
  %r = arith.subf %p, %hb : tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

func.func @rank0_add(%a: tensor<f32>, %b: tensor<f32>) -> tensor<f32> {
  %r = arith.addf %a, %b : tensor<f32>
  return %r : tensor<f32>
}

func.func @select_i1(%c: tensor<37xi1>, %a: tensor<37xi32>, %b: tensor<37xi32>) -> tensor<37xi32> {
  %r = arith.select %c, %a, %b : tensor<37xi1>, tensor<37xi32>
  return %r : tensor<37xi32>
}
