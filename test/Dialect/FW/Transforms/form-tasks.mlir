// RUN: %fw-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(fw-form-tasks))' | FileCheck %s

/// One elementwise op with a dynamic batch: the empty init and its size are
/// rematerialized inside the task, the result size is computed on the host.
/// The operation count is 4 per row of the first operand (dim 0 of binding 0).
// CHECK-LABEL: func.func @elementwise
// CHECK-SAME: (%[[A:.*]]: tensor<?x4xf32>, %[[B:.*]]: tensor<?x4xf32>)
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK: %[[D:.*]] = tensor.dim %[[A]], %[[C0]]
// CHECK: %[[DB:.*]] = tensor.dim %[[B]]
// CHECK: %[[EQ:.*]] = arith.cmpi eq, %{{.*}}, %[[DB]]
// CHECK: fw.assert %[[EQ]], "'linalg.generic': dimension 0 of operand 0 and dimension 0 of operand 1 must be equal
// CHECK: %[[T:.*]] = fw.task(%[[A]], %[[B]]) : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32> dims(%{{.*}}) attributes {flops_terms = [array<i64: 4, 0, 0>], fw.host_checked} {
// CHECK-NEXT: ^bb0(%[[X:.*]]: tensor<?x4xf32>, %[[Y:.*]]: tensor<?x4xf32>):
// CHECK: %[[XD:.*]] = tensor.dim %[[X]]
// CHECK: %[[E:.*]] = tensor.empty(%[[XD]]) : tensor<?x4xf32>
// CHECK: %[[G:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[Y]] : {{.*}}) outs(%[[E]] : tensor<?x4xf32>)
// CHECK: fw.yield %[[G]] : tensor<?x4xf32>
// CHECK: return %[[T]]
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @elementwise(%a: tensor<?x4xf32>, %b: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %a, %c0 : tensor<?x4xf32>
  %e = tensor.empty(%d) : tensor<?x4xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<?x4xf32>, tensor<?x4xf32>) outs(%e : tensor<?x4xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}

// -----

/// A fill used only as the init of a matmul joins the matmul's task; static
/// shapes get cost estimates: 2 * 8 * 16 * 4 flops for the matmul plus 32
/// for the fill; bytes of every operand of both ops.
// CHECK-LABEL: func.func @matmul
// CHECK: %[[T:.*]] = fw.task(%{{.*}}, %{{.*}}) : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32> attributes {bytes = 1024 : i64, flops = 1056 : i64, fw.host_checked} {
// CHECK-DAG: arith.constant 0.0
// CHECK-DAG: tensor.empty() : tensor<8x4xf32>
// CHECK: %[[F:.*]] = linalg.fill
// CHECK: %[[M:.*]] = linalg.matmul {{.*}} outs(%[[F]] : tensor<8x4xf32>)
// CHECK: fw.yield %[[M]]
// CHECK-NOT: fw.task
// CHECK: return %[[T]]
func.func @matmul(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>) -> tensor<8x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
  %m = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%f : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %m : tensor<8x4xf32>
}

// -----

