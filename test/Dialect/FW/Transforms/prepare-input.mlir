// RUN: %fw-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(fw-prepare-input))' | FileCheck %s

/// Tensor arithmetic becomes linalg.generic, without folding: x ^ x on a
/// dynamically shaped tensor keeps its shape (folding it would produce a
/// constant of unknown shape).
// CHECK-LABEL: func.func @xor_self
// CHECK: %[[G:.*]] = linalg.generic
// CHECK: arith.xori
// CHECK: return %[[G]] : tensor<?x4xi16>
func.func @xor_self(%a: tensor<?x4xi16>) -> tensor<?x4xi16> {
  %r = arith.xori %a, %a : tensor<?x4xi16>
  return %r : tensor<?x4xi16>
}

// -----

/// A large splat becomes a fill; a small one stays a constant.
// CHECK-LABEL: func.func @splats
// CHECK-DAG: %[[E:.*]] = tensor.empty() : tensor<64x64xf32>
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: %[[F:.*]] = linalg.fill {fw.host_checked} ins(%[[ONE]] : f32) outs(%[[E]] : tensor<64x64xf32>)
// CHECK: arith.constant dense<2.000000e+00> : tensor<4xf32>
// CHECK: return %[[F]]
func.func @splats() -> (tensor<64x64xf32>, tensor<4xf32>) {
  %big = arith.constant dense<1.0> : tensor<64x64xf32>
  %small = arith.constant dense<2.0> : tensor<4xf32>
  return %big, %small : tensor<64x64xf32>, tensor<4xf32>
}

// -----

