//===- Passes.td - fw conversion passes --------------------*- tablegen -*-===//

#ifndef FW_CONVERSION_PASSES_TD
#define FW_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertFWHostToRuntimePass
    : Pass<"convert-fw-host-to-runtime", "ModuleOp"> {
  let summary = "Lowers host functions to calls into the fw runtime's C ABI";
  let description = [{
    Rewrites every public function over `#fw.tier` buffers into a host entry
    `void __fw_entry_<name>(fw_invocation_t *)` that obtains its arguments
    with `fw_rt_arg`, queries dimensions with `fw_rt_buffer_dim`, allocates
    with `fw_rt_buffer_alloc`, enqueues `fw.dispatch` with `fw_rt_dispatch`
    (executables are numbered in module order), waits with `fw_rt_wait` and
    hands results back with `fw_rt_set_result` (docs/runtime.md). Buffer
    handles and tokens become `!llvm.ptr`. The function keeps its source name
    in `fw.entry_name` and its tensor signature in `fw.signature`.

    ```mlir
    func.func @__fw_entry_main(%inv: !llvm.ptr) attributes {
        fw.entry_name = "main", fw.signature = (tensor<?x4xf32>) -> tensor<?x4xf32>} {
      %c0 = arith.constant 0 : i64
      %a = call @fw_rt_arg(%inv, %c0) : (!llvm.ptr, i64) -> !llvm.ptr
      ...
    }
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect"];
}

def ConvertFWCPUVariantsToLLVMPass
    : Pass<"convert-fw-cpu-variants-to-llvm", "ModuleOp"> {
  let summary = "Lowers the kernel of every CPU variant to the LLVM dialect";
  let description = [{
    Runs the CPU kernel pipeline on the module of every `fw.variant` whose
    target is an `#fw.cpu`: linalg to loops, affine and SCF to control flow,
    math to LLVM intrinsics (and libm for the rest), memref, arith, index and
    func to LLVM, then `fw-cpu-kernel-abi`. The kernel function is renamed to
    `<executable>_<variant>` so that several CPU variants link into one
    shared object, and its runtime entry is `__fwk_<executable>_<variant>`.
    Variants for other targets are left alone.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def ConvertFWHostToLLVMPass : Pass<"convert-fw-host-to-llvm", "ModuleOp"> {
  let summary = "Lowers the host side of a module to the LLVM dialect";
  let description = [{
    Converts the functions outside `fw.executable` ops (host entries produced
    by `convert-fw-host-to-runtime`) from the func, arith, affine, cf and index
    dialects to the LLVM dialect. Calls of runtime functions become calls
    through the function table `__fw_rt_table` that the module defines and
    the runtime fills at load time (docs/runtime.md), so the fat binary has no
    undefined runtime symbols. Executables are not touched.

    ```mlir
    %t = llvm.mlir.addressof @__fw_rt_table : !llvm.ptr
    %slot = llvm.getelementptr %t[0, 4] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<9 x ptr>
    %fn = llvm.load %slot : !llvm.ptr -> !llvm.ptr
    %token = llvm.call %fn(%inv, %exe, %n, %buffers) : !llvm.ptr, (!llvm.ptr, i64, i64, !llvm.ptr) -> !llvm.ptr
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

#endif // FW_CONVERSION_PASSES_TD
