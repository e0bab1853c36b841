// Dynamic shapes that an operation cannot accept are caught on the host before
// any kernel runs: fw-run exits with code 1 and names the operation, instead of
// reading or writing out of bounds.
// RUN: %fwc %s -o %t.fwb
//
// A convolution whose output size is fixed needs an input of at least 6x6.
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=conv_fixed_out --case=conv_fixed_out --arg-shapes="1x6x6x1;3x3x1x1" --tmp=%t
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=conv_fixed_out --arg-shapes="1x2x2x1;3x3x1x1" --expect-error="linalg.conv_2d_nhwc_hwcf': operand 0 is too small in dimension 1" --tmp=%t
// Matmul operands whose inner sizes differ.
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=matmul_dyn --arg-shapes="4x8;9x3" --expect-error="dimension 1 of operand 0 and dimension 0 of operand 1 must be equal" --tmp=%t
// Concatenation of tensors whose other sizes differ.
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=concat_rows --arg-shapes="5x4;2x2" --expect-error="tensor.concat': dimension 1 of operand 0 and operand 1 must be equal" --tmp=%t
// A slice past the end of its source.
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=slice_cols --arg-shapes="3x2" --expect-error="tensor.extract_slice': the slice reaches past the end of the source in dimension 1" --tmp=%t
// An inserted tensor that is larger than its slice.
// RUN: not %fw-run %t.fwb --function=insert_n --input=100000xf32=7 --input=4xf32=1 --input=4xf32=0 2>&1 | FileCheck %s --check-prefix=INSERT
// INSERT: 'tensor.insert_slice': dimension 0 of the inserted tensor differs from the slice size
// An expansion whose sizes do not multiply to the source size.
// RUN: not %fw-run %t.fwb --function=expand_n --input=4xf32=1 --input=3000000xf32=0 2>&1 | FileCheck %s --check-prefix=EXPAND
// EXPAND: 'tensor.expand_shape': the sizes of result dimensions 0 to 1 do not multiply to dimension 0 of the source
// A negative stride.
// RUN: not %fw-run %t.fwb --function=negative_stride --input=8xf32=1 --input=1000000xf32=0 2>&1 | FileCheck %s --check-prefix=STRIDE
// STRIDE: 'tensor.extract_slice': the slice reaches past the end of the source in dimension 0 (or has a stride below 1)
// A cast to a static size checks that size.
// RUN: not %fw-run %t.fwb --function=cast_static --input=3x2xf32=0,1,2,3,4,5 2>&1 | FileCheck %s --check-prefix=CAST
// CAST: 'tensor.cast': dimension 1 of the operand must be 3
// An element index computed from a size, one past the end.
// RUN: not %fw-run %t.fwb --function=insert_at_end --input=4xf32=1 2>&1 | FileCheck %s --check-prefix=INDEX
// INDEX: 'tensor.insert': the index into dimension 0 is out of range
// RUN: not %fw-run %t.fwb --function=extract_at --input=4xf32=1 --input=4xf32=2 2>&1 | FileCheck %s --check-prefix=EXTRACT
// EXTRACT: 'tensor.extract': the index into dimension 0 is out of range
// An indexing map whose offset reaches before the start of its operand.
// RUN: not %fw-run %t.fwb --function=shift_back --input=4xf32=1 --input=4xf32=1 2>&1 | FileCheck %s --check-prefix=SHIFT
// SHIFT: 'linalg.generic': operand 0 is indexed before its start in dimension 0
// A negative padding size, and a loop step of 0, computed from sizes.
// RUN: not %fw-run %t.fwb --function=pad_back --input=8xf32=1 2>&1 | FileCheck %s --check-prefix=PAD
// PAD: 'tensor.pad': the low padding of dimension 0 is negative
// RUN: not %fw-run %t.fwb --function=step_from_size --input=4xf32=1 2>&1 | FileCheck %s --check-prefix=STEP
// STEP: 'scf.for': the loop's step is not positive
// RUN: %fw-run %t.fwb --function=step_from_size --input=6xf32=1 2>&1 | FileCheck %s --check-prefix=STEPOK
// STEPOK: 6xf32=2 1 2 1 2 1
// A size divided by a size that is 0 at run time: the call fails (no trap).
// RUN: not %fw-run %t.fwb --function=split_by --input=4xf32=1 2>&1 | FileCheck %s --check-prefix=DIV
// DIV: 'arith.divui': integer division by zero (or overflow)
// RUN: %fw-run %t.fwb --function=split_by --input=6xf32=1 2>&1 | FileCheck %s --check-prefix=DIVOK
// DIVOK: 4xf32=1 1 1 1
// Softmax's input and output of different shapes; a reshape to another count.
// RUN: not %fw-run %t.fwb --function=softmax_into --input=1x2xf32=1,2 --input=2x3xf32=0 2>&1 | FileCheck %s --check-prefix=SOFTMAX
// SOFTMAX: 'linalg.softmax': dimension 0 of the input and the output differs
// RUN: not %fw-run %t.fwb --function=flatten6 --input=2x2xf32=1 2>&1 | FileCheck %s --check-prefix=RESHAPE
// RESHAPE: 'tensor.reshape': the source has another number of elements than the result (6)
// A map with a remainder and an offset reaches before its operand's start.
// RUN: not %fw-run %t.fwb --function=mod_back --input=3xf32=1,2,3 --input=3xf32=0 2>&1 | FileCheck %s --check-prefix=MOD
// MOD: 'linalg.generic': operand 0 is indexed outside dimension 0 for the iteration space
// RUN: %fw-run %t.fwb --function=halves --input=2xf32=1,2 --input=4xf32=0 2>&1 | FileCheck %s --check-prefix=HALVES
// HALVES: 4xf32=1 1 2 2
// RUN: not %fw-run %t.fwb --function=halves --input=2xf32=1,2 --input=5xf32=0 2>&1 | FileCheck %s --check-prefix=HALVESBAD
// HALVESBAD: 'linalg.generic': operand 0 is indexed outside dimension 0 for the iteration space
// Valid programs pass their checks: a remainder of an operand that skips values
// (indices 0 and 2 of a 3-element operand), a floor division kept on the host by
// the check of an index, a loop whose step is 0 only when it has no iterations.
// RUN: %fw-run %t.fwb --function=evens --input=3xf32=1,2,3 --input=4xf32=0 2>&1 | FileCheck %s --check-prefix=EVENS
// EVENS: 4xf32=1 3 1 3
// RUN: %fw-run %t.fwb --function=insert_half --input=4xf32=1 2>&1 | FileCheck %s --check-prefix=HALF
// HALF: 4xf32=1 1 7 1
// RUN: %python -c "import sys; h = \"{'descr': '<f4', 'fortran_order': False, 'shape': (0,), }\"; h += ' ' * (63 - (10 + len(h)) %% 64) + '\n'; sys.stdout.buffer.write(b'\x93NUMPY\x01\x00' + len(h).to_bytes(2, 'little') + h.encode())" > %t.empty.npy
// RUN: %fw-run %t.fwb --function=loop_halves --input=@%t.empty.npy 2>&1 | FileCheck %s --check-prefix=NOTRIP
// NOTRIP: 0xf32=
// RUN: %fw-run %t.fwb --function=loop_halves --input=3xf32=1,2,3 2>&1 | FileCheck %s --check-prefix=TRIP
// TRIP: 3xf32=2 2 6
// A task written in the input whose dims say another size than it yields.
// RUN: not %fw-run %t.fwb --function=task_dims --input=5xf32=1 --input=2xf32=0 2>&1 | FileCheck %s --check-prefix=TASKDIMS
// TASKDIMS: 'fw.task': dims: dimension 0 of result 0 is not the size it yields (from its operands' sizes)
// RUN: %fw-run %t.fwb --function=task_dims --input=3xf32=1,2,3 --input=3xf32=0 2>&1 | FileCheck %s --check-prefix=TASKDIMSOK
// TASKDIMSOK: 3xf32=2 4 6
// A loop's body writes at its induction variable up to a constant bound: the
// first and the last iterations' indices are checked on the host.
// RUN: not %fw-run %t.fwb --function=fill_first_8 --input=2xf32=1,2 2>&1 | FileCheck %s --check-prefix=LOOPINDEX
// LOOPINDEX: 'scf.for': 'tensor.insert' in its body: the index into dimension 0 goes out of range over the iterations
// RUN: %fw-run %t.fwb --function=fill_first_8 --input=9xf32=1 2>&1 | FileCheck %s --check-prefix=LOOPINDEXOK
// LOOPINDEXOK: 9xf32=7 7 7 7 7 7 7 7 1

