//===- ValidationTerms.h - block functions read as terms -------*- C++ -*-===//
//
// The translation validation's terms (Validation.cpp): every value of a
// block function is a term, an argument of the block (ctx, input, output,
// count, epoch, kind), an integer constant, or an operation over terms;
// terms are interned, so two streams are equal exactly when their call
// terms are. readTrace reads a block function as the stream of its calls.
//
//===----------------------------------------------------------------------===//
#ifndef CCL_CONVERSION_CCLTOLLVM_VALIDATIONTERMS_H
#define CCL_CONVERSION_CCLTOLLVM_VALIDATIONTERMS_H

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/Allocator.h"

#include <array>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ccl::validation {

// Only Validation*.cpp include this header.
using namespace mlir;

enum Tag : int64_t { kArg = 0, kConst = 1, kOp = 2, kEvent = 3 };

inline int64_t ptrKey(const void *p) { return int64_t(reinterpret_cast<uintptr_t>(p)); }

/// Interned terms: each an array of integers kept in one arena; looked up
/// by its contents without a copy.
class Terms {
public:
  int32_t intern(ArrayRef<int64_t> key) {
    auto it = ids.find(key);
    if (it != ids.end())
      return it->second;
    int64_t *copy = arena.Allocate<int64_t>(key.size());
    std::copy(key.begin(), key.end(), copy);
    ArrayRef<int64_t> stored(copy, key.size());
    int32_t id = int32_t(terms.size());
    terms.push_back(stored);
    ids.try_emplace(stored, id);
    return id;
  }
  int32_t arg(int64_t i) { return intern({kArg, i}); }
  int32_t constant(Type t, int64_t v) {
    return intern({kConst, ptrKey(t.getAsOpaquePointer()), v});
  }
  ArrayRef<int64_t> at(int32_t id) const { return terms[id]; }
  std::optional<int64_t> constValue(int32_t id) const {
    ArrayRef<int64_t> t = at(id);
    if (t[0] != kConst)
      return std::nullopt;
    return t[2];
  }
  std::optional<int64_t> argIndex(int32_t id) const {
    ArrayRef<int64_t> t = at(id);
    if (t[0] != kArg)
      return std::nullopt;
    return t[1];
  }
  /// Callees and op names by the key a term holds.
  llvm::DenseMap<int64_t, StringRef> names;
  /// Per operation: its name, properties and attributes keys (reading an
  /// operation's properties as an attribute builds one).
  llvm::DenseMap<Operation *, std::array<int64_t, 3>> opKeys;

  /// A key of `op`'s properties, equal for equal properties: the attribute
  /// they read as, built once per distinct value among the operations of
  /// a phase (building one per operation was a fifth of the validation).
  /// `group` picks the short list of recent values searched first (the
  /// callee of a call, whose properties are nearly always those of the
  /// last call of it); it changes no key, only how fast one is found.
  int64_t propertiesKey(Operation &op, const void *group) {
    OpaqueProperties props = op.getPropertiesStorage();
    if (!props)
      return 0;
    OperationName name = op.getName();
    // The values seen last for this group first: comparing properties
    // stops at the first field that differs, hashing reads all of them (a
    // call's hash was a fifth of reading the blocks).
    auto &recent = recentProperties[group];
    for (auto &[rep, key] : recent)
      if (rep->getName() == name &&
          name.compareOpProperties(rep->getPropertiesStorage(), props))
        return key;
    auto &reps = propertyClasses[{name.getAsOpaquePointer(),
                                  size_t(op.hashProperties())}];
    int64_t key = 0;
    for (auto &[rep, k] : reps)
      if (name.compareOpProperties(rep->getPropertiesStorage(), props)) {
        key = k;
        break;
      }
    if (!key) {
      key = ptrKey(op.getPropertiesAsAttribute().getAsOpaquePointer());
      reps.push_back({&op, key});
    }
    if (recent.size() == kRecent)
      recent.erase(recent.begin());
    recent.push_back({&op, key});
    return key;
  }
  /// readTrace's scratch: the terms of a block's values, its pointers into
  /// the row.
  llvm::DenseMap<Value, int32_t> valueTerms;
  llvm::DenseMap<Value, int64_t> rowSlots;

  /// Forgets the operations read so far (they may be erased, and new ones
  /// take their addresses).
  void forgetOperations() {
    opKeys.clear();
    propertyClasses.clear();
    recentProperties.clear();
  }

  /// Layout of op and event terms: tag, name, properties, discardable
  /// attributes, result index, result type, operands...
  static constexpr size_t kFirstOperand = 6;

  std::string render(int32_t id, int depth = 0) const {
    ArrayRef<int64_t> t = at(id);
    static const char *argNames[] = {"ctx",   "input", "output", "count",
                                     "epoch", "kind",  "row"};
    if (t[0] == kArg)
      return t[1] < 7 ? argNames[t[1]] : "arg" + std::to_string(t[1]);
    if (t[0] == kConst)
      return std::to_string(t[2]);
    std::string s = names.lookup(t[1]).str();
    if (depth > 3)
      return s + "(...)";
    s += "(";
    for (size_t i = kFirstOperand; i < t.size(); ++i)
      s += (i > kFirstOperand ? ", " : "") + render(int32_t(t[i]), depth + 1);
    return s + ")";
  }

