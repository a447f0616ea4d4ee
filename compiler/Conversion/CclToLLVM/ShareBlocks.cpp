//===- ShareBlocks.cpp - one code path per block shape --------------------===//
//
// After the patterns have lowered every thread block of a kernel into its
// own function, blocks whose functions are the same up to integer constants
// (the copies that instances, tiles and the ranks of a symmetric algorithm
// make of one block program) share one function. The constants that differ
// between them (chunk and slot indices, peer ranks, channel, semaphore and
// barrier indices, op ids, wait ordinals) become loads from a row of a
// read-only table; constants all members agree on stay immediates, so the
// specialisation that matters for speed (element type, operator, protocol,
// the order of the block's operations) is kept. The kernel finds its block's
// program and row in two more tables: the generated code branches on the
// program, never on the instance, tile or rank.
//
// The merging starts as each kernel's blocks are lowered (BlockSharing::
// add): a block whose shape an earlier block has keeps only its constants,
// and its function is erased at once, so that the module holds one function
// per shape rather than one per block (the LL all-pairs at 2..64 ranks has
// 2k blocks of up to 64 steps: 1.4 GB of LLVM dialect when every block
// function lived until the end).
//
//===----------------------------------------------------------------------===//

#include "compiler/Conversion/CclToLLVM.h"
#include "compiler/Conversion/CclToLLVM/KernelBuilder.h"
#include "compiler/Conversion/CclToLLVM/Lowering.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/DenseMap.h"

#include <cassert>
#include <map>
#include <tuple>

using namespace mlir;
using namespace ccl;

namespace {

/// A block function read as a sequence: the shape (everything but the
/// values of integer constants, operands as value numbers) and the
/// constants' values in order.
struct Flattened {
  std::vector<uintptr_t> shape;
  std::vector<int64_t> values;
  /// The integer constants, in the same order.
  SmallVector<LLVM::ConstantOp> constants;
  bool shareable = true;
};

uintptr_t ptrOf(const void *p) { return reinterpret_cast<uintptr_t>(p); }

bool fitsI32(int64_t v) { return v >= INT32_MIN && v <= INT32_MAX; }

/// The most of a module's 64 KiB of constant space its tables take (the
/// device library has no constants of its own; 4 KiB stay free).
constexpr uint64_t kConstantTableBytes = 60 * 1024;

/// A per-rank kernel with at most this many blocks branches on its block
/// directly rather than on the program it reads from a table.
constexpr int64_t kDirectEntries = 4096;

/// A kernel serving at most this many rank counts finds its rank count's
/// entries with selects rather than two more table loads.
constexpr size_t kSelectVariants = 16;

Flattened flatten(LLVM::LLVMFuncOp func) {
  Flattened f;
  if (!llvm::hasSingleElement(func.getBody())) {
    f.shareable = false;
    return f;
  }
  Block &entry = func.getBody().front();
  llvm::DenseMap<Value, uintptr_t> number;
  for (BlockArgument a : entry.getArguments())
    number[a] = number.size();
  for (Operation &op : entry) {
    auto cst = dyn_cast<LLVM::ConstantOp>(op);
    auto intAttr = cst ? dyn_cast<IntegerAttr>(cst.getValue()) : IntegerAttr();
    if (intAttr && intAttr.getType().getIntOrFloatBitWidth() <= 64 &&
        intAttr.getType().getIntOrFloatBitWidth() > 1) {
      f.shape.push_back(1);
      f.shape.push_back(ptrOf(cst.getType().getAsOpaquePointer()));
      f.values.push_back(intAttr.getValue().getSExtValue());
      f.constants.push_back(cst);
    } else {
      if (op.getNumRegions() || op.getNumSuccessors()) {
        f.shareable = false;
        return f;
      }
      f.shape.push_back(ptrOf(op.getName().getAsOpaquePointer()));
      f.shape.push_back(ptrOf(op.getPropertiesAsAttribute().getAsOpaquePointer()));
      f.shape.push_back(ptrOf(op.getDiscardableAttrDictionary().getAsOpaquePointer()));
      f.shape.push_back(op.getNumOperands());
      for (Value v : op.getOperands()) {
        auto it = number.find(v);
        f.shape.push_back(it == number.end() ? ~uintptr_t(0) : it->second);
      }
      f.shape.push_back(op.getNumResults());
      for (Type t : op.getResultTypes())
        f.shape.push_back(ptrOf(t.getAsOpaquePointer()));
    }
    for (Value r : op.getResults())
      number[r] = number.size();
  }
  return f;
}

/// An internal constant i32 table; identical tables are emitted once.
class Tables {
public:
  Tables(OpBuilder &b, ModuleOp module, unsigned addrSpace)
      : b(b), module(module), addrSpace(addrSpace) {}

