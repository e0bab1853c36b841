//===- OutlineTasks.cpp - Outline fw.task into fw.executable --------------===//
//
// Moves every task body into an executable with one variant per target and
// replaces the task by fw.invoke. The kernel of each variant takes one memref
// per binding (operands, then results) and bridges into tensor land with
// bufferization.to_tensor / bufferization.materialize_in_destination.
//
//===----------------------------------------------------------------------===//

#include "fw/Dialect/FW/Transforms/Passes.h"
#include "fw/Dialect/FW/Transforms/ProfileAttrs.h"

#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/StringExtras.h"

namespace mlir::fw {
#define GEN_PASS_DEF_OUTLINETASKSPASS
#include "fw/Dialect/FW/Transforms/Passes.h.inc"
} // namespace mlir::fw

using namespace mlir;
using namespace mlir::fw;

static MemRefType getBindingMemRefType(Type tensorType) {
  auto tensor = cast<RankedTensorType>(tensorType);
  return MemRefType::get(tensor.getShape(), tensor.getElementType());
}

/// Builds the kernel function of one variant from the task's body.
static void buildKernel(OpBuilder &b, TaskOp task, StringRef name) {
  Location loc = task.getLoc();
  SmallVector<Type> argTypes;
  for (Type t : task.getArgs().getTypes())
    argTypes.push_back(getBindingMemRefType(t));
  for (Type t : task.getResultTypes())
    argTypes.push_back(getBindingMemRefType(t));
  auto func = func::FuncOp::create(b, loc, name,
                                   b.getFunctionType(argTypes, TypeRange{}));
  Block *entry = func.addEntryBlock();
  OpBuilder kb = OpBuilder::atBlockBegin(entry);

  IRMapping mapping;
  Block &body = task.getBody().front();
  for (auto [i, arg] : llvm::enumerate(body.getArguments())) {
    Value tensor = bufferization::ToTensorOp::create(
        kb, loc, arg.getType(), entry->getArgument(i), /*restrict=*/true,
        /*writable=*/false);
    mapping.map(arg, tensor);
  }
  for (Operation &op : body.without_terminator())
    kb.clone(op, mapping);
  auto yield = cast<YieldOp>(body.getTerminator());
  unsigned numArgs = task.getArgs().size();
  for (auto [i, value] : llvm::enumerate(yield.getValues()))
    bufferization::MaterializeInDestinationOp::create(
        kb, loc, TypeRange{}, mapping.lookupOrDefault(value),
        entry->getArgument(numArgs + i), /*restrict=*/true,
        /*writable=*/true);
  func::ReturnOp::create(kb, loc);
}

namespace {

struct OutlineTasksPass
    : public fw::impl::OutlineTasksPassBase<OutlineTasksPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (Attribute list = module->getAttr(kTargetsAttrName)) {
      auto array = dyn_cast<ArrayAttr>(list);
      llvm::SmallDenseSet<Attribute> seen;
      bool valid = array && !array.empty();
      for (Attribute target : array ? array.getValue() : ArrayRef<Attribute>())
        valid &= isa<TargetAttrInterface>(target) && seen.insert(target).second;
      if (!valid) {
        module.emitOpError("'")
            << kTargetsAttrName
            << "' must be a non-empty list of distinct fw target attributes, "
               "got "
            << list;
        return signalPassFailure();
      }
    }
    SmallVector<TargetAttrInterface> targets = getModuleTargets(module);
    SymbolTable symbols(module);
    MLIRContext *ctx = &getContext();

    for (auto func : llvm::to_vector(module.getOps<func::FuncOp>())) {
      unsigned counter = 0;
      SmallVector<TaskOp> tasks;
      func.walk([&](TaskOp task) { tasks.push_back(task); });
      for (TaskOp task : tasks) {
        std::string name =
            (func.getSymName() + "_dispatch_" + Twine(counter++)).str();
        while (symbols.lookup(name))
          name = (func.getSymName() + "_dispatch_" + Twine(counter++)).str();

        SmallVector<Attribute> bindings, access;
        for (Type t : task.getArgs().getTypes()) {
          bindings.push_back(TypeAttr::get(t));
          access.push_back(AccessAttr::get(ctx, Access::read));
        }
        for (Type t : task.getResultTypes()) {
          bindings.push_back(TypeAttr::get(t));
          access.push_back(AccessAttr::get(ctx, Access::write));
        }

        OpBuilder b(func);
        auto exe = ExecutableOp::create(b, task.getLoc(), name,
                                        b.getArrayAttr(bindings),
                                        b.getArrayAttr(access));
        exe.setFlopsAttr(task.getFlopsAttr());
        exe.setFlopsTermsAttr(task.getFlopsTermsAttr());
        exe.setBytesAttr(task.getBytesAttr());
        exe.setHintAttr(task.getHintAttr());
        if (Attribute profile = task->getAttr(kProfileAttrName))
          exe->setAttr(kProfileAttrName, profile);
        symbols.insert(exe);

        for (TargetAttrInterface target : targets) {
          OpBuilder eb = OpBuilder::atBlockEnd(&exe.getBlock());
          auto variant = VariantOp::create(eb, task.getLoc(),
                                           getVariantName(target), target);
          OpBuilder vb = OpBuilder::atBlockEnd(&variant.getBlock());
          auto inner = ModuleOp::create(vb, task.getLoc());
          OpBuilder mb = OpBuilder::atBlockEnd(inner.getBody());
          buildKernel(mb, task, name);
        }

        OpBuilder hb(task);
        auto invoke = InvokeOp::create(hb, task.getLoc(),
                                       task.getResultTypes(), name,
                                       task.getArgs(), task.getResultDims());
        task.replaceAllUsesWith(invoke.getResults());
        task.erase();
      }
    }
  }
};

} // namespace
