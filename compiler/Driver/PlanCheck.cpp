//===- PlanCheck.cpp - the written library's plans against the schedule ---===//
//
// The last check before a library is committed: its plans and selection
// table are read back from the bytes ld.lld wrote, as the loader and
// libcclrt will see them (allocated sections by address, pointers through
// the dynamic relocations, fields at ccl/plan.h's offsets), and compared
// with the scheduled module the verifier proved, field by field. The plan
// emitter (SharedLibrary.cpp) is then validated, not trusted: a plan whose
// channel names another peer, whose scratch has another size, whose kernel
// table names another kernel is an internal compiler error, and nothing is
// written (docs/semantics.md, "What is proved, what is validated, what is
// trusted").
//
//===----------------------------------------------------------------------===//

#include "compiler/Driver/Codegen.h"

#include "ccl/plan.h"
#include "ccl/types.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstddef>
#include <cstring>
#include <map>
#include <optional>
#include <set>

using namespace llvm;
using namespace ccl;

namespace {

/// A shared object as the dynamic loader maps it: the bytes of its
/// allocated sections by address, the value each dynamic relocation puts
/// at an address, and its symbols (.symtab, locals included).
class LoadedLibrary {
public:
  bool open(StringRef bytes, std::string &error) {
    auto obj = object::ObjectFile::createObjectFile(
        MemoryBufferRef(bytes, "library"));
    if (!obj) {
      error = "the written library is not an ELF file cclc can read: " +
              toString(obj.takeError());
      return false;
    }
    file = std::move(*obj);
    auto *elf = dyn_cast<object::ELF64LEObjectFile>(file.get());
    if (!elf) {
      error = "the written library is not a 64-bit little-endian ELF file";
      return false;
    }
    const unsigned machine = elf->getELFFile().getHeader().e_machine;
    uint32_t relative, absolute;
    if (machine == ELF::EM_X86_64) {
      relative = ELF::R_X86_64_RELATIVE;
      absolute = ELF::R_X86_64_64;
    } else if (machine == ELF::EM_AARCH64) {
      relative = ELF::R_AARCH64_RELATIVE;
      absolute = ELF::R_AARCH64_ABS64;
    } else {
      error = "the written library is for a machine the plan check does not "
              "read (ELF machine " + std::to_string(machine) + ")";
      return false;
    }
    for (const object::ELFSectionRef s : elf->sections()) {
      if (!(s.getFlags() & ELF::SHF_ALLOC) || s.getType() == ELF::SHT_NOBITS)
        continue;
      Expected<StringRef> contents = s.getContents();
      if (!contents) {
        error = toString(contents.takeError());
        return false;
      }
      sections[s.getAddress()] = *contents;
    }
    // The dynamic relocations, read as the ELF records they are (a bundle
    // has hundreds of thousands; the generic relocation iterator and a map
    // of them were most of this check).
    const object::ELF64LEFile &ef = elf->getELFFile();
    for (const object::SectionRef &s : file->dynamic_relocation_sections()) {
      const object::ELF64LE::Shdr *shdr = elf->getSection(s.getRawDataRefImpl());
      if (shdr->sh_type != ELF::SHT_RELA)
        continue; // REL without addends: not what ld.lld writes on these
      auto relas = ef.relas(*shdr);
      if (!relas) {
        error = "the written library's relocations cannot be read: " +
                toString(relas.takeError());
        return false;
      }
      auto symtab = ef.getSection(shdr->sh_link);
      if (!symtab) {
        error = "the written library's relocation symbols cannot be read: " +
                toString(symtab.takeError());
        return false;
      }
      Expected<StringRef> strtab = ef.getStringTableForSymtab(**symtab);
      if (!strtab) {
        error = "the written library's relocation symbol names cannot be read: " +
                toString(strtab.takeError());
        return false;
      }
      relocated.reserve(relocated.size() + relas->size());
      for (const object::ELF64LE::Rela &r : *relas) {
        const uint32_t type = r.getType(/*isMips64EL=*/false);
        Reloc rel{r.r_offset, {uint64_t(r.r_addend), StringRef()}};
        if (type == absolute) {
          Expected<const object::ELF64LE::Sym *> sym =
              ef.getRelocationSymbol(r, *symtab);
          if (!sym || !*sym) {
            if (!sym)
              consumeError(sym.takeError());
            continue;
          }
          Expected<StringRef> name = (*sym)->getName(*strtab);
          if (!name) {
            consumeError(name.takeError());
            continue;
          }
          rel.pointer.symbol = *name;
          rel.pointer.value += (*sym)->st_value;
        } else if (type != relative) {
          continue;
        }
        relocated.push_back(rel);
      }
    }
    // By address; of two at one address the later one holds (the loader
    // applies them in order).
    std::stable_sort(relocated.begin(), relocated.end(),
                     [](const Reloc &x, const Reloc &y) { return x.at < y.at; });
    for (const object::SymbolRef &sym : elf->symbols()) {
      Expected<StringRef> name = sym.getName();
      Expected<uint64_t> addr = sym.getAddress();
      Expected<uint32_t> flags = sym.getFlags();
      if (!name || !addr || !flags) {
        consumeError(name.takeError());
        consumeError(addr.takeError());
        consumeError(flags.takeError());
        continue;
      }
      if (!(*flags & object::SymbolRef::SF_Undefined) && !name->empty())
        symbols[*name] = *addr;
    }
    return true;
  }

