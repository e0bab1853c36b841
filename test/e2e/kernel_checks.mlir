// Indices a kernel computes itself (read from a tensor: an embedding lookup, a
// scatter; a loop step) are checked where it computes them: a bad one fails the
// call with the operation and the source line, where it read or wrote outside
// its buffers before; good ones give the right numbers.
// RUN: %fwc %s -o %t.fwb
// RUN: %fw-run %t.fwb --function=lookup --input=3x4xf32=0,1,2,3,10,11,12,13,20,21,22,23 --input=4xi64=2,0,1,2 | FileCheck %s --check-prefix=LOOKUP
// LOOKUP: 4x4xf32=[20 21 22 23][0 1 2 3][10 11 12 13][20 21 22 23]
// RUN: not %fw-run %t.fwb --function=lookup --input=3x4xf32=0 --input=4xi64=2,0,3,2 2>&1 | FileCheck %s --check-prefix=PAST
// RUN: not %fw-run %t.fwb --function=lookup --input=3x4xf32=0 --input=4xi64=2,-1,1,2 2>&1 | FileCheck %s --check-prefix=PAST
// PAST: fw-run: error: in @lookup: task @kernel_checks.lookup_dispatch_0: check failed: 'tensor.extract': the index into dimension 0 is out of range (
// PAST-SAME: kernel_checks.mlir:{{[0-9]+}})
// A lookup large enough for its kernel to be shared among workgroups, one bad id
// at the end.
// RUN: %python -c "import numpy as np; a = np.ones(100000, dtype=np.int64); a[-1] = 5; np.save('%t.ids.npy', a)"
// RUN: not %fw-run %t.fwb --function=lookup --input=3x4xf32=0 --input=@%t.ids.npy 2>&1 | FileCheck %s --check-prefix=PAST
//
// RUN: %fw-run %t.fwb --function=scatter_one --input=1xi32=5 --input=1xf32=7 | FileCheck %s --check-prefix=SCATTER
// SCATTER: 8xf32=0 0 0 0 0 7 0 0
// RUN: not %fw-run %t.fwb --function=scatter_one --input=1xi32=8 --input=1xf32=7 2>&1 | FileCheck %s --check-prefix=SCATTERBAD
// SCATTERBAD: check failed: 'tensor.insert': the index into dimension 0 is out of range
//
// RUN: %fw-run %t.fwb --function=every --input=1xi64=4 --input=16xf32=0 | FileCheck %s --check-prefix=EVERY
// EVERY: 16xf32=1 0 0 0 1 0 0 0 1 0 0 0 1 0 0 0
// RUN: not %fw-run %t.fwb --function=every --input=1xi64=0 --input=16xf32=0 2>&1 | FileCheck %s --check-prefix=STEP
// STEP: check failed: 'scf.for': the loop's step is not positive
// A step that would make the induction variable wrap around below its bound
// (2^62 up to 2^63 - 1: 0, 2^62, -2^63, ... for ever); the largest step that
// does not.
// RUN: not %fw-run %t.fwb --function=stride --input=2xi64=4611686018427387904,9223372036854775807 --input=16xf32=0 2>&1 | FileCheck %s --check-prefix=WRAP
// WRAP: check failed: 'scf.for': the loop's induction variable would overflow before it reaches its upper bound
// RUN: %fw-run %t.fwb --function=stride --input=2xi64=9223372036854775807,16 --input=16xf32=0 | FileCheck %s --check-prefix=HUGE
// HUGE: 16xf32=1 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0
// RUN: %fw-run %t.fwb --function=stride --input=2xi64=5,16 --input=16xf32=0 | FileCheck %s --check-prefix=FIVE
// FIVE: 16xf32=1 0 0 0 0 1 0 0 0 0 1 0 0 0 0 1
//
// A loop over the pairs of its input: an odd size makes the last pair reach
// past the end.
// RUN: %fw-run %t.fwb --function=pairs --input=6xf32=1,2,3,4,5,6 | FileCheck %s --check-prefix=PAIRS
// PAIRS: 2xf32=9 12
// RUN: not %fw-run %t.fwb --function=pairs --input=5xf32=1,2,3,4,5 2>&1 | FileCheck %s --check-prefix=PAIRSBAD
// PAIRSBAD: check failed: 'tensor.extract_slice': the slice reaches outside dimension 0 of the source
//
// A slice whose size is read from the data, and one sized by a tensor the data
// chooses: a size too large fails the check, and what is sized from it after
// the slice (a reshape, a reduction) has nothing to do instead of reading
// 4 TB (a crash before).
// RUN: %fw-run %t.fwb --function=sumslice --input=2xi64=2,3 --input=10xf32=0,1,2,3,4,5,6,7,8,9 | FileCheck %s --check-prefix=SUMSLICE
// SUMSLICE: 1xf32=9
// RUN: not %fw-run %t.fwb --function=sumslice --input=2xi64=0,1000000000000 --input=10xf32=0 2>&1 | FileCheck %s --check-prefix=SIZEBAD
// SIZEBAD: check failed: 'tensor.extract_slice': the slice reaches outside dimension 0 of the source
// RUN: %fw-run %t.fwb --function=pick --input=3xf32=1 --input=2xf32=10,20 --input=1xi8=0 | FileCheck %s --check-prefix=PICK
// PICK: 1xf32=30
// RUN: not %fw-run %t.fwb --function=pick --input=3xf32=1 --input=2xf32=10,20 --input=1xi8=1 2>&1 | FileCheck %s --check-prefix=SIZEBAD
//
// Several checks fail: the first in the kernel's order is reported (the
// slice read, not its write back).
// RUN: %fw-run %t.fwb --function=copyat --input=2xi64=1,6 --input=10xf32=0,1,2,3,4,5,6,7,8,9 | FileCheck %s --check-prefix=COPYAT
// COPYAT: 10xf32=0 2 4 3 4 5 12 14 8 9
// RUN: not %fw-run %t.fwb --function=copyat --input=1xi64=100 --input=10xf32=0 2>&1 | FileCheck %s --check-prefix=FIRST
// FIRST: check failed: 'tensor.extract_slice': the slice reaches outside dimension 0 of the source
//
// A lookup feeding a matmul (its prologue: computed where the matmul reads
// it, on the GPU too).
// RUN: %fw-run %t.fwb --function=embmm --input=3x4xf32=0,1,2,3,10,11,12,13,20,21,22,23 --input=2xi64=2,0 --input=4x3xf32=1,0,0,0,1,0,0,0,1,1,1,1 | FileCheck %s --check-prefix=EMBMM
// EMBMM: 2x3xf32=[43 44 45][3 4 5]
// PASTMM: error: in @embmm: task @kernel_checks.embmm_dispatch_0: check failed: 'tensor.extract': the index into dimension 0 is out of range
// RUN: not %fw-run %t.fwb --function=embmm --input=3x4xf32=0 --input=2xi64=2,5 --input=4x3xf32=1 2>&1 | FileCheck %s --check-prefix=PASTMM
//
// Rows written by an scf.forall at positions read from the data (a parallel
// insert); a forall over tiles needs no check and gives its numbers.
// RUN: %fw-run %t.fwb --function=scatter_rows --input=8x2xf32=0 --input=2x2xf32=1,2,3,4 --input=2xi64=6,1 | FileCheck %s --check-prefix=ROWS
// ROWS: 8x2xf32=[0 0][3 4][0 0][0 0][0 0][0 0][1 2][0 0]
// RUN: not %fw-run %t.fwb --function=scatter_rows --input=8x2xf32=0 --input=2x2xf32=1,2,3,4 --input=2xi64=6,8 2>&1 | FileCheck %s --check-prefix=ROWSBAD
// RUN: not %fw-run %t.fwb --function=scatter_rows --input=8x2xf32=0 --input=2x2xf32=1,2,3,4 --input=2xi64=-1,1 2>&1 | FileCheck %s --check-prefix=ROWSBAD
// ROWSBAD: error: in @scatter_rows: task @kernel_checks.scatter_rows_dispatch_0: check failed: 'tensor.parallel_insert_slice': the slice reaches outside dimension 0 of the destination
// RUN: %fw-run %t.fwb --function=double_tiles --input=8xf32=1,2,3,4,5,6,7,8 | FileCheck %s --check-prefix=TILES
// TILES: 8xf32=2 4 6 8 10 12 14 16
// Rows computed (by an inner forall, into an empty tensor) before they are
// scattered: a bad position far past the end fails the check without the row
// having been built there first.
// RUN: %fw-run %t.fwb --function=scatter_doubled --input=4x4xf32=0 --input=2x4xf32=1,2,3,4,5,6,7,8 --input=2xi64=3,1 | FileCheck %s --check-prefix=DOUBLED
// DOUBLED: 4x4xf32=[0 0 0 0][10 12 14 16][0 0 0 0][2 4 6 8]
// RUN: not %fw-run %t.fwb --function=scatter_doubled --input=4x4xf32=0 --input=2x4xf32=1 --input=2xi64=3,1099511627776 2>&1 | FileCheck %s --check-prefix=DOUBLEDBAD
// DOUBLEDBAD: error: in @scatter_doubled: task @kernel_checks.scatter_doubled_dispatch_0: check failed: 'tensor.parallel_insert_slice': the slice reaches outside dimension 0 of the destination
// A slice whose size and the inserted tensor's size both come from the data.
// RUN: %fw-run %t.fwb --function=copy_prefix --input=8x2xf32=0 --input=3x2xf32=1,2,3,4,5,6 --input=2xi64=2,2 | FileCheck %s --check-prefix=PREFIX
// PREFIX: 8x2xf32=[1 2][3 4][0 0][0 0][0 0][0 0][0 0][0 0]
// RUN: not %fw-run %t.fwb --function=copy_prefix --input=8x2xf32=0 --input=3x2xf32=1 --input=2xi64=2,3 2>&1 | FileCheck %s --check-prefix=PREFIXBAD
// PREFIXBAD: check failed: 'tensor.parallel_insert_slice': dimension 0 of the inserted tensor differs from the slice size
// Operands of an op in a task's loop whose sizes differ.
// RUN: %fw-run %t.fwb --function=add_twice --input=3xf32=1,2,3 --input=3xf32=1,1,1 | FileCheck %s --check-prefix=TWICE
// TWICE: 3xf32=3 4 5
// RUN: not %fw-run %t.fwb --function=add_twice --input=300000xf32=1 --input=2xf32=1,1 2>&1 | FileCheck %s --check-prefix=TWICEBAD
// TWICEBAD: check failed: 'linalg.add': dimension 0 of operand 0 and dimension 0 of operand 1 must be equal
// The same op of a task written in the input (checked by no one on the host).
// RUN: not %fw-run %t.fwb --function=add_once --input=300000xf32=1 --input=2xf32=1,1 2>&1 | FileCheck %s --check-prefix=TWICEBAD
// RUN: %fw-run %t.fwb --function=add_once --input=3xf32=1,2,3 --input=3xf32=1,1,1 | FileCheck %s --check-prefix=ONCE
// ONCE: 3xf32=2 3 4
// Sizes read from the data: a padding, a reshape's shape, an expansion's two
// sizes (whose product could wrap around to the right one).
// RUN: %fw-run %t.fwb --function=pad_by --input=4xf32=1,2,3,4 --input=2xi64=1,2 | FileCheck %s --check-prefix=PADBY
// PADBY: 7xf32=0 1 2 3 4 0 0
// RUN: not %fw-run %t.fwb --function=pad_by --input=4xf32=1,2,3,4 --input=2xi64=-1000000,0 2>&1 | FileCheck %s --check-prefix=PADBAD
// PADBAD: check failed: 'tensor.pad': the low padding of dimension 0 is negative
// RUN: not %fw-run %t.fwb --function=pad_by --input=4xf32=1,2,3,4 --input=2xi64=4611686018427387904,4611686018427387904 2>&1 | FileCheck %s --check-prefix=PADHUGE
// PADHUGE: check failed: 'tensor.pad': the padded tensor's sizes overflow or it would take more than 2^47 bytes
// RUN: %fw-run %t.fwb --function=rows_of --input=6xf32=1,2,3,4,5,6 --input=2xi64=2,3 | FileCheck %s --check-prefix=ROWSOF
// ROWSOF: 2xf32=6 15
// RUN: not %fw-run %t.fwb --function=rows_of --input=6xf32=1,2,3,4,5,6 --input=2xi64=1000,1000 2>&1 | FileCheck %s --check-prefix=ROWSOFBAD
// RUN: not %fw-run %t.fwb --function=rows_of --input=6xf32=1,2,3,4,5,6 --input=2xi64=-2,-3 2>&1 | FileCheck %s --check-prefix=ROWSOFBAD
// ROWSOFBAD: check failed: 'tensor.reshape': the shape's sizes are negative or do not multiply to the source's number of elements
// RUN: %fw-run %t.fwb --function=grid_sum --input=6xf32=1,2,3,4,5,6 --input=2xi64=3,2 | FileCheck %s --check-prefix=GRID
// GRID: f32=21
// RUN: not %fw-run %t.fwb --function=grid_sum --input=4xf32=1,2,3,4 --input=2xi64=4611686018427387905,4 2>&1 | FileCheck %s --check-prefix=GRIDBAD
// GRIDBAD: check failed: 'tensor.expand_shape': the sizes of result dimensions 0 to 1 do not multiply to dimension 0 of the source
// A tensor sized from the data: a negative or huge size fails its check rather
// than its allocation.
// RUN: %fw-run %t.fwb --function=count_ones --input=2xi64=3,4 | FileCheck %s --check-prefix=COUNT
// COUNT: f32=7
// RUN: not %fw-run %t.fwb --function=count_ones --input=2xi64=3,-5 2>&1 | FileCheck %s --check-prefix=COUNTBAD
// RUN: not %fw-run %t.fwb --function=count_ones --input=2xi64=4611686018427387904,1 2>&1 | FileCheck %s --check-prefix=COUNTBAD
// COUNTBAD: check failed: 'tensor.empty': a size is negative or the tensor would take more than 2^47 bytes
// RUN: %fw-run %t.fwb --function=splat_sum --input=1xi64=3 | FileCheck %s --check-prefix=SPLAT
// SPLAT: f32=3
// RUN: not %fw-run %t.fwb --function=splat_sum --input=1xi64=-1 2>&1 | FileCheck %s --check-prefix=SPLATBAD
// SPLATBAD: check failed: 'tensor.splat': a size is negative or the tensor would take more than 2^47 bytes
// A size within the checks that the machine cannot give (2^44 floats, 64 TiB)
// fails the task rather than the process.
// RUN: not %fw-run %t.fwb --function=count_ones --input=2xi64=3,17592186044416 2>&1 | FileCheck %s --check-prefix=NOMEM
// RUN: not %fw-run %t.fwb --function=splat_sum --input=1xi64=17592186044416 2>&1 | FileCheck %s --check-prefix=NOMEM
// NOMEM: check failed: out of memory: the kernel could not allocate a buffer of its own
// A buffer sized from the sizes of an input (empty, with 2^31 columns) whose
// bytes wrap around (2^31 x 2^31 floats) fails the same way; it was a small
// buffer the kernel wrote past.
// RUN: %python -c "import numpy as np; np.save('%t.wide.npy', np.zeros((0, 3), dtype=np.float32)); np.save('%t.huge.npy', np.zeros((0, 2**31), dtype=np.float32))"
// RUN: %fw-run %t.fwb --function=square_count --input=@%t.wide.npy | FileCheck %s --check-prefix=SQUARE
// SQUARE: f32=10
// RUN: not timeout 120 %fw-run %t.fwb --function=square_count --input=@%t.huge.npy 2>&1 | FileCheck %s --check-prefix=NOMEM
// A loop whose bounds come from the data stops at the first iteration in
// which a check fails (a lower bound of INT64_MIN ran 2^63 iterations), as
// does a while loop that the guarded value keeps in a cycle.
// RUN: %fw-run %t.fwb --function=range_sum --input=2xi64=2,5 --input=8xf32=1,2,3,4,5,6,7,8 | FileCheck %s --check-prefix=RANGE
// RANGE: f32=12
// RUN: not timeout 120 %fw-run %t.fwb --function=range_sum --input=2xi64=-9223372036854775808,5 --input=8xf32=1 2>&1 | FileCheck %s --check-prefix=RANGEBAD
// RANGEBAD: check failed: 'tensor.extract': the index into dimension 0 is out of range
// RUN: %fw-run %t.fwb --function=chain_length --input=4xi64=2,-1,3,1 | FileCheck %s --check-prefix=CHAIN
// CHAIN: i64=4
// RUN: not timeout 120 %fw-run %t.fwb --function=chain_length --input=4xi64=9,-1,3,1 2>&1 | FileCheck %s --check-prefix=CHAINBAD
// CHAINBAD: check failed: 'tensor.extract': the index into dimension 0 is out of range
// The same for parallel and affine loops (which become for loops first), and
// for a while loop with no check in it, whose step a failed check replaced
// by 0.
// RUN: %fw-run %t.fwb --function=par_sum_at --input=4xi64=0,1,2,7 --input=8xf32=1,2,3,4,5,6,7,8 | FileCheck %s --check-prefix=SUMAT
// RUN: %fw-run %t.fwb --function=aff_sum_at --input=4xi64=0,1,2,7 --input=8xf32=1,2,3,4,5,6,7,8 | FileCheck %s --check-prefix=SUMAT
// SUMAT: f32=14
// RUN: not %fw-run %t.fwb --function=par_sum_at --input=4xi64=0,1,9,7 --input=8xf32=1 2>&1 | FileCheck %s --check-prefix=CHAINBAD
// RUN: not %fw-run %t.fwb --function=aff_sum_at --input=4xi64=0,1,9,7 --input=8xf32=1 2>&1 | FileCheck %s --check-prefix=CHAINBAD
// RUN: %fw-run %t.fwb --function=hops --input=4xi64=10,20,30,40 --input=1xi64=1 | FileCheck %s --check-prefix=HOPS
// HOPS: i64=5
// RUN: not timeout 120 %fw-run %t.fwb --function=hops --input=4xi64=10,20,30,40 --input=1xi64=7 2>&1 | FileCheck %s --check-prefix=CHAINBAD
// So does a for loop with no check in it whose bound a failed check replaced
// (by 0: 10^18 iterations); a parallel loop's step read from the data is
// checked as a for loop's.
// RUN: %fw-run %t.fwb --function=halving_from --input=1xi64=1 --input=4xi64=1000000000000000000,999999999999999998,0,0 | FileCheck %s --check-prefix=HALVING
// HALVING: f32=1.5
// RUN: not timeout 120 %fw-run %t.fwb --function=halving_from --input=1xi64=7 --input=4xi64=1000000000000000000,999999999999999998,0,0 2>&1 | FileCheck %s --check-prefix=CHAINBAD
// RUN: %fw-run %t.fwb --function=multiples_below_8 --input=1xi64=3 | FileCheck %s --check-prefix=MULTIPLES
// MULTIPLES: i64=3
// RUN: not timeout 120 %fw-run %t.fwb --function=multiples_below_8 --input=1xi64=0 2>&1 | FileCheck %s --check-prefix=PSTEP
// RUN: not timeout 120 %fw-run %t.fwb --function=multiples_below_8 --input=1xi64=-1 2>&1 | FileCheck %s --check-prefix=PSTEP
// PSTEP: check failed: 'scf.parallel': the loop's step is not positive
//
// The same kernels through their GPU mapping, emulated on the CPU.
// RUN: %fwc %s --test-gpu-mapping-on-cpu -o %t.gpu.fwb
// RUN: %fw-run %t.gpu.fwb --function=embmm --input=3x4xf32=0,1,2,3,10,11,12,13,20,21,22,23 --input=2xi64=2,0 --input=4x3xf32=1,0,0,0,1,0,0,0,1,1,1,1 | FileCheck %s --check-prefix=EMBMM
// RUN: not %fw-run %t.gpu.fwb --function=embmm --input=3x4xf32=0 --input=2xi64=2,5 --input=4x3xf32=1 2>&1 | FileCheck %s --check-prefix=PASTMM
// RUN: %fw-run %t.gpu.fwb --function=lookup --input=3x4xf32=0,1,2,3,10,11,12,13,20,21,22,23 --input=4xi64=2,0,1,2 | FileCheck %s --check-prefix=LOOKUP
// RUN: not %fw-run %t.gpu.fwb --function=lookup --input=3x4xf32=0 --input=4xi64=2,0,3,2 2>&1 | FileCheck %s --check-prefix=PAST
// A loop in each thread (a while loop in an elementwise op's body) ends at a failed
// check there, as on the CPU: a link out of range read as 0 closed a cycle.
// RUN: %fw-run %t.fwb --function=chains --input=3xi64=0,2,3 --input=4xi64=2,-1,3,1 | FileCheck %s --check-prefix=CHAINS
// RUN: %fw-run %t.gpu.fwb --function=chains --input=3xi64=0,2,3 --input=4xi64=2,-1,3,1 | FileCheck %s --check-prefix=CHAINS
// CHAINS: 3xi64=4 3 2
// RUN: not timeout 120 %fw-run %t.fwb --function=chains --input=3xi64=0,2,3 --input=4xi64=9,-1,3,1 2>&1 | FileCheck %s --check-prefix=CHAINSBAD
// RUN: not timeout 120 %fw-run %t.gpu.fwb --function=chains --input=3xi64=0,2,3 --input=4xi64=9,-1,3,1 2>&1 | FileCheck %s --check-prefix=CHAINSBAD
// CHAINSBAD: check failed: 'tensor.extract': the index into dimension 0 is out of range
// The same in a row kernel (a block per row, its threads sharing the row through
// workgroup memory): the chains' lengths summed per row; and a step each thread takes
// from its row's minimum, which another thread's failed check made 0 (its while loop
// also watches the error word).
// RUN: %fw-run %t.fwb --function=chain_sums --input=2x3xi64=0,2,3,1,-1,2 --input=4xi64=2,-1,3,1 | FileCheck %s --check-prefix=CHAINSUMS
// RUN: %fw-run %t.gpu.fwb --function=chain_sums --input=2x3xi64=0,2,3,1,-1,2 --input=4xi64=2,-1,3,1 | FileCheck %s --check-prefix=CHAINSUMS
// CHAINSUMS: 2xi64=9 4
// RUN: not timeout 120 %fw-run %t.fwb --function=chain_sums --input=2x3xi64=0,2,3,1,-1,2 --input=4xi64=9,-1,3,1 2>&1 | FileCheck %s --check-prefix=CHAINSBAD
// RUN: not timeout 120 %fw-run %t.gpu.fwb --function=chain_sums --input=2x3xi64=0,2,3,1,-1,2 --input=4xi64=9,-1,3,1 2>&1 | FileCheck %s --check-prefix=CHAINSBAD
// RUN: %fw-run %t.fwb --function=steps_of_row_min --input=4xi64=10,20,30,40 --input=2x3xi64=0,1,2,3,2,1 | FileCheck %s --check-prefix=STEPS
// RUN: %fw-run %t.gpu.fwb --function=steps_of_row_min --input=4xi64=10,20,30,40 --input=2x3xi64=0,1,2,3,2,1 | FileCheck %s --check-prefix=STEPS
// STEPS: 2x3xi64=[10 10 10][5 5 5]
// RUN: not timeout 120 %fw-run %t.fwb --function=steps_of_row_min --input=4xi64=10,20,30,40 --input=2x3xi64=0,1,2,3,9,1 2>&1 | FileCheck %s --check-prefix=CHAINSBAD
// RUN: not timeout 120 %fw-run %t.gpu.fwb --function=steps_of_row_min --input=4xi64=10,20,30,40 --input=2x3xi64=0,1,2,3,9,1 2>&1 | FileCheck %s --check-prefix=CHAINSBAD
//
// The module says which checks its kernels make, and needs a runtime that reads them.
// RUN: %fw-run --list %t.fwb | FileCheck %s --check-prefix=LIST
// LIST: executable @lookup_dispatch_0
// LIST: check 1: 'tensor.extract': the index into dimension 0 is out of range (

