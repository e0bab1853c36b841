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
// A history file keeps the measure: the next run starts from it, even with small copies.
// RUN: rm -f %t.hist
// RUN: env LD_LIBRARY_PATH=%fake-cuda-dir FW_FAKE_CUDA_LAUNCH=async %fw-run %t.fwb --devices=cuda --default-dim=1048576 --benchmark=3 --history=%t.hist --print-max-elements=0 > /dev/null
// RUN: FileCheck %s --check-prefix=FILE < %t.hist
// FILE: fw-history 3
// FILE: {{^}}link {{[1-9][0-9]+}} {{[1-9][0-9]*}} cuda:0 {{.+}}
// RUN: env LD_LIBRARY_PATH=%fake-cuda-dir FW_FAKE_CUDA_LAUNCH=async %fw-run %t.fwb --devices=cuda --default-dim=1024 --benchmark=3 --history=%t.hist --stats --print-max-elements=0 | FileCheck %s --check-prefix=KEPT
// KEPT: device cuda:0 {{.*}}: 1 worker, {{[0-9]+}} tasks, busy {{.*}}, link {{[0-9]+\.[0-9][0-9]}} GB/s measured
// The rate a run starts from is the file's (100 GB/s here; weighed as 64 MiB). A link of
// a device the run lacks is not used, and stays in the file.
// RUN: printf 'fw-history 3\nlink 12800000000 128000000 cuda:0 %%s\n' "$(grep -o 'cuda:0 .*' %t.hist | cut -d' ' -f2-)" > %t.rate.hist
// RUN: env LD_LIBRARY_PATH=%fake-cuda-dir FW_FAKE_CUDA_LAUNCH=async %fw-run %t.fwb --devices=cuda --default-dim=1024 --benchmark=1 --history=%t.rate.hist --stats --print-max-elements=0 | FileCheck %s --check-prefix=RATE
// RATE: link 100.00 GB/s measured
// RUN: printf 'fw-history 3\nlink 12800000000 128000000 cuda:7 Another GPU\n' > %t.other.hist
// RUN: env LD_LIBRARY_PATH=%fake-cuda-dir FW_FAKE_CUDA_LAUNCH=async %fw-run %t.fwb --devices=cuda --default-dim=1024 --benchmark=1 --history=%t.other.hist --stats --print-max-elements=0 | FileCheck %s --check-prefix=SMALL
// RUN: FileCheck %s --check-prefix=OTHER < %t.other.hist
// OTHER: {{^}}link 12800000000 128000000 cuda:7 Another GPU

// 4 MiB in twice, then 4 MiB out (1M elements).
func.func @main(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %r = arith.addf %a, %b : tensor<?xf32>
  return %r : tensor<?xf32>
}