// 8 / (n - 4) ones.// A slice size computed from the data's size that is negative (size - 1 of an
// empty input) fails its check, not the allocation of the result.
// RUN: not %fw-run %t.fwb --function=all_but_last --input=0xf32=0 2>&1 | FileCheck %s --check-prefix=NEGSIZE
// NEGSIZE: failed: 'tensor.extract_slice': the size of dimension 0 of the slice is negative (
// RUN: %fw-run %t.fwb --function=all_but_last --input=3xf32=1,2,3 | FileCheck %s --check-prefix=BUTLAST
// BUTLAST: 2xf32=1 2
// A pad of an empty tensor is all padding.
// RUN: %fw-run %t.fwb --function=pad_empty --input=0x3xf32=0 | FileCheck %s --check-prefix=PADEMPTY
// PADEMPTY: 2x3xf32=[7 7 7][7 7 7]
// RUN: not %fw-run %t.fwb --function=pad_empty_by --input=0x3xf32=0 --input=3xf32=0 2>&1 | FileCheck %s --check-prefix=PADEMPTYBAD
// PADEMPTYBAD: failed: 'tensor.pad': the low padding of dimension 0 is negative
// RUN: %fw-run %t.fwb --function=pad_empty_by --input=0x3xf32=0 --input=1xf32=0 | FileCheck %s --check-prefix=PADEMPTYBY
// PADEMPTYBY: 3x3xf32=[7 7 7][7 7 7][7 7 7]