  /// `size` bytes at `addr`, if an allocated section holds them.
  std::optional<StringRef> bytesAt(uint64_t addr, uint64_t size) const {
    auto it = sections.upper_bound(addr);
    if (it == sections.begin())
      return std::nullopt;
    --it;
    uint64_t off = addr - it->first;
    if (off > it->second.size() || it->second.size() - off < size)
      return std::nullopt;
    return it->second.substr(off, size);
  }
  template <typename T> std::optional<T> read(uint64_t addr) const {
    std::optional<StringRef> b = bytesAt(addr, sizeof(T));
    if (!b)
      return std::nullopt;
    T v;
    std::memcpy(&v, b->data(), sizeof(T));
    return v;
  }
  /// The pointer the loader leaves at `addr`: its relocation's value, or
  /// the stored bytes (0 for a null pointer).
  struct Pointer {
    uint64_t value = 0;
    StringRef symbol; ///< for a relocation against a symbol (in the file)
  };
  std::optional<Pointer> pointer(uint64_t addr) const {
    auto it = std::upper_bound(
        relocated.begin(), relocated.end(), addr,
        [](uint64_t a, const Reloc &r) { return a < r.at; });
    if (it != relocated.begin() && std::prev(it)->at == addr)
      return std::prev(it)->pointer;
    std::optional<uint64_t> raw = read<uint64_t>(addr);
    if (!raw)
      return std::nullopt;
    return Pointer{*raw, ""};
  }
  /// The C string a pointer at `addr` points to; nullopt for a null or
  /// unreadable one.
  std::optional<StringRef> string(uint64_t addr) const {
    std::optional<Pointer> p = pointer(addr);
    if (!p || !p->value)
      return std::nullopt;
    auto it = sections.upper_bound(p->value);
    if (it == sections.begin())
      return std::nullopt;
    --it;
    uint64_t off = p->value - it->first;
    if (off >= it->second.size())
      return std::nullopt;
    StringRef rest = it->second.substr(off);
    size_t end = rest.find('\0');
    if (end == StringRef::npos)
      return std::nullopt;
    return rest.take_front(end);
  }
  std::optional<uint64_t> symbol(StringRef name) const {
    auto it = symbols.find(name);
    if (it == symbols.end())
      return std::nullopt;
    return it->second;
  }

private:
  std::unique_ptr<object::ObjectFile> file;
  std::map<uint64_t, StringRef> sections;
  struct Reloc {
    uint64_t at;
    Pointer pointer;
  };
  std::vector<Reloc> relocated; // by address
  StringMap<uint64_t> symbols;
};

/// Compares one plan (or the selection table) of the library with what the
/// scheduled module says it must be; the first difference is the error.
class Checker {
public:
  Checker(const LoadedLibrary &lib, std::string &error)
      : lib(lib), error(error) {}