#in = affine_map<(d0, d1) -> (d0)>
#out = affine_map<(d0, d1) -> (d0, d1)>
func.func @lookup(%table: tensor<?x4xf32>, %ids: tensor<?xi64>) -> tensor<?x4xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %ids, %c0 : tensor<?xi64>
  %e = tensor.empty(%n) : tensor<?x4xf32>
  %r = linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "parallel"]}
      ins(%ids : tensor<?xi64>) outs(%e : tensor<?x4xf32>) {
  ^bb0(%id: i64, %o: f32):
    %i = arith.index_cast %id : i64 to index
    %j = linalg.index 1 : index
    %v = tensor.extract %table[%i, %j] : tensor<?x4xf32>
    linalg.yield %v : f32
  } -> tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}

func.func @scatter_one(%where: tensor<1xi32>, %what: tensor<1xf32>) -> tensor<8xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %k = tensor.extract %where[%c0] : tensor<1xi32>
  %i = arith.index_cast %k : i32 to index
  %x = tensor.extract %what[%c0] : tensor<1xf32>
  %s = tensor.insert %x into %f[%i] : tensor<8xf32>
  return %s : tensor<8xf32>
}

func.func @every(%s: tensor<1xi64>, %a: tensor<16xf32>) -> tensor<16xf32> {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %one = arith.constant 1.0 : f32
  %k = tensor.extract %s[%c0] : tensor<1xi64>
  %step = arith.index_cast %k : i64 to index
  %l = scf.for %i = %c0 to %c16 step %step iter_args(%t = %a) -> tensor<16xf32> {
    %u = tensor.insert %one into %t[%i] : tensor<16xf32>
    scf.yield %u : tensor<16xf32>
  }
  return %l : tensor<16xf32>
}