  /// The address of a table holding `values`.
  Value address(OpBuilder &at, Location loc, StringRef name,
                ArrayRef<int32_t> values) {
    std::vector<int32_t> key(values.begin(), values.end());
    if (key.empty())
      key.push_back(0);
    auto it = emitted.find(key);
    if (it == emitted.end()) {
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(module.getBody());
      auto ty = LLVM::LLVMArrayType::get(b.getI32Type(), key.size());
      auto data = DenseElementsAttr::get(
          RankedTensorType::get({int64_t(key.size())}, b.getI32Type()),
          ArrayRef<int32_t>(key));
      LLVM::GlobalOp::create(b, loc, ty, /*isConstant=*/true,
                             LLVM::Linkage::Internal, name, data,
                             /*alignment=*/4, addrSpace);
      it = emitted.emplace(std::move(key), name.str()).first;
    }
    return LLVM::AddressOfOp::create(
        at, loc, LLVM::LLVMPointerType::get(at.getContext(), addrSpace),
        it->second);
  }

private:
  OpBuilder &b;
  ModuleOp module;
  unsigned addrSpace;
  std::map<std::vector<int32_t>, std::string> emitted;
};

/// Loads element `index` (an i32 value) of the i32 table at `base`.
Value loadEntry(OpBuilder &b, Location loc, Value base, Value index) {
  auto ptrTy = cast<LLVM::LLVMPointerType>(base.getType());
  Value p = LLVM::GEPOp::create(b, loc, ptrTy, b.getI32Type(), base,
                                ArrayRef<LLVM::GEPArg>{index});
  return LLVM::LoadOp::create(b, loc, b.getI32Type(), p, /*alignment=*/4,
                              /*isVolatile=*/false, /*isNonTemporal=*/false,
                              /*isInvariant=*/true);
}

/// Turns the block function of `rep` into the program of its group:
/// appends the row pointer argument and replaces the varying constants by
/// loads from the row.
LLVM::LLVMFuncOp makeProgram(OpBuilder &b, LLVM::LLVMFuncOp rep,
                             const Flattened &flat, ArrayRef<size_t> varying,
                             StringRef name, unsigned addrSpace) {
  MLIRContext *ctx = b.getContext();
  auto rowTy = LLVM::LLVMPointerType::get(ctx, addrSpace);
  auto oldTy = rep.getFunctionType();
  SmallVector<Type> params(oldTy.getParams());
  params.push_back(rowTy);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPoint(rep);
  auto prog = LLVM::LLVMFuncOp::create(
      b, rep.getLoc(), name,
      LLVM::LLVMFunctionType::get(oldTy.getReturnType(), params),
      LLVM::Linkage::Internal);
  prog.getBody().takeBody(rep.getBody());
  Block &entry = prog.getBody().front();
  Value row = entry.addArgument(rowTy, rep.getLoc());
  for (auto [slot, pos] : llvm::enumerate(varying)) {
    LLVM::ConstantOp cst = flat.constants[pos];
    b.setInsertionPoint(cst);
    Location loc = cst.getLoc();
    Value v = loadEntry(b, loc, row, i32(b, loc, int64_t(slot)));
    if (cst.getType() != b.getI32Type())
      v = LLVM::SExtOp::create(b, loc, cst.getType(), v);
    cst.replaceAllUsesWith(v);
    cst.erase();
  }
  return prog;
}

/// A block of one of the kernels: (kernel, index in its blocks).
using Member = std::pair<size_t, size_t>;

/// Blocks of one shape, from any kernel of the module, and the constants
/// that differ between them; `shape` indexes BlockSharing's shapes, whose
/// function the group's program is made from.
struct Group {
  SmallVector<Member> members;
  SmallVector<size_t> varying; // positions in the members' values
  size_t shape = 0;
  LLVM::LLVMFuncOp program;
};

} // namespace