  /// `where` names the table ("plan of algorithm 'x' for sm_90");
  /// `field` the field; the values as the library holds them and as the
  /// schedule says.
  bool differs(const std::string &where, const std::string &field,
               const std::string &found, const std::string &expected) {
    error = "internal compiler error: the " + where +
            ", as written into the library, differs from its verified "
            "schedule: " + field + " is " + found + ", the schedule's is " +
            expected + "; no library is written";
    return false;
  }
  bool unreadable(const std::string &where, const std::string &field) {
    error = "internal compiler error: the " + where +
            " in the written library cannot be read (" + field +
            " points outside its sections); no library is written";
    return false;
  }
  /// A T-sized integer field at `addr` that must equal `expected`.
  template <typename T>
  bool num(const std::string &where, const std::string &field, uint64_t addr,
           uint64_t expected) {
    std::optional<T> v = lib.read<T>(addr);
    if (!v)
      return unreadable(where, field);
    if (*v != expected)
      return differs(where, field, std::to_string(*v),
                     std::to_string(expected));
    return true;
  }
  /// Whether the u32 at `addr` reads as `expected` (no report: the fields
  /// of a table are compared this way first, and named only if one
  /// differs).
  bool sameU32(uint64_t addr, uint64_t expected) const {
    std::optional<uint32_t> v = lib.read<uint32_t>(addr);
    return v && *v == expected;
  }
  bool u32(const std::string &where, const std::string &field, uint64_t addr,
           uint64_t expected) {
    return num<uint32_t>(where, field, addr, expected);
  }
  bool u64(const std::string &where, const std::string &field, uint64_t addr,
           uint64_t expected) {
    return num<uint64_t>(where, field, addr, expected);
  }
  bool str(const std::string &where, const std::string &field, uint64_t addr,
           StringRef expected) {
    std::optional<StringRef> v = lib.string(addr);
    if (!v)
      return unreadable(where, field);
    if (*v != expected)
      return differs(where, field, "'" + v->str() + "'",
                     "'" + expected.str() + "'");
    return true;
  }
  /// An array field: its count at `countAt` must be `n` and its pointer at
  /// `ptrAt` readable (null only for an empty array); returns its address.
  std::optional<uint64_t> array(const std::string &where,
                                const std::string &field, uint64_t countAt,
                                uint64_t ptrAt, uint64_t n) {
    if (!u32(where, "the number of " + field, countAt, n))
      return std::nullopt;
    std::optional<LoadedLibrary::Pointer> p = lib.pointer(ptrAt);
    if (!p || (n && !p->value)) {
      unreadable(where, field);
      return std::nullopt;
    }
    return p->value;
  }

