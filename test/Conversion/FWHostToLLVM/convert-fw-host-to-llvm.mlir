// RUN: %fw-opt %s --convert-fw-host-to-llvm | FileCheck %s

/// Host functions and runtime declarations become LLVM functions; the
/// executables are not touched.
// CHECK-LABEL: fw.executable @e
// CHECK: func.func @e(
// CHECK: llvm.func @__fw_entry_main(%[[INV:.*]]: !llvm.ptr)
// CHECK-SAME: fw.entry_name = "main"
// CHECK: %[[C:.*]] = llvm.mlir.constant(0 : i64) : i64
// CHECK: %[[A:.*]] = llvm.call @fw_rt_arg(%[[INV]], %[[C]]) : (!llvm.ptr, i64) -> !llvm.ptr
// CHECK: llvm.call @fw_rt_set_result(%[[INV]], %[[C]], %[[A]])
// CHECK: llvm.return
// CHECK: llvm.func @fw_rt_arg(!llvm.ptr, i64) -> !llvm.ptr
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
