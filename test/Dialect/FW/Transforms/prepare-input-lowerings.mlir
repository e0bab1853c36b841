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
/// to the source's number of tiles, its other sizes equal the source's (the
/// result is cast to that static size for upstream's lowering, and back).
// CHECK-LABEL: func.func @unpack(
// CHECK-SAME: %[[P:.*]]: tensor<3x3x2xf32>, %[[D:.*]]: tensor<?x?xf32>)
// CHECK: %[[N:.*]] = tensor.dim %[[D]], %{{.*}}
// CHECK: %[[TILES:.*]] = arith.ceildivui %[[N]], %{{.*}} : index
// CHECK: fw.assert %{{.*}}, "'linalg.unpack': dimension 0 of the source is not the number of tiles of 2 along dimension 0 of the result (
// CHECK: fw.assert %{{.*}}, "'linalg.unpack': dimension 1 of the source differs from dimension 1 of the result (
// CHECK: %[[CAST:.*]] = tensor.cast %[[D]] {{.*}}: tensor<?x?xf32> to tensor<?x3xf32>
// CHECK: linalg.generic {{.*}} ins(%[[P]] : tensor<3x3x2xf32>)
// CHECK: tensor.collapse_shape {{.*}}fw.written_as = "linalg.unpack"
// CHECK: tensor.extract_slice {{.*}}fw.written_as = "linalg.unpack"
// CHECK: %[[COPY:.*]] = linalg.copy {{.*}}outs(%[[CAST]] : tensor<?x3xf32>)
// CHECK: %[[R:.*]] = tensor.cast %[[COPY]] {{.*}}: tensor<?x3xf32> to tensor<?x?xf32>
// CHECK: return %[[R]]

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

// -----

/// A gather: a linalg.generic over the result that reads the index vector
/// (integers cast to index are read as the integers) and the source
/// element, each read written as the gather (for its check's message). No
/// size check: the verifier makes the result's type the one the indices and
/// the source give.
// CHECK-LABEL: func.func @gather(
// CHECK-SAME: %[[A:.*]]: tensor<?x3xf32>, %[[I:.*]]: tensor<?x1xi64>)
// CHECK-NOT: fw.assert
// CHECK: %[[N:.*]] = tensor.dim %[[I]], %{{.*}} : tensor<?x1xi64>
// CHECK: %[[E:.*]] = tensor.empty(%[[N]]) {{.*}}: tensor<?x1x3xf32>
// CHECK: linalg.generic {{.*}} outs(%[[E]] : tensor<?x1x3xf32>) attrs = {{.*}}fw.written_as = "tensor.gather"
// CHECK: %[[B:.*]] = linalg.index 0 : index
// CHECK: %[[C:.*]] = linalg.index 2 : index
// CHECK: %[[K:.*]] = tensor.extract %[[I]][%[[B]], %{{.*}}] {fw.written_as = "tensor.gather"} : tensor<?x1xi64>
// CHECK: %[[ROW:.*]] = arith.index_cast %[[K]] : i64 to index
// CHECK: %[[V:.*]] = tensor.extract %[[A]][%[[ROW]], %[[C]]] {fw.written_as = "tensor.gather"} : tensor<?x3xf32>
// CHECK: linalg.yield %[[V]]
// CHECK-NOT: tensor.gather

func.func @gather(%a: tensor<?x3xf32>, %i: tensor<?x1xi64>) -> tensor<?x1x3xf32> {
  %ii = arith.index_cast %i : tensor<?x1xi64> to tensor<?x1xindex>
  %r = tensor.gather %a[%ii] gather_dims([0]) : (tensor<?x3xf32>, tensor<?x1xindex>) -> tensor<?x1x3xf32>
  return %r : tensor<?x1x3xf32>
}

// -----