func.func @split_by(%a: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %one = arith.constant 1.0 : f32
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %m = arith.subi %n, %c4 : index
  %q = arith.divui %c8, %m : index
  %e = tensor.empty(%q) : tensor<?xf32>
  %f = linalg.fill ins(%one : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  return %f : tensor<?xf32>
}

func.func @softmax_into(%a: tensor<?x?xf32>, %o: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = linalg.softmax dimension(1) ins(%a : tensor<?x?xf32>) outs(%o : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

func.func @flatten6(%a: tensor<?x?xf32>) -> tensor<6xf32> {
  %s = arith.constant dense<[6]> : tensor<1xindex>
  %r = tensor.reshape %a(%s) : (tensor<?x?xf32>, tensor<1xindex>) -> tensor<6xf32>
  return %r : tensor<6xf32>
}

func.func @mod_back(%a: tensor<?xf32>, %o: tensor<?xf32>) -> tensor<?xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0 mod 3 - 1)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%a : tensor<?xf32>) outs(%o : tensor<?xf32>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// r[i] = a[i floordiv 2].
func.func @halves(%a: tensor<?xf32>, %o: tensor<?xf32>) -> tensor<?xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0 floordiv 2)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%a : tensor<?xf32>) outs(%o : tensor<?xf32>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

func.func @insert_at_end(%a: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %v = arith.constant 7.0 : f32
  %r = tensor.insert %v into %a[%n] : tensor<?xf32>
  return %r : tensor<?xf32>
}

func.func @extract_at(%a: tensor<?xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %v = tensor.extract %a[%n] : tensor<?xf32>
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%b : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.addf %x, %v : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// r[i] = a[i - 2] + b[i]: a[-2] for i = 0.
func.func @shift_back(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %b, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0 - 2)>, affine_map<(d0) -> (d0)>,
                                        affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%a, %b : tensor<?xf32>, tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

func.func @pad_back(%a: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %l = arith.subi %c0, %n : index
  %r = tensor.pad %a low[%l] high[0] {
  ^bb0(%i: index):
    tensor.yield %z : f32
  } : tensor<?xf32> to tensor<?xf32>
  return %r : tensor<?xf32>
}

// Adds 1 to every (n - 4)th element: a step of 0 for 4 elements.
func.func @step_from_size(%a: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %one = arith.constant 1.0 : f32
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %s = arith.subi %n, %c4 : index
  %r = scf.for %i = %c0 to %n step %s iter_args(%t = %a) -> tensor<?xf32> {
    %v = tensor.extract %t[%i] : tensor<?xf32>
    %w = arith.addf %v, %one : f32
    %u = tensor.insert %w into %t[%i] : tensor<?xf32>
    scf.yield %u : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}

func.func @cast_static(%a: tensor<?x?xf32>) -> tensor<?x3xf32> {
  %c = tensor.cast %a : tensor<?x?xf32> to tensor<?x3xf32>
  %r = math.exp %c : tensor<?x3xf32>
  return %r : tensor<?x3xf32>
}

func.func @insert_n(%src: tensor<?xf32>, %dst: tensor<?xf32>, %other: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %other, %c0 : tensor<?xf32>
  %r = tensor.insert_slice %src into %dst[0] [%n] [1] : tensor<?xf32> into tensor<?xf32>
  return %r : tensor<?xf32>
}

func.func @expand_n(%a: tensor<?xf32>, %other: tensor<?xf32>) -> tensor<?x4xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %other, %c0 : tensor<?xf32>
  %r = tensor.expand_shape %a [[0, 1]] output_shape [%n, 4] : tensor<?xf32> into tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}

func.func @negative_stride(%a: tensor<?xf32>, %other: tensor<?xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %other, %c0 : tensor<?xf32>
  %s = arith.subi %c0, %n : index
  %r = tensor.extract_slice %a[0] [4] [%s] : tensor<?xf32> to tensor<4xf32>
  return %r : tensor<4xf32>
}

func.func @conv_fixed_out(%x: tensor<1x?x?x1xf32>, %w: tensor<3x3x1x1xf32>) -> tensor<1x4x4x1xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x4x1xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x4x4x1xf32>) -> tensor<1x4x4x1xf32>
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
     ins(%x, %w : tensor<1x?x?x1xf32>, tensor<3x3x1x1xf32>) outs(%f : tensor<1x4x4x1xf32>) -> tensor<1x4x4x1xf32>
  return %r : tensor<1x4x4x1xf32>
}