  const LoadedLibrary &lib;
  std::string &error;
};

uint32_t dtypeCode(StringRef dt) {
  return ccl::findDType(std::string_view(dt.data(), dt.size()))->code;
}
uint32_t opCode(StringRef op) {
  return ccl::findRedOp(std::string_view(op.data(), op.size()))->code;
}

/// What the plan check reads of an algorithm's thread blocks, gathered in
/// the one walk of the scheduled module.
struct BlockSummary {
  /// The declarations, in order (the kernels' indices).
  SmallVector<ScratchOp> scratch;
  SmallVector<ChannelOp> channels;
  SmallVector<SemaphoreOp> semaphores;
  int64_t nblocks = 1;
  /// One barrier per (rank, set of blocks), in first-use order: (rank,
  /// number of blocks).
  std::vector<std::pair<int64_t, int64_t>> barriers;
  std::set<std::pair<int64_t, std::vector<int64_t>>> seen;
};

/// One variant against the scheduled algorithm `algo`.
bool checkVariant(Checker &c, const std::string &where, uint64_t at,
                  AlgorithmOp algo, BlockSummary &blocks,
                  const TargetInfo &target, const std::string &prefix,
                  const CompileOptions &options) {
  const std::string w = where + ", " + std::to_string(algo.getNranks()) +
                        "-rank variant";
  const int64_t nblocks = blocks.nblocks;
  if (!c.u32(w, "nranks", at + offsetof(ccl_variant, nranks),
             algo.getNranks()) ||
      !c.u32(w, "nblocks", at + offsetof(ccl_variant, nblocks), nblocks) ||
      !c.u32(w, "threads_per_block",
             at + offsetof(ccl_variant, threads_per_block),
             target.threadsPerBlock()) ||
      !c.u32(w, "chunks", at + offsetof(ccl_variant, chunks),
             algo.getChunks()) ||
      !c.u32(w, "root_plus_one (1 + the root it was proved for)",
             at + offsetof(ccl_variant, root_plus_one),
             variantRootPlusOne(algo)))
    return false;

  // Scratch buffers, in declaration order (the kernels' scratch indices).
  SmallVectorImpl<ScratchOp> &scratch = blocks.scratch;
  std::optional<uint64_t> s =
      c.array(w, "scratch buffers", at + offsetof(ccl_variant, num_scratch),
              at + offsetof(ccl_variant, scratch), scratch.size());
  if (!s)
    return false;
  for (auto [i, op] : llvm::enumerate(scratch)) {
    uint64_t e = *s + i * sizeof(ccl_scratch_info);
    std::string f = "scratch buffer " + std::to_string(i) + "'s ";
    if (!c.str(w, f + "name", e + offsetof(ccl_scratch_info, name),
               op.getSymName()) ||
        !c.u32(w, f + "slots", e + offsetof(ccl_scratch_info, slots),
               op.getSlots()) ||
        !c.u32(w, f + "packets", e + offsetof(ccl_scratch_info, packets),
               algo.isLL() ? 1 : 0))
      return false;
  }

  // Kernels: one per element type and operator, named as the validation
  // of the lowering read them (the kernel prefix of the variant).
  std::optional<uint64_t> k = c.array(
      w, "kernels", at + offsetof(ccl_variant, num_kernels),
      at + offsetof(ccl_variant, kernels),
      options.dtypes.size() * options.redops.size());
  if (!k)
    return false;
  size_t i = 0;
  for (const std::string &dt : options.dtypes)
    for (const std::string &op : options.redops) {
      uint64_t e = *k + i * sizeof(ccl_kernel_info);
      std::string f = "kernel " + std::to_string(i++) + "'s ";
      std::string sym = kernelName(prefix, dt, op);
      if (!c.u32(w, f + "dtype", e + offsetof(ccl_kernel_info, dtype),
                 dtypeCode(dt)) ||
          !c.u32(w, f + "redop", e + offsetof(ccl_kernel_info, redop),
                 opCode(op)) ||
          !c.str(w, f + "symbol", e + offsetof(ccl_kernel_info, symbol), sym))
        return false;
      std::optional<LoadedLibrary::Pointer> fn =
          c.lib.pointer(e + offsetof(ccl_kernel_info, host_fn));
      if (!fn)
        return c.unreadable(w, f + "host_fn");
      if (target.planTarget() != CCL_TARGET_HOST) {
        if (fn->value)
          return c.differs(w, f + "host_fn", "set", "null (a device kernel)");
        continue;
      }
      std::optional<uint64_t> def = c.lib.symbol(sym);
      if (!def || fn->value != *def)
        return c.differs(w, f + "host_fn",
                         fn->symbol.empty() ? "another address"
                                            : "'" + fn->symbol.str() + "'",
                         "'" + sym + "'");
    }

  // Channels, semaphores, barriers: indexed as the kernels index them.
  SmallVectorImpl<ChannelOp> &channels = blocks.channels;
  std::optional<uint64_t> ch =
      c.array(w, "channels", at + offsetof(ccl_variant, num_channels),
              at + offsetof(ccl_variant, channels), channels.size());
  if (!ch)
    return false;
  for (auto [i, op] : llvm::enumerate(channels)) {
    uint64_t e = *ch + i * sizeof(ccl_channel_info);
    const uint64_t kind = op.getKind() == ChannelKind::Port ? CCL_CHANNEL_PORT
                                                            : CCL_CHANNEL_MEMORY;
    // Equal fields first, without naming them (a file of many algorithms
    // has tens of thousands of channels).
    if (c.sameU32(e + offsetof(ccl_channel_info, src), op.getSrc()) &&
        c.sameU32(e + offsetof(ccl_channel_info, dst), op.getDst()) &&
        c.sameU32(e + offsetof(ccl_channel_info, kind), kind) &&
        c.sameU32(e + offsetof(ccl_channel_info, credit),
                  op.getCreditOrZero()))
      continue;
    std::string f = "channel " + std::to_string(i) + " ('" +
                    op.getSymName().str() + "')'s ";
    if (!c.u32(w, f + "src", e + offsetof(ccl_channel_info, src),
               op.getSrc()) ||
        !c.u32(w, f + "dst (peer)", e + offsetof(ccl_channel_info, dst),
               op.getDst()) ||
        !c.u32(w, f + "kind", e + offsetof(ccl_channel_info, kind), kind) ||
        !c.u32(w, f + "credit", e + offsetof(ccl_channel_info, credit),
               op.getCreditOrZero()))
      return false;
  }
  SmallVectorImpl<SemaphoreOp> &sems = blocks.semaphores;
  std::optional<uint64_t> sm =
      c.array(w, "semaphores", at + offsetof(ccl_variant, num_semaphores),
              at + offsetof(ccl_variant, semaphores), sems.size());
  if (!sm)
    return false;
  for (auto [i, op] : llvm::enumerate(sems))
    if (!c.u32(w, "semaphore " + std::to_string(i) + "'s rank",
               *sm + i * sizeof(ccl_semaphore_info) +
                   offsetof(ccl_semaphore_info, rank),
               op.getRankAttr().getInt()))
      return false;
  const std::vector<std::pair<int64_t, int64_t>> &barriers = blocks.barriers;
  std::optional<uint64_t> br =
      c.array(w, "barriers", at + offsetof(ccl_variant, num_barriers),
              at + offsetof(ccl_variant, barriers), barriers.size());
  if (!br)
    return false;
  for (auto [i, b] : llvm::enumerate(barriers)) {
    uint64_t e = *br + i * sizeof(ccl_barrier_info);
    std::string f = "barrier " + std::to_string(i) + "'s ";
    if (!c.u32(w, f + "rank", e + offsetof(ccl_barrier_info, rank), b.first) ||
        !c.u32(w, f + "nblocks", e + offsetof(ccl_barrier_info, nblocks),
               b.second))
      return false;
  }
  return true;
}

/// The operations' source locations (error reports), by op id: one table
/// that every plan of the library points to.
bool checkOps(Checker &c, const std::string &where, uint64_t at,
              ArrayRef<mlir::Operation *> byId,
              std::set<uint64_t> &checked) {
  std::optional<LoadedLibrary::Pointer> table =
      c.lib.pointer(at + offsetof(ccl_plan, ops));
  if (table && table->value && checked.count(table->value))
    return c.u32(where, "the number of operations",
                 at + offsetof(ccl_plan, num_ops), byId.size());
  uint64_t n = byId.size();
  std::optional<uint64_t> ops =
      c.array(where, "operations", at + offsetof(ccl_plan, num_ops),
              at + offsetof(ccl_plan, ops), n);
  if (!ops)
    return false;
  checked.insert(*ops);
  for (auto [id, op] : llvm::enumerate(byId)) {
    if (!op)
      continue;
    uint64_t e = *ops + uint64_t(id) * sizeof(ccl_op_info);
    auto loc = op->getLoc()->findInstanceOf<mlir::FileLineColLoc>();
    // Equal fields first, without naming them (a file of many algorithms
    // has tens of thousands of operations); a difference is reported below.
    std::optional<StringRef> kind =
        c.lib.string(e + offsetof(ccl_op_info, kind));
    if (kind && *kind == op->getName().stripDialect() &&
        (!loc ||
         (c.lib.read<uint32_t>(e + offsetof(ccl_op_info, line)) ==
              loc.getLine() &&
          c.lib.read<uint32_t>(e + offsetof(ccl_op_info, col)) ==
              loc.getColumn())))
      continue;
    std::string f = "operation " + std::to_string(id) + "'s ";
    if (!c.str(where, f + "kind", e + offsetof(ccl_op_info, kind),
               op->getName().stripDialect()))
      return false;
    if (loc)
      if (!c.u32(where, f + "line", e + offsetof(ccl_op_info, line),
                 loc.getLine()) ||
          !c.u32(where, f + "column", e + offsetof(ccl_op_info, col),
                 loc.getColumn()))
        return false;
  }
  return true;
}

/// The images of a plan: per target of its group, in --target order, a
/// cubin, then PTX (NUL-terminated), or a code object; the bytes must be
/// the ones whose kernels checkImagesHaveKernels read.
bool checkImages(Checker &c, const std::string &where, uint64_t at,
                 ArrayRef<const TargetArtifacts *> group) {
  struct Expected {
    uint32_t kind;
    std::string arch;
    StringRef bytes;
    bool nul;
  };
  std::vector<Expected> images;
  for (const TargetArtifacts *t : group) {
    if (!t->cubin.empty())
      images.push_back({CCL_IMAGE_CUBIN, t->target, t->cubin, false});
    if (!t->ptx.empty())
      images.push_back({CCL_IMAGE_PTX, t->target, t->ptx, true});
    if (!t->hsaco.empty())
      images.push_back({CCL_IMAGE_HSACO, t->target, t->hsaco, false});
  }
  std::optional<uint64_t> im =
      c.array(where, "images", at + offsetof(ccl_plan, num_images),
              at + offsetof(ccl_plan, images), images.size());
  if (!im)
    return false;
  for (auto [i, x] : llvm::enumerate(images)) {
    uint64_t e = *im + i * sizeof(ccl_image);
    std::string f = "image " + std::to_string(i) + "'s ";
    uint64_t size = x.bytes.size() + (x.nul ? 1 : 0);
    if (!c.u32(where, f + "kind", e + offsetof(ccl_image, kind), x.kind) ||
        !c.str(where, f + "arch", e + offsetof(ccl_image, arch), x.arch) ||
        !c.u64(where, f + "size", e + offsetof(ccl_image, size), size))
      return false;
    std::optional<LoadedLibrary::Pointer> data =
        c.lib.pointer(e + offsetof(ccl_image, data));
    std::optional<StringRef> bytes =
        data ? c.lib.bytesAt(data->value, size) : std::nullopt;
    if (!bytes)
      return c.unreadable(where, f + "data");
    if (bytes->take_front(x.bytes.size()) != x.bytes ||
        (x.nul && bytes->back() != '\0'))
      return c.differs(where, f + "data", "other bytes",
                       "the " + x.arch + " image's");
  }
  return true;
}

} // namespace

