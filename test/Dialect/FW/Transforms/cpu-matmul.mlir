// RUN: %fw-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(fw-cpu-matmul{vector-bits=256 vector-registers=16 l1-bytes=32768 l2-bytes=524288},canonicalize))' | FileCheck %s
// RUN: %fw-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(fw-cpu-matmul{vector-bits=512 vector-registers=32 l1-bytes=32768 l2-bytes=1048576}))' | FileCheck %s --check-prefix=V4
// RUN: %fw-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(fw-cpu-matmul{mr=4 nr=8 kc=64 mc=32 nc=128}))' | FileCheck %s --check-prefix=SIZES
// RUN: %fw-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(fw-cpu-matmul{fuse=false}))' | FileCheck %s --check-prefix=NOFUSE
// RUN: %fw-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(fw-cpu-matmul{distribute=true}))' | FileCheck %s --check-prefix=DIST

/// AVX2 (16 registers of 8 floats): a 6 x 16 register tile, kc = 512 (a
/// 32 KiB micro-panel of B), mc = 126 (half of L2), one block of columns
/// (N < nc, so canonicalization removes that loop), blocks of B packed
/// directly (its rows are contiguous), blocks of A transposed 8 steps at a
/// time, and C read and written through masked transfers.
// CHECK-LABEL: func.func @matmul
// CHECK-DAG: %[[C512:.*]] = arith.constant 512 : index
// CHECK-DAG: %[[C126:.*]] = arith.constant 126 : index
// CHECK-DAG: %[[BP:.*]] = memref.alloc() {alignment = 64 : i64} : memref<63x512x16xf32>
// CHECK-DAG: %[[AP:.*]] = memref.alloc() {alignment = 64 : i64} : memref<21x512x6xf32>
// CHECK: scf.for %[[PC:.*]] = {{.*}} step %[[C512]]
// CHECK: vector.transfer_read %arg1{{.*}} : memref<1000x1000xf32>, vector<16xf32>
// CHECK: vector.store {{.*}}, %[[BP]]{{.*}} : memref<63x512x16xf32>, vector<16xf32>
// CHECK: scf.for %{{.*}} = {{.*}} step %[[C126]]
// CHECK: vector.transfer_read %arg0{{.*}} : memref<1000x1000xf32>, vector<6x8xf32>
// CHECK: vector.transpose {{.*}} [1, 0] : vector<6x8xf32> to vector<8x6xf32>
// CHECK-COUNT-8: vector.store {{.*}}, %[[AP]]
// CHECK: vector.transfer_read %arg2{{.*}} : memref<1000x1000xf32>, vector<6x16xf32>
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK: vector.load {{.*}} vector<6xf32>
// CHECK: vector.load {{.*}} vector<16xf32>
// CHECK: vector.contract {{.*}} : vector<1x6xf32>, vector<1x16xf32> into vector<6x16xf32>
// CHECK: vector.transfer_write {{.*}}, %arg2{{.*}} : vector<6x16xf32>, memref<1000x1000xf32>
// CHECK-DAG: memref.dealloc %[[AP]]
// CHECK-DAG: memref.dealloc %[[BP]]
// CHECK-NOT: linalg.matmul

/// AVX-512 (32 registers of 16 floats): a 12 x 32 tile (24 accumulators), kc = 256 and mc = 504.
// V4-LABEL: func.func @matmul
// V4-DAG: memref.alloc() {alignment = 64 : i64} : memref<32x256x32xf32>
// V4-DAG: memref.alloc() {alignment = 64 : i64} : memref<42x256x12xf32>
// V4: vector.contract {{.*}} : vector<1x12xf32>, vector<1x32xf32> into vector<12x32xf32>

/// distribute: the larger of M and N is cut among the workgroups in whole
/// register tiles (6 rows, 16 columns); the loops over blocks of C start at
/// this workgroup's part.
// DIST-LABEL: func.func @matmul
// DIST-DAG: %[[ID:.*]] = fw.workgroup_id : index
// DIST-DAG: %[[COUNT:.*]] = fw.workgroup_count : index
// DIST: %[[ROWS:.*]] = arith.cmpi uge
// DIST: %[[MLO:.*]] = arith.select %[[ROWS]]
// DIST: %[[MHI:.*]] = arith.select %[[ROWS]]
// DIST: %[[NLO:.*]] = arith.select %[[ROWS]]
// DIST: %[[NHI:.*]] = arith.select %[[ROWS]]
// DIST: scf.for %{{.*}} = %[[NLO]] to %[[NHI]]
// DIST: scf.for %{{.*}} = %[[MLO]] to %[[MHI]]

