//===- ValidationDispatch.cpp - a kernel's dispatch, evaluated -----------===//
//
// See ValidationTerms.h (evalDispatch): the dispatch code of a kernel read
// with the rank, rank count and block index known, down to the block
// program it calls, the row it passes and (type-generic kernels) the kind.
//
//===----------------------------------------------------------------------===//

#include "compiler/Conversion/CclToLLVM/ValidationTerms.h"

namespace ccl::validation {

namespace {

/// A value of the dispatch: an integer, a pointer into a table (global)
/// or the context, or one of the kernel's arguments.
struct DVal {
  enum Kind { Int, Table, Ctx, Arg, Unknown } kind = Unknown;
  int64_t v = 0; // Int: the value; Table/Ctx: byte offset; Arg: index
  StringRef global;
};

int64_t truncTo(int64_t v, Type t) {
  unsigned w = t.getIntOrFloatBitWidth();
  if (w >= 64)
    return v;
  uint64_t mask = (uint64_t(1) << w) - 1;
  return int64_t(uint64_t(v) & mask);
}


} // namespace

FailureOr<Dispatched> evalDispatch(LLVM::LLVMFuncOp kernel, int64_t rank,
                                   int64_t nranks, int64_t block,
                                   SymbolTable &symbols, TableLookup table,
                                   std::string &why) {
  llvm::DenseMap<Value, DVal> val;
  Block *entry = &kernel.getBody().front();
  for (auto [i, a] : llvm::enumerate(entry->getArguments())) {
    DVal d;
    if (i == 0)
      d.kind = DVal::Ctx;
    else if (i == 4)
      d = {DVal::Int, block, {}};
    else
      d = {DVal::Arg, int64_t(i), {}};
    val[a] = d;
  }
  auto get = [&](Value v) -> DVal {
    auto it = val.find(v);
    return it == val.end() ? DVal() : it->second;
  };
  auto fail = [&](Operation &op, const std::string &what) {
    why = "kernel '" + kernel.getName().str() + "': " + what + " ('" +
          op.getName().getStringRef().str() + "')";
    return failure();
  };
  Dispatched out;
  bool called = false;
  Block *bb = entry;
  for (int steps = 0; bb && steps < 64; ++steps) {
    Block *next = nullptr;
    for (Operation &op : *bb) {
      if (auto cst = dyn_cast<LLVM::ConstantOp>(op)) {
        auto a = dyn_cast<IntegerAttr>(cst.getValue());
        if (!a)
          return fail(op, "a constant that is not an integer");
        val[cst] = {DVal::Int, a.getValue().getSExtValue(), {}};
      } else if (auto intr = dyn_cast<LLVM::CallIntrinsicOp>(op)) {
        if (intr.getNumOperands() || intr.getNumResults() != 1)
          return fail(op, "an intrinsic other than the block index");
        val[intr.getResult(0)] = {DVal::Int, block, {}};
      } else if (auto addr = dyn_cast<LLVM::AddressOfOp>(op)) {
        val[addr] = {DVal::Table, 0, addr.getGlobalName()};
      } else if (auto gep = dyn_cast<LLVM::GEPOp>(op)) {
        DVal base = get(gep.getBase());
        auto indices = gep.getIndices();
        if ((base.kind != DVal::Table && base.kind != DVal::Ctx) ||
            indices.size() != 1 || !gep.getElemType().isInteger(32))
          return fail(op, "an address other than an i32 table entry");
        int64_t idx;
        if (auto v = dyn_cast<Value>(indices[0])) {
          DVal d = get(v);
          if (d.kind != DVal::Int)
            return fail(op, "an index that is not known");
          idx = d.v;
        } else {
          idx = cast<IntegerAttr>(indices[0]).getInt();
        }
        base.v += 4 * idx;
        val[gep] = base;
      } else if (auto load = dyn_cast<LLVM::LoadOp>(op)) {
        DVal p = get(load.getAddr());
        if (!load.getType().isInteger(32))
          return fail(op, "a load of other than an i32");
        if (p.kind == DVal::Ctx) {
          // The context's first fields: rank, rank count.
          if (p.v != 0 && p.v != 4)
            return fail(op, "a load of a context field other than the rank "
                            "and rank count");
          val[load] = {DVal::Int, p.v == 0 ? rank : nranks, {}};
        } else if (p.kind == DVal::Table) {
          const std::vector<int32_t> *t = table(p.global);
          if (!t)
            return fail(op, "a load from '" + p.global.str() +
                                "', which is not a constant i32 table");
          int64_t at = p.v / 4;
          if (p.v % 4 || at < 0 || at >= int64_t(t->size()))
            return fail(op, "a load outside table '" + p.global.str() + "'");
          val[load] = {DVal::Int, (*t)[at], {}};
        } else {
          return fail(op, "a load from an unknown address");
        }
      } else if (isa<LLVM::AddOp, LLVM::MulOp, LLVM::AndOp, LLVM::SubOp>(op)) {
        DVal a = get(op.getOperand(0)), b = get(op.getOperand(1));
        if (a.kind != DVal::Int || b.kind != DVal::Int)
          return fail(op, "arithmetic on unknown values");
        int64_t r = isa<LLVM::AddOp>(op)   ? a.v + b.v
                    : isa<LLVM::SubOp>(op) ? a.v - b.v
                    : isa<LLVM::MulOp>(op) ? a.v * b.v
                                           : a.v & b.v;
        val[op.getResult(0)] = {DVal::Int, truncTo(r, op.getResult(0).getType()),
                                {}};
      } else if (auto cmp = dyn_cast<LLVM::ICmpOp>(op)) {
        DVal a = get(cmp.getLhs()), b = get(cmp.getRhs());
        if (a.kind != DVal::Int || b.kind != DVal::Int)
          return fail(op, "a comparison of unknown values");
        unsigned w = cmp.getLhs().getType().getIntOrFloatBitWidth();
        APInt x(w, uint64_t(a.v), true), y(w, uint64_t(b.v), true);
        bool r;
        switch (cmp.getPredicate()) {
        case LLVM::ICmpPredicate::eq: r = x.eq(y); break;
        case LLVM::ICmpPredicate::ne: r = x.ne(y); break;
        case LLVM::ICmpPredicate::ult: r = x.ult(y); break;
        case LLVM::ICmpPredicate::ule: r = x.ule(y); break;
        case LLVM::ICmpPredicate::slt: r = x.slt(y); break;
        case LLVM::ICmpPredicate::sle: r = x.sle(y); break;
        default:
          return fail(op, "a comparison it does not read");
        }
        val[cmp] = {DVal::Int, r ? 1 : 0, {}};
      } else if (auto sel = dyn_cast<LLVM::SelectOp>(op)) {
        DVal c = get(sel.getCondition());
        if (c.kind != DVal::Int)
          return fail(op, "a select on an unknown condition");
        val[sel] = get(c.v ? sel.getTrueValue() : sel.getFalseValue());
      } else if (auto call = dyn_cast<LLVM::CallOp>(op)) {
        StringRef callee = call.getCallee().value_or("");
        if (callee == "__ccl_host_set_block" || callee == "__ccl_end")
          continue;
        if (callee == "__ccl_begin") {
          val[call.getResult()] = {DVal::Arg, 4, {}};
          continue;
        }
        auto prog = symbols.lookup<LLVM::LLVMFuncOp>(callee);
        if (!prog || prog.isExternal() || called)
          return fail(op, "a call of '" + callee.str() + "'");
        called = true;
        auto ops = call.getArgOperands();
        size_t n = ops.size();
        // ctx, input, output, count, epoch [, kind], row
        if (n != 6 && n != 7)
          return fail(op, "a block program call of " + std::to_string(n) +
                              " operands");
        DVal ctx = get(ops[0]);
        if (ctx.kind != DVal::Ctx || ctx.v != 0)
          return fail(op, "a block program called without the context");
        for (int i = 1; i < 5; ++i) {
          DVal a = get(ops[i]);
          if (a.kind != DVal::Arg || a.v != i)
            return fail(op, "a block program called with argument " +
                                std::to_string(i) + " not the kernel's");
        }
        if (n == 7) {
          DVal k = get(ops[5]);
          if (k.kind != DVal::Int)
            return fail(op, "a block program called with an unknown kind");
          out.kind = k.v;
        }
        DVal row = get(ops[n - 1]);
        if (row.kind != DVal::Table || row.v % 4)
          return fail(op, "a block program called with an unknown row");
        out.program = prog;
        out.rowTable = row.global;
        out.rowOffset = row.v / 4;
      } else if (auto sw = dyn_cast<LLVM::SwitchOp>(op)) {
        DVal c = get(sw.getValue());
        if (c.kind != DVal::Int)
          return fail(op, "a switch on an unknown value");
        next = sw.getDefaultDestination();
        if (auto values = sw.getCaseValues()) {
          for (auto [i, cv] : llvm::enumerate(values->getValues<APInt>()))
            if (cv.getSExtValue() == c.v) {
              next = sw.getCaseDestinations()[i];
              break;
            }
        }
      } else if (auto br = dyn_cast<LLVM::BrOp>(op)) {
        next = br.getDest();
      } else if (isa<LLVM::ReturnOp>(op)) {
        next = nullptr;
      } else {
        return fail(op, "an operation the dispatch does not hold");
      }
    }
    bb = next;
  }
  if (bb) {
    why = "kernel '" + kernel.getName().str() + "': its dispatch does not end";
    return failure();
  }
  return out;
}

} // namespace ccl::validation