/// A fill of an empty tensor that initializes two ops is copied into each
/// op's task, instead of becoming a task whose result both must copy.
// CHECK-LABEL: func.func @shared_fill
// CHECK-NOT: fw.task()
// CHECK: fw.task(%{{[^,]*}}, %{{[^,]*}}) :
// CHECK: linalg.fill
// CHECK: linalg.matmul
// CHECK: fw.task(%{{[^,]*}}, %{{[^,]*}}) :
// CHECK: linalg.fill
// CHECK: linalg.matmul
func.func @shared_fill(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %m1 = linalg.matmul ins(%a, %b : tensor<4x4xf32>, tensor<4x4xf32>) outs(%f : tensor<4x4xf32>) -> tensor<4x4xf32>
  %m2 = linalg.matmul ins(%b, %a : tensor<4x4xf32>, tensor<4x4xf32>) outs(%f : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %m1, %m2 : tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

/// negative_: a fill also read as data stays a task for that reader; the op
/// it initializes gets a copy.
// CHECK-LABEL: func.func @negative_fill_read_as_input
// CHECK: %[[F:.*]] = fw.task() : () -> tensor<4x4xf32>
// CHECK: linalg.fill
// CHECK: fw.task(%{{[^,]*}}, %[[F]]) :
// CHECK: linalg.fill
// CHECK: linalg.matmul
func.func @negative_fill_read_as_input(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %f = linalg.fill ins(%one : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %m = linalg.matmul ins(%a, %f : tensor<4x4xf32>, tensor<4x4xf32>) outs(%f : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %m : tensor<4x4xf32>
}

// -----

/// A constant returned directly is materialized by a task; a dense constant
/// used by a task is cloned into it rather than passed in.
// CHECK-LABEL: func.func @constants
// CHECK: %[[T0:.*]] = fw.task(%{{.*}}) : (tensor<2xf32>) -> tensor<2xf32>
// CHECK: arith.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK: linalg.add
// CHECK: %[[T1:.*]] = fw.task() : () -> tensor<2xf32>
// CHECK-NEXT: arith.constant dense<3.000000e+00> : tensor<2xf32>
// CHECK-NEXT: fw.yield
// CHECK: return %[[T0]], %[[T1]]
func.func @constants(%a: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %c = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %k = arith.constant dense<3.0> : tensor<2xf32>
  %e = tensor.empty() : tensor<2xf32>
  %r = linalg.add ins(%a, %c : tensor<2xf32>, tensor<2xf32>) outs(%e : tensor<2xf32>) -> tensor<2xf32>
  return %r, %k : tensor<2xf32>, tensor<2xf32>
}

// -----

/// negative_: a function that returns its argument needs no task.
// CHECK-LABEL: func.func @negative_identity
// CHECK-NOT: fw.task
// CHECK: return %arg0
func.func @negative_identity(%a: tensor<3xi32>) -> tensor<3xi32> {
  return %a : tensor<3xi32>
}

// -----

/// The dynamic size of a matmul's result is read from its input inside the
/// task, so the task does not take the tensor the host used for the size.
// CHECK-LABEL: func.func @size_from_input
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<?x8xf32>, %[[W:[a-z0-9]+]]: tensor<8x4xf32>, %[[Y:[a-z0-9]+]]: tensor<?x8xf32>)
// CHECK: fw.task(%[[X]], %[[W]]) : (tensor<?x8xf32>, tensor<8x4xf32>) -> tensor<?x4xf32>
// CHECK-NEXT: ^bb0(%[[XI:[a-z0-9]+]]: tensor<?x8xf32>, %{{[a-z0-9]+}}: tensor<8x4xf32>):
// CHECK: %[[D:.*]] = tensor.dim %[[XI]], %{{.*}} : tensor<?x8xf32>
// CHECK: tensor.empty(%[[D]]) : tensor<?x4xf32>
func.func @size_from_input(%x: tensor<?x8xf32>, %w: tensor<8x4xf32>, %y: tensor<?x8xf32>) -> tensor<?x4xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %y, %c0 : tensor<?x8xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%n) : tensor<?x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x4xf32>) -> tensor<?x4xf32>
  %m = linalg.matmul ins(%x, %w : tensor<?x8xf32>, tensor<8x4xf32>) outs(%f : tensor<?x4xf32>) -> tensor<?x4xf32>
  return %m : tensor<?x4xf32>
}

// -----

/// negative_: a broadcast's new dimension has no input to take its size from;
/// the task takes the tensor whose size the host used.
// CHECK-LABEL: func.func @negative_broadcast_size
// CHECK: fw.task(%{{[a-z0-9]+}}, %{{[a-z0-9]+}}) : (tensor<4xf32>, tensor<?x2xf32>) -> tensor<?x4xf32>
func.func @negative_broadcast_size(%b: tensor<4xf32>, %y: tensor<?x2xf32>) -> tensor<?x4xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %y, %c0 : tensor<?x2xf32>
  %e = tensor.empty(%n) : tensor<?x4xf32>
  %r = linalg.broadcast ins(%b : tensor<4xf32>) outs(%e : tensor<?x4xf32>) dimensions = [0]
  return %r : tensor<?x4xf32>
}

// -----

