// RUN: %fw-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(fw-form-tasks))' --verify-diagnostics

// expected-error @+1 {{'func.func' op result #0 has type 'f32'; fw entry points take and return ranked tensors}}
func.func @scalar_result(%a: tensor<4xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %v = tensor.extract %a[%c0] : tensor<4xf32>
  return %v : f32
}

// -----

// expected-error @+1 {{'func.func' op argument #0 has element type 'complex<f32>', which the runtime does not support (supported: f32, f16, f64, bf16, i1, i8, i16, i32, i64)}}
func.func @complex(%a: tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>> {
  return %a : tensor<4xcomplex<f32>>
}

// -----

// expected-error @+1 {{'func.func' op argument #0 has type 'tensor<*xf32>'; fw entry points take and return ranked tensors}}
func.func @unranked(%a: tensor<*xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  return %e : tensor<4xf32>
}

// -----

// expected-error @+1 {{'func.func' op argument #0 has rank 9; the runtime supports ranks up to 8}}
func.func @rank9(%a: tensor<1x1x1x1x1x1x1x1x1xf32>) -> tensor<1x1x1x1x1x1x1x1x1xf32> {
  return %a : tensor<1x1x1x1x1x1x1x1x1xf32>
}

// -----

func.func private @callee(tensor<4xf32>) -> tensor<4xf32>

func.func @call(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'func.call' op calls a function fwc does not inline (a recursive one, a declaration, an indirect call); an fw entry point is compiled whole}}
  %r = func.call @callee(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// expected-error @+1 {{'func.func' op has control flow between blocks at the top level; fw entry points must be a single block}}
func.func @blocks(%a: tensor<4xf32>) -> tensor<4xf32> {
  cf.br ^bb1
^bb1:
  return %a : tensor<4xf32>
}

// -----

/// A size that depends on tensor data would have to be read on the host.
func.func @host_read(%a: tensor<4xi32>) -> tensor<?xi32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0 : i32
  // expected-error @+1 {{'tensor.extract' op reads tensor data on the host, which fw does not support; compute it inside a tensor operation}}
  %v = tensor.extract %a[%c0] : tensor<4xi32>
  %i = arith.index_cast %v : i32 to index
  %e = tensor.empty(%i) : tensor<?xi32>
  %r = linalg.fill ins(%zero : i32) outs(%e : tensor<?xi32>) -> tensor<?xi32>
  return %r : tensor<?xi32>
}

// -----

func.func @mixed_results(%a: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  // expected-error @+1 {{'scf.for' op produces both tensors and other values at the top level of an fw entry point; tasks produce tensors only}}
  %r:2 = scf.for %i = %c0 to %c4 step %c1 iter_args(%t = %a, %k = %c0) -> (tensor<4xf32>, index) {
    %n = arith.addf %t, %t : tensor<4xf32>
    scf.yield %n, %i : tensor<4xf32>, index
  }
  return %r#0 : tensor<4xf32>
}

// -----

// expected-error @+1 {{'func.func' op name 'fw_rt_arg' is reserved: names starting with 'fw_rt_' or '__fw' belong to the fw runtime}}
func.func @fw_rt_arg(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}

// -----

// expected-error @+1 {{'func.func' op name contains a NUL byte, which the fat binary's function names cannot hold}}
func.func @"f\00g"(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}

// -----

// expected-error @+1 {{'func.func' op result #0 of type 'tensor<4611686018427387904x2xi8>' holds 2^63 bytes or more}}
func.func @too_large(%a: tensor<4xf32>) -> tensor<4611686018427387904x2xi8> {
  %e = tensor.empty() : tensor<4611686018427387904x2xi8>
  return %e : tensor<4611686018427387904x2xi8>
}

// -----

/// A task written in the input whose result size is read from its data: its
/// dims cannot be checked against what it yields.
func.func @opaque_dims(%a: tensor<?xi64>, %n: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %n, %c0 : tensor<?xf32>
  // expected-error @+1 {{'fw.task' op yields result #0 with a size in dimension 0 that cannot be related to its operands, so its 'dims' cannot be checked}}
  %r = fw.task(%a) : (tensor<?xi64>) -> tensor<?xf32> dims(%m) {
  ^bb0(%x: tensor<?xi64>):
    %c0_0 = arith.constant 0 : index
    %v = tensor.extract %x[%c0_0] : tensor<?xi64>
    %size = arith.index_cast %v : i64 to index
    %e = tensor.empty(%size) : tensor<?xf32>
    fw.yield %e : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}

// -----

/// A tensor of index elements cannot pass between tasks: named with the op
/// that makes it, as the program wrote it.
func.func @index_between_tasks(%a: tensor<?x3xf32>, %i: tensor<4xi64>) -> tensor<4x3xf32> {
  %e0 = tensor.empty() : tensor<4xindex>
  // expected-error @+1 {{'arith.index_cast' op makes a tensor of 'index' elements that another task or the caller reads; tensors between tasks hold f32, f16, f64, bf16, i1, i8, i16, i32, i64 elements (cast it to i64, or compute it inside the operation that reads it)}}
  %ii = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%i : tensor<4xi64>) outs(%e0 : tensor<4xindex>) attrs = {fw.written_as = "arith.index_cast"} {
  ^bb0(%x: i64, %o: index):
    %c = arith.index_cast %x : i64 to index
    linalg.yield %c : index
  } -> tensor<4xindex>
  %e = tensor.empty() : tensor<4x3xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<4x3xf32>) {
  ^bb0(%o: f32):
    %r0 = linalg.index 0 : index
    %c = linalg.index 1 : index
    %row = tensor.extract %ii[%r0] : tensor<4xindex>
    %v = tensor.extract %a[%row, %c] : tensor<?x3xf32>
    linalg.yield %v : f32
  } -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}

// -----

// A while loop that doubles what it carries: its size is known only when it
// has run.
func.func @while_grows(%x: tensor<?xf32>, %n: tensor<i32>) -> tensor<?xf32> {
  %c0 = arith.constant dense<0> : tensor<i32>
  // expected-error @+1 {{'scf.while' op result #1 has a dynamic size in dimension 0 that fw cannot compute before running the task}}
  %r:2 = scf.while (%i = %c0, %v = %x) : (tensor<i32>, tensor<?xf32>) -> (tensor<i32>, tensor<?xf32>) {
    %iv = tensor.extract %i[] : tensor<i32>
    %nv = tensor.extract %n[] : tensor<i32>
    %c = arith.cmpi slt, %iv, %nv : i32
    scf.condition(%c) %i, %v : tensor<i32>, tensor<?xf32>
  } do {
  ^bb0(%i: tensor<i32>, %v: tensor<?xf32>):
    %y = tensor.concat dim(0) %v, %v : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
    %one = arith.constant dense<1> : tensor<i32>
    %i2 = arith.addi %i, %one : tensor<i32>
    scf.yield %i2, %y : tensor<i32>, tensor<?xf32>
  }
  return %r#1 : tensor<?xf32>
}
