// Re-verification of the passes after ccl-verify: every stdlib algorithm is
// compiled to the global level, then lowered (chunk-level copy/reduce into
// put/signal/wait over memory or port channels), replicated into instances
// and scheduled, and --ccl-verify proves each result against the same
// contract. A bug in one of those passes that drops a wait, a flush or a
// contribution fails here.
//
// RUN: %cclc %stdlib/allreduce/allpairs_ll.ccl --emit=ccl --nranks=2..5 -o %t.allpairs.mlir
// RUN: %ccl-opt %t.allpairs.mlir --ccl-lower-chunks --ccl-replicate=instances=2 --ccl-schedule --ccl-verify -verify-diagnostics -o /dev/null
// RUN: %cclc %stdlib/allreduce/ring.ccl --emit=ccl --nranks=2..5 -o %t.ring.mlir
// RUN: %ccl-opt %t.ring.mlir --ccl-lower-chunks --ccl-verify -verify-diagnostics -o /dev/null
// RUN: %ccl-opt %t.ring.mlir --ccl-lower-chunks=channel=port --ccl-replicate=instances=2 --ccl-verify -verify-diagnostics -o /dev/null
// RUN: %ccl-opt %t.ring.mlir --ccl-lower-chunks --ccl-schedule --ccl-verify -verify-diagnostics -o /dev/null
// RUN: %cclc %stdlib/reducescatter/ring_rs_overlap.ccl --emit=ccl --nranks=2..5 -o %t.rs.mlir
// RUN: %ccl-opt %t.rs.mlir --ccl-lower-chunks --ccl-replicate=instances=2 --ccl-schedule --ccl-verify -verify-diagnostics -o /dev/null