/// The task goes where its root is: a fill of the accumulator that comes
/// before the producer of the matmul's input joins the matmul's task, after
/// that producer.
// CHECK-LABEL: func.func @fill_before_producer
// CHECK: %[[EXP:.*]] = fw.task(%{{.*}}) : (tensor<8x8xf32>) -> tensor<8x8xf32>
// CHECK: linalg.exp
// CHECK: fw.task(%[[EXP]], %{{.*}}) : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
// CHECK: linalg.fill
// CHECK: linalg.matmul
func.func @fill_before_producer(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %z = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<8x8xf32>
  %f = linalg.fill ins(%z : f32) outs(%init : tensor<8x8xf32>) -> tensor<8x8xf32>
  %e = tensor.empty() : tensor<8x8xf32>
  %a2 = linalg.exp ins(%a : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %m = linalg.matmul ins(%a2, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%f : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %m : tensor<8x8xf32>
}

// -----

/// negative_: only a fill of an empty tensor joins its user's task; a fill
/// over another fill becomes a task of its own (with the first fill inside).
// CHECK-LABEL: func.func @negative_fill_of_fill
// CHECK: %[[F:.*]] = fw.task() : () -> tensor<8x8xf32>
// CHECK-COUNT-2: linalg.fill
// CHECK: fw.yield
// CHECK: fw.task(%{{.*}}, %{{.*}}, %[[F]])
// CHECK-NOT: linalg.fill
// CHECK: linalg.matmul
func.func @negative_fill_of_fill(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %z = arith.constant 0.0 : f32
  %o = arith.constant 1.0 : f32
  %init = tensor.empty() : tensor<8x8xf32>
  %f0 = linalg.fill ins(%z : f32) outs(%init : tensor<8x8xf32>) -> tensor<8x8xf32>
  %f = linalg.fill ins(%o : f32) outs(%f0 : tensor<8x8xf32>) -> tensor<8x8xf32>
  %m = linalg.matmul ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%f : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %m : tensor<8x8xf32>
}

// -----

/// Elementwise epilogues (bias, then ReLU) join the matmul's task.
// CHECK-LABEL: func.func @epilogues
// CHECK: %[[T:.*]] = fw.task(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<8x16xf32>, tensor<16x4xf32>, tensor<4xf32>) -> tensor<8x4xf32>
// CHECK: linalg.matmul
// CHECK: linalg.generic
// CHECK: arith.addf
// CHECK: linalg.generic
// CHECK: arith.maximumf
// CHECK: fw.yield
// CHECK-NOT: fw.task
// CHECK: return %[[T]]
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @epilogues(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>, %bias: tensor<4xf32>) -> tensor<8x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
  %m = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%f : tensor<8x4xf32>) -> tensor<8x4xf32>
  %e1 = tensor.empty() : tensor<8x4xf32>
  %s = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m, %bias : tensor<8x4xf32>, tensor<4xf32>) outs(%e1 : tensor<8x4xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %r = arith.addf %x, %y : f32
    linalg.yield %r : f32
  } -> tensor<8x4xf32>
  %e2 = tensor.empty() : tensor<8x4xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<8x4xf32>) outs(%e2 : tensor<8x4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %v = arith.maximumf %x, %zero : f32
    linalg.yield %v : f32
  } -> tensor<8x4xf32>
  return %r : tensor<8x4xf32>
}

// -----

/// negative_: a result with a second user stays in its own task; so does a
/// consumer that reduces.
// CHECK-LABEL: func.func @negative_epilogues
// CHECK: %[[M:.*]] = fw.task
// CHECK: linalg.matmul
// CHECK: fw.task(%[[M]]
// CHECK: linalg.generic
// CHECK: fw.task(%[[M]]
// CHECK: linalg.reduce
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @negative_epilogues(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>) -> (tensor<8x4xf32>, tensor<8xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
  %m = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%f : tensor<8x4xf32>) -> tensor<8x4xf32>
  %e1 = tensor.empty() : tensor<8x4xf32>
  %s = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%m : tensor<8x4xf32>) outs(%e1 : tensor<8x4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %v = arith.maximumf %x, %zero : f32
    linalg.yield %v : f32
  } -> tensor<8x4xf32>
  %e2 = tensor.empty() : tensor<8xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e2 : tensor<8xf32>) -> tensor<8xf32>
  %sum = linalg.reduce ins(%m : tensor<8x4xf32>) outs(%acc : tensor<8xf32>) dimensions = [1]
    (%x: f32, %y: f32) {
      %z = arith.addf %x, %y : f32
      linalg.yield %z : f32
    }
  return %s, %sum : tensor<8x4xf32>, tensor<8xf32>
}