/// The shapes seen so far, each with the function of its first block and
/// its members, and every block's constants.
struct BlockSharing::Impl {
  ArrayRef<KernelSkeleton> skeletons;
  struct Shape {
    LLVM::LLVMFuncOp func; // null once its body became a program
    SmallVector<Member> members;
    bool shareable = true;
  };
  std::vector<Shape> shapes;
  std::map<std::vector<uintptr_t>, size_t> byShape;
  /// Per kernel and block: its constants' values (none for a block that
  /// is not shareable).
  SmallVector<SmallVector<std::vector<int64_t>>> values;

  int64_t valueOf(Member m, size_t pos) const {
    return values[m.first][m.second][pos];
  }
  SmallVector<Group> groups() const;
};

namespace {
/// Base entry and block count of the variant for the communicator's rank
/// count (ctx->nranks) in a kernel serving several: selects for a few rank
/// counts (no memory access on the way to the block's entry: each
/// dependent load there is latency every call pays), two small tables
/// beyond. An unknown rank count gets block count 0.
std::pair<Value, Value> variantOf(OpBuilder &b, Location loc, Value kctx,
                                  const KernelSkeleton &skel, Tables &tables) {
  auto ptrTy = LLVM::LLVMPointerType::get(b.getContext());
  Value nranksPtr = LLVM::GEPOp::create(b, loc, ptrTy, b.getI32Type(), kctx,
                                        ArrayRef<LLVM::GEPArg>{1});
  Value nranks =
      LLVM::LoadOp::create(b, loc, b.getI32Type(), nranksPtr, /*alignment=*/4);
  if (skel.variants.size() <= kSelectVariants) {
    Value base = i32(b, loc, 0), nblocks = i32(b, loc, 0);
    for (const KernelSkeleton::Variant &v : skel.variants) {
      Value is = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, nranks,
                                      i32(b, loc, v.nranks));
      base = LLVM::SelectOp::create(b, loc, is, i32(b, loc, v.base), base);
      nblocks =
          LLVM::SelectOp::create(b, loc, is, i32(b, loc, v.nblocks), nblocks);
    }
    return {base, nblocks};
  }
  int64_t most = 0;
  for (const KernelSkeleton::Variant &v : skel.variants)
    most = std::max(most, v.nranks);
  std::vector<int32_t> baseOf(most + 1, 0), blocksOf(most + 1, 0);
  for (const KernelSkeleton::Variant &v : skel.variants) {
    baseOf[v.nranks] = static_cast<int32_t>(v.base);
    blocksOf[v.nranks] = static_cast<int32_t>(v.nblocks);
  }
  // nranks beyond the table reads entry 0, whose block count is 0.
  Value known = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ule, nranks,
                                     i32(b, loc, most));
  Value n = LLVM::SelectOp::create(b, loc, known, nranks, i32(b, loc, 0));
  return {loadEntry(b, loc,
                    tables.address(b, loc, skel.name + "__bases", baseOf), n),
          loadEntry(b, loc,
                    tables.address(b, loc, skel.name + "__nblocks", blocksOf),
                    n)};
}

