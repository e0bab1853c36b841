// Fusion across the input and task phases: a reduction with its elementwise
// producer (here a linalg.reduce of an exp) is one task, the exp computed
// inside the reduction's body; at -O0 they stay two tasks.
// RUN: %fwc %s --compile-to=tasks --emit=mlir -o - | FileCheck %s
// RUN: %fwc %s -O0 --compile-to=tasks --emit=mlir -o - | FileCheck %s --check-prefix=O0

// CHECK-LABEL: func.func @sum_exp
// CHECK: fw.task
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK: math.exp
// CHECK: arith.addf
// CHECK-NOT: fw.task
// O0-COUNT-2: fw.task
func.func @sum_exp(%x: tensor<64x128xf32>) -> tensor<64xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<64x128xf32>
  %e = linalg.exp ins(%x : tensor<64x128xf32>) outs(%e0 : tensor<64x128xf32>) -> tensor<64x128xf32>
  %i = tensor.empty() : tensor<64xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%i : tensor<64xf32>) -> tensor<64xf32>
  %s = linalg.reduce ins(%e : tensor<64x128xf32>) outs(%acc : tensor<64xf32>) dimensions = [1]
    (%a: f32, %b: f32) {
      %r = arith.addf %a, %b : f32
      linalg.yield %r : f32
    }
  return %s : tensor<64xf32>
}
