// The GPU worker's kernels in flight, its completions and reruns, the prefetch threads and
// the CPU workers under ThreadSanitizer (fw-run on the runtime's TSan build), through the
// stand-in driver of runtime/test/fake_cuda.c: async launches of 300 us each, launches
// that all fail (every task reruns on the CPU and the GPU is taken out of service), and
// device memory so small that tasks wait for the ones in flight to make room, copies that
// take time.
// REQUIRES: ptxas, fw-run-tsan
// RUN: %fwc %s --targets=cpu,sm_90 --module-name=pipetsan -o %t.fwb
// RUN: rm -f %t.log
// RUN: env LD_LIBRARY_PATH=%fake-cuda-dir FW_FAKE_CUDA_LAUNCH=async FW_FAKE_CUDA_KERNEL_US=300 FW_FAKE_CUDA_LOG=%t.log TSAN_OPTIONS="halt_on_error=1 exitcode=66" %fw-run-tsan %t.fwb --devices=cuda --benchmark=20 --print-max-elements=0 | FileCheck %s
// RUN: %python %S/Inputs/launches_behind.py %t.log | FileCheck %s --check-prefix=QUEUED
// QUEUED: launches 84, behind another: {{[1-9][0-9]*}}, most behind: 1
// RUN: env LD_LIBRARY_PATH=%fake-cuda-dir FW_FAKE_CUDA_LAUNCH=async FW_FAKE_CUDA_KERNEL_US=300 TSAN_OPTIONS="halt_on_error=1 exitcode=66" %fw-run-tsan %t.fwb --benchmark=20 --print-max-elements=0 | FileCheck %s
// Copies that take time: a task whose inputs are still moving waits for them with a kernel
// in flight.
// RUN: env LD_LIBRARY_PATH=%fake-cuda-dir FW_FAKE_CUDA_LAUNCH=async FW_FAKE_CUDA_KERNEL_US=300 FW_FAKE_CUDA_COPY_US=200 TSAN_OPTIONS="halt_on_error=1 exitcode=66" %fw-run-tsan %t.fwb --devices=cuda --benchmark=20 --print-max-elements=0 | FileCheck %s
// RUN: env LD_LIBRARY_PATH=%fake-cuda-dir FW_FAKE_CUDA_LAUNCH=async FW_FAKE_CUDA_KERNEL_US=300 FW_GPU_PIPELINE=4 FW_TIER_LIMITS=device=min TSAN_OPTIONS="halt_on_error=1 exitcode=66" %fw-run-tsan %t.fwb --devices=cuda --benchmark=20 --print-max-elements=0 --stats | FileCheck %s --check-prefix=SMALL
// RUN: env LD_LIBRARY_PATH=%fake-cuda-dir TSAN_OPTIONS="halt_on_error=1 exitcode=66" %fw-run-tsan %t.fwb --devices=cuda --benchmark=5 --input=2048xf32=1 --input=2048xf32=2 --stats | FileCheck %s --check-prefix=FAIL
// CHECK: benchmark @main: 20 calls
// SMALL: benchmark @main: 20 calls
// SMALL: evictions: {{[1-9]}}
// FAIL: result[0]: 2048xf32
// FAIL-NEXT: 2048xf32=3 3 3
// FAIL: GPU failures: {{[0-9]+}} tasks rerun elsewhere, 1 device taken out of service

func.func @main(%a: tensor<2048xf32>, %b: tensor<2048xf32>)
    -> (tensor<2048xf32>, tensor<2048xf32>, tensor<2048xf32>, tensor<2048xf32>) {
  %r1 = arith.addf %a, %b : tensor<2048xf32>
  %r2 = arith.mulf %a, %b : tensor<2048xf32>
  %r3 = arith.subf %r1, %r2 : tensor<2048xf32>
  %r4 = arith.maximumf %r3, %a : tensor<2048xf32>
  return %r1, %r2, %r3, %r4
      : tensor<2048xf32>, tensor<2048xf32>, tensor<2048xf32>, tensor<2048xf32>
}