/// The kernel `name` of `skel`: finds its block's program and table row
/// and calls the program (a type-generic skeleton's with `kind`).
/// `programOf`/`offsetOf` are indexed like the skeleton's blocks, `rows`
/// holds the rows.
void buildKernel(OpBuilder &b, const TargetInfo &target,
                 const KernelSkeleton &skel, StringRef name,
                 std::optional<int32_t> kind,
                 ArrayRef<LLVM::LLVMFuncOp> programs,
                 ArrayRef<int32_t> programOf, ArrayRef<int32_t> offsetOf,
                 ArrayRef<int32_t> rows, Tables &tables) {
  MLIRContext *ctx = b.getContext();
  Location loc = skel.loc;
  int64_t entries = static_cast<int64_t>(programOf.size());
  auto ptrTy = LLVM::LLVMPointerType::get(ctx);
  auto voidTy = LLVM::LLVMVoidType::get(ctx);
  SmallVector<Type> args{ptrTy, ptrTy, ptrTy, b.getI64Type()};
  if (target.blockIdIsParameter())
    args.push_back(b.getI32Type());
  auto func = LLVM::LLVMFuncOp::create(
      b, loc, name, LLVM::LLVMFunctionType::get(voidTy, args));
  target.markKernel(func);
  if (skel.packets) {
    SmallVector<Attribute> pass;
    if (ArrayAttr a = func.getPassthroughAttr())
      pass.append(a.begin(), a.end());
    pass.push_back(b.getStringAttr(kInlineAllAttr));
    func.setPassthroughAttr(b.getArrayAttr(pass));
  }
  OpBuilder::InsertionGuard g(b);
  Block *entry = func.addEntryBlock(b);
  Block *exit = new Block();
  func.getBody().push_back(exit);
  b.setInsertionPointToStart(entry);
  Value kctx = entry->getArgument(0);
  Value block = target.blockIdIsParameter() ? entry->getArgument(4)
                                            : target.emitBlockId(b, loc);
  // The host has no block-index register; spin-wait error records (and the
  // start delay of __ccl_begin) read the index the kernel was called with.
  if (target.blockIdIsParameter())
    callLib(b, loc, func, "__ccl_host_set_block", voidTy, {block});
  // The block's entry (its table loads go before __ccl_begin, whose own
  // loads and atomics they then overlap): per-rank kernels index by block;
  // others by base + rank * nblocks + block, with the base and block count
  // of the communicator's rank count (entries outside the kernel's variants
  // go nowhere).
  Value sel = block, nblocks;
  if (skel.rank) {
    nblocks = i32(b, loc, skel.variants.front().nblocks);
  } else {
    Value rank = LLVM::LoadOp::create(b, loc, b.getI32Type(), kctx,
                                      /*alignment=*/4);
    Value base;
    if (skel.variants.size() > 1) {
      std::tie(base, nblocks) = variantOf(b, loc, kctx, skel, tables);
    } else {
      base = i32(b, loc, 0);
      nblocks = i32(b, loc, skel.variants.front().nblocks);
    }
    sel = LLVM::AddOp::create(
        b, loc, base,
        LLVM::AddOp::create(b, loc, LLVM::MulOp::create(b, loc, rank, nblocks),
                            block));
  }
  Value valid =
      LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ult, block, nblocks);
  Value inRange = LLVM::AndOp::create(
      b, loc, valid,
      LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ult, sel,
                           i32(b, loc, entries)));
  // Outside the kernel's blocks: entry 0 is read, nothing runs.
  Value at = LLVM::SelectOp::create(b, loc, inRange, sel, i32(b, loc, 0));
  // A per-rank kernel (sel is the block index, known without a load)
  // branches on its block itself, every block of a program to the same case,
  // as a kernel of per-block code would: no load before the branch. A kernel
  // for all ranks branches on the program it reads from the programs table
  // (measured on one H100, branching on its entry directly was slower).
  bool direct = skel.rank && entries <= kDirectEntries;
  Value prog;
  if (direct)
    prog = LLVM::SelectOp::create(b, loc, inRange, sel, i32(b, loc, -1));
  else {
    // One operation per statement: the order of a call's arguments is the
    // host compiler's choice, and the output must not depend on it.
    Value none = i32(b, loc, -1);
    Value programAt = loadEntry(
        b, loc, tables.address(b, loc, skel.name + "__programs", programOf),
        at);
    prog = LLVM::SelectOp::create(b, loc, inRange, programAt, none);
  }
  Value offset = loadEntry(
      b, loc, tables.address(b, loc, skel.name + "__offsets", offsetOf), at);
  Value paramTable = tables.address(b, loc, skel.name + "__params", rows);
  Value row = LLVM::GEPOp::create(b, loc, paramTable.getType(), b.getI32Type(),
                                  paramTable, ArrayRef<LLVM::GEPArg>{offset});
  Value epoch = callLib(b, loc, func, "__ccl_begin", b.getI32Type(), {kctx});
  SmallVector<int32_t> caseValues;
  SmallVector<Block *> caseBlocks;
  SmallVector<Block *> blockOf(programs.size(), nullptr);
  for (auto [g, p] : llvm::enumerate(programs)) {
    if (!p)
      continue;
    Block *bb = new Block();
    func.getBody().getBlocks().insert(Region::iterator(exit), bb);
    OpBuilder cb = OpBuilder::atBlockEnd(bb);
    SmallVector<Value> operands{kctx, entry->getArgument(1),
                                entry->getArgument(2), entry->getArgument(3),
                                epoch};
    if (kind)
      operands.push_back(i32(cb, loc, *kind));
    operands.push_back(row);
    LLVM::CallOp::create(cb, loc, p, operands);
    LLVM::BrOp::create(cb, loc, exit);
    blockOf[g] = bb;
    if (!direct) {
      caseValues.push_back(static_cast<int32_t>(g));
      caseBlocks.push_back(bb);
    }
  }
  if (direct)
    for (auto [e, g] : llvm::enumerate(programOf))
      if (g >= 0) {
        caseValues.push_back(static_cast<int32_t>(e));
        caseBlocks.push_back(blockOf[g]);
      }
  SmallVector<ValueRange> caseOperands(caseBlocks.size(), ValueRange{});
  LLVM::SwitchOp::create(b, loc, prog, exit, ValueRange{}, caseValues,
                         caseBlocks, caseOperands);

  b.setInsertionPointToStart(exit);
  callLib(b, loc, func, "__ccl_end", voidTy, {kctx, epoch});
  LLVM::ReturnOp::create(b, loc, ValueRange{});
}

