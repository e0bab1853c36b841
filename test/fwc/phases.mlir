// --compile-to stops after a named phase and prints the IR.
// RUN: %fwc %s --compile-to=input --emit=mlir | FileCheck %s --check-prefix=INPUT
// RUN: %fwc %s --compile-to=tasks --emit=mlir | FileCheck %s --check-prefix=TASKS
// RUN: %fwc %s --compile-to=executables --emit=mlir | FileCheck %s --check-prefix=EXES
// RUN: %fwc %s --compile-to=buffers --emit=mlir | FileCheck %s --check-prefix=BUFFERS
// RUN: %fwc %s --compile-to=host --emit=mlir | FileCheck %s --check-prefix=HOST
// RUN: %fwc %s --compile-to=llvm --emit=mlir | FileCheck %s --check-prefix=LLVM
// The pipeline is the same library in fw-opt.
// RUN: %fw-opt %s --fwc-pipeline=compile-to=tasks | FileCheck %s --check-prefix=TASKS
// fw-opt checks the pipeline's options as fwc checks its flags.
// RUN: not %fw-opt %s --fwc-pipeline=compile-to=Tasks 2>&1 | FileCheck %s --check-prefix=BADPHASE
// RUN: not %fw-opt %s --fwc-pipeline=opt-level=9 2>&1 | FileCheck %s --check-prefix=BADLEVEL
// BADPHASE: error: fwc-pipeline: unknown phase 'Tasks' for compile-to (expected input, tasks, executables, buffers, host or llvm)
// BADLEVEL: error: fwc-pipeline: opt-level must be 0 to 3, not 9

/// Tensor arithmetic becomes linalg.
// INPUT: module attributes {fw.targets = [#fw.cpu<"x86-64-v3">]}
// INPUT: linalg.generic
// INPUT-NOT: fw.task
// TASKS: fw.task
// TASKS-NOT: fw.executable
// EXES: fw.executable @add_dispatch_0
// EXES: fw.invoke @add_dispatch_0
// BUFFERS: fw.dispatch @add_dispatch_0
// BUFFERS-NOT: fw.wait
// BUFFERS: return
// HOST: func.func @__fw_entry_add(
// HOST: call @fw_rt_dispatch
// LLVM: llvm.func @__fwk_add_dispatch_0_cpu_x86_64_v3(
// LLVM: llvm.func @__fw_entry_add(
// LLVM-NOT: func.func

func.func @add(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %r = arith.addf %a, %b : tensor<4xf32>
  return %r : tensor<4xf32>
}
// --stats reports the peak memory of intermediate buffers per function.
// RUN: %fwc %s --stats -o %t.fwb 2>&1 | FileCheck %s --check-prefix=STATS
// STATS: phases.mlir:{{[0-9]+}}:1: remark: allocated buffers: peak 16 bytes before reuse, 16 bytes after (0 reused, 0 updated in place)