func.func @stride(%s: tensor<2xi64>, %a: tensor<16xf32>) -> tensor<16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  %k = tensor.extract %s[%c0] : tensor<2xi64>
  %h = tensor.extract %s[%c1] : tensor<2xi64>
  %step = arith.index_cast %k : i64 to index
  %ub = arith.index_cast %h : i64 to index
  %l = scf.for %i = %c0 to %ub step %step iter_args(%t = %a) -> tensor<16xf32> {
    %u = tensor.insert %one into %t[%i] : tensor<16xf32>
    scf.yield %u : tensor<16xf32>
  }
  return %l : tensor<16xf32>
}

func.func @embmm(%table: tensor<?x4xf32>, %ids: tensor<?xi64>, %w: tensor<4x3xf32>) -> tensor<?x3xf32> {
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  %n = tensor.dim %ids, %c0 : tensor<?xi64>
  %e = tensor.empty(%n) : tensor<?x4xf32>
  %g = linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "parallel"]}
      ins(%ids : tensor<?xi64>) outs(%e : tensor<?x4xf32>) {
  ^bb0(%id: i64, %o: f32):
    %i = arith.index_cast %id : i64 to index
    %j = linalg.index 1 : index
    %v = tensor.extract %table[%i, %j] : tensor<?x4xf32>
    linalg.yield %v : f32
  } -> tensor<?x4xf32>
  %e2 = tensor.empty(%n) : tensor<?x3xf32>
  %f = linalg.fill ins(%z : f32) outs(%e2 : tensor<?x3xf32>) -> tensor<?x3xf32>
  %r = linalg.matmul ins(%g, %w : tensor<?x4xf32>, tensor<4x3xf32>) outs(%f : tensor<?x3xf32>) -> tensor<?x3xf32>
  return %r : tensor<?x3xf32>
}