/// Explicit sizes.
// SIZES-LABEL: func.func @matmul
// SIZES-DAG: memref.alloc() {alignment = 64 : i64} : memref<16x64x8xf32>
// SIZES-DAG: memref.alloc() {alignment = 64 : i64} : memref<8x64x4xf32>
// SIZES: vector.contract {{.*}} : vector<1x4xf32>, vector<1x8xf32> into vector<4x8xf32>
func.func @matmul(%a: memref<1000x1000xf32>, %b: memref<1000x1000xf32>, %c: memref<1000x1000xf32>) {
  linalg.matmul ins(%a, %b : memref<1000x1000xf32>, memref<1000x1000xf32>) outs(%c : memref<1000x1000xf32>)
  return
}

// -----

/// Transposed B: its rows run along the reduction, so it is the operand that
/// is transposed while packed; A (here in [k, m] layout) is packed directly.
/// Packed buffers are no larger than the operands.
// CHECK-LABEL: func.func @transposed
// CHECK-DAG: memref.alloc() {alignment = 64 : i64} : memref<3x32x16xf32>
// CHECK-DAG: memref.alloc() {alignment = 64 : i64} : memref<7x32x6xf32>
// CHECK: vector.transfer_read %arg1{{.*}} : memref<45x29xf32>, vector<16x8xf32>
// CHECK: vector.transpose {{.*}} : vector<16x8xf32> to vector<8x16xf32>
// CHECK: vector.transfer_read %arg0{{.*}} : memref<29x37xf32>, vector<6xf32>
// CHECK: vector.contract
func.func @transposed(%a: memref<29x37xf32>, %b: memref<45x29xf32>, %c: memref<37x45xf32>) {
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (n, k)>,
                                   affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<29x37xf32>, memref<45x29xf32>) outs(%c : memref<37x45xf32>) {
  ^bb0(%x: f32, %y: f32, %s: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %s, %p : f32
    linalg.yield %r : f32
  }
  return
}

// -----

/// A batch loop around the nest; dynamic sizes bound the loops at run time.
// CHECK-LABEL: func.func @batched
// CHECK: %[[B:.*]] = memref.dim %arg0, %c0
// CHECK: scf.for %[[I:.*]] = %c0 to %[[B]] step %c1
// CHECK: vector.transfer_read %arg1[%[[I]], {{.*}}], %{{.*}} : memref<?x?x?xf32>, vector<16xf32>
// CHECK: vector.contract
// CHECK: vector.transfer_write {{.*}}, %arg2[%[[I]], {{.*}}] : vector<6x16xf32>, memref<?x?x?xf32>
func.func @batched(%a: memref<?x?x?xf32>, %b: memref<?x?x?xf32>, %c: memref<?x?x?xf32>) {
  linalg.batch_matmul ins(%a, %b : memref<?x?x?xf32>, memref<?x?x?xf32>) outs(%c : memref<?x?x?xf32>)
  return
}

// -----

/// negative_: other element types, mixed precision, no N dimension, a
/// non-unit innermost stride, and non-contractions are left alone.
// CHECK-LABEL: func.func @negative_cases
// CHECK-NOT: vector.contract
// CHECK: linalg.matmul ins(%arg0, %arg1 : memref<64x64xf16>, memref<64x64xf16>)
// CHECK: linalg.matmul ins(%arg0, %arg1 : memref<64x64xf16>, memref<64x64xf16>) outs(%arg3
// CHECK: linalg.matmul ins(%arg4, %arg4 : memref<64x64xi32>, memref<64x64xi32>)
// CHECK: linalg.matvec
// CHECK: linalg.matmul ins(%arg5, %arg2
// CHECK: linalg.add
// CHECK-NOT: vector.contract
func.func @negative_cases(%h: memref<64x64xf16>, %hb: memref<64x64xf16>, %f: memref<64x64xf32>,
                          %hc: memref<64x64xf16>, %i: memref<64x64xi32>,
                          %s: memref<64x64xf32, strided<[128, 2]>>) {
  linalg.matmul ins(%h, %hb : memref<64x64xf16>, memref<64x64xf16>) outs(%f : memref<64x64xf32>)
  linalg.matmul ins(%h, %hb : memref<64x64xf16>, memref<64x64xf16>) outs(%hc : memref<64x64xf16>)
  linalg.matmul ins(%i, %i : memref<64x64xi32>, memref<64x64xi32>) outs(%i : memref<64x64xi32>)
  %v = memref.alloc() : memref<64xf32>
  %w = memref.alloc() : memref<64xf32>
  linalg.matvec ins(%f, %v : memref<64x64xf32>, memref<64xf32>) outs(%w : memref<64xf32>)
  linalg.matmul ins(%s, %f : memref<64x64xf32, strided<[128, 2]>>, memref<64x64xf32>) outs(%f : memref<64x64xf32>)
  linalg.add ins(%f, %f : memref<64x64xf32>, memref<64x64xf32>) outs(%f : memref<64x64xf32>)
  return
}

