// RUN: %fw-opt %s --split-input-file --fw-test-gpu-mapping-on-cpu=grid-size=2 | FileCheck %s

/// A matmul with its fill and an epilogue takes the tiled path: blocks of 256
/// threads (its known block size) in turn; the slices of A (transposed and
/// padded) and B in one allocation each, the accumulators and the elements a
/// thread stages in one slice per thread; the code between barriers runs for
/// every thread of the block before the next part: each thread fetches its
/// elements of the first slices, then per slice stores them to the shared
/// slices, and after the barrier fetches the next ones and multiplies.
// CHECK-LABEL: func.func @mm
// CHECK-DAG: %[[AT:.*]] = memref.alloca() : memref<16x68xf32>
// CHECK-DAG: %[[BT:.*]] = memref.alloca() : memref<16x64xf32>
// CHECK-DAG: %[[ACC:.*]] = memref.alloca() : memref<256x4x4xf32>
// CHECK-DAG: %[[SA:.*]] = memref.alloca() : memref<256x4xf32>
// CHECK-DAG: %[[SB:.*]] = memref.alloca() : memref<256x4xf32>
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[C256:.*]] = arith.constant 256 : index
// CHECK: scf.for %[[B:.*]] = %{{.*}} to %[[C2]]
// CHECK: scf.for %[[TILE:.*]] = %[[B]] to %{{.*}} step %[[C2]]
// CHECK: scf.for %[[T:.*]] = %{{.*}} to %[[C256]]
// CHECK: memref.subview %[[ACC]][%[[T]], 0, 0] [1, 4, 4] [1, 1, 1]
// CHECK: %[[MYA:.*]] = memref.subview %[[SA]][%[[T]], 0] [1, 4] [1, 1]
// CHECK: memref.load %arg0
// CHECK: memref.store %{{.*}}, %[[MYA]]
// CHECK: scf.for %[[K0:.*]] = %{{.*}} to %{{.*}} step %c16
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[C256]]
// CHECK: memref.store %{{.*}}, %[[AT]]
// CHECK: memref.store %{{.*}}, %[[BT]]
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[C256]]
// CHECK: memref.load %arg0
// CHECK: memref.load %arg1
// CHECK: memref.load %[[AT]]
// CHECK: memref.load %[[BT]]
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[C256]]
// CHECK: arith.maxnumf
// CHECK-NOT: linalg.
// CHECK-NOT: gpu.
// CHECK: return
fw.executable @mm attributes {access = [#fw.access<read>, #fw.access<read>, #fw.access<write>], bindings = [tensor<8x16xf32>, tensor<16x4xf32>, tensor<8x4xf32>]} {
  fw.variant @cpu target(#fw.cpu<"x86-64-v3">) {
    builtin.module {
      func.func @mm(%a: memref<8x16xf32>, %b: memref<16x4xf32>, %out: memref<8x4xf32>) {
        %zero = arith.constant 0.0 : f32
        %acc = memref.alloc() : memref<8x4xf32>
        linalg.fill ins(%zero : f32) outs(%acc : memref<8x4xf32>)
        linalg.matmul ins(%a, %b : memref<8x16xf32>, memref<16x4xf32>) outs(%acc : memref<8x4xf32>)
        linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
            ins(%acc : memref<8x4xf32>) outs(%out : memref<8x4xf32>) {
        ^bb0(%x: f32, %o: f32):
          %y = arith.maxnumf %x, %zero : f32
          linalg.yield %y : f32
        }
        return
      }
    }
  }
}

// -----

/// An elementwise nest (loads, then a store): each thread runs four
/// iterations per trip of its grid-stride loop (it steps by four times the
/// grid), their loads first; the first always stores, the others past the end
/// read the last element again and store nothing.
// CHECK-LABEL: func.func @add
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[C5:.*]] = arith.constant 5 : index
// CHECK: %[[GRID:.*]] = arith.muli %[[C2]], %[[C5]]
// CHECK: %[[STEP:.*]] = arith.muli %[[GRID]], %c4
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %[[TOTAL:.*]] step %[[STEP]]
// CHECK: %[[LAST:.*]] = arith.subi %[[TOTAL]], %c1
// CHECK: %[[X0:.*]] = arith.addf
// CHECK: %[[I1:.*]] = arith.addi %[[I]], %{{.*}}
// CHECK: %[[IN1:.*]] = arith.cmpi ult, %[[I1]], %[[TOTAL]]
// CHECK: arith.minui %[[I1]], %[[LAST]]
// CHECK: %[[X1:.*]] = arith.addf
// CHECK: %[[X2:.*]] = arith.addf
// CHECK: %[[X3:.*]] = arith.addf
// CHECK-NOT: memref.load
// CHECK: memref.store %[[X0]], %arg2
// CHECK-NEXT: scf.if %[[IN1]] {
// CHECK-NEXT: memref.store %[[X1]], %arg2
// CHECK: scf.if
// CHECK-NEXT: memref.store %[[X2]], %arg2
// CHECK: scf.if
// CHECK-NEXT: memref.store %[[X3]], %arg2
// CHECK: return
fw.executable @add attributes {access = [#fw.access<read>, #fw.access<read>, #fw.access<write>], bindings = [tensor<?x?xf32>, tensor<?xf32>, tensor<?x?xf32>]} {
  fw.variant @cpu target(#fw.cpu<"x86-64-v3">) {
    builtin.module {
      func.func @add(%a: memref<?x?xf32>, %b: memref<?xf32>, %out: memref<?x?xf32>) {
        linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
            ins(%a, %b : memref<?x?xf32>, memref<?xf32>) outs(%out : memref<?x?xf32>) {
        ^bb0(%x: f32, %y: f32, %o: f32):
          %s = arith.addf %x, %y : f32
          linalg.yield %s : f32
        }
        return
      }
    }
  }
}

// -----

/// Elsewhere: a row sum with its fill and a scaling fuse per row, the sum in a
/// private scalar (one per emulated thread), 2 blocks of 5 threads each
/// walking the grid-stride loop from its global index.
// CHECK-LABEL: func.func @rowsum
// CHECK: %[[SUM:.*]] = memref.alloca() : memref<5xf32>
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[C5:.*]] = arith.constant 5 : index
// CHECK: scf.for %[[B:.*]] = %{{.*}} to %[[C2]]
// CHECK: %[[BASE:.*]] = arith.muli %[[B]], %[[C5]]
// CHECK: scf.for %[[T:.*]] = %{{.*}} to %[[C5]]
// CHECK: %[[MINE:.*]] = memref.subview %[[SUM]][%[[T]]] [1] [1]
// CHECK: %[[FIRST:.*]] = arith.addi %[[BASE]], %[[T]]
// CHECK: scf.for %{{.*}} = %[[FIRST]] to
// CHECK: memref.store %{{.*}}, %[[MINE]][]
// CHECK: scf.for
// CHECK: memref.load %[[MINE]][]
// CHECK-NOT: linalg.
// CHECK-NOT: memref.alloc(
// CHECK: return
fw.executable @rowsum attributes {access = [#fw.access<read>, #fw.access<write>], bindings = [tensor<8x16xf32>, tensor<8xf32>]} {
  fw.variant @cpu target(#fw.cpu<"x86-64-v3">) {
    builtin.module {
      func.func @rowsum(%in: memref<8x16xf32>, %out: memref<8xf32>) {
        %zero = arith.constant 0.0 : f32
        %half = arith.constant 0.5 : f32
        %sum = memref.alloc() : memref<8xf32>
        linalg.fill ins(%zero : f32) outs(%sum : memref<8xf32>)
        linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
            ins(%in : memref<8x16xf32>) outs(%sum : memref<8xf32>) {
        ^bb0(%x: f32, %acc: f32):
          %y = arith.addf %x, %acc : f32
          linalg.yield %y : f32
        }
        linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
            ins(%sum : memref<8xf32>) outs(%out : memref<8xf32>) {
        ^bb0(%x: f32, %o: f32):
          %y = arith.mulf %x, %half : f32
          linalg.yield %y : f32
        }
        return
      }
    }
  }
}

// -----

/// A row sum with long rows and a division by it, a block per row: the block's
/// reduction becomes one slot per thread, filled at the end of the threads'
/// loop, then combined in thread order; the result is the same for all
/// threads.
// CHECK-LABEL: func.func @rownorm
// CHECK-DAG: %[[SLOTS:.*]] = memref.alloca() : memref<256xf32>
// CHECK-DAG: %[[ROWVAL:.*]] = memref.alloca() : memref<1xf32>
// CHECK: scf.for %[[ROW:.*]] = %{{.*}} to %{{.*}} step %c2
// CHECK: scf.for %[[T:.*]] = %c0 to %c256
// CHECK: memref.store %{{.*}}, %[[ROWVAL]]
// CHECK: scf.for %[[T2:.*]] = %c0 to %c256
// CHECK: %[[PART:.*]] = scf.for {{.*}} iter_args
// CHECK: memref.store %[[PART]], %[[SLOTS]][%[[T2]]]
// CHECK: %[[FIRST:.*]] = memref.load %[[SLOTS]][%c0]
// CHECK: %[[TOTAL:.*]] = scf.for %{{.*}} = %c1 to %c256 step %c1 iter_args(%[[ACC:.*]] = %[[FIRST]])
// CHECK: arith.addf %[[ACC]]
// CHECK: scf.for %{{.*}} = %{{.*}} to %c256
// CHECK: arith.addf %[[TOTAL]], %{{.*}}
// CHECK: memref.store %{{.*}}, %[[ROWVAL]]
// CHECK: arith.divf
// CHECK-NOT: gpu.
fw.executable @rownorm attributes {access = [#fw.access<read>, #fw.access<write>], bindings = [tensor<4x512xf32>, tensor<4x512xf32>]} {
  fw.variant @cpu target(#fw.cpu<"x86-64-v3">) {
    builtin.module {
      func.func @rownorm(%in: memref<4x512xf32>, %out: memref<4x512xf32>) {
        %zero = arith.constant 0.0 : f32
        %sum = memref.alloc() : memref<4xf32>
        linalg.fill ins(%zero : f32) outs(%sum : memref<4xf32>)
        linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
            ins(%in : memref<4x512xf32>) outs(%sum : memref<4xf32>) {
        ^bb0(%x: f32, %acc: f32):
          %y = arith.addf %x, %acc : f32
          linalg.yield %y : f32
        }
        linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
            ins(%in, %sum : memref<4x512xf32>, memref<4xf32>) outs(%out : memref<4x512xf32>) {
        ^bb0(%x: f32, %t: f32, %o: f32):
          %y = arith.divf %x, %t : f32
          linalg.yield %y : f32
        }
        return
      }
    }
  }
}

// -----

/// negative_: a kernel the mapping does not accept (a row sum feeding every
/// element of its row) is left alone.
// CHECK-LABEL: func.func @norm
// CHECK-NOT: scf.for
// CHECK: linalg.generic
// CHECK: linalg.generic
fw.executable @norm attributes {access = [#fw.access<read>, #fw.access<write>], bindings = [tensor<4x8xf32>, tensor<4x8xf32>]} {
  fw.variant @cpu target(#fw.cpu<"x86-64-v3">) {
    builtin.module {
      func.func @norm(%in: memref<4x8xf32>, %out: memref<4x8xf32>) {
        %zero = arith.constant 0.0 : f32
        %sum = memref.alloc() : memref<4xf32>
        linalg.fill ins(%zero : f32) outs(%sum : memref<4xf32>)
        linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
            ins(%in : memref<4x8xf32>) outs(%sum : memref<4xf32>) {
        ^bb0(%x: f32, %acc: f32):
          %y = arith.addf %x, %acc : f32
          linalg.yield %y : f32
        }
        linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
            ins(%in, %sum : memref<4x8xf32>, memref<4xf32>) outs(%out : memref<4x8xf32>) {
        ^bb0(%x: f32, %t: f32, %o: f32):
          %y = arith.divf %x, %t : f32
          linalg.yield %y : f32
        }
        return
      }
    }
  }
}

// -----

/// A kernel with checks: each thread's loops (a while loop in the body of its
/// elementwise op) end after the iteration in which one of its checks failed,
/// a flag of the thread's own (one slice per thread in the emulation); the
/// loops over the grid and over the threads go on, and so does the thread's
/// grid-stride loop (bounded by the sizes), which stays a for loop.
// CHECK-LABEL: func.func @chains
// CHECK: %[[FLAGS:.*]] = memref.alloca() : memref<{{[0-9]+}}xi1>
// CHECK: scf.for
// CHECK: %[[FLAG:.*]] = memref.subview %[[FLAGS]]
// CHECK: memref.store %false, %[[FLAG]]
// CHECK-NOT: scf.while
// CHECK: scf.for
// CHECK: scf.while
// CHECK: %[[STOPPED:.*]] = memref.load %[[FLAG]]
// CHECK: %[[GO:.*]] = arith.xori %[[STOPPED]], %true
// CHECK: arith.andi %{{.*}}, %[[GO]]
// CHECK: scf.condition
// CHECK: memref.atomic_rmw maxu
// CHECK: memref.store %true, %[[FLAG]]
fw.executable @chains attributes {access = [#fw.access<read>, #fw.access<read>, #fw.access<write>], bindings = [tensor<8xi64>, tensor<4xi64>, tensor<8xi64>]} {
  fw.variant @cpu target(#fw.cpu<"x86-64-v3">) {
    builtin.module {
      func.func @chains(%starts: memref<8xi64>, %next: memref<4xi64>, %out: memref<8xi64>, %word: memref<i32>) attributes {fw.error_word} {
        linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
            ins(%starts : memref<8xi64>) outs(%out : memref<8xi64>) {
        ^bb0(%s: i64, %o: i64):
          %zero = arith.constant 0 : i64
          %one = arith.constant 1 : i64
          %end = arith.constant -1 : i64
          %len:2 = scf.while (%at = %s, %count = %zero) : (i64, i64) -> (i64, i64) {
            %more = arith.cmpi ne, %at, %end : i64
            scf.condition(%more) %at, %count : i64, i64
          } do {
          ^bb0(%at: i64, %count: i64):
            %i = arith.index_cast %at : i64 to index
            %c4 = arith.constant 4 : index
            %in = arith.cmpi ult, %i, %c4 : index
            %to = scf.if %in -> i64 {
              %v = memref.load %next[%i] : memref<4xi64>
              scf.yield %v : i64
            } else {
              %k = arith.constant 1 : i32
              %old = memref.atomic_rmw maxu %k, %word[] : (i32, memref<i32>) -> i32
              scf.yield %zero : i64
            }
            %c = arith.addi %count, %one : i64
            scf.yield %to, %c : i64, i64
          }
          linalg.yield %len#1 : i64
        }
        return
      }
    }
  }
}