func.func @pairs(%a: tensor<?xf32>) -> tensor<2xf32> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2xf32>
  %init = linalg.fill ins(%z : f32) outs(%e : tensor<2xf32>) -> tensor<2xf32>
  %d = tensor.dim %a, %c0 : tensor<?xf32>
  %r = scf.for %i = %c0 to %d step %c2 iter_args(%acc = %init) -> tensor<2xf32> {
    %s = tensor.extract_slice %a[%i] [2] [1] : tensor<?xf32> to tensor<2xf32>
    %t = linalg.add ins(%acc, %s : tensor<2xf32>, tensor<2xf32>) outs(%acc : tensor<2xf32>) -> tensor<2xf32>
    scf.yield %t : tensor<2xf32>
  }
  return %r : tensor<2xf32>
}

func.func @sumslice(%p: tensor<?xi64>, %a: tensor<10xf32>) -> tensor<1xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1xf32>
  %init = linalg.fill ins(%z : f32) outs(%e : tensor<1xf32>) -> tensor<1xf32>
  %np = tensor.dim %p, %c0 : tensor<?xi64>
  %n = arith.divui %np, %c2 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> tensor<1xf32> {
    %o64 = tensor.extract %p[%c0] : tensor<?xi64>
    %s64 = tensor.extract %p[%c1] : tensor<?xi64>
    %o = arith.index_cast %o64 : i64 to index
    %s = arith.index_cast %s64 : i64 to index
    %x = tensor.extract_slice %a[%o] [%s] [1] : tensor<10xf32> to tensor<?xf32>
    %x2 = tensor.expand_shape %x [[0, 1]] output_shape [1, %s] : tensor<?xf32> into tensor<1x?xf32>
    %y = linalg.reduce ins(%x2 : tensor<1x?xf32>) outs(%acc : tensor<1xf32>) dimensions = [1]
      (%in: f32, %out: f32) {
        %q = arith.addf %in, %out : f32
        linalg.yield %q : f32
      }
    scf.yield %y : tensor<1xf32>
  }
  return %r : tensor<1xf32>
}

