//===- Passes.td - fw dialect transformation passes --------*- tablegen -*-===//

#ifndef FW_DIALECT_FW_TRANSFORMS_PASSES_TD
#define FW_DIALECT_FW_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def PrepareInputPass : Pass<"fw-prepare-input", "func::FuncOp"> {
  let summary = "Normalizes an input function before tasks are formed";
  let description = [{
    Brings a linalg-on-tensors function into the form the rest of the
    pipeline expects, without folding (folding an elementwise op on tensors
    with dynamic shapes can lose the shape):
    - `arith` and `math` ops on tensors become `linalg.generic`;
    - `cf.assert` (which aborts the process) becomes `fw.assert`, which
      fails the call with its message (on the host, or inside a task
      through the kernel's error word);
    - the shape of a `tensor.reshape` with integers narrower than 64 bits
      is read as i64 (sign-extended; a constant one made again);
    - `math.isinf` becomes a compare of `math.absf` with infinity and
      `math.clampf` an `arith.maximumf` then `arith.minimumf` (no backend
      lowers them);
    - `linalg.reduce`, `linalg.map` and named elementwise ops (`linalg.add`,
      `linalg.exp`, ...) become `linalg.generic`, so that elementwise
      producers fuse into them (fills, copies and contractions stay named);
    - large splat constants (4096 elements or more) become `linalg.fill` of
      an empty tensor, so no constant data is materialized in the binary;
    - statically empty operands of `tensor.concat` are dropped;
    - `affine.for`, `affine.if` and `affine.parallel` become their SCF
      counterparts;
    - an `arith.select` of whole tensors with a scalar condition the host
      computes and sizes not known to agree becomes an `scf.if`;
    - a `tensor.reshape` by a constant shape gets the static result type it
      gives;
    - `linalg.pack` and `linalg.unpack` become what upstream's `lowerPack`
      and `lowerUnPack` make of them (pad, expand_shape, transpose;
      transpose, collapse_shape, extract_slice), after the checks of their
      sizes known at run time only; `tensor.gather` a `linalg.generic` that
      reads its indices, `tensor.scatter` an `scf.forall` of slice inserts;
    - an `scf.for` at the top level that carries integer or float scalars
      carries them as tensors of rank 0 (an index with them as an i64),
      read back with `tensor.extract` where its results are used (tasks
      produce tensors only);
    - an elementwise producer of a tensor of `index` elements at the top
      level (an `arith.index_cast` of a whole tensor) is fused into the
      elementwise consumers that read it, whatever the optimization level:
      the runtime holds no buffers of index elements, so such a tensor
      cannot pass between tasks.
    An op replaced by another keeps its name in `fw.written_as`, for the
    checks' messages.
    It rejects what would be undefined at run time and that the canonicalizer
    after it would fold away unseen: a constant index of `tensor.extract` or
    `tensor.insert` outside a static size, a constant `scf.for` step below 1;
    and ops no kernel holds yet (packs and unpacks by tiles of sizes known
    at run time only) and element types no kernel computes in
    (floats narrower than 16 bits, complex numbers), by name.

    It emits the checks the canonicalizer would take away with their ops:
    of a `tensor.cast` that makes a size static (a `tensor.dim` of it folds
    to that size), of every `tensor.reshape`, the sizes of an insert of
    casts that forget a static one, and at the top level every check
    fw-form-tasks would make (the op then marked `fw.host_checked`).

    ```mlir
    %c = arith.constant dense<1.0> : tensor<4096x1024xf32>
    // becomes
    %e = tensor.empty() : tensor<4096x1024xf32>
    %one = arith.constant 1.0 : f32
    %c = linalg.fill ins(%one : f32) outs(%e : tensor<4096x1024xf32>) -> tensor<4096x1024xf32>
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::fw::FWDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect"];
}

def FormTasksPass : Pass<"fw-form-tasks", "func::FuncOp"> {
  let summary = "Wraps each tensor computation of a function in an fw.task";
  let description = [{
    Forms one `fw.task` per linalg operation (and per other tensor-producing
    operation) of a public function. A `linalg.fill` whose only user is the
    operation's init is pulled into the same task. Values the task needs from
    outside are passed as task operands when they are tensors; constants,
    `tensor.empty` and index computations feeding them (`tensor.dim`,
    `arith` on indices) are rematerialized inside the task so that the region
    stays isolated from above. Dynamic result dimensions are reified on the
    host. Static cost estimates (`flops`, `bytes`) are attached when the
    shapes are static.

    Before:
    ```mlir
    %e = tensor.empty(%d) : tensor<?x4xf32>
    %r = linalg.add ins(%a, %b : tensor<?x4xf32>, tensor<?x4xf32>)
                    outs(%e : tensor<?x4xf32>) -> tensor<?x4xf32>
    ```
    After:
    ```mlir
    %r = fw.task(%a, %b) : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
        dims(%d) {
    ^bb0(%x: tensor<?x4xf32>, %y: tensor<?x4xf32>):
      %c0 = arith.constant 0 : index
      %d0 = tensor.dim %x, %c0 : tensor<?x4xf32>
      %e = tensor.empty(%d0) : tensor<?x4xf32>
      %s = linalg.add ins(%x, %y : ...) outs(%e : ...) -> tensor<?x4xf32>
      fw.yield %s : tensor<?x4xf32>
    }
    ```
    Operations that would need tensor data on the host (for example
    `tensor.extract` at the top level of a function) are rejected with a
    diagnostic. An `fw.assert` at the top level whose condition reads tensor
    data, and an op with regions and no results that holds checks, become
    tasks without results.

    With `fuse-epilogues` (the default), elementwise `linalg.generic`
    consumers that are the only user of a linalg op's result join that op's
    task (bias and activation after a matmul or a convolution), so a layer
    is one task; the intermediate result never leaves the kernel.

    With `fuse-prologues` (the default), an elementwise `linalg.generic`
    whose only use is as an input of a contraction or a convolution joins
    that op's task (a scaled or activated operand), and `fw-cpu-matmul`
    computes it while it packs the operand.
  }];
  let options = [
    Option<"fuseEpilogues", "fuse-epilogues", "bool", /*default=*/"true",
           "Put elementwise consumers in the task of their producer">,
    Option<"fusePrologues", "fuse-prologues", "bool", /*default=*/"true",
           "Put elementwise producers of a contraction's or convolution's "
           "inputs in its task">
  ];
  let dependentDialects = ["::mlir::fw::FWDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::tensor::TensorDialect"];
}

def TaskChecksPass : Pass<"fw-task-checks", "func::FuncOp"> {
  let summary = "Checks indices that a task's kernel computes, as it runs";
  let description = [{
    Inside each `fw.task`, an element index of `tensor.extract` or
    `tensor.insert` that value-bounds analysis cannot prove to lie within its
    dimension (an index read from a tensor, as an embedding lookup does, or
    one computed from loop indices and sizes the analysis does not relate),
    the offsets, sizes and strides of slices the kernel computes, a step of
    `scf.for` it cannot prove positive and a loop whose induction variable
    could overflow before its bound, are checked where the kernel computes
    them. The access is guarded by `scf.if` (an extract out of range yields
    zero, a slice nothing, an insert leaves its destination as it was; a loop
    that fails runs no iteration) and an `fw.assert` names the operation, the
    dimension and the source line: the kernel goes on, and the runtime fails
    the task with that message when it ends (`fw-kernel-error-word` lowers
    the assertion). Indices computed on the host are checked there
    (`fw-form-tasks`). An `scf.parallel` with bounds or steps the kernel
    computes becomes `scf.for` loops (its reductions carried in order),
    checked as any. An `scf.forall` whose parallel inserts need a check
    (an `scf.if` cannot hold them), or whose step is not 1, first becomes a
    nest of `scf.for` loops carrying its shared outputs, its inserts
    `tensor.insert_slice` ops (checked as any; the messages name the ops as
    written). Ops the host does not check (nested in loops, branches and
    foralls, or with operand shapes the kernel computes) get its checks here:
    slices also for the inserted tensor's sizes, linalg ops, casts, concats,
    reshapes, pads and expansions for the sizes that must agree (guarded:
    a failing op yields its inits or an empty tensor). A tensor sized from
    the data is checked before it is allocated (sizes not negative, at most
    2^47 bytes).

    ```mlir
    %v = tensor.extract %table[%i, %j] : tensor<?x4xf32>
    ```
    becomes
    ```mlir
    %d0 = tensor.dim %table, %c0 : tensor<?x4xf32>
    %in0 = arith.cmpi ult, %i, %d0 : index
    fw.assert %in0, "'tensor.extract': the index into dimension 0 is out of range (model.mlir:12)"
    %v = scf.if %in0 -> (f32) {
      %x = tensor.extract %table[%i, %j] : tensor<?x4xf32>
      scf.yield %x : f32
    } else {
      scf.yield %zero : f32
    }
    ```
  }];
  let dependentDialects = ["::mlir::fw::FWDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::ub::UBDialect"];
}

def KernelErrorWordPass : Pass<"fw-kernel-error-word", "ModuleOp"> {
  let summary = "Lowers the assertions of kernels onto an error word";
  let description = [{
    Numbers the distinct messages of the `fw.assert` operations in each
    executable's variants (from 1, in the order the first variant has them)
    and lists them in the executable's `checks`. Every variant kernel with an
    assertion takes one more argument after its bindings, a `memref<i32>`
    (the error word the runtime hands each launch: `fw_workgroup_t.error` on
    the CPU, a trailing parameter on GPUs), and each assertion becomes an
    atomic maximum into that word of n + 1 - k, for check k of n, when its
    condition is false, so that the first check in the kernel's order that
    failed is the one reported (of those met: a CPU kernel's loops stop at a
    failed check, `fw-cpu-stop-at-failed-checks`). After the kernel, the
    runtime fails the task with that check's message (docs/runtime.md). A
    CPU kernel that allocates buffers of its own (`memref.alloc`), or will
    (a contraction or convolution: `fw-cpu-matmul` packs its panels), gets
    an error word too, and one more message after the others, "out of
    memory: ...", whose number it records in `fw.allocation_check` for
    `fw-cpu-allocation-checks`.

    ```mlir
    fw.assert %ok, "..."
    ```
    becomes
    ```mlir
    %failed = arith.xori %ok, %true : i1
    scf.if %failed {
      %old = memref.atomic_rmw maxu %c1_i32, %word[] : (i32, memref<i32>) -> i32
    }
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

def ApplyProfilePass : Pass<"fw-apply-profile", "ModuleOp"> {
  let summary = "Annotates tasks with measured times, places and merges them";
  let description = [{
    Reads a profile written by `fw-run --profile-out` (docs/profile.md) and
    matches its entries to the tasks of each function by the name outlining
    will give them (`<function>_dispatch_<n>`, in order). Then:

    - every matched task gets `fw.profile`, a dictionary with its measured
      median time per device kind (`cpu`, `cuda`, `hip`; the largest size
      class measured) and, when the profile measured several variants of its
      CPU kernel, the knobs of the fastest (`config`) and how many were
      measured (`candidates`), and the same per GPU target (`gpu_config`,
      `gpu_candidates`, compared on the kernels' device time when measured);
      outlining carries it to the executable, where `fw-tune-variants` keeps
      those variants and `fw-task-priorities` ranks by the measured times;
    - a task measured on several device kinds gets the placement `hint` of
      the one where it would finish first: its time there plus moving its
      bytes at the copy rates the profile measured (`transfers`);
    - a task whose measured time is below `merge-below-us` (10x the runtime's
      per-task overhead of about 1 us by default) merges into the next task
      when that task is its only user and is measured below the threshold
      too: one dispatch instead of two, the intermediate in cache. Merged
      tasks keep merging while the sum stays below the threshold;
    - a task measured above `split-above-us` (100x the per-task overhead by
      default) whose CPU runs ran whole on one worker while the profile had
      several (its kernel does not divide its work) splits along its
      operations (a contraction or convolution with its accumulator's fill
      and its epilogue; the runs of other operations between): each part is
      a kernel the code generator can divide among workers.

    Each decision is an optimization remark (category `fw-profile`) naming
    the task, the evidence and the choice. A profile of another source
    (`source-id` differs) is ignored with a warning; a malformed one is an
    error.
  }];
  let options = [
    Option<"profile", "profile", "std::string", /*default=*/"",
           "The profile to read">,
    Option<"sourceId", "source-id", "std::string", /*default=*/"",
           "The source hash of the program (0x...); a profile of another "
           "source is ignored">,
    Option<"mergeBelowUs", "merge-below-us", "double", /*default=*/"10.0",
           "Tasks measured below this many microseconds merge with their "
           "consumer (0: never)">,
    Option<"splitAboveUs", "split-above-us", "double", /*default=*/"100.0",
           "Tasks measured above this many microseconds that ran whole on "
           "one of several CPU workers split along their operations (0: "
           "never)">
  ];
}

def OutlineTasksPass : Pass<"fw-outline-tasks", "ModuleOp"> {
  let summary = "Outlines tasks into executables with one variant per target";
  let description = [{
    Moves the body of every `fw.task` into an `fw.executable` with one
    `fw.variant` per target of the module (the `fw.targets` module attribute;
    the portable CPU target `#fw.cpu<"x86-64-v3">` when absent) and replaces
    the task by `fw.invoke`. The kernel function of each variant takes one
    memref per binding: the task's operands (read) followed by its results
    (write). Inputs enter tensor land through `bufferization.to_tensor
    restrict`; each result is stored with `bufferization.materialize_in_destination`
    so that bufferization writes it straight into the result buffer.

    ```mlir
    fw.executable @main_dispatch_0 attributes {
        access = [#fw.access<read>, #fw.access<write>],
        bindings = [tensor<?x4xf32>, tensor<?x4xf32>]} {
      fw.variant @cpu target(#fw.cpu<"x86-64-v3">) {
        builtin.module {
          func.func @main_dispatch_0(%in: memref<?x4xf32>, %out: memref<?x4xf32>) {
            ...
          }
        }
      }
    }
    func.func @main(%a: tensor<?x4xf32>) -> tensor<?x4xf32> {
      %r = fw.invoke @main_dispatch_0(%a) : (tensor<?x4xf32>) -> tensor<?x4xf32> dims(%d)
      return %r : tensor<?x4xf32>
    }
    ```
  }];
  let dependentDialects = ["::mlir::fw::FWDialect",
                           "::mlir::bufferization::BufferizationDialect",
                           "::mlir::memref::MemRefDialect"];
}

def TuneVariantsPass : Pass<"fw-tune-variants", "ModuleOp"> {
  let summary = "Chooses measured variant knobs, or adds candidates to measure";
  let description = [{
    For each executable:

    - when `fw-apply-profile` found the fastest knobs of its CPU kernel
      (`fw.profile` has a `config`), its CPU variant takes them (`config`),
      with a remark naming the candidates' evidence; the same for the first
      variant of each GPU target with a `gpu_config` entry;
    - otherwise, with `candidates` N > 1, a hot executable (those that make
      up 90% of the module's cost: measured time when profiled, else the
      flop or byte estimate) gets up to N - 1 more variants of its first CPU
      target and of the first variant of each GPU target, `<variant>_t<i>`,
      each with other knobs (`fw/Target/TuningConfig.h`: register tile and
      cache blocking for CPU matmuls and convolutions, the division among
      workgroups for other CPU kernels; the GEMM tile and per-thread tile for
      GPU contractions, threads per block for other GPU kernels). The runtime
      measures the candidates over the first calls, per device, and keeps
      the fastest per size class; the profile records the winner.
  }];
  let options = [
    Option<"candidates", "candidates", "unsigned", /*default=*/"1",
           "Variants per hot executable (1: no autotuning)">
  ];
}

def BufferizePass : Pass<"fw-bufferize", "ModuleOp"> {
  let summary = "Turns tensors into buffers on the host and in every kernel";
  let description = [{
    Host side: every tensor of a public function becomes a buffer in the host
    tier; each `fw.invoke` becomes an `fw.alloc` per result and an
    asynchronous `fw.dispatch` with read access to the operands and write
    access to the results; `fw.wait` on all tokens precedes the return, and
    intermediate buffers are released with `fw.dealloc` after their last
    dispatch. The function keeps its tensor signature in `fw.signature`.

    Kernel side: aggregate linalg operations (`linalg.softmax`) are decomposed,
    `tensor.empty` results are replaced by their destination buffers, and
    One-Shot Bufferize runs on every variant's module; copies are emitted as
    `linalg.copy` so no runtime support library is needed.

    ```mlir
    %b = fw.alloc(%d) : memref<?x4xf32, #fw.tier<host>>
    %t = fw.dispatch @main_dispatch_0(%a, %b)
        access([#fw.access<read>, #fw.access<write>])
        : memref<?x4xf32, #fw.tier<host>>, memref<?x4xf32, #fw.tier<host>>
    fw.wait %t
    ```
  }];
  let dependentDialects = ["::mlir::fw::FWDialect",
                           "::mlir::bufferization::BufferizationDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

def ReuseBuffersPass : Pass<"fw-reuse-buffers", "ModuleOp"> {
  let summary = "Reuses intermediate buffers whose last dispatch has been issued";
  let description = [{
    First, in place: a dispatch whose fresh output has the type and sizes of
    an intermediate input it reads for the last time (the input's only later
    use is its `fw.dealloc`) writes into that input's buffer, when every
    variant of its kernel is one elementwise `linalg.generic` reading that
    input and writing that output at the same index (identity maps) and
    touching them nowhere else. The output's `fw.alloc` and the input's
    `fw.dealloc` disappear; function arguments are never overwritten.

    Then it walks each host function in program order. A buffer released with
    `fw.dealloc` is handed to the next `fw.alloc` of the same type and the
    same dynamic sizes, which uses it instead of allocating (and releases it
    in its place); a buffer nothing can use is released where it was. The runtime
    orders the new writer after the earlier readers (write-after-read on the
    same buffer), so results do not change. With `report`, a remark on each function gives the peak of live memory the
    function allocates (intermediates and results) before and after reuse
    (static shapes; dynamic ones are counted separately).

    ```mlir
    %a = fw.alloc() : memref<4xf32, #fw.tier<host>>
    ... dispatches using %a ...
    fw.dealloc %a : memref<4xf32, #fw.tier<host>>
    %b = fw.alloc() : memref<4xf32, #fw.tier<host>>   // becomes %a
    ```
  }];
  let options = [
    Option<"reuse", "reuse", "bool", /*default=*/"true",
           "Reuse buffers and update in place (false: only report)">,
    Option<"report", "report", "bool", /*default=*/"false",
           "Emit a remark with the peak memory before and after reuse">
  ];
}

def TaskPrioritiesPass : Pass<"fw-task-priorities", "ModuleOp"> {
  let summary = "Ranks dispatches for the scheduler and marks independent ones";
  let description = [{
    Builds the dependence graph of the dispatches of each host function from
    their buffers and access modes (read-after-write, write-after-read,
    write-after-write, in program order) and annotates:
    - each dispatch with `fw.level`, the length of the longest chain of
      dispatches before it: dispatches on the same level depend on each
      other in no way and can run concurrently;
    - each dispatch and its executable with `fw.priority`, the upward rank
      (the dispatch's cost plus the largest rank among the dispatches that
      depend on it, HEFT-style), from the executables' `flops` estimates
      (`flops_terms` with every dynamic dim taken as 1024; bytes, or 1, when
      unknown), scaled to 32 bits. The fat binary's
      metadata carries the executable priority to the runtime's scheduler.

    ```mlir
    %t0 = fw.dispatch @a(%x, %y) access([...]) {fw.level = 0 : i64, fw.priority = 2048 : i64}
    %t1 = fw.dispatch @b(%y, %z) access([...]) {fw.level = 1 : i64, fw.priority = 1024 : i64}
    ```
  }];
}

def ApproximateMathPass : Pass<"fw-approximate-math", "func::FuncOp"> {
  let summary = "Replaces transcendental math ops by vectorizable polynomials";
  let description = [{
    Rewrites `math.exp`, `math.expm1`, `math.log1p`, `math.tanh` and
    `math.erf` on f32 (and on f16/bf16 through f32) into MLIR's polynomial
    approximations: plain arithmetic that LLVM vectorizes, instead of one libm
    call per element. They are accurate to a few ulp and keep NaN, infinity
    and signed-zero behaviour, except that `exp` flushes results below the
    smallest normal float (x < -87.3) to zero. `log` and `log2`, whose
    approximations are wrong for subnormal inputs, keep calling libm.

    ```mlir
    %y = math.exp %x : f32
    // becomes range reduction + a polynomial in arith ops
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::vector::VectorDialect"];
}

def CPUTilePass : Pass<"fw-cpu-tile", "func::FuncOp"> {
  let summary = "Tiles contractions for the CPU's caches";
  let description = [{
    After `fw-cpu-loop-order`, tiles the innermost (vectorized) loop and the
    innermost reduction loop of contractions on buffers (matmul, batched
    matmul): a block of `inner-bytes` along the inner loop and as many
    reduction steps as fit half of `l2-bytes`, so the block of the shared
    operand stays in L2 while every row of the output passes over it. The
    sizes come from the target description of the variant being compiled.

    ```mlir
    scf.for %k = %c0 to %c1024 step %c128 {
      scf.for %j = %c0 to %c1024 step %c256 {
        linalg.generic ... ins(subviews) outs(subview)
      }
    }
    ```
  }];
  let options = [
    Option<"l2Bytes", "l2-bytes", "int64_t", /*default=*/"524288",
           "Size of the L2 cache in bytes">,
    Option<"innerBytes", "inner-bytes", "int64_t", /*default=*/"1024",
           "Bytes of the innermost loop's tile">
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::affine::AffineDialect"];
}

def CPUMatmulPass : Pass<"fw-cpu-matmul", "func::FuncOp"> {
  let summary = "Packed, register-tiled code for f32 matmul-like contractions";
  let description = [{
    Replaces f32 contractions on buffers with one M, one N, one K and at
    most one batch dimension (`linalg.matmul`, `linalg.batch_matmul`, their
    transposed forms and equivalent `linalg.generic` ops) by the loop nest of
    a high-performance GEMM:

    - blocks of `nc` columns, `kc` reduction steps and `mc` rows, so that a
      packed block of B stays in the last-level cache, a packed block of A in
      L2 and one micro-panel of B in L1;
    - packing: each block of B is copied into panels of `nr` columns and each
      block of A into panels of `mr` rows, laid out in the order the
      micro-kernel reads them and padded with zeros at the edges; transposed
      operands are transposed in registers while they are packed;
    - the micro-kernel: an `mr` x `nr` tile of C held in vector registers
      while, for every reduction step, a `vector.contract` of one packed
      column of A and one packed row of B accumulates into it. Lowered with
      the outer-product strategy, that contraction becomes `mr` broadcasts
      and fused multiply-adds per step.

    A `linalg.fill` of C right before the contraction becomes the starting
    value of the accumulators (C is not read). An elementwise
    `linalg.generic` right after it that reads C, when C is a buffer of the
    kernel that nothing else reads, is applied to the register tile after
    the last block of reduction steps and writes its own output directly:
    bias, activation and residual epilogues cost no pass over memory, and
    the intermediate C disappears. Its other inputs may index the row, the
    column, both or neither.

    With `distribute`, the kernel divides C among its workgroups
    (`fw.workgroup_id` of `fw.workgroup_count`): the larger of its two
    dimensions is cut into balanced parts of whole register tiles, and each
    workgroup packs and computes its own part.

    The sizes derive from the target description (vector width and register
    count give `mr` x `nr`; the L1 and L2 sizes give `kc` and `mc`); each can
    be overridden. Edge tiles read and write C through masked transfers.
    An elementwise `linalg.generic` that computes A or B into a buffer of
    the kernel that only the contraction reads (a prologue), with inputs
    indexed like its output, is computed while that operand is packed: its
    inputs are read where the operand would be and its body applied to the
    vectors (a scale, an activation, a conversion from f16), so the staging
    buffer and its pass over memory disappear.

    A 2-D NHWC x HWCF convolution (f32, contiguous buffers, a channel count
    that is a multiple of 8) is computed the same way as a GEMM over output
    pixels x filters x (taps, channels): the filter and the output are viewed
    as matrices and the input is read through an implicit im2col while A is
    packed (8 channels of one input pixel per row, transposed in registers).
    Its bias/activation/residual epilogue is folded the same way.

    Contractions this pass does not handle (other element types, operands
    whose innermost dimension is not unit-stride, other convolutions) are
    left alone.

    ```mlir
    scf.for %k = %c0 to %kb step %c1 iter_args(%c0_ = ..., %c1_ = ...) {
      %a = vector.load %apack[%i, %k, %c0] : memref<42x256x12xf32>, vector<12xf32>
      %b = vector.load %bpack[%j, %k, %c0] : memref<64x256x32xf32>, vector<32xf32>
      %r = vector.contract {...} %a2, %b2, %acc : vector<1x12xf32>, vector<1x32xf32> into vector<12x32xf32>
    }
    ```
  }];
  let options = [
    Option<"vectorBits", "vector-bits", "int64_t", /*default=*/"256",
           "Width of the target's vector registers in bits">,
    Option<"vectorRegisters", "vector-registers", "int64_t", /*default=*/"16",
           "Number of architectural vector registers">,
    Option<"l1Bytes", "l1-bytes", "int64_t", /*default=*/"32768",
           "Size of the L1 data cache in bytes">,
    Option<"l2Bytes", "l2-bytes", "int64_t", /*default=*/"524288",
           "Size of the L2 cache in bytes">,
    Option<"mr", "mr", "int64_t", /*default=*/"0",
           "Rows of the register tile (0: from the target)">,
    Option<"nr", "nr", "int64_t", /*default=*/"0",
           "Columns of the register tile (0: two vector registers)">,
    Option<"kc", "kc", "int64_t", /*default=*/"0",
           "Reduction steps per packed block (0: a kc x nr panel fills L1)">,
    Option<"mc", "mc", "int64_t", /*default=*/"0",
           "Rows per packed block of A (0: from the L2 size)">,
    Option<"nc", "nc", "int64_t", /*default=*/"2048",
           "Columns per packed block of B">,
    Option<"fuse", "fuse", "bool", /*default=*/"true",
           "Fold a preceding fill and a following elementwise epilogue into "
           "the micro-kernel">,
    Option<"distribute", "distribute", "bool", /*default=*/"false",
           "Divide the rows or columns of C among the kernel's workgroups">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::fw::FWDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect"];
}

def CPUDistributePass : Pass<"fw-cpu-distribute", "func::FuncOp"> {
  let summary = "Divides a CPU kernel's linalg ops among workgroups";
  let description = [{
    For a kernel whose work is linalg ops on buffers (everything else
    allocates, frees or computes without memory effects), cuts each op's
    outermost parallel loop that every output is indexed by into balanced
    contiguous parts, one per workgroup (`fw.workgroup_id` of
    `fw.workgroup_count`), through the ops' tiling interface. Workgroups run
    all the ops on their parts without synchronising, so this is done only
    when every buffer the kernel writes is cut at the same dimension in every
    op that touches it (by the cut loop alone; buffers only read may be read
    whole): an elementwise chain, a fill and a row reduction, the four ops of
    a softmax. A loop that is innermost in any op is cut at multiples of
    `granule` elements, in all ops alike, so vectors stay whole. Kernels
    already divided (by `fw-cpu-matmul`), with other effects, or with fewer
    than `min-elements` iterations in every op (when known at compile time)
    are left alone.

    ```mlir
    %id = fw.workgroup_id : index
    %count = fw.workgroup_count : index
    ... %lo, %hi: this workgroup's rows
    %in = memref.subview %arg0[%lo, 0] [%size, 1024] [1, 1]
    linalg.generic ... ins(%in ...) outs(%out ...)
    ```
  }];
  let options = [
    Option<"minElements", "min-elements", "int64_t", /*default=*/"65536",
           "Iterations below which an op is not divided">,
    Option<"granule", "granule", "int64_t", /*default=*/"64",
           "Multiple at which an innermost loop is cut">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::fw::FWDialect",
                           "::mlir::memref::MemRefDialect"];
}

def CPUWorkgroupArgsPass : Pass<"fw-cpu-workgroup-args", "func::FuncOp"> {
  let summary = "Turns a kernel's workgroup id and count into arguments";
  let description = [{
    Replaces `fw.workgroup_id` and `fw.workgroup_count` in a kernel by two
    trailing `index` arguments and marks the function `fw.workgroups`, so
    `fw-cpu-kernel-abi` fills them from the runtime's `fw_workgroup_t` and
    the fat binary records that the kernel divides its work.

    ```mlir
    func.func @k(%a: memref<?xf32>, %id: index, %count: index)
        attributes {fw.workgroups}
    ```
  }];
}

def CPULoopOrderPass : Pass<"fw-cpu-loop-order", "func::FuncOp"> {
  let summary = "Orders the loops of linalg ops for unit-stride inner loops";
  let description = [{
    Before linalg ops become loops in a CPU kernel, picks the loop that should
    be innermost: the one under which the most operands are walked with unit
    stride (their last index is that loop) or stay invariant (they do not use
    it), the fewest with a large stride, preferring a parallel loop, which
    LLVM vectorizes. Ops whose best loop is not already innermost are
    generalized and interchanged; the order of the other loops is kept, and
    each output element still accumulates its reduction in the same order.
    For a matmul, (i, j, k) becomes (i, k, j): B and C are walked along rows
    and A[i, k] is invariant in the inner loop.

    ```mlir
    linalg.matmul ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>)
                  outs(%c : memref<64x16xf32>)
    // becomes a linalg.generic with
    //   iterator_types = ["parallel", "reduction", "parallel"]
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def CPUStopAtFailedChecksPass
    : Pass<"fw-cpu-stop-at-failed-checks", "func::FuncOp"> {
  let summary = "Ends a CPU kernel's loops at a failed check";
  let description = [{
    In a kernel with an error word (`fw-kernel-error-word`), every loop
    around a check's failure (the atomic maximum into the word), and every
    other `scf.for` and `scf.while` loop, stops after the iteration in which
    a check failed: a flag of the kernel's own (`memref.alloca`), set where
    a check fails, joins the condition of `scf.while` loops, and `scf.for`
    loops become such loops (`scf.forall`, `scf.parallel` and affine loops
    first nests of `scf.for`, reductions carried in order). Without it a
    loop whose
    bounds come from the data runs for as long as they say, failing every
    time (2^63 iterations from a lower bound of INT64_MIN), and a loop may
    run as long on a bound or value a failed check replaced by 0. The kernel
    goes on after the loop, its accesses guarded, and frees what it
    allocated; the task fails with the first of the failed checks in the
    kernel's order, among those met. Loops linalg ops become later are not
    affected (their bounds are buffers' sizes), nor kernels that emulate a
    GPU kernel (`fw.emulated_gpu`, `fw-test-gpu-mapping-on-cpu`), whose
    threads stop their own loops as the GPU mapping made them (the loops over
    the grid and the threads go on).

    ```mlir
    scf.for %i = %lo to %hi step %c1 { ... }
    ```
    becomes
    ```mlir
    %r = scf.while (%i = %lo) : (index) -> index {
      %in = arith.cmpi slt, %i, %hi : index
      %failed = memref.load %stopped[] : memref<i1>
      %ok = arith.xori %failed, %true : i1
      %go = arith.andi %in, %ok : i1
      scf.condition(%go) %i : index
    } do {
    ^bb0(%i: index):
      ...
      %next = arith.addi %i, %c1 : index
      scf.yield %next : index
    }
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

def CPUAllocationChecksPass
    : Pass<"fw-cpu-allocation-checks", "func::FuncOp"> {
  let summary = "Returns from a CPU kernel whose buffer the machine refuses";
  let description = [{
    In a kernel marked `fw.allocation_check` (by `fw-kernel-error-word`: a
    CPU kernel that allocates buffers of its own, its loops lowered to
    branches), precedes every `memref.alloc` with dynamic sizes by a test of
    its byte count (at most 2^47 bytes, the product checked for overflow:
    sizes of inputs can multiply past the address space and wrap around to a
    small buffer) and follows it by a test of its pointer; a failure (or the
    machine not giving the buffer, e.g. a size read from the data larger than
    its memory) records the attribute's number on the error word, as a
    failed check does, and returns from the kernel: the runtime fails the
    task with "out of memory: the kernel could not allocate a buffer of its
    own". The runtime frees the buffers the kernel holds then
    (`fw-cpu-kernel-allocator`).

    ```mlir
    %m = memref.alloc(%n) : memref<?xf32>
    ```
    becomes
    ```mlir
      %wide:2 = arith.mului_extended %c4, %n : index   // and so on per size
      ...
      cf.cond_br %fits weights([1048576, 1]), ^allocate, ^refused
    ^allocate:
      %m = memref.alloc(%n) : memref<?xf32>
      %p = memref.extract_aligned_pointer_as_index %m : memref<?xf32> -> index
      %null = arith.cmpi eq, %p, %c0 : index
      cf.cond_br %null weights([1, 1048576]), ^refused, ^given
    ^given:
      ...
    ^refused:
      %old = memref.atomic_rmw maxu %c1_i32, %word[] : (i32, memref<i32>) -> i32
      return
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::cf::ControlFlowDialect",
                           "::mlir::memref::MemRefDialect"];
}

def CPUKernelAllocatorPass : Pass<"fw-cpu-kernel-allocator", "ModuleOp"> {
  let summary = "Routes a CPU kernel's own buffers through the runtime";
  let description = [{
    On a kernel module lowered to the LLVM dialect with
    `finalize-memref-to-llvm{use-generic-functions}`, turns the calls of
    `_mlir_memref_to_llvm_alloc`, `_mlir_memref_to_llvm_aligned_alloc` and
    `_mlir_memref_to_llvm_free` into calls of `fw_rt_kernel_alloc(alignment,
    bytes)` and `fw_rt_kernel_free(ptr)` through the module's runtime
    function table `__fw_rt_table` (declared here; the host code defines it
    and the runtime fills it: host-call ABI version 4). The runtime records
    what a workgroup allocates and frees what it did not free when it
    returns, so a kernel that stops early (a failed check, a buffer the
    machine refused) loses nothing, whatever buffers its loops carried.

    ```mlir
    %p = llvm.call @_mlir_memref_to_llvm_alloc(%bytes) : (i64) -> !llvm.ptr
    ```
    becomes
    ```mlir
    %table = llvm.mlir.addressof @__fw_rt_table : !llvm.ptr
    %slot = llvm.getelementptr %table[0, 10] : ... -> !llvm.ptr, !llvm.array<12 x ptr>
    %fn = llvm.load %slot : !llvm.ptr -> !llvm.ptr
    %p = llvm.call %fn(%c0, %bytes) : !llvm.ptr, (i64, i64) -> !llvm.ptr
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def CPUKernelABIPass : Pass<"fw-cpu-kernel-abi", "ModuleOp"> {
  let summary = "Gives CPU kernels the runtime's uniform calling convention";
  let description = [{
    For every LLVM function carrying `fw.kernel_symbol` (and its
    `_mlir_ciface_` interface), emits a function with that symbol and the C
    signature `void(void *const *descriptors, const fw_workgroup_t *)` that
    loads one memref descriptor pointer per binding and calls the kernel, so
    the runtime can call any kernel without knowing its arity.

    ```mlir
    llvm.func @__fwk_main_dispatch_0_cpu(%descs: !llvm.ptr, %wg: !llvm.ptr) {
      %p0 = llvm.load %descs : !llvm.ptr -> !llvm.ptr
      ...
      llvm.call @_mlir_ciface_main_dispatch_0_cpu(%p0, ...) : (...) -> ()
      llvm.return
    }
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

#endif // FW_DIALECT_FW_TRANSFORMS_PASSES_TD
