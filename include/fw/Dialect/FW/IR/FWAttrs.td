//===- FWAttrs.td - fw attributes --------------------------*- tablegen -*-===//

#ifndef FW_DIALECT_FW_IR_FWATTRS_TD
#define FW_DIALECT_FW_IR_FWATTRS_TD

include "fw/Dialect/FW/IR/FWBase.td"

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def FW_Tier : I32EnumAttr<"Tier", "memory tier", [
    I32EnumAttrCase<"device", 0>,
    I32EnumAttrCase<"host", 1>,
    I32EnumAttrCase<"storage", 2>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::fw";
}

def FW_TierAttr : EnumAttr<FW_Dialect, FW_Tier, "tier"> {
  let summary = "A memory tier: device memory, host memory or storage";
  let description = [{
    Names a memory tier. Usable as a memref memory space:
    `memref<?x4xf32, #fw.tier<host>>`, and on allocation and prefetch ops.
  }];
  let assemblyFormat = "`<` $value `>`";
}

def FW_Access : I32EnumAttr<"Access", "buffer access mode", [
    I32EnumAttrCase<"read", 1>,
    I32EnumAttrCase<"write", 2>,
    I32EnumAttrCase<"readwrite", 3>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::fw";
}

def FW_AccessAttr : EnumAttr<FW_Dialect, FW_Access, "access"> {
  let summary = "How a dispatch uses a buffer: read, write or read-write";
  let assemblyFormat = "`<` $value `>`";
}

def FW_AccessArrayAttr : TypedArrayAttrBase<FW_AccessAttr,
                                            "array of access modes">;

def FW_DeviceKind : I32EnumAttr<"DeviceKind", "kind of device", [
    I32EnumAttrCase<"any", 0>,
    I32EnumAttrCase<"cpu", 1>,
    I32EnumAttrCase<"gpu", 2>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::fw";
}

def FW_DeviceKindAttr : EnumAttr<FW_Dialect, FW_DeviceKind, "device"> {
  let summary = "A placement hint: any device, a CPU or a GPU";
  let assemblyFormat = "`<` $value `>`";
}

//===----------------------------------------------------------------------===//
// Targets
//===----------------------------------------------------------------------===//

def FW_TargetAttrInterface : AttrInterface<"TargetAttrInterface"> {
  let cppNamespace = "::mlir::fw";
  let description = [{
    A code generation target of an executable variant. Every target names its
    kind, its architecture and its LLVM triple; architecture facts are looked
    up from the target description table by architecture name.
  }];
  let methods = [
    InterfaceMethod<"Returns the target kind: cpu, cuda or hip.",
                    "::llvm::StringRef", "getKindName">,
    InterfaceMethod<"Returns the architecture (x86-64-v3, sm_90, gfx942).",
                    "::llvm::StringRef", "getArchName", (ins), [{}],
                    [{ return $_attr.getArch(); }]>,
    InterfaceMethod<"Returns the LLVM target triple.",
                    "::llvm::StringRef", "getTriple", (ins), [{}],
                    [{ return ::mlir::fw::lookupTarget($_attr.getArch())->triple; }]>,
  ];
}

class FW_TargetAttr<string name, string attrMnemonic>
    : AttrDef<FW_Dialect, name,
              [DeclareAttrInterfaceMethods<FW_TargetAttrInterface>]> {
  let mnemonic = attrMnemonic;
  let parameters = (ins StringRefParameter<"architecture">:$arch);
  let assemblyFormat = "`<` $arch `>`";
  let genVerifyDecl = 1;
}

def FW_CPUTargetAttr : FW_TargetAttr<"CPUTarget", "cpu"> {
  let summary = "An x86-64 CPU target at an ISA level";
  let description = [{
    An x86-64 CPU at one of the psABI micro-architecture levels, so that code
    compiled on one machine runs on any machine of that level:
    `#fw.cpu<"x86-64-v3">` (AVX2, FMA) or `#fw.cpu<"x86-64-v4">` (AVX-512).
  }];
}

def FW_CUDATargetAttr : FW_TargetAttr<"CUDATarget", "cuda"> {
  let summary = "An NVIDIA GPU target, by streaming multiprocessor version";
  let description = [{
    An NVIDIA GPU by SM version: `#fw.cuda<"sm_90">`.
  }];
}

def FW_HIPTargetAttr : FW_TargetAttr<"HIPTarget", "hip"> {
  let summary = "An AMD GPU target, by gfx architecture";
  let description = [{
    An AMD GPU by gfx architecture: `#fw.hip<"gfx942">`.
  }];
}

#endif // FW_DIALECT_FW_IR_FWATTRS_TD