// -----

/// An epilogue whose init is a fill brings its fill into the task too.
// CHECK-LABEL: func.func @epilogue_with_fill
// CHECK: fw.task
// CHECK: linalg.fill
// CHECK: linalg.matmul
// CHECK: linalg.fill
// CHECK: linalg.generic
// CHECK: fw.yield
// CHECK-NOT: linalg.fill
// CHECK: return
#id3 = affine_map<(d0, d1) -> (d0, d1)>
func.func @epilogue_with_fill(%a: tensor<?x16xf32>, %b: tensor<16x4xf32>) -> tensor<?x4xf32> {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?x16xf32>
  %e = tensor.empty(%n) : tensor<?x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x4xf32>) -> tensor<?x4xf32>
  %e1 = tensor.empty(%n) : tensor<?x4xf32>
  %f1 = linalg.fill ins(%one : f32) outs(%e1 : tensor<?x4xf32>) -> tensor<?x4xf32>
  %m = linalg.matmul ins(%a, %b : tensor<?x16xf32>, tensor<16x4xf32>) outs(%f : tensor<?x4xf32>) -> tensor<?x4xf32>
  %r = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel"]}
      ins(%m : tensor<?x4xf32>) outs(%f1 : tensor<?x4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %v = arith.addf %x, %o : f32
    linalg.yield %v : f32
  } -> tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}

// -----

