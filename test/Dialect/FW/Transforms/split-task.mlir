// How fw-apply-profile cuts a task it splits (a fixed profile says the task ran whole
// on one of four CPU workers for 500 us): each matmul with its accumulator's fill and
// its elementwise epilogue is one part; the operations between them are one part, cut
// after %gb, whose value the second matmul reads: only a part's last value leaves it.
// RUN: %fw-opt %s --split-input-file --fw-apply-profile=profile=%S/Inputs/profile_split_groups.json | FileCheck %s
// RUN: %fw-opt %s --split-input-file --fw-apply-profile=profile=%S/Inputs/profile_split_groups.json \
// RUN:   --remarks-filter="fw-profile" --remark-format=emitRemark -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

// REMARK: remark: [Passed] SplitTask | Category:fw-profile | Function=groups_dispatch_0 | Remark="task groups_dispatch_0 ran whole on one of 4 CPU workers for 500.0 us (above the 100.0 us threshold): split into 4 tasks (linalg.fill + linalg.matmul + linalg.generic | linalg.generic | linalg.generic | linalg.fill + linalg.matmul + linalg.generic), for the CPU code to divide each among workers"
// (The second remark is the reshape case's, the third the pass-through case's, below.)
// REMARK: remark: [Passed] SplitTask | Category:fw-profile | Function=reshape_dispatch_0 | Remark="task reshape_dispatch_0 ran whole on one of 4 CPU workers for 500.0 us (above the 100.0 us threshold): split into 3 tasks (linalg.fill + linalg.matmul + linalg.generic | tensor.collapse_shape | linalg.generic + linalg.fill + linalg.fill + linalg.generic), for the CPU code to divide each among workers"
// REMARK: remark: [Missed] SplitTask | Category:fw-profile | Function=passthrough_dispatch_0 | Remark="task passthrough_dispatch_0 ran whole on one of 4 CPU workers for 500.0 us (above the 100.0 us threshold), but it cannot be split: it yields one of its operands or a cheap value as it is, or computes values other than tensors"
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

// -----

/// An operation that is not destination-style (a reshape) is a part of its own: the
/// host computes its result's size from the tensor it reshapes, which must come from
/// outside the part. The run after it keeps the two fills of empty tensors that the
/// two-result reduction starts from.
// CHECK-LABEL: func.func @reshape
// CHECK: %[[T0:.*]] = fw.task(%arg0, %arg1) : (tensor<?x8xf32>, tensor<8x8xf32>) -> tensor<?x8xf32> dims(
// CHECK: math.tanh
// CHECK: %[[ROWS:.*]] = tensor.dim %[[T0]], %{{.*}} : tensor<?x8xf32>
// CHECK: %[[N:.*]] = affine.apply #{{.*}}()[%[[ROWS]]]
// CHECK: %[[T1:.*]] = fw.task(%[[T0]]) : (tensor<?x8xf32>) -> tensor<?xf32> dims(%[[N]])
// CHECK: tensor.collapse_shape
// CHECK: %[[T2:.*]]:2 = fw.task(%[[T1]]) : (tensor<?xf32>) -> (tensor<f32>, tensor<f32>)
// CHECK: math.exp
// CHECK: linalg.fill
// CHECK: linalg.fill
// CHECK: return %[[T2]]#0, %[[T2]]#1
#id = affine_map<(i, j) -> (i, j)>
#v = affine_map<(i) -> (i)>
#s = affine_map<(i) -> ()>
func.func @reshape(%x: tensor<?x8xf32>, %w: tensor<8x8xf32>) -> (tensor<f32>, tensor<f32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x8xf32>
  %r:2 = fw.task(%x, %w) : (tensor<?x8xf32>, tensor<8x8xf32>) -> (tensor<f32>, tensor<f32>) {
  ^bb0(%a: tensor<?x8xf32>, %b: tensor<8x8xf32>):
    %c0_0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %ninf = arith.constant -3.0e+38 : f32
    %rows = tensor.dim %a, %c0_0 : tensor<?x8xf32>
    %e = tensor.empty(%rows) : tensor<?x8xf32>
    %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?x8xf32>) -> tensor<?x8xf32>
    %m = linalg.matmul ins(%a, %b : tensor<?x8xf32>, tensor<8x8xf32>) outs(%z : tensor<?x8xf32>) -> tensor<?x8xf32>
    %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%m : tensor<?x8xf32>) outs(%e : tensor<?x8xf32>) {
    ^bb0(%v: f32, %o: f32):
      %y = math.tanh %v : f32
      linalg.yield %y : f32
    } -> tensor<?x8xf32>
    %flat = tensor.collapse_shape %t [[0, 1]] : tensor<?x8xf32> into tensor<?xf32>
    %k = tensor.dim %flat, %c0_0 : tensor<?xf32>
    %ef = tensor.empty(%k) : tensor<?xf32>
    %ex = linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]}
        ins(%flat : tensor<?xf32>) outs(%ef : tensor<?xf32>) {
    ^bb0(%v: f32, %o: f32):
      %y = math.exp %v : f32
      linalg.yield %y : f32
    } -> tensor<?xf32>
    %es = tensor.empty() : tensor<f32>
    %zs = linalg.fill ins(%zero : f32) outs(%es : tensor<f32>) -> tensor<f32>
    %zm = linalg.fill ins(%ninf : f32) outs(%es : tensor<f32>) -> tensor<f32>
    %red:2 = linalg.generic {indexing_maps = [#v, #s, #s], iterator_types = ["reduction"]}
        ins(%ex : tensor<?xf32>) outs(%zs, %zm : tensor<f32>, tensor<f32>) {
    ^bb0(%v: f32, %acc: f32, %mx: f32):
      %s1 = arith.addf %v, %acc : f32
      %m1 = arith.maximumf %v, %mx : f32
      linalg.yield %s1, %m1 : f32, f32
    } -> (tensor<f32>, tensor<f32>)
    fw.yield %red#0, %red#1 : tensor<f32>, tensor<f32>
  }
  return %r#0, %r#1 : tensor<f32>, tensor<f32>
}

// -----

/// A task that passes one of its operands through as a result is left whole: split,
/// that result would be a host value no task produces.
// CHECK-LABEL: func.func @passthrough
// CHECK-COUNT-1: fw.task
// CHECK-NOT: fw.task
// CHECK: return
#id = affine_map<(i, j) -> (i, j)>
func.func @passthrough(%x: tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>) {
  %r:2 = fw.task(%x) : (tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>) {
  ^bb0(%a: tensor<8x8xf32>):
    %e = tensor.empty() : tensor<8x8xf32>
    %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%a : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
    ^bb0(%v: f32, %o: f32):
      %t = math.exp %v : f32
      linalg.yield %t : f32
    } -> tensor<8x8xf32>
    %h = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%g : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
    ^bb0(%v: f32, %o: f32):
      %t = math.tanh %v : f32
      linalg.yield %t : f32
    } -> tensor<8x8xf32>
    fw.yield %h, %a : tensor<8x8xf32>, tensor<8x8xf32>
  }
  return %r#0, %r#1 : tensor<8x8xf32>, tensor<8x8xf32>
}
