// A GPU kernel's failed check, through the stand-in driver of runtime/test/fake_cuda.c:
// its launches run nothing, and FW_FAKE_CUDA_KERNEL_ERROR=N@K leaves N in the error word
// the runtime passes as parameter K (after the bindings' descriptors: 5 for the ids,
// 7 for the table, 7 for the result). The task fails with the check's message and does
// not run again on the CPU (whose run of these good ids would succeed).
// REQUIRES: ptxas
// RUN: %fwc %s --targets=cpu,sm_90 --module-name=gpuchecks -o %t.fwb
// RUN: env LD_LIBRARY_PATH=%fake-cuda-dir FW_FAKE_CUDA_LAUNCH=noop FW_FAKE_CUDA_KERNEL_ERROR=1@19 FW_FAKE_CUDA_LOG=%t.log not %fw-run %t.fwb --devices=cuda --input=3x4xf32=1 --input=4xi64=0,1,2,0 2>&1 | FileCheck %s --check-prefix=FAIL
// FAIL: fw-run: error: in @lookup: task @gpuchecks.lookup_dispatch_0: check failed: 'tensor.extract': the index into dimension 0 is out of range
// RUN: FileCheck %s --check-prefix=LOG < %t.log
// LOG: launch lookup_dispatch_0
// LOG: kernel error 1
// A value that names no check of the module.
// RUN: env LD_LIBRARY_PATH=%fake-cuda-dir FW_FAKE_CUDA_LAUNCH=noop FW_FAKE_CUDA_KERNEL_ERROR=9@19 not %fw-run %t.fwb --devices=cuda --input=3x4xf32=1 --input=4xi64=0,1,2,0 2>&1 | FileCheck %s --check-prefix=UNLISTED
// UNLISTED: its kernel left 9 in its error word, but its executable 'lookup_dispatch_0' lists 1 checks
// Every kernel of the end-to-end checks compiles for the GPU, the lookup that a
// matmul reads as its prologue too (its linalg.index: the matmul's row of the
// element; "'linalg.index' op expected parent op with LinalgOp interface" before).
// RUN: %fwc %S/../e2e/kernel_checks.mlir --targets=cpu,sm_90 -o %t.all.fwb 2>&1 | FileCheck %s --allow-empty --check-prefix=ALL
// ALL-NOT: error
// RUN: %fw-run --list %t.all.fwb | FileCheck %s --check-prefix=ALLLIST
// ALLLIST: executable @embmm_dispatch_0
// ALLLIST: variant cuda sm_90: image-kernel embmm_dispatch_0
// Without a failed check the call succeeds (the stand-in computes nothing).
// RUN: env LD_LIBRARY_PATH=%fake-cuda-dir FW_FAKE_CUDA_LAUNCH=noop %fw-run %t.fwb --devices=cuda --input=3x4xf32=1 --input=4xi64=0,1,2,0 --print-max-elements=0 --stats 2>&1 | FileCheck %s --check-prefix=OK
// OK: cuda

#in = affine_map<(d0, d1) -> (d0)>
#out = affine_map<(d0, d1) -> (d0, d1)>
func.func @lookup(%table: tensor<?x4xf32>, %ids: tensor<?xi64>) -> tensor<?x4xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %ids, %c0 : tensor<?xi64>
  %e = tensor.empty(%n) : tensor<?x4xf32>
  %r = linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "parallel"]}
      ins(%ids : tensor<?xi64>) outs(%e : tensor<?x4xf32>) {
  ^bb0(%id: i64, %o: f32):
    %i = arith.index_cast %id : i64 to index
    %j = linalg.index 1 : index
    %v = tensor.extract %table[%i, %j] : tensor<?x4xf32>
    linalg.yield %v : f32
  } -> tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}
