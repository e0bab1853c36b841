// RUN: %fw-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(fw-prepare-input))' --verify-diagnostics

/// A constant index outside a static size: undefined at run time, rejected.
func.func @insert_out_of_range(%a: tensor<4xf32>) -> tensor<4xf32> {
  %c = arith.constant 100000000 : index
  %v = arith.constant 7.0 : f32
  // expected-error @+1 {{'tensor.insert' op index 100000000 is out of range for dimension 0 of size 4}}
  %r = tensor.insert %v into %a[%c] : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @extract_negative(%a: tensor<2x4xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %m = arith.constant -1 : index
  // expected-error @+1 {{'tensor.extract' op index -1 is out of range for dimension 1 of size 4}}
  %v = tensor.extract %a[%c0, %m] : tensor<2x4xf32>
  return %v : f32
}

// -----

/// Also inside a kernel's body, where no run-time check reaches.
func.func @extract_in_generic(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %c = arith.constant 4 : index
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]} outs(%b : tensor<4xf32>) {
  ^bb0(%o: f32):
    // expected-error @+1 {{'tensor.extract' op index 4 is out of range for dimension 0 of size 4}}
    %v = tensor.extract %a[%c] : tensor<4xf32>
    linalg.yield %v : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

/// A step of 0 never ends (the canonicalizer would drop the loop unseen).
func.func @step_zero(%a: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  // expected-error @+1 {{'scf.for' op has a step of 0; the step must be positive}}
  %r = scf.for %i = %c0 to %c4 step %c0 iter_args(%t = %a) -> tensor<4xf32> {
    scf.yield %t : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @dim_out_of_rank(%a: tensor<?x?xf32>) -> index {
  %c5 = arith.constant 5 : index
  // expected-error @+1 {{'tensor.dim' op index 5 is out of range for a tensor of rank 2}}
  %n = tensor.dim %a, %c5 : tensor<?x?xf32>
  return %n : index
}

// -----

/// Ops no kernel holds yet are named, not left to fail in bufferization.
func.func @pack_by(%a: tensor<8x4xf32>, %t: index, %d: tensor<?x4x?xf32>) -> tensor<?x4x?xf32> {
  // expected-error @+1 {{'linalg.pack' op with an inner tile size computed at run time is not supported yet}}
  %p = linalg.pack %a inner_dims_pos = [0] inner_tiles = [%t] into %d : tensor<8x4xf32> -> tensor<?x4x?xf32>
  return %p : tensor<?x4x?xf32>
}

// -----

/// Element types no kernel computes in are named where they first appear.
func.func @f8_inside(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'arith.truncf' op produces element type 'f8E4M3FN', which fw does not support (floats: f16, bf16, f32, f64)}}
  %t = arith.truncf %a : tensor<4xf32> to tensor<4xf8E4M3FN>
  %b = arith.extf %t : tensor<4xf8E4M3FN> to tensor<4xf32>
  return %b : tensor<4xf32>
}

// -----

/// A constant shape that gives a static size of the result another size.
func.func @reshape_constant_shape(%a: tensor<6xf32>) -> tensor<2x3xf32> {
  %s = arith.constant dense<[3, 2]> : tensor<2xi64>
  // expected-error @+1 {{'tensor.reshape' op shape gives dimension 0 the size 3, its result type 2}}
  %r = tensor.reshape %a(%s) : (tensor<6xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}
