//===- CclAttrs.td - ccl attributes ------------------------------*- tablegen -*-===//

#ifndef CCL_ATTRS_TD
#define CCL_ATTRS_TD

include "ccl/Dialect/CclDialect.td"
include "ccl/Dialect/CclEnums.td"
include "mlir/IR/AttrTypeBase.td"

class Ccl_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Ccl_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def Ccl_ChunkRefAttr : Ccl_Attr<"ChunkRef", "chunk"> {
  let summary = "A range of chunks of one buffer on one rank";
  let description = [{
    `#ccl.chunk<"BUF"[RANK][INDEX : COUNT]>` names chunks
    `[INDEX, INDEX + COUNT)` of buffer `BUF` on rank `RANK`. `BUF` is
    `input`, `output` or the symbol name of a `ccl.scratch` buffer of the
    enclosing algorithm. Chunk `i` of a buffer of `N` elements split into `k`
    chunks covers elements `[floor(i*N/k), floor((i+1)*N/k))`; the number of
    chunks of `input` and `output` is the algorithm's `chunks`, that of a
    scratch buffer its `slots`.

    Example: `#ccl.chunk<"recv"[1][0 : 1]>` is chunk 0 of scratch buffer
    `recv` on rank 1.
  }];
  let parameters = (ins
    StringRefParameter<"buffer name">:$buffer,
    "int64_t":$rank,
    "int64_t":$index,
    "int64_t":$count
  );
  let assemblyFormat = "`<` $buffer `[` $rank `]` `[` $index `:` $count `]` `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    bool isInput() const { return getBuffer() == "input"; }
    bool isOutput() const { return getBuffer() == "output"; }
    bool isScratch() const { return !isInput() && !isOutput(); }
    /// True when both name the same buffer on the same rank and their chunk
    /// ranges intersect.
    bool overlaps(ChunkRefAttr other) const;
    /// `input[0][1:2]` style rendering for diagnostics.
    std::string str() const;
  }];
}

#endif // CCL_ATTRS_TD
