module {
  ccl.algorithm @allpairs_ll_n2 attributes {chunks = 1 : i64, collective = "AllReduce", name = "allpairs_ll", nranks = 2 : i64, protocol = "LL"} {
    ccl.scratch @recv slots 2
    ccl.channel @mem_0_1 "memory" 0 -> 1
    ccl.channel @mem_1_0 "memory" 1 -> 0
    ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
    ccl.require <"input"[1] [0 : 1]> holds <"input"[1] [0 : 1]>
    ccl.put_packets @mem_0_1 tb 1 <"recv"[1] [0 : 1]> = <"input"[0] [0 : 1]>
    ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
    ccl.reduce_packets tb 0 <"output"[0] [0 : 1]> from <"recv"[0] [1 : 1]>
    ccl.put_packets @mem_1_0 tb 1 <"recv"[0] [1 : 1]> = <"input"[1] [0 : 1]>
    ccl.copy tb 0 <"output"[1] [0 : 1]> = <"input"[1] [0 : 1]>
    ccl.reduce_packets tb 0 <"output"[1] [0 : 1]> from <"recv"[1] [0 : 1]>
    ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>]
    ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>]
  }
  ccl.algorithm @allpairs_ll_n3 attributes {chunks = 1 : i64, collective = "AllReduce", name = "allpairs_ll", nranks = 3 : i64, protocol = "LL"} {
    ccl.scratch @recv slots 3
    ccl.channel @mem_0_1 "memory" 0 -> 1
    ccl.channel @mem_0_2 "memory" 0 -> 2
    ccl.channel @mem_1_0 "memory" 1 -> 0
    ccl.channel @mem_1_2 "memory" 1 -> 2
    ccl.channel @mem_2_0 "memory" 2 -> 0
    ccl.channel @mem_2_1 "memory" 2 -> 1
    ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
    ccl.require <"input"[1] [0 : 1]> holds <"input"[1] [0 : 1]>
    ccl.require <"input"[2] [0 : 1]> holds <"input"[2] [0 : 1]>
    ccl.put_packets @mem_0_1 tb 1 <"recv"[1] [0 : 1]> = <"input"[0] [0 : 1]>
    ccl.put_packets @mem_0_2 tb 2 <"recv"[2] [0 : 1]> = <"input"[0] [0 : 1]>
    ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
    ccl.reduce_packets tb 0 <"output"[0] [0 : 1]> from <"recv"[0] [1 : 1]>
    ccl.reduce_packets tb 0 <"output"[0] [0 : 1]> from <"recv"[0] [2 : 1]>
    ccl.put_packets @mem_1_0 tb 2 <"recv"[0] [1 : 1]> = <"input"[1] [0 : 1]>
    ccl.put_packets @mem_1_2 tb 1 <"recv"[2] [1 : 1]> = <"input"[1] [0 : 1]>
    ccl.copy tb 0 <"output"[1] [0 : 1]> = <"input"[1] [0 : 1]>
    ccl.reduce_packets tb 0 <"output"[1] [0 : 1]> from <"recv"[1] [0 : 1]>
    ccl.reduce_packets tb 0 <"output"[1] [0 : 1]> from <"recv"[1] [2 : 1]>
    ccl.put_packets @mem_2_0 tb 1 <"recv"[0] [2 : 1]> = <"input"[2] [0 : 1]>
    ccl.put_packets @mem_2_1 tb 2 <"recv"[1] [2 : 1]> = <"input"[2] [0 : 1]>
    ccl.copy tb 0 <"output"[2] [0 : 1]> = <"input"[2] [0 : 1]>
    ccl.reduce_packets tb 0 <"output"[2] [0 : 1]> from <"recv"[2] [0 : 1]>
    ccl.reduce_packets tb 0 <"output"[2] [0 : 1]> from <"recv"[2] [1 : 1]>
    ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>, #ccl.chunk<"input"[2] [0 : 1]>]
    ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>, #ccl.chunk<"input"[2] [0 : 1]>]
    ccl.ensure <"output"[2] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>, #ccl.chunk<"input"[2] [0 : 1]>]
  }
  ccl.algorithm @allpairs_ll_n4 attributes {chunks = 1 : i64, collective = "AllReduce", name = "allpairs_ll", nranks = 4 : i64, protocol = "LL"} {
    ccl.scratch @recv slots 4
    ccl.channel @mem_0_1 "memory" 0 -> 1
    ccl.channel @mem_0_2 "memory" 0 -> 2
    ccl.channel @mem_0_3 "memory" 0 -> 3
    ccl.channel @mem_1_0 "memory" 1 -> 0
    ccl.channel @mem_1_2 "memory" 1 -> 2
    ccl.channel @mem_1_3 "memory" 1 -> 3
    ccl.channel @mem_2_0 "memory" 2 -> 0
    ccl.channel @mem_2_1 "memory" 2 -> 1
    ccl.channel @mem_2_3 "memory" 2 -> 3
    ccl.channel @mem_3_0 "memory" 3 -> 0
    ccl.channel @mem_3_1 "memory" 3 -> 1
    ccl.channel @mem_3_2 "memory" 3 -> 2
    ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
    ccl.require <"input"[1] [0 : 1]> holds <"input"[1] [0 : 1]>
    ccl.require <"input"[2] [0 : 1]> holds <"input"[2] [0 : 1]>
    ccl.require <"input"[3] [0 : 1]> holds <"input"[3] [0 : 1]>
    ccl.put_packets @mem_0_1 tb 1 <"recv"[1] [0 : 1]> = <"input"[0] [0 : 1]>
    ccl.put_packets @mem_0_2 tb 2 <"recv"[2] [0 : 1]> = <"input"[0] [0 : 1]>
    ccl.put_packets @mem_0_3 tb 3 <"recv"[3] [0 : 1]> = <"input"[0] [0 : 1]>
    ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
    ccl.reduce_packets tb 0 <"output"[0] [0 : 1]> from <"recv"[0] [1 : 1]>
    ccl.reduce_packets tb 0 <"output"[0] [0 : 1]> from <"recv"[0] [2 : 1]>
    ccl.reduce_packets tb 0 <"output"[0] [0 : 1]> from <"recv"[0] [3 : 1]>
    ccl.put_packets @mem_1_0 tb 3 <"recv"[0] [1 : 1]> = <"input"[1] [0 : 1]>
    ccl.put_packets @mem_1_2 tb 1 <"recv"[2] [1 : 1]> = <"input"[1] [0 : 1]>
    ccl.put_packets @mem_1_3 tb 2 <"recv"[3] [1 : 1]> = <"input"[1] [0 : 1]>
    ccl.copy tb 0 <"output"[1] [0 : 1]> = <"input"[1] [0 : 1]>
    ccl.reduce_packets tb 0 <"output"[1] [0 : 1]> from <"recv"[1] [0 : 1]>
    ccl.reduce_packets tb 0 <"output"[1] [0 : 1]> from <"recv"[1] [2 : 1]>
    ccl.reduce_packets tb 0 <"output"[1] [0 : 1]> from <"recv"[1] [3 : 1]>
    ccl.put_packets @mem_2_0 tb 2 <"recv"[0] [2 : 1]> = <"input"[2] [0 : 1]>
    ccl.put_packets @mem_2_1 tb 3 <"recv"[1] [2 : 1]> = <"input"[2] [0 : 1]>
    ccl.put_packets @mem_2_3 tb 1 <"recv"[3] [2 : 1]> = <"input"[2] [0 : 1]>
    ccl.copy tb 0 <"output"[2] [0 : 1]> = <"input"[2] [0 : 1]>
    ccl.reduce_packets tb 0 <"output"[2] [0 : 1]> from <"recv"[2] [0 : 1]>
    ccl.reduce_packets tb 0 <"output"[2] [0 : 1]> from <"recv"[2] [1 : 1]>
    ccl.reduce_packets tb 0 <"output"[2] [0 : 1]> from <"recv"[2] [3 : 1]>
    ccl.put_packets @mem_3_0 tb 1 <"recv"[0] [3 : 1]> = <"input"[3] [0 : 1]>
    ccl.put_packets @mem_3_1 tb 2 <"recv"[1] [3 : 1]> = <"input"[3] [0 : 1]>
    ccl.put_packets @mem_3_2 tb 3 <"recv"[2] [3 : 1]> = <"input"[3] [0 : 1]>
    ccl.copy tb 0 <"output"[3] [0 : 1]> = <"input"[3] [0 : 1]>
    ccl.reduce_packets tb 0 <"output"[3] [0 : 1]> from <"recv"[3] [0 : 1]>
    ccl.reduce_packets tb 0 <"output"[3] [0 : 1]> from <"recv"[3] [1 : 1]>
    ccl.reduce_packets tb 0 <"output"[3] [0 : 1]> from <"recv"[3] [2 : 1]>
    ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>, #ccl.chunk<"input"[2] [0 : 1]>, #ccl.chunk<"input"[3] [0 : 1]>]
    ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>, #ccl.chunk<"input"[2] [0 : 1]>, #ccl.chunk<"input"[3] [0 : 1]>]
    ccl.ensure <"output"[2] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>, #ccl.chunk<"input"[2] [0 : 1]>, #ccl.chunk<"input"[3] [0 : 1]>]
    ccl.ensure <"output"[3] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>, #ccl.chunk<"input"[2] [0 : 1]>, #ccl.chunk<"input"[3] [0 : 1]>]
  }
  ccl.algorithm @allpairs_ll_n5 attributes {chunks = 1 : i64, collective = "AllReduce", name = "allpairs_ll", nranks = 5 : i64, protocol = "LL"} {
    ccl.scratch @recv slots 5
    ccl.channel @mem_0_1 "memory" 0 -> 1
    ccl.channel @mem_0_2 "memory" 0 -> 2
    ccl.channel @mem_0_3 "memory" 0 -> 3
    ccl.channel @mem_0_4 "memory" 0 -> 4
    ccl.channel @mem_1_0 "memory" 1 -> 0
    ccl.channel @mem_1_2 "memory" 1 -> 2
    ccl.channel @mem_1_3 "memory" 1 -> 3
    ccl.channel @mem_1_4 "memory" 1 -> 4
    ccl.channel @mem_2_0 "memory" 2 -> 0
    ccl.channel @mem_2_1 "memory" 2 -> 1
    ccl.channel @mem_2_3 "memory" 2 -> 3
    ccl.channel @mem_2_4 "memory" 2 -> 4
    ccl.channel @mem_3_0 "memory" 3 -> 0
    ccl.channel @mem_3_1 "memory" 3 -> 1
    ccl.channel @mem_3_2 "memory" 3 -> 2
    ccl.channel @mem_3_4 "memory" 3 -> 4
    ccl.channel @mem_4_0 "memory" 4 -> 0
    ccl.channel @mem_4_1 "memory" 4 -> 1
    ccl.channel @mem_4_2 "memory" 4 -> 2
    ccl.channel @mem_4_3 "memory" 4 -> 3
    ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
    ccl.require <"input"[1] [0 : 1]> holds <"input"[1] [0 : 1]>
    ccl.require <"input"[2] [0 : 1]> holds <"input"[2] [0 : 1]>
    ccl.require <"input"[3] [0 : 1]> holds <"input"[3] [0 : 1]>
    ccl.require <"input"[4] [0 : 1]> holds <"input"[4] [0 : 1]>
    ccl.put_packets @mem_0_1 tb 1 <"recv"[1] [0 : 1]> = <"input"[0] [0 : 1]>
    ccl.put_packets @mem_0_2 tb 2 <"recv"[2] [0 : 1]> = <"input"[0] [0 : 1]>
    ccl.put_packets @mem_0_3 tb 3 <"recv"[3] [0 : 1]> = <"input"[0] [0 : 1]>
    ccl.put_packets @mem_0_4 tb 4 <"recv"[4] [0 : 1]> = <"input"[0] [0 : 1]>
    ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
    ccl.reduce_packets tb 0 <"output"[0] [0 : 1]> from <"recv"[0] [1 : 1]>
    ccl.reduce_packets tb 0 <"output"[0] [0 : 1]> from <"recv"[0] [2 : 1]>
    ccl.reduce_packets tb 0 <"output"[0] [0 : 1]> from <"recv"[0] [3 : 1]>
    ccl.reduce_packets tb 0 <"output"[0] [0 : 1]> from <"recv"[0] [4 : 1]>
    ccl.put_packets @mem_1_0 tb 4 <"recv"[0] [1 : 1]> = <"input"[1] [0 : 1]>
    ccl.put_packets @mem_1_2 tb 1 <"recv"[2] [1 : 1]> = <"input"[1] [0 : 1]>
    ccl.put_packets @mem_1_3 tb 2 <"recv"[3] [1 : 1]> = <"input"[1] [0 : 1]>
    ccl.put_packets @mem_1_4 tb 3 <"recv"[4] [1 : 1]> = <"input"[1] [0 : 1]>
    ccl.copy tb 0 <"output"[1] [0 : 1]> = <"input"[1] [0 : 1]>
    ccl.reduce_packets tb 0 <"output"[1] [0 : 1]> from <"recv"[1] [0 : 1]>
    ccl.reduce_packets tb 0 <"output"[1] [0 : 1]> from <"recv"[1] [2 : 1]>
    ccl.reduce_packets tb 0 <"output"[1] [0 : 1]> from <"recv"[1] [3 : 1]>
    ccl.reduce_packets tb 0 <"output"[1] [0 : 1]> from <"recv"[1] [4 : 1]>
    ccl.put_packets @mem_2_0 tb 3 <"recv"[0] [2 : 1]> = <"input"[2] [0 : 1]>
    ccl.put_packets @mem_2_1 tb 4 <"recv"[1] [2 : 1]> = <"input"[2] [0 : 1]>
    ccl.put_packets @mem_2_3 tb 1 <"recv"[3] [2 : 1]> = <"input"[2] [0 : 1]>
    ccl.put_packets @mem_2_4 tb 2 <"recv"[4] [2 : 1]> = <"input"[2] [0 : 1]>
    ccl.copy tb 0 <"output"[2] [0 : 1]> = <"input"[2] [0 : 1]>
    ccl.reduce_packets tb 0 <"output"[2] [0 : 1]> from <"recv"[2] [0 : 1]>
    ccl.reduce_packets tb 0 <"output"[2] [0 : 1]> from <"recv"[2] [1 : 1]>
    ccl.reduce_packets tb 0 <"output"[2] [0 : 1]> from <"recv"[2] [3 : 1]>
    ccl.reduce_packets tb 0 <"output"[2] [0 : 1]> from <"recv"[2] [4 : 1]>
    ccl.put_packets @mem_3_0 tb 2 <"recv"[0] [3 : 1]> = <"input"[3] [0 : 1]>
    ccl.put_packets @mem_3_1 tb 3 <"recv"[1] [3 : 1]> = <"input"[3] [0 : 1]>
    ccl.put_packets @mem_3_2 tb 4 <"recv"[2] [3 : 1]> = <"input"[3] [0 : 1]>
    ccl.put_packets @mem_3_4 tb 1 <"recv"[4] [3 : 1]> = <"input"[3] [0 : 1]>
    ccl.copy tb 0 <"output"[3] [0 : 1]> = <"input"[3] [0 : 1]>
    ccl.reduce_packets tb 0 <"output"[3] [0 : 1]> from <"recv"[3] [0 : 1]>
    ccl.reduce_packets tb 0 <"output"[3] [0 : 1]> from <"recv"[3] [1 : 1]>
    ccl.reduce_packets tb 0 <"output"[3] [0 : 1]> from <"recv"[3] [2 : 1]>
    ccl.reduce_packets tb 0 <"output"[3] [0 : 1]> from <"recv"[3] [4 : 1]>
    ccl.put_packets @mem_4_0 tb 1 <"recv"[0] [4 : 1]> = <"input"[4] [0 : 1]>
    ccl.put_packets @mem_4_1 tb 2 <"recv"[1] [4 : 1]> = <"input"[4] [0 : 1]>
    ccl.put_packets @mem_4_2 tb 3 <"recv"[2] [4 : 1]> = <"input"[4] [0 : 1]>
    ccl.put_packets @mem_4_3 tb 4 <"recv"[3] [4 : 1]> = <"input"[4] [0 : 1]>
    ccl.copy tb 0 <"output"[4] [0 : 1]> = <"input"[4] [0 : 1]>
    ccl.reduce_packets tb 0 <"output"[4] [0 : 1]> from <"recv"[4] [0 : 1]>
    ccl.reduce_packets tb 0 <"output"[4] [0 : 1]> from <"recv"[4] [1 : 1]>
    ccl.reduce_packets tb 0 <"output"[4] [0 : 1]> from <"recv"[4] [2 : 1]>
    ccl.reduce_packets tb 0 <"output"[4] [0 : 1]> from <"recv"[4] [3 : 1]>
    ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>, #ccl.chunk<"input"[2] [0 : 1]>, #ccl.chunk<"input"[3] [0 : 1]>, #ccl.chunk<"input"[4] [0 : 1]>]
    ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>, #ccl.chunk<"input"[2] [0 : 1]>, #ccl.chunk<"input"[3] [0 : 1]>, #ccl.chunk<"input"[4] [0 : 1]>]
    ccl.ensure <"output"[2] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>, #ccl.chunk<"input"[2] [0 : 1]>, #ccl.chunk<"input"[3] [0 : 1]>, #ccl.chunk<"input"[4] [0 : 1]>]
    ccl.ensure <"output"[3] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>, #ccl.chunk<"input"[2] [0 : 1]>, #ccl.chunk<"input"[3] [0 : 1]>, #ccl.chunk<"input"[4] [0 : 1]>]
    ccl.ensure <"output"[4] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>, #ccl.chunk<"input"[2] [0 : 1]>, #ccl.chunk<"input"[3] [0 : 1]>, #ccl.chunk<"input"[4] [0 : 1]>]
  }
}