// -----

/// The fill becomes the accumulators' starting value in the first block of
/// reduction steps, and the bias + ReLU epilogue is applied to the register
/// tile after the last one, writing %out directly: the staging buffer %c,
/// the fill and the epilogue are gone. K = 0 still runs one (empty) block.
// CHECK-LABEL: func.func @fused
// CHECK-NOT: memref<64x64xf32>
// CHECK-NOT: linalg.
// CHECK: %[[STEPS:.*]] = arith.maxsi %{{.*}}, %c1
// CHECK: scf.for %[[PC:.*]] = %c0 to %[[STEPS]] step %c512
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[PC]], %c0
// CHECK: %[[LAST:.*]] = arith.cmpi sge
// CHECK: scf.if %[[FIRST]] -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK: vector.broadcast %arg4 : f32 to vector<16xf32>
// CHECK: else
// CHECK: vector.transfer_read %arg3
// CHECK: vector.contract
// CHECK: scf.if %[[LAST]] {
// CHECK: %[[BIAS:.*]] = vector.transfer_read %arg2[%{{.*}}], %{{.*}} : memref<?xf32>, vector<16xf32>
// CHECK-COUNT-6: arith.maximumf {{.*}} : vector<16xf32>
// CHECK: vector.transfer_write {{.*}}, %arg3
// CHECK: } else {
// CHECK: vector.transfer_write {{.*}}, %arg3
// CHECK-NOT: linalg.
/// A kernel that is only the contraction, its fill and its epilogue is
/// divided.
// DIST-LABEL: func.func @fused
// DIST: fw.workgroup_id

/// With fuse=false the fill and the epilogue stay.
// NOFUSE-LABEL: func.func @fused
// NOFUSE: linalg.fill
// NOFUSE: vector.contract
// NOFUSE: linalg.generic
func.func @fused(%x: memref<?x?xf32>, %w: memref<?x?xf32>, %b: memref<?xf32>, %out: memref<?x?xf32>, %zero: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = memref.dim %x, %c0 : memref<?x?xf32>
  %n = memref.dim %w, %c1 : memref<?x?xf32>
  %c = memref.alloc(%m, %n) : memref<?x?xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<?x?xf32>)
  linalg.matmul ins(%x, %w : memref<?x?xf32>, memref<?x?xf32>) outs(%c : memref<?x?xf32>)
  linalg.generic {indexing_maps = [affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> (n)>, affine_map<(m, n) -> (m, n)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%c, %b : memref<?x?xf32>, memref<?xf32>) outs(%out : memref<?x?xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %s = arith.addf %v, %bias : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  }
  memref.dealloc %c : memref<?x?xf32>
  return
}

// -----

