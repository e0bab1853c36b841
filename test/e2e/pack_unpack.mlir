// linalg.pack and linalg.unpack (lowered by fw-prepare-input to pads, reshapes
// and transposes): tiles padded or full, outer dimensions permuted, a round
// trip, sizes known at run time only checked with messages that name the op.
// RUN: %fwc %s -o %t.fwb
// RUN: %fw-run %t.fwb --function=pack_rows --input=5x3xf32=0,1,2,3,4,5,6,7,8,9,10,11,12,13,14 | FileCheck %s --check-prefix=ROWS
// ROWS: 3x3x2xf32={{\[\[}}0 3][1 4][2 5{{\]\]}}{{\[\[}}6 9][7 10][8 11{{\]\]}}{{\[\[}}12 -1][13 -1][14 -1{{\]\]}}
// RUN: %fw-run %t.fwb --function=pack_tiles --input=4x4xf32=0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15 --input=2x2x2x2xf32=0 | FileCheck %s --check-prefix=TILES
// TILES: 2x2x2x2xf32={{\[\[\[}}0 1][4 5{{\]\]}}{{\[\[}}8 9][12 13{{\]\]\]}}{{\[\[\[}}2 3][6 7{{\]\]}}{{\[\[}}10 11][14 15{{\]\]\]}}
// RUN: not %fw-run %t.fwb --function=pack_tiles --input=3x4xf32=0 --input=2x2x2x2xf32=0 2>&1 | FileCheck %s --check-prefix=PARTIAL
// PARTIAL: failed: 'linalg.pack': dimension 0 of the source is not a multiple of its inner tile (2) and the pack has no padding value (
// PARTIAL-SAME: pack_unpack.mlir:{{[0-9]+}})
// RUN: not %fw-run %t.fwb --function=pack_tiles --input=6x4xf32=0 --input=2x2x2x2xf32=0 2>&1 | FileCheck %s --check-prefix=TILECOUNT
// TILECOUNT: failed: 'linalg.pack': dimension 1 of the result is not the number of tiles of 2 along dimension 0 of the source
// RUN: %fw-run %t.fwb --function=round_trip --input=5x3xf32=0,1,2,3,4,5,6,7,8,9,10,11,12,13,14 --input=5x3xf32=0 | FileCheck %s --check-prefix=TRIP
// TRIP: 5x3xf32=[0 1 2][3 4 5][6 7 8][9 10 11][12 13 14]
// RUN: not %fw-run %t.fwb --function=round_trip --input=5x3xf32=0 --input=7x3xf32=0 2>&1 | FileCheck %s --check-prefix=UNPACKBAD
// RUN: not %fw-run %t.fwb --function=round_trip --input=5x3xf32=0 --input=4x3xf32=0 2>&1 | FileCheck %s --check-prefix=UNPACKBAD
// UNPACKBAD: failed: 'linalg.unpack': dimension 0 of the source is not the number of tiles of 2 along dimension 0 of the result
// RUN: not %fw-run %t.fwb --function=round_trip --input=5x3xf32=0 --input=5x2xf32=0 2>&1 | FileCheck %s --check-prefix=UNTILED
// UNTILED: failed: 'linalg.unpack': dimension 1 of the source differs from dimension 1 of the result
// In a loop (checked in the kernel).
// RUN: %fw-run %t.fwb --function=packed_sums --input=4x2xf32=1,2,3,4,5,6,7,8 --input=2xi64=2,2 | FileCheck %s --check-prefix=SUMS
// SUMS: 2x2x2xf32={{\[\[}}2 6][4 8{{\]\]}}{{\[\[}}10 14][12 16{{\]\]}}
// RUN: not %fw-run %t.fwb --function=packed_sums --input=4x2xf32=1 --input=2xi64=3,2 2>&1 | FileCheck %s --check-prefix=SUMSBAD
// SUMSBAD: failed: 'linalg.pack': dimension 0 of the result is not the number of tiles of 2 along dimension 0 of the source
// A static source into a destination of dynamic sizes (rebuilt into the
// destination cast to the sizes the source gives), a tile given by a constant
// value, a pack in a task whose result size is declared with dims(...).
// RUN: %fw-run %t.fwb --function=pack_into --input=4x6xf32=0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23 --input=4x3x2xf32=0 | FileCheck %s --check-prefix=INTO
// INTO: 4x3x2xf32={{\[\[}}0 1][2 3][4 5{{\]\]}}{{\[\[}}6 7][8 9][10 11{{\]\]}}{{\[\[}}12 13][14 15][16 17{{\]\]}}{{\[\[}}18 19][20 21][22 23{{\]\]}}
// RUN: not %fw-run %t.fwb --function=pack_into --input=4x6xf32=0 --input=5x3x2xf32=0 2>&1 | FileCheck %s --check-prefix=INTOBAD
// INTOBAD: failed: 'linalg.pack': dimension 0 of the result differs from dimension 0 of the source
// RUN: %fw-run %t.fwb --function=pack_task --input=3x4xf32=1,2,3,4,5,6,7,8,9,10,11,12 | FileCheck %s --check-prefix=TASK
// TASK: 2x4x2xf32={{\[\[}}1 5][2 6][3 7][4 8{{\]\]}}{{\[\[}}9 0][10 0][11 0][12 0{{\]\]}}

