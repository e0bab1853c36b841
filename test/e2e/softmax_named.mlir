// The named linalg.softmax op over the last axis, with the batch size known only at run time
// (including batch 1 and batch 0).
// RUN: %fwc %s -o %t.fwb
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=softmax_named --case=softmax_named --arg-shapes="8x16" --tmp=%t
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=softmax_named --case=softmax_named --arg-shapes="1x16" --tmp=%t
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=softmax_named --case=softmax_named --arg-shapes="0x16" --tmp=%t

func.func @softmax_named(%x: tensor<?x16xf32>) -> tensor<?x16xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x16xf32>
  %init = tensor.empty(%n) : tensor<?x16xf32>
  %r = linalg.softmax dimension(1) ins(%x : tensor<?x16xf32>) outs(%init : tensor<?x16xf32>) -> tensor<?x16xf32>
  return %r : tensor<?x16xf32>
}