/// negative_: the epilogue is not folded when C is read again afterwards,
/// when C is one of the kernel's arguments (its contents are a result), or
/// when the epilogue reads C transposed; the fill still is.
/// A kernel with other work than one contraction is not divided: each
/// workgroup would repeat it.
// DIST-LABEL: func.func @negative_epilogues
// DIST-NOT: fw.workgroup_id
// CHECK-LABEL: func.func @negative_epilogues
// CHECK-NOT: linalg.fill
// CHECK: vector.contract
// CHECK: linalg.generic
// CHECK: linalg.copy
// CHECK: vector.contract
// CHECK: linalg.generic
// CHECK: vector.contract
// CHECK: linalg.generic
// CHECK-NOT: linalg.fill
#id = affine_map<(m, n) -> (m, n)>
#tr = affine_map<(m, n) -> (n, m)>
func.func @negative_epilogues(%x: memref<32x32xf32>, %w: memref<32x32xf32>, %out: memref<32x32xf32>,
                              %cout: memref<32x32xf32>, %zero: f32) {
  %c = memref.alloc() : memref<32x32xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<32x32xf32>)
  linalg.matmul ins(%x, %w : memref<32x32xf32>, memref<32x32xf32>) outs(%c : memref<32x32xf32>)
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c : memref<32x32xf32>) outs(%out : memref<32x32xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.maximumf %v, %zero : f32
    linalg.yield %r : f32
  }
  linalg.copy ins(%c : memref<32x32xf32>) outs(%cout : memref<32x32xf32>)

  linalg.fill ins(%zero : f32) outs(%cout : memref<32x32xf32>)
  linalg.matmul ins(%x, %w : memref<32x32xf32>, memref<32x32xf32>) outs(%cout : memref<32x32xf32>)
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%cout : memref<32x32xf32>) outs(%out : memref<32x32xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.maximumf %v, %zero : f32
    linalg.yield %r : f32
  }

  %d = memref.alloc() : memref<32x32xf32>
  linalg.fill ins(%zero : f32) outs(%d : memref<32x32xf32>)
  linalg.matmul ins(%x, %w : memref<32x32xf32>, memref<32x32xf32>) outs(%d : memref<32x32xf32>)
  linalg.generic {indexing_maps = [#tr, #id], iterator_types = ["parallel", "parallel"]}
      ins(%d : memref<32x32xf32>) outs(%out : memref<32x32xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.maximumf %v, %zero : f32
    linalg.yield %r : f32
  }
  return
}

// -----

/// An NHWC x HWCF convolution is a GEMM over (output pixels) x (filters) x
/// (taps and channels): the filter and the output are viewed as matrices,
/// and the input is packed through an implicit im2col, 8 channels of one
/// input pixel per row of the register block, transposed in registers.
// CHECK-LABEL: func.func @conv
// DIST-LABEL: func.func @conv
// DIST: fw.workgroup_id
// CHECK-DAG: %[[B:.*]] = memref.collapse_shape %arg1 {{\[\[}}0, 1, 2], [3]] : memref<3x3x16x20xf32> into memref<144x20xf32>
// CHECK-DAG: %[[C:.*]] = memref.collapse_shape %arg2 {{\[\[}}0, 1, 2], [3]] : memref<2x11x9x20xf32> into memref<198x20xf32>
// CHECK: vector.transfer_read %[[B]]
// CHECK: vector.transfer_read %arg0[{{.*}}], %{{.*}} {in_bounds = [true]} : memref<2x13x11x16xf32>, vector<8xf32>
// CHECK-COUNT-8: vector.store {{.*}} : memref<21x144x6xf32>, vector<6xf32>
// CHECK: vector.contract
// CHECK: vector.transfer_write {{.*}}, %[[C]]
// CHECK-NOT: linalg.conv
func.func @conv(%x: memref<2x13x11x16xf32>, %w: memref<3x3x16x20xf32>, %y: memref<2x11x9x20xf32>) {
  linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
     ins(%x, %w : memref<2x13x11x16xf32>, memref<3x3x16x20xf32>) outs(%y : memref<2x11x9x20xf32>)
  return
}

// -----

/// negative_: a channel count that is not a multiple of 8 keeps the
/// convolution (computed by loops).
// CHECK-LABEL: func.func @negative_conv_channels
// CHECK: linalg.conv_2d_nhwc_hwcf
// CHECK-NOT: vector.contract
func.func @negative_conv_channels(%x: memref<1x9x9x3xf32>, %w: memref<3x3x3x8xf32>, %y: memref<1x7x7x8xf32>) {
  linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
     ins(%x, %w : memref<1x9x9x3xf32>, memref<3x3x3x8xf32>) outs(%y : memref<1x7x7x8xf32>)
  return
}

// -----

/// A convolution's bias + ReLU epilogue is applied to the register tile:
/// 4-D operands indexed like the output are viewed as M x F matrices and
/// the per-filter bias as a row vector; the staging output disappears.
// CHECK-LABEL: func.func @conv_epilogue
// CHECK-NOT: linalg.
// CHECK-DAG: %[[DST:.*]] = memref.collapse_shape %arg3 {{\[\[}}0, 1, 2], [3]] : memref<1x8x8x16xf32> into memref<64x16xf32>
// CHECK: vector.contract
// CHECK: vector.transfer_read %arg2[%{{.*}}], %{{.*}} : memref<16xf32>, vector<16xf32>
// CHECK: arith.maximumf {{.*}} : vector<16xf32>
// CHECK: vector.transfer_write {{.*}}, %[[DST]]
// CHECK-NOT: linalg.
func.func @conv_epilogue(%x: memref<1x10x10x8xf32>, %w: memref<3x3x8x16xf32>, %b: memref<16xf32>,
                         %y: memref<1x8x8x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<1x8x8x16xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<1x8x8x16xf32>)
  linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
     ins(%x, %w : memref<1x10x10x8xf32>, memref<3x3x8x16xf32>) outs(%c : memref<1x8x8x16xf32>)
  linalg.generic {indexing_maps = [affine_map<(n, h, w, f) -> (n, h, w, f)>, affine_map<(n, h, w, f) -> (f)>,
                                   affine_map<(n, h, w, f) -> (n, h, w, f)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c, %b : memref<1x8x8x16xf32>, memref<16xf32>) outs(%y : memref<1x8x8x16xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %s = arith.addf %v, %bias : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  }
  memref.dealloc %c : memref<1x8x8x16xf32>
  return
}

// -----

/// An elementwise op computing A into a buffer only the contraction reads is
/// computed while A is packed: its input is read where A would be, the body
/// applied to the vectors, before the transpose. The staging buffer and the
/// op disappear.
// CHECK-LABEL: func.func @prologue
// CHECK-NOT: linalg.
// CHECK-NOT: memref.alloc() : memref<64x32xf32>
// CHECK: %[[X:.*]] = vector.transfer_read %arg0{{.*}} : memref<64x32xf32>, vector<6x8xf32>
// CHECK: %[[S:.*]] = arith.mulf %[[X]], %{{.*}} : vector<6x8xf32>
// CHECK: vector.transpose %[[S]]
// CHECK: vector.contract
// DIST-LABEL: func.func @prologue
// DIST: fw.workgroup_id
func.func @prologue(%x: memref<64x32xf32>, %w: memref<32x16xf32>, %y: memref<64x16xf32>, %s: f32) {
  %a = memref.alloc() : memref<64x32xf32>
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<64x32xf32>) outs(%a : memref<64x32xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.mulf %v, %s : f32
    linalg.yield %r : f32
  }
  linalg.matmul ins(%a, %w : memref<64x32xf32>, memref<32x16xf32>) outs(%y : memref<64x16xf32>)
  memref.dealloc %a : memref<64x32xf32>
  return
}

