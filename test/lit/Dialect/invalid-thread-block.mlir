// RUN: %ccl-opt %s -split-input-file -verify-diagnostics
//
// BUG: ThreadBlockOp::verify (dialect/lib/CclOps.cpp, "if (getTb() < 0)")
// compares the I64Attr getters, which return uint64_t, with 0: a negative
// `tb` is never reported, and a negative `rank` is reported as
// 18446744073709551615. The verifier must read them as int64_t
// (getRankAttr().getInt(), getTbAttr().getInt()).

// Tests that a thread block index is not negative.
ccl.algorithm @a_n2 attributes {name = "a", collective = #ccl.collective<AllReduce>, nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<LL>, scheduled} {
  // expected-error@+1 {{'ccl.thread_block' op thread block must be non-negative}}
  ccl.thread_block rank 0 tb -1 {
  }
}

// -----

// Tests that a negative thread block rank is reported as that negative rank.
ccl.algorithm @a_n2 attributes {name = "a", collective = #ccl.collective<AllReduce>, nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<LL>, scheduled} {
  // expected-error@+1 {{'ccl.thread_block' op rank -1 does not exist (nranks = 2)}}
  ccl.thread_block rank -1 tb 0 {
  }
}
