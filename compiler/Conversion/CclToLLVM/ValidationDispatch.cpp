//===- ValidationDispatch.cpp - a kernel's dispatch, evaluated -----------===//
//
// See ValidationTerms.h (evalDispatch): the dispatch code of a kernel read
// with the rank, rank count and block index known, down to the block
// program it calls, the row it passes and (type-generic kernels) the kind.
//
//===----------------------------------------------------------------------===//

#include "compiler/Conversion/CclToLLVM/ValidationTerms.h"

namespace ccl::validation {

/// A value of the dispatch: an integer, a pointer into a table (global)
/// or the context, or one of the kernel's arguments.
struct DispatchEvaluator::DVal {
  enum Kind { Int, Table, Ctx, Arg, Unknown } kind = Unknown;
  int64_t v = 0; // Int: the value; Table/Ctx: byte offset; Arg: index
  StringRef global;
};

namespace {

int64_t truncTo(int64_t v, unsigned w) {
  if (w >= 64)
    return v;
  uint64_t mask = (uint64_t(1) << w) - 1;
  return int64_t(uint64_t(v) & mask);
}

/// The `w`-bit integer `v` (its upper bits clear) sign-extended.
int64_t signExtend(uint64_t v, unsigned w) {
  if (w >= 64 || w == 0)
    return int64_t(v);
  unsigned shift = 64 - w;
  return int64_t(v << shift) >> shift;
}

} // namespace

/// One operation of a kernel's dispatch, its operands and result numbered.
struct DispatchEvaluator::Step {
  enum Op : uint8_t {
    Const, BlockIndex, Address, Gep, Load, Add, Mul, And, Sub, Cmp, Select,
    Begin, Skip, Call, Switch, Branch, Return, Fail
  } op;
  /// Result and operand slots (-1: none).
  int32_t out = -1, a = -1, b = -1, c = -1;
  /// Const: the value; Gep: the constant index, or kDynamicIndex (then
  /// `b` is the index); Cmp: the predicate; Branch: the destination.
  int64_t imm = 0;
  /// The result's width (Add..Sub truncate to it), or the compared width.
  unsigned width = 64;
  Operation *source = nullptr;
  /// Address: the global (the attribute's storage).
  StringRef global;
  /// Load: the table it read last, by its global's name (the lookup by
  /// name was a tenth of a block's evaluation).
  mutable StringRef lastGlobal;
  mutable const std::vector<int32_t> *lastTable = nullptr;
  /// Call: the callee; Fail: the message.
  std::string text;
  /// Call: the program and its argument slots; Switch: the cases and the
  /// destination of each, then the default's.
  LLVM::LLVMFuncOp program;
  SmallVector<int32_t, 8> args;
  SmallVector<int64_t, 4> cases;
  SmallVector<int32_t, 5> dests;
};

struct DispatchEvaluator::Code {
  std::vector<std::vector<Step>> blocks;
  unsigned slots = 0;
};

DispatchEvaluator::DispatchEvaluator(SymbolTable &symbols, TableLookup table)
    : symbols(symbols), table(std::move(table)) {}
DispatchEvaluator::~DispatchEvaluator() = default;

/// Numbers `kernel`'s values and blocks and reads each operation into a
/// step. An operation the dispatch does not read becomes a Fail step with
/// the message, reported only where a block reaches it.
const DispatchEvaluator::Code &
DispatchEvaluator::compile(LLVM::LLVMFuncOp kernel) {
  std::unique_ptr<Code> &slot = codes[kernel.getOperation()];
  if (slot)
    return *slot;
  slot = std::make_unique<Code>();
  Code &code = *slot;
  llvm::DenseMap<Value, int32_t> number;
  llvm::DenseMap<Block *, int32_t> blockIndex;
  for (Block &bb : kernel.getBody()) {
    blockIndex[&bb] = int32_t(blockIndex.size());
    for (Value a : bb.getArguments())
      number[a] = int32_t(code.slots++);
    for (Operation &op : bb)
      for (Value r : op.getResults())
        number[r] = int32_t(code.slots++);
  }
  auto num = [&](Value v) -> int32_t {
    auto it = number.find(v);
    return it == number.end() ? -1 : it->second;
  };
  for (Block &bb : kernel.getBody()) {
    std::vector<Step> &steps = code.blocks.emplace_back();
    for (Operation &op : bb) {
      Step &st = steps.emplace_back();
      st.source = &op;
      if (op.getNumResults() == 1)
        st.out = num(op.getResult(0));
      auto fail = [&](const std::string &what) {
        st.op = Step::Fail;
        st.text = what;
      };
      if (auto cst = dyn_cast<LLVM::ConstantOp>(op)) {
        auto a = dyn_cast<IntegerAttr>(cst.getValue());
        if (!a) {
          fail("a constant that is not an integer");
          continue;
        }
        st.op = Step::Const;
        st.imm = a.getValue().getSExtValue();
      } else if (auto intr = dyn_cast<LLVM::CallIntrinsicOp>(op)) {
        if (intr.getNumOperands() || intr.getNumResults() != 1)
          fail("an intrinsic other than the block index");
        else
          st.op = Step::BlockIndex;
      } else if (auto addr = dyn_cast<LLVM::AddressOfOp>(op)) {
        st.op = Step::Address;
        st.global = addr.getGlobalName();
      } else if (auto gep = dyn_cast<LLVM::GEPOp>(op)) {
        // The raw indices: getIndices would make an attribute of each
        // constant one.
        ArrayRef<int32_t> raw = gep.getRawConstantIndices();
        st.op = Step::Gep;
        st.a = num(gep.getBase());
        if (raw.size() != 1 || !gep.getElemType().isInteger(32)) {
          fail("an address other than an i32 table entry");
          continue;
        }
        st.imm = raw[0];
        if (raw[0] == LLVM::GEPOp::kDynamicIndex)
          st.b = num(gep.getDynamicIndices()[0]);
      } else if (auto load = dyn_cast<LLVM::LoadOp>(op)) {
        if (!load.getType().isInteger(32)) {
          fail("a load of other than an i32");
          continue;
        }
        st.op = Step::Load;
        st.a = num(load.getAddr());
      } else if (isa<LLVM::AddOp, LLVM::MulOp, LLVM::AndOp, LLVM::SubOp>(op)) {
        st.op = isa<LLVM::AddOp>(op)   ? Step::Add
                : isa<LLVM::SubOp>(op) ? Step::Sub
                : isa<LLVM::MulOp>(op) ? Step::Mul
                                       : Step::And;
        st.a = num(op.getOperand(0));
        st.b = num(op.getOperand(1));
        st.width = op.getResult(0).getType().getIntOrFloatBitWidth();
      } else if (auto cmp = dyn_cast<LLVM::ICmpOp>(op)) {
        // A predicate it does not read is reported once its operands are
        // known (Step::Cmp in eval).
        st.op = Step::Cmp;
        st.imm = int64_t(cmp.getPredicate());
        st.a = num(cmp.getLhs());
        st.b = num(cmp.getRhs());
        st.width = cmp.getLhs().getType().getIntOrFloatBitWidth();
      } else if (auto sel = dyn_cast<LLVM::SelectOp>(op)) {
        st.op = Step::Select;
        st.a = num(sel.getCondition());
        st.b = num(sel.getTrueValue());
        st.c = num(sel.getFalseValue());
      } else if (auto call = dyn_cast<LLVM::CallOp>(op)) {
        FlatSymbolRefAttr callee = call.getCalleeAttr();
        StringRef name = callee ? callee.getValue() : "";
        if (name == "__ccl_host_set_block" || name == "__ccl_end") {
          st.op = Step::Skip;
          continue;
        }
        if (name == "__ccl_begin") {
          st.op = Step::Begin;
          continue;
        }
        auto prog = callee ? symbols.lookup<LLVM::LLVMFuncOp>(callee.getAttr())
                           : LLVM::LLVMFuncOp();
        if (!prog || prog.isExternal()) {
          fail("a call of '" + name.str() + "'");
          continue;
        }
        st.op = Step::Call;
        st.program = prog;
        st.text = name.str();
        for (Value v : call.getArgOperands())
          st.args.push_back(num(v));
      } else if (auto sw = dyn_cast<LLVM::SwitchOp>(op)) {
        st.op = Step::Switch;
        st.a = num(sw.getValue());
        if (auto values = sw.getCaseValues())
          for (auto [i, cv] : llvm::enumerate(values->getValues<APInt>())) {
            st.cases.push_back(cv.getSExtValue());
            st.dests.push_back(blockIndex.lookup(sw.getCaseDestinations()[i]));
          }
        st.dests.push_back(blockIndex.lookup(sw.getDefaultDestination()));
      } else if (auto br = dyn_cast<LLVM::BrOp>(op)) {
        st.op = Step::Branch;
        st.imm = blockIndex.lookup(br.getDest());
      } else if (isa<LLVM::ReturnOp>(op)) {
        st.op = Step::Return;
      } else {
        fail("an operation the dispatch does not hold");
      }
    }
  }
  return code;
}

FailureOr<Dispatched> DispatchEvaluator::eval(LLVM::LLVMFuncOp kernel,
                                              int64_t rank, int64_t nranks,
                                              int64_t block,
                                              std::string &why) {
  const Code &code = compile(kernel);
  std::vector<DVal> &val = values;
  val.assign(code.slots, DVal());
  Block *entry = &kernel.getBody().front();
  for (auto [i, a] : llvm::enumerate(entry->getArguments())) {
    DVal d;
    if (i == 0)
      d.kind = DVal::Ctx;
    else if (i == 4)
      d = {DVal::Int, block, {}};
    else
      d = {DVal::Arg, int64_t(i), {}};
    val[i] = d; // the entry block's arguments are numbered first
  }
  auto get = [&](int32_t slot) -> DVal {
    return slot < 0 ? DVal() : val[slot];
  };
  auto fail = [&](const Step &st, const std::string &what) {
    why = "kernel '" + kernel.getName().str() + "': " + what + " ('" +
          st.source->getName().getStringRef().str() + "')";
    return failure();
  };
  Dispatched out;
  bool called = false;
  int32_t bb = 0;
  for (int steps = 0; bb >= 0 && steps < 64; ++steps) {
    int32_t next = -1;
    for (const Step &st : code.blocks[bb]) {
      switch (st.op) {
      case Step::Fail:
        return fail(st, st.text);
      case Step::Const:
        val[st.out] = {DVal::Int, st.imm, {}};
        break;
      case Step::BlockIndex:
        val[st.out] = {DVal::Int, block, {}};
        break;
      case Step::Address:
        val[st.out] = {DVal::Table, 0, st.global};
        break;
      case Step::Gep: {
        DVal base = get(st.a);
        if (base.kind != DVal::Table && base.kind != DVal::Ctx)
          return fail(st, "an address other than an i32 table entry");
        int64_t idx = st.imm;
        if (st.imm == LLVM::GEPOp::kDynamicIndex) {
          DVal d = get(st.b);
          if (d.kind != DVal::Int)
            return fail(st, "an index that is not known");
          idx = d.v;
        }
        base.v += 4 * idx;
        val[st.out] = base;
        break;
      }
      case Step::Load: {
        DVal p = get(st.a);
        if (p.kind == DVal::Ctx) {
          // The context's first fields: rank, rank count.
          if (p.v != 0 && p.v != 4)
            return fail(st, "a load of a context field other than the rank "
                            "and rank count");
          val[st.out] = {DVal::Int, p.v == 0 ? rank : nranks, {}};
        } else if (p.kind == DVal::Table) {
          const std::vector<int32_t> *t = st.lastTable;
          if (!t || st.lastGlobal.data() != p.global.data() ||
              st.lastGlobal.size() != p.global.size()) {
            t = table(p.global);
            st.lastGlobal = p.global;
            st.lastTable = t;
          }
          if (!t)
            return fail(st, "a load from '" + p.global.str() +
                                "', which is not a constant i32 table");
          int64_t at = p.v / 4;
          if (p.v % 4 || at < 0 || at >= int64_t(t->size()))
            return fail(st, "a load outside table '" + p.global.str() + "'");
          val[st.out] = {DVal::Int, (*t)[at], {}};
        } else {
          return fail(st, "a load from an unknown address");
        }
        break;
      }
      case Step::Add: case Step::Mul: case Step::And: case Step::Sub: {
        DVal a = get(st.a), b = get(st.b);
        if (a.kind != DVal::Int || b.kind != DVal::Int)
          return fail(st, "arithmetic on unknown values");
        int64_t r = st.op == Step::Add   ? a.v + b.v
                    : st.op == Step::Sub ? a.v - b.v
                    : st.op == Step::Mul ? a.v * b.v
                                         : a.v & b.v;
        val[st.out] = {DVal::Int, truncTo(r, st.width), {}};
        break;
      }
      case Step::Cmp: {
        DVal a = get(st.a), b = get(st.b);
        if (a.kind != DVal::Int || b.kind != DVal::Int)
          return fail(st, "a comparison of unknown values");
        // The operands as `width`-bit integers, unsigned and signed.
        uint64_t ux = uint64_t(truncTo(a.v, st.width)),
                 uy = uint64_t(truncTo(b.v, st.width));
        int64_t sx = signExtend(ux, st.width), sy = signExtend(uy, st.width);
        bool r;
        switch (LLVM::ICmpPredicate(st.imm)) {
        case LLVM::ICmpPredicate::eq: r = ux == uy; break;
        case LLVM::ICmpPredicate::ne: r = ux != uy; break;
        case LLVM::ICmpPredicate::ult: r = ux < uy; break;
        case LLVM::ICmpPredicate::ule: r = ux <= uy; break;
        case LLVM::ICmpPredicate::slt: r = sx < sy; break;
        case LLVM::ICmpPredicate::sle: r = sx <= sy; break;
        default:
          return fail(st, "a comparison it does not read");
        }
        val[st.out] = {DVal::Int, r ? 1 : 0, {}};
        break;
      }
      case Step::Select: {
        DVal c = get(st.a);
        if (c.kind != DVal::Int)
          return fail(st, "a select on an unknown condition");
        val[st.out] = get(c.v ? st.b : st.c);
        break;
      }
      case Step::Skip:
        break;
      case Step::Begin:
        val[st.out] = {DVal::Arg, 4, {}};
        break;
      case Step::Call: {
        if (called)
          return fail(st, "a call of '" + st.text + "'");
        called = true;
        size_t n = st.args.size();
        // ctx, input, output, count, epoch [, kind], row
        if (n != 6 && n != 7)
          return fail(st, "a block program call of " + std::to_string(n) +
                              " operands");
        DVal ctx = get(st.args[0]);
        if (ctx.kind != DVal::Ctx || ctx.v != 0)
          return fail(st, "a block program called without the context");
        for (int i = 1; i < 5; ++i) {
          DVal a = get(st.args[i]);
          if (a.kind != DVal::Arg || a.v != i)
            return fail(st, "a block program called with argument " +
                                std::to_string(i) + " not the kernel's");
        }
        if (n == 7) {
          DVal k = get(st.args[5]);
          if (k.kind != DVal::Int)
            return fail(st, "a block program called with an unknown kind");
          out.kind = k.v;
        }
        DVal row = get(st.args[n - 1]);
        if (row.kind != DVal::Table || row.v % 4)
          return fail(st, "a block program called with an unknown row");
        out.program = st.program;
        out.rowTable = row.global;
        out.rowOffset = row.v / 4;
        break;
      }
      case Step::Switch: {
        DVal c = get(st.a);
        if (c.kind != DVal::Int)
          return fail(st, "a switch on an unknown value");
        next = st.dests.back();
        for (auto [i, cv] : llvm::enumerate(st.cases))
          if (cv == c.v) {
            next = st.dests[i];
            break;
          }
        break;
      }
      case Step::Branch:
        next = int32_t(st.imm);
        break;
      case Step::Return:
        next = -1;
        break;
      }
    }
    bb = next;
  }
  if (bb >= 0) {
    why = "kernel '" + kernel.getName().str() + "': its dispatch does not end";
    return failure();
  }
  return out;
}

} // namespace ccl::validation
