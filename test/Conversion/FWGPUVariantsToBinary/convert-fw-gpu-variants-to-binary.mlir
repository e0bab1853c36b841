// REQUIRES: ptxas
// RUN: %fw-opt %s --split-input-file --convert-fw-gpu-variants-to-binary --verify-diagnostics | FileCheck %s

/// A kernel of one linalg op becomes a grid-stride loop over its iteration
/// space: every thread starts at its global index and strides by the grid
/// (any grid computes the whole op); the PTX and the cubin are attached to
/// the variant and its module is emptied. CPU variants are left alone.
// CHECK-LABEL: fw.executable @k
// CHECK: fw.variant @cpu target(#fw.cpu<"x86-64-v3">)
// CHECK: linalg.generic
// CHECK: fw.variant @gpu target(#fw.cuda<"sm_90">) attributes
// CHECK-SAME: fw.block_size = 256 : i64
// CHECK-SAME: fw.cubin = "\7FELF
// CHECK-SAME: fw.kernel = "k"
// CHECK-SAME: .target sm_90
// CHECK-SAME: .entry k(
// CHECK-SAME: .maxntid 256, 1, 1
// CHECK-SAME: %ctaid.x
// CHECK-SAME: %nctaid.x
// CHECK-NEXT: builtin.module {
// CHECK-NEXT: }
#id = affine_map<(d0, d1) -> (d0, d1)>
fw.executable @k attributes {access = [#fw.access<read>, #fw.access<write>], bindings = [tensor<?x?xf32>, tensor<?x?xf32>]} {
  fw.variant @cpu target(#fw.cpu<"x86-64-v3">) {
    builtin.module {
      func.func @k(%in: memref<?x?xf32>, %out: memref<?x?xf32>) {
        linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
            ins(%in : memref<?x?xf32>) outs(%out : memref<?x?xf32>) {
        ^bb0(%x: f32, %o: f32):
          %y = math.exp %x : f32
          linalg.yield %y : f32
        }
        return
      }
    }
  }
  fw.variant @gpu target(#fw.cuda<"sm_90">) {
    builtin.module {
      func.func @k(%in: memref<?x?xf32>, %out: memref<?x?xf32>) {
        linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
            ins(%in : memref<?x?xf32>) outs(%out : memref<?x?xf32>) {
        ^bb0(%x: f32, %o: f32):
          %y = math.exp %x : f32
          linalg.yield %y : f32
        }
        return
      }
    }
  }
}

// -----

/// A fill, the matmul that accumulates into an intermediate, and an epilogue
/// reading it: a tiled GEMM. Blocks of 256 threads stage slices of A and B in
/// shared memory between barriers (16-byte aligned; A's transposed and padded:
/// 16 x (64 + 4) floats) and read them back with vector loads (K is one slice
/// here, so the fetch of the next one is all zeros and its loads fold away:
/// every ld.global comes before the first barrier); each thread
/// keeps its 4x4 accumulators in registers (no local memory) and contracts
/// products and sums into FMAs; launch bounds from the target table (2 blocks
/// of 256 per SM).
// CHECK-LABEL: fw.executable @mm
// CHECK: fw.variant @gpu target(#fw.cuda<"sm_90">) attributes
// CHECK-SAME: fw.kernel = "mm"
// CHECK-SAME: .entry mm(
// CHECK-SAME: .maxntid 256, 1, 1
// CHECK-SAME: .minnctapersm 2
// CHECK-NOT: .local
// CHECK-SAME: .shared .align 16 .b8 __wg_mm_0[4352]
// CHECK-SAME: .shared .align 16 .b8 __wg_mm_1[4096]
// CHECK-NOT: .local
// CHECK-SAME: ld.global
// CHECK-SAME: st.shared
// CHECK-SAME: bar.sync
// CHECK-NOT: ld.global
// CHECK-SAME: ld.shared.v4.b32
// CHECK-SAME: fma.rn.f32
// CHECK-SAME: max.f32
// CHECK-SAME: st.global.b32
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
fw.executable @mm attributes {access = [#fw.access<read>, #fw.access<read>, #fw.access<write>], bindings = [tensor<8x16xf32>, tensor<16x4xf32>, tensor<8x4xf32>]} {
  fw.variant @gpu target(#fw.cuda<"sm_90">) {
    builtin.module {
      func.func @mm(%a: memref<8x16xf32>, %b: memref<16x4xf32>, %out: memref<8x4xf32>) {
        %zero = arith.constant 0.0 : f32
        %acc = memref.alloc() : memref<8x4xf32>
        linalg.fill ins(%zero : f32) outs(%acc : memref<8x4xf32>)
        linalg.matmul ins(%a, %b : memref<8x16xf32>, memref<16x4xf32>) outs(%acc : memref<8x4xf32>)
        linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
            ins(%acc : memref<8x4xf32>) outs(%out : memref<8x4xf32>) {
        ^bb0(%x: f32, %o: f32):
          %y = arith.maxnumf %x, %zero : f32
          linalg.yield %y : f32
        }
        memref.dealloc %acc : memref<8x4xf32>
        return
      }
    }
  }
}

// -----

/// A fill, the row sum that accumulates into an intermediate, and a scaling
/// of the sum: the three nests fuse per row and the intermediate becomes a
/// register of each thread, so the PTX uses no local memory and writes only
/// the result.
// CHECK-LABEL: fw.executable @rowsum
// CHECK: fw.variant @gpu target(#fw.cuda<"sm_90">) attributes
// CHECK-SAME: .entry rowsum(
// CHECK-NOT: .local
// CHECK-NOT: .shared
// CHECK-NOT: st.global
// CHECK-SAME: {{add(.rn)?.f32}}
// CHECK-SAME: {{mul(.rn)?.f32}}
// CHECK-SAME: st.global.b32
// CHECK-NOT: st.global
// CHECK-SAME: ret;
#in2 = affine_map<(d0, d1) -> (d0, d1)>
#row2 = affine_map<(d0, d1) -> (d0)>
#id1 = affine_map<(d0) -> (d0)>
fw.executable @rowsum attributes {access = [#fw.access<read>, #fw.access<write>], bindings = [tensor<8x16xf32>, tensor<8xf32>]} {
  fw.variant @gpu target(#fw.cuda<"sm_90">) {
    builtin.module {
      func.func @rowsum(%in: memref<8x16xf32>, %out: memref<8xf32>) {
        %zero = arith.constant 0.0 : f32
        %half = arith.constant 0.5 : f32
        %sum = memref.alloc() : memref<8xf32>
        linalg.fill ins(%zero : f32) outs(%sum : memref<8xf32>)
        linalg.generic {indexing_maps = [#in2, #row2], iterator_types = ["parallel", "reduction"]}
            ins(%in : memref<8x16xf32>) outs(%sum : memref<8xf32>) {
        ^bb0(%x: f32, %acc: f32):
          %y = arith.addf %x, %acc : f32
          linalg.yield %y : f32
        }
        linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
            ins(%sum : memref<8xf32>) outs(%out : memref<8xf32>) {
        ^bb0(%x: f32, %o: f32):
          %y = arith.mulf %x, %half : f32
          linalg.yield %y : f32
        }
        return
      }
    }
  }
}

// -----

/// Independent nests (no result of one is read or written by another) each
/// get their own grid-stride loop; work without a parallel loop (a sum to a
/// scalar) runs in the first thread.
// CHECK-LABEL: fw.executable @indep
// CHECK: fw.variant @gpu target(#fw.cuda<"sm_90">) attributes
// CHECK-SAME: fw.cubin = "\7FELF
// CHECK-SAME: fw.kernel = "indep"
#id1 = affine_map<(d0) -> (d0)>
#sum = affine_map<(d0) -> ()>
fw.executable @indep attributes {access = [#fw.access<read>, #fw.access<write>, #fw.access<write>], bindings = [tensor<64xf32>, tensor<64xf32>, tensor<f32>]} {
  fw.variant @gpu target(#fw.cuda<"sm_90">) {
    builtin.module {
      func.func @indep(%in: memref<64xf32>, %twice: memref<64xf32>, %total: memref<f32>) {
        %zero = arith.constant 0.0 : f32
        linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
            ins(%in : memref<64xf32>) outs(%twice : memref<64xf32>) {
        ^bb0(%x: f32, %o: f32):
          %y = arith.addf %x, %x : f32
          linalg.yield %y : f32
        }
        linalg.fill ins(%zero : f32) outs(%total : memref<f32>)
        linalg.generic {indexing_maps = [#id1, #sum], iterator_types = ["reduction"]}
            ins(%in : memref<64xf32>) outs(%total : memref<f32>) {
        ^bb0(%x: f32, %acc: f32):
          %y = arith.addf %x, %acc : f32
          linalg.yield %y : f32
        }
        return
      }
    }
  }
}

// -----

/// A row maximum feeding exp(x - max), with long rows: a block per row. The
/// threads split the row, their partial maxima combine across the block with
/// warp shuffles and workgroup memory, and the row value waits in workgroup
/// memory behind a barrier for the elementwise part.
// CHECK-LABEL: fw.executable @rowmax
// CHECK: fw.variant @gpu target(#fw.cuda<"sm_90">) attributes
// CHECK-SAME: .entry rowmax(
// CHECK-SAME: .maxntid 256, 1, 1
// CHECK-NOT: .local
// CHECK-SAME: .shared
// CHECK-SAME: shfl.sync.bfly.b32
// CHECK-SAME: bar.sync
// CHECK-SAME: ex2.approx
// CHECK-SAME: st.global.b32
#rowin = affine_map<(d0, d1) -> (d0, d1)>
#rowout = affine_map<(d0, d1) -> (d0)>
fw.executable @rowmax attributes {access = [#fw.access<read>, #fw.access<write>], bindings = [tensor<?x1024xf32>, tensor<?x1024xf32>]} {
  fw.variant @gpu target(#fw.cuda<"sm_90">) {
    builtin.module {
      func.func @rowmax(%in: memref<?x1024xf32>, %out: memref<?x1024xf32>) {
        %ninf = arith.constant 0xFF800000 : f32
        %c0 = arith.constant 0 : index
        %rows = memref.dim %in, %c0 : memref<?x1024xf32>
        %max = memref.alloc(%rows) : memref<?xf32>
        linalg.fill ins(%ninf : f32) outs(%max : memref<?xf32>)
        linalg.generic {indexing_maps = [#rowin, #rowout], iterator_types = ["parallel", "reduction"]}
            ins(%in : memref<?x1024xf32>) outs(%max : memref<?xf32>) {
        ^bb0(%x: f32, %acc: f32):
          %y = arith.maximumf %x, %acc : f32
          linalg.yield %y : f32
        }
        linalg.generic {indexing_maps = [#rowin, #rowout, #rowin], iterator_types = ["parallel", "parallel"]}
            ins(%in, %max : memref<?x1024xf32>, memref<?xf32>) outs(%out : memref<?x1024xf32>) {
        ^bb0(%x: f32, %m: f32, %o: f32):
          %d = arith.subf %x, %m : f32
          %e = math.exp %d : f32
          linalg.yield %e : f32
        }
        return
      }
    }
  }
}

// -----

/// Dynamic shapes: the fills take their bounds from the outputs, the reduction
/// from its input; the ops prove those extents equal, so the nests fuse per row
/// (two sums of a row, each started by its fill).
// CHECK-LABEL: fw.executable @dynsum
// CHECK: fw.variant @gpu target(#fw.cuda<"sm_90">) attributes
// CHECK-SAME: fw.cubin = "\7FELF
// CHECK-SAME: fw.kernel = "dynsum"
#din = affine_map<(d0, d1) -> (d0, d1)>
#dout = affine_map<(d0, d1) -> (d0)>
fw.executable @dynsum attributes {access = [#fw.access<read>, #fw.access<write>, #fw.access<write>], bindings = [tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>]} {
  fw.variant @gpu target(#fw.cuda<"sm_90">) {
    builtin.module {
      func.func @dynsum(%in: memref<?x?xf32>, %sum: memref<?xf32>, %squares: memref<?xf32>) {
        %zero = arith.constant 0.0 : f32
        linalg.fill ins(%zero : f32) outs(%sum : memref<?xf32>)
        linalg.fill ins(%zero : f32) outs(%squares : memref<?xf32>)
        linalg.generic {indexing_maps = [#din, #dout, #dout], iterator_types = ["parallel", "reduction"]}
            ins(%in : memref<?x?xf32>) outs(%sum, %squares : memref<?xf32>, memref<?xf32>) {
        ^bb0(%x: f32, %s: f32, %q: f32):
          %y = arith.addf %x, %s : f32
          %x2 = arith.mulf %x, %x : f32
          %z = arith.addf %x2, %q : f32
          linalg.yield %y, %z : f32, f32
        }
        return
      }
    }
  }
}

// -----

/// negative_: a row sum feeding a division of every element, with rows too
/// short (8) for a block per row. The second nest needs all of the first,
/// which nothing orders across the grid: with another variant the NVIDIA one
/// is dropped with a warning.
// CHECK-LABEL: fw.executable @norm
// CHECK: fw.variant @cpu
// CHECK-NOT: fw.variant @gpu
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
fw.executable @norm attributes {access = [#fw.access<read>, #fw.access<write>], bindings = [tensor<4x8xf32>, tensor<4x8xf32>]} {
  fw.variant @cpu target(#fw.cpu<"x86-64-v3">) {
    builtin.module {
      func.func @norm(%in: memref<4x8xf32>, %out: memref<4x8xf32>) {
        return
      }
    }
  }
  // expected-warning @+1 {{not compiled for sm_90: only kernels whose loop nests fuse per element or are independent are supported yet; the other targets run it}}
  fw.variant @gpu target(#fw.cuda<"sm_90">) {
    builtin.module {
      func.func @norm(%in: memref<4x8xf32>, %out: memref<4x8xf32>) {
        %zero = arith.constant 0.0 : f32
        %sum = memref.alloc() : memref<4xf32>
        linalg.fill ins(%zero : f32) outs(%sum : memref<4xf32>)
        linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]}
            ins(%in : memref<4x8xf32>) outs(%sum : memref<4xf32>) {
        ^bb0(%x: f32, %acc: f32):
          %y = arith.addf %x, %acc : f32
          linalg.yield %y : f32
        }
        linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]}
            ins(%in, %sum : memref<4x8xf32>, memref<4xf32>) outs(%out : memref<4x8xf32>) {
        ^bb0(%x: f32, %t: f32, %o: f32):
          %y = arith.divf %x, %t : f32
          linalg.yield %y : f32
        }
        return
      }
    }
  }
}

// -----

/// negative_: two writers of one output that do not fuse (the second reads
/// the first at other elements) depend on each other across the grid.
// CHECK-LABEL: fw.executable @shift
// CHECK: fw.variant @cpu
// CHECK-NOT: fw.variant @gpu
#id1 = affine_map<(d0) -> (d0)>
#next = affine_map<(d0) -> (d0 + 1)>
fw.executable @shift attributes {access = [#fw.access<read>, #fw.access<readwrite>], bindings = [tensor<9xf32>, tensor<9xf32>]} {
  fw.variant @cpu target(#fw.cpu<"x86-64-v3">) {
    builtin.module {
      func.func @shift(%in: memref<9xf32>, %out: memref<9xf32>) {
        return
      }
    }
  }
  // expected-warning @+1 {{not compiled for sm_90}}
  fw.variant @gpu target(#fw.cuda<"sm_90">) {
    builtin.module {
      func.func @shift(%in: memref<9xf32>, %out: memref<9xf32>) {
        linalg.copy ins(%in : memref<9xf32>) outs(%out : memref<9xf32>)
        %head = memref.subview %out[0] [8] [1] : memref<9xf32> to memref<8xf32, strided<[1]>>
        linalg.generic {indexing_maps = [#next, #id1], iterator_types = ["parallel"]}
            ins(%out : memref<9xf32>) outs(%head : memref<8xf32, strided<[1]>>) {
        ^bb0(%x: f32, %o: f32):
          linalg.yield %x : f32
        }
        return
      }
    }
  }
}

// -----

/// negative_: a variant whose module has no kernel (empty, or only a
/// declaration) is an error, not a crash.
fw.executable @empty attributes {access = [], bindings = []} {
  // expected-error @+1 {{cannot be compiled for sm_90: only kernels whose loop nests fuse per element or are independent are supported yet; add a CPU target}}
  fw.variant @gpu target(#fw.cuda<"sm_90">) {
    builtin.module {
      func.func private @empty()
    }
  }
}

// -----

/// Autotuning candidates for one target (fw-tune-variants): each variant's
/// knobs shape its kernel. The GEMM tile 128x64 with 8x4 per thread stages a
/// 128x16 slice of A (8 KiB, 8.25 with its padding) and a 16x64 slice of B (4 KiB) with 256 threads;
/// a candidate whose knob the kernel does not use (a block size for a GEMM)
/// would be the first variant again and is dropped.
// CHECK-LABEL: fw.executable @mm_candidates
// CHECK: fw.variant @gpu target(#fw.cuda<"sm_90">) attributes
// CHECK-SAME: fw.block_size = 256 : i64
// CHECK-SAME: .shared .align 16 .b8 __wg_mm_candidates_0[4352]
// CHECK-SAME: .shared .align 16 .b8 __wg_mm_candidates_1[4096]
// CHECK: fw.variant @gpu_t1 target(#fw.cuda<"sm_90">) attributes
// CHECK-SAME: config = {thread_m = 8 : i64, thread_n = 4 : i64, tile_k = 16 : i64, tile_m = 128 : i64, tile_n = 64 : i64}
// CHECK-SAME: fw.block_size = 256 : i64
// CHECK-SAME: .maxntid 256, 1, 1
// CHECK-SAME: .shared .align 16 .b8 __wg_mm_candidates_0[8448]
// CHECK-SAME: .shared .align 16 .b8 __wg_mm_candidates_1[4096]
// CHECK-NOT: fw.variant @gpu_t2
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
fw.executable @mm_candidates attributes {access = [#fw.access<read>, #fw.access<read>, #fw.access<write>], bindings = [tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>], fw.autotune} {
  fw.variant @gpu target(#fw.cuda<"sm_90">) {
    builtin.module {
      func.func @mm_candidates(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %out: memref<?x?xf32>) {
        linalg.matmul ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>) outs(%out : memref<?x?xf32>)
        return
      }
    }
  }
  fw.variant @gpu_t1 target(#fw.cuda<"sm_90">) attributes {config = {thread_m = 8 : i64, thread_n = 4 : i64, tile_k = 16 : i64, tile_m = 128 : i64, tile_n = 64 : i64}} {
    builtin.module {
      func.func @mm_candidates(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %out: memref<?x?xf32>) {
        linalg.matmul ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>) outs(%out : memref<?x?xf32>)
        return
      }
    }
  }
  fw.variant @gpu_t2 target(#fw.cuda<"sm_90">) attributes {config = {block = 512 : i64}} {
    builtin.module {
      func.func @mm_candidates(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %out: memref<?x?xf32>) {
        linalg.matmul ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>) outs(%out : memref<?x?xf32>)
        return
      }
    }
  }
}

// -----

/// Threads per block of elementwise work: launch bounds follow (one block of
/// 1024 per SM at 64 registers a thread); GEMM tiles of a kernel that is no
/// GEMM would change nothing, so that candidate is dropped.
// CHECK-LABEL: fw.executable @ew_candidates
// CHECK: fw.variant @gpu target(#fw.cuda<"sm_90">) attributes
// CHECK-SAME: .maxntid 256, 1, 1
// CHECK: fw.variant @gpu_t1 target(#fw.cuda<"sm_90">) attributes
// CHECK-SAME: config = {block = 1024 : i64}
// CHECK-SAME: fw.block_size = 1024 : i64
// CHECK-SAME: .maxntid 1024, 1, 1
// CHECK-SAME: .minnctapersm 1
// CHECK-NOT: fw.variant @gpu_t2
#id = affine_map<(d0) -> (d0)>
fw.executable @ew_candidates attributes {access = [#fw.access<read>, #fw.access<write>], bindings = [tensor<?xf32>, tensor<?xf32>], fw.autotune} {
  fw.variant @gpu target(#fw.cuda<"sm_90">) {
    builtin.module {
      func.func @ew_candidates(%in: memref<?xf32>, %out: memref<?xf32>) {
        linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
            ins(%in : memref<?xf32>) outs(%out : memref<?xf32>) {
        ^bb0(%x: f32, %o: f32):
          %y = math.exp %x : f32
          linalg.yield %y : f32
        }
        return
      }
    }
  }
  fw.variant @gpu_t1 target(#fw.cuda<"sm_90">) attributes {config = {block = 1024 : i64}} {
    builtin.module {
      func.func @ew_candidates(%in: memref<?xf32>, %out: memref<?xf32>) {
        linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
            ins(%in : memref<?xf32>) outs(%out : memref<?xf32>) {
        ^bb0(%x: f32, %o: f32):
          %y = math.exp %x : f32
          linalg.yield %y : f32
        }
        return
      }
    }
  }
  fw.variant @gpu_t2 target(#fw.cuda<"sm_90">) attributes {config = {tile_m = 128 : i64, thread_m = 8 : i64}} {
    builtin.module {
      func.func @ew_candidates(%in: memref<?xf32>, %out: memref<?xf32>) {
        linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
            ins(%in : memref<?xf32>) outs(%out : memref<?xf32>) {
        ^bb0(%x: f32, %o: f32):
          %y = math.exp %x : f32
          linalg.yield %y : f32
        }
        return
      }
    }
  }
}

// -----

/// A GEMM whose result is known to be big (2048x2048: 512 tiles of 128x64)
/// gets the 128x64 tile (8x4 per thread, k 16) without knobs; a candidate that
/// asks for that tile is the first variant again and is dropped, one that asks
/// for 64x64 keeps it.
// CHECK-LABEL: fw.executable @mm_big
// CHECK: fw.variant @gpu target(#fw.cuda<"sm_90">) attributes
// CHECK-SAME: fw.block_size = 256 : i64
// CHECK-SAME: .maxntid 256, 1, 1
// CHECK-SAME: .shared .align 16 .b8 __wg_mm_big_0[8448]
// CHECK-SAME: .shared .align 16 .b8 __wg_mm_big_1[4096]
// CHECK-NOT: fw.variant @gpu_t1
// CHECK: fw.variant @gpu_t2 target(#fw.cuda<"sm_90">) attributes
// CHECK-SAME: .shared .align 16 .b8 __wg_mm_big_0[4352]
// CHECK-SAME: .shared .align 16 .b8 __wg_mm_big_1[4096]
fw.executable @mm_big attributes {access = [#fw.access<read>, #fw.access<read>, #fw.access<write>], bindings = [tensor<2048x64xf32>, tensor<64x2048xf32>, tensor<2048x2048xf32>], fw.autotune} {
  fw.variant @gpu target(#fw.cuda<"sm_90">) {
    builtin.module {
      func.func @mm_big(%a: memref<2048x64xf32>, %b: memref<64x2048xf32>, %out: memref<2048x2048xf32>) {
        linalg.matmul ins(%a, %b : memref<2048x64xf32>, memref<64x2048xf32>) outs(%out : memref<2048x2048xf32>)
        return
      }
    }
  }
  fw.variant @gpu_t1 target(#fw.cuda<"sm_90">) attributes {config = {thread_m = 8 : i64, thread_n = 4 : i64, tile_k = 16 : i64, tile_m = 128 : i64, tile_n = 64 : i64}} {
    builtin.module {
      func.func @mm_big(%a: memref<2048x64xf32>, %b: memref<64x2048xf32>, %out: memref<2048x2048xf32>) {
        linalg.matmul ins(%a, %b : memref<2048x64xf32>, memref<64x2048xf32>) outs(%out : memref<2048x2048xf32>)
        return
      }
    }
  }
  fw.variant @gpu_t2 target(#fw.cuda<"sm_90">) attributes {config = {thread_m = 4 : i64, thread_n = 4 : i64, tile_k = 16 : i64, tile_m = 64 : i64, tile_n = 64 : i64}} {
    builtin.module {
      func.func @mm_big(%a: memref<2048x64xf32>, %b: memref<64x2048xf32>, %out: memref<2048x2048xf32>) {
        linalg.matmul ins(%a, %b : memref<2048x64xf32>, memref<64x2048xf32>) outs(%out : memref<2048x2048xf32>)
        return
      }
    }
  }
}
