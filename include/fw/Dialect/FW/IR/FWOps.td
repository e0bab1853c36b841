//===- FWOps.td - fw operations ----------------------------*- tablegen -*-===//

#ifndef FW_DIALECT_FW_IR_FWOPS_TD
#define FW_DIALECT_FW_IR_FWOPS_TD

include "fw/Dialect/FW/IR/FWBase.td"
include "fw/Dialect/FW/IR/FWAttrs.td"
include "fw/Dialect/FW/IR/FWTypes.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/IR/RegionKindInterface.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ValueBoundsOpInterface.td"

//===----------------------------------------------------------------------===//
// Tasks (tensor level)
//===----------------------------------------------------------------------===//

def FW_TaskOp : FW_Op<"task", [IsolatedFromAbove, AttrSizedOperandSegments,
    SingleBlockImplicitTerminator<"YieldOp">, RecursiveMemoryEffects,
    DeclareOpInterfaceMethods<ValueBoundsOpInterface,
                              ["populateBoundsForShapedValueDim"]>]> {
  let summary = "A unit of work over tensors, placed and scheduled as a whole";
  let description = [{
    A region over tensors that the runtime schedules as one task. The region is
    isolated from above: its block arguments are the task's operands, in order,
    and `fw.yield` returns its results. Dynamic dimensions of the results are
    given as index operands after `dims`, in result order, so the host can
    allocate result buffers without running the task. An optional placement
    hint and compile-time cost estimates (floating-point operations and bytes
    touched) guide the scheduler. Where a loop range is a dynamic size, the
    operation count is `flops_terms` instead of `flops`: a sum of terms, each
    `array<i64: c, b0, d0, b1, d1, ...>` meaning c × (dim d0 of b0) ×
    (dim d1 of b1) × ..., where b numbers the operands and then the results
    (the bindings of the outlined executable), so the runtime evaluates it at
    dispatch from the buffers' shapes.

    ```mlir
    %r = fw.task(%a, %b) : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
        dims(%d) attributes {hint = #fw.device<cpu>, flops = 0 : i64} {
    ^bb0(%x: tensor<?x4xf32>, %y: tensor<4xf32>):
      ...
      fw.yield %v : tensor<?x4xf32>
    }
    ```
  }];
  let arguments = (ins Variadic<AnyRankedTensor>:$args,
                       Variadic<Index>:$result_dims,
                       OptionalAttr<FW_DeviceKindAttr>:$hint,
                       OptionalAttr<I64Attr>:$flops,
                       OptionalAttr<ArrayAttr>:$flops_terms,
                       OptionalAttr<I64Attr>:$bytes);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    `(` $args `)` `:` functional-type($args, results)
    (`dims` `(` $result_dims^ `)`)? attr-dict-with-keyword $body
  }];
  let hasVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [
    OpBuilder<(ins "::mlir::TypeRange":$resultTypes,
                   "::mlir::ValueRange":$args,
                   "::mlir::ValueRange":$resultDims)>
  ];
}