/// The bytes of each kernel's tables: programs and offsets per entry, a
/// row of its group's differing constants per block, and the variant
/// tables of a kernel that serves many rank counts.
SmallVector<uint64_t> tableBytes(ArrayRef<KernelSkeleton> skeletons,
                                 ArrayRef<Group> groups) {
  SmallVector<uint64_t> words(skeletons.size());
  for (size_t k = 0; k < skeletons.size(); ++k)
    words[k] = 2 * static_cast<uint64_t>(skeletons[k].entries);
  for (const Group &grp : groups)
    for (Member m : grp.members)
      words[m.first] += grp.varying.size();
  SmallVector<uint64_t> bytes(skeletons.size());
  for (size_t k = 0; k < skeletons.size(); ++k) {
    bytes[k] = 4 * words[k];
    if (skeletons[k].variants.size() > kSelectVariants) { // variantOf's
      int64_t most = 0;
      for (const KernelSkeleton::Variant &v : skeletons[k].variants)
        most = std::max(most, v.nranks);
      bytes[k] += 8 * (most + 1);
    }
  }
  return bytes;
}

/// The address space of each kernel's tables: the constant space for as
/// many kernels as fit in kConstantTableBytes together, those of LL-packet
/// algorithms first (small messages: their table reads are on the critical
/// path), smallest tables first within each kind; global memory for the
/// rest. A kernel that does not fit is skipped, so smaller ones after it
/// may still fit.
SmallVector<unsigned> tableSpaces(ArrayRef<KernelSkeleton> skeletons,
                                  ArrayRef<Group> groups,
                                  const TargetInfo &target) {
  // (not LL, bytes, kernel): LL kernels first, then by size.
  SmallVector<uint64_t> bytes = tableBytes(skeletons, groups);
  SmallVector<std::tuple<bool, uint64_t, size_t>> order;
  for (size_t k = 0; k < skeletons.size(); ++k)
    order.push_back({!skeletons[k].packets, bytes[k], k});
  llvm::sort(order);
  SmallVector<unsigned> space(skeletons.size(), target.tableAddressSpace());
  uint64_t used = 0;
  for (auto [notPackets, size, k] : order) {
    if (used + size > kConstantTableBytes)
      continue;
    used += size;
    space[k] = target.constantAddressSpace();
  }
  return space;
}

/// Splits each group whose members' kernels read their tables from
/// different address spaces into one group per space (same differing
/// constants), so that each program reads its rows from one space.
SmallVector<Group> splitBySpace(SmallVector<Group> groups,
                                ArrayRef<unsigned> space) {
  SmallVector<Group> out;
  for (Group &grp : groups) {
    std::map<unsigned, Group> parts;
    for (Member m : grp.members) {
      Group &part = parts[space[m.first]];
      if (part.members.empty()) {
        part.varying = grp.varying;
        part.shape = grp.shape;
      }
      part.members.push_back(m);
    }
    for (auto &entry : parts)
      out.push_back(std::move(entry.second));
  }
  return out;
}