/// An elementwise producer whose only use is an input of a matmul joins the
/// matmul's task as a prologue.
// CHECK-LABEL: func.func @prologue
// CHECK: fw.task(%arg0, %arg1)
// CHECK: linalg.generic
// CHECK: arith.mulf
// CHECK: linalg.matmul
// CHECK-NOT: fw.task
#idp = affine_map<(d0, d1) -> (d0, d1)>
func.func @prologue(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>) -> tensor<8x4xf32> {
  %zero = arith.constant 0.0 : f32
  %two = arith.constant 2.0 : f32
  %ea = tensor.empty() : tensor<8x16xf32>
  %sa = linalg.generic {indexing_maps = [#idp, #idp], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<8x16xf32>) outs(%ea : tensor<8x16xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.mulf %x, %two : f32
    linalg.yield %y : f32
  } -> tensor<8x16xf32>
  %e = tensor.empty() : tensor<8x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
  %m = linalg.matmul ins(%sa, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%f : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %m : tensor<8x4xf32>
}

// -----

/// A prologue whose init is a fill brings its fill into the task too.
// CHECK-LABEL: func.func @prologue_with_fill
// CHECK: fw.task
// CHECK: linalg.fill
// CHECK: linalg.generic
// CHECK: linalg.matmul
// CHECK-NOT: fw.task
#idq = affine_map<(d0, d1) -> (d0, d1)>
func.func @prologue_with_fill(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>) -> tensor<8x4xf32> {
  %zero = arith.constant 0.0 : f32
  %ea = tensor.empty() : tensor<8x16xf32>
  %fa = linalg.fill ins(%zero : f32) outs(%ea : tensor<8x16xf32>) -> tensor<8x16xf32>
  %ma = linalg.generic {indexing_maps = [#idq, #idq], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<8x16xf32>) outs(%fa : tensor<8x16xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.maximumf %x, %o : f32
    linalg.yield %y : f32
  } -> tensor<8x16xf32>
  %e = tensor.empty() : tensor<8x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
  %m = linalg.matmul ins(%ma, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%f : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %m : tensor<8x4xf32>
}

// -----

/// A scalar derived from the batch size (here to average over it) would make
/// the task read %x just for its size: the task reads the size of %h, the
/// tensor it reads anyway, which provably has the same rows.
// CHECK-LABEL: func.func @size_from_operand
// CHECK: %[[H:.*]] = fw.task(%arg0, %arg1)
// CHECK: linalg.matmul
// CHECK: fw.task(%[[H]]) : (tensor<?x8xf32>) -> tensor<8xf32>
// CHECK: ^bb0(%[[ARG:.*]]: tensor<?x8xf32>):
// CHECK: tensor.dim %[[ARG]], %c0
// CHECK: arith.sitofp
// CHECK: linalg.generic
#id = affine_map<(i, j) -> (i, j)>
#col = affine_map<(i, j) -> (j)>
func.func @size_from_operand(%x: tensor<?x8xf32>, %w: tensor<8x8xf32>) -> tensor<8xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?x8xf32>
  %ni = arith.index_cast %n : index to i64
  %nf = arith.sitofp %ni : i64 to f32
  %e = tensor.empty(%n) : tensor<?x8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?x8xf32>) -> tensor<?x8xf32>
  %h = linalg.matmul ins(%x, %w : tensor<?x8xf32>, tensor<8x8xf32>) outs(%z : tensor<?x8xf32>) -> tensor<?x8xf32>
  %ec = tensor.empty() : tensor<8xf32>
  %zc = linalg.fill ins(%zero : f32) outs(%ec : tensor<8xf32>) -> tensor<8xf32>
  %mean = linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]}
      ins(%h : tensor<?x8xf32>) outs(%zc : tensor<8xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %q = arith.divf %a, %nf : f32
    %s = arith.addf %q, %acc : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %mean : tensor<8xf32>
}

// -----

/// Scalars computed on the host that index, pad or step are checked there
/// before the task: an element index inside its dimension, a padding size not
/// negative, a loop step positive; an index read from a tensor is not (the
/// task computes it).
// CHECK-LABEL: func.func @scalar_checks
// CHECK: %[[N:.*]] = tensor.dim %{{.*}}, %c0
// CHECK: arith.cmpi sge, %[[N]], %c0
// CHECK: arith.cmpi slt, %[[N]],
// CHECK: fw.assert %{{.*}}, "'tensor.insert': the index into dimension 0 is out of range
// CHECK: fw.task
// CHECK: arith.cmpi sge, %{{.*}}, %c0
// CHECK: fw.assert %{{.*}}, "'tensor.pad': the low padding of dimension 0 is negative
// CHECK: fw.task
// CHECK: arith.cmpi sgt, %[[STEP:.*]], %c0
// CHECK: fw.assert %{{.*}}, "'scf.for': the loop's step is not positive
// CHECK: fw.task
// CHECK-NOT: fw.assert
// CHECK: return
func.func @scalar_checks(%a: tensor<?xf32>, %idx: tensor<i64>) -> (tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %ins = tensor.insert %z into %a[%n] : tensor<?xf32>
  %low = arith.subi %c0, %n : index
  %pad = tensor.pad %a low[%low] high[0] {
  ^bb0(%i: index):
    tensor.yield %z : f32
  } : tensor<?xf32> to tensor<?xf32>
  %loop = scf.for %i = %c0 to %n step %n iter_args(%t = %a) -> tensor<?xf32> {
    scf.yield %t : tensor<?xf32>
  }
  %raw = tensor.extract %idx[] : tensor<i64>
  %at = arith.index_cast %raw : i64 to index
  %data = tensor.insert %z into %a[%at] : tensor<?xf32>
  return %ins, %pad, %loop, %data : tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>
}

// -----

/// A check the host cannot make (its condition reads tensor data) runs in
/// the task of the op after it: here a loop whose only work left is a check,
/// a task without results. A check of sizes stays on the host.
// CHECK-LABEL: func.func @checks_only(
// CHECK-SAME: %[[A:.*]]: tensor<?xf32>, %[[S:.*]]: tensor<1xi64>, %[[K:.*]]: tensor<i64>
// CHECK: %[[D:.*]] = tensor.dim %[[A]]
// CHECK: %[[SIZE:.*]] = arith.cmpi eq, %[[D]], %{{.*}} : index
// CHECK: fw.assert %[[SIZE]], "sizes"
// CHECK: fw.task(%[[A]], %[[K]], %[[S]]) : (tensor<?xf32>, tensor<i64>, tensor<1xi64>) -> ()
// CHECK: scf.for
// CHECK: fw.assert %{{.*}}, "loop"
// CHECK: tensor.extract
// CHECK: fw.assert %{{.*}}, "data"
// CHECK-NOT: fw.task
// CHECK: return %[[A]]
func.func @checks_only(%a: tensor<?xf32>, %s: tensor<1xi64>, %kt: tensor<i64>)
    -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %d = tensor.dim %a, %c0 : tensor<?xf32>
  %size = arith.cmpi eq, %d, %c4 : index
  fw.assert %size, "sizes"
  %e = tensor.extract %s[%c0] : tensor<1xi64>
  %n = arith.index_cast %e : i64 to index
  %data = arith.cmpi eq, %n, %d : index
  fw.assert %data, "data"
  %ki = tensor.extract %kt[] : tensor<i64>
  %k = arith.index_cast %ki : i64 to index
  scf.for %i = %c0 to %k step %c1 {
    %at = tensor.extract %a[%i] : tensor<?xf32>
    %pos = arith.cmpf oge, %at, %at : f32
    fw.assert %pos, "loop"
  }
  return %a : tensor<?xf32>
}

