// How fw-apply-profile cuts a task it splits (a fixed profile says the task ran whole
// on one of four CPU workers for 500 us): each matmul with its accumulator's fill and
// its elementwise epilogue is one part; the operations between them are one part, cut
// after %gb, whose value the second matmul reads: only a part's last value leaves it.
// RUN: %fw-opt %s --fw-apply-profile=profile=%S/Inputs/profile_split_groups.json \
// RUN:   --remarks-filter="fw-profile" --remark-format=emitRemark 2>&1 | FileCheck %s

// CHECK: remark: [Passed] SplitTask | Category:fw-profile | Function=groups_dispatch_0 | Remark="task groups_dispatch_0 ran whole on one of 4 CPU workers for 500.0 us (above the 100.0 us threshold): split into 4 tasks (linalg.fill + linalg.matmul + linalg.generic | linalg.generic | linalg.generic | linalg.fill + linalg.matmul + linalg.generic), for the CPU code to divide each among workers"
// CHECK-LABEL: func.func @groups
// CHECK: %[[T0:.*]] = fw.task(%arg0, %arg1)
// CHECK: linalg.matmul
// CHECK: math.tanh
// CHECK: %[[T1:.*]] = fw.task(%[[T0]], %arg0)
// CHECK: arith.addf
// CHECK: %[[T2:.*]] = fw.task(%[[T1]])
// CHECK: arith.mulf
// CHECK: %[[T3:.*]] = fw.task(%[[T1]], %arg1, %[[T2]])
// CHECK: linalg.matmul
// CHECK: arith.subf
// CHECK: return %[[T3]]
#id = affine_map<(i, j) -> (i, j)>
func.func @groups(%x: tensor<8x8xf32>, %w: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %r = fw.task(%x, %w) : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32> {
  ^bb0(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>):
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<8x8xf32>
    %z1 = linalg.fill ins(%zero : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
    %m1 = linalg.matmul ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%z1 : tensor<8x8xf32>) -> tensor<8x8xf32>
    %ga = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%m1 : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
    ^bb0(%v: f32, %o: f32):
      %t = math.tanh %v : f32
      linalg.yield %t : f32
    } -> tensor<8x8xf32>
    %gb = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%ga, %a : tensor<8x8xf32>, tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
    ^bb0(%v: f32, %u: f32, %o: f32):
      %s = arith.addf %v, %u : f32
      linalg.yield %s : f32
    } -> tensor<8x8xf32>
    %gc = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%gb : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
    ^bb0(%v: f32, %o: f32):
      %p = arith.mulf %v, %v : f32
      linalg.yield %p : f32
    } -> tensor<8x8xf32>
    %z2 = linalg.fill ins(%zero : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
    %m2 = linalg.matmul ins(%gb, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%z2 : tensor<8x8xf32>) -> tensor<8x8xf32>
    %gd = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%m2, %gc : tensor<8x8xf32>, tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
    ^bb0(%v: f32, %u: f32, %o: f32):
      %d = arith.subf %v, %u : f32
      linalg.yield %d : f32
    } -> tensor<8x8xf32>
    fw.yield %gd : tensor<8x8xf32>
  }
  return %r : tensor<8x8xf32>
}