/// `func` with the constants of positions other than `varying` set to
/// `values` (a function made from another block of its shape holds that
/// block's constants); returns `func`'s flattened form after.
Flattened setConstants(LLVM::LLVMFuncOp func, ArrayRef<int64_t> values,
                       ArrayRef<size_t> varying) {
  Flattened f = flatten(func);
  assert(f.shareable && f.values.size() == values.size() &&
         "a block of another shape");
  size_t next = 0;
  for (size_t pos = 0; pos < values.size(); ++pos) {
    if (next < varying.size() && varying[next] == pos) {
      ++next;
      continue;
    }
    if (f.values[pos] == values[pos])
      continue;
    LLVM::ConstantOp cst = f.constants[pos];
    cst.setValueAttr(IntegerAttr::get(cst.getType(), values[pos]));
    f.values[pos] = values[pos];
  }
  return f;
}

} // namespace

BlockSharing::BlockSharing(ArrayRef<KernelSkeleton> skeletons)
    : impl(std::make_unique<Impl>()) {
  impl->skeletons = skeletons;
  impl->values.resize(skeletons.size());
}

BlockSharing::~BlockSharing() = default;

void BlockSharing::add(size_t k) {
  const KernelSkeleton &skel = impl->skeletons[k];
  auto &mine = impl->values[k];
  mine.reserve(skel.blocks.size());
  for (size_t i = 0; i < skel.blocks.size(); ++i) {
    LLVM::LLVMFuncOp func = skel.blocks[i].second;
    Flattened flat = flatten(func);
    if (!flat.shareable) {
      mine.emplace_back();
      impl->shapes.push_back({func, {{k, i}}, false});
      continue;
    }
    // A per-rank kernel keeps its own code: its blocks share programs only
    // with each other (a GPU loads only its rank's kernel, and a program
    // shared with other kernels would be a call and table loads). So does
    // an LL-packet kernel, which serves one rank count (kernelPrefixes):
    // shared with another rank count, or with the instances of another
    // algorithm (allpairs_ll with allpairs_ll_wide), its chunk counts
    // became table values and every chunk offset a 64-bit division at
    // run time (22 of them: 4.6 us against 2.7 per 1 KiB AllReduce on 2
    // x H200, docs/perf-history.md "LL kernels with code of their own").
    std::vector<uintptr_t> key = std::move(flat.shape);
    if (skel.rank || skel.packets) {
      assert((skel.rank || skel.variants.size() == 1) &&
             "an LL kernel serves one rank count");
      key.push_back(~uintptr_t(k));
    }
    auto [it, fresh] =
        impl->byShape.try_emplace(std::move(key), impl->shapes.size());
    if (fresh)
      impl->shapes.push_back({func, {}, true});
    else
      func.erase(); // its shape's first block stands for it
    impl->shapes[it->second].members.push_back({k, i});
    mine.push_back(std::move(flat.values));
  }
}

/// Groups the blocks by shape (blocks of different element types or
/// operators call different library functions, so they never share; the
/// blocks of a per-rank or LL-packet kernel share only with each other);
/// splits a group whose differing constants do not fit the i32 table into
/// single blocks.
SmallVector<Group> BlockSharing::Impl::groups() const {
  SmallVector<Group> result;
  for (auto [index, shape] : llvm::enumerate(shapes)) {
    Group grp{shape.members, {}, index, {}};
    if (!shape.shareable) {
      result.push_back(std::move(grp));
      continue;
    }
    Member first = grp.members.front();
    bool fits = true;
    for (size_t pos = 0; pos < values[first.first][first.second].size();
         ++pos) {
      bool differs = false;
      for (Member m : grp.members) {
        differs |= valueOf(m, pos) != valueOf(first, pos);
        fits &= fitsI32(valueOf(m, pos));
      }
      if (differs)
        grp.varying.push_back(pos);
    }
    if (fits || grp.varying.empty()) {
      result.push_back(std::move(grp));
      continue;
    }
    for (Member m : grp.members)
      result.push_back({{m}, {}, index, {}});
  }
  return result;
}

