// Error paths of fw-run: wrong shapes, rank, dtype and argument count must make fw-run
// exit with code 1 and a message on stderr (never a crash or a signal).
// The substrings are loose on purpose ('|' separates accepted alternatives,
// case-insensitive): the exact wording is the runtime's.
// RUN: %fwc %s -o %t.fwb
// A correct call first, so that the failures below are really about the inputs.
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=add_bias --case=errors_ok --arg-shapes="4x8;8" --tmp=%t
// Wrong static dimension of argument 0 (9 instead of 8).
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=add_bias --arg-shapes="4x9;8" --expect-error="argument 0|arg 0|expected|mismatch" --tmp=%t
// Wrong static dimension of argument 1.
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=add_bias --arg-shapes="4x8;5" --expect-error="argument 1|arg 1|expected|mismatch" --tmp=%t
// Wrong rank.
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=add_bias --arg-shapes="4x8x1;8" --expect-error="rank|argument 0|expected|mismatch" --tmp=%t
// Wrong element type (i32 instead of f32).
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=add_bias --arg-shapes="4x8;8" --arg-types="f32;i32" --expect-error="type|argument 1|expected|mismatch" --tmp=%t
// Wrong element type (f16 instead of f32) on argument 0.
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=add_bias --arg-shapes="4x8;8" --arg-types="f16;f32" --expect-error="type|argument 0|expected|mismatch" --tmp=%t
// Too few inputs.
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=add_bias --arg-shapes="4x8" --expect-error="argument|input|expected" --tmp=%t
// Too many inputs.
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=add_bias --arg-shapes="4x8;8;8" --expect-error="argument|input|expected" --tmp=%t
// Unknown function name.
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=no_such_function --arg-shapes="4x8;8" --expect-error="no_such_function|not found|unknown|function" --tmp=%t

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>

func.func @add_bias(%a: tensor<?x8xf32>, %b: tensor<8xf32>) -> tensor<?x8xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?x8xf32>
  %init = tensor.empty(%n) : tensor<?x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<?x8xf32>, tensor<8xf32>) outs(%init : tensor<?x8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<?x8xf32>
  return %r : tensor<?x8xf32>
}
