// A GPU's link is measured on its copies of 1 MiB or more: once 8 MiB went over it, the
// scheduler's estimates of moves take the rate those copies got, and --stats shows it.
// Through the stand-in driver of runtime/test/fake_cuda.c (its device memory is host
// memory: the copies are memcpy, through the runtime's pinned staging buffers).
// REQUIRES: ptxas
// RUN: %fwc %s --targets=cpu,sm_90 --module-name=link -o %t.fwb
// RUN: env LD_LIBRARY_PATH=%fake-cuda-dir FW_FAKE_CUDA_LAUNCH=async %fw-run %t.fwb --devices=cuda --default-dim=1048576 --benchmark=3 --stats --print-max-elements=0 | FileCheck %s
// CHECK: device cuda:0 {{.*}}: 1 worker, {{[0-9]+}} tasks, busy {{.*}}, link {{[0-9]+\.[0-9][0-9]}} GB/s measured
// CHECK: moved host -> device: 8.0 MiB
// Small copies alone do not measure it: the nominal rate stays.
// RUN: env LD_LIBRARY_PATH=%fake-cuda-dir FW_FAKE_CUDA_LAUNCH=async %fw-run %t.fwb --devices=cuda --default-dim=1024 --benchmark=3 --stats --print-max-elements=0 | FileCheck %s --check-prefix=SMALL
// SMALL: device cuda:0 {{.*}}: 1 worker, {{[0-9]+}} tasks, busy {{[^,]*$}}

// 4 MiB in twice, then 4 MiB out (1M elements).
func.func @main(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %r = arith.addf %a, %b : tensor<?xf32>
  return %r : tensor<?xf32>
}