// -----

/// A whole-tensor select's size: the picked one's where the host computes
/// the condition; else the two must agree, checked on the host.
// CHECK-LABEL: func.func @whole_tensor_select(
// CHECK-SAME: %[[A:[^:]*]]: tensor<?xf32>, %[[B:[^:]*]]: tensor<?xf32>, %[[C:[^:]*]]: tensor<i1>
// CHECK: %[[N:.*]] = tensor.dim %[[A]]
// CHECK: %[[FIRST:.*]] = arith.cmpi sgt, %[[N]]
// CHECK: %[[DA:.*]] = tensor.dim %[[A]]
// CHECK: %[[DB:.*]] = tensor.dim %[[B]]
// CHECK: %[[SIZE:.*]] = arith.select %[[FIRST]], %[[DA]], %[[DB]] : index
// CHECK: fw.task(%[[A]], %[[B]]) : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32> dims(%[[SIZE]])
// CHECK: %[[DA2:.*]] = tensor.dim %[[A]]
// CHECK: %[[DB2:.*]] = tensor.dim %[[B]]
// CHECK: %[[SAME:.*]] = arith.cmpi eq, %[[DA2]], %[[DB2]]
// CHECK: fw.assert %[[SAME]], "'arith.select': dimension 0 of the two tensors differs, and the condition that picks one is read from tensor data
// CHECK: fw.task(%[[A]], %[[B]], %[[C]]) : (tensor<?xf32>, tensor<?xf32>, tensor<i1>) -> tensor<?xf32> dims(%[[DA2]])
func.func @whole_tensor_select(%a: tensor<?xf32>, %b: tensor<?xf32>,
    %ct: tensor<i1>) -> (tensor<?xf32>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %first = arith.cmpi sgt, %n, %c2 : index
  %r = arith.select %first, %a, %b : tensor<?xf32>
  %c = tensor.extract %ct[] : tensor<i1>
  %s = arith.select %c, %a, %b : tensor<?xf32>
  return %r, %s : tensor<?xf32>, tensor<?xf32>
}

// -----

/// Checks that read tensor data and whose op folded away (nothing after them
/// to join) run in one task for each run of them.
// CHECK-LABEL: func.func @orphan_checks(
// CHECK: fw.task(%{{.*}}) : (tensor<2xi64>) -> () {
// CHECK: fw.assert %{{.*}}, "first"
// CHECK: fw.assert %{{.*}}, "second"
// CHECK-NEXT: }
// CHECK-NOT: fw.task
// CHECK: return
func.func @orphan_checks(%a: tensor<?xf32>, %s: tensor<2xi64>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0 : i64
  %e0 = tensor.extract %s[%c0] : tensor<2xi64>
  %p0 = arith.cmpi sge, %e0, %zero : i64
  fw.assert %p0, "first"
  %e1 = tensor.extract %s[%c1] : tensor<2xi64>
  %p1 = arith.cmpi sge, %e1, %zero : i64
  fw.assert %p1, "second"
  return %a : tensor<?xf32>
}

// -----

