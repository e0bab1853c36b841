// A kernel that divides its work among workgroups and that the device model expects to
// take 5 us or more is run both whole and divided over its first calls, and from then on
// the faster way; --stats prints the choice and the fastest run of each way the choice
// compared.
// Without autotuning, or with one CPU worker, nothing is measured (the model divides).
// RUN: %fwc %s --module-name=dv -o %t.fwb
// RUN: %fw-run %t.fwb --workers=2 --benchmark=30 --stats --print-max-elements=0 | FileCheck %s
// CHECK: CPU kernels run whole or divided among the workers (size class: bytes the calls access; the fastest run of each way the choice compared):
// CHECK-NEXT: @main_dispatch_0 ({{[0-9.]+}} KiB+): {{whole|divided}} (whole {{[0-9.]+ (us|ms)}}, divided {{[0-9.]+ (us|ms)}})
// RUN: env FW_AUTOTUNE=0 %fw-run %t.fwb --workers=2 --benchmark=30 --stats --print-max-elements=0 | FileCheck %s --check-prefix=NONE
// RUN: %fw-run %t.fwb --workers=1 --benchmark=30 --stats --print-max-elements=0 | FileCheck %s --check-prefix=NONE
// NONE: stats: scheduler
// NONE-NOT: whole or divided

func.func @main(%a: tensor<4x784xf32>, %b: tensor<784x256xf32>) -> tensor<4x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x256xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<4x256xf32>) -> tensor<4x256xf32>
  %c = linalg.matmul ins(%a, %b : tensor<4x784xf32>, tensor<784x256xf32>)
                     outs(%acc : tensor<4x256xf32>) -> tensor<4x256xf32>
  return %c : tensor<4x256xf32>
}
