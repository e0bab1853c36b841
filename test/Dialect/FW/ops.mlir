// RUN: %fw-opt %s | %fw-opt | FileCheck %s
// RUN: %fw-opt %s --mlir-print-op-generic | %fw-opt | FileCheck %s

// CHECK-LABEL: func.func @task
func.func @task(%a: tensor<?x4xf32>, %b: tensor<4xf32>) -> tensor<?x4xf32> {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %a, %c0 : tensor<?x4xf32>
  // CHECK: %[[R:.*]] = fw.task(%{{.*}}, %{{.*}}) : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32> dims(%{{.*}}) attributes {bytes = 64 : i64, flops = 16 : i64, hint = #fw.device<cpu>}
  %r = fw.task(%a, %b) : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
      dims(%d) attributes {hint = #fw.device<cpu>, flops = 16 : i64, bytes = 64 : i64} {
  ^bb0(%x: tensor<?x4xf32>, %y: tensor<4xf32>):
    // CHECK: fw.yield %{{.*}} : tensor<?x4xf32>
    fw.yield %x : tensor<?x4xf32>
  }
  // CHECK: return %[[R]]
  return %r : tensor<?x4xf32>
}

// CHECK-LABEL: fw.executable @exe
// CHECK-SAME: access = [#fw.access<read>, #fw.access<write>]
// CHECK-SAME: bindings = [tensor<?x4xf32>, tensor<?x4xf32>]
fw.executable @exe attributes {
    access = [#fw.access<read>, #fw.access<write>],
    bindings = [tensor<?x4xf32>, tensor<?x4xf32>], flops = 4 : i64} {
  // CHECK: fw.variant @cpu target(#fw.cpu<"x86-64-v3">)
  fw.variant @cpu target(#fw.cpu<"x86-64-v3">) {
    builtin.module {
      func.func @exe(%in: memref<?x4xf32>, %out: memref<?x4xf32>) {
        return
      }
    }
  }
  // CHECK: fw.variant @avx512 target(#fw.cpu<"x86-64-v4">)
  fw.variant @avx512 target(#fw.cpu<"x86-64-v4">) {
    builtin.module {
    }
  }
  // CHECK: fw.variant @hopper target(#fw.cuda<"sm_90">)
  fw.variant @hopper target(#fw.cuda<"sm_90">) {
    builtin.module {
    }
  }
  // CHECK: fw.variant @mi300 target(#fw.hip<"gfx942">)
  fw.variant @mi300 target(#fw.hip<"gfx942">) {
    builtin.module {
    }
  }
}

// CHECK-LABEL: func.func @invoke
func.func @invoke(%a: tensor<?x4xf32>, %d: index) -> tensor<?x4xf32> {
  // CHECK: fw.invoke @exe(%{{.*}}) : (tensor<?x4xf32>) -> tensor<?x4xf32> dims(%{{.*}})
  %r = fw.invoke @exe(%a) : (tensor<?x4xf32>) -> tensor<?x4xf32> dims(%d)
  return %r : tensor<?x4xf32>
}

// CHECK-LABEL: func.func @buffers
func.func @buffers(%a: memref<?x4xf32, #fw.tier<host>>, %d: index, %ok: i1) {
  // CHECK: %[[B:.*]] = fw.alloc(%{{.*}}) : memref<?x4xf32, #fw.tier<host>>
  %b = fw.alloc(%d) : memref<?x4xf32, #fw.tier<host>>
  // CHECK: fw.alloc() : memref<16xi8, #fw.tier<storage>>
  %s = fw.alloc() : memref<16xi8, #fw.tier<storage>>
  // CHECK: fw.prefetch %[[B]] : memref<?x4xf32, #fw.tier<host>> to <device>
  fw.prefetch %b : memref<?x4xf32, #fw.tier<host>> to <device>
  // CHECK: %[[T0:.*]] = fw.dispatch @exe(%{{.*}}, %[[B]]) access([#fw.access<read>, #fw.access<write>]) : memref<?x4xf32, #fw.tier<host>>, memref<?x4xf32, #fw.tier<host>>
  %t0 = fw.dispatch @exe(%a, %b) access([#fw.access<read>, #fw.access<write>])
      : memref<?x4xf32, #fw.tier<host>>, memref<?x4xf32, #fw.tier<host>>
  // CHECK: %[[T1:.*]] = fw.dispatch @exe(%[[B]], %{{.*}}) access([#fw.access<read>, #fw.access<write>]) after(%[[T0]])
  %t1 = fw.dispatch @exe(%b, %a) access([#fw.access<read>, #fw.access<write>])
      after(%t0) : memref<?x4xf32, #fw.tier<host>>, memref<?x4xf32, #fw.tier<host>>
  // CHECK: fw.wait %[[T0]], %[[T1]]
  fw.wait %t0, %t1
  // CHECK: fw.assert %{{.*}}, "shapes differ"
  fw.assert %ok, "shapes differ"
  // CHECK: fw.dealloc %[[B]] : memref<?x4xf32, #fw.tier<host>>
  fw.dealloc %b : memref<?x4xf32, #fw.tier<host>>
  fw.dealloc %s : memref<16xi8, #fw.tier<storage>>
  return
}