/// A size the body computes from the size of a tensor it makes (a pad's): the
/// host computes it again from the pad's reified size, and each op of the
/// computation uses the host's values (the division used the body's size).
// CHECK-LABEL: func.func @dims_through_body(
// CHECK-SAME: %[[A:.*]]: tensor<?xf32>)
// CHECK: fw.assert %{{.*}}, "'arith.divsi': integer division by zero
// CHECK: %[[D:.*]] = tensor.dim %[[A]], %{{.*}}
// CHECK-NEXT: %[[PADDED:.*]] = affine.apply #{{.*}}(%[[D]])
// CHECK: %[[HALF:.*]] = arith.divsi %[[PADDED]], %{{.*}} : index
// CHECK: %[[SAME:.*]] = arith.cmpi eq, %{{.*}}, %[[HALF]] : index
// CHECK: fw.assert %[[SAME]], "'fw.task': dims: dimension 0 of result 0 is not the size it yields
// CHECK: fw.task(%[[A]])
func.func @dims_through_body(%a: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %a, %c0 : tensor<?xf32>
  %c2 = arith.constant 2 : index
  %d2 = arith.addi %d, %c2 : index
  %m = arith.divsi %d2, %c2 : index
  %r = fw.task(%a) : (tensor<?xf32>) -> tensor<?xf32> dims(%m) {
  ^bb0(%x: tensor<?xf32>):
    %z = arith.constant 0.0 : f32
    %k0 = arith.constant 0 : index
    %k1 = arith.constant 1 : index
    %p = tensor.pad %x low[1] high[1] {
    ^bb0(%i: index):
      tensor.yield %z : f32
    } : tensor<?xf32> to tensor<?xf32>
    %pd = tensor.dim %p, %k0 : tensor<?xf32>
    %k2 = arith.constant 2 : index
    %q = arith.divsi %pd, %k2 : index
    %e = tensor.empty(%q) : tensor<?xf32>
    %f = linalg.fill ins(%z : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
    fw.yield %f : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}

// -----

/// A loop whose every iteration keeps the size it starts with has that size:
/// written into a tensor made before the loop from the size of the init, or
/// sized from what it carries (scf.while, as JAX's fori_loop makes it).
// CHECK-LABEL: func.func @for_into_outside_empty(
// CHECK-SAME: %[[X:.*]]: tensor<?xf32>)
// CHECK: fw.task(%[[X]]) : (tensor<?xf32>) -> tensor<?xf32> dims(%{{.*}})
// CHECK: scf.for
// CHECK-LABEL: func.func @while_sized_from_carried(
// CHECK-SAME: %[[X:[a-z0-9]*]]: tensor<?xf32>, %[[COUNT:.*]]: tensor<i32>)
// CHECK: %[[N:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?xf32>
// CHECK-NEXT: fw.task(%[[COUNT]], %[[X]]) : (tensor<i32>, tensor<?xf32>) -> (tensor<i32>, tensor<?xf32>) dims(%[[N]])
// CHECK: scf.while
func.func @for_into_outside_empty(%x: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%h = %x) -> (tensor<?xf32>) {
    %y = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%h : tensor<?xf32>) outs(%e : tensor<?xf32>) {
    ^bb0(%a: f32, %o: f32):
      %t = math.tanh %a : f32
      linalg.yield %t : f32
    } -> tensor<?xf32>
    scf.yield %y : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}
func.func @while_sized_from_carried(%x: tensor<?xf32>, %n: tensor<i32>) -> tensor<?xf32> {
  %c0 = arith.constant dense<0> : tensor<i32>
  %r:2 = scf.while (%i = %c0, %v = %x) : (tensor<i32>, tensor<?xf32>) -> (tensor<i32>, tensor<?xf32>) {
    %iv = tensor.extract %i[] : tensor<i32>
    %nv = tensor.extract %n[] : tensor<i32>
    %c = arith.cmpi slt, %iv, %nv : i32
    scf.condition(%c) %i, %v : tensor<i32>, tensor<?xf32>
  } do {
  ^bb0(%i: tensor<i32>, %v: tensor<?xf32>):
    %c0i = arith.constant 0 : index
    %d = tensor.dim %v, %c0i : tensor<?xf32>
    %e = tensor.empty(%d) : tensor<?xf32>
    %y = linalg.generic {indexing_maps = [affine_map<(d) -> (d)>, affine_map<(d) -> (d)>], iterator_types = ["parallel"]} ins(%v : tensor<?xf32>) outs(%e : tensor<?xf32>) {
    ^bb0(%a: f32, %o: f32):
      %t = arith.addf %a, %a : f32
      linalg.yield %t : f32
    } -> tensor<?xf32>
    %one = arith.constant dense<1> : tensor<i32>
    %i2 = arith.addi %i, %one : tensor<i32>
    scf.yield %i2, %y : tensor<i32>, tensor<?xf32>
  }
  return %r#1 : tensor<?xf32>
}
