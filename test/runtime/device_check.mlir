// The NVIDIA kernel of a fat binary run directly on each CUDA device: image choice,
// loading, launch with the GPU kernel ABI, copies, zero fill, event timing; the output
// must be in + in. Where there is no CUDA device it says so and passes (the GPU node
// runs it through scripts/gpu-check.sh).
// REQUIRES: ptxas
// RUN: %fwc %s --targets=cpu,sm_80,sm_90 -o %t.fwb
// RUN: %fw-device-check %t.fwb scale_dispatch_0 | FileCheck %s
// RUN: not %fw-device-check %t.fwb nonsense | FileCheck %s --check-prefix=BAD
// CHECK: {{skipped: no CUDA device \(.+\)|PASS @scale_dispatch_0 on sm_[0-9]+}}
// BAD: FAIL {{.*}} has no executable @nonsense

func.func @scale(%a: tensor<?xf32>) -> tensor<?xf32> {
  %r = arith.addf %a, %a : tensor<?xf32>
  return %r : tensor<?xf32>
}
