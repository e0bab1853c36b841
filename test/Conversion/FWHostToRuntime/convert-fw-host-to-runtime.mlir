// RUN: %fw-opt %s --split-input-file --convert-fw-host-to-runtime --verify-diagnostics | FileCheck %s

fw.executable @e0 attributes {access = [#fw.access<read>, #fw.access<write>], bindings = [tensor<?x8xf32>, tensor<?x8xf32>]} {
  fw.variant @cpu target(#fw.cpu<"x86-64-v3">) {
    builtin.module {}
  }
}
fw.executable @e1 attributes {access = [#fw.access<read>, #fw.access<read>, #fw.access<write>], bindings = [tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>]} {
  fw.variant @cpu target(#fw.cpu<"x86-64-v3">) {
    builtin.module {}
  }
}

/// Executables are numbered in module order, recorded as fw.ordinal.
// CHECK-NOT: fw.host_abi
// CHECK-LABEL: fw.executable @e0
// CHECK-SAME: fw.ordinal = 0 : i64
// CHECK-LABEL: fw.executable @e1
// CHECK-SAME: fw.ordinal = 1 : i64

/// Arguments come from fw_rt_arg, sizes from fw_rt_buffer_dim, buffers from
/// fw_rt_buffer_alloc with a stack array of sizes, dispatches name the
/// executable by its position in the module.
// CHECK-LABEL: func.func @__fw_entry_main(
// CHECK-SAME: %[[INV:[a-z0-9]+]]: !llvm.ptr)
// CHECK-SAME: fw.entry_name = "main"
// CHECK-SAME: fw.signature = (tensor<?x8xf32>) -> tensor<?x8xf32>
// CHECK-DAG: %[[I0:.*]] = arith.constant 0 : i64
// CHECK: %[[A:.*]] = call @fw_rt_arg(%[[INV]], %[[I0]]) : (!llvm.ptr, i64) -> !llvm.ptr
// CHECK: %[[N:.*]] = call @fw_rt_buffer_dim(%[[INV]], %[[A]], %{{.*}})
// CHECK: %[[DIMS:.*]] = llvm.alloca %{{.*}} x i64
// CHECK: %[[SLOT:.*]] = llvm.getelementptr %[[DIMS]][0] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK: llvm.store %{{.*}}, %[[SLOT]] : i64, !llvm.ptr
// CHECK: %[[B0:.*]] = call @fw_rt_buffer_alloc(%[[INV]], %{{.*}}, %{{.*}}, %{{.*}}, %[[DIMS]]) : (!llvm.ptr, i32, i32, i64, !llvm.ptr) -> !llvm.ptr
// CHECK: %[[LIST:.*]] = llvm.alloca %{{.*}} x !llvm.ptr
// CHECK: %[[T0:.*]] = call @fw_rt_dispatch(%[[INV]], %{{.*}}, %{{.*}}, %[[LIST]])
// CHECK: call @fw_rt_assert(%[[INV]], %{{.*}}, %{{.*}}) : (!llvm.ptr, i32, !llvm.ptr) -> ()
// CHECK: %[[B1:.*]] = call @fw_rt_buffer_alloc
// CHECK: %[[T1:.*]] = call @fw_rt_dispatch(%[[INV]], %{{.*}}, %{{.*}}, %{{.*}})
// CHECK: call @fw_rt_buffer_release(%[[INV]], %[[B0]])
// CHECK: call @fw_rt_wait(%[[INV]], %[[T0]])
// CHECK: call @fw_rt_wait(%[[INV]], %[[T1]])
// CHECK: call @fw_rt_set_result(%[[INV]], %{{.*}}, %[[B1]])
// CHECK: return
// CHECK-NOT: func.func @main(
// CHECK-DAG: func.func private @fw_rt_arg(!llvm.ptr, i64) -> !llvm.ptr
// CHECK-DAG: func.func private @fw_rt_dispatch(!llvm.ptr, i64, i64, !llvm.ptr) -> !llvm.ptr
func.func @main(%arg0: memref<?x8xf32, #fw.tier<host>>) -> memref<?x8xf32, #fw.tier<host>> attributes {fw.signature = (tensor<?x8xf32>) -> tensor<?x8xf32>} {
  %c0 = arith.constant 0 : index
  %dim = memref.dim %arg0, %c0 : memref<?x8xf32, #fw.tier<host>>
  %0 = fw.alloc(%dim) : memref<?x8xf32, #fw.tier<host>>
  %1 = fw.dispatch @e0(%arg0, %0) access([#fw.access<read>, #fw.access<write>]) : memref<?x8xf32, #fw.tier<host>>, memref<?x8xf32, #fw.tier<host>>
  %ok = arith.cmpi eq, %dim, %dim : index
  fw.assert %ok, "sizes differ"
  %2 = fw.alloc(%dim) : memref<?x8xf32, #fw.tier<host>>
  %3 = fw.dispatch @e1(%0, %arg0, %2) access([#fw.access<read>, #fw.access<read>, #fw.access<write>]) : memref<?x8xf32, #fw.tier<host>>, memref<?x8xf32, #fw.tier<host>>, memref<?x8xf32, #fw.tier<host>>
  fw.dealloc %0 : memref<?x8xf32, #fw.tier<host>>
  fw.wait %1, %3
  return %2 : memref<?x8xf32, #fw.tier<host>>
}

// -----

/// Static sizes need no runtime query; prefetch hints become fw_rt_prefetch.
// CHECK-LABEL: func.func @__fw_entry_static
// CHECK-NOT: fw_rt_buffer_dim
// CHECK: call @fw_rt_prefetch(%{{.*}}, %{{.*}}, %{{.*}}) : (!llvm.ptr, !llvm.ptr, i32) -> ()
// CHECK: call @fw_rt_set_result
func.func @static(%arg0: memref<4xf32, #fw.tier<host>>) -> memref<4xf32, #fw.tier<host>> attributes {fw.signature = (tensor<4xf32>) -> tensor<4xf32>} {
  %c0 = arith.constant 0 : index
  %d = memref.dim %arg0, %c0 : memref<4xf32, #fw.tier<host>>
  fw.prefetch %arg0 : memref<4xf32, #fw.tier<host>> to <device>
  return %arg0 : memref<4xf32, #fw.tier<host>>
}

// -----

/// A dispatch `after` tokens passes them to fw_rt_dispatch_after in a stack
/// array: an edge in the runtime's task graph, not a wait on the host. The
/// module records that its host code needs host-call ABI version 2 (the first
/// split, which has no such dispatch, records nothing: version 1).
fw.executable @e0 attributes {access = [#fw.access<read>, #fw.access<write>], bindings = [tensor<4xf32>, tensor<4xf32>]} {
  fw.variant @cpu target(#fw.cpu<"x86-64-v3">) {
    builtin.module {}
  }
}
// CHECK-LABEL: module attributes {fw.host_abi = 2 : i32}
// CHECK-LABEL: func.func @__fw_entry_ordered
// CHECK: %[[T0:.*]] = call @fw_rt_dispatch(%[[INV:[a-z0-9]+]], %{{.*}}, %{{.*}}, %{{.*}})
// CHECK: %[[T1:.*]] = call @fw_rt_dispatch(%[[INV]], %{{.*}}, %{{.*}}, %{{.*}})
// CHECK-NOT: fw_rt_wait
// CHECK: %[[LIST:.*]] = llvm.alloca %{{.*}} x !llvm.ptr
// CHECK: %[[AFTER:.*]] = llvm.alloca %{{.*}} x !llvm.ptr
// CHECK: %[[S0:.*]] = llvm.getelementptr %[[AFTER]][0]
// CHECK: llvm.store %[[T0]], %[[S0]] : !llvm.ptr, !llvm.ptr
// CHECK: %[[S1:.*]] = llvm.getelementptr %[[AFTER]][1]
// CHECK: llvm.store %[[T1]], %[[S1]] : !llvm.ptr, !llvm.ptr
// CHECK: %[[T2:.*]] = call @fw_rt_dispatch_after(%[[INV]], %{{.*}}, %{{.*}}, %[[LIST]], %{{.*}}, %[[AFTER]]) : (!llvm.ptr, i64, i64, !llvm.ptr, i64, !llvm.ptr) -> !llvm.ptr
// CHECK-NOT: fw_rt_wait
// CHECK: call @fw_rt_set_result
// CHECK-DAG: func.func private @fw_rt_dispatch_after(!llvm.ptr, i64, i64, !llvm.ptr, i64, !llvm.ptr) -> !llvm.ptr
func.func @ordered(%arg0: memref<4xf32, #fw.tier<host>>) -> memref<4xf32, #fw.tier<host>> attributes {fw.signature = (tensor<4xf32>) -> tensor<4xf32>} {
  %0 = fw.alloc() : memref<4xf32, #fw.tier<host>>
  %1 = fw.alloc() : memref<4xf32, #fw.tier<host>>
  %2 = fw.alloc() : memref<4xf32, #fw.tier<host>>
  %t0 = fw.dispatch @e0(%arg0, %0) access([#fw.access<read>, #fw.access<write>]) : memref<4xf32, #fw.tier<host>>, memref<4xf32, #fw.tier<host>>
  %t1 = fw.dispatch @e0(%arg0, %1) access([#fw.access<read>, #fw.access<write>]) : memref<4xf32, #fw.tier<host>>, memref<4xf32, #fw.tier<host>>
  %t2 = fw.dispatch @e0(%arg0, %2) access([#fw.access<read>, #fw.access<write>]) after(%t0, %t1) : memref<4xf32, #fw.tier<host>>, memref<4xf32, #fw.tier<host>>
  fw.dealloc %0 : memref<4xf32, #fw.tier<host>>
  fw.dealloc %1 : memref<4xf32, #fw.tier<host>>
  return %2 : memref<4xf32, #fw.tier<host>>
}

// -----

// expected-error @+1 {{'func.func' op has no 'fw.signature' attribute; run fw-bufferize first}}
func.func @no_signature(%arg0: memref<4xf32, #fw.tier<host>>) attributes {fw.signature} {
  return
}
