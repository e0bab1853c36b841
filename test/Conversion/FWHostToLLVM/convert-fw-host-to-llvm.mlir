// RUN: %fw-opt %s --convert-fw-host-to-llvm | FileCheck %s

/// Host functions become LLVM functions that call the runtime through the
/// function table the module defines (slot 0: fw_rt_arg, slot 7:
/// fw_rt_set_result); the runtime declarations disappear and the executables
/// are not touched.
// CHECK: llvm.mlir.global external @__fw_rt_table() {addr_space = 0 : i32, alignment = 8 : i64} : !llvm.array<12 x ptr>
// CHECK-NEXT: %[[Z:.*]] = llvm.mlir.zero : !llvm.array<12 x ptr>
// CHECK-NEXT: llvm.return %[[Z]]
// CHECK-LABEL: fw.executable @e
// CHECK: func.func @e(
// CHECK: llvm.func @__fw_entry_main(%[[INV:.*]]: !llvm.ptr)
// CHECK-SAME: fw.entry_name = "main"
// CHECK: %[[C:.*]] = llvm.mlir.constant(0 : i64) : i64
// CHECK: %[[T0:.*]] = llvm.mlir.addressof @__fw_rt_table
// CHECK: %[[S0:.*]] = llvm.getelementptr %[[T0]][0, 0] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<12 x ptr>
// CHECK: %[[F0:.*]] = llvm.load %[[S0]] : !llvm.ptr -> !llvm.ptr
// CHECK: %[[A:.*]] = llvm.call %[[F0]](%[[INV]], %[[C]]) : !llvm.ptr, (!llvm.ptr, i64) -> !llvm.ptr
// CHECK: %[[S7:.*]] = llvm.getelementptr %{{.*}}[0, 7]
// CHECK: %[[F7:.*]] = llvm.load %[[S7]]
// CHECK: llvm.call %[[F7]](%[[INV]], %[[C]], %[[A]]) : !llvm.ptr, (!llvm.ptr, i64, !llvm.ptr) -> ()
// CHECK: llvm.return
// CHECK-NOT: @fw_rt_arg
fw.executable @e attributes {access = [], bindings = []} {
  fw.variant @cpu target(#fw.cpu<"x86-64-v3">) {
    builtin.module {
      func.func @e() {
        return
      }
    }
  }
}
func.func @__fw_entry_main(%inv: !llvm.ptr) attributes {fw.entry_name = "main", fw.signature = (tensor<4xf32>) -> tensor<4xf32>} {
  %c0 = arith.constant 0 : i64
  %a = call @fw_rt_arg(%inv, %c0) : (!llvm.ptr, i64) -> !llvm.ptr
  call @fw_rt_set_result(%inv, %c0, %a) : (!llvm.ptr, i64, !llvm.ptr) -> ()
  return
}
func.func private @fw_rt_arg(!llvm.ptr, i64) -> !llvm.ptr
func.func private @fw_rt_set_result(!llvm.ptr, i64, !llvm.ptr)
