//===- Metadata.cpp - The .fw.meta table of a fat binary ------------------===//

#include "fw/Target/FatBinary/Metadata.h"

#include "fw/Target/FatBinary/OffloadImages.h"

#include "fw/Conversion/FWHostToRuntime/RuntimeABI.h"
#include "fw/Dialect/FW/IR/FWOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Endian.h"

using namespace mlir;
using namespace mlir::fw;

namespace {

constexpr uint32_t kHeaderSize = 136; // minor 4
constexpr uint32_t kNoImage = 0xFFFFFFFFu;

/// Fixed-size little-endian records, appended to one of the tables.
class Table {
public:
  explicit Table(unsigned recordSize) : recordSize(recordSize) {}
  uint32_t size() const { return bytes.size() / recordSize; }
  /// Starts a new record and returns its index.
  uint32_t begin() { return size(); }
  void u16(uint16_t v) { append(v); }
  void u32(uint32_t v) { append(v); }
  void u64(uint64_t v) { append(v); }
  void i64(int64_t v) { append(v); }
  void string(std::pair<uint32_t, uint32_t> s) {
    u32(s.first);
    u32(s.second);
  }
  const std::string &data() const { return bytes; }

private:
  template <typename T> void append(T v) {
    char buf[sizeof(T)];
    llvm::support::endian::write<T, llvm::endianness::little>(buf, v);
    bytes.append(buf, sizeof(T));
  }
  unsigned recordSize;
  std::string bytes;
};

class MetadataWriter {
public:
  MetadataWriter(ModuleOp module, uint64_t sourceId, const OffloadSection &offload)
      : module(module), sourceId(sourceId), offload(offload) {}

  FailureOr<std::string> write(StringRef moduleName) {
    moduleNameRef = intern(moduleName);
    if (auto abi = module->getAttrOfType<IntegerAttr>(kHostAbiAttrName)) {
      if (abi.getInt() < 1 || abi.getInt() > kRuntimeAbiVersion) {
        module.emitError("'") << kHostAbiAttrName << "' is " << abi.getInt()
                              << "; this compiler writes host-call ABI versions 1 to "
                              << kRuntimeAbiVersion;
        return failure();
      }
      abiVersion = static_cast<uint32_t>(abi.getInt());
    }
    for (TargetAttrInterface target : getModuleTargets(module))
      addTarget(target);
    if (failed(writeFunctions()) || failed(writeExecutables()))
      return failure();
    for (const DeviceImage &image : offload.images) {
      images.u32(addTarget(VariantOp(image.variant).getTargetInterface()));
      images.u32(static_cast<uint32_t>(image.format));
      images.u64(image.offset);
      images.u64(image.size);
    }
    return serialize();
  }

private:
  std::pair<uint32_t, uint32_t> intern(StringRef s) {
    auto it = stringOffsets.find(s);
    if (it != stringOffsets.end())
      return {it->second, static_cast<uint32_t>(s.size())};
    uint32_t offset = pool.size();
    pool.append(s.data(), s.size());
    pool.push_back('\0');
    stringOffsets[s] = offset;
    return {offset, static_cast<uint32_t>(s.size())};
  }

