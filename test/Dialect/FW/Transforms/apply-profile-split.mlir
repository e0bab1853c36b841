// A task measured long that ran whole on one of several CPU workers (its kernel does
// not divide its work) splits along its operations: the contraction with its
// accumulator's fill and its epilogue, then the elementwise work that reads other
// tensors. Tasks whose runs were divided, short tasks and single operations stay.
// RUN: %fw-opt %s --pass-pipeline="builtin.module(fwc-pipeline{compile-to=tasks}, fw-apply-profile{profile=%S/Inputs/profile_split.json}, canonicalize, cse)" \
// RUN:   --remarks-filter="fw-profile" --remark-format=emitRemark 2>&1 | FileCheck %s
//
// With one CPU worker in the profile, whether a kernel divides is not known.
// RUN: %python -c "import json,sys; d=json.load(open(sys.argv[1])); d['cpu_workers']=1; json.dump(d, open(sys.argv[2], 'w'))" %S/Inputs/profile_split.json %t.one.json
// RUN: %fw-opt %s --pass-pipeline="builtin.module(fwc-pipeline{compile-to=tasks}, fw-apply-profile{profile=%t.one.json})" \
// RUN:   --remarks-filter="fw-profile" --remark-format=emitRemark 2>&1 | FileCheck %s --check-prefix=ONE
// ONE: remark: [Missed] SplitTask | Category:fw-profile | Function=main_dispatch_0 | Remark="task main_dispatch_0 ran for 500.0 us (above the 100.0 us threshold), but the profile had one CPU worker: whether its kernel divides its work is not known"
// ONE-NOT: Passed] SplitTask
//
// split-above-us=0 never splits.
// RUN: %fw-opt %s --pass-pipeline="builtin.module(fwc-pipeline{compile-to=tasks}, fw-apply-profile{profile=%S/Inputs/profile_split.json split-above-us=0})" \
// RUN:   --remarks-filter="fw-profile" --remark-format=emitRemark 2>&1 | FileCheck %s --check-prefix=NEVER
// NEVER-NOT: SplitTask
// NEVER-LABEL: func.func @main
// NEVER-COUNT-1: fw.task
// NEVER-NOT: fw.task
// NEVER: return

// CHECK: remark: [Passed] SplitTask | Category:fw-profile | Function=main_dispatch_0 | Remark="task main_dispatch_0 ran whole on one of 2 CPU workers for 500.0 us (above the 100.0 us threshold): split into 2 tasks (linalg.fill + linalg.matmul + linalg.generic | linalg.generic), for the CPU code to divide each among workers"
// CHECK: remark: [Missed] SplitTask | Category:fw-profile | Function=single_dispatch_0 | Remark="task single_dispatch_0 ran whole on one of 2 CPU workers for 300.0 us (above the 100.0 us threshold), but its operations make one part: nothing to split"
// CHECK-NOT: SplitTask

// The matmul part and the part that reads %o: the tanh of the product flows from one to
// the other, the dynamic size of its rows computed on the host.
// CHECK-LABEL: func.func @main
// CHECK: %[[ROWS:.*]] = tensor.dim %arg0, %c0
// CHECK: %[[T:.*]] = fw.task(%arg0, %arg1) : (tensor<?x64xf32>, tensor<64x32xf32>) -> tensor<?x32xf32> dims(%[[ROWS]])
// CHECK: linalg.fill
// CHECK: linalg.matmul
// CHECK: math.tanh
// CHECK: fw.yield
// CHECK: %[[J:.*]] = fw.task(%[[T]], %arg2) : (tensor<?x32xf32>, tensor<?x32xf32>) -> tensor<?x32xf32> dims(
// CHECK: arith.mulf
// CHECK: fw.yield
// CHECK: return %[[J]]
func.func @main(%x: tensor<?x64xf32>, %w: tensor<64x32xf32>, %o: tensor<?x32xf32>) -> tensor<?x32xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?x64xf32>
  %e = tensor.empty(%n) : tensor<?x32xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?x32xf32>) -> tensor<?x32xf32>
  %m = linalg.matmul ins(%x, %w : tensor<?x64xf32>, tensor<64x32xf32>) outs(%z : tensor<?x32xf32>) -> tensor<?x32xf32>
  %t = math.tanh %m : tensor<?x32xf32>
  %j = arith.mulf %t, %o : tensor<?x32xf32>
  return %j : tensor<?x32xf32>
}

// Divided among two workers when it ran: nothing to gain.
// CHECK-LABEL: func.func @divided
// CHECK-COUNT-1: fw.task
// CHECK-NOT: fw.task
// CHECK: return
func.func @divided(%x: tensor<?x64xf32>, %w: tensor<64x32xf32>, %o: tensor<?x32xf32>) -> tensor<?x32xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?x64xf32>
  %e = tensor.empty(%n) : tensor<?x32xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?x32xf32>) -> tensor<?x32xf32>
  %m = linalg.matmul ins(%x, %w : tensor<?x64xf32>, tensor<64x32xf32>) outs(%z : tensor<?x32xf32>) -> tensor<?x32xf32>
  %t = math.tanh %m : tensor<?x32xf32>
  %j = arith.mulf %t, %o : tensor<?x32xf32>
  return %j : tensor<?x32xf32>
}

// Below the threshold: a dispatch more would cost more than it could save.
// CHECK-LABEL: func.func @short
// CHECK-COUNT-1: fw.task
// CHECK-NOT: fw.task
// CHECK: return
func.func @short(%x: tensor<?x64xf32>, %w: tensor<64x32xf32>, %o: tensor<?x32xf32>) -> tensor<?x32xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?x64xf32>
  %e = tensor.empty(%n) : tensor<?x32xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?x32xf32>) -> tensor<?x32xf32>
  %m = linalg.matmul ins(%x, %w : tensor<?x64xf32>, tensor<64x32xf32>) outs(%z : tensor<?x32xf32>) -> tensor<?x32xf32>
  %t = math.tanh %m : tensor<?x32xf32>
  %j = arith.mulf %t, %o : tensor<?x32xf32>
  return %j : tensor<?x32xf32>
}

// One operation (a full reduction): nothing to split.
// CHECK-LABEL: func.func @single
// CHECK-COUNT-1: fw.task
// CHECK-NOT: fw.task
// CHECK: return
func.func @single(%x: tensor<?x64xf32>) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %s = linalg.reduce ins(%x : tensor<?x64xf32>) outs(%z : tensor<f32>) dimensions = [0, 1]
    (%a: f32, %acc: f32) {
      %r = arith.addf %a, %acc : f32
      linalg.yield %r : f32
    }
  return %s : tensor<f32>
}
