// What exporters (torch-mlir, stablehlo-legalize-to-linalg) and hand-written
// programs produce that fw once refused or aborted on.
// RUN: %fwc %s -o %t.fwb
//
// torch-mlir's broadcast checks, cf.assert at the top level, fail the call
// with their message (they were refused).
// RUN: %fw-run %t.fwb --function=torch_add --input=2x2xf32=1,2,3,4 --input=2x2xf32=10 | FileCheck %s --check-prefix=ADD
// ADD: 2x2xf32=[11 12][13 14]
// RUN: not %fw-run %t.fwb --function=torch_add --input=2x2xf32=1 --input=3x2xf32=1 2>&1 | FileCheck %s --check-prefix=MISMATCH
// MISMATCH: fw-run: error: in @torch_add: assertion failed: 'cf.assert': mismatched size for broadcast ({{.*}}exported_idioms.mlir:[[# @LINE + 99]])
//
// A cf.assert inside a kernel fails the task with its message (it aborted the
// process).
// RUN: %fw-run %t.fwb --function=checked_sqrt --input=2xf32=4,9 | FileCheck %s --check-prefix=SQRT
// SQRT: 2xf32=2 3
// RUN: not %fw-run %t.fwb --function=checked_sqrt --input=2xf32=4,-9 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// NEGATIVE: check failed: 'cf.assert': sqrt of a negative number ({{.*}}exported_idioms.mlir:[[# @LINE + 112]])
//
// math.isinf and math.clampf (no backend lowered them).
// RUN: %fw-run %t.fwb --function=inf_and_clamp --input=5xf32=1,inf,-inf,nan,-3 | FileCheck %s --check-prefix=INF
// INF: 5xi1=0 1 1 0 0
// INF: 5xf32=1 2 -2 nan -2
//
// A loop whose body writes into a tensor made before it keeps the size it
// starts with, and so does a while loop sized from what it carries (JAX's
// fori_loop through scf.while); both were refused ("has a dynamic size that
// fw cannot compute before running the task").
// RUN: %fw-run %t.fwb --function=rnn --input=3xf32=0,1,-1 | FileCheck %s --check-prefix=RNN
// RUN: %python -c "import numpy as np; x = np.array([0, 1, -1], np.float32); exec('for _ in range(4): x = np.tanh(x)'); print(np.round(x, 4))" | FileCheck %s --check-prefix=RNN
// RNN: {{\[?}}0{{.*}} 0.5{{[0-9]*}} -0.5
// RUN: %fw-run %t.fwb --function=fori --input=2xf32=8,16 --input=i32=3 | FileCheck %s --check-prefix=FORI
// FORI: 2xf32=2.25 3.25
// FORI: i32=3
//
// Calls are inlined (JAX exports call private helpers; they were refused): a
// private callee disappears, a public one stays an entry point of its own.
// RUN: %fw-run %t.fwb --function=twice --input=3xf32=-1,2,-3 | FileCheck %s --check-prefix=TWICE
// TWICE: 3xf32=0 4 0
// RUN: %fw-run %t.fwb --function=public_callee --input=3xf32=1,2,3 | FileCheck %s --check-prefix=PUBLIC
// PUBLIC: 3xf32=2 4 6
// RUN: not %fw-run %t.fwb --function=relu --input=3xf32=1 2>&1 | FileCheck %s --check-prefix=PRIVATE
// PRIVATE: fw-run: error: {{.*}}relu
//
// Sizes the host computes with math (torch-mlir's upsampling by a scale:
// math.floor); they were refused at the top level.
// RUN: %fw-run %t.fwb --function=upsample --input=1x1x2x2xf32=1,2,3,4 | FileCheck %s --check-prefix=UPSAMPLE
// UPSAMPLE: 1x1x5x5xf32=[{{\[}}[1 1 1 2 2][1 1 1 2 2][1 1 1 2 2][3 3 3 4 4][3 3 3 4 4]]]
//
// A reshape to a shape the host computes from sizes (JAX's dynamic_reshape,
// a reshape(-1) written out); it was refused. (A shape read from tensor data
// is still refused: the host sizes a task's results before it runs.)
// RUN: %fw-run %t.fwb --function=reshape_rows --input=2x6xf32=1,2,3,4,5,6,7,8,9,10,11,12 | FileCheck %s --check-prefix=RESHAPE
// RESHAPE: 4x3xf32=[1 2 3][4 5 6][7 8 9][10 11 12]
//
// A loop at the top level that carries a scalar next to a tensor (a running
// sum), or only scalars; they were refused ("tasks produce tensors only").
// RUN: %fw-run %t.fwb --function=cumsum --input=4xf32=1,2,3,4 | FileCheck %s --check-prefix=CUMSUM
// CUMSUM: 4xf32=1 3 6 10
// CUMSUM: f32=10
// RUN: %fw-run %t.fwb --function=squared_sum --input=3xf32=1,2,3 | FileCheck %s --check-prefix=SQUARED
// SQUARED: f32=36
// With an index carried next to the sum (it was refused), and an unsigned
// loop that runs no iteration from -3 to 2 (the rewrite dropped `unsigned`).
// RUN: %fw-run %t.fwb --function=sum_by_counter --input=3xf32=1,2,3 | FileCheck %s --check-prefix=COUNTER
// COUNTER: f32=6
// RUN: %fw-run %t.fwb --function=unsigned_loop --input=1xf32=1 | FileCheck %s --check-prefix=UNSIGNED
// UNSIGNED: f32=0
//
// A check in an inlined callee names the line of the callee's op; a NUL in a
// message is spelled out (the module did not load).
// RUN: not %fw-run %t.fwb --function=calls_check --input=1xf32=1 2>&1 | FileCheck %s --check-prefix=INLINED
// INLINED: assertion failed: 'cf.assert': need 2 elements ({{.*}}exported_idioms.mlir:[[# @LINE + 267]])
// RUN: not %fw-run %t.fwb --function=nul_message --input=2xf32=1,-1 2>&1 | FileCheck %s --check-prefix=NUL
// NUL: check failed: 'cf.assert': bad\0value
//
// math.isinf of a whole tensor; a reshape by an i32 shape a second reshape
// shares.
// RUN: %fw-run %t.fwb --function=isinf_tensor --input=3xf32=1,inf,-inf | FileCheck %s --check-prefix=INFS
// INFS: 3xi1=0 1 1
// RUN: %fw-run %t.fwb --function=two_reshapes --input=2x6xf32=1,2,3,4,5,6,7,8,9,10,11,12 | FileCheck %s --check-prefix=TWORESHAPES
// TWORESHAPES: 4x3xf32=[1 2 3][4 5 6][7 8 9][10 11 12]
// TWORESHAPES: 4x3xf32=[2 4 6][8 10 12][14 16 18][20 22 24]
// RUN: %fw-run %t.fwb --function=constant_i32_shape --input=2x6xf32=1,2,3,4,5,6,7,8,9,10,11,12 | FileCheck %s --check-prefix=CONSTSHAPE
// CONSTSHAPE: 4x3xf32=[1 2 3][4 5 6][7 8 9][10 11 12]
//
// At -O0 too, an index cast of a whole tensor joins the op that reads it (the
// runtime holds no tensors of index elements; it was refused).
// RUN: %fwc %s -O0 -o %t.o0.fwb
// RUN: %fw-run %t.o0.fwb --function=lookup --input=4xi32=1,2,3,9 --input=10xf32=0,1,2,3,4,5,6,7,8,9 | FileCheck %s --check-prefix=LOOKUP
// RUN: %fw-run %t.fwb --function=lookup --input=4xi32=1,2,3,9 --input=10xf32=0,1,2,3,4,5,6,7,8,9 | FileCheck %s --check-prefix=LOOKUP
// LOOKUP: 4xf32=1 2 3 9
// The cast read twice, or by two ops (the fusion kept unused index results,
// or looped).
// RUN: %fw-run %t.o0.fwb --function=cast_twice --input=3xi32=1,-2,3 | FileCheck %s --check-prefix=TWICECAST
// RUN: %fw-run %t.fwb --function=cast_twice --input=3xi32=1,-2,3 | FileCheck %s --check-prefix=TWICECAST
// TWICECAST: 3xi64=2 -4 6
// TWICECAST: 3xi64=1 -2 3