  /// readTrace's trace as it grows; what it returns is a view of it.
  std::vector<int32_t> traceScratch;

private:
  llvm::DenseMap<std::pair<const void *, size_t>,
                 SmallVector<std::pair<Operation *, int64_t>, 1>>
      propertyClasses;
  /// Per group (propertiesKey), the last properties keyed (most recent
  /// last). An entry counts only for an operation of its own name.
  static constexpr size_t kRecent = 8;
  llvm::DenseMap<const void *,
                 SmallVector<std::pair<Operation *, int64_t>, kRecent>>
      recentProperties;
  /// Slabs of 1 MiB: a bundle interns millions of words.
  llvm::BumpPtrAllocatorImpl<llvm::MallocAllocator, 1 << 20> arena;
  /// Terms by their words. The hash mixes the words inline and equality
  /// compares them inline: most terms are a few words, and xxh3 and
  /// memcmp as calls were a third of interning.
  struct WordsInfo : llvm::DenseMapInfo<ArrayRef<int64_t>> {
    static unsigned getHashValue(ArrayRef<int64_t> k) {
      uint64_t h = k.size() * 0x9E3779B97F4A7C15ull;
      for (int64_t w : k) {
        h = (h ^ uint64_t(w)) * 0xBF58476D1CE4E5B9ull;
        h ^= h >> 31;
      }
      return unsigned(h ^ (h >> 32));
    }
    static bool isEqual(ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
      if (a.size() != b.size())
        return false;
      // The empty and tombstone keys are empty; no term is.
      if (a.empty() || a.data() == b.data())
        return a.data() == b.data();
      for (size_t i = 0; i < a.size(); ++i)
        if (a[i] != b[i])
          return false;
      return true;
    }
  };
  llvm::DenseMap<ArrayRef<int64_t>, int32_t, WordsInfo> ids;
  std::vector<ArrayRef<int64_t>> terms;
};

/// A block read as its calls (and other operations without results), in
/// order.
using Trace = ArrayRef<int32_t>;

/// Traces kept end to end in one array (one allocation per block was a
/// tenth of reading the blocks), each by the index `add` returns.
class TracePool {
public:
  size_t add(Trace t) {
    spans.push_back({words.size(), t.size()});
    words.insert(words.end(), t.begin(), t.end());
    return spans.size() - 1;
  }
  Trace operator[](size_t i) const {
    return Trace(words.data() + spans[i].first, spans[i].second);
  }
  /// Room for `more` traces beyond those held.
  void reserve(size_t more) { spans.reserve(spans.size() + more); }

private:
  std::vector<int32_t> words;
  std::vector<std::pair<size_t, size_t>> spans;
};

/// What a program's table row holds: `table[offset ...]`.
struct RowBinding {
  ArrayRef<int32_t> table;
  int64_t offset = 0;
};

/// The callee of a call, or "" for any other operation.
StringRef calleeOf(Operation &op);

/// Reads `func` (one block) as a trace: its arguments bound to `args`
/// (the row argument, if `row` is set, is the last one). `cacheOps`: keep
/// each operation's keys (a shared program is read once per row). The
/// trace is a view of `terms.traceScratch`, valid until the next read.
FailureOr<Trace> readTrace(LLVM::LLVMFuncOp func, ArrayRef<int32_t> args,
                           const RowBinding *row, Terms &terms,
                           std::string &why, bool cacheOps);

/// Where a kernel's dispatch sends one block.
struct Dispatched {
  /// Null when the block runs nothing.
  LLVM::LLVMFuncOp program;
  StringRef rowTable;
  int64_t rowOffset = 0; // in i32 entries
  std::optional<int64_t> kind;
};

/// A constant i32 table of the module by name, or null.
using TableLookup = std::function<const std::vector<int32_t> *(StringRef name)>;

/// Evaluates a kernel's dispatch for `rank` of `nranks` and block index
/// `block`: the loads of the rank and rank count from the context, the
/// selects of a kernel serving several rank counts, the table loads, the
/// switch, down to the block program called. Fails, with `why`, on code it
/// does not read. Each kernel is read once into numbered steps, then run
/// for each block without a map of its values.
class DispatchEvaluator {
public:
  /// `table` is kept: it owns its callable.
  DispatchEvaluator(SymbolTable &symbols, TableLookup table);
  ~DispatchEvaluator();
  FailureOr<Dispatched> eval(LLVM::LLVMFuncOp kernel, int64_t rank,
                             int64_t nranks, int64_t block, std::string &why);

private:
  struct DVal;
  struct Step;
  struct Code;
  const Code &compile(LLVM::LLVMFuncOp kernel);
  SymbolTable &symbols;
  TableLookup table;
  llvm::DenseMap<Operation *, std::unique_ptr<Code>> codes;
  /// eval's values, kept between calls.
  std::vector<DVal> values;
};

/// Whether kernel `b` is kernel `a` with another kind: the same
/// operations, attributes, operands and branches, except that every block
/// program call passes `kindB` where `a`'s passes `kindA` (a constant that
/// is used as nothing else). A type-generic lowering makes one kernel per
/// element type and operator this way (BlockSharing), so that what
/// the dispatch of `a` was shown to do, `b` does for its own kind.
bool sameUpToKind(LLVM::LLVMFuncOp a, int64_t kindA, LLVM::LLVMFuncOp b,
                  int64_t kindB);

} // namespace ccl::validation

#endif // CCL_CONVERSION_CCLTOLLVM_VALIDATIONTERMS_H