/// Statically empty concat operands are dropped.
// CHECK-LABEL: func.func @concat_empty
// CHECK: tensor.concat dim(0) %arg0, %arg2 {fw.host_checked} : (tensor<1xf32>, tensor<2xf32>) -> tensor<3xf32>
func.func @concat_empty(%a: tensor<1xf32>, %b: tensor<0xf32>, %c: tensor<2xf32>) -> tensor<3xf32> {
  %r = tensor.concat dim(0) %a, %b, %c : (tensor<1xf32>, tensor<0xf32>, tensor<2xf32>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// -----

/// negative_: a concat of only empty operands is left alone.
// CHECK-LABEL: func.func @negative_concat_all_empty
// CHECK: tensor.concat
func.func @negative_concat_all_empty(%a: tensor<0xf32>, %b: tensor<0xf32>) -> tensor<0xf32> {
  %r = tensor.concat dim(0) %a, %b : (tensor<0xf32>, tensor<0xf32>) -> tensor<0xf32>
  return %r : tensor<0xf32>
}

// -----

/// Reductions and named elementwise ops become linalg.generic, so that
/// elementwise producers can fuse into them; each keeps the name written, for
/// the checks' messages.
// CHECK-LABEL: func.func @generalize
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]
// CHECK-SAME: fw.written_as = "linalg.add"
// CHECK-NOT: linalg.add ins
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK-SAME: fw.written_as = "linalg.reduce"
// CHECK-NOT: linalg.reduce ins
func.func @generalize(%a: tensor<8x16xf32>, %b: tensor<8x16xf32>, %acc: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8x16xf32>
  %s = linalg.add ins(%a, %b : tensor<8x16xf32>, tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %r = linalg.reduce ins(%s : tensor<8x16xf32>) outs(%acc : tensor<8xf32>) dimensions = [1]
    (%x: f32, %y: f32) {
      %z = arith.addf %x, %y : f32
      linalg.yield %z : f32
    }
  return %r : tensor<8xf32>
}

// -----

/// negative_: fills, copies and contractions keep their names.
// CHECK-LABEL: func.func @negative_named
// CHECK: linalg.fill
// CHECK: linalg.matmul
// CHECK: linalg.copy
// CHECK-NOT: linalg.generic
func.func @negative_named(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %m = linalg.matmul ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%f : tensor<8x8xf32>) -> tensor<8x8xf32>
  %c = linalg.copy ins(%m : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %c : tensor<8x8xf32>
}

// -----

/// The marks of the compiler's own checks mean nothing in the input: a task
/// or an op marked so there is checked like any.
// CHECK-LABEL: func.func @marked
// CHECK-NOT: fw.host_checked
// CHECK-NOT: fw.checked
// CHECK: return
func.func @marked(%a: tensor<?xf32>, %i: tensor<i64>, %n: index) -> tensor<?xf32> {
  %r = fw.task(%a, %i) : (tensor<?xf32>, tensor<i64>) -> tensor<?xf32> dims(%n) attributes {fw.host_checked} {
  ^bb0(%x: tensor<?xf32>, %ii: tensor<i64>):
    %k64 = tensor.extract %ii[] {fw.checked} : tensor<i64>
    %k = arith.index_cast %k64 : i64 to index
    %v = tensor.extract %x[%k] {fw.checked} : tensor<?xf32>
    %s = tensor.insert %v into %x[%k] {fw.checked} : tensor<?xf32>
    fw.yield %s : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}

// -----

/// Affine loops and branches become SCF ones (which bufferize, and whose
/// checks know them), named as written; other affine ops stay.
// CHECK-LABEL: func.func @affine_control(
// CHECK-NOT: affine.for %
// CHECK: %[[F:.*]] = scf.for %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (tensor<?xf32>) {
// CHECK: affine.apply
// CHECK: scf.if %{{.*}} -> (f32) {
// CHECK: } else {
// CHECK: }
// CHECK-NOT: fw.written_as
// CHECK: tensor.insert
// CHECK: scf.yield
// CHECK: } {{{.*}}fw.written_as = "affine.for"}
// CHECK: scf.if %{{.*}} -> (tensor<?xf32>) {
// CHECK: } {fw.written_as = "affine.if"}
// CHECK: scf.parallel
// CHECK: } {fw.written_as = "affine.parallel"}
// CHECK: scf.for
// CHECK-NOT: fw.written_as
// CHECK: return
func.func @affine_control(%a: tensor<?xf32>, %n: index) -> tensor<?xf32> {
  %r = affine.for %i = 0 to %n step 2 iter_args(%t = %a) -> tensor<?xf32> {
    %j = affine.apply affine_map<(d0) -> (d0 + 1)>(%i)
    %x = tensor.extract %t[%j] : tensor<?xf32>
    %pos = arith.cmpf ogt, %x, %x : f32
    %v = scf.if %pos -> f32 {
      scf.yield %x : f32
    } else {
      %z = arith.constant 0.0 : f32
      scf.yield %z : f32
    }
    %u = tensor.insert %v into %t[%i] : tensor<?xf32>
    affine.yield %u : tensor<?xf32>
  }
  %s = affine.if affine_set<(d0) : (d0 - 4 >= 0)>(%n) -> tensor<?xf32> {
    affine.yield %r : tensor<?xf32>
  } else {
    affine.yield %a : tensor<?xf32>
  }
  %m = memref.alloc() : memref<4xf32>
  affine.parallel (%i) = (0) to (4) {
    %z = arith.constant 0.0 : f32
    memref.store %z, %m[%i] : memref<4xf32>
  }
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %w = scf.for %i = %c0 to %n step %c1 iter_args(%t = %s) -> tensor<?xf32> {
    scf.yield %t : tensor<?xf32>
  }
  return %w : tensor<?xf32>
}

// -----

/// A select of whole tensors with a scalar condition becomes an scf.if (the
/// two may differ in size); one with a condition tensor, or of static shapes,
/// becomes a linalg.generic.
// CHECK-LABEL: func.func @whole_tensor_select(
// CHECK-SAME: %[[C:[^:]*]]: i1, %[[A:[^:]*]]: tensor<?xf32>, %[[B:[^:]*]]: tensor<?xf32>
// CHECK: %[[R:.*]] = scf.if %[[C]] -> (tensor<?xf32>) {
// CHECK-NEXT: scf.yield %[[A]]
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.yield %[[B]]
// CHECK: linalg.generic
// CHECK: linalg.generic
// CHECK-NOT: arith.select %{{.*}} : tensor
func.func @whole_tensor_select(%c: i1, %a: tensor<?xf32>, %b: tensor<?xf32>,
    %cs: tensor<?xi1>, %s: tensor<4xf32>)
    -> (tensor<?xf32>, tensor<?xf32>, tensor<4xf32>) {
  %r = arith.select %c, %a, %b : tensor<?xf32>
  %e = arith.select %cs, %a, %b : tensor<?xi1>, tensor<?xf32>
  %t = arith.select %c, %s, %s : tensor<4xf32>
  return %r, %e, %t : tensor<?xf32>, tensor<?xf32>, tensor<4xf32>
}

// -----

/// A reshape with a constant shape gets the static result type it gives,
/// cast back to the type written.
// CHECK-LABEL: func.func @constant_shape(
// CHECK: %[[R:.*]] = tensor.reshape %{{.*}}(%{{.*}}) {{.*}}: (tensor<?xf32>, tensor<2xi64>) -> tensor<2x3xf32>
// CHECK: tensor.cast %[[R]] {{.*}}: tensor<2x3xf32> to tensor<?x3xf32>
func.func @constant_shape(%a: tensor<?xf32>) -> tensor<?x3xf32> {
  %s = arith.constant dense<[2, 3]> : tensor<2xi64>
  %r = tensor.reshape %a(%s) : (tensor<?xf32>, tensor<2xi64>) -> tensor<?x3xf32>
  return %r : tensor<?x3xf32>
}

// -----

/// cf.assert, which aborts the process, becomes fw.assert, which fails the
/// call: on the host at the top level (torch-mlir's broadcast checks), through
/// the kernel's error word in a body. The message names the op and where it
/// was written; an empty one says the assertion failed.
// CHECK-LABEL: func.func @asserts(
// CHECK: %[[SAME:.*]] = arith.cmpi eq
// CHECK-NEXT: fw.assert %[[SAME]], "'cf.assert': mismatched size for broadcast ({{.*}}prepare-input.mlir:[[# @LINE + 10]])"
// CHECK: linalg.generic
// CHECK: %[[OK:.*]] = arith.cmpf oge
// CHECK-NEXT: fw.assert %[[OK]], "'cf.assert': the assertion failed ({{.*}}prepare-input.mlir:[[# @LINE + 13]])"
// CHECK-NOT: cf.assert
func.func @asserts(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %m = tensor.dim %b, %c0 : tensor<?xf32>
  %same = arith.cmpi eq, %n, %m : index
  cf.assert %same, "mismatched size for broadcast"
  %e = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%a : tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%x: f32, %o: f32):
    %z = arith.constant 0.0 : f32
    %ok = arith.cmpf oge, %x, %z : f32
    cf.assert %ok, ""
    linalg.yield %x : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

/// math.isinf and math.clampf, which no backend lowers: a compare of the
/// magnitude with infinity; the larger of the value and the minimum, then the
/// smaller of that and the maximum (fast-math flags kept).
// CHECK-LABEL: func.func @isinf_clampf(
// CHECK-SAME: %[[X:[a-z0-9]*]]: f32, %[[LO:[a-z0-9]*]]: f32, %[[HI:[a-z0-9]*]]: f32, %[[V:[a-z0-9]*]]: vector<4xf32>)
// CHECK: %[[ABS:.*]] = math.absf %[[X]] : f32
// CHECK-NEXT: %[[INF:.*]] = arith.constant 0x7F800000 : f32
// CHECK-NEXT: %[[I:.*]] = arith.cmpf oeq, %[[ABS]], %[[INF]]
// CHECK-NEXT: %[[MAX:.*]] = arith.maximumf %[[X]], %[[LO]] fastmath<nnan> : f32
// CHECK-NEXT: %[[C:.*]] = arith.minimumf %[[MAX]], %[[HI]] fastmath<nnan>
// CHECK-NEXT: %[[VABS:.*]] = math.absf %[[V]] : vector<4xf32>
// CHECK-NEXT: %[[VINF:.*]] = arith.constant dense<0x7F800000> : vector<4xf32>
// CHECK-NEXT: %[[J:.*]] = arith.cmpf oeq, %[[VABS]], %[[VINF]]
// CHECK-NEXT: return %[[I]], %[[C]], %[[J]]
func.func @isinf_clampf(%x: f32, %lo: f32, %hi: f32, %v: vector<4xf32>) -> (i1, f32, vector<4xi1>) {
  %i = math.isinf %x : f32
  %c = math.clampf %x to [%lo, %hi] fastmath<nnan> : f32
  %j = math.isinf %v : vector<4xf32>
  return %i, %c, %j : i1, f32, vector<4xi1>
}

// -----

/// A tensor of index elements cannot pass between tasks: the index cast of a
/// whole tensor joins the generic that reads it (also where nothing else is
/// fused). Other elementwise producers stay apart.
// CHECK-LABEL: func.func @index_cast_joins(
// CHECK-SAME: %[[IDS:.*]]: tensor<4xi32>, %[[TABLE:.*]]: tensor<10xf32>)
// CHECK-NOT: tensor<4xindex>
// CHECK: linalg.generic {{.*}} ins(%[[IDS]] : tensor<4xi32>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: i32, %{{.*}}: f32):
// CHECK-NEXT: %[[I:.*]] = arith.index_cast %[[IN]] : i32 to index
// CHECK-NEXT: tensor.extract %[[TABLE]][%[[I]]]
// CHECK-LABEL: func.func @i32_stays(
// CHECK: linalg.generic {{.*}}fw.written_as = "arith.addi"
// CHECK: linalg.generic {{.*}}fw.written_as = "arith.muli"
func.func @index_cast_joins(%ids: tensor<4xi32>, %table: tensor<10xf32>) -> tensor<4xf32> {
  %idx = arith.index_cast %ids : tensor<4xi32> to tensor<4xindex>
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%idx : tensor<4xindex>) outs(%e : tensor<4xf32>) {
  ^bb0(%i: index, %o: f32):
    %v = tensor.extract %table[%i] : tensor<10xf32>
    linalg.yield %v : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}
func.func @i32_stays(%a: tensor<4xi32>) -> tensor<4xi32> {
  %b = arith.addi %a, %a : tensor<4xi32>
  %c = arith.muli %b, %b : tensor<4xi32>
  return %c : tensor<4xi32>
}

// -----

/// A loop at the top level that carries a scalar carries a tensor of rank 0
/// instead (tasks produce tensors only), read where its result is used; an
/// index carried with it, as an i64. An unsigned loop stays unsigned.
// CHECK-LABEL: func.func @running_sum(
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[INIT:.*]] = tensor.from_elements %[[ZERO]] : tensor<f32>
// CHECK: %[[K64:.*]] = arith.index_cast %{{.*}} : index to i64
// CHECK: %[[KINIT:.*]] = tensor.from_elements %[[K64]] : tensor<i64>
// CHECK: %[[LOOP:.*]]:3 = scf.for unsigned %{{.*}} = %{{.*}} iter_args(%[[ACC:.*]] = %[[INIT]], %[[OUT:.*]] = %{{.*}}, %[[K:.*]] = %[[KINIT]]) -> (tensor<f32>, tensor<?xf32>, tensor<i64>)
// CHECK-NEXT: %[[A:.*]] = tensor.extract %[[ACC]][] : tensor<f32>
// CHECK-NEXT: %[[KE:.*]] = tensor.extract %[[K]][] : tensor<i64>
// CHECK-NEXT: %[[KI:.*]] = arith.index_cast %[[KE]] : i64 to index
// CHECK: %[[S:.*]] = arith.addf %[[A]], %{{.*}} : f32
// CHECK: %[[NEXT:.*]] = tensor.from_elements %[[S]] : tensor<f32>
// CHECK: scf.yield %[[NEXT]], %{{.*}}, %{{.*}} : tensor<f32>, tensor<?xf32>, tensor<i64>
// CHECK: %[[SUM:.*]] = tensor.extract %[[LOOP]]#0[]
// CHECK: tensor.from_elements %[[SUM]] : tensor<f32>
func.func @running_sum(%x: tensor<?xf32>) -> (tensor<?xf32>, tensor<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %r:3 = scf.for unsigned %i = %c0 to %n step %c1 iter_args(%acc = %z, %out = %e, %k = %c0) -> (f32, tensor<?xf32>, index) {
    %v = tensor.extract %x[%i] : tensor<?xf32>
    %s = arith.addf %acc, %v : f32
    %o = tensor.insert %s into %out[%i] : tensor<?xf32>
    %k1 = arith.addi %k, %c1 : index
    scf.yield %s, %o, %k1 : f32, tensor<?xf32>, index
  }
  %t = tensor.from_elements %r#0 : tensor<f32>
  return %r#1, %t : tensor<?xf32>, tensor<f32>
}

// -----

/// A reshape by an i32 shape reads it as i64 (the memref lowering of an i32
/// shape left a cast LLVM could not translate): a shape of scalars is made
/// again of their sign extensions.
// CHECK-LABEL: func.func @reshape_i32(
// CHECK-SAME: %[[X:.*]]: tensor<?x6xf32>, %[[R:.*]]: i32)
// CHECK: %[[R64:.*]] = arith.extsi %[[R]] : i32 to i64
// CHECK: %[[C64:.*]] = arith.extsi %{{.*}} : i32 to i64
// CHECK: %[[SHAPE:.*]] = tensor.from_elements %[[R64]], %[[C64]] : tensor<2xi64>
// CHECK: tensor.reshape %[[X]](%[[SHAPE]]) {{.*}}: (tensor<?x6xf32>, tensor<2xi64>) -> tensor<?x?xf32>
func.func @reshape_i32(%x: tensor<?x6xf32>, %r: i32) -> tensor<?x?xf32> {
  %c3 = arith.constant 3 : i32
  %shape = tensor.from_elements %r, %c3 : tensor<2xi32>
  %y = tensor.reshape %x(%shape) : (tensor<?x6xf32>, tensor<2xi32>) -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}
