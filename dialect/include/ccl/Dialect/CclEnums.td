//===- CclEnums.td - ccl enumerations ----------------------------*- tablegen -*-===//
//
// The closed sets of values of the ccl dialect, as enum attributes: the
// protocol and the collective of an algorithm, the kind of a channel. In an
// attribute dictionary they print as `#ccl.protocol<LL>` and
// `#ccl.collective<AllReduce>`; a channel's kind prints as the bare keyword
// (`ccl.channel @c memory 0 -> 1`).
//
//===----------------------------------------------------------------------===//

#ifndef CCL_ENUMS_TD
#define CCL_ENUMS_TD

include "ccl/Dialect/CclDialect.td"
include "mlir/IR/EnumAttr.td"

def Ccl_Protocol : I32EnumAttr<"Protocol", "how data crosses a channel", [
    // Data and a flag per 8 bytes in one 16-byte store; no signal needed.
    I32EnumAttrCase<"LL", 0>,
    // Plain data, then a signal the receiver waits for.
    I32EnumAttrCase<"Simple", 1>
  ]> {
  let cppNamespace = "::ccl";
  let genSpecializedAttr = 0;
}

def Ccl_ProtocolAttr : EnumAttr<Ccl_Dialect, Ccl_Protocol, "protocol"> {
  let assemblyFormat = "`<` $value `>`";
}

def Ccl_Bits : I32EnumAttr<"Bits", "what an algorithm promises about the bits of its reduced results", [
    // No promise: ranks may add in different orders.
    I32EnumAttrCase<"Any", 0, "any">,
    // Every rank that receives a reduced element gets the same expression.
    I32EnumAttrCase<"RankConsistent", 1, "rank_consistent">,
    // Rank-consistent, and every reduced chunk of a rank's buffer has the
    // same expression over the ranks: element i's does not depend on the
    // count, which moves chunk boundaries.
    I32EnumAttrCase<"SizeInvariant", 2, "size_invariant">,
    // Every reduced element is the left fold of its inputs in rank order,
    // ((x0 op x1) op x2) op ..., on every rank, at every count: the same
    // bits from every algorithm that promises it (the stdlib's
    // deterministic family).
    I32EnumAttrCase<"Deterministic", 3, "deterministic">
  ]> {
  let cppNamespace = "::ccl";
  let genSpecializedAttr = 0;
}

def Ccl_BitsAttr : EnumAttr<Ccl_Dialect, Ccl_Bits, "bits"> {
  let assemblyFormat = "`<` $value `>`";
}

def Ccl_ChannelKind : I32EnumAttr<"ChannelKind", "kind of a point-to-point channel", [
    // Peer loads and stores.
    I32EnumAttrCase<"Memory", 0, "memory">,
    // Requests a proxy executes with DMA or RDMA.
    I32EnumAttrCase<"Port", 1, "port">
  ]> {
  let cppNamespace = "::ccl";
  let genSpecializedAttr = 0;
}

def Ccl_ChannelKindAttr : EnumAttr<Ccl_Dialect, Ccl_ChannelKind, "channel_kind">;

def Ccl_CollectiveKind : I32EnumAttr<"CollectiveKind", "collective an algorithm implements", [
    // The built-in collectives (stdlib/collectives.ccl).
    I32EnumAttrCase<"AllReduce", 0>,
    I32EnumAttrCase<"AllGather", 1>,
    I32EnumAttrCase<"ReduceScatter", 2>,
    I32EnumAttrCase<"AllToAll", 3>,
    I32EnumAttrCase<"Broadcast", 4>,
    I32EnumAttrCase<"Reduce", 5>,
    // One the program declared (`collective NAME ...`); the algorithm
    // names it in `custom_collective`.
    I32EnumAttrCase<"Custom", 6, "custom">
  ]> {
  let cppNamespace = "::ccl";
  let genSpecializedAttr = 0;
}

def Ccl_CollectiveKindAttr : EnumAttr<Ccl_Dialect, Ccl_CollectiveKind, "collective"> {
  let assemblyFormat = "`<` $value `>`";
}

#endif // CCL_ENUMS_TD