/// A scatter: an scf.forall over the indices' batch, each slice of the
/// source inserted at the place its index vector gives; the source's sizes
/// checked against the indices' and the destination's.
// CHECK-LABEL: func.func @scatter(
// CHECK-SAME: %[[S:.*]]: tensor<?x1x?xf32>, %[[D:.*]]: tensor<5x?xf32>, %[[I:.*]]: tensor<?x1xi32>)
// CHECK: fw.assert %{{.*}}, "'tensor.scatter': dimension 0 of the source differs from dimension 0 of the indices (
// CHECK: fw.assert %{{.*}}, "'tensor.scatter': dimension 2 of the source differs from dimension 1 of the destination (
// CHECK: %[[N:.*]] = tensor.dim %[[I]], %{{.*}} : tensor<?x1xi32>
// CHECK: %[[R:.*]] = scf.forall (%[[B:.*]]) in (%[[N]]) shared_outs(%[[OUT:.*]] = %[[D]]) -> (tensor<5x?xf32>) {
// CHECK: %[[SLICE:.*]] = tensor.extract_slice %[[S]][%[[B]], 0, 0] [1, 1, %{{.*}}] [1, 1, 1] {fw.written_as = "tensor.scatter"} : tensor<?x1x?xf32> to tensor<1x?xf32>
// CHECK: %[[K:.*]] = tensor.extract %[[I]][%[[B]], %{{.*}}] {fw.written_as = "tensor.scatter"} : tensor<?x1xi32>
// CHECK: %[[ROW:.*]] = arith.index_cast %[[K]] : i32 to index
// CHECK: scf.forall.in_parallel {
// CHECK-NEXT: tensor.parallel_insert_slice %[[SLICE]] into %[[OUT]][%[[ROW]], 0] [1, %{{.*}}] [1, 1] {fw.written_as = "tensor.scatter"}
// CHECK: } {fw.written_as = "tensor.scatter"}
// CHECK: return %[[R]]

func.func @scatter(%s: tensor<?x1x?xf32>, %d: tensor<5x?xf32>, %i: tensor<?x1xi32>) -> tensor<5x?xf32> {
  %r = tensor.scatter %s into %d[%i] scatter_dims([0]) unique : (tensor<?x1x?xf32>, tensor<5x?xf32>, tensor<?x1xi32>) -> tensor<5x?xf32>
  return %r : tensor<5x?xf32>
}

// -----

/// A static source and a destination whose outer size is dynamic: the pack
/// is rebuilt into the destination cast to the size the source gives (the
/// pad upstream builds would not verify), and cast back; a tile given by a
/// constant value becomes static.
// CHECK-LABEL: func.func @pack_cast(
// CHECK-SAME: %[[S:.*]]: tensor<4x6xf32>, %[[D:.*]]: tensor<?x?x?xf32>)
// CHECK: fw.assert %{{.*}}, "'linalg.pack': dimension 0 of the result differs from dimension 0 of the source (
// CHECK: fw.assert %{{.*}}, "'linalg.pack': dimension 1 of the result is not the number of tiles of 2 along dimension 1 of the source (
// CHECK: %[[CAST:.*]] = tensor.cast %[[D]] {{.*}}: tensor<?x?x?xf32> to tensor<4x3x2xf32>
// CHECK: %[[T:.*]] = linalg.generic {{.*}} outs(%[[CAST]] : tensor<4x3x2xf32>)
// CHECK: %[[R:.*]] = tensor.cast %[[T]] {{.*}}: tensor<4x3x2xf32> to tensor<?x?x?xf32>
// CHECK: return %[[R]]

func.func @pack_cast(%s: tensor<4x6xf32>, %d: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %c2 = arith.constant 2 : index
  %r = linalg.pack %s inner_dims_pos = [1] inner_tiles = [%c2] into %d : tensor<4x6xf32> -> tensor<?x?x?xf32>
  return %r : tensor<?x?x?xf32>
}

// -----

/// An empty result (a static size 0) is the destination: upstream's lowerings
/// would slice a size-0 dimension at offset 0, which does not verify; an
/// empty destination of a scatter likewise.
// CHECK-LABEL: func.func @empty(
// CHECK-SAME: %[[S:.*]]: tensor<0x6xf32>, %[[D:.*]]: tensor<0x2x4xf32>, %[[X:.*]]: tensor<2x1x0xf32>, %[[Y:.*]]: tensor<4x0xf32>, %{{.*}}: tensor<2x1xi32>)
// CHECK-NOT: linalg.pack
// CHECK-NOT: scf.forall
// CHECK: return %[[D]], %[[Y]]