// -----

/// negative_: a prologue whose input is overwritten before the contraction
/// (it must run at its place) stays.
// CHECK-LABEL: func.func @negative_prologue
// CHECK: linalg.generic
// CHECK: linalg.fill
// CHECK: vector.contract
func.func @negative_prologue(%x: memref<64x32xf32>, %w: memref<32x16xf32>, %y: memref<64x16xf32>, %s: f32) {
  %a = memref.alloc() : memref<64x32xf32>
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<64x32xf32>) outs(%a : memref<64x32xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.mulf %v, %s : f32
    linalg.yield %r : f32
  }
  linalg.fill ins(%s : f32) outs(%x : memref<64x32xf32>)
  linalg.matmul ins(%a, %w : memref<64x32xf32>, memref<32x16xf32>) outs(%y : memref<64x16xf32>)
  memref.dealloc %a : memref<64x32xf32>
  return
}

// -----

/// negative_: the epilogue stays where folding it would be wrong: it writes
/// in place into its residual input (partial sums would overwrite the
/// residual), it writes f16 (partial sums need f32), or its body uses a value
/// computed after the contraction. A matmul of a prologue's result with
/// itself keeps its prologue.
// CHECK-LABEL: func.func @negative_unsafe_folds
// CHECK-COUNT-3: linalg.generic
// CHECK-NOT: linalg.matmul
#idn = affine_map<(m, n) -> (m, n)>
func.func @negative_unsafe_folds(%x: memref<40x600xf32>, %w: memref<600x40xf32>, %r: memref<40x40xf32>,
                                 %h: memref<40x40xf16>, %s: f32) {
  %zero = arith.constant 0.0 : f32
  %c1 = memref.alloc() : memref<40x40xf32>
  linalg.fill ins(%zero : f32) outs(%c1 : memref<40x40xf32>)
  linalg.matmul ins(%x, %w : memref<40x600xf32>, memref<600x40xf32>) outs(%c1 : memref<40x40xf32>)
  linalg.generic {indexing_maps = [#idn, #idn, #idn], iterator_types = ["parallel", "parallel"]}
      ins(%c1, %r : memref<40x40xf32>, memref<40x40xf32>) outs(%r : memref<40x40xf32>) {
  ^bb0(%v: f32, %res: f32, %o: f32):
    %y = arith.addf %v, %res : f32
    linalg.yield %y : f32
  }
  %c2 = memref.alloc() : memref<40x40xf32>
  linalg.fill ins(%zero : f32) outs(%c2 : memref<40x40xf32>)
  linalg.matmul ins(%x, %w : memref<40x600xf32>, memref<600x40xf32>) outs(%c2 : memref<40x40xf32>)
  linalg.generic {indexing_maps = [#idn, #idn], iterator_types = ["parallel", "parallel"]}
      ins(%c2 : memref<40x40xf32>) outs(%h : memref<40x40xf16>) {
  ^bb0(%v: f32, %o: f16):
    %y = arith.truncf %v : f32 to f16
    linalg.yield %y : f16
  }
  %c3 = memref.alloc() : memref<40x40xf32>
  linalg.fill ins(%zero : f32) outs(%c3 : memref<40x40xf32>)
  linalg.matmul ins(%x, %w : memref<40x600xf32>, memref<600x40xf32>) outs(%c3 : memref<40x40xf32>)
  %later = arith.mulf %s, %s : f32
  linalg.generic {indexing_maps = [#idn, #idn], iterator_types = ["parallel", "parallel"]}
      ins(%c3 : memref<40x40xf32>) outs(%r : memref<40x40xf32>) {
  ^bb0(%v: f32, %o: f32):
    %y = arith.mulf %v, %later : f32
    linalg.yield %y : f32
  }
  return
}

// -----

// CHECK-LABEL: func.func @negative_square_of_prologue
// CHECK: linalg.generic
// CHECK: vector.contract
func.func @negative_square_of_prologue(%x: memref<32x32xf32>, %y: memref<32x32xf32>) {
  %t = memref.alloc() : memref<32x32xf32>
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<32x32xf32>) outs(%t : memref<32x32xf32>) {
  ^bb0(%v: f32, %o: f32):
    %e = math.exp %v : f32
    linalg.yield %e : f32
  }
  linalg.matmul ins(%t, %t : memref<32x32xf32>, memref<32x32xf32>) outs(%y : memref<32x32xf32>)
  memref.dealloc %t : memref<32x32xf32>
  return
}

// -----

/// Elementwise work after the matmul over the rows and columns of C (in
/// place on C, then with another tensor into the result) does not stop the
/// division: each workgroup does it on its own part of C, through views.
/// The division is by rows whatever the shape (no comparison of M and N):
/// each workgroup allocates C whole and touches its own rows only.
// DIST-LABEL: func.func @divided_tail
// DIST: fw.workgroup_id
// DIST-NOT: arith.cmpi uge
// DIST: vector.contract
// DIST: %[[PART:[a-z_0-9]+]] = memref.subview %[[C:[a-z_0-9]+]][%[[MLO:[a-z_0-9]+]], %[[NLO:[a-z_0-9]+]]] [%[[ROWS:[a-z_0-9]+]], %[[COLS:[a-z_0-9]+]]] [1, 1]
// DIST: %[[SAME:[a-z_0-9]+]] = memref.subview %[[C]][%[[MLO]], %[[NLO]]] [%[[ROWS]], %[[COLS]]] [1, 1]
// DIST: linalg.generic {{.*}} ins(%[[PART]] : {{.*}}) outs(%[[SAME]] : {{.*}})
// DIST: math.tanh
// DIST: memref.subview %[[C]][%[[MLO]], %[[NLO]]] [%[[ROWS]], %[[COLS]]] [1, 1]
// DIST: memref.subview %arg2[%[[MLO]], %[[NLO]]] [%[[ROWS]], %[[COLS]]] [1, 1]
// DIST: memref.subview %arg3[%[[MLO]], %[[NLO]]] [%[[ROWS]], %[[COLS]]] [1, 1]
// DIST: linalg.generic
// DIST: arith.mulf
#id = affine_map<(m, n) -> (m, n)>
func.func @divided_tail(%x: memref<?x64xf32>, %w: memref<64x32xf32>, %o: memref<?x32xf32>,
                        %out: memref<?x32xf32>, %zero: f32) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?x64xf32>
  %c = memref.alloc(%n) : memref<?x32xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<?x32xf32>)
  linalg.matmul ins(%x, %w : memref<?x64xf32>, memref<64x32xf32>) outs(%c : memref<?x32xf32>)
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c : memref<?x32xf32>) outs(%c : memref<?x32xf32>) {
  ^bb0(%v: f32, %u: f32):
    %t = math.tanh %v : f32
    linalg.yield %t : f32
  }
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c, %o : memref<?x32xf32>, memref<?x32xf32>) outs(%out : memref<?x32xf32>) {
  ^bb0(%v: f32, %p: f32, %u: f32):
    %r = arith.mulf %v, %p : f32
    linalg.yield %r : f32
  }
  memref.dealloc %c : memref<?x32xf32>
  return
}

// -----

/// negative_: work after the matmul that reads C elsewhere than at the
/// element it computes (transposed), or writes what the matmul reads, would
/// need the other workgroups' parts: the kernel is not divided.
// DIST-LABEL: func.func @negative_tail_transposed
// DIST-NOT: fw.workgroup_id
// DIST-LABEL: func.func @negative_tail_writes_a
// DIST-NOT: fw.workgroup_id
// DIST-LABEL: func.func @negative_tail_elsewhere
// DIST-NOT: fw.workgroup_id
// DIST: return
#id = affine_map<(m, n) -> (m, n)>
#tr = affine_map<(m, n) -> (n, m)>
func.func @negative_tail_transposed(%x: memref<32x32xf32>, %w: memref<32x32xf32>,
                                    %out: memref<32x32xf32>, %zero: f32) {
  %c = memref.alloc() : memref<32x32xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<32x32xf32>)
  linalg.matmul ins(%x, %w : memref<32x32xf32>, memref<32x32xf32>) outs(%c : memref<32x32xf32>)
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c : memref<32x32xf32>) outs(%c : memref<32x32xf32>) {
  ^bb0(%v: f32, %u: f32):
    %t = math.tanh %v : f32
    linalg.yield %t : f32
  }
  linalg.generic {indexing_maps = [#tr, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c : memref<32x32xf32>) outs(%out : memref<32x32xf32>) {
  ^bb0(%v: f32, %u: f32):
    linalg.yield %v : f32
  }
  memref.dealloc %c : memref<32x32xf32>
  return
}
func.func @negative_tail_writes_a(%x: memref<32x32xf32>, %w: memref<32x32xf32>,
                                  %out: memref<32x32xf32>, %zero: f32) {
  %c = memref.alloc() : memref<32x32xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<32x32xf32>)
  linalg.matmul ins(%x, %w : memref<32x32xf32>, memref<32x32xf32>) outs(%c : memref<32x32xf32>)
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c : memref<32x32xf32>) outs(%c : memref<32x32xf32>) {
  ^bb0(%v: f32, %u: f32):
    %t = math.tanh %v : f32
    linalg.yield %t : f32
  }
  linalg.copy ins(%c : memref<32x32xf32>) outs(%x : memref<32x32xf32>)
  memref.dealloc %c : memref<32x32xf32>
  return
}
/// (A tail op that reads nothing the kernel writes, here a broadcast into a
/// buffer of another shape, need not run over C's rows and columns.)
func.func @negative_tail_elsewhere(%x: memref<32x32xf32>, %w: memref<32x32xf32>,
                                   %out: memref<32x32xf32>, %bias: memref<64xf32>,
                                   %other: memref<16x64xf32>, %zero: f32) {
  linalg.fill ins(%zero : f32) outs(%out : memref<32x32xf32>)
  linalg.matmul ins(%x, %w : memref<32x32xf32>, memref<32x32xf32>) outs(%out : memref<32x32xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%bias : memref<64xf32>) outs(%other : memref<16x64xf32>) {
  ^bb0(%b: f32, %o: f32):
    linalg.yield %b : f32
  }
  return
}
