// The runtime's HIP path on a machine without an AMD GPU, through the stand-in runtime of
// runtime/test/fake_hip.c (libamdhip64.so.6 whose memory is host memory and whose
// launches fail): the GPU is found with its architecture, becomes a worker with its own
// memory node, loads the code object built for exactly that architecture, receives the
// inputs, and each failed launch reruns its task on the CPU. The results must equal a
// CPU-only run.
// REQUIRES: amdgpu-toolchain
// RUN: %fwc %s --targets=cpu,gfx942 -o %t.fwb
// RUN: %fw-run %t.fwb --devices=cpu --output=@%t.cpu.npy
// RUN: env LD_LIBRARY_PATH=%fake-hip-dir %fw-run --list-devices | FileCheck %s --check-prefix=LIST
// LIST: hip: Fake AMD GPU, gfx942, 8 compute units, 1.0 GiB
// RUN: rm -f %t.log
// RUN: env LD_LIBRARY_PATH=%fake-hip-dir FW_FAKE_HIP_LOG=%t.log %fw-run %t.fwb --devices=hip --stats --output=@%t.gpu.npy | FileCheck %s --check-prefix=STATS
// STATS: GPU failures: 1 tasks rerun elsewhere, 0 devices taken out of service
// STATS: device hip:0 Fake AMD GPU: 1 worker, 0 tasks
// STATS: moved host -> device: 64.0 KiB
// RUN: %python -c "import numpy as np,sys; print('same' if np.array_equal(np.load(sys.argv[1]),np.load(sys.argv[2])) else 'different')" %t.cpu.npy %t.gpu.npy | FileCheck %s --check-prefix=SAME
// SAME: same
// RUN: FileCheck %s --check-prefix=LOG < %t.log
// LOG: load hsaco
// LOG: copy kind 1 65536
// LOG: launch scale_dispatch_0 grid 64 block 256
// Code for gfx942 does not run on a gfx90a: nothing is loaded and the CPU runs it.
// RUN: rm -f %t.other.log && touch %t.other.log
// RUN: env LD_LIBRARY_PATH=%fake-hip-dir FW_FAKE_HIP_LOG=%t.other.log FW_FAKE_HIP_ARCH=gfx90a %fw-run %t.fwb --devices=hip --stats --print-max-elements=0 | FileCheck %s --check-prefix=OTHER
// OTHER-NOT: GPU failures
// OTHER: device hip:0 Fake AMD GPU: 1 worker, 0 tasks
// RUN: count 0 < %t.other.log

func.func @scale(%a: tensor<128x128xf32>) -> tensor<128x128xf32> {
  %r = arith.addf %a, %a : tensor<128x128xf32>
  return %r : tensor<128x128xf32>
}
