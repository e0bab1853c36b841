// fw-run --list-devices: the CPU, each NVIDIA GPU found through libcuda.so.1 and each AMD
// GPU found through libamdhip64.so, or for each kind why there is none; no module needed.
// Without a module otherwise, a clear error.
// RUN: %fw-run --list-devices | FileCheck %s
// RUN: not %fw-run 2>&1 | FileCheck %s --check-prefix=NOMODULE
// CHECK: cpu: {{.*}}, x86-64{{.*}}, {{[1-9][0-9]*}} CPUs usable
// CHECK-NEXT: cuda: {{none \(.+\)|.*sm_[0-9]+.*}}
// CHECK-NEXT: hip: {{none \(.+\)|.*gfx[0-9]+.*}}
// NOMODULE: fw-run: error: no module given