#map = affine_map<(d0, d1) -> (d0, d1)>
#m4 = affine_map<(n, c, h, w) -> (n, c, h, w)>
func.func @torch_add(%arg0: tensor<?x?xf32>, %arg1: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %dim = tensor.dim %arg0, %c0 : tensor<?x?xf32>
  %dim_0 = tensor.dim %arg0, %c1 : tensor<?x?xf32>
  %dim_1 = tensor.dim %arg1, %c0 : tensor<?x?xf32>
  %dim_2 = tensor.dim %arg1, %c1 : tensor<?x?xf32>
  %0 = arith.cmpi eq, %dim, %dim_1 : index
  cf.assert %0, "mismatched size for broadcast"
  %1 = arith.cmpi eq, %dim_0, %dim_2 : index
  cf.assert %1, "mismatched size for broadcast"
  %2 = tensor.empty(%dim, %dim_0) : tensor<?x?xf32>
  %3 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %arg1 : tensor<?x?xf32>, tensor<?x?xf32>) outs(%2 : tensor<?x?xf32>) {
  ^bb0(%in: f32, %in_3: f32, %out: f32):
    %4 = arith.addf %in, %in_3 : f32
    linalg.yield %4 : f32
  } -> tensor<?x?xf32>
  return %3 : tensor<?x?xf32>
}

