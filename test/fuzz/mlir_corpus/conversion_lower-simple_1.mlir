ccl.algorithm @rr9_n10 attributes {chunks = 1 : i64, collective = #ccl.collective<AllReduce>, name = "rr9", nranks = 10 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @s slots 1
  ccl.channel @c1 memory 0 -> 1
  ccl.channel @c2 memory 0 -> 2
  ccl.channel @c3 memory 0 -> 3
  ccl.channel @c4 memory 0 -> 4
  ccl.channel @c5 memory 0 -> 5
  ccl.channel @c6 memory 0 -> 6
  ccl.channel @c7 memory 0 -> 7
  ccl.channel @c8 memory 0 -> 8
  ccl.channel @c9 memory 0 -> 9
  ccl.read_reduce tb 0 <"output"[0] [0 : 1]> from [#ccl.chunk<"s"[1] [0 : 1]>, #ccl.chunk<"s"[2] [0 : 1]>, #ccl.chunk<"s"[3] [0 : 1]>, #ccl.chunk<"s"[4] [0 : 1]>, #ccl.chunk<"s"[5] [0 : 1]>, #ccl.chunk<"s"[6] [0 : 1]>, #ccl.chunk<"s"[7] [0 : 1]>, #ccl.chunk<"s"[8] [0 : 1]>, #ccl.chunk<"s"[9] [0 : 1]>] via [@c1, @c2, @c3, @c4, @c5, @c6, @c7, @c8, @c9]
}