func.func @matmul_dyn(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %a, %c0 : tensor<?x?xf32>
  %n = tensor.dim %b, %c1 : tensor<?x?xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %r = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%f : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

func.func @concat_rows(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = tensor.concat dim(0) %a, %b : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

func.func @slice_cols(%a: tensor<?x?xf32>) -> tensor<2x2xf32> {
  %s = tensor.extract_slice %a[0, 1] [2, 2] [1, 1] : tensor<?x?xf32> to tensor<2x2xf32>
  return %s : tensor<2x2xf32>
}

// r[i] = a[(2 i) mod 4].
func.func @evens(%a: tensor<?xf32>, %o: tensor<?xf32>) -> tensor<?xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> ((d0 * 2) mod 4)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%a : tensor<?xf32>) outs(%o : tensor<?xf32>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

func.func @insert_half(%a: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %h = arith.floordivsi %n, %c2 : index
  %v = arith.constant 7.0 : f32
  %r = tensor.insert %v into %a[%h] : tensor<?xf32>
  return %r : tensor<?xf32>
}

// Doubles the elements at 0, ceil(n / 2), ...: for 3 elements, 0 and 2.
func.func @loop_halves(%a: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %s = arith.ceildivsi %n, %c2 : index
  %r = scf.for %i = %c0 to %n step %s iter_args(%t = %a) -> tensor<?xf32> {
    %v = tensor.extract %t[%i] : tensor<?xf32>
    %w = arith.addf %v, %v : f32
    %u = tensor.insert %w into %t[%i] : tensor<?xf32>
    scf.yield %u : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}

// Doubles %a in a task written by hand, its result's size taken from %b.
func.func @task_dims(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %b, %c0 : tensor<?xf32>
  %r = fw.task(%a) : (tensor<?xf32>) -> tensor<?xf32> dims(%n) {
  ^bb0(%x: tensor<?xf32>):
    %s = arith.addf %x, %x : tensor<?xf32>
    fw.yield %s : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}

func.func @fill_first_8(%a: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %v = arith.constant 7.0 : f32
  %r = scf.for %j = %c0 to %c8 step %c1 iter_args(%u = %a) -> tensor<?xf32> {
    %w = tensor.insert %v into %u[%j] : tensor<?xf32>
    scf.yield %w : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}

func.func @all_but_last(%a: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %m = arith.subi %n, %c1 : index
  %s = tensor.extract_slice %a[0] [%m] [1] : tensor<?xf32> to tensor<?xf32>
  return %s : tensor<?xf32>
}

func.func @pad_empty(%a: tensor<0x3xf32>) -> tensor<2x3xf32> {
  %z = arith.constant 7.0 : f32
  %p = tensor.pad %a low[2, 0] high[0, 0] {
  ^bb0(%i: index, %j: index):
    tensor.yield %z : f32
  } : tensor<0x3xf32> to tensor<2x3xf32>
  return %p : tensor<2x3xf32>
}

func.func @pad_empty_by(%a: tensor<0x3xf32>, %b: tensor<?xf32>) -> tensor<?x3xf32> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %n = tensor.dim %b, %c0 : tensor<?xf32>
  %low = arith.subi %c2, %n : index
  %z = arith.constant 7.0 : f32
  %p = tensor.pad %a low[%low, 0] high[2, 0] {
  ^bb0(%i: index, %j: index):
    tensor.yield %z : f32
  } : tensor<0x3xf32> to tensor<?x3xf32>
  return %p : tensor<?x3xf32>
}