func.func @checked_sqrt(%x: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%x : tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%a: f32, %o: f32):
    %z = arith.constant 0.0 : f32
    %ok = arith.cmpf oge, %a, %z : f32
    cf.assert %ok, "sqrt of a negative number"
    %t = math.sqrt %a : f32
    linalg.yield %t : f32
  } -> tensor<?xf32>
  return %y : tensor<?xf32>
}

func.func @inf_and_clamp(%x: tensor<5xf32>) -> (tensor<5xi1>, tensor<5xf32>) {
  %lo = arith.constant -2.0 : f32
  %hi = arith.constant 2.0 : f32
  %e = tensor.empty() : tensor<5xi1>
  %f = tensor.empty() : tensor<5xf32>
  %r:2 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%x : tensor<5xf32>) outs(%e, %f : tensor<5xi1>, tensor<5xf32>) {
  ^bb0(%a: f32, %o: i1, %p: f32):
    %i = math.isinf %a : f32
    %c = math.clampf %a to [%lo, %hi] : f32
    linalg.yield %i, %c : i1, f32
  } -> (tensor<5xi1>, tensor<5xf32>)
  return %r#0, %r#1 : tensor<5xi1>, tensor<5xf32>
}

func.func @rnn(%x: tensor<?xf32>) -> tensor<?xf32> {
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

func.func @fori(%x: tensor<?xf32>, %n: tensor<i32>) -> (tensor<?xf32>, tensor<i32>) {
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
    %y = linalg.generic {indexing_maps = [affine_map<(d) -> (d)>, affine_map<(d) -> ()>, affine_map<(d) -> (d)>], iterator_types = ["parallel"]} ins(%v, %i : tensor<?xf32>, tensor<i32>) outs(%e : tensor<?xf32>) {
    ^bb0(%a: f32, %ii: i32, %o: f32):
      %f = arith.sitofp %ii : i32 to f32
      %s = arith.addf %a, %f : f32
      %h = arith.constant 0.5 : f32
      %t = arith.mulf %s, %h : f32
      linalg.yield %t : f32
    } -> tensor<?xf32>
    %one = arith.constant dense<1> : tensor<i32>
    %ei = tensor.empty() : tensor<i32>
    %i2 = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []} ins(%i, %one : tensor<i32>, tensor<i32>) outs(%ei : tensor<i32>) {
    ^bb0(%a: i32, %b: i32, %o: i32):
      %s = arith.addi %a, %b : i32
      linalg.yield %s : i32
    } -> tensor<i32>
    scf.yield %i2, %y : tensor<i32>, tensor<?xf32>
  }
  return %r#1, %r#0 : tensor<?xf32>, tensor<i32>
}

