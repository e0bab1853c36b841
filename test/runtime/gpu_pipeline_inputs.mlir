// A GPU task whose inputs are still on their way when its worker takes it (here: copied
// from host memory on the first call) launches behind the kernel in flight as soon as
// they are there, rather than after that kernel completes. Through the stand-in driver of
// runtime/test/fake_cuda.c: async launches of 20 ms, and copies of 3 ms each on the
// device's copy stream. On the first call the first kernel's two inputs land at about
// 6 ms and it runs to 26 ms; the second kernel's land at about 12 ms, so it is queued
// behind the first ("behind 1"); before, it waited for the first to complete ("behind 0").
// The later kernels of the call, and those of the second call (inputs already there),
// launch behind one kernel each.
// REQUIRES: ptxas
// RUN: %fwc %s --targets=cpu,sm_90 --module-name=inp -o %t.fwb
// RUN: rm -f %t.log
// RUN: env LD_LIBRARY_PATH=%fake-cuda-dir FW_FAKE_CUDA_LAUNCH=async FW_FAKE_CUDA_KERNEL_US=20000 FW_FAKE_CUDA_COPY_US=3000 FW_FAKE_CUDA_LOG=%t.log %fw-run %t.fwb --devices=cuda --benchmark=1 --print-max-elements=0 > /dev/null
// RUN: %python %S/Inputs/launches_behind.py %t.log --first=4 | FileCheck %s
// CHECK: launches 8, behind another: 6, most behind: 1
// CHECK: first launches behind: 0 1 1 1
// With prefetch off nothing moves ahead of the kernel that needs it: the worker lets the
// kernels in flight complete, then copies the inputs itself.
// RUN: rm -f %t.off.log
// RUN: env LD_LIBRARY_PATH=%fake-cuda-dir FW_FAKE_CUDA_LAUNCH=async FW_FAKE_CUDA_KERNEL_US=20000 FW_FAKE_CUDA_COPY_US=3000 FW_FAKE_CUDA_LOG=%t.off.log %fw-run %t.fwb --devices=cuda --benchmark=1 --no-prefetch --print-max-elements=0 > /dev/null
// RUN: %python %S/Inputs/launches_behind.py %t.off.log --first=4 | FileCheck %s --check-prefix=OFF
// OFF: first launches behind: 0 0 0 0
// The first kernel faults on the GPU while it runs (the launch succeeds; from then on the
// context is broken, as CUDA's is after a fault): the worker sees it end in failure while
// the next task waits for its inputs, and every task reruns on the CPU. The task the
// worker took meanwhile is not lost (the run used to hang on it).
// RUN: env LD_LIBRARY_PATH=%fake-cuda-dir FW_FAKE_CUDA_LAUNCH=async FW_FAKE_CUDA_KERNEL_US=20000 FW_FAKE_CUDA_COPY_US=3000 FW_FAKE_CUDA_FAULT_AT=1 %fw-run %t.fwb --devices=cuda --input=4096xf32=1 --input=4096xf32=2 --input=4096xf32=3 --input=4096xf32=4 --input=4096xf32=5 --input=4096xf32=6 --input=4096xf32=7 --input=4096xf32=8 --print-max-elements=2 --stats | FileCheck %s --check-prefix=FAULT
// FAULT: result[0]: 4096xf32
// FAULT-NEXT: 4096xf32=3 3 ...
// FAULT: 4096xf32=12 12 ...
// FAULT: 4096xf32=-1 -1 ...
// FAULT: 4096xf32=8 8 ...
// FAULT: GPU failures: 3 tasks rerun elsewhere, 1 device taken out of service
// When the fault comes after kernels completed there, their results had their only copy
// on the GPU and are lost with its context: an error that says so, not a hang or wrong
// numbers.
// RUN: env LD_LIBRARY_PATH=%fake-cuda-dir FW_FAKE_CUDA_LAUNCH=async FW_FAKE_CUDA_KERNEL_US=20000 FW_FAKE_CUDA_COPY_US=3000 FW_FAKE_CUDA_FAULT_AT=3 not %fw-run %t.fwb --devices=cuda --print-max-elements=0 2>&1 | FileCheck %s --check-prefix=LOST
// LOST: error: result 0: its contents cannot be brought back to host memory: CUDA cuMemcpyDtoHAsync failed

// Four independent kernels a call, each reading two inputs of its own.
func.func @main(%a: tensor<4096xf32>, %b: tensor<4096xf32>, %c: tensor<4096xf32>,
                %d: tensor<4096xf32>, %e: tensor<4096xf32>, %f: tensor<4096xf32>,
                %g: tensor<4096xf32>, %h: tensor<4096xf32>)
    -> (tensor<4096xf32>, tensor<4096xf32>, tensor<4096xf32>, tensor<4096xf32>) {
  %r1 = arith.addf %a, %b : tensor<4096xf32>
  %r2 = arith.mulf %c, %d : tensor<4096xf32>
  %r3 = arith.subf %e, %f : tensor<4096xf32>
  %r4 = arith.maximumf %g, %h : tensor<4096xf32>
  return %r1, %r2, %r3, %r4
      : tensor<4096xf32>, tensor<4096xf32>, tensor<4096xf32>, tensor<4096xf32>
}