func.func @pick(%big: tensor<?xf32>, %small: tensor<?xf32>, %flag: tensor<?xi8>) -> tensor<1xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1xf32>
  %init = linalg.fill ins(%z : f32) outs(%e : tensor<1xf32>) -> tensor<1xf32>
  %n = tensor.dim %flag, %c0 : tensor<?xi8>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> tensor<1xf32> {
    %f = tensor.extract %flag[%i] : tensor<?xi8>
    %zero8 = arith.constant 0 : i8
    %cond = arith.cmpi ne, %f, %zero8 : i8
    %x = scf.if %cond -> tensor<?xf32> {
      scf.yield %big : tensor<?xf32>
    } else {
      scf.yield %small : tensor<?xf32>
    }
    %d = tensor.dim %x, %c0 : tensor<?xf32>
    %s = tensor.extract_slice %small[0] [%d] [1] : tensor<?xf32> to tensor<?xf32>
    %s2 = tensor.expand_shape %s [[0, 1]] output_shape [1, %d] : tensor<?xf32> into tensor<1x?xf32>
    %y = linalg.reduce ins(%s2 : tensor<1x?xf32>) outs(%acc : tensor<1xf32>) dimensions = [1]
      (%in: f32, %out: f32) {
        %q = arith.addf %in, %out : f32
        linalg.yield %q : f32
      }
    scf.yield %y : tensor<1xf32>
  }
  return %r : tensor<1xf32>
}

func.func @copyat(%p: tensor<?xi64>, %a: tensor<10xf32>) -> tensor<10xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %p, %c0 : tensor<?xi64>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %a) -> tensor<10xf32> {
    %o64 = tensor.extract %p[%i] : tensor<?xi64>
    %o = arith.index_cast %o64 : i64 to index
    %x = tensor.extract_slice %a[%o] [2] [1] : tensor<10xf32> to tensor<2xf32>
    %y = linalg.add ins(%x, %x : tensor<2xf32>, tensor<2xf32>) outs(%x : tensor<2xf32>) -> tensor<2xf32>
    %u = tensor.insert_slice %y into %acc[%o] [2] [1] : tensor<2xf32> into tensor<10xf32>
    scf.yield %u : tensor<10xf32>
  }
  return %r : tensor<10xf32>
}

func.func @scatter_rows(%dst: tensor<8x2xf32>, %rows: tensor<2x2xf32>, %pos: tensor<2xi64>) -> tensor<8x2xf32> {
  %r = scf.forall (%i) in (2) shared_outs(%o = %dst) -> tensor<8x2xf32> {
    %p64 = tensor.extract %pos[%i] : tensor<2xi64>
    %p = arith.index_cast %p64 : i64 to index
    %row = tensor.extract_slice %rows[%i, 0] [1, 2] [1, 1] : tensor<2x2xf32> to tensor<1x2xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %row into %o[%p, 0] [1, 2] [1, 1] : tensor<1x2xf32> into tensor<8x2xf32>
    }
  }
  return %r : tensor<8x2xf32>
}

func.func @double_tiles(%a: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %r = scf.forall (%i) in (2) shared_outs(%o = %e) -> tensor<8xf32> {
    %at = affine.apply affine_map<(d0) -> (d0 * 4)>(%i)
    %x = tensor.extract_slice %a[%at] [4] [1] : tensor<8xf32> to tensor<4xf32>
    %y = linalg.add ins(%x, %x : tensor<4xf32>, tensor<4xf32>) outs(%x : tensor<4xf32>) -> tensor<4xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %y into %o[%at] [4] [1] : tensor<4xf32> into tensor<8xf32>
    }
  }
  return %r : tensor<8xf32>
}

func.func @scatter_doubled(%dst: tensor<4x4xf32>, %src: tensor<2x4xf32>, %pos: tensor<2xi64>) -> tensor<4x4xf32> {
  %r = scf.forall (%i) in (2) shared_outs(%o = %dst) -> tensor<4x4xf32> {
    %p64 = tensor.extract %pos[%i] : tensor<2xi64>
    %p = arith.index_cast %p64 : i64 to index
    %e = tensor.empty() : tensor<1x4xf32>
    %row = scf.forall (%j) in (4) shared_outs(%t = %e) -> tensor<1x4xf32> {
      %x = tensor.extract %src[%i, %j] : tensor<2x4xf32>
      %y = arith.addf %x, %x : f32
      %ys = tensor.from_elements %y : tensor<1x1xf32>
      scf.forall.in_parallel {
        tensor.parallel_insert_slice %ys into %t[0, %j] [1, 1] [1, 1] : tensor<1x1xf32> into tensor<1x4xf32>
      }
    }
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %row into %o[%p, 0] [1, 4] [1, 1] : tensor<1x4xf32> into tensor<4x4xf32>
    }
  }
  return %r : tensor<4x4xf32>
}