  /// Appends a tensor type to the values table; returns its index.
  FailureOr<uint32_t> addValue(Operation *op, Type type) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor)
      return op->emitOpError("cannot describe type ")
             << type << " in the fat binary; expected a ranked tensor";
    std::optional<uint32_t> code = getElementTypeCode(tensor.getElementType());
    if (!code)
      return op->emitOpError("element type ")
             << tensor.getElementType() << " is not supported (supported: "
             << getSupportedElementTypesString() << ")";
    if (tensor.getRank() > 8)
      return op->emitOpError("rank ") << tensor.getRank() << " exceeds 8";
    uint32_t firstDim = dims.size();
    for (int64_t d : tensor.getShape())
      dims.i64(ShapedType::isDynamic(d) ? -1 : d);
    uint32_t index = values.begin();
    values.u32(*code);
    values.u32(tensor.getRank());
    values.u32(firstDim);
    values.u32(0);
    return index;
  }

  uint32_t addTarget(TargetAttrInterface target) {
    auto it = targetIndex.find(target);
    if (it != targetIndex.end())
      return it->second;
    uint32_t index = targets.begin();
    uint32_t kind = isa<CPUTargetAttr>(target)    ? 1
                    : isa<CUDATargetAttr>(target) ? 2
                                                  : 3;
    targets.u32(kind);
    targets.u32(0);
    targets.string(intern(target.getArchName()));
    targets.string(intern(target.getTriple()));
    targets.string(intern(""));
    targetIndex[target] = index;
    return index;
  }

  LogicalResult writeFunctions() {
    for (Operation &op : *module.getBody()) {
      auto name = op.getAttrOfType<StringAttr>(kEntryNameAttrName);
      auto signature = op.getAttrOfType<TypeAttr>(kSignatureAttrName);
      auto symbol = op.getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName());
      if (!name || !signature || !symbol)
        continue;
      auto type = dyn_cast<FunctionType>(signature.getValue());
      if (!type)
        return op.emitOpError("has a malformed '")
               << kSignatureAttrName << "' attribute";
      // Reserve the values first so the function record can point at them.
      uint32_t firstArg = values.size();
      for (Type t : type.getInputs())
        if (failed(addValue(&op, t)))
          return failure();
      uint32_t firstResult = values.size();
      for (Type t : type.getResults())
        if (failed(addValue(&op, t)))
          return failure();
      functions.string(intern(name.getValue()));
      functions.string(intern(symbol.getValue()));
      functions.u32(firstArg);
      functions.u32(type.getNumInputs());
      functions.u32(firstResult);
      functions.u32(type.getNumResults());
    }
    if (functions.size() == 0)
      return module.emitError("module has no entry points to put in the fat "
                              "binary (public functions lowered by "
                              "convert-fw-host-to-runtime)");
    return success();
  }

  /// Minor 3: the terms of `exe`'s operation count in its bindings' dims.
  LogicalResult writeCostTerms(uint32_t index, ExecutableOp exe) {
    ArrayAttr terms = exe.getFlopsTermsAttr();
    if (!terms)
      return success();
    if (exe.getBindings().size() > UINT16_MAX)
      return exe.emitOpError("has ")
             << exe.getBindings().size()
             << " bindings; 'flops_terms' can name at most " << UINT16_MAX;
    for (Attribute attr : terms) {
      // The verifier checked the shape of each term.
      ArrayRef<int64_t> term = cast<DenseI64ArrayAttr>(attr).asArrayRef();
      uint32_t numFactors = (term.size() - 1) / 2;
      costTerms.u32(index);
      costTerms.u32(numFactors);
      costTerms.u64(static_cast<uint64_t>(term[0]));
      static_assert(kMaxFlopsTermFactors == 8, "fwmd_cost_term_t holds 8 factors");
      for (uint32_t k = 0; k < kMaxFlopsTermFactors; ++k) {
        costTerms.u16(k < numFactors ? term[1 + 2 * k] : 0);
        costTerms.u16(k < numFactors ? term[2 + 2 * k] : 0);
      }
    }
    return success();
  }

  LogicalResult writeExecutables() {
    // In the order the host code numbered them.
    SmallVector<ExecutableOp> exes = llvm::to_vector(module.getOps<ExecutableOp>());
    for (auto [index, exe] : llvm::enumerate(exes)) {
      auto ordinal = exe->getAttrOfType<IntegerAttr>(kOrdinalAttrName);
      if (!ordinal || ordinal.getInt() != static_cast<int64_t>(index))
        return exe.emitOpError("has no '")
               << kOrdinalAttrName << "' matching its position " << index
               << "; executables were reordered after the host lowering";
    }
    for (auto [index, exe] : llvm::enumerate(exes)) {
      if (failed(writeCostTerms(index, exe)))
        return failure();
      // Minor 4: the messages of the checks its kernels make.
      if (ArrayAttr messages = exe.getChecksAttr()) {
        for (StringRef message : messages.getAsValueRange<StringAttr>()) {
          checks.u32(index);
          checks.u32(0);
          checks.string(intern(message));
        }
        if (!messages.empty())
          abiVersion = std::max(abiVersion, kErrorWordAbiVersion);
      }
      uint32_t firstBinding = bindings.size();
      for (auto [type, access] : llvm::zip(exe.getBindings(), exe.getAccess())) {
        FailureOr<uint32_t> value =
            addValue(exe, cast<TypeAttr>(type).getValue());
        if (failed(value))
          return failure();
        bindings.u32(static_cast<uint32_t>(
            cast<AccessAttr>(access).getValue()));
        bindings.u32(*value);
      }
      uint32_t firstVariant = variants.size();
      for (auto variant : exe.getOps<VariantOp>()) {
        TargetAttrInterface target = variant.getTargetInterface();
        std::string config = formatTuningConfig(variant.getTuning());
        if (!config.empty())
          hasConfigs = true;
        configs[variants.size()] = intern(config);
        if (isa<CUDATargetAttr, HIPTargetAttr>(target)) {
          // A kernel in a device image: the cubin (the PTX follows it) or
          // the HSACO.
          auto kernel = variant->getAttrOfType<StringAttr>("fw.kernel");
          auto block = variant->getAttrOfType<IntegerAttr>("fw.block_size");
          ImageFormat binary = isa<CUDATargetAttr>(target) ? ImageFormat::Cubin
                                                           : ImageFormat::HSACO;
          const DeviceImage *cubin = nullptr;
          for (const DeviceImage &image : offload.images)
            if (image.variant == variant && image.format == binary)
              cubin = &image;
          if (!kernel || !block || !cubin)
            return variant.emitOpError("has no compiled kernel (run "
                                       "convert-fw-gpu-variants-to-binary)");
          variants.u32(addTarget(target));
          variants.u32(2); // kernel in a device image
          variants.string(intern(kernel.getValue()));
          variants.u32(static_cast<uint32_t>(cubin - offload.images.data()));
          variants.u32(static_cast<uint32_t>(block.getInt()));
          variants.u32(1);
          variants.u32(1);
          continue;
        }
        if (!isa<CPUTargetAttr>(target))
          return variant.emitOpError("targets ")
                 << target << ", which this compiler cannot emit yet";
        // A kernel whose own buffers come from the runtime calls it through
        // the function table (fw-cpu-kernel-allocator).
        if (ModuleOp inner = variant.getInnerModule();
            inner && inner.lookupSymbol(kRuntimeTableSymbol))
          abiVersion = std::max(abiVersion, kKernelAllocatorAbiVersion);
        variants.u32(addTarget(target));
        variants.u32(1); // CPU symbol in this ELF.
        variants.string(intern(
            getCpuKernelSymbol(exe.getSymName(), variant.getSymName())));
        variants.u32(kNoImage);
        // On the CPU, 0,0,0 marks a kernel that divides its work among any
        // number of workgroups; 1,1,1 one that runs once per task.
        uint32_t shape = variant->hasAttr("fw.workgroups") ? 0 : 1;
        variants.u32(shape);
        variants.u32(shape);
        variants.u32(shape);
      }
      executables.string(intern(exe.getSymName()));
      executables.u32(firstBinding);
      executables.u32(exe.getBindings().size());
      executables.u32(firstVariant);
      executables.u32(variants.size() - firstVariant);
      executables.u64(exe.getFlops().value_or(0));
      executables.u64(exe.getBytes().value_or(0));
      auto priority = exe->getAttrOfType<IntegerAttr>("fw.priority");
      executables.u32(priority ? static_cast<uint32_t>(std::clamp<int64_t>(
                                     priority.getInt(), 0, UINT32_MAX))
                               : 0);
      // Minor 2 flags: bit 0, its CPU variants are candidates to measure.
      executables.u32(exe->hasAttr(kAutotuneAttrName) ? 1 : 0);
    }
    return success();
  }

  std::string serialize() {
    std::string out(kHeaderSize, '\0');
    auto align8 = [&] {
      while (out.size() % 8)
        out.push_back('\0');
    };
    struct Placed {
      uint32_t offset, count;
    };
    auto place = [&](const std::string &data, uint32_t count) -> Placed {
      align8();
      uint32_t offset = out.size();
      out += data;
      return {offset, count};
    };
    Placed pTargets = place(targets.data(), targets.size());
    Placed pFunctions = place(functions.data(), functions.size());
    Placed pValues = place(values.data(), values.size());
    Placed pDims = place(dims.data(), dims.size());
    Placed pExecutables = place(executables.data(), executables.size());
    Placed pBindings = place(bindings.data(), bindings.size());
    Placed pVariants = place(variants.data(), variants.size());
    Placed pImages = place(images.data(), images.size());
    // Minor 2: each variant's knobs, when any variant has some.
    std::string configTable;
    if (hasConfigs) {
      std::pair<uint32_t, uint32_t> none = intern("");
      for (uint32_t v = 0; v < variants.size(); ++v) {
        auto it = configs.find(v);
        std::pair<uint32_t, uint32_t> ref = it == configs.end() ? none : it->second;
        char entry[8];
        llvm::support::endian::write32le(entry, ref.first);
        llvm::support::endian::write32le(entry + 4, ref.second);
        configTable.append(entry, 8);
      }
    }
    Placed pConfigs = place(configTable, hasConfigs ? variants.size() : 0);
    Placed pCostTerms = place(costTerms.data(), costTerms.size()); // minor 3
    Placed pChecks = place(checks.data(), checks.size());          // minor 4
    Placed pStrings = place(pool, pool.size());
    align8();

    auto put32 = [&](size_t at, uint32_t v) {
      llvm::support::endian::write32le(&out[at], v);
    };
    auto put16 = [&](size_t at, uint16_t v) {
      llvm::support::endian::write16le(&out[at], v);
    };
    std::memcpy(&out[0], "FWMD", 4);
    put16(4, kMetadataVersionMajor);
    put16(6, kMetadataVersionMinor);
    put32(8, kHeaderSize);
    put32(12, out.size());
    put32(16, abiVersion);
    put32(20, 0);
    size_t at = 24;
    for (Placed p : {pStrings, pTargets, pFunctions, pValues, pDims,
                     pExecutables, pBindings, pVariants, pImages}) {
      put32(at, p.offset);
      put32(at + 4, p.count);
      at += 8;
    }
    put32(96, moduleNameRef.first);
    put32(100, moduleNameRef.second);
    llvm::support::endian::write64le(&out[104], sourceId); // minor 1
    put32(112, pConfigs.offset);                          // minor 2
    put32(116, pConfigs.count);
    put32(120, pCostTerms.offset);                        // minor 3
    put32(124, pCostTerms.count);
    put32(128, pChecks.offset);                           // minor 4
    put32(132, pChecks.count);
    return out;
  }

  ModuleOp module;
  uint32_t abiVersion = 1; // the host-call ABI the host code needs
  std::string pool;
  llvm::StringMap<uint32_t> stringOffsets;
  std::pair<uint32_t, uint32_t> moduleNameRef;
  uint64_t sourceId;
  llvm::DenseMap<Attribute, uint32_t> targetIndex;
  /// The knobs of CPU variants, by variant index, as strings of the pool.
  llvm::DenseMap<uint32_t, std::pair<uint32_t, uint32_t>> configs;
  bool hasConfigs = false;
  Table targets{32}, functions{32}, values{16}, dims{8}, executables{48},
      bindings{8}, variants{32}, images{24}, costTerms{48}, checks{16};
  const OffloadSection &offload;
};

} // namespace

FailureOr<std::string>
mlir::fw::buildMetadataTable(ModuleOp module, StringRef moduleName,
                             uint64_t sourceId, const OffloadSection &offload) {
  return MetadataWriter(module, sourceId, offload).write(moduleName);
}