def FW_YieldOp : FW_Op<"yield", [Pure, ReturnLike, Terminator,
    HasParent<"TaskOp">]> {
  let summary = "Returns the results of a task";
  let description = [{
    Terminates the region of `fw.task`; its operands become the task's results.

    ```mlir
    fw.yield %v : tensor<?x4xf32>
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$values);
  let builders = [OpBuilder<(ins), [{ /* nothing */ }]>];
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
}

//===----------------------------------------------------------------------===//
// Executables
//===----------------------------------------------------------------------===//

def FW_ExecutableOp : FW_Op<"executable", [IsolatedFromAbove, SymbolTable,
    Symbol, NoTerminator, SingleBlock, NoRegionArguments]> {
  let summary = "Code for one task, with one variant per target";
  let description = [{
    An outlined task. It holds one `fw.variant` per target; each variant's
    module defines a kernel function named like the executable, taking one
    memref per binding. `bindings` gives the tensor type of each binding and
    `access` how the kernel uses it; the runtime checks every dispatch against
    them. `flops` and `bytes` are compile-time cost estimates; `flops_terms`
    (see `fw.task`) gives the operation count in terms of the bindings' dynamic
    dims. `checks` lists the messages of the checks its kernels make as they
    run (`fw-kernel-error-word`): a kernel that reports number k fails its
    task with the k-th.

    ```mlir
    fw.executable @main_dispatch_0 attributes {
        access = [#fw.access<read>, #fw.access<write>],
        bindings = [tensor<?x4xf32>, tensor<?x4xf32>]} {
      fw.variant @cpu target(#fw.cpu<"x86-64-v3">) {
        builtin.module { func.func @main_dispatch_0(...) { ... } }
      }
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeArrayAttr:$bindings,
                       FW_AccessArrayAttr:$access,
                       OptionalAttr<I64Attr>:$flops,
                       OptionalAttr<ArrayAttr>:$flops_terms,
                       OptionalAttr<I64Attr>:$bytes,
                       OptionalAttr<FW_DeviceKindAttr>:$hint,
                       OptionalAttr<StrArrayAttr>:$checks);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$sym_name attr-dict-with-keyword $body";
  let hasVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [
    OpBuilder<(ins "::llvm::StringRef":$name, "::mlir::ArrayAttr":$bindings,
                   "::mlir::ArrayAttr":$access)>
  ];
  let extraClassDeclaration = [{
    ::mlir::Block &getBlock() { return getBody().front(); }
  }];
}

def FW_VariantOp : FW_Op<"variant", [IsolatedFromAbove, Symbol,
    NoTerminator, SingleBlock, NoRegionArguments, HasParent<"ExecutableOp">]> {
  let summary = "The code of an executable for one target";
  let description = [{
    Holds one `builtin.module` with the executable's kernel for `target`.
    An optional `config` sets code-generation knobs of this variant (CPU
    targets: `mr`, `nr`, `kc`, `mc` of the packed GEMM, `min_elements` of the
    division among workgroups; see `fw/Target/TuningConfig.h`); knobs not set
    follow from the target. Several variants of one target are candidates
    that the runtime measures and chooses among (`fwc --autotune`).

    ```mlir
    fw.variant @cpu target(#fw.cpu<"x86-64-v3">) {
      builtin.module { ... }
    }
    fw.variant @cpu_t1 target(#fw.cpu<"x86-64-v3">)
        attributes {config = {kc = 256 : i64}} {
      builtin.module { ... }
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, AnyAttr:$target,
                       OptionalAttr<DictionaryAttr>:$config);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $sym_name `target` `(` $target `)` attr-dict-with-keyword $body
  }];
  let hasVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [
    OpBuilder<(ins "::llvm::StringRef":$name, "::mlir::Attribute":$target)>
  ];
  let extraClassDeclaration = [{
    ::mlir::Block &getBlock() { return getBody().front(); }
    /// The target as the interface every target attribute implements.
    ::mlir::fw::TargetAttrInterface getTargetInterface() {
      return ::llvm::cast<::mlir::fw::TargetAttrInterface>(getTarget());
    }
    /// The module that holds the kernel.
    ::mlir::ModuleOp getInnerModule();
    /// The knobs of `config` (empty when it is absent).
    ::mlir::fw::TuningConfig getTuning();
    /// Sets `config` to the knobs of `tuning` (removes it when empty).
    void setTuning(const ::mlir::fw::TuningConfig &tuning);
  }];
}

def FW_InvokeOp : FW_Op<"invoke", [AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "Runs an executable on tensors, with value semantics";
  let description = [{
    The tensor-level use of an outlined task: reads `args` and produces new
    tensors. Dynamic result dimensions are given after `dims`. Bufferization
    turns it into `fw.alloc` of the results and an `fw.dispatch`.

    ```mlir
    %r = fw.invoke @main_dispatch_0(%a) : (tensor<?x4xf32>) -> tensor<?x4xf32>
        dims(%d)
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee,
                       Variadic<AnyRankedTensor>:$args,
                       Variadic<Index>:$result_dims);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let assemblyFormat = [{
    $callee `(` $args `)` attr-dict `:` functional-type($args, results)
    (`dims` `(` $result_dims^ `)`)?
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Buffers, dispatch and synchronization (buffer level)
//===----------------------------------------------------------------------===//

def FW_AllocOp : FW_Op<"alloc", [
    MemoryEffects<[MemAlloc<DefaultResource>]>]> {
  let summary = "Allocates a buffer in a memory tier";
  let description = [{
    Allocates a buffer in the tier given by the memref's memory space, which
    must be an `#fw.tier`. One index operand per dynamic dimension.

    ```mlir
    %b = fw.alloc(%n) : memref<?x256xf32, #fw.tier<host>>
    ```
  }];
  let arguments = (ins Variadic<Index>:$dynamic_sizes);
  let results = (outs AnyMemRef:$result);
  let assemblyFormat = "`(` $dynamic_sizes `)` attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def FW_DeallocOp : FW_Op<"dealloc", [
    MemoryEffects<[MemFree<DefaultResource>]>]> {
  let summary = "Releases a buffer";
  let description = [{
    Releases the program's reference to a buffer allocated with `fw.alloc`.
    Work already dispatched on the buffer finishes first: the runtime frees the
    memory when the last dispatch that uses it has completed.

    ```mlir
    fw.dealloc %b : memref<?x256xf32, #fw.tier<host>>
    ```
  }];
  let arguments = (ins AnyMemRef:$buffer);
  let assemblyFormat = "$buffer attr-dict `:` type($buffer)";
  let hasVerifier = 1;
}

def FW_PrefetchOp : FW_Op<"prefetch"> {
  let summary = "Starts moving a buffer to a memory tier";
  let description = [{
    A hint that `buffer` will soon be used in `tier`: the runtime may start
    copying it there asynchronously. It never changes the program's results.

    ```mlir
    fw.prefetch %b : memref<?x256xf32, #fw.tier<host>> to <device>
    ```
  }];
  let arguments = (ins AnyMemRef:$buffer, FW_TierAttr:$tier);
  let assemblyFormat = "$buffer `:` type($buffer) `to` $tier attr-dict";
  let hasVerifier = 1;
}

def FW_DispatchOp : FW_Op<"dispatch", [AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "Enqueues an executable on buffers, asynchronously";
  let description = [{
    Enqueues `callee` with one buffer per binding and returns a token that
    completes when the work has finished. `access` gives, per buffer, whether
    the work reads it, writes it or both; the runtime orders dispatches that
    touch the same buffer in submission order (read-after-write,
    write-after-read, write-after-write) and runs the others concurrently.
    `after` adds explicit dependencies on other tokens.

    ```mlir
    %t = fw.dispatch @main_dispatch_0(%in, %out)
        access([#fw.access<read>, #fw.access<write>])
        : memref<?x4xf32, #fw.tier<host>>, memref<?x4xf32, #fw.tier<host>>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee,
                       Variadic<AnyMemRef>:$buffers,
                       FW_AccessArrayAttr:$access,
                       Variadic<FW_TokenType>:$after);
  let results = (outs FW_TokenType:$token);
  let assemblyFormat = [{
    $callee `(` $buffers `)` `access` `(` $access `)`
    (`after` `(` $after^ `)`)? attr-dict `:` type($buffers)
  }];
  let hasVerifier = 1;
}

def FW_WaitOp : FW_Op<"wait"> {
  let summary = "Waits until dispatched work has completed";
  let description = [{
    Blocks the host program until every token has completed.

    ```mlir
    fw.wait %t0, %t1
    ```
  }];
  let arguments = (ins Variadic<FW_TokenType>:$tokens);
  let assemblyFormat = "$tokens attr-dict";
  let hasVerifier = 1;
}

def FW_AssertOp : FW_Op<"assert"> {
  let summary = "Checks a condition at run time on the host";
  let description = [{
    Fails the current call with `message` when `condition` is false, e.g. when
    two dynamic dimensions that a task requires to be equal differ. Unlike
    `cf.assert` it never aborts the process: the runtime returns an error.

    ```mlir
    fw.assert %ok, "dimension 0 of argument 0 and argument 1 differ"
    ```
  }];
  let arguments = (ins I1:$condition, StrAttr:$message);
  let assemblyFormat = "$condition `,` $message attr-dict";
  let hasVerifier = 1;
  let hasCanonicalizeMethod = 1;
}

def FW_WorkgroupIdOp : FW_Op<"workgroup_id", [Pure]> {
  let summary = "The index of the workgroup running this kernel";
  let description = [{
    Inside a CPU kernel that divides its work among workgroups: which of the
    `fw.workgroup_count` workgroups this invocation is, from 0. The runtime
    runs the workgroups of one task concurrently on idle CPU workers; a
    kernel that uses these ops must give the same result for any count,
    including 1. Lowered to an argument of the kernel filled from
    `fw_workgroup_t`.

    ```mlir
    %id = fw.workgroup_id : index
    %count = fw.workgroup_count : index
    ```
  }];
  let results = (outs Index:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def FW_WorkgroupCountOp : FW_Op<"workgroup_count", [Pure]> {
  let summary = "How many workgroups run this kernel";
  let description = [{
    The number of workgroups among which a CPU kernel divides its work; see
    `fw.workgroup_id`.
  }];
  let results = (outs Index:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

#endif // FW_DIALECT_FW_IR_FWOPS_TD
