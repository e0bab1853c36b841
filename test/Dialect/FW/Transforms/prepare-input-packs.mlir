// RUN: %fw-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(fw-prepare-input))' | FileCheck %s

/// A pack with a padding value of a source sized at run time: the result's
/// outer size must be the number of tiles (rounded up); then a pad, an
/// expand_shape and a transpose, each written as the pack.
// CHECK-LABEL: func.func @pack_padded(
// CHECK-SAME: %[[S:.*]]: tensor<?x3xf32>, %[[D:.*]]: tensor<?x3x2xf32>)
// CHECK: %[[N:.*]] = tensor.dim %[[S]], %{{.*}}
// CHECK: %[[TILES:.*]] = arith.ceildivui %[[N]], %{{.*}} : index
// CHECK: %[[OUTER:.*]] = tensor.dim %[[D]], %{{.*}}
// CHECK: %[[SAME:.*]] = arith.cmpi eq, %[[OUTER]], %[[TILES]] : index
// CHECK: fw.assert %[[SAME]], "'linalg.pack': dimension 0 of the result is not the number of tiles of 2 along dimension 0 of the source (
// CHECK-NOT: multiple of its inner tile
// CHECK: tensor.pad %[[S]] low[0, 0] high[%{{.*}}, 0]
// CHECK: {fw.host_checked, fw.written_as = "linalg.pack"} : tensor<?x3xf32> to tensor<?x3xf32>
// CHECK: tensor.expand_shape {{.*}}fw.written_as = "linalg.pack"
// CHECK: linalg.generic {{.*}} outs(%[[D]] : tensor<?x3x2xf32>) attrs = {{.*}}fw.written_as = "linalg.pack"
// CHECK-NOT: linalg.pack

func.func @pack_padded(%s: tensor<?x3xf32>, %d: tensor<?x3x2xf32>) -> tensor<?x3x2xf32> {
  %pad = arith.constant 0.0 : f32
  %r = linalg.pack %s padding_value(%pad : f32) inner_dims_pos = [0] inner_tiles = [2] into %d : tensor<?x3xf32> -> tensor<?x3x2xf32>
  return %r : tensor<?x3x2xf32>
}

// -----

/// Without a padding value the tiles must be full.
// CHECK-LABEL: func.func @pack_full(
// CHECK: arith.ceildivui
// CHECK: fw.assert %{{.*}}, "'linalg.pack': dimension 1 of the result is not the number of tiles of 2 along dimension 0 of the source (
// CHECK: %[[REM:.*]] = arith.remui %{{.*}}, %{{.*}} : index
// CHECK: %[[FULL:.*]] = arith.cmpi eq, %[[REM]], %{{.*}} : index
// CHECK: fw.assert %[[FULL]], "'linalg.pack': dimension 0 of the source is not a multiple of its inner tile (2) and the pack has no padding value (
// CHECK: tensor.pad
// CHECK: tensor.expand_shape
// CHECK: linalg.generic

func.func @pack_full(%s: tensor<?x4xf32>, %d: tensor<2x2x2x2xf32>) -> tensor<2x2x2x2xf32> {
  %r = linalg.pack %s outer_dims_perm = [1, 0] inner_dims_pos = [0, 1] inner_tiles = [2, 2] into %d : tensor<?x4xf32> -> tensor<2x2x2x2xf32>
  return %r : tensor<2x2x2x2xf32>
}

// -----

/// An unpack into a result sized at run time: its tiled size must round up
/// to the source's number of tiles, its other sizes equal the source's.
// CHECK-LABEL: func.func @unpack(
// CHECK-SAME: %[[P:.*]]: tensor<3x3x2xf32>, %[[D:.*]]: tensor<?x?xf32>)
// CHECK: %[[N:.*]] = tensor.dim %[[D]], %{{.*}}
// CHECK: %[[TILES:.*]] = arith.ceildivui %[[N]], %{{.*}} : index
// CHECK: fw.assert %{{.*}}, "'linalg.unpack': dimension 0 of the source is not the number of tiles of 2 along dimension 0 of the result (
// CHECK: fw.assert %{{.*}}, "'linalg.unpack': dimension 1 of the source differs from dimension 1 of the result (
// CHECK: linalg.generic {{.*}} ins(%[[P]] : tensor<3x3x2xf32>)
// CHECK: tensor.collapse_shape {{.*}}fw.written_as = "linalg.unpack"
// CHECK: tensor.extract_slice {{.*}}fw.written_as = "linalg.unpack"
// CHECK: linalg.copy {{.*}}outs(%[[D]] : tensor<?x?xf32>)

func.func @unpack(%p: tensor<3x3x2xf32>, %d: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = linalg.unpack %p inner_dims_pos = [0] inner_tiles = [2] into %d : tensor<3x3x2xf32> -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

/// Static sizes need no check (the verifier's).
// CHECK-LABEL: func.func @static(
// CHECK-NOT: fw.assert

func.func @static(%s: tensor<5x3xf32>) -> tensor<3x3x2xf32> {
  %pad = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x3x2xf32>
  %r = linalg.pack %s padding_value(%pad : f32) inner_dims_pos = [0] inner_tiles = [2] into %e : tensor<5x3xf32> -> tensor<3x3x2xf32>
  return %r : tensor<3x3x2xf32>
}