void BlockSharing::finish(OpBuilder &b, ModuleOp module,
                          const TargetInfo &target) {
  ArrayRef<KernelSkeleton> skeletons = impl->skeletons;
  SmallVector<Group> groups = impl->groups();

  // Every block reads its entries before it does anything: in the constant
  // space (a cache made for values every thread reads) where they fit, else
  // in global memory. Decided per kernel (tableSpaces: LL-packet kernels
  // first, then the smallest tables): a bundle whose tables do not all fit
  // keeps those of the LL all-pairs, where every table load is on the
  // critical path of a few microseconds, in the constant space and moves
  // the rings' large tables out. A program reads its rows through one
  // address space, so a group whose kernels landed in both is split in two.
  SmallVector<unsigned> space = tableSpaces(skeletons, groups, target);
  groups = splitBySpace(std::move(groups), space);

  // Per kernel: program and row offset per (rank, block), the rows.
  SmallVector<std::vector<int32_t>> programOf, offsetOf, rows;
  for (const KernelSkeleton &skel : skeletons) {
    programOf.emplace_back(skel.entries, -1);
    offsetOf.emplace_back(skel.entries, 0);
    rows.emplace_back();
  }
  for (auto [g, grp] : llvm::enumerate(groups))
    for (Member m : grp.members) {
      size_t k = m.first;
      int64_t sel = skeletons[k].blocks[m.second].first;
      programOf[k][sel] = static_cast<int32_t>(g);
      offsetOf[k][sel] = static_cast<int32_t>(rows[k].size());
      for (size_t pos : grp.varying)
        rows[k].push_back(static_cast<int32_t>(impl->valueOf(m, pos)));
    }
  Tables constTables(b, module, target.constantAddressSpace());
  Tables globalTables(b, module, target.tableAddressSpace());
  auto tablesOf = [&](size_t k) -> Tables & {
    return space[k] == target.constantAddressSpace() ? constTables
                                                     : globalTables;
  };

  // One function per group, built from its first member; a program that
  // blocks of several kernels run (the same block shape at several rank
  // counts, or a block that only moves bytes, for several element types)
  // is marked for the code generator, which keeps it out of line rather
  // than inlining a copy into every kernel.
  // The last group of a shape takes its function; the others (split by
  // address space, or blocks of their own where the values do not fit the
  // table) take copies of it, made before.
  SmallVector<SmallVector<LLVM::LLVMFuncOp>> called(skeletons.size());
  SmallVector<unsigned> uses(impl->shapes.size(), 0);
  for (const Group &grp : groups)
    ++uses[grp.shape];
  for (auto [g, grp] : llvm::enumerate(groups)) {
    Member rep = grp.members.front();
    Impl::Shape &shape = impl->shapes[grp.shape];
    LLVM::LLVMFuncOp source = shape.func;
    if (--uses[grp.shape] > 0) {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(shape.func);
      source = cast<LLVM::LLVMFuncOp>(b.clone(*shape.func));
    } else {
      shape.func = {};
    }
    Flattened flat = shape.shareable
                         ? setConstants(source,
                                        impl->values[rep.first][rep.second],
                                        grp.varying)
                         : Flattened();
    grp.program = makeProgram(
        b, source, flat, grp.varying,
        skeletons[rep.first].name + "__p" + std::to_string(g),
        space[rep.first]);
    source.erase();
    bool shared = skeletons[rep.first].kinds.size() > 1 ||
                  llvm::any_of(grp.members, [&](Member m) {
                    return m.first != rep.first;
                  });
    SmallVector<Attribute> marks{b.getStringAttr(kBlockProgramAttr)};
    if (shared)
      marks.push_back(b.getStringAttr(kSharedProgramAttr));
    grp.program.setPassthroughAttr(b.getArrayAttr(marks));
    for (Member m : grp.members) {
      if (called[m.first].size() <= g)
        called[m.first].resize(g + 1);
      called[m.first][g] = grp.program;
    }
  }

  // A type-generic skeleton makes one kernel per kind, each calling the
  // same programs and reading the same tables.
  for (auto [k, skel] : llvm::enumerate(skeletons)) {
    if (skel.kinds.empty())
      buildKernel(b, target, skel, skel.name, std::nullopt, called[k],
                  programOf[k], offsetOf[k], rows[k], tablesOf(k));
    for (auto &[name, kind] : skel.kinds)
      buildKernel(b, target, skel, name, kind, called[k], programOf[k],
                  offsetOf[k], rows[k], tablesOf(k));
  }
}