func.func @empty(%s: tensor<0x6xf32>, %d: tensor<0x2x4xf32>, %x: tensor<2x1x0xf32>, %y: tensor<4x0xf32>, %i: tensor<2x1xi32>) -> (tensor<0x2x4xf32>, tensor<4x0xf32>) {
  %c = arith.constant 0.0 : f32
  %p = linalg.pack %s padding_value(%c : f32) inner_dims_pos = [1] inner_tiles = [4] into %d : tensor<0x6xf32> -> tensor<0x2x4xf32>
  %r = tensor.scatter %x into %y[%i] scatter_dims([0]) unique : (tensor<2x1x0xf32>, tensor<4x0xf32>, tensor<2x1xi32>) -> tensor<4x0xf32>
  return %p, %r : tensor<0x2x4xf32>, tensor<4x0xf32>
}

// -----

/// A pad of an empty tensor is all padding: a fill (a tensor.generate of the
/// body where the value depends on the indices).
// CHECK-LABEL: func.func @pad_empty(
// CHECK-NOT: tensor.pad
// CHECK: %[[E:.*]] = tensor.empty() {{.*}}: tensor<2x3xf32>
// CHECK: %[[F:.*]] = linalg.fill {{.*}}ins(%{{.*}} : f32) outs(%[[E]] : tensor<2x3xf32>)
// CHECK: tensor.generate
// CHECK: ^bb0(%[[I:.*]]: index, %{{.*}}: index):
// CHECK: arith.index_cast %[[I]]
// CHECK: tensor.yield
// CHECK: } {{.*}}: tensor<3x3xf32>

func.func @pad_empty(%a: tensor<0x3xf32>) -> (tensor<2x3xf32>, tensor<3x3xf32>) {
  %z = arith.constant 7.0 : f32
  %p = tensor.pad %a low[2, 0] high[0, 0] {
  ^bb0(%i: index, %j: index):
    tensor.yield %z : f32
  } : tensor<0x3xf32> to tensor<2x3xf32>
  %q = tensor.pad %a low[1, 0] high[2, 0] {
  ^bb0(%i: index, %j: index):
    %ii = arith.index_cast %i : index to i32
    %f = arith.sitofp %ii : i32 to f32
    tensor.yield %f : f32
  } : tensor<0x3xf32> to tensor<3x3xf32>
  return %p, %q : tensor<2x3xf32>, tensor<3x3xf32>
}

// -----

/// A tile that folds to a constant is one; a scatter of one update is one
/// insert (a loop of one iteration would be folded into one without the
/// op's name).
// CHECK-LABEL: func.func @folded_tile_one_update(
// CHECK-NOT: fw.assert {{.*}}computed at run time
// CHECK: linalg.generic {{.*}}fw.written_as = "linalg.pack"
// CHECK-NOT: scf.forall
// CHECK: tensor.insert_slice {{.*}}fw.written_as = "tensor.scatter"

func.func @folded_tile_one_update(%a: tensor<4x6xf32>, %d: tensor<4xf32>, %v: tensor<1xf32>, %i: tensor<1x1xi32>) -> (tensor<2x3x2x2xf32>, tensor<4xf32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %t = arith.addi %c2, %c0 : index
  %e = tensor.empty(%t) : tensor<2x3x?x2xf32>
  %p = linalg.pack %a inner_dims_pos = [0, 1] inner_tiles = [%t, 2] into %e : tensor<4x6xf32> -> tensor<2x3x?x2xf32>
  %ps = tensor.cast %p : tensor<2x3x?x2xf32> to tensor<2x3x2x2xf32>
  %r = tensor.scatter %v into %d[%i] scatter_dims([0]) unique : (tensor<1xf32>, tensor<4xf32>, tensor<1x1xi32>) -> tensor<4xf32>
  return %ps, %r : tensor<2x3x2x2xf32>, tensor<4xf32>
}
