// AMD targets: each GPU-mappable kernel gets a variant per gfx* target with an HSACO code
// object (linked by ld.lld with the AMD device libraries) in the fat binary's
// .llvm.offloading section; `rocm` names every AMD target. The code object's notes name
// the target and the kernel's resources, and its flat workgroup size is the block size.
// The CPU variant runs it where there is no AMD GPU.
// REQUIRES: amdgpu-toolchain
// RUN: %fwc %s --targets=cpu,rocm -o %t.fwb
// RUN: %fw-run --list %t.fwb | FileCheck %s --check-prefix=LIST
// RUN: %fw-run %t.fwb --function=bias_relu --input=2x2xf32=1,2,3,4 --input=2x2xf32=1,0,0,1 --input=2xf32=-4,1 | FileCheck %s --check-prefix=OUT
// RUN: llvm-offload-binary %t.fwb --image=file=%t.gfx942.hsaco,triple=amdgcn-amd-amdhsa,arch=gfx942
// RUN: llvm-readelf --notes %t.gfx942.hsaco | FileCheck %s --check-prefix=NOTES
// RUN: llvm-offload-binary %t.fwb --image=file=%t.gfx90a.hsaco,triple=amdgcn-amd-amdhsa,arch=gfx90a
// RUN: llvm-readelf --notes %t.gfx90a.hsaco | FileCheck %s --check-prefix=NOTES90A
// RUN: llvm-objdump -d --mcpu=gfx942 %t.gfx942.hsaco | FileCheck %s --check-prefix=ISA
// A ROCm path without its linker is a clear error.
// RUN: not %fwc %s --targets=cpu,gfx942 --rocm-path=%t.nowhere -o %t.bad.fwb 2>&1 | FileCheck %s --check-prefix=NOROCM

// LIST: target hip gfx90a (amdgcn-amd-amdhsa)
// LIST: target hip gfx942 (amdgcn-amd-amdhsa)
// LIST: executable @bias_relu_dispatch_0
// LIST-NEXT: variant cpu x86-64-v3:
// LIST-NEXT: variant hip gfx90a: image-kernel bias_relu_dispatch_0 (blocks of 256 threads)
// LIST-NEXT: variant hip gfx942: image-kernel bias_relu_dispatch_0 (blocks of 256 threads)
// LIST: image 0: hip gfx90a hsaco, {{[1-9][0-9]*}} bytes
// LIST: image 1: hip gfx942 hsaco, {{[1-9][0-9]*}} bytes

// OUT: 2x2xf32=[0 3][0 5]

// NOTES: .group_segment_fixed_size: 8448
// NOTES: .max_flat_workgroup_size: 256
// NOTES: .name: bias_relu_dispatch_0
// NOTES: .sgpr_count: {{[0-9]+}}
// NOTES: .vgpr_count: {{[0-9]+}}
// NOTES: .wavefront_size: 64
// NOTES: amdhsa.target: amdgcn-amd-amdhsa--gfx942
// NOTES90A: amdhsa.target: amdgcn-amd-amdhsa--gfx90a

// The matmul is tiled through LDS between barriers.
// ISA: <bias_relu_dispatch_0>:
// ISA-DAG: global_load_dword
// ISA-DAG: ds_write
// ISA-DAG: s_barrier
// ISA-DAG: ds_read
// ISA-DAG: v_fma
// ISA-DAG: global_store_dword
// ISA-DAG: s_endpgm

// NOROCM: error: 'fw.variant' op needs the AMD toolchain to link code objects for gfx942: '{{.*}}nowhere/llvm/bin/ld.lld' is not there; --rocm-path must hold ROCm's llvm/bin/ld.lld and amdgcn/bitcode

func.func @bias_relu(%a: tensor<2x2xf32>, %b: tensor<2x2xf32>, %bias: tensor<2xf32>) -> tensor<2x2xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x2xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %m = linalg.matmul ins(%a, %b : tensor<2x2xf32>, tensor<2x2xf32>) outs(%f : tensor<2x2xf32>) -> tensor<2x2xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%m, %bias : tensor<2x2xf32>, tensor<2xf32>) outs(%e : tensor<2x2xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %t = arith.maximumf %s, %zero : f32
    linalg.yield %t : f32
  } -> tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}
