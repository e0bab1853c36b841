// NVIDIA targets: each kernel whose loop nests fuse per element (a fill and the matmul that
// accumulates into it) or are independent gets a variant per sm_* target with a cubin
// (assembled by CUDA's ptxas) and PTX in the fat binary's .llvm.offloading section; the
// CPU variant still runs it where there is no GPU. `cuda` names every NVIDIA target.
// REQUIRES: ptxas
// RUN: %fwc %s --targets=cpu,sm_80,sm_90 -o %t.fwb
// RUN: %fw-run --list %t.fwb | FileCheck %s --check-prefix=LIST
// RUN: %fw-run %t.fwb --function=scale --input=4xf32=1,2,3,4 | FileCheck %s --check-prefix=OUT
// RUN: %fw-run %t.fwb --function=normalize --input=2x2xf32=1,3,2,2 | FileCheck %s --check-prefix=NORM
// RUN: %fwc %s --targets=cpu,cuda -o %t.cuda.fwb
// RUN: %fw-run --list %t.cuda.fwb | FileCheck %s --check-prefix=LIST
// RUN: %fwc %s --targets=cpu,sm_90 --compile-to=llvm --emit=mlir -o - | FileCheck %s --check-prefix=PTX
// RUN: llvm-objcopy --dump-section=.llvm.offloading=%t.offload %t.fwb %t.unused
// RUN: od -An -c -N4 %t.offload | FileCheck %s --check-prefix=MAGIC
// A missing toolkit and a kernel that cannot be mapped without another target are errors.
// RUN: not %fwc %s --targets=cpu,sm_90 --cuda-path=%t.nowhere -o %t.bad.fwb 2>&1 | FileCheck %s --check-prefix=NOPTXAS
// RUN: not %fwc %s --targets=sm_90 -o %t.bad.fwb 2>&1 | FileCheck %s --check-prefix=ONLYGPU
// RUN: %fwc %s --targets=cpu,sm_90 -o %t.fwb 2>&1 | FileCheck %s --check-prefix=WARN

// LIST: target cuda sm_80 (nvptx64-nvidia-cuda)
// LIST: target cuda sm_90 (nvptx64-nvidia-cuda)
// LIST: executable @scale_dispatch_0
// LIST-NEXT: variant cpu x86-64-v3: symbol __fwk_scale_dispatch_0_cpu_x86_64_v3 (divided among workers)
// LIST-NEXT: variant cuda sm_80: image-kernel scale_dispatch_0 (blocks of 256 threads)
// LIST-NEXT: variant cuda sm_90: image-kernel scale_dispatch_0 (blocks of 256 threads)
// LIST: executable @matmul_dispatch_0
// LIST-NEXT: variant cpu x86-64-v3:
// LIST-NEXT: variant cuda sm_80: image-kernel matmul_dispatch_0 (blocks of 256 threads)
// LIST-NEXT: variant cuda sm_90: image-kernel matmul_dispatch_0 (blocks of 256 threads)
// LIST: executable @normalize_dispatch_0
// LIST-NEXT: variant cpu x86-64-v3:
// LIST-NOT: variant cuda
// LIST: image 0: cuda sm_80 cubin, {{[1-9][0-9]*}} bytes
// LIST: image 1: cuda sm_80 ptx, {{[1-9][0-9]*}} bytes
// LIST: image 2: cuda sm_90 cubin
// LIST: image 3: cuda sm_90 ptx

// OUT: 4xf32=2 4 6 8
// NORM: 2x2xf32=[0.25 0.75][0.5 0.5]

// PTX: fw.variant @cuda_sm_90 target(#fw.cuda<"sm_90">)
// PTX-SAME: fw.block_size = 256
// PTX-SAME: fw.cubin = "\7FELF
// PTX-SAME: fw.kernel = "scale_dispatch_0"
// PTX-SAME: fw.ptx = "
// PTX-SAME: .target sm_90
// PTX-SAME: .entry scale_dispatch_0(
// PTX-SAME: .maxntid 256, 1, 1

// The section is a sequence of LLVM OffloadBinary entries (magic 0x10 0xFF 0x10 0xAD).
// MAGIC: 020 377 020 255

// NOPTXAS: error: 'fw.variant' op needs CUDA's ptxas to assemble cubins for sm_90, but '{{.*}}nowhere/bin/ptxas' is not there; pass --cuda-path=<CUDA toolkit>
// ONLYGPU: error: 'fw.variant' op cannot be compiled for sm_90: only kernels whose loop nests fuse per element or are independent are supported yet; add a CPU target
// WARN: warning: not compiled for sm_90: only kernels whose loop nests fuse per element or are independent are supported yet; the other targets run it

func.func @scale(%a: tensor<?xf32>) -> tensor<?xf32> {
  %r = arith.addf %a, %a : tensor<?xf32>
  return %r : tensor<?xf32>
}

func.func @matmul(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>) -> tensor<8x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
  %m = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%f : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %m : tensor<8x4xf32>
}

// A row sum feeding a division of every element: the second nest needs the whole first
// one, which no grid-wide barrier orders, so this kernel runs on the CPU only.
func.func @normalize(%a: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2xf32>) -> tensor<2xf32>
  %s = linalg.reduce { arith.addf } ins(%a : tensor<2x2xf32>) outs(%f : tensor<2xf32>) dimensions = [1]
  %o = tensor.empty() : tensor<2x2xf32>
  %n = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a, %s : tensor<2x2xf32>, tensor<2xf32>) outs(%o : tensor<2x2xf32>) {
  ^bb0(%x: f32, %t: f32, %out: f32):
    %d = arith.divf %x, %t : f32
    linalg.yield %d : f32
  } -> tensor<2x2xf32>
  return %n : tensor<2x2xf32>
}
