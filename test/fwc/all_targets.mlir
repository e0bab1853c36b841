// One fat binary for the CPU, two NVIDIA and two AMD architectures: every target is
// listed, every image is there, and ptxas and llvm-readelf accept them.
// REQUIRES: ptxas, amdgpu-toolchain
// RUN: %fwc %s --targets=cpu,sm_80,sm_90,gfx90a,gfx942 -o %t.fwb
// RUN: %fw-run --list %t.fwb | FileCheck %s
// RUN: %fw-run %t.fwb --input=3xf32=1,2,3 | FileCheck %s --check-prefix=OUT
// RUN: llvm-offload-binary %t.fwb --image=file=%t.hsaco,triple=amdgcn-amd-amdhsa,arch=gfx90a
// RUN: llvm-readelf --notes %t.hsaco | FileCheck %s --check-prefix=NOTES
// CHECK: target cpu x86-64-v3 (x86_64-unknown-linux-gnu)
// CHECK-NEXT: target cuda sm_80 (nvptx64-nvidia-cuda)
// CHECK-NEXT: target cuda sm_90 (nvptx64-nvidia-cuda)
// CHECK-NEXT: target hip gfx90a (amdgcn-amd-amdhsa)
// CHECK-NEXT: target hip gfx942 (amdgcn-amd-amdhsa)
// CHECK: variant cpu x86-64-v3
// CHECK-NEXT: variant cuda sm_80: image-kernel
// CHECK-NEXT: variant cuda sm_90: image-kernel
// CHECK-NEXT: variant hip gfx90a: image-kernel
// CHECK-NEXT: variant hip gfx942: image-kernel
// CHECK: image 0: cuda sm_80 cubin
// CHECK-NEXT: image 1: cuda sm_80 ptx
// CHECK-NEXT: image 2: cuda sm_90 cubin
// CHECK-NEXT: image 3: cuda sm_90 ptx
// CHECK-NEXT: image 4: hip gfx90a hsaco
// CHECK-NEXT: image 5: hip gfx942 hsaco
// OUT: 3xf32=0.5 1 1.5
// NOTES: amdhsa.target: amdgcn-amd-amdhsa--gfx90a

func.func @half(%a: tensor<?xf32>) -> tensor<?xf32> {
  %c = arith.constant 0.5 : f32
  %r = linalg.map ins(%a : tensor<?xf32>) outs(%a : tensor<?xf32>) (%x: f32, %o: f32) {
    %y = arith.mulf %x, %c : f32
    linalg.yield %y : f32
  }
  return %r : tensor<?xf32>
}