bool ccl::checkLibraryPlans(StringRef library, mlir::ModuleOp scheduled,
                            const CompileOptions &options,
                            ArrayRef<TargetArtifacts> artifacts,
                            std::string &error) {
  LoadedLibrary lib;
  if (!lib.open(library, error)) {
    error = "internal compiler error: " + error + "; no library is written";
    return false;
  }
  Checker c(lib, error);

  // One plan per algorithm and plan target, named after its first target.
  const std::vector<std::vector<const TargetArtifacts *>> groups =
      planTargetGroups(artifacts);

  // The algorithms in module order, each with its variants.
  SmallVector<AlgorithmOp> algos(scheduled.getOps<AlgorithmOp>());
  std::vector<std::string> names;
  std::map<std::string, std::vector<AlgorithmOp>> variants;
  for (AlgorithmOp a : algos) {
    auto &list = variants[a.getName().str()];
    if (list.empty())
      names.push_back(a.getName().str());
    list.push_back(a);
  }
  auto limits =
      scheduled->getAttrOfType<mlir::DictionaryAttr>("cclc.max_bytes");
  std::map<std::string, uint64_t> planAt; // "name target" -> address
  // One walk: the operations by op id (the first of an id; ids without
  // one are null) and each algorithm's blocks and barriers.
  std::vector<mlir::Operation *> opsById;
  llvm::DenseMap<mlir::Operation *, BlockSummary> blocks;
  for (AlgorithmOp a : algos)
    blocks[a.getOperation()];
  scheduled.walk([&](mlir::Operation *op) {
    if (isa<ThreadBlockOp, ScratchOp, ChannelOp, SemaphoreOp>(op)) {
      auto it = blocks.find(op->getParentOp());
      if (it == blocks.end())
        return;
      BlockSummary &b = it->second;
      if (auto tb = dyn_cast<ThreadBlockOp>(op))
        b.nblocks = std::max<int64_t>(b.nblocks, tb.getTb() + 1);
      else if (auto s = dyn_cast<ScratchOp>(op))
        b.scratch.push_back(s);
      else if (auto ch = dyn_cast<ChannelOp>(op))
        b.channels.push_back(ch);
      else
        b.semaphores.push_back(cast<SemaphoreOp>(op));
      return;
    }
    if (!isa<InstructionOp, TbBarrierOp>(op))
      return;
    if (auto bar = dyn_cast<TbBarrierOp>(op))
      if (auto a = op->getParentOfType<AlgorithmOp>()) {
        auto it = blocks.find(a.getOperation());
        if (it != blocks.end()) {
          int64_t rank = bar.getRankAttr().getInt();
          std::vector<int64_t> tbs(bar.getTbs().begin(), bar.getTbs().end());
          if (it->second.seen.insert({rank, tbs}).second)
            it->second.barriers.push_back({rank, int64_t(tbs.size())});
        }
      }
    if (std::optional<int64_t> id = getOpId(op)) {
      if (*id < 0)
        return;
      if (size_t(*id) >= opsById.size())
        opsById.resize(size_t(*id) + 1, nullptr);
      if (!opsById[*id])
        opsById[*id] = op;
    }
  });
  std::set<uint64_t> opsChecked;

  for (const auto &group : groups) {
    const std::string &targetName = group.front()->target;
    std::unique_ptr<TargetInfo> target = createTargetInfo(targetName);
    // The kernel names the lowering's validation read its kernels under:
    // the same for every target of the group, whose images the plan shares.
    const std::map<std::string, std::string> &prefixes =
        group.front()->kernelPrefixes;
    for (const TargetArtifacts *t : group)
      if (t->kernelPrefixes != prefixes) {
        error = "internal compiler error: the lowerings for " + targetName +
                " and " + t->target +
                " validated their kernels under different names, and one "
                "plan serves both; no library is written";
        return false;
      }
    for (const std::string &name : names) {
      const std::vector<AlgorithmOp> &vs = variants[name];
      AlgorithmOp first = vs.front();
      const std::string where =
          "plan of algorithm '" + name + "' for " + targetName;
      std::optional<uint64_t> at =
          lib.symbol("ccl_plan_" + name + "_" + targetName);
      if (!at) {
        error = "internal compiler error: the written library has no " +
                where + "; no library is written";
        return false;
      }
      planAt[name + " " + targetName] = *at;
      uint64_t maxBytes = options.maxBytes;
      if (limits)
        if (auto v = limits.getAs<mlir::IntegerAttr>(name))
          maxBytes = v.getInt();
      int64_t chunks = first.getChunks(), root = 0;
      for (AlgorithmOp v : vs)
        chunks = std::min<int64_t>(chunks, v.getChunks());
      if (mlir::DictionaryAttr params = first.getParamsAttr())
        if (auto r = params.getAs<mlir::IntegerAttr>("root"))
          root = r.getInt();
      uint32_t inplace = first.getAlsoInplaceAttr() ? CCL_INPLACE_BOTH
                         : first.getInplace()       ? CCL_INPLACE_ONLY
                                                    : CCL_INPLACE_NO;
      if (!c.u32(where, "abi_version", *at + offsetof(ccl_plan, abi_version),
                 CCL_PLAN_ABI_VERSION) ||
          !c.u32(where, "target", *at + offsetof(ccl_plan, target),
                 target->planTarget()) ||
          !c.str(where, "algorithm", *at + offsetof(ccl_plan, algorithm),
                 name) ||
          !c.str(where, "collective", *at + offsetof(ccl_plan, collective),
                 first.getCollectiveName()) ||
          !c.u32(where, "inplace", *at + offsetof(ccl_plan, inplace),
                 inplace) ||
          !c.u32(where, "chunks", *at + offsetof(ccl_plan, chunks), chunks) ||
          !c.u32(where, "protocol", *at + offsetof(ccl_plan, protocol),
                 first.isLL() ? CCL_PROTO_LL : CCL_PROTO_SIMPLE) ||
          !c.u64(where, "max_bytes", *at + offsetof(ccl_plan, max_bytes),
                 maxBytes) ||
          !c.u32(where, "root", *at + offsetof(ccl_plan, root), root))
        return false;
      std::optional<uint64_t> va =
          c.array(where, "variants", *at + offsetof(ccl_plan, num_variants),
                  *at + offsetof(ccl_plan, variants), vs.size());
      if (!va)
        return false;
      for (auto [i, v] : llvm::enumerate(vs)) {
        auto prefix = prefixes.find(AlgorithmOp(v).getSymName().str());
        if (prefix == prefixes.end()) {
          error = "internal compiler error: the lowering for " + targetName +
                  " recorded no validated kernel for variant '" +
                  AlgorithmOp(v).getSymName().str() +
                  "'; no library is written";
          return false;
        }
        if (!checkVariant(c, where, *va + i * sizeof(ccl_variant), v,
                          blocks[AlgorithmOp(v).getOperation()], *target, prefix->second,
                          options))
          return false;
      }
      if (!checkOps(c, where, *at, opsById, opsChecked) ||
          !checkImages(c, where, *at, group))
        return false;
    }
  }

  // A bundle's selection table: its rows and, per algorithm, one row that
  // CCL_ALGO uses; each row's plans are that algorithm's, per plan target.
  std::vector<SelectionRow> rows = selectionOf(scheduled);
  if (rows.empty())
    return true;
  const std::string where = "selection table";
  std::optional<uint64_t> at = lib.symbol("ccl_selection");
  if (!at) {
    error = "internal compiler error: the written library has no " + where +
            "; no library is written";
    return false;
  }
  if (!c.u32(where, "abi_version", *at + offsetof(ccl_selection, abi_version),
             CCL_SELECTION_ABI_VERSION))
    return false;
  struct Row {
    std::string collective, algorithm, where;
    int64_t minRanks, maxRanks, maxBytes;
  };
  std::vector<Row> expectRows, expectAlgs, expectDet;
  for (const SelectionRow &r : rows)
    (r.deterministic ? expectDet : expectRows)
        .push_back({r.collective, r.algorithm, r.where, r.minRanks,
                    r.maxRanks, r.maxBytes});
  for (const std::string &name : names) {
    StringRef coll = variants[name].front().getCollectiveName();
    if (collectiveCode(coll) != CCL_COLL_COUNT)
      expectAlgs.push_back({coll.str(), name, "", 1, -1, -1});
  }
  auto checkRows = [&](const char *what, size_t countField, size_t ptrField,
                       const std::vector<Row> &expect) {
    std::optional<uint64_t> base =
        c.array(where, what, *at + countField, *at + ptrField, expect.size());
    if (!base)
      return false;
    for (auto [i, r] : llvm::enumerate(expect)) {
      uint64_t e = *base + i * sizeof(ccl_selection_row);
      std::string f = std::string(what) + " " + std::to_string(i) + "'s ";
      if (!c.u32(where, f + "collective",
                 e + offsetof(ccl_selection_row, collective),
                 collectiveCode(r.collective)) ||
          !c.u32(where, f + "min_ranks",
                 e + offsetof(ccl_selection_row, min_ranks), r.minRanks) ||
          !c.u32(where, f + "max_ranks",
                 e + offsetof(ccl_selection_row, max_ranks),
                 r.maxRanks < 0 ? 0 : r.maxRanks) ||
          !c.u64(where, f + "max_bytes",
                 e + offsetof(ccl_selection_row, max_bytes),
                 r.maxBytes < 0 ? UINT64_MAX : uint64_t(r.maxBytes)) ||
          !c.str(where, f + "algorithm",
                 e + offsetof(ccl_selection_row, algorithm), r.algorithm) ||
          !c.str(where, f + "where", e + offsetof(ccl_selection_row, where),
                 r.where))
        return false;
      std::optional<uint64_t> plans =
          c.array(where, f + "plans", e + offsetof(ccl_selection_row, num_plans),
                  e + offsetof(ccl_selection_row, plans), groups.size());
      if (!plans)
        return false;
      for (auto [g, group] : llvm::enumerate(groups)) {
        std::optional<LoadedLibrary::Pointer> p =
            lib.pointer(*plans + g * sizeof(void *));
        auto want = planAt.find(r.algorithm + " " + group.front()->target);
        if (!p || want == planAt.end() || p->value != want->second)
          return c.differs(where, f + "plan " + std::to_string(g),
                           "another plan",
                           "the plan of '" + r.algorithm + "' for " +
                               group.front()->target);
      }
    }
    return true;
  };
  return checkRows("row", offsetof(ccl_selection, num_rows),
                   offsetof(ccl_selection, rows), expectRows) &&
         checkRows("algorithm row", offsetof(ccl_selection, num_algorithms),
                   offsetof(ccl_selection, algorithms), expectAlgs) &&
         checkRows("deterministic row",
                   offsetof(ccl_selection, num_deterministic_rows),
                   offsetof(ccl_selection, deterministic_rows), expectDet);
}
