// fw-apply-profile: measured times land on the tasks, the fastest device
// kind becomes the placement hint, and tasks measured below the threshold
// merge into their only consumer. The profile is the input, so the decisions
// are deterministic.
// RUN: %fw-opt %s --pass-pipeline="builtin.module(fwc-pipeline{compile-to=tasks}, fw-apply-profile{profile=%S/Inputs/profile_small_tasks.json})" \
// RUN:   --remarks-filter="fw-profile" --remark-format=emitRemark 2>&1 | FileCheck %s
// RUN: %fw-opt %s --pass-pipeline="builtin.module(fwc-pipeline{compile-to=tasks}, fw-apply-profile{profile=%S/Inputs/profile_small_tasks.json merge-below-us=0})" \
// RUN:   | FileCheck %s --check-prefix=NOMERGE

// Tasks of @main: 0 is a small matmul (3 us), 1 a large one, 2 the row sum
// and what follows it (2 us). 1 ran on the CPU and a GPU: the GPU was faster.
// CHECK: remark: [Passed] Placement | Category:fw-profile | Function=main_dispatch_1 | Remark="task main_dispatch_1 placed on gpu: measured cpu 2.00 ms, cuda 150.0 us"
// 0 feeds only 2, and 3 us + 2 us is below 10 us: they merge.
// CHECK: remark: [Passed] MergeTasks | Category:fw-profile | Function=main | Remark="merged tasks main_dispatch_0 + main_dispatch_2: measured 3.0 us + 2.0 us, below the 10.0 us threshold: one dispatch"
// CHECK-NOT: MergeTasks
// CHECK-LABEL: func.func @main
// CHECK: fw.task(%arg2, %arg3)
// CHECK-SAME: fw.profile = {cpu = 2.000000e-03 : f64, cuda = 1.500000e-04 : f64}
// CHECK-SAME: hint = #fw.device<gpu>
// CHECK: fw.task(%arg0, %arg1) : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4xf32>
// CHECK-SAME: fw.profile = {cpu = 4.99{{[0-9]*}}E-6 : f64}
// CHECK: linalg.matmul
// CHECK: linalg.generic
// CHECK: fw.yield %{{.*}} : tensor<4xf32>
// CHECK-NOT: fw.task
// CHECK: return
// In @other the consumer took 40 us: nothing merges.
// CHECK-LABEL: func.func @other
// CHECK: fw.task(%arg0, %arg1)
// CHECK-SAME: fw.profile = {cpu = 3.000000e-06 : f64}
// CHECK: fw.task
// CHECK-SAME: fw.profile = {cpu = 4.000000e-05 : f64}
// A task the profile does not name gets nothing.
// CHECK: fw.task
// CHECK-NOT: fw.profile
// CHECK: return

// NOMERGE-LABEL: func.func @main
// NOMERGE-COUNT-3: fw.task

func.func @main(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>,
                %c: tensor<256x256xf32>, %d: tensor<256x256xf32>)
    -> (tensor<256x256xf32>, tensor<4xf32>) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<4x16xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<4x16xf32>) -> tensor<4x16xf32>
  %ab = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>)
                      outs(%f0 : tensor<4x16xf32>) -> tensor<4x16xf32>
  %e1 = tensor.empty() : tensor<4xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4xf32>) -> tensor<4xf32>
  %rows = linalg.reduce ins(%ab : tensor<4x16xf32>) outs(%f1 : tensor<4xf32>) dimensions = [1]
    (%x: f32, %acc: f32) {
      %s = arith.addf %x, %acc : f32
      linalg.yield %s : f32
    }
  %e2 = tensor.empty() : tensor<256x256xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<256x256xf32>) -> tensor<256x256xf32>
  %cd = linalg.matmul ins(%c, %d : tensor<256x256xf32>, tensor<256x256xf32>)
                      outs(%f2 : tensor<256x256xf32>) -> tensor<256x256xf32>
  %e3 = tensor.empty() : tensor<4xf32>
  %scaled = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                            iterator_types = ["parallel"]}
      ins(%rows : tensor<4xf32>) outs(%e3 : tensor<4xf32>) {
    ^bb0(%x: f32, %o: f32):
      %t = math.exp %x : f32
      linalg.yield %t : f32
  } -> tensor<4xf32>
  %e4 = tensor.empty() : tensor<4xf32>
  %again = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                            iterator_types = ["parallel"]}
      ins(%scaled, %rows : tensor<4xf32>, tensor<4xf32>) outs(%e4 : tensor<4xf32>) {
    ^bb0(%x: f32, %y: f32, %o: f32):
      %t = arith.addf %x, %y : f32
      linalg.yield %t : f32
  } -> tensor<4xf32>
  return %cd, %again : tensor<256x256xf32>, tensor<4xf32>
}

func.func @other(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> (tensor<4xf32>, tensor<8x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<4x16xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<4x16xf32>) -> tensor<4x16xf32>
  %ab = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>)
                      outs(%f0 : tensor<4x16xf32>) -> tensor<4x16xf32>
  %e1 = tensor.empty() : tensor<4xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4xf32>) -> tensor<4xf32>
  %rows = linalg.reduce ins(%ab : tensor<4x16xf32>) outs(%f1 : tensor<4xf32>) dimensions = [1]
    (%x: f32, %acc: f32) {
      %s = arith.addf %x, %acc : f32
      linalg.yield %s : f32
    }
  %e2 = tensor.empty() : tensor<8x16xf32>
  %neg = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                         iterator_types = ["parallel", "parallel"]}
      ins(%b : tensor<8x16xf32>) outs(%e2 : tensor<8x16xf32>) {
    ^bb0(%x: f32, %o: f32):
      %n = arith.negf %x : f32
      linalg.yield %n : f32
  } -> tensor<8x16xf32>
  return %rows, %neg : tensor<4xf32>, tensor<8x16xf32>
}