func.func @lookup(%ids: tensor<4xi32>, %table: tensor<10xf32>) -> tensor<4xf32> {
  %idx = arith.index_cast %ids : tensor<4xi32> to tensor<4xindex>
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%idx : tensor<4xindex>) outs(%e : tensor<4xf32>) {
  ^bb0(%i: index, %o: f32):
    %v = tensor.extract %table[%i] : tensor<10xf32>
    linalg.yield %v : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

func.func private @relu(%x: tensor<?xf32>) -> tensor<?xf32> {
  %z = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%x : tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %z : f32
    linalg.yield %m : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

func.func @public_callee(%x: tensor<?xf32>) -> tensor<?xf32> {
  %b = arith.addf %x, %x : tensor<?xf32>
  return %b : tensor<?xf32>
}

func.func @twice(%x: tensor<?xf32>) -> tensor<?xf32> {
  %a = call @relu(%x) : (tensor<?xf32>) -> tensor<?xf32>
  %b = call @public_callee(%a) : (tensor<?xf32>) -> tensor<?xf32>
  %c = call @relu(%b) : (tensor<?xf32>) -> tensor<?xf32>
  return %c : tensor<?xf32>
}

// aten.upsample_nearest2d by 2.5, with torch-mlir's float arithmetic.
func.func @upsample(%x: tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %n = tensor.dim %x, %c0 : tensor<?x?x?x?xf32>
  %c = tensor.dim %x, %c1 : tensor<?x?x?x?xf32>
  %h = tensor.dim %x, %c2 : tensor<?x?x?x?xf32>
  %w = tensor.dim %x, %c3 : tensor<?x?x?x?xf32>
  %hi = arith.index_cast %h : index to i64
  %wi = arith.index_cast %w : index to i64
  %hf = arith.sitofp %hi : i64 to f32
  %wf = arith.sitofp %wi : i64 to f32
  %s = arith.constant 2.5 : f32
  %ohf = arith.mulf %hf, %s : f32
  %owf = arith.mulf %wf, %s : f32
  %ohff = math.floor %ohf : f32
  %owff = math.floor %owf : f32
  %ohi = arith.fptosi %ohff : f32 to i64
  %owi = arith.fptosi %owff : f32 to i64
  %oh = arith.index_cast %ohi : i64 to index
  %ow = arith.index_cast %owi : i64 to index
  %e = tensor.empty(%n, %c, %oh, %ow) : tensor<?x?x?x?xf32>
  %r = linalg.generic {indexing_maps = [#m4], iterator_types = ["parallel","parallel","parallel","parallel"]} outs(%e : tensor<?x?x?x?xf32>) {
  ^bb0(%o: f32):
    %i0 = linalg.index 0 : index
    %i1 = linalg.index 1 : index
    %i2 = linalg.index 2 : index
    %i3 = linalg.index 3 : index
    %inv = arith.constant 0.4 : f32
    %a = arith.index_cast %i2 : index to i64
    %af = arith.sitofp %a : i64 to f32
    %as = arith.mulf %af, %inv : f32
    %afl = math.floor %as : f32
    %ai = arith.fptosi %afl : f32 to i64
    %one = arith.constant 1 : i64
    %hm1 = arith.subi %hi, %one : i64
    %aic = arith.minsi %ai, %hm1 : i64
    %ax = arith.index_cast %aic : i64 to index
    %b = arith.index_cast %i3 : index to i64
    %bf = arith.sitofp %b : i64 to f32
    %bs = arith.mulf %bf, %inv : f32
    %bfl = math.floor %bs : f32
    %bi = arith.fptosi %bfl : f32 to i64
    %wm1 = arith.subi %wi, %one : i64
    %bic = arith.minsi %bi, %wm1 : i64
    %bx = arith.index_cast %bic : i64 to index
    %v = tensor.extract %x[%i0, %i1, %ax, %bx] : tensor<?x?x?x?xf32>
    linalg.yield %v : f32
  } -> tensor<?x?x?x?xf32>
  return %r : tensor<?x?x?x?xf32>
}

func.func @reshape_rows(%x: tensor<?x6xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %n = tensor.dim %x, %c0 : tensor<?x6xf32>
  %r = arith.muli %n, %c2 : index
  %cols = arith.addi %c3, %c0 : index
  %ri = arith.index_cast %r : index to i64
  %ci = arith.index_cast %cols : index to i64
  %shape = tensor.from_elements %ri, %ci : tensor<2xi64>
  %y = tensor.reshape %x(%shape) : (tensor<?x6xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}

func.func @cumsum(%x: tensor<?xf32>) -> (tensor<?xf32>, tensor<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z, %out = %e) -> (f32, tensor<?xf32>) {
    %v = tensor.extract %x[%i] : tensor<?xf32>
    %s = arith.addf %acc, %v : f32
    %o = tensor.insert %s into %out[%i] : tensor<?xf32>
    scf.yield %s, %o : f32, tensor<?xf32>
  }
  %t = tensor.from_elements %r#0 : tensor<f32>
  return %r#1, %t : tensor<?xf32>, tensor<f32>
}

func.func @squared_sum(%x: tensor<?xf32>) -> tensor<f32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (f32) {
    %v = tensor.extract %x[%i] : tensor<?xf32>
    %s = arith.addf %acc, %v : f32
    scf.yield %s : f32
  }
  %t = tensor.from_elements %r : tensor<f32>
  %u = arith.mulf %t, %t : tensor<f32>
  return %u : tensor<f32>
}

func.func private @check_len(%x: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %ok = arith.cmpi sge, %n, %c2 : index
  cf.assert %ok, "need 2 elements"
  return %x : tensor<?xf32>
}

func.func @calls_check(%x: tensor<?xf32>) -> tensor<?xf32> {
  %y = call @check_len(%x) : (tensor<?xf32>) -> tensor<?xf32>
  %r = arith.addf %y, %y : tensor<?xf32>
  return %r : tensor<?xf32>
}

func.func @nul_message(%x: tensor<2xf32>) -> tensor<2xf32> {
  %e = tensor.empty() : tensor<2xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%x : tensor<2xf32>) outs(%e : tensor<2xf32>) {
  ^bb0(%a: f32, %o: f32):
    %z = arith.constant 0.0 : f32
    %ok = arith.cmpf oge, %a, %z : f32
    cf.assert %ok, "bad\00value"
    linalg.yield %a : f32
  } -> tensor<2xf32>
  return %y : tensor<2xf32>
}

func.func @isinf_tensor(%x: tensor<?xf32>) -> tensor<?xi1> {
  %i = math.isinf %x : tensor<?xf32>
  return %i : tensor<?xi1>
}

func.func @two_reshapes(%x: tensor<?x6xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %n = tensor.dim %x, %c0 : tensor<?x6xf32>
  %r = arith.muli %n, %c2 : index
  %ri = arith.index_cast %r : index to i32
  %c3 = arith.constant 3 : i32
  %shape = tensor.from_elements %ri, %c3 : tensor<2xi32>
  %y = tensor.reshape %x(%shape) : (tensor<?x6xf32>, tensor<2xi32>) -> tensor<?x?xf32>
  %d = arith.addf %x, %x : tensor<?x6xf32>
  %z = tensor.reshape %d(%shape) : (tensor<?x6xf32>, tensor<2xi32>) -> tensor<?x?xf32>
  return %y, %z : tensor<?x?xf32>, tensor<?x?xf32>
}

func.func @cast_twice(%ids: tensor<3xi32>) -> (tensor<3xi64>, tensor<3xi64>) {
  %idx = arith.index_cast %ids : tensor<3xi32> to tensor<3xindex>
  %two = arith.addi %idx, %idx : tensor<3xindex>
  %a = arith.index_cast %two : tensor<3xindex> to tensor<3xi64>
  %b = arith.index_castui %idx : tensor<3xindex> to tensor<3xi64>
  return %a, %b : tensor<3xi64>, tensor<3xi64>
}

func.func @sum_by_counter(%x: tensor<?xf32>) -> tensor<f32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z, %k = %c0) -> (f32, index) {
    %v = tensor.extract %x[%k] : tensor<?xf32>
    %s = arith.addf %acc, %v : f32
    %k1 = arith.addi %k, %c1 : index
    scf.yield %s, %k1 : f32, index
  }
  %t = tensor.from_elements %r#0 : tensor<f32>
  return %t : tensor<f32>
}

func.func @unsigned_loop(%x: tensor<1xf32>) -> tensor<f32> {
  %lb = arith.constant -3 : i32
  %ub = arith.constant 2 : i32
  %st = arith.constant 1 : i32
  %z = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %r = scf.for unsigned %i = %lb to %ub step %st iter_args(%acc = %z) -> (f32) : i32 {
    %s = arith.addf %acc, %one : f32
    scf.yield %s : f32
  }
  %t = tensor.from_elements %r : tensor<f32>
  return %t : tensor<f32>
}

func.func @constant_i32_shape(%x: tensor<2x6xf32>) -> tensor<?x?xf32> {
  %shape = arith.constant dense<[4, 3]> : tensor<2xi32>
  %y = tensor.reshape %x(%shape) : (tensor<2x6xf32>, tensor<2xi32>) -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}
