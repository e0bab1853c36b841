// Bad fwc command lines and unusable files: one error line and exit 1, no crash.
// RUN: not %fwc %s --compile-to=nonsense --emit=mlir 2>&1 | FileCheck %s --check-prefix=PHASE
// RUN: not %fwc %s --emit=nonsense -o %t.out 2>&1 | FileCheck %s --check-prefix=EMIT
// RUN: not %fwc %s --compile-to=tasks --emit=fwb -o %t.out 2>&1 | FileCheck %s --check-prefix=EARLY
// Without --emit, --compile-to prints the IR of its phase.
// RUN: %fwc %s --compile-to=tasks | FileCheck %s --check-prefix=PRINT
// PRINT: module attributes {fw.targets
// RUN: not %fwc %s -O 7 -o %t.out 2>&1 | FileCheck %s --check-prefix=OPT
// As in clang, the last -O counts.
// RUN: %fwc %s -O 7 -O1 -o %t.last.fwb
// RUN: not %fwc %s.does-not-exist.mlir -o %t.out 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not %fwc %s -o %t.no-such-dir/out.fwb 2>&1 | FileCheck %s --check-prefix=UNWRITABLE
// RUN: not %fwc %S -o %t.out 2>&1 | FileCheck %s --check-prefix=DIR

// PHASE: fwc: error: unknown phase 'nonsense' for --compile-to
// EMIT: fwc: error: unknown --emit kind 'nonsense'
// EARLY: fwc: error: --compile-to stops the pipeline early; use it with --emit=mlir
// OPT: fwc: error: -O7 is not an optimization level
// MISSING: fwc: error: cannot open input file '{{.*}}does-not-exist.mlir'
// UNWRITABLE: fwc: error: cannot open output file '{{.*}}no-such-dir/out.fwb'
// DIR: fwc: error: cannot open input file '{{.*}}': Is a directory

func.func @add(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %r = arith.addf %a, %b : tensor<4xf32>
  return %r : tensor<4xf32>
}