func.func @pack_rows(%s: tensor<?x3xf32>) -> tensor<?x3x2xf32> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %pad = arith.constant -1.0 : f32
  %n = tensor.dim %s, %c0 : tensor<?x3xf32>
  %t = arith.ceildivui %n, %c2 : index
  %e = tensor.empty(%t) : tensor<?x3x2xf32>
  %r = linalg.pack %s padding_value(%pad : f32) inner_dims_pos = [0] inner_tiles = [2] into %e : tensor<?x3xf32> -> tensor<?x3x2xf32>
  return %r : tensor<?x3x2xf32>
}

func.func @pack_tiles(%s: tensor<?x4xf32>, %d: tensor<2x2x2x2xf32>) -> tensor<2x2x2x2xf32> {
  %r = linalg.pack %s outer_dims_perm = [1, 0] inner_dims_pos = [0, 1] inner_tiles = [2, 2] into %d : tensor<?x4xf32> -> tensor<2x2x2x2xf32>
  return %r : tensor<2x2x2x2xf32>
}

func.func @round_trip(%s: tensor<5x3xf32>, %d: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %pad = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x3x2xf32>
  %p = linalg.pack %s padding_value(%pad : f32) inner_dims_pos = [0] inner_tiles = [2] into %e : tensor<5x3xf32> -> tensor<3x3x2xf32>
  %r = linalg.unpack %p inner_dims_pos = [0] inner_tiles = [2] into %d : tensor<3x3x2xf32> -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

func.func @packed_sums(%src: tensor<4x2xf32>, %sizes: tensor<2xi64>) -> tensor<2x2x2xf32> {
  %r = fw.task(%src, %sizes) : (tensor<4x2xf32>, tensor<2xi64>) -> tensor<2x2x2xf32> {
  ^bb0(%s: tensor<4x2xf32>, %n: tensor<2xi64>):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %z = arith.constant 0.0 : f32
    %e0 = tensor.empty() : tensor<2x2x2xf32>
    %init = linalg.fill ins(%z : f32) outs(%e0 : tensor<2x2x2xf32>) -> tensor<2x2x2xf32>
    %l = scf.for %i = %c0 to %c1 step %c1 iter_args(%acc = %init) -> tensor<2x2x2xf32> {
      %t64 = tensor.extract %n[%i] : tensor<2xi64>
      %t = arith.index_cast %t64 : i64 to index
      %e = tensor.empty(%t) : tensor<?x2x2xf32>
      %p = linalg.pack %s inner_dims_pos = [0] inner_tiles = [2] into %e : tensor<4x2xf32> -> tensor<?x2x2xf32>
      %ps = tensor.cast %p : tensor<?x2x2xf32> to tensor<2x2x2xf32>
      %sum = linalg.add ins(%ps, %ps : tensor<2x2x2xf32>, tensor<2x2x2xf32>) outs(%acc : tensor<2x2x2xf32>) -> tensor<2x2x2xf32>
      scf.yield %sum : tensor<2x2x2xf32>
    }
    fw.yield %l : tensor<2x2x2xf32>
  }
  return %r : tensor<2x2x2xf32>
}

func.func @pack_into(%s: tensor<4x6xf32>, %d: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %c2 = arith.constant 2 : index
  %r = linalg.pack %s inner_dims_pos = [1] inner_tiles = [%c2] into %d : tensor<4x6xf32> -> tensor<?x?x?xf32>
  return %r : tensor<?x?x?xf32>
}

func.func @pack_task(%x: tensor<?x4xf32>) -> tensor<?x4x2xf32> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %d0 = tensor.dim %x, %c0 : tensor<?x4xf32>
  %o0 = arith.ceildivui %d0, %c2 : index
  %r = fw.task(%x) : (tensor<?x4xf32>) -> tensor<?x4x2xf32> dims(%o0) {
  ^bb0(%a: tensor<?x4xf32>):
    %k0 = arith.constant 0 : index
    %k2 = arith.constant 2 : index
    %e0 = tensor.dim %a, %k0 : tensor<?x4xf32>
    %p0 = arith.ceildivui %e0, %k2 : index
    %e = tensor.empty(%p0) : tensor<?x4x2xf32>
    %z = arith.constant 0.0 : f32
    %pk = linalg.pack %a padding_value(%z : f32) inner_dims_pos = [0] inner_tiles = [2] into %e : tensor<?x4xf32> -> tensor<?x4x2xf32>
    fw.yield %pk : tensor<?x4x2xf32>
  }
  return %r : tensor<?x4x2xf32>
}
