// RUN: %fw-opt %s --split-input-file --fw-test-gpu-mapping-on-cpu=grid-size=2 | FileCheck %s

/// A CPU kernel the GPU mapping accepts is replaced by its mapped form on an
/// emulated grid: the private scalar of the fused nest once, then 2 blocks of
/// 5 threads in turn, each walking the grid-stride loop from its global index.
// CHECK-LABEL: func.func @mm
// CHECK: %[[ACC:.*]] = memref.alloca() : memref<f32>
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[C5:.*]] = arith.constant 5 : index
// CHECK: scf.for %[[B:.*]] = %{{.*}} to %[[C2]]
// CHECK: scf.for %[[T:.*]] = %{{.*}} to %[[C5]]
// CHECK: %[[BASE:.*]] = arith.muli %[[B]], %[[C5]]
// CHECK: %[[FIRST:.*]] = arith.addi %[[BASE]], %[[T]]
// CHECK: scf.for %{{.*}} = %[[FIRST]] to
// CHECK: memref.store %{{.*}}, %[[ACC]][]
// CHECK: scf.for
// CHECK: memref.load %[[ACC]][]
// CHECK-NOT: linalg.
// CHECK-NOT: memref.alloc(
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