func.func @copy_prefix(%dst: tensor<8x2xf32>, %src: tensor<?x2xf32>, %s: tensor<2xi64>) -> tensor<8x2xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.forall (%i) in (2) shared_outs(%o = %dst) -> tensor<8x2xf32> {
    %a64 = tensor.extract %s[%c0] : tensor<2xi64>
    %b64 = tensor.extract %s[%c1] : tensor<2xi64>
    %a = arith.index_cast %a64 : i64 to index
    %b = arith.index_cast %b64 : i64 to index
    %t = tensor.extract_slice %src[0, %i] [%a, 1] [1, 1] : tensor<?x2xf32> to tensor<?xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %t into %o[0, %i] [%b, 1] [1, 1] : tensor<?xf32> into tensor<8x2xf32>
    }
  }
  return %r : tensor<8x2xf32>
}

func.func @add_twice(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %r = fw.task(%a, %b) : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32> dims(%n) {
  ^bb0(%x: tensor<?xf32>, %y: tensor<?xf32>):
    %c0k = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %l = scf.for %i = %c0k to %c2 step %c1 iter_args(%acc = %x) -> tensor<?xf32> {
      %s = linalg.add ins(%acc, %y : tensor<?xf32>, tensor<?xf32>) outs(%acc : tensor<?xf32>) -> tensor<?xf32>
      scf.yield %s : tensor<?xf32>
    }
    fw.yield %l : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}

func.func @add_once(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %r = fw.task(%a, %b) : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32> dims(%n) {
  ^bb0(%x: tensor<?xf32>, %y: tensor<?xf32>):
    %s = linalg.add ins(%x, %y : tensor<?xf32>, tensor<?xf32>) outs(%x : tensor<?xf32>) -> tensor<?xf32>
    fw.yield %s : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}

func.func @pad_by(%a: tensor<4xf32>, %p: tensor<2xi64>) -> tensor<7xf32> {
  %r = fw.task(%a, %p) : (tensor<4xf32>, tensor<2xi64>) -> tensor<7xf32> {
  ^bb0(%x: tensor<4xf32>, %pp: tensor<2xi64>):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %z = arith.constant 0.0 : f32
    %l64 = tensor.extract %pp[%c0] : tensor<2xi64>
    %h64 = tensor.extract %pp[%c1] : tensor<2xi64>
    %l = arith.index_cast %l64 : i64 to index
    %h = arith.index_cast %h64 : i64 to index
    %padded = tensor.pad %x low[%l] high[%h] {
    ^bb0(%j: index):
      tensor.yield %z : f32
    } : tensor<4xf32> to tensor<?xf32>
    %first = tensor.extract_slice %padded[0] [7] [1] : tensor<?xf32> to tensor<7xf32>
    fw.yield %first : tensor<7xf32>
  }
  return %r : tensor<7xf32>
}

func.func @rows_of(%a: tensor<6xf32>, %shape: tensor<2xi64>) -> tensor<2xf32> {
  %r = fw.task(%a, %shape) : (tensor<6xf32>, tensor<2xi64>) -> tensor<2xf32> {
  ^bb0(%x: tensor<6xf32>, %sh: tensor<2xi64>):
    %z = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<2xf32>
    %init = linalg.fill ins(%z : f32) outs(%e : tensor<2xf32>) -> tensor<2xf32>
    %rr = tensor.reshape %x(%sh) : (tensor<6xf32>, tensor<2xi64>) -> tensor<2x?xf32>
    %s = linalg.reduce ins(%rr : tensor<2x?xf32>) outs(%init : tensor<2xf32>) dimensions = [1]
      (%in: f32, %out: f32) {
        %q = arith.addf %in, %out : f32
        linalg.yield %q : f32
      }
    fw.yield %s : tensor<2xf32>
  }
  return %r : tensor<2xf32>
}

func.func @grid_sum(%a: tensor<?xf32>, %p: tensor<2xi64>) -> tensor<f32> {
  %r = fw.task(%a, %p) : (tensor<?xf32>, tensor<2xi64>) -> tensor<f32> {
  ^bb0(%x: tensor<?xf32>, %pp: tensor<2xi64>):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %z = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<f32>
    %init = linalg.fill ins(%z : f32) outs(%e : tensor<f32>) -> tensor<f32>
    %k64 = tensor.extract %pp[%c0] : tensor<2xi64>
    %m64 = tensor.extract %pp[%c1] : tensor<2xi64>
    %k = arith.index_cast %k64 : i64 to index
    %m = arith.index_cast %m64 : i64 to index
    %ex = tensor.expand_shape %x [[0, 1]] output_shape [%k, %m] : tensor<?xf32> into tensor<?x?xf32>
    %s = linalg.reduce ins(%ex : tensor<?x?xf32>) outs(%init : tensor<f32>) dimensions = [0, 1]
      (%in: f32, %out: f32) {
        %q = arith.addf %in, %out : f32
        linalg.yield %q : f32
      }
    fw.yield %s : tensor<f32>
  }
  return %r : tensor<f32>
}

func.func @count_ones(%pp: tensor<2xi64>) -> tensor<f32> {
  %r = fw.task(%pp) : (tensor<2xi64>) -> tensor<f32> {
  ^bb0(%p: tensor<2xi64>):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %z = arith.constant 0.0 : f32
    %one = arith.constant 1.0 : f32
    %e0 = tensor.empty() : tensor<f32>
    %init = linalg.fill ins(%z : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
    %res = scf.for %i = %c0 to %c2 step %c1 iter_args(%acc = %init) -> tensor<f32> {
      %k64 = tensor.extract %p[%i] : tensor<2xi64>
      %k = arith.index_cast %k64 : i64 to index
      %e = tensor.empty(%k) : tensor<?xf32>
      %f = linalg.fill ins(%one : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
      %s = linalg.reduce ins(%f : tensor<?xf32>) outs(%acc : tensor<f32>) dimensions = [0]
        (%in: f32, %out: f32) {
          %q = arith.addf %in, %out : f32
          linalg.yield %q : f32
        }
      scf.yield %s : tensor<f32>
    }
    fw.yield %res : tensor<f32>
  }
  return %r : tensor<f32>
}

func.func @splat_sum(%p: tensor<1xi64>) -> tensor<f32> {
  %r = fw.task(%p) : (tensor<1xi64>) -> tensor<f32> {
  ^bb0(%pp: tensor<1xi64>):
    %c0 = arith.constant 0 : index
    %z = arith.constant 0.0 : f32
    %one = arith.constant 1.0 : f32
    %e = tensor.empty() : tensor<f32>
    %init = linalg.fill ins(%z : f32) outs(%e : tensor<f32>) -> tensor<f32>
    %k64 = tensor.extract %pp[%c0] : tensor<1xi64>
    %k = arith.index_cast %k64 : i64 to index
    %g = tensor.splat %one[%k] : tensor<?xf32>
    %s = linalg.reduce ins(%g : tensor<?xf32>) outs(%init : tensor<f32>) dimensions = [0]
      (%in: f32, %out: f32) {
        %q = arith.addf %in, %out : f32
        linalg.yield %q : f32
      }
    fw.yield %s : tensor<f32>
  }
  return %r : tensor<f32>
}

func.func @range_sum(%off: tensor<2xi64>, %v: tensor<8xf32>) -> tensor<f32> {
  %r = fw.task(%off, %v) : (tensor<2xi64>, tensor<8xf32>) -> tensor<f32> {
  ^bb0(%o: tensor<2xi64>, %x: tensor<8xf32>):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %z = arith.constant 0.0 : f32
    %lo64 = tensor.extract %o[%c0] : tensor<2xi64>
    %hi64 = tensor.extract %o[%c1] : tensor<2xi64>
    %lo = arith.index_cast %lo64 : i64 to index
    %hi = arith.index_cast %hi64 : i64 to index
    %s = scf.for %i = %lo to %hi step %c1 iter_args(%acc = %z) -> f32 {
      %e = tensor.extract %x[%i] : tensor<8xf32>
      %a = arith.addf %acc, %e : f32
      scf.yield %a : f32
    }
    %t = tensor.from_elements %s : tensor<f32>
    fw.yield %t : tensor<f32>
  }
  return %r : tensor<f32>
}

// The length of the chain of links from element 0 to a link of -1.
func.func @chain_length(%next: tensor<4xi64>) -> tensor<i64> {
  %r = fw.task(%next) : (tensor<4xi64>) -> tensor<i64> {
  ^bb0(%n: tensor<4xi64>):
    %zero = arith.constant 0 : i64
    %one = arith.constant 1 : i64
    %end = arith.constant -1 : i64
    %len:2 = scf.while (%at = %zero, %count = %zero) : (i64, i64) -> (i64, i64) {
      %more = arith.cmpi ne, %at, %end : i64
      scf.condition(%more) %at, %count : i64, i64
    } do {
    ^bb0(%at: i64, %count: i64):
      %i = arith.index_cast %at : i64 to index
      %to = tensor.extract %n[%i] : tensor<4xi64>
      %c = arith.addi %count, %one : i64
      scf.yield %to, %c : i64, i64
    }
    %t = tensor.from_elements %len#1 : tensor<i64>
    fw.yield %t : tensor<i64>
  }
  return %r : tensor<i64>
}

// The sum of the elements of %v at %ids, in a parallel loop.
func.func @par_sum_at(%ids: tensor<4xi64>, %v: tensor<8xf32>) -> tensor<f32> {
  %r = fw.task(%ids, %v) : (tensor<4xi64>, tensor<8xf32>) -> tensor<f32> {
  ^bb0(%o: tensor<4xi64>, %x: tensor<8xf32>):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %z = arith.constant 0.0 : f32
    %s = scf.parallel (%i) = (%c0) to (%c4) step (%c1) init (%z) -> f32 {
      %k64 = tensor.extract %o[%i] : tensor<4xi64>
      %k = arith.index_cast %k64 : i64 to index
      %e = tensor.extract %x[%k] : tensor<8xf32>
      scf.reduce(%e : f32) {
      ^bb0(%a: f32, %b: f32):
        %q = arith.addf %a, %b : f32
        scf.reduce.return %q : f32
      }
    }
    %t = tensor.from_elements %s : tensor<f32>
    fw.yield %t : tensor<f32>
  }
  return %r : tensor<f32>
}

// The same in an affine loop.
func.func @aff_sum_at(%ids: tensor<4xi64>, %v: tensor<8xf32>) -> tensor<f32> {
  %r = fw.task(%ids, %v) : (tensor<4xi64>, tensor<8xf32>) -> tensor<f32> {
  ^bb0(%o: tensor<4xi64>, %x: tensor<8xf32>):
    %z = arith.constant 0.0 : f32
    %s = affine.for %i = 0 to 4 iter_args(%acc = %z) -> f32 {
      %k64 = tensor.extract %o[%i] : tensor<4xi64>
      %k = arith.index_cast %k64 : i64 to index
      %e = tensor.extract %x[%k] : tensor<8xf32>
      %a = arith.addf %acc, %e : f32
      affine.yield %a : f32
    }
    %t = tensor.from_elements %s : tensor<f32>
    fw.yield %t : tensor<f32>
  }
  return %r : tensor<f32>
}

// The hops of %steps[%id[0]] from 0 to 100.
func.func @hops(%steps: tensor<4xi64>, %id: tensor<1xi64>) -> tensor<i64> {
  %r = fw.task(%steps, %id) : (tensor<4xi64>, tensor<1xi64>) -> tensor<i64> {
  ^bb0(%st: tensor<4xi64>, %ii: tensor<1xi64>):
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i64
    %one = arith.constant 1 : i64
    %goal = arith.constant 100 : i64
    %k64 = tensor.extract %ii[%c0] : tensor<1xi64>
    %k = arith.index_cast %k64 : i64 to index
    %step = tensor.extract %st[%k] : tensor<4xi64>
    %res:2 = scf.while (%at = %zero, %n = %zero) : (i64, i64) -> (i64, i64) {
      %more = arith.cmpi slt, %at, %goal : i64
      scf.condition(%more) %at, %n : i64, i64
    } do {
    ^bb0(%at: i64, %n: i64):
      %a = arith.addi %at, %step : i64
      %m = arith.addi %n, %one : i64
      scf.yield %a, %m : i64, i64
    }
    %t = tensor.from_elements %res#1 : tensor<i64>
    fw.yield %t : tensor<i64>
  }
  return %r : tensor<i64>
}

// 1 + 1/2 + 1/4 ... for each of the %x[0] - %x[%ids[0]] iterations.
func.func @halving_from(%ids: tensor<1xi64>, %x: tensor<4xi64>) -> tensor<f32> {
  %r = fw.task(%ids, %x) : (tensor<1xi64>, tensor<4xi64>) -> tensor<f32> {
  ^bb0(%o: tensor<1xi64>, %xx: tensor<4xi64>):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %z = arith.constant 0.0 : f32
    %one = arith.constant 1.0 : f32
    %h = arith.constant 0.5 : f32
    %k64 = tensor.extract %o[%c0] : tensor<1xi64>
    %k = arith.index_cast %k64 : i64 to index
    %lo64 = tensor.extract %xx[%k] : tensor<4xi64>
    %hi64 = tensor.extract %xx[%c0] : tensor<4xi64>
    %lo = arith.index_cast %lo64 : i64 to index
    %hi = arith.index_cast %hi64 : i64 to index
    %s = scf.for %i = %lo to %hi step %c1 iter_args(%acc = %z) -> f32 {
      %m = arith.mulf %acc, %h : f32
      %a = arith.addf %m, %one : f32
      scf.yield %a : f32
    }
    %t = tensor.from_elements %s : tensor<f32>
    fw.yield %t : tensor<f32>
  }
  return %r : tensor<f32>
}

// The multiples of %st[0] below 8, counted by a parallel loop.
func.func @multiples_below_8(%st: tensor<1xi64>) -> tensor<i64> {
  %r = fw.task(%st) : (tensor<1xi64>) -> tensor<i64> {
  ^bb0(%o: tensor<1xi64>):
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %z = arith.constant 0 : i64
    %one = arith.constant 1 : i64
    %s64 = tensor.extract %o[%c0] : tensor<1xi64>
    %s = arith.index_cast %s64 : i64 to index
    %sum = scf.parallel (%i) = (%c0) to (%c8) step (%s) init (%z) -> i64 {
      scf.reduce(%one : i64) {
      ^bb0(%a: i64, %b: i64):
        %q = arith.addi %a, %b : i64
        scf.reduce.return %q : i64
      }
    }
    %t = tensor.from_elements %sum : tensor<i64>
    fw.yield %t : tensor<i64>
  }
  return %r : tensor<i64>
}

// The number of elements of a square of the second size of %a, plus one.
func.func @square_count(%a: tensor<?x?xf32>) -> tensor<f32> {
  %r = fw.task(%a) : (tensor<?x?xf32>) -> tensor<f32> {
  ^bb0(%x: tensor<?x?xf32>):
    %c1 = arith.constant 1 : index
    %z = arith.constant 0.0 : f32
    %one = arith.constant 1.0 : f32
    %d1 = tensor.dim %x, %c1 : tensor<?x?xf32>
    %e = tensor.empty(%d1, %d1) : tensor<?x?xf32>
    %f = linalg.fill ins(%one : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
    // One element more (written in the buffer, which no mapping fuses away).
    %c0 = arith.constant 0 : index
    %two = arith.constant 2.0 : f32
    %g = tensor.insert %two into %f[%c0, %c0] : tensor<?x?xf32>
    %e0 = tensor.empty() : tensor<f32>
    %init = linalg.fill ins(%z : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
    %s = linalg.reduce ins(%g : tensor<?x?xf32>) outs(%init : tensor<f32>) dimensions = [0, 1]
      (%in: f32, %out: f32) {
        %q = arith.addf %in, %out : f32
        linalg.yield %q : f32
      }
    fw.yield %s : tensor<f32>
  }
  return %r : tensor<f32>
}

// The length of the chain of links from each start (-1 ends one), per element.
func.func @chains(%starts: tensor<?xi64>, %next: tensor<4xi64>) -> tensor<?xi64> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %starts, %c0 : tensor<?xi64>
  %e = tensor.empty(%n) : tensor<?xi64>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%starts : tensor<?xi64>) outs(%e : tensor<?xi64>) {
  ^bb0(%s: i64, %o: i64):
    %zero = arith.constant 0 : i64
    %one = arith.constant 1 : i64
    %end = arith.constant -1 : i64
    %len:2 = scf.while (%at = %s, %count = %zero) : (i64, i64) -> (i64, i64) {
      %more = arith.cmpi ne, %at, %end : i64
      scf.condition(%more) %at, %count : i64, i64
    } do {
    ^bb0(%at: i64, %count: i64):
      %i = arith.index_cast %at : i64 to index
      %to = tensor.extract %next[%i] : tensor<4xi64>
      %c = arith.addi %count, %one : i64
      scf.yield %to, %c : i64, i64
    }
    linalg.yield %len#1 : i64
  } -> tensor<?xi64>
  return %r : tensor<?xi64>
}

// The lengths of the chains from each row's starts, summed per row.
func.func @chain_sums(%starts: tensor<?x?xi64>, %next: tensor<4xi64>) -> tensor<?xi64> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %starts, %c0 : tensor<?x?xi64>
  %zero = arith.constant 0 : i64
  %e = tensor.empty(%n) : tensor<?xi64>
  %f = linalg.fill ins(%zero : i64) outs(%e : tensor<?xi64>) -> tensor<?xi64>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%starts : tensor<?x?xi64>) outs(%f : tensor<?xi64>) {
  ^bb0(%s: i64, %acc: i64):
    %z = arith.constant 0 : i64
    %one = arith.constant 1 : i64
    %end = arith.constant -1 : i64
    %len:2 = scf.while (%at = %s, %count = %z) : (i64, i64) -> (i64, i64) {
      %more = arith.cmpi ne, %at, %end : i64
      scf.condition(%more) %at, %count : i64, i64
    } do {
    ^bb0(%at: i64, %count: i64):
      %i = arith.index_cast %at : i64 to index
      %to = tensor.extract %next[%i] : tensor<4xi64>
      %c = arith.addi %count, %one : i64
      scf.yield %to, %c : i64, i64
    }
    %t = arith.addi %len#1, %acc : i64
    linalg.yield %t : i64
  } -> tensor<?xi64>
  return %r : tensor<?xi64>
}

// Per element, the steps from 0 to 100 by the least of its row's x[ids].
func.func @steps_of_row_min(%x: tensor<4xi64>, %ids: tensor<?x?xi64>) -> tensor<?x?xi64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %ids, %c0 : tensor<?x?xi64>
  %m = tensor.dim %ids, %c1 : tensor<?x?xi64>
  %big = arith.constant 9223372036854775807 : i64
  %e = tensor.empty(%n) : tensor<?xi64>
  %f = linalg.fill ins(%big : i64) outs(%e : tensor<?xi64>) -> tensor<?xi64>
  %least = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                           iterator_types = ["parallel", "reduction"]}
      ins(%ids : tensor<?x?xi64>) outs(%f : tensor<?xi64>) {
  ^bb0(%id: i64, %acc: i64):
    %i = arith.index_cast %id : i64 to index
    %v = tensor.extract %x[%i] : tensor<4xi64>
    %s = arith.minsi %v, %acc : i64
    linalg.yield %s : i64
  } -> tensor<?xi64>
  %e2 = tensor.empty(%n, %m) : tensor<?x?xi64>
  %out = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>],
                         iterator_types = ["parallel", "parallel"]}
      ins(%least : tensor<?xi64>) outs(%e2 : tensor<?x?xi64>) {
  ^bb0(%step: i64, %o: i64):
    %zero = arith.constant 0 : i64
    %one = arith.constant 1 : i64
    %goal = arith.constant 100 : i64
    %res:2 = scf.while (%at = %zero, %count = %zero) : (i64, i64) -> (i64, i64) {
      %more = arith.cmpi slt, %at, %goal : i64
      scf.condition(%more) %at, %count : i64, i64
    } do {
    ^bb0(%at: i64, %count: i64):
      %a = arith.addi %at, %step : i64
      %c = arith.addi %count, %one : i64
      scf.yield %a, %c : i64, i64
    }
    linalg.yield %res#1 : i64
  } -> tensor<?x?xi64>
  return %out : tensor<?x?xi64>
}
