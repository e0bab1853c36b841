// The last task (exp) reads the softmax result for the last time and is elementwise, so
// fw-reuse-buffers has it write its result into that buffer; same answers, also with
// several workers (the kernel is divided among workgroups) and at -O0 (no in-place).
// RUN: %fwc %s -O3 --stats -o %t.fwb 2>&1 | FileCheck %s
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=f --case=softmax_of_product_exp --arg-shapes="300x70;300x70" --tmp=%t
// RUN: env FW_NUM_WORKERS=3 %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=f --case=softmax_of_product_exp --arg-shapes="1000x257;1000x257" --tmp=%t
// CHECK: remark: allocated buffers: {{.*}} (0 reused, 1 updated in place

func.func @f(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %a, %c0 : tensor<?x?xf32>
  %n = tensor.dim %a, %c1 : tensor<?x?xf32>
  %x = arith.mulf %a, %b : tensor<?x?xf32>
  %s = tensor.empty(%m, %n) : tensor<?x?xf32>
  %y = linalg.softmax dimension(1) ins(%x : tensor<?x?xf32>) outs(%s : tensor<?x?xf32>) -> tensor<?x?xf32>
  %z = math.exp %y : tensor<?x?xf32>
  return %z : tensor<?x?xf32>
}
