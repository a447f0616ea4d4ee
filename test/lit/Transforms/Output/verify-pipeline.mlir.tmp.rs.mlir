module {
  ccl.algorithm @ring_rs_overlap_n2 attributes {chunks = 4 : i64, collective = "ReduceScatter", inplace = true, input_chunks = 8 : i64, name = "ring_rs_overlap", nranks = 2 : i64, protocol = "Simple"} {
    ccl.scratch @recv slots 4
    ccl.channel @port_0_1 "port" 0 -> 1
    ccl.channel @port_1_0 "port" 1 -> 0
    ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
    ccl.require <"input"[0] [1 : 1]> holds <"input"[0] [1 : 1]>
    ccl.require <"input"[0] [2 : 1]> holds <"input"[0] [2 : 1]>
    ccl.require <"input"[0] [3 : 1]> holds <"input"[0] [3 : 1]>
    ccl.require <"input"[0] [4 : 1]> holds <"input"[0] [4 : 1]>
    ccl.require <"input"[0] [5 : 1]> holds <"input"[0] [5 : 1]>
    ccl.require <"input"[0] [6 : 1]> holds <"input"[0] [6 : 1]>
    ccl.require <"input"[0] [7 : 1]> holds <"input"[0] [7 : 1]>
    ccl.require <"input"[1] [0 : 1]> holds <"input"[1] [0 : 1]>
    ccl.require <"input"[1] [1 : 1]> holds <"input"[1] [1 : 1]>
    ccl.require <"input"[1] [2 : 1]> holds <"input"[1] [2 : 1]>
    ccl.require <"input"[1] [3 : 1]> holds <"input"[1] [3 : 1]>
    ccl.require <"input"[1] [4 : 1]> holds <"input"[1] [4 : 1]>
    ccl.require <"input"[1] [5 : 1]> holds <"input"[1] [5 : 1]>
    ccl.require <"input"[1] [6 : 1]> holds <"input"[1] [6 : 1]>
    ccl.require <"input"[1] [7 : 1]> holds <"input"[1] [7 : 1]>
    ccl.put @port_0_1 tb 0 <"recv"[1] [0 : 2]> = <"input"[0] [4 : 2]> signal
    ccl.put @port_0_1 tb 0 <"recv"[1] [2 : 2]> = <"input"[0] [6 : 2]> signal
    ccl.wait @port_1_0 tb 0
    ccl.reduce tb 0 <"input"[0] [0 : 2]> from <"recv"[0] [0 : 2]>
    ccl.wait @port_1_0 tb 0
    ccl.reduce tb 0 <"input"[0] [2 : 2]> from <"recv"[0] [2 : 2]>
    ccl.flush @port_0_1 tb 0
    ccl.put @port_1_0 tb 0 <"recv"[0] [0 : 2]> = <"input"[1] [0 : 2]> signal
    ccl.put @port_1_0 tb 0 <"recv"[0] [2 : 2]> = <"input"[1] [2 : 2]> signal
    ccl.wait @port_0_1 tb 0
    ccl.reduce tb 0 <"input"[1] [4 : 2]> from <"recv"[1] [0 : 2]>
    ccl.wait @port_0_1 tb 0
    ccl.reduce tb 0 <"input"[1] [6 : 2]> from <"recv"[1] [2 : 2]>
    ccl.flush @port_1_0 tb 0
    ccl.ensure <"input"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>]
    ccl.ensure <"input"[0] [1 : 1]> = [#ccl.chunk<"input"[0] [1 : 1]>, #ccl.chunk<"input"[1] [1 : 1]>]
    ccl.ensure <"input"[0] [2 : 1]> = [#ccl.chunk<"input"[0] [2 : 1]>, #ccl.chunk<"input"[1] [2 : 1]>]
    ccl.ensure <"input"[0] [3 : 1]> = [#ccl.chunk<"input"[0] [3 : 1]>, #ccl.chunk<"input"[1] [3 : 1]>]
    ccl.ensure <"input"[1] [4 : 1]> = [#ccl.chunk<"input"[0] [4 : 1]>, #ccl.chunk<"input"[1] [4 : 1]>]
    ccl.ensure <"input"[1] [5 : 1]> = [#ccl.chunk<"input"[0] [5 : 1]>, #ccl.chunk<"input"[1] [5 : 1]>]
    ccl.ensure <"input"[1] [6 : 1]> = [#ccl.chunk<"input"[0] [6 : 1]>, #ccl.chunk<"input"[1] [6 : 1]>]
    ccl.ensure <"input"[1] [7 : 1]> = [#ccl.chunk<"input"[0] [7 : 1]>, #ccl.chunk<"input"[1] [7 : 1]>]
  }
  ccl.algorithm @ring_rs_overlap_n3 attributes {chunks = 6 : i64, collective = "ReduceScatter", inplace = true, input_chunks = 18 : i64, name = "ring_rs_overlap", nranks = 3 : i64, protocol = "Simple"} {
    ccl.scratch @recv slots 6
    ccl.channel @port_0_1 "port" 0 -> 1
    ccl.channel @port_2_0 "port" 2 -> 0
    ccl.channel @port_0_2 "port" 0 -> 2
    ccl.channel @port_1_0 "port" 1 -> 0
    ccl.channel @port_1_2 "port" 1 -> 2
    ccl.channel @port_2_1 "port" 2 -> 1
    ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
    ccl.require <"input"[0] [1 : 1]> holds <"input"[0] [1 : 1]>
    ccl.require <"input"[0] [2 : 1]> holds <"input"[0] [2 : 1]>
    ccl.require <"input"[0] [3 : 1]> holds <"input"[0] [3 : 1]>
    ccl.require <"input"[0] [4 : 1]> holds <"input"[0] [4 : 1]>
    ccl.require <"input"[0] [5 : 1]> holds <"input"[0] [5 : 1]>
    ccl.require <"input"[0] [6 : 1]> holds <"input"[0] [6 : 1]>
    ccl.require <"input"[0] [7 : 1]> holds <"input"[0] [7 : 1]>
    ccl.require <"input"[0] [8 : 1]> holds <"input"[0] [8 : 1]>
    ccl.require <"input"[0] [9 : 1]> holds <"input"[0] [9 : 1]>
    ccl.require <"input"[0] [10 : 1]> holds <"input"[0] [10 : 1]>
    ccl.require <"input"[0] [11 : 1]> holds <"input"[0] [11 : 1]>
    ccl.require <"input"[0] [12 : 1]> holds <"input"[0] [12 : 1]>
    ccl.require <"input"[0] [13 : 1]> holds <"input"[0] [13 : 1]>
    ccl.require <"input"[0] [14 : 1]> holds <"input"[0] [14 : 1]>
    ccl.require <"input"[0] [15 : 1]> holds <"input"[0] [15 : 1]>
    ccl.require <"input"[0] [16 : 1]> holds <"input"[0] [16 : 1]>
    ccl.require <"input"[0] [17 : 1]> holds <"input"[0] [17 : 1]>
    ccl.require <"input"[1] [0 : 1]> holds <"input"[1] [0 : 1]>
    ccl.require <"input"[1] [1 : 1]> holds <"input"[1] [1 : 1]>
    ccl.require <"input"[1] [2 : 1]> holds <"input"[1] [2 : 1]>
    ccl.require <"input"[1] [3 : 1]> holds <"input"[1] [3 : 1]>
    ccl.require <"input"[1] [4 : 1]> holds <"input"[1] [4 : 1]>
    ccl.require <"input"[1] [5 : 1]> holds <"input"[1] [5 : 1]>
    ccl.require <"input"[1] [6 : 1]> holds <"input"[1] [6 : 1]>
    ccl.require <"input"[1] [7 : 1]> holds <"input"[1] [7 : 1]>
    ccl.require <"input"[1] [8 : 1]> holds <"input"[1] [8 : 1]>
    ccl.require <"input"[1] [9 : 1]> holds <"input"[1] [9 : 1]>
    ccl.require <"input"[1] [10 : 1]> holds <"input"[1] [10 : 1]>
    ccl.require <"input"[1] [11 : 1]> holds <"input"[1] [11 : 1]>
    ccl.require <"input"[1] [12 : 1]> holds <"input"[1] [12 : 1]>
    ccl.require <"input"[1] [13 : 1]> holds <"input"[1] [13 : 1]>
    ccl.require <"input"[1] [14 : 1]> holds <"input"[1] [14 : 1]>
    ccl.require <"input"[1] [15 : 1]> holds <"input"[1] [15 : 1]>
    ccl.require <"input"[1] [16 : 1]> holds <"input"[1] [16 : 1]>
    ccl.require <"input"[1] [17 : 1]> holds <"input"[1] [17 : 1]>
    ccl.require <"input"[2] [0 : 1]> holds <"input"[2] [0 : 1]>
    ccl.require <"input"[2] [1 : 1]> holds <"input"[2] [1 : 1]>
    ccl.require <"input"[2] [2 : 1]> holds <"input"[2] [2 : 1]>
    ccl.require <"input"[2] [3 : 1]> holds <"input"[2] [3 : 1]>
    ccl.require <"input"[2] [4 : 1]> holds <"input"[2] [4 : 1]>
    ccl.require <"input"[2] [5 : 1]> holds <"input"[2] [5 : 1]>
    ccl.require <"input"[2] [6 : 1]> holds <"input"[2] [6 : 1]>
    ccl.require <"input"[2] [7 : 1]> holds <"input"[2] [7 : 1]>
    ccl.require <"input"[2] [8 : 1]> holds <"input"[2] [8 : 1]>
    ccl.require <"input"[2] [9 : 1]> holds <"input"[2] [9 : 1]>
    ccl.require <"input"[2] [10 : 1]> holds <"input"[2] [10 : 1]>
    ccl.require <"input"[2] [11 : 1]> holds <"input"[2] [11 : 1]>
    ccl.require <"input"[2] [12 : 1]> holds <"input"[2] [12 : 1]>
    ccl.require <"input"[2] [13 : 1]> holds <"input"[2] [13 : 1]>
    ccl.require <"input"[2] [14 : 1]> holds <"input"[2] [14 : 1]>
    ccl.require <"input"[2] [15 : 1]> holds <"input"[2] [15 : 1]>
    ccl.require <"input"[2] [16 : 1]> holds <"input"[2] [16 : 1]>
    ccl.require <"input"[2] [17 : 1]> holds <"input"[2] [17 : 1]>
    ccl.put @port_0_1 tb 0 <"recv"[1] [0 : 3]> = <"input"[0] [12 : 3]> signal
    ccl.put @port_0_1 tb 0 <"recv"[1] [3 : 3]> = <"input"[0] [15 : 3]> signal
    ccl.wait @port_2_0 tb 0
    ccl.reduce tb 0 <"input"[0] [6 : 3]> from <"recv"[0] [0 : 3]>
    ccl.wait @port_2_0 tb 0
    ccl.reduce tb 0 <"input"[0] [9 : 3]> from <"recv"[0] [3 : 3]>
    ccl.signal @port_0_2 tb 0
    ccl.wait @port_1_0 tb 0
    ccl.put @port_0_1 tb 0 <"recv"[1] [0 : 3]> = <"input"[0] [6 : 3]> signal
    ccl.put @port_0_1 tb 0 <"recv"[1] [3 : 3]> = <"input"[0] [9 : 3]> signal
    ccl.wait @port_2_0 tb 0
    ccl.reduce tb 0 <"input"[0] [0 : 3]> from <"recv"[0] [0 : 3]>
    ccl.wait @port_2_0 tb 0
    ccl.reduce tb 0 <"input"[0] [3 : 3]> from <"recv"[0] [3 : 3]>
    ccl.flush @port_0_1 tb 0
    ccl.put @port_1_2 tb 0 <"recv"[2] [0 : 3]> = <"input"[1] [0 : 3]> signal
    ccl.put @port_1_2 tb 0 <"recv"[2] [3 : 3]> = <"input"[1] [3 : 3]> signal
    ccl.wait @port_0_1 tb 0
    ccl.reduce tb 0 <"input"[1] [12 : 3]> from <"recv"[1] [0 : 3]>
    ccl.wait @port_0_1 tb 0
    ccl.reduce tb 0 <"input"[1] [15 : 3]> from <"recv"[1] [3 : 3]>
    ccl.signal @port_1_0 tb 0
    ccl.wait @port_2_1 tb 0
    ccl.put @port_1_2 tb 0 <"recv"[2] [0 : 3]> = <"input"[1] [12 : 3]> signal
    ccl.put @port_1_2 tb 0 <"recv"[2] [3 : 3]> = <"input"[1] [15 : 3]> signal
    ccl.wait @port_0_1 tb 0
    ccl.reduce tb 0 <"input"[1] [6 : 3]> from <"recv"[1] [0 : 3]>
    ccl.wait @port_0_1 tb 0
    ccl.reduce tb 0 <"input"[1] [9 : 3]> from <"recv"[1] [3 : 3]>
    ccl.flush @port_1_2 tb 0
    ccl.put @port_2_0 tb 0 <"recv"[0] [0 : 3]> = <"input"[2] [6 : 3]> signal
    ccl.put @port_2_0 tb 0 <"recv"[0] [3 : 3]> = <"input"[2] [9 : 3]> signal
    ccl.wait @port_1_2 tb 0
    ccl.reduce tb 0 <"input"[2] [0 : 3]> from <"recv"[2] [0 : 3]>
    ccl.wait @port_1_2 tb 0
    ccl.reduce tb 0 <"input"[2] [3 : 3]> from <"recv"[2] [3 : 3]>
    ccl.signal @port_2_1 tb 0
    ccl.wait @port_0_2 tb 0
    ccl.put @port_2_0 tb 0 <"recv"[0] [0 : 3]> = <"input"[2] [0 : 3]> signal
    ccl.put @port_2_0 tb 0 <"recv"[0] [3 : 3]> = <"input"[2] [3 : 3]> signal
    ccl.wait @port_1_2 tb 0
    ccl.reduce tb 0 <"input"[2] [12 : 3]> from <"recv"[2] [0 : 3]>
    ccl.wait @port_1_2 tb 0
    ccl.reduce tb 0 <"input"[2] [15 : 3]> from <"recv"[2] [3 : 3]>
    ccl.flush @port_2_0 tb 0
    ccl.ensure <"input"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>, #ccl.chunk<"input"[2] [0 : 1]>]
    ccl.ensure <"input"[0] [1 : 1]> = [#ccl.chunk<"input"[0] [1 : 1]>, #ccl.chunk<"input"[1] [1 : 1]>, #ccl.chunk<"input"[2] [1 : 1]>]
    ccl.ensure <"input"[0] [2 : 1]> = [#ccl.chunk<"input"[0] [2 : 1]>, #ccl.chunk<"input"[1] [2 : 1]>, #ccl.chunk<"input"[2] [2 : 1]>]
    ccl.ensure <"input"[0] [3 : 1]> = [#ccl.chunk<"input"[0] [3 : 1]>, #ccl.chunk<"input"[1] [3 : 1]>, #ccl.chunk<"input"[2] [3 : 1]>]
    ccl.ensure <"input"[0] [4 : 1]> = [#ccl.chunk<"input"[0] [4 : 1]>, #ccl.chunk<"input"[1] [4 : 1]>, #ccl.chunk<"input"[2] [4 : 1]>]
    ccl.ensure <"input"[0] [5 : 1]> = [#ccl.chunk<"input"[0] [5 : 1]>, #ccl.chunk<"input"[1] [5 : 1]>, #ccl.chunk<"input"[2] [5 : 1]>]
    ccl.ensure <"input"[1] [6 : 1]> = [#ccl.chunk<"input"[0] [6 : 1]>, #ccl.chunk<"input"[1] [6 : 1]>, #ccl.chunk<"input"[2] [6 : 1]>]
    ccl.ensure <"input"[1] [7 : 1]> = [#ccl.chunk<"input"[0] [7 : 1]>, #ccl.chunk<"input"[1] [7 : 1]>, #ccl.chunk<"input"[2] [7 : 1]>]
    ccl.ensure <"input"[1] [8 : 1]> = [#ccl.chunk<"input"[0] [8 : 1]>, #ccl.chunk<"input"[1] [8 : 1]>, #ccl.chunk<"input"[2] [8 : 1]>]
    ccl.ensure <"input"[1] [9 : 1]> = [#ccl.chunk<"input"[0] [9 : 1]>, #ccl.chunk<"input"[1] [9 : 1]>, #ccl.chunk<"input"[2] [9 : 1]>]
    ccl.ensure <"input"[1] [10 : 1]> = [#ccl.chunk<"input"[0] [10 : 1]>, #ccl.chunk<"input"[1] [10 : 1]>, #ccl.chunk<"input"[2] [10 : 1]>]
    ccl.ensure <"input"[1] [11 : 1]> = [#ccl.chunk<"input"[0] [11 : 1]>, #ccl.chunk<"input"[1] [11 : 1]>, #ccl.chunk<"input"[2] [11 : 1]>]
    ccl.ensure <"input"[2] [12 : 1]> = [#ccl.chunk<"input"[0] [12 : 1]>, #ccl.chunk<"input"[1] [12 : 1]>, #ccl.chunk<"input"[2] [12 : 1]>]
    ccl.ensure <"input"[2] [13 : 1]> = [#ccl.chunk<"input"[0] [13 : 1]>, #ccl.chunk<"input"[1] [13 : 1]>, #ccl.chunk<"input"[2] [13 : 1]>]
    ccl.ensure <"input"[2] [14 : 1]> = [#ccl.chunk<"input"[0] [14 : 1]>, #ccl.chunk<"input"[1] [14 : 1]>, #ccl.chunk<"input"[2] [14 : 1]>]
    ccl.ensure <"input"[2] [15 : 1]> = [#ccl.chunk<"input"[0] [15 : 1]>, #ccl.chunk<"input"[1] [15 : 1]>, #ccl.chunk<"input"[2] [15 : 1]>]
    ccl.ensure <"input"[2] [16 : 1]> = [#ccl.chunk<"input"[0] [16 : 1]>, #ccl.chunk<"input"[1] [16 : 1]>, #ccl.chunk<"input"[2] [16 : 1]>]
    ccl.ensure <"input"[2] [17 : 1]> = [#ccl.chunk<"input"[0] [17 : 1]>, #ccl.chunk<"input"[1] [17 : 1]>, #ccl.chunk<"input"[2] [17 : 1]>]
  }
  ccl.algorithm @ring_rs_overlap_n4 attributes {chunks = 8 : i64, collective = "ReduceScatter", inplace = true, input_chunks = 32 : i64, name = "ring_rs_overlap", nranks = 4 : i64, protocol = "Simple"} {
    ccl.scratch @recv slots 8
    ccl.channel @port_0_1 "port" 0 -> 1
    ccl.channel @port_3_0 "port" 3 -> 0
    ccl.channel @port_0_3 "port" 0 -> 3
    ccl.channel @port_1_0 "port" 1 -> 0
    ccl.channel @port_1_2 "port" 1 -> 2
    ccl.channel @port_2_1 "port" 2 -> 1
    ccl.channel @port_2_3 "port" 2 -> 3
    ccl.channel @port_3_2 "port" 3 -> 2
    ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
    ccl.require <"input"[0] [1 : 1]> holds <"input"[0] [1 : 1]>
    ccl.require <"input"[0] [2 : 1]> holds <"input"[0] [2 : 1]>
    ccl.require <"input"[0] [3 : 1]> holds <"input"[0] [3 : 1]>
    ccl.require <"input"[0] [4 : 1]> holds <"input"[0] [4 : 1]>
    ccl.require <"input"[0] [5 : 1]> holds <"input"[0] [5 : 1]>
    ccl.require <"input"[0] [6 : 1]> holds <"input"[0] [6 : 1]>
    ccl.require <"input"[0] [7 : 1]> holds <"input"[0] [7 : 1]>
    ccl.require <"input"[0] [8 : 1]> holds <"input"[0] [8 : 1]>
    ccl.require <"input"[0] [9 : 1]> holds <"input"[0] [9 : 1]>
    ccl.require <"input"[0] [10 : 1]> holds <"input"[0] [10 : 1]>
    ccl.require <"input"[0] [11 : 1]> holds <"input"[0] [11 : 1]>
    ccl.require <"input"[0] [12 : 1]> holds <"input"[0] [12 : 1]>
    ccl.require <"input"[0] [13 : 1]> holds <"input"[0] [13 : 1]>
    ccl.require <"input"[0] [14 : 1]> holds <"input"[0] [14 : 1]>
    ccl.require <"input"[0] [15 : 1]> holds <"input"[0] [15 : 1]>
    ccl.require <"input"[0] [16 : 1]> holds <"input"[0] [16 : 1]>
    ccl.require <"input"[0] [17 : 1]> holds <"input"[0] [17 : 1]>
    ccl.require <"input"[0] [18 : 1]> holds <"input"[0] [18 : 1]>
    ccl.require <"input"[0] [19 : 1]> holds <"input"[0] [19 : 1]>
    ccl.require <"input"[0] [20 : 1]> holds <"input"[0] [20 : 1]>
    ccl.require <"input"[0] [21 : 1]> holds <"input"[0] [21 : 1]>
    ccl.require <"input"[0] [22 : 1]> holds <"input"[0] [22 : 1]>
    ccl.require <"input"[0] [23 : 1]> holds <"input"[0] [23 : 1]>
    ccl.require <"input"[0] [24 : 1]> holds <"input"[0] [24 : 1]>
    ccl.require <"input"[0] [25 : 1]> holds <"input"[0] [25 : 1]>
    ccl.require <"input"[0] [26 : 1]> holds <"input"[0] [26 : 1]>
    ccl.require <"input"[0] [27 : 1]> holds <"input"[0] [27 : 1]>
    ccl.require <"input"[0] [28 : 1]> holds <"input"[0] [28 : 1]>
    ccl.require <"input"[0] [29 : 1]> holds <"input"[0] [29 : 1]>
    ccl.require <"input"[0] [30 : 1]> holds <"input"[0] [30 : 1]>
    ccl.require <"input"[0] [31 : 1]> holds <"input"[0] [31 : 1]>
    ccl.require <"input"[1] [0 : 1]> holds <"input"[1] [0 : 1]>
    ccl.require <"input"[1] [1 : 1]> holds <"input"[1] [1 : 1]>
    ccl.require <"input"[1] [2 : 1]> holds <"input"[1] [2 : 1]>
    ccl.require <"input"[1] [3 : 1]> holds <"input"[1] [3 : 1]>
    ccl.require <"input"[1] [4 : 1]> holds <"input"[1] [4 : 1]>
    ccl.require <"input"[1] [5 : 1]> holds <"input"[1] [5 : 1]>
    ccl.require <"input"[1] [6 : 1]> holds <"input"[1] [6 : 1]>
    ccl.require <"input"[1] [7 : 1]> holds <"input"[1] [7 : 1]>
    ccl.require <"input"[1] [8 : 1]> holds <"input"[1] [8 : 1]>
    ccl.require <"input"[1] [9 : 1]> holds <"input"[1] [9 : 1]>
    ccl.require <"input"[1] [10 : 1]> holds <"input"[1] [10 : 1]>
    ccl.require <"input"[1] [11 : 1]> holds <"input"[1] [11 : 1]>
    ccl.require <"input"[1] [12 : 1]> holds <"input"[1] [12 : 1]>
    ccl.require <"input"[1] [13 : 1]> holds <"input"[1] [13 : 1]>
    ccl.require <"input"[1] [14 : 1]> holds <"input"[1] [14 : 1]>
    ccl.require <"input"[1] [15 : 1]> holds <"input"[1] [15 : 1]>
    ccl.require <"input"[1] [16 : 1]> holds <"input"[1] [16 : 1]>
    ccl.require <"input"[1] [17 : 1]> holds <"input"[1] [17 : 1]>
    ccl.require <"input"[1] [18 : 1]> holds <"input"[1] [18 : 1]>
    ccl.require <"input"[1] [19 : 1]> holds <"input"[1] [19 : 1]>
    ccl.require <"input"[1] [20 : 1]> holds <"input"[1] [20 : 1]>
    ccl.require <"input"[1] [21 : 1]> holds <"input"[1] [21 : 1]>
    ccl.require <"input"[1] [22 : 1]> holds <"input"[1] [22 : 1]>
    ccl.require <"input"[1] [23 : 1]> holds <"input"[1] [23 : 1]>
    ccl.require <"input"[1] [24 : 1]> holds <"input"[1] [24 : 1]>
    ccl.require <"input"[1] [25 : 1]> holds <"input"[1] [25 : 1]>
    ccl.require <"input"[1] [26 : 1]> holds <"input"[1] [26 : 1]>
    ccl.require <"input"[1] [27 : 1]> holds <"input"[1] [27 : 1]>
    ccl.require <"input"[1] [28 : 1]> holds <"input"[1] [28 : 1]>
    ccl.require <"input"[1] [29 : 1]> holds <"input"[1] [29 : 1]>
    ccl.require <"input"[1] [30 : 1]> holds <"input"[1] [30 : 1]>
    ccl.require <"input"[1] [31 : 1]> holds <"input"[1] [31 : 1]>
    ccl.require <"input"[2] [0 : 1]> holds <"input"[2] [0 : 1]>
    ccl.require <"input"[2] [1 : 1]> holds <"input"[2] [1 : 1]>
    ccl.require <"input"[2] [2 : 1]> holds <"input"[2] [2 : 1]>
    ccl.require <"input"[2] [3 : 1]> holds <"input"[2] [3 : 1]>
    ccl.require <"input"[2] [4 : 1]> holds <"input"[2] [4 : 1]>
    ccl.require <"input"[2] [5 : 1]> holds <"input"[2] [5 : 1]>
    ccl.require <"input"[2] [6 : 1]> holds <"input"[2] [6 : 1]>
    ccl.require <"input"[2] [7 : 1]> holds <"input"[2] [7 : 1]>
    ccl.require <"input"[2] [8 : 1]> holds <"input"[2] [8 : 1]>
    ccl.require <"input"[2] [9 : 1]> holds <"input"[2] [9 : 1]>
    ccl.require <"input"[2] [10 : 1]> holds <"input"[2] [10 : 1]>
    ccl.require <"input"[2] [11 : 1]> holds <"input"[2] [11 : 1]>
    ccl.require <"input"[2] [12 : 1]> holds <"input"[2] [12 : 1]>
    ccl.require <"input"[2] [13 : 1]> holds <"input"[2] [13 : 1]>
    ccl.require <"input"[2] [14 : 1]> holds <"input"[2] [14 : 1]>
    ccl.require <"input"[2] [15 : 1]> holds <"input"[2] [15 : 1]>
    ccl.require <"input"[2] [16 : 1]> holds <"input"[2] [16 : 1]>
    ccl.require <"input"[2] [17 : 1]> holds <"input"[2] [17 : 1]>
    ccl.require <"input"[2] [18 : 1]> holds <"input"[2] [18 : 1]>
    ccl.require <"input"[2] [19 : 1]> holds <"input"[2] [19 : 1]>
    ccl.require <"input"[2] [20 : 1]> holds <"input"[2] [20 : 1]>
    ccl.require <"input"[2] [21 : 1]> holds <"input"[2] [21 : 1]>
    ccl.require <"input"[2] [22 : 1]> holds <"input"[2] [22 : 1]>
    ccl.require <"input"[2] [23 : 1]> holds <"input"[2] [23 : 1]>
    ccl.require <"input"[2] [24 : 1]> holds <"input"[2] [24 : 1]>
    ccl.require <"input"[2] [25 : 1]> holds <"input"[2] [25 : 1]>
    ccl.require <"input"[2] [26 : 1]> holds <"input"[2] [26 : 1]>
    ccl.require <"input"[2] [27 : 1]> holds <"input"[2] [27 : 1]>
    ccl.require <"input"[2] [28 : 1]> holds <"input"[2] [28 : 1]>
    ccl.require <"input"[2] [29 : 1]> holds <"input"[2] [29 : 1]>
    ccl.require <"input"[2] [30 : 1]> holds <"input"[2] [30 : 1]>
    ccl.require <"input"[2] [31 : 1]> holds <"input"[2] [31 : 1]>
    ccl.require <"input"[3] [0 : 1]> holds <"input"[3] [0 : 1]>
    ccl.require <"input"[3] [1 : 1]> holds <"input"[3] [1 : 1]>
    ccl.require <"input"[3] [2 : 1]> holds <"input"[3] [2 : 1]>
    ccl.require <"input"[3] [3 : 1]> holds <"input"[3] [3 : 1]>
    ccl.require <"input"[3] [4 : 1]> holds <"input"[3] [4 : 1]>
    ccl.require <"input"[3] [5 : 1]> holds <"input"[3] [5 : 1]>
    ccl.require <"input"[3] [6 : 1]> holds <"input"[3] [6 : 1]>
    ccl.require <"input"[3] [7 : 1]> holds <"input"[3] [7 : 1]>
    ccl.require <"input"[3] [8 : 1]> holds <"input"[3] [8 : 1]>
    ccl.require <"input"[3] [9 : 1]> holds <"input"[3] [9 : 1]>
    ccl.require <"input"[3] [10 : 1]> holds <"input"[3] [10 : 1]>
    ccl.require <"input"[3] [11 : 1]> holds <"input"[3] [11 : 1]>
    ccl.require <"input"[3] [12 : 1]> holds <"input"[3] [12 : 1]>
    ccl.require <"input"[3] [13 : 1]> holds <"input"[3] [13 : 1]>
    ccl.require <"input"[3] [14 : 1]> holds <"input"[3] [14 : 1]>
    ccl.require <"input"[3] [15 : 1]> holds <"input"[3] [15 : 1]>
    ccl.require <"input"[3] [16 : 1]> holds <"input"[3] [16 : 1]>
    ccl.require <"input"[3] [17 : 1]> holds <"input"[3] [17 : 1]>
    ccl.require <"input"[3] [18 : 1]> holds <"input"[3] [18 : 1]>
    ccl.require <"input"[3] [19 : 1]> holds <"input"[3] [19 : 1]>
    ccl.require <"input"[3] [20 : 1]> holds <"input"[3] [20 : 1]>
    ccl.require <"input"[3] [21 : 1]> holds <"input"[3] [21 : 1]>
    ccl.require <"input"[3] [22 : 1]> holds <"input"[3] [22 : 1]>
    ccl.require <"input"[3] [23 : 1]> holds <"input"[3] [23 : 1]>
    ccl.require <"input"[3] [24 : 1]> holds <"input"[3] [24 : 1]>
    ccl.require <"input"[3] [25 : 1]> holds <"input"[3] [25 : 1]>
    ccl.require <"input"[3] [26 : 1]> holds <"input"[3] [26 : 1]>
    ccl.require <"input"[3] [27 : 1]> holds <"input"[3] [27 : 1]>
    ccl.require <"input"[3] [28 : 1]> holds <"input"[3] [28 : 1]>
    ccl.require <"input"[3] [29 : 1]> holds <"input"[3] [29 : 1]>
    ccl.require <"input"[3] [30 : 1]> holds <"input"[3] [30 : 1]>
    ccl.require <"input"[3] [31 : 1]> holds <"input"[3] [31 : 1]>
    ccl.put @port_0_1 tb 0 <"recv"[1] [0 : 4]> = <"input"[0] [24 : 4]> signal
    ccl.put @port_0_1 tb 0 <"recv"[1] [4 : 4]> = <"input"[0] [28 : 4]> signal
    ccl.wait @port_3_0 tb 0
    ccl.reduce tb 0 <"input"[0] [16 : 4]> from <"recv"[0] [0 : 4]>
    ccl.wait @port_3_0 tb 0
    ccl.reduce tb 0 <"input"[0] [20 : 4]> from <"recv"[0] [4 : 4]>
    ccl.signal @port_0_3 tb 0
    ccl.wait @port_1_0 tb 0
    ccl.put @port_0_1 tb 0 <"recv"[1] [0 : 4]> = <"input"[0] [16 : 4]> signal
    ccl.put @port_0_1 tb 0 <"recv"[1] [4 : 4]> = <"input"[0] [20 : 4]> signal
    ccl.wait @port_3_0 tb 0
    ccl.reduce tb 0 <"input"[0] [8 : 4]> from <"recv"[0] [0 : 4]>
    ccl.wait @port_3_0 tb 0
    ccl.reduce tb 0 <"input"[0] [12 : 4]> from <"recv"[0] [4 : 4]>
    ccl.signal @port_0_3 tb 0
    ccl.wait @port_1_0 tb 0
    ccl.put @port_0_1 tb 0 <"recv"[1] [0 : 4]> = <"input"[0] [8 : 4]> signal
    ccl.put @port_0_1 tb 0 <"recv"[1] [4 : 4]> = <"input"[0] [12 : 4]> signal
    ccl.wait @port_3_0 tb 0
    ccl.reduce tb 0 <"input"[0] [0 : 4]> from <"recv"[0] [0 : 4]>
    ccl.wait @port_3_0 tb 0
    ccl.reduce tb 0 <"input"[0] [4 : 4]> from <"recv"[0] [4 : 4]>
    ccl.flush @port_0_1 tb 0
    ccl.put @port_1_2 tb 0 <"recv"[2] [0 : 4]> = <"input"[1] [0 : 4]> signal
    ccl.put @port_1_2 tb 0 <"recv"[2] [4 : 4]> = <"input"[1] [4 : 4]> signal
    ccl.wait @port_0_1 tb 0
    ccl.reduce tb 0 <"input"[1] [24 : 4]> from <"recv"[1] [0 : 4]>
    ccl.wait @port_0_1 tb 0
    ccl.reduce tb 0 <"input"[1] [28 : 4]> from <"recv"[1] [4 : 4]>
    ccl.signal @port_1_0 tb 0
    ccl.wait @port_2_1 tb 0
    ccl.put @port_1_2 tb 0 <"recv"[2] [0 : 4]> = <"input"[1] [24 : 4]> signal
    ccl.put @port_1_2 tb 0 <"recv"[2] [4 : 4]> = <"input"[1] [28 : 4]> signal
    ccl.wait @port_0_1 tb 0
    ccl.reduce tb 0 <"input"[1] [16 : 4]> from <"recv"[1] [0 : 4]>
    ccl.wait @port_0_1 tb 0
    ccl.reduce tb 0 <"input"[1] [20 : 4]> from <"recv"[1] [4 : 4]>
    ccl.signal @port_1_0 tb 0
    ccl.wait @port_2_1 tb 0
    ccl.put @port_1_2 tb 0 <"recv"[2] [0 : 4]> = <"input"[1] [16 : 4]> signal
    ccl.put @port_1_2 tb 0 <"recv"[2] [4 : 4]> = <"input"[1] [20 : 4]> signal
    ccl.wait @port_0_1 tb 0
    ccl.reduce tb 0 <"input"[1] [8 : 4]> from <"recv"[1] [0 : 4]>
    ccl.wait @port_0_1 tb 0
    ccl.reduce tb 0 <"input"[1] [12 : 4]> from <"recv"[1] [4 : 4]>
    ccl.flush @port_1_2 tb 0
    ccl.put @port_2_3 tb 0 <"recv"[3] [0 : 4]> = <"input"[2] [8 : 4]> signal
    ccl.put @port_2_3 tb 0 <"recv"[3] [4 : 4]> = <"input"[2] [12 : 4]> signal
    ccl.wait @port_1_2 tb 0
    ccl.reduce tb 0 <"input"[2] [0 : 4]> from <"recv"[2] [0 : 4]>
    ccl.wait @port_1_2 tb 0
    ccl.reduce tb 0 <"input"[2] [4 : 4]> from <"recv"[2] [4 : 4]>
    ccl.signal @port_2_1 tb 0
    ccl.wait @port_3_2 tb 0
    ccl.put @port_2_3 tb 0 <"recv"[3] [0 : 4]> = <"input"[2] [0 : 4]> signal
    ccl.put @port_2_3 tb 0 <"recv"[3] [4 : 4]> = <"input"[2] [4 : 4]> signal
    ccl.wait @port_1_2 tb 0
    ccl.reduce tb 0 <"input"[2] [24 : 4]> from <"recv"[2] [0 : 4]>
    ccl.wait @port_1_2 tb 0
    ccl.reduce tb 0 <"input"[2] [28 : 4]> from <"recv"[2] [4 : 4]>
    ccl.signal @port_2_1 tb 0
    ccl.wait @port_3_2 tb 0
    ccl.put @port_2_3 tb 0 <"recv"[3] [0 : 4]> = <"input"[2] [24 : 4]> signal
    ccl.put @port_2_3 tb 0 <"recv"[3] [4 : 4]> = <"input"[2] [28 : 4]> signal
    ccl.wait @port_1_2 tb 0
    ccl.reduce tb 0 <"input"[2] [16 : 4]> from <"recv"[2] [0 : 4]>
    ccl.wait @port_1_2 tb 0
    ccl.reduce tb 0 <"input"[2] [20 : 4]> from <"recv"[2] [4 : 4]>
    ccl.flush @port_2_3 tb 0
    ccl.put @port_3_0 tb 0 <"recv"[0] [0 : 4]> = <"input"[3] [16 : 4]> signal
    ccl.put @port_3_0 tb 0 <"recv"[0] [4 : 4]> = <"input"[3] [20 : 4]> signal
    ccl.wait @port_2_3 tb 0
    ccl.reduce tb 0 <"input"[3] [8 : 4]> from <"recv"[3] [0 : 4]>
    ccl.wait @port_2_3 tb 0
    ccl.reduce tb 0 <"input"[3] [12 : 4]> from <"recv"[3] [4 : 4]>
    ccl.signal @port_3_2 tb 0
    ccl.wait @port_0_3 tb 0
    ccl.put @port_3_0 tb 0 <"recv"[0] [0 : 4]> = <"input"[3] [8 : 4]> signal
    ccl.put @port_3_0 tb 0 <"recv"[0] [4 : 4]> = <"input"[3] [12 : 4]> signal
    ccl.wait @port_2_3 tb 0
    ccl.reduce tb 0 <"input"[3] [0 : 4]> from <"recv"[3] [0 : 4]>
    ccl.wait @port_2_3 tb 0
    ccl.reduce tb 0 <"input"[3] [4 : 4]> from <"recv"[3] [4 : 4]>
    ccl.signal @port_3_2 tb 0
    ccl.wait @port_0_3 tb 0
    ccl.put @port_3_0 tb 0 <"recv"[0] [0 : 4]> = <"input"[3] [0 : 4]> signal
    ccl.put @port_3_0 tb 0 <"recv"[0] [4 : 4]> = <"input"[3] [4 : 4]> signal
    ccl.wait @port_2_3 tb 0
    ccl.reduce tb 0 <"input"[3] [24 : 4]> from <"recv"[3] [0 : 4]>
    ccl.wait @port_2_3 tb 0
    ccl.reduce tb 0 <"input"[3] [28 : 4]> from <"recv"[3] [4 : 4]>
    ccl.flush @port_3_0 tb 0
    ccl.ensure <"input"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>, #ccl.chunk<"input"[2] [0 : 1]>, #ccl.chunk<"input"[3] [0 : 1]>]
    ccl.ensure <"input"[0] [1 : 1]> = [#ccl.chunk<"input"[0] [1 : 1]>, #ccl.chunk<"input"[1] [1 : 1]>, #ccl.chunk<"input"[2] [1 : 1]>, #ccl.chunk<"input"[3] [1 : 1]>]
    ccl.ensure <"input"[0] [2 : 1]> = [#ccl.chunk<"input"[0] [2 : 1]>, #ccl.chunk<"input"[1] [2 : 1]>, #ccl.chunk<"input"[2] [2 : 1]>, #ccl.chunk<"input"[3] [2 : 1]>]
    ccl.ensure <"input"[0] [3 : 1]> = [#ccl.chunk<"input"[0] [3 : 1]>, #ccl.chunk<"input"[1] [3 : 1]>, #ccl.chunk<"input"[2] [3 : 1]>, #ccl.chunk<"input"[3] [3 : 1]>]
    ccl.ensure <"input"[0] [4 : 1]> = [#ccl.chunk<"input"[0] [4 : 1]>, #ccl.chunk<"input"[1] [4 : 1]>, #ccl.chunk<"input"[2] [4 : 1]>, #ccl.chunk<"input"[3] [4 : 1]>]
    ccl.ensure <"input"[0] [5 : 1]> = [#ccl.chunk<"input"[0] [5 : 1]>, #ccl.chunk<"input"[1] [5 : 1]>, #ccl.chunk<"input"[2] [5 : 1]>, #ccl.chunk<"input"[3] [5 : 1]>]
    ccl.ensure <"input"[0] [6 : 1]> = [#ccl.chunk<"input"[0] [6 : 1]>, #ccl.chunk<"input"[1] [6 : 1]>, #ccl.chunk<"input"[2] [6 : 1]>, #ccl.chunk<"input"[3] [6 : 1]>]
    ccl.ensure <"input"[0] [7 : 1]> = [#ccl.chunk<"input"[0] [7 : 1]>, #ccl.chunk<"input"[1] [7 : 1]>, #ccl.chunk<"input"[2] [7 : 1]>, #ccl.chunk<"input"[3] [7 : 1]>]
    ccl.ensure <"input"[1] [8 : 1]> = [#ccl.chunk<"input"[0] [8 : 1]>, #ccl.chunk<"input"[1] [8 : 1]>, #ccl.chunk<"input"[2] [8 : 1]>, #ccl.chunk<"input"[3] [8 : 1]>]
    ccl.ensure <"input"[1] [9 : 1]> = [#ccl.chunk<"input"[0] [9 : 1]>, #ccl.chunk<"input"[1] [9 : 1]>, #ccl.chunk<"input"[2] [9 : 1]>, #ccl.chunk<"input"[3] [9 : 1]>]
    ccl.ensure <"input"[1] [10 : 1]> = [#ccl.chunk<"input"[0] [10 : 1]>, #ccl.chunk<"input"[1] [10 : 1]>, #ccl.chunk<"input"[2] [10 : 1]>, #ccl.chunk<"input"[3] [10 : 1]>]
    ccl.ensure <"input"[1] [11 : 1]> = [#ccl.chunk<"input"[0] [11 : 1]>, #ccl.chunk<"input"[1] [11 : 1]>, #ccl.chunk<"input"[2] [11 : 1]>, #ccl.chunk<"input"[3] [11 : 1]>]
    ccl.ensure <"input"[1] [12 : 1]> = [#ccl.chunk<"input"[0] [12 : 1]>, #ccl.chunk<"input"[1] [12 : 1]>, #ccl.chunk<"input"[2] [12 : 1]>, #ccl.chunk<"input"[3] [12 : 1]>]
    ccl.ensure <"input"[1] [13 : 1]> = [#ccl.chunk<"input"[0] [13 : 1]>, #ccl.chunk<"input"[1] [13 : 1]>, #ccl.chunk<"input"[2] [13 : 1]>, #ccl.chunk<"input"[3] [13 : 1]>]
    ccl.ensure <"input"[1] [14 : 1]> = [#ccl.chunk<"input"[0] [14 : 1]>, #ccl.chunk<"input"[1] [14 : 1]>, #ccl.chunk<"input"[2] [14 : 1]>, #ccl.chunk<"input"[3] [14 : 1]>]
    ccl.ensure <"input"[1] [15 : 1]> = [#ccl.chunk<"input"[0] [15 : 1]>, #ccl.chunk<"input"[1] [15 : 1]>, #ccl.chunk<"input"[2] [15 : 1]>, #ccl.chunk<"input"[3] [15 : 1]>]
    ccl.ensure <"input"[2] [16 : 1]> = [#ccl.chunk<"input"[0] [16 : 1]>, #ccl.chunk<"input"[1] [16 : 1]>, #ccl.chunk<"input"[2] [16 : 1]>, #ccl.chunk<"input"[3] [16 : 1]>]
    ccl.ensure <"input"[2] [17 : 1]> = [#ccl.chunk<"input"[0] [17 : 1]>, #ccl.chunk<"input"[1] [17 : 1]>, #ccl.chunk<"input"[2] [17 : 1]>, #ccl.chunk<"input"[3] [17 : 1]>]
    ccl.ensure <"input"[2] [18 : 1]> = [#ccl.chunk<"input"[0] [18 : 1]>, #ccl.chunk<"input"[1] [18 : 1]>, #ccl.chunk<"input"[2] [18 : 1]>, #ccl.chunk<"input"[3] [18 : 1]>]
    ccl.ensure <"input"[2] [19 : 1]> = [#ccl.chunk<"input"[0] [19 : 1]>, #ccl.chunk<"input"[1] [19 : 1]>, #ccl.chunk<"input"[2] [19 : 1]>, #ccl.chunk<"input"[3] [19 : 1]>]
    ccl.ensure <"input"[2] [20 : 1]> = [#ccl.chunk<"input"[0] [20 : 1]>, #ccl.chunk<"input"[1] [20 : 1]>, #ccl.chunk<"input"[2] [20 : 1]>, #ccl.chunk<"input"[3] [20 : 1]>]
    ccl.ensure <"input"[2] [21 : 1]> = [#ccl.chunk<"input"[0] [21 : 1]>, #ccl.chunk<"input"[1] [21 : 1]>, #ccl.chunk<"input"[2] [21 : 1]>, #ccl.chunk<"input"[3] [21 : 1]>]
    ccl.ensure <"input"[2] [22 : 1]> = [#ccl.chunk<"input"[0] [22 : 1]>, #ccl.chunk<"input"[1] [22 : 1]>, #ccl.chunk<"input"[2] [22 : 1]>, #ccl.chunk<"input"[3] [22 : 1]>]
    ccl.ensure <"input"[2] [23 : 1]> = [#ccl.chunk<"input"[0] [23 : 1]>, #ccl.chunk<"input"[1] [23 : 1]>, #ccl.chunk<"input"[2] [23 : 1]>, #ccl.chunk<"input"[3] [23 : 1]>]
    ccl.ensure <"input"[3] [24 : 1]> = [#ccl.chunk<"input"[0] [24 : 1]>, #ccl.chunk<"input"[1] [24 : 1]>, #ccl.chunk<"input"[2] [24 : 1]>, #ccl.chunk<"input"[3] [24 : 1]>]
    ccl.ensure <"input"[3] [25 : 1]> = [#ccl.chunk<"input"[0] [25 : 1]>, #ccl.chunk<"input"[1] [25 : 1]>, #ccl.chunk<"input"[2] [25 : 1]>, #ccl.chunk<"input"[3] [25 : 1]>]
    ccl.ensure <"input"[3] [26 : 1]> = [#ccl.chunk<"input"[0] [26 : 1]>, #ccl.chunk<"input"[1] [26 : 1]>, #ccl.chunk<"input"[2] [26 : 1]>, #ccl.chunk<"input"[3] [26 : 1]>]
    ccl.ensure <"input"[3] [27 : 1]> = [#ccl.chunk<"input"[0] [27 : 1]>, #ccl.chunk<"input"[1] [27 : 1]>, #ccl.chunk<"input"[2] [27 : 1]>, #ccl.chunk<"input"[3] [27 : 1]>]
    ccl.ensure <"input"[3] [28 : 1]> = [#ccl.chunk<"input"[0] [28 : 1]>, #ccl.chunk<"input"[1] [28 : 1]>, #ccl.chunk<"input"[2] [28 : 1]>, #ccl.chunk<"input"[3] [28 : 1]>]
    ccl.ensure <"input"[3] [29 : 1]> = [#ccl.chunk<"input"[0] [29 : 1]>, #ccl.chunk<"input"[1] [29 : 1]>, #ccl.chunk<"input"[2] [29 : 1]>, #ccl.chunk<"input"[3] [29 : 1]>]
    ccl.ensure <"input"[3] [30 : 1]> = [#ccl.chunk<"input"[0] [30 : 1]>, #ccl.chunk<"input"[1] [30 : 1]>, #ccl.chunk<"input"[2] [30 : 1]>, #ccl.chunk<"input"[3] [30 : 1]>]
    ccl.ensure <"input"[3] [31 : 1]> = [#ccl.chunk<"input"[0] [31 : 1]>, #ccl.chunk<"input"[1] [31 : 1]>, #ccl.chunk<"input"[2] [31 : 1]>, #ccl.chunk<"input"[3] [31 : 1]>]
  }
  ccl.algorithm @ring_rs_overlap_n5 attributes {chunks = 10 : i64, collective = "ReduceScatter", inplace = true, input_chunks = 50 : i64, name = "ring_rs_overlap", nranks = 5 : i64, protocol = "Simple"} {
    ccl.scratch @recv slots 10
    ccl.channel @port_0_1 "port" 0 -> 1
    ccl.channel @port_4_0 "port" 4 -> 0
    ccl.channel @port_0_4 "port" 0 -> 4
    ccl.channel @port_1_0 "port" 1 -> 0
    ccl.channel @port_1_2 "port" 1 -> 2
    ccl.channel @port_2_1 "port" 2 -> 1
    ccl.channel @port_2_3 "port" 2 -> 3
    ccl.channel @port_3_2 "port" 3 -> 2
    ccl.channel @port_3_4 "port" 3 -> 4
    ccl.channel @port_4_3 "port" 4 -> 3
    ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
    ccl.require <"input"[0] [1 : 1]> holds <"input"[0] [1 : 1]>
    ccl.require <"input"[0] [2 : 1]> holds <"input"[0] [2 : 1]>
    ccl.require <"input"[0] [3 : 1]> holds <"input"[0] [3 : 1]>
    ccl.require <"input"[0] [4 : 1]> holds <"input"[0] [4 : 1]>
    ccl.require <"input"[0] [5 : 1]> holds <"input"[0] [5 : 1]>
    ccl.require <"input"[0] [6 : 1]> holds <"input"[0] [6 : 1]>
    ccl.require <"input"[0] [7 : 1]> holds <"input"[0] [7 : 1]>
    ccl.require <"input"[0] [8 : 1]> holds <"input"[0] [8 : 1]>
    ccl.require <"input"[0] [9 : 1]> holds <"input"[0] [9 : 1]>
    ccl.require <"input"[0] [10 : 1]> holds <"input"[0] [10 : 1]>
    ccl.require <"input"[0] [11 : 1]> holds <"input"[0] [11 : 1]>
    ccl.require <"input"[0] [12 : 1]> holds <"input"[0] [12 : 1]>
    ccl.require <"input"[0] [13 : 1]> holds <"input"[0] [13 : 1]>
    ccl.require <"input"[0] [14 : 1]> holds <"input"[0] [14 : 1]>
    ccl.require <"input"[0] [15 : 1]> holds <"input"[0] [15 : 1]>
    ccl.require <"input"[0] [16 : 1]> holds <"input"[0] [16 : 1]>
    ccl.require <"input"[0] [17 : 1]> holds <"input"[0] [17 : 1]>
    ccl.require <"input"[0] [18 : 1]> holds <"input"[0] [18 : 1]>
    ccl.require <"input"[0] [19 : 1]> holds <"input"[0] [19 : 1]>
    ccl.require <"input"[0] [20 : 1]> holds <"input"[0] [20 : 1]>
    ccl.require <"input"[0] [21 : 1]> holds <"input"[0] [21 : 1]>
    ccl.require <"input"[0] [22 : 1]> holds <"input"[0] [22 : 1]>
    ccl.require <"input"[0] [23 : 1]> holds <"input"[0] [23 : 1]>
    ccl.require <"input"[0] [24 : 1]> holds <"input"[0] [24 : 1]>
    ccl.require <"input"[0] [25 : 1]> holds <"input"[0] [25 : 1]>
    ccl.require <"input"[0] [26 : 1]> holds <"input"[0] [26 : 1]>
    ccl.require <"input"[0] [27 : 1]> holds <"input"[0] [27 : 1]>
    ccl.require <"input"[0] [28 : 1]> holds <"input"[0] [28 : 1]>
    ccl.require <"input"[0] [29 : 1]> holds <"input"[0] [29 : 1]>
    ccl.require <"input"[0] [30 : 1]> holds <"input"[0] [30 : 1]>
    ccl.require <"input"[0] [31 : 1]> holds <"input"[0] [31 : 1]>
    ccl.require <"input"[0] [32 : 1]> holds <"input"[0] [32 : 1]>
    ccl.require <"input"[0] [33 : 1]> holds <"input"[0] [33 : 1]>
    ccl.require <"input"[0] [34 : 1]> holds <"input"[0] [34 : 1]>
    ccl.require <"input"[0] [35 : 1]> holds <"input"[0] [35 : 1]>
    ccl.require <"input"[0] [36 : 1]> holds <"input"[0] [36 : 1]>
    ccl.require <"input"[0] [37 : 1]> holds <"input"[0] [37 : 1]>
    ccl.require <"input"[0] [38 : 1]> holds <"input"[0] [38 : 1]>
    ccl.require <"input"[0] [39 : 1]> holds <"input"[0] [39 : 1]>
    ccl.require <"input"[0] [40 : 1]> holds <"input"[0] [40 : 1]>
    ccl.require <"input"[0] [41 : 1]> holds <"input"[0] [41 : 1]>
    ccl.require <"input"[0] [42 : 1]> holds <"input"[0] [42 : 1]>
    ccl.require <"input"[0] [43 : 1]> holds <"input"[0] [43 : 1]>
    ccl.require <"input"[0] [44 : 1]> holds <"input"[0] [44 : 1]>
    ccl.require <"input"[0] [45 : 1]> holds <"input"[0] [45 : 1]>
    ccl.require <"input"[0] [46 : 1]> holds <"input"[0] [46 : 1]>
    ccl.require <"input"[0] [47 : 1]> holds <"input"[0] [47 : 1]>
    ccl.require <"input"[0] [48 : 1]> holds <"input"[0] [48 : 1]>
    ccl.require <"input"[0] [49 : 1]> holds <"input"[0] [49 : 1]>
    ccl.require <"input"[1] [0 : 1]> holds <"input"[1] [0 : 1]>
    ccl.require <"input"[1] [1 : 1]> holds <"input"[1] [1 : 1]>
    ccl.require <"input"[1] [2 : 1]> holds <"input"[1] [2 : 1]>
    ccl.require <"input"[1] [3 : 1]> holds <"input"[1] [3 : 1]>
    ccl.require <"input"[1] [4 : 1]> holds <"input"[1] [4 : 1]>
    ccl.require <"input"[1] [5 : 1]> holds <"input"[1] [5 : 1]>
    ccl.require <"input"[1] [6 : 1]> holds <"input"[1] [6 : 1]>
    ccl.require <"input"[1] [7 : 1]> holds <"input"[1] [7 : 1]>
    ccl.require <"input"[1] [8 : 1]> holds <"input"[1] [8 : 1]>
    ccl.require <"input"[1] [9 : 1]> holds <"input"[1] [9 : 1]>
    ccl.require <"input"[1] [10 : 1]> holds <"input"[1] [10 : 1]>
    ccl.require <"input"[1] [11 : 1]> holds <"input"[1] [11 : 1]>
    ccl.require <"input"[1] [12 : 1]> holds <"input"[1] [12 : 1]>
    ccl.require <"input"[1] [13 : 1]> holds <"input"[1] [13 : 1]>
    ccl.require <"input"[1] [14 : 1]> holds <"input"[1] [14 : 1]>
    ccl.require <"input"[1] [15 : 1]> holds <"input"[1] [15 : 1]>
    ccl.require <"input"[1] [16 : 1]> holds <"input"[1] [16 : 1]>
    ccl.require <"input"[1] [17 : 1]> holds <"input"[1] [17 : 1]>
    ccl.require <"input"[1] [18 : 1]> holds <"input"[1] [18 : 1]>
    ccl.require <"input"[1] [19 : 1]> holds <"input"[1] [19 : 1]>
    ccl.require <"input"[1] [20 : 1]> holds <"input"[1] [20 : 1]>
    ccl.require <"input"[1] [21 : 1]> holds <"input"[1] [21 : 1]>
    ccl.require <"input"[1] [22 : 1]> holds <"input"[1] [22 : 1]>
    ccl.require <"input"[1] [23 : 1]> holds <"input"[1] [23 : 1]>
    ccl.require <"input"[1] [24 : 1]> holds <"input"[1] [24 : 1]>
    ccl.require <"input"[1] [25 : 1]> holds <"input"[1] [25 : 1]>
    ccl.require <"input"[1] [26 : 1]> holds <"input"[1] [26 : 1]>
    ccl.require <"input"[1] [27 : 1]> holds <"input"[1] [27 : 1]>
    ccl.require <"input"[1] [28 : 1]> holds <"input"[1] [28 : 1]>
    ccl.require <"input"[1] [29 : 1]> holds <"input"[1] [29 : 1]>
    ccl.require <"input"[1] [30 : 1]> holds <"input"[1] [30 : 1]>
    ccl.require <"input"[1] [31 : 1]> holds <"input"[1] [31 : 1]>
    ccl.require <"input"[1] [32 : 1]> holds <"input"[1] [32 : 1]>
    ccl.require <"input"[1] [33 : 1]> holds <"input"[1] [33 : 1]>
    ccl.require <"input"[1] [34 : 1]> holds <"input"[1] [34 : 1]>
    ccl.require <"input"[1] [35 : 1]> holds <"input"[1] [35 : 1]>
    ccl.require <"input"[1] [36 : 1]> holds <"input"[1] [36 : 1]>
    ccl.require <"input"[1] [37 : 1]> holds <"input"[1] [37 : 1]>
    ccl.require <"input"[1] [38 : 1]> holds <"input"[1] [38 : 1]>
    ccl.require <"input"[1] [39 : 1]> holds <"input"[1] [39 : 1]>
    ccl.require <"input"[1] [40 : 1]> holds <"input"[1] [40 : 1]>
    ccl.require <"input"[1] [41 : 1]> holds <"input"[1] [41 : 1]>
    ccl.require <"input"[1] [42 : 1]> holds <"input"[1] [42 : 1]>
    ccl.require <"input"[1] [43 : 1]> holds <"input"[1] [43 : 1]>
    ccl.require <"input"[1] [44 : 1]> holds <"input"[1] [44 : 1]>
    ccl.require <"input"[1] [45 : 1]> holds <"input"[1] [45 : 1]>
    ccl.require <"input"[1] [46 : 1]> holds <"input"[1] [46 : 1]>
    ccl.require <"input"[1] [47 : 1]> holds <"input"[1] [47 : 1]>
    ccl.require <"input"[1] [48 : 1]> holds <"input"[1] [48 : 1]>
    ccl.require <"input"[1] [49 : 1]> holds <"input"[1] [49 : 1]>
    ccl.require <"input"[2] [0 : 1]> holds <"input"[2] [0 : 1]>
    ccl.require <"input"[2] [1 : 1]> holds <"input"[2] [1 : 1]>
    ccl.require <"input"[2] [2 : 1]> holds <"input"[2] [2 : 1]>
    ccl.require <"input"[2] [3 : 1]> holds <"input"[2] [3 : 1]>
    ccl.require <"input"[2] [4 : 1]> holds <"input"[2] [4 : 1]>
    ccl.require <"input"[2] [5 : 1]> holds <"input"[2] [5 : 1]>
    ccl.require <"input"[2] [6 : 1]> holds <"input"[2] [6 : 1]>
    ccl.require <"input"[2] [7 : 1]> holds <"input"[2] [7 : 1]>
    ccl.require <"input"[2] [8 : 1]> holds <"input"[2] [8 : 1]>
    ccl.require <"input"[2] [9 : 1]> holds <"input"[2] [9 : 1]>
    ccl.require <"input"[2] [10 : 1]> holds <"input"[2] [10 : 1]>
    ccl.require <"input"[2] [11 : 1]> holds <"input"[2] [11 : 1]>
    ccl.require <"input"[2] [12 : 1]> holds <"input"[2] [12 : 1]>
    ccl.require <"input"[2] [13 : 1]> holds <"input"[2] [13 : 1]>
    ccl.require <"input"[2] [14 : 1]> holds <"input"[2] [14 : 1]>
    ccl.require <"input"[2] [15 : 1]> holds <"input"[2] [15 : 1]>
    ccl.require <"input"[2] [16 : 1]> holds <"input"[2] [16 : 1]>
    ccl.require <"input"[2] [17 : 1]> holds <"input"[2] [17 : 1]>
    ccl.require <"input"[2] [18 : 1]> holds <"input"[2] [18 : 1]>
    ccl.require <"input"[2] [19 : 1]> holds <"input"[2] [19 : 1]>
    ccl.require <"input"[2] [20 : 1]> holds <"input"[2] [20 : 1]>
    ccl.require <"input"[2] [21 : 1]> holds <"input"[2] [21 : 1]>
    ccl.require <"input"[2] [22 : 1]> holds <"input"[2] [22 : 1]>
    ccl.require <"input"[2] [23 : 1]> holds <"input"[2] [23 : 1]>
    ccl.require <"input"[2] [24 : 1]> holds <"input"[2] [24 : 1]>
    ccl.require <"input"[2] [25 : 1]> holds <"input"[2] [25 : 1]>
    ccl.require <"input"[2] [26 : 1]> holds <"input"[2] [26 : 1]>
    ccl.require <"input"[2] [27 : 1]> holds <"input"[2] [27 : 1]>
    ccl.require <"input"[2] [28 : 1]> holds <"input"[2] [28 : 1]>
    ccl.require <"input"[2] [29 : 1]> holds <"input"[2] [29 : 1]>
    ccl.require <"input"[2] [30 : 1]> holds <"input"[2] [30 : 1]>
    ccl.require <"input"[2] [31 : 1]> holds <"input"[2] [31 : 1]>
    ccl.require <"input"[2] [32 : 1]> holds <"input"[2] [32 : 1]>
    ccl.require <"input"[2] [33 : 1]> holds <"input"[2] [33 : 1]>
    ccl.require <"input"[2] [34 : 1]> holds <"input"[2] [34 : 1]>
    ccl.require <"input"[2] [35 : 1]> holds <"input"[2] [35 : 1]>
    ccl.require <"input"[2] [36 : 1]> holds <"input"[2] [36 : 1]>
    ccl.require <"input"[2] [37 : 1]> holds <"input"[2] [37 : 1]>
    ccl.require <"input"[2] [38 : 1]> holds <"input"[2] [38 : 1]>
    ccl.require <"input"[2] [39 : 1]> holds <"input"[2] [39 : 1]>
    ccl.require <"input"[2] [40 : 1]> holds <"input"[2] [40 : 1]>
    ccl.require <"input"[2] [41 : 1]> holds <"input"[2] [41 : 1]>
    ccl.require <"input"[2] [42 : 1]> holds <"input"[2] [42 : 1]>
    ccl.require <"input"[2] [43 : 1]> holds <"input"[2] [43 : 1]>
    ccl.require <"input"[2] [44 : 1]> holds <"input"[2] [44 : 1]>
    ccl.require <"input"[2] [45 : 1]> holds <"input"[2] [45 : 1]>
    ccl.require <"input"[2] [46 : 1]> holds <"input"[2] [46 : 1]>
    ccl.require <"input"[2] [47 : 1]> holds <"input"[2] [47 : 1]>
    ccl.require <"input"[2] [48 : 1]> holds <"input"[2] [48 : 1]>
    ccl.require <"input"[2] [49 : 1]> holds <"input"[2] [49 : 1]>
    ccl.require <"input"[3] [0 : 1]> holds <"input"[3] [0 : 1]>
    ccl.require <"input"[3] [1 : 1]> holds <"input"[3] [1 : 1]>
    ccl.require <"input"[3] [2 : 1]> holds <"input"[3] [2 : 1]>
    ccl.require <"input"[3] [3 : 1]> holds <"input"[3] [3 : 1]>
    ccl.require <"input"[3] [4 : 1]> holds <"input"[3] [4 : 1]>
    ccl.require <"input"[3] [5 : 1]> holds <"input"[3] [5 : 1]>
    ccl.require <"input"[3] [6 : 1]> holds <"input"[3] [6 : 1]>
    ccl.require <"input"[3] [7 : 1]> holds <"input"[3] [7 : 1]>
    ccl.require <"input"[3] [8 : 1]> holds <"input"[3] [8 : 1]>
    ccl.require <"input"[3] [9 : 1]> holds <"input"[3] [9 : 1]>
    ccl.require <"input"[3] [10 : 1]> holds <"input"[3] [10 : 1]>
    ccl.require <"input"[3] [11 : 1]> holds <"input"[3] [11 : 1]>
    ccl.require <"input"[3] [12 : 1]> holds <"input"[3] [12 : 1]>
    ccl.require <"input"[3] [13 : 1]> holds <"input"[3] [13 : 1]>
    ccl.require <"input"[3] [14 : 1]> holds <"input"[3] [14 : 1]>
    ccl.require <"input"[3] [15 : 1]> holds <"input"[3] [15 : 1]>
    ccl.require <"input"[3] [16 : 1]> holds <"input"[3] [16 : 1]>
    ccl.require <"input"[3] [17 : 1]> holds <"input"[3] [17 : 1]>
    ccl.require <"input"[3] [18 : 1]> holds <"input"[3] [18 : 1]>
    ccl.require <"input"[3] [19 : 1]> holds <"input"[3] [19 : 1]>
    ccl.require <"input"[3] [20 : 1]> holds <"input"[3] [20 : 1]>
    ccl.require <"input"[3] [21 : 1]> holds <"input"[3] [21 : 1]>
    ccl.require <"input"[3] [22 : 1]> holds <"input"[3] [22 : 1]>
    ccl.require <"input"[3] [23 : 1]> holds <"input"[3] [23 : 1]>
    ccl.require <"input"[3] [24 : 1]> holds <"input"[3] [24 : 1]>
    ccl.require <"input"[3] [25 : 1]> holds <"input"[3] [25 : 1]>
    ccl.require <"input"[3] [26 : 1]> holds <"input"[3] [26 : 1]>
    ccl.require <"input"[3] [27 : 1]> holds <"input"[3] [27 : 1]>
    ccl.require <"input"[3] [28 : 1]> holds <"input"[3] [28 : 1]>
    ccl.require <"input"[3] [29 : 1]> holds <"input"[3] [29 : 1]>
    ccl.require <"input"[3] [30 : 1]> holds <"input"[3] [30 : 1]>
    ccl.require <"input"[3] [31 : 1]> holds <"input"[3] [31 : 1]>
    ccl.require <"input"[3] [32 : 1]> holds <"input"[3] [32 : 1]>
    ccl.require <"input"[3] [33 : 1]> holds <"input"[3] [33 : 1]>
    ccl.require <"input"[3] [34 : 1]> holds <"input"[3] [34 : 1]>
    ccl.require <"input"[3] [35 : 1]> holds <"input"[3] [35 : 1]>
    ccl.require <"input"[3] [36 : 1]> holds <"input"[3] [36 : 1]>
    ccl.require <"input"[3] [37 : 1]> holds <"input"[3] [37 : 1]>
    ccl.require <"input"[3] [38 : 1]> holds <"input"[3] [38 : 1]>
    ccl.require <"input"[3] [39 : 1]> holds <"input"[3] [39 : 1]>
    ccl.require <"input"[3] [40 : 1]> holds <"input"[3] [40 : 1]>
    ccl.require <"input"[3] [41 : 1]> holds <"input"[3] [41 : 1]>
    ccl.require <"input"[3] [42 : 1]> holds <"input"[3] [42 : 1]>
    ccl.require <"input"[3] [43 : 1]> holds <"input"[3] [43 : 1]>
    ccl.require <"input"[3] [44 : 1]> holds <"input"[3] [44 : 1]>
    ccl.require <"input"[3] [45 : 1]> holds <"input"[3] [45 : 1]>
    ccl.require <"input"[3] [46 : 1]> holds <"input"[3] [46 : 1]>
    ccl.require <"input"[3] [47 : 1]> holds <"input"[3] [47 : 1]>
    ccl.require <"input"[3] [48 : 1]> holds <"input"[3] [48 : 1]>
    ccl.require <"input"[3] [49 : 1]> holds <"input"[3] [49 : 1]>
    ccl.require <"input"[4] [0 : 1]> holds <"input"[4] [0 : 1]>
    ccl.require <"input"[4] [1 : 1]> holds <"input"[4] [1 : 1]>
    ccl.require <"input"[4] [2 : 1]> holds <"input"[4] [2 : 1]>
    ccl.require <"input"[4] [3 : 1]> holds <"input"[4] [3 : 1]>
    ccl.require <"input"[4] [4 : 1]> holds <"input"[4] [4 : 1]>
    ccl.require <"input"[4] [5 : 1]> holds <"input"[4] [5 : 1]>
    ccl.require <"input"[4] [6 : 1]> holds <"input"[4] [6 : 1]>
    ccl.require <"input"[4] [7 : 1]> holds <"input"[4] [7 : 1]>
    ccl.require <"input"[4] [8 : 1]> holds <"input"[4] [8 : 1]>
    ccl.require <"input"[4] [9 : 1]> holds <"input"[4] [9 : 1]>
    ccl.require <"input"[4] [10 : 1]> holds <"input"[4] [10 : 1]>
    ccl.require <"input"[4] [11 : 1]> holds <"input"[4] [11 : 1]>
    ccl.require <"input"[4] [12 : 1]> holds <"input"[4] [12 : 1]>
    ccl.require <"input"[4] [13 : 1]> holds <"input"[4] [13 : 1]>
    ccl.require <"input"[4] [14 : 1]> holds <"input"[4] [14 : 1]>
    ccl.require <"input"[4] [15 : 1]> holds <"input"[4] [15 : 1]>
    ccl.require <"input"[4] [16 : 1]> holds <"input"[4] [16 : 1]>
    ccl.require <"input"[4] [17 : 1]> holds <"input"[4] [17 : 1]>
    ccl.require <"input"[4] [18 : 1]> holds <"input"[4] [18 : 1]>
    ccl.require <"input"[4] [19 : 1]> holds <"input"[4] [19 : 1]>
    ccl.require <"input"[4] [20 : 1]> holds <"input"[4] [20 : 1]>
    ccl.require <"input"[4] [21 : 1]> holds <"input"[4] [21 : 1]>
    ccl.require <"input"[4] [22 : 1]> holds <"input"[4] [22 : 1]>
    ccl.require <"input"[4] [23 : 1]> holds <"input"[4] [23 : 1]>
    ccl.require <"input"[4] [24 : 1]> holds <"input"[4] [24 : 1]>
    ccl.require <"input"[4] [25 : 1]> holds <"input"[4] [25 : 1]>
    ccl.require <"input"[4] [26 : 1]> holds <"input"[4] [26 : 1]>
    ccl.require <"input"[4] [27 : 1]> holds <"input"[4] [27 : 1]>
    ccl.require <"input"[4] [28 : 1]> holds <"input"[4] [28 : 1]>
    ccl.require <"input"[4] [29 : 1]> holds <"input"[4] [29 : 1]>
    ccl.require <"input"[4] [30 : 1]> holds <"input"[4] [30 : 1]>
    ccl.require <"input"[4] [31 : 1]> holds <"input"[4] [31 : 1]>
    ccl.require <"input"[4] [32 : 1]> holds <"input"[4] [32 : 1]>
    ccl.require <"input"[4] [33 : 1]> holds <"input"[4] [33 : 1]>
    ccl.require <"input"[4] [34 : 1]> holds <"input"[4] [34 : 1]>
    ccl.require <"input"[4] [35 : 1]> holds <"input"[4] [35 : 1]>
    ccl.require <"input"[4] [36 : 1]> holds <"input"[4] [36 : 1]>
    ccl.require <"input"[4] [37 : 1]> holds <"input"[4] [37 : 1]>
    ccl.require <"input"[4] [38 : 1]> holds <"input"[4] [38 : 1]>
    ccl.require <"input"[4] [39 : 1]> holds <"input"[4] [39 : 1]>
    ccl.require <"input"[4] [40 : 1]> holds <"input"[4] [40 : 1]>
    ccl.require <"input"[4] [41 : 1]> holds <"input"[4] [41 : 1]>
    ccl.require <"input"[4] [42 : 1]> holds <"input"[4] [42 : 1]>
    ccl.require <"input"[4] [43 : 1]> holds <"input"[4] [43 : 1]>
    ccl.require <"input"[4] [44 : 1]> holds <"input"[4] [44 : 1]>
    ccl.require <"input"[4] [45 : 1]> holds <"input"[4] [45 : 1]>
    ccl.require <"input"[4] [46 : 1]> holds <"input"[4] [46 : 1]>
    ccl.require <"input"[4] [47 : 1]> holds <"input"[4] [47 : 1]>
    ccl.require <"input"[4] [48 : 1]> holds <"input"[4] [48 : 1]>
    ccl.require <"input"[4] [49 : 1]> holds <"input"[4] [49 : 1]>
    ccl.put @port_0_1 tb 0 <"recv"[1] [0 : 5]> = <"input"[0] [40 : 5]> signal
    ccl.put @port_0_1 tb 0 <"recv"[1] [5 : 5]> = <"input"[0] [45 : 5]> signal
    ccl.wait @port_4_0 tb 0
    ccl.reduce tb 0 <"input"[0] [30 : 5]> from <"recv"[0] [0 : 5]>
    ccl.wait @port_4_0 tb 0
    ccl.reduce tb 0 <"input"[0] [35 : 5]> from <"recv"[0] [5 : 5]>
    ccl.signal @port_0_4 tb 0
    ccl.wait @port_1_0 tb 0
    ccl.put @port_0_1 tb 0 <"recv"[1] [0 : 5]> = <"input"[0] [30 : 5]> signal
    ccl.put @port_0_1 tb 0 <"recv"[1] [5 : 5]> = <"input"[0] [35 : 5]> signal
    ccl.wait @port_4_0 tb 0
    ccl.reduce tb 0 <"input"[0] [20 : 5]> from <"recv"[0] [0 : 5]>
    ccl.wait @port_4_0 tb 0
    ccl.reduce tb 0 <"input"[0] [25 : 5]> from <"recv"[0] [5 : 5]>
    ccl.signal @port_0_4 tb 0
    ccl.wait @port_1_0 tb 0
    ccl.put @port_0_1 tb 0 <"recv"[1] [0 : 5]> = <"input"[0] [20 : 5]> signal
    ccl.put @port_0_1 tb 0 <"recv"[1] [5 : 5]> = <"input"[0] [25 : 5]> signal
    ccl.wait @port_4_0 tb 0
    ccl.reduce tb 0 <"input"[0] [10 : 5]> from <"recv"[0] [0 : 5]>
    ccl.wait @port_4_0 tb 0
    ccl.reduce tb 0 <"input"[0] [15 : 5]> from <"recv"[0] [5 : 5]>
    ccl.signal @port_0_4 tb 0
    ccl.wait @port_1_0 tb 0
    ccl.put @port_0_1 tb 0 <"recv"[1] [0 : 5]> = <"input"[0] [10 : 5]> signal
    ccl.put @port_0_1 tb 0 <"recv"[1] [5 : 5]> = <"input"[0] [15 : 5]> signal
    ccl.wait @port_4_0 tb 0
    ccl.reduce tb 0 <"input"[0] [0 : 5]> from <"recv"[0] [0 : 5]>
    ccl.wait @port_4_0 tb 0
    ccl.reduce tb 0 <"input"[0] [5 : 5]> from <"recv"[0] [5 : 5]>
    ccl.flush @port_0_1 tb 0
    ccl.put @port_1_2 tb 0 <"recv"[2] [0 : 5]> = <"input"[1] [0 : 5]> signal
    ccl.put @port_1_2 tb 0 <"recv"[2] [5 : 5]> = <"input"[1] [5 : 5]> signal
    ccl.wait @port_0_1 tb 0
    ccl.reduce tb 0 <"input"[1] [40 : 5]> from <"recv"[1] [0 : 5]>
    ccl.wait @port_0_1 tb 0
    ccl.reduce tb 0 <"input"[1] [45 : 5]> from <"recv"[1] [5 : 5]>
    ccl.signal @port_1_0 tb 0
    ccl.wait @port_2_1 tb 0
    ccl.put @port_1_2 tb 0 <"recv"[2] [0 : 5]> = <"input"[1] [40 : 5]> signal
    ccl.put @port_1_2 tb 0 <"recv"[2] [5 : 5]> = <"input"[1] [45 : 5]> signal
    ccl.wait @port_0_1 tb 0
    ccl.reduce tb 0 <"input"[1] [30 : 5]> from <"recv"[1] [0 : 5]>
    ccl.wait @port_0_1 tb 0
    ccl.reduce tb 0 <"input"[1] [35 : 5]> from <"recv"[1] [5 : 5]>
    ccl.signal @port_1_0 tb 0
    ccl.wait @port_2_1 tb 0
    ccl.put @port_1_2 tb 0 <"recv"[2] [0 : 5]> = <"input"[1] [30 : 5]> signal
    ccl.put @port_1_2 tb 0 <"recv"[2] [5 : 5]> = <"input"[1] [35 : 5]> signal
    ccl.wait @port_0_1 tb 0
    ccl.reduce tb 0 <"input"[1] [20 : 5]> from <"recv"[1] [0 : 5]>
    ccl.wait @port_0_1 tb 0
    ccl.reduce tb 0 <"input"[1] [25 : 5]> from <"recv"[1] [5 : 5]>
    ccl.signal @port_1_0 tb 0
    ccl.wait @port_2_1 tb 0
    ccl.put @port_1_2 tb 0 <"recv"[2] [0 : 5]> = <"input"[1] [20 : 5]> signal
    ccl.put @port_1_2 tb 0 <"recv"[2] [5 : 5]> = <"input"[1] [25 : 5]> signal
    ccl.wait @port_0_1 tb 0
    ccl.reduce tb 0 <"input"[1] [10 : 5]> from <"recv"[1] [0 : 5]>
    ccl.wait @port_0_1 tb 0
    ccl.reduce tb 0 <"input"[1] [15 : 5]> from <"recv"[1] [5 : 5]>
    ccl.flush @port_1_2 tb 0
    ccl.put @port_2_3 tb 0 <"recv"[3] [0 : 5]> = <"input"[2] [10 : 5]> signal
    ccl.put @port_2_3 tb 0 <"recv"[3] [5 : 5]> = <"input"[2] [15 : 5]> signal
    ccl.wait @port_1_2 tb 0
    ccl.reduce tb 0 <"input"[2] [0 : 5]> from <"recv"[2] [0 : 5]>
    ccl.wait @port_1_2 tb 0
    ccl.reduce tb 0 <"input"[2] [5 : 5]> from <"recv"[2] [5 : 5]>
    ccl.signal @port_2_1 tb 0
    ccl.wait @port_3_2 tb 0
    ccl.put @port_2_3 tb 0 <"recv"[3] [0 : 5]> = <"input"[2] [0 : 5]> signal
    ccl.put @port_2_3 tb 0 <"recv"[3] [5 : 5]> = <"input"[2] [5 : 5]> signal
    ccl.wait @port_1_2 tb 0
    ccl.reduce tb 0 <"input"[2] [40 : 5]> from <"recv"[2] [0 : 5]>
    ccl.wait @port_1_2 tb 0
    ccl.reduce tb 0 <"input"[2] [45 : 5]> from <"recv"[2] [5 : 5]>
    ccl.signal @port_2_1 tb 0
    ccl.wait @port_3_2 tb 0
    ccl.put @port_2_3 tb 0 <"recv"[3] [0 : 5]> = <"input"[2] [40 : 5]> signal
    ccl.put @port_2_3 tb 0 <"recv"[3] [5 : 5]> = <"input"[2] [45 : 5]> signal
    ccl.wait @port_1_2 tb 0
    ccl.reduce tb 0 <"input"[2] [30 : 5]> from <"recv"[2] [0 : 5]>
    ccl.wait @port_1_2 tb 0
    ccl.reduce tb 0 <"input"[2] [35 : 5]> from <"recv"[2] [5 : 5]>
    ccl.signal @port_2_1 tb 0
    ccl.wait @port_3_2 tb 0
    ccl.put @port_2_3 tb 0 <"recv"[3] [0 : 5]> = <"input"[2] [30 : 5]> signal
    ccl.put @port_2_3 tb 0 <"recv"[3] [5 : 5]> = <"input"[2] [35 : 5]> signal
    ccl.wait @port_1_2 tb 0
    ccl.reduce tb 0 <"input"[2] [20 : 5]> from <"recv"[2] [0 : 5]>
    ccl.wait @port_1_2 tb 0
    ccl.reduce tb 0 <"input"[2] [25 : 5]> from <"recv"[2] [5 : 5]>
    ccl.flush @port_2_3 tb 0
    ccl.put @port_3_4 tb 0 <"recv"[4] [0 : 5]> = <"input"[3] [20 : 5]> signal
    ccl.put @port_3_4 tb 0 <"recv"[4] [5 : 5]> = <"input"[3] [25 : 5]> signal
    ccl.wait @port_2_3 tb 0
    ccl.reduce tb 0 <"input"[3] [10 : 5]> from <"recv"[3] [0 : 5]>
    ccl.wait @port_2_3 tb 0
    ccl.reduce tb 0 <"input"[3] [15 : 5]> from <"recv"[3] [5 : 5]>
    ccl.signal @port_3_2 tb 0
    ccl.wait @port_4_3 tb 0
    ccl.put @port_3_4 tb 0 <"recv"[4] [0 : 5]> = <"input"[3] [10 : 5]> signal
    ccl.put @port_3_4 tb 0 <"recv"[4] [5 : 5]> = <"input"[3] [15 : 5]> signal
    ccl.wait @port_2_3 tb 0
    ccl.reduce tb 0 <"input"[3] [0 : 5]> from <"recv"[3] [0 : 5]>
    ccl.wait @port_2_3 tb 0
    ccl.reduce tb 0 <"input"[3] [5 : 5]> from <"recv"[3] [5 : 5]>
    ccl.signal @port_3_2 tb 0
    ccl.wait @port_4_3 tb 0
    ccl.put @port_3_4 tb 0 <"recv"[4] [0 : 5]> = <"input"[3] [0 : 5]> signal
    ccl.put @port_3_4 tb 0 <"recv"[4] [5 : 5]> = <"input"[3] [5 : 5]> signal
    ccl.wait @port_2_3 tb 0
    ccl.reduce tb 0 <"input"[3] [40 : 5]> from <"recv"[3] [0 : 5]>
    ccl.wait @port_2_3 tb 0
    ccl.reduce tb 0 <"input"[3] [45 : 5]> from <"recv"[3] [5 : 5]>
    ccl.signal @port_3_2 tb 0
    ccl.wait @port_4_3 tb 0
    ccl.put @port_3_4 tb 0 <"recv"[4] [0 : 5]> = <"input"[3] [40 : 5]> signal
    ccl.put @port_3_4 tb 0 <"recv"[4] [5 : 5]> = <"input"[3] [45 : 5]> signal
    ccl.wait @port_2_3 tb 0
    ccl.reduce tb 0 <"input"[3] [30 : 5]> from <"recv"[3] [0 : 5]>
    ccl.wait @port_2_3 tb 0
    ccl.reduce tb 0 <"input"[3] [35 : 5]> from <"recv"[3] [5 : 5]>
    ccl.flush @port_3_4 tb 0
    ccl.put @port_4_0 tb 0 <"recv"[0] [0 : 5]> = <"input"[4] [30 : 5]> signal
    ccl.put @port_4_0 tb 0 <"recv"[0] [5 : 5]> = <"input"[4] [35 : 5]> signal
    ccl.wait @port_3_4 tb 0
    ccl.reduce tb 0 <"input"[4] [20 : 5]> from <"recv"[4] [0 : 5]>
    ccl.wait @port_3_4 tb 0
    ccl.reduce tb 0 <"input"[4] [25 : 5]> from <"recv"[4] [5 : 5]>
    ccl.signal @port_4_3 tb 0
    ccl.wait @port_0_4 tb 0
    ccl.put @port_4_0 tb 0 <"recv"[0] [0 : 5]> = <"input"[4] [20 : 5]> signal
    ccl.put @port_4_0 tb 0 <"recv"[0] [5 : 5]> = <"input"[4] [25 : 5]> signal
    ccl.wait @port_3_4 tb 0
    ccl.reduce tb 0 <"input"[4] [10 : 5]> from <"recv"[4] [0 : 5]>
    ccl.wait @port_3_4 tb 0
    ccl.reduce tb 0 <"input"[4] [15 : 5]> from <"recv"[4] [5 : 5]>
    ccl.signal @port_4_3 tb 0
    ccl.wait @port_0_4 tb 0
    ccl.put @port_4_0 tb 0 <"recv"[0] [0 : 5]> = <"input"[4] [10 : 5]> signal
    ccl.put @port_4_0 tb 0 <"recv"[0] [5 : 5]> = <"input"[4] [15 : 5]> signal
    ccl.wait @port_3_4 tb 0
    ccl.reduce tb 0 <"input"[4] [0 : 5]> from <"recv"[4] [0 : 5]>
    ccl.wait @port_3_4 tb 0
    ccl.reduce tb 0 <"input"[4] [5 : 5]> from <"recv"[4] [5 : 5]>
    ccl.signal @port_4_3 tb 0
    ccl.wait @port_0_4 tb 0
    ccl.put @port_4_0 tb 0 <"recv"[0] [0 : 5]> = <"input"[4] [0 : 5]> signal
    ccl.put @port_4_0 tb 0 <"recv"[0] [5 : 5]> = <"input"[4] [5 : 5]> signal
    ccl.wait @port_3_4 tb 0
    ccl.reduce tb 0 <"input"[4] [40 : 5]> from <"recv"[4] [0 : 5]>
    ccl.wait @port_3_4 tb 0
    ccl.reduce tb 0 <"input"[4] [45 : 5]> from <"recv"[4] [5 : 5]>
    ccl.flush @port_4_0 tb 0
    ccl.ensure <"input"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>, #ccl.chunk<"input"[2] [0 : 1]>, #ccl.chunk<"input"[3] [0 : 1]>, #ccl.chunk<"input"[4] [0 : 1]>]
    ccl.ensure <"input"[0] [1 : 1]> = [#ccl.chunk<"input"[0] [1 : 1]>, #ccl.chunk<"input"[1] [1 : 1]>, #ccl.chunk<"input"[2] [1 : 1]>, #ccl.chunk<"input"[3] [1 : 1]>, #ccl.chunk<"input"[4] [1 : 1]>]
    ccl.ensure <"input"[0] [2 : 1]> = [#ccl.chunk<"input"[0] [2 : 1]>, #ccl.chunk<"input"[1] [2 : 1]>, #ccl.chunk<"input"[2] [2 : 1]>, #ccl.chunk<"input"[3] [2 : 1]>, #ccl.chunk<"input"[4] [2 : 1]>]
    ccl.ensure <"input"[0] [3 : 1]> = [#ccl.chunk<"input"[0] [3 : 1]>, #ccl.chunk<"input"[1] [3 : 1]>, #ccl.chunk<"input"[2] [3 : 1]>, #ccl.chunk<"input"[3] [3 : 1]>, #ccl.chunk<"input"[4] [3 : 1]>]
    ccl.ensure <"input"[0] [4 : 1]> = [#ccl.chunk<"input"[0] [4 : 1]>, #ccl.chunk<"input"[1] [4 : 1]>, #ccl.chunk<"input"[2] [4 : 1]>, #ccl.chunk<"input"[3] [4 : 1]>, #ccl.chunk<"input"[4] [4 : 1]>]
    ccl.ensure <"input"[0] [5 : 1]> = [#ccl.chunk<"input"[0] [5 : 1]>, #ccl.chunk<"input"[1] [5 : 1]>, #ccl.chunk<"input"[2] [5 : 1]>, #ccl.chunk<"input"[3] [5 : 1]>, #ccl.chunk<"input"[4] [5 : 1]>]
    ccl.ensure <"input"[0] [6 : 1]> = [#ccl.chunk<"input"[0] [6 : 1]>, #ccl.chunk<"input"[1] [6 : 1]>, #ccl.chunk<"input"[2] [6 : 1]>, #ccl.chunk<"input"[3] [6 : 1]>, #ccl.chunk<"input"[4] [6 : 1]>]
    ccl.ensure <"input"[0] [7 : 1]> = [#ccl.chunk<"input"[0] [7 : 1]>, #ccl.chunk<"input"[1] [7 : 1]>, #ccl.chunk<"input"[2] [7 : 1]>, #ccl.chunk<"input"[3] [7 : 1]>, #ccl.chunk<"input"[4] [7 : 1]>]
    ccl.ensure <"input"[0] [8 : 1]> = [#ccl.chunk<"input"[0] [8 : 1]>, #ccl.chunk<"input"[1] [8 : 1]>, #ccl.chunk<"input"[2] [8 : 1]>, #ccl.chunk<"input"[3] [8 : 1]>, #ccl.chunk<"input"[4] [8 : 1]>]
    ccl.ensure <"input"[0] [9 : 1]> = [#ccl.chunk<"input"[0] [9 : 1]>, #ccl.chunk<"input"[1] [9 : 1]>, #ccl.chunk<"input"[2] [9 : 1]>, #ccl.chunk<"input"[3] [9 : 1]>, #ccl.chunk<"input"[4] [9 : 1]>]
    ccl.ensure <"input"[1] [10 : 1]> = [#ccl.chunk<"input"[0] [10 : 1]>, #ccl.chunk<"input"[1] [10 : 1]>, #ccl.chunk<"input"[2] [10 : 1]>, #ccl.chunk<"input"[3] [10 : 1]>, #ccl.chunk<"input"[4] [10 : 1]>]
    ccl.ensure <"input"[1] [11 : 1]> = [#ccl.chunk<"input"[0] [11 : 1]>, #ccl.chunk<"input"[1] [11 : 1]>, #ccl.chunk<"input"[2] [11 : 1]>, #ccl.chunk<"input"[3] [11 : 1]>, #ccl.chunk<"input"[4] [11 : 1]>]
    ccl.ensure <"input"[1] [12 : 1]> = [#ccl.chunk<"input"[0] [12 : 1]>, #ccl.chunk<"input"[1] [12 : 1]>, #ccl.chunk<"input"[2] [12 : 1]>, #ccl.chunk<"input"[3] [12 : 1]>, #ccl.chunk<"input"[4] [12 : 1]>]
    ccl.ensure <"input"[1] [13 : 1]> = [#ccl.chunk<"input"[0] [13 : 1]>, #ccl.chunk<"input"[1] [13 : 1]>, #ccl.chunk<"input"[2] [13 : 1]>, #ccl.chunk<"input"[3] [13 : 1]>, #ccl.chunk<"input"[4] [13 : 1]>]
    ccl.ensure <"input"[1] [14 : 1]> = [#ccl.chunk<"input"[0] [14 : 1]>, #ccl.chunk<"input"[1] [14 : 1]>, #ccl.chunk<"input"[2] [14 : 1]>, #ccl.chunk<"input"[3] [14 : 1]>, #ccl.chunk<"input"[4] [14 : 1]>]
    ccl.ensure <"input"[1] [15 : 1]> = [#ccl.chunk<"input"[0] [15 : 1]>, #ccl.chunk<"input"[1] [15 : 1]>, #ccl.chunk<"input"[2] [15 : 1]>, #ccl.chunk<"input"[3] [15 : 1]>, #ccl.chunk<"input"[4] [15 : 1]>]
    ccl.ensure <"input"[1] [16 : 1]> = [#ccl.chunk<"input"[0] [16 : 1]>, #ccl.chunk<"input"[1] [16 : 1]>, #ccl.chunk<"input"[2] [16 : 1]>, #ccl.chunk<"input"[3] [16 : 1]>, #ccl.chunk<"input"[4] [16 : 1]>]
    ccl.ensure <"input"[1] [17 : 1]> = [#ccl.chunk<"input"[0] [17 : 1]>, #ccl.chunk<"input"[1] [17 : 1]>, #ccl.chunk<"input"[2] [17 : 1]>, #ccl.chunk<"input"[3] [17 : 1]>, #ccl.chunk<"input"[4] [17 : 1]>]
    ccl.ensure <"input"[1] [18 : 1]> = [#ccl.chunk<"input"[0] [18 : 1]>, #ccl.chunk<"input"[1] [18 : 1]>, #ccl.chunk<"input"[2] [18 : 1]>, #ccl.chunk<"input"[3] [18 : 1]>, #ccl.chunk<"input"[4] [18 : 1]>]
    ccl.ensure <"input"[1] [19 : 1]> = [#ccl.chunk<"input"[0] [19 : 1]>, #ccl.chunk<"input"[1] [19 : 1]>, #ccl.chunk<"input"[2] [19 : 1]>, #ccl.chunk<"input"[3] [19 : 1]>, #ccl.chunk<"input"[4] [19 : 1]>]
    ccl.ensure <"input"[2] [20 : 1]> = [#ccl.chunk<"input"[0] [20 : 1]>, #ccl.chunk<"input"[1] [20 : 1]>, #ccl.chunk<"input"[2] [20 : 1]>, #ccl.chunk<"input"[3] [20 : 1]>, #ccl.chunk<"input"[4] [20 : 1]>]
    ccl.ensure <"input"[2] [21 : 1]> = [#ccl.chunk<"input"[0] [21 : 1]>, #ccl.chunk<"input"[1] [21 : 1]>, #ccl.chunk<"input"[2] [21 : 1]>, #ccl.chunk<"input"[3] [21 : 1]>, #ccl.chunk<"input"[4] [21 : 1]>]
    ccl.ensure <"input"[2] [22 : 1]> = [#ccl.chunk<"input"[0] [22 : 1]>, #ccl.chunk<"input"[1] [22 : 1]>, #ccl.chunk<"input"[2] [22 : 1]>, #ccl.chunk<"input"[3] [22 : 1]>, #ccl.chunk<"input"[4] [22 : 1]>]
    ccl.ensure <"input"[2] [23 : 1]> = [#ccl.chunk<"input"[0] [23 : 1]>, #ccl.chunk<"input"[1] [23 : 1]>, #ccl.chunk<"input"[2] [23 : 1]>, #ccl.chunk<"input"[3] [23 : 1]>, #ccl.chunk<"input"[4] [23 : 1]>]
    ccl.ensure <"input"[2] [24 : 1]> = [#ccl.chunk<"input"[0] [24 : 1]>, #ccl.chunk<"input"[1] [24 : 1]>, #ccl.chunk<"input"[2] [24 : 1]>, #ccl.chunk<"input"[3] [24 : 1]>, #ccl.chunk<"input"[4] [24 : 1]>]
    ccl.ensure <"input"[2] [25 : 1]> = [#ccl.chunk<"input"[0] [25 : 1]>, #ccl.chunk<"input"[1] [25 : 1]>, #ccl.chunk<"input"[2] [25 : 1]>, #ccl.chunk<"input"[3] [25 : 1]>, #ccl.chunk<"input"[4] [25 : 1]>]
    ccl.ensure <"input"[2] [26 : 1]> = [#ccl.chunk<"input"[0] [26 : 1]>, #ccl.chunk<"input"[1] [26 : 1]>, #ccl.chunk<"input"[2] [26 : 1]>, #ccl.chunk<"input"[3] [26 : 1]>, #ccl.chunk<"input"[4] [26 : 1]>]
    ccl.ensure <"input"[2] [27 : 1]> = [#ccl.chunk<"input"[0] [27 : 1]>, #ccl.chunk<"input"[1] [27 : 1]>, #ccl.chunk<"input"[2] [27 : 1]>, #ccl.chunk<"input"[3] [27 : 1]>, #ccl.chunk<"input"[4] [27 : 1]>]
    ccl.ensure <"input"[2] [28 : 1]> = [#ccl.chunk<"input"[0] [28 : 1]>, #ccl.chunk<"input"[1] [28 : 1]>, #ccl.chunk<"input"[2] [28 : 1]>, #ccl.chunk<"input"[3] [28 : 1]>, #ccl.chunk<"input"[4] [28 : 1]>]
    ccl.ensure <"input"[2] [29 : 1]> = [#ccl.chunk<"input"[0] [29 : 1]>, #ccl.chunk<"input"[1] [29 : 1]>, #ccl.chunk<"input"[2] [29 : 1]>, #ccl.chunk<"input"[3] [29 : 1]>, #ccl.chunk<"input"[4] [29 : 1]>]
    ccl.ensure <"input"[3] [30 : 1]> = [#ccl.chunk<"input"[0] [30 : 1]>, #ccl.chunk<"input"[1] [30 : 1]>, #ccl.chunk<"input"[2] [30 : 1]>, #ccl.chunk<"input"[3] [30 : 1]>, #ccl.chunk<"input"[4] [30 : 1]>]
    ccl.ensure <"input"[3] [31 : 1]> = [#ccl.chunk<"input"[0] [31 : 1]>, #ccl.chunk<"input"[1] [31 : 1]>, #ccl.chunk<"input"[2] [31 : 1]>, #ccl.chunk<"input"[3] [31 : 1]>, #ccl.chunk<"input"[4] [31 : 1]>]
    ccl.ensure <"input"[3] [32 : 1]> = [#ccl.chunk<"input"[0] [32 : 1]>, #ccl.chunk<"input"[1] [32 : 1]>, #ccl.chunk<"input"[2] [32 : 1]>, #ccl.chunk<"input"[3] [32 : 1]>, #ccl.chunk<"input"[4] [32 : 1]>]
    ccl.ensure <"input"[3] [33 : 1]> = [#ccl.chunk<"input"[0] [33 : 1]>, #ccl.chunk<"input"[1] [33 : 1]>, #ccl.chunk<"input"[2] [33 : 1]>, #ccl.chunk<"input"[3] [33 : 1]>, #ccl.chunk<"input"[4] [33 : 1]>]
    ccl.ensure <"input"[3] [34 : 1]> = [#ccl.chunk<"input"[0] [34 : 1]>, #ccl.chunk<"input"[1] [34 : 1]>, #ccl.chunk<"input"[2] [34 : 1]>, #ccl.chunk<"input"[3] [34 : 1]>, #ccl.chunk<"input"[4] [34 : 1]>]
    ccl.ensure <"input"[3] [35 : 1]> = [#ccl.chunk<"input"[0] [35 : 1]>, #ccl.chunk<"input"[1] [35 : 1]>, #ccl.chunk<"input"[2] [35 : 1]>, #ccl.chunk<"input"[3] [35 : 1]>, #ccl.chunk<"input"[4] [35 : 1]>]
    ccl.ensure <"input"[3] [36 : 1]> = [#ccl.chunk<"input"[0] [36 : 1]>, #ccl.chunk<"input"[1] [36 : 1]>, #ccl.chunk<"input"[2] [36 : 1]>, #ccl.chunk<"input"[3] [36 : 1]>, #ccl.chunk<"input"[4] [36 : 1]>]
    ccl.ensure <"input"[3] [37 : 1]> = [#ccl.chunk<"input"[0] [37 : 1]>, #ccl.chunk<"input"[1] [37 : 1]>, #ccl.chunk<"input"[2] [37 : 1]>, #ccl.chunk<"input"[3] [37 : 1]>, #ccl.chunk<"input"[4] [37 : 1]>]
    ccl.ensure <"input"[3] [38 : 1]> = [#ccl.chunk<"input"[0] [38 : 1]>, #ccl.chunk<"input"[1] [38 : 1]>, #ccl.chunk<"input"[2] [38 : 1]>, #ccl.chunk<"input"[3] [38 : 1]>, #ccl.chunk<"input"[4] [38 : 1]>]
    ccl.ensure <"input"[3] [39 : 1]> = [#ccl.chunk<"input"[0] [39 : 1]>, #ccl.chunk<"input"[1] [39 : 1]>, #ccl.chunk<"input"[2] [39 : 1]>, #ccl.chunk<"input"[3] [39 : 1]>, #ccl.chunk<"input"[4] [39 : 1]>]
    ccl.ensure <"input"[4] [40 : 1]> = [#ccl.chunk<"input"[0] [40 : 1]>, #ccl.chunk<"input"[1] [40 : 1]>, #ccl.chunk<"input"[2] [40 : 1]>, #ccl.chunk<"input"[3] [40 : 1]>, #ccl.chunk<"input"[4] [40 : 1]>]
    ccl.ensure <"input"[4] [41 : 1]> = [#ccl.chunk<"input"[0] [41 : 1]>, #ccl.chunk<"input"[1] [41 : 1]>, #ccl.chunk<"input"[2] [41 : 1]>, #ccl.chunk<"input"[3] [41 : 1]>, #ccl.chunk<"input"[4] [41 : 1]>]
    ccl.ensure <"input"[4] [42 : 1]> = [#ccl.chunk<"input"[0] [42 : 1]>, #ccl.chunk<"input"[1] [42 : 1]>, #ccl.chunk<"input"[2] [42 : 1]>, #ccl.chunk<"input"[3] [42 : 1]>, #ccl.chunk<"input"[4] [42 : 1]>]
    ccl.ensure <"input"[4] [43 : 1]> = [#ccl.chunk<"input"[0] [43 : 1]>, #ccl.chunk<"input"[1] [43 : 1]>, #ccl.chunk<"input"[2] [43 : 1]>, #ccl.chunk<"input"[3] [43 : 1]>, #ccl.chunk<"input"[4] [43 : 1]>]
    ccl.ensure <"input"[4] [44 : 1]> = [#ccl.chunk<"input"[0] [44 : 1]>, #ccl.chunk<"input"[1] [44 : 1]>, #ccl.chunk<"input"[2] [44 : 1]>, #ccl.chunk<"input"[3] [44 : 1]>, #ccl.chunk<"input"[4] [44 : 1]>]
    ccl.ensure <"input"[4] [45 : 1]> = [#ccl.chunk<"input"[0] [45 : 1]>, #ccl.chunk<"input"[1] [45 : 1]>, #ccl.chunk<"input"[2] [45 : 1]>, #ccl.chunk<"input"[3] [45 : 1]>, #ccl.chunk<"input"[4] [45 : 1]>]
    ccl.ensure <"input"[4] [46 : 1]> = [#ccl.chunk<"input"[0] [46 : 1]>, #ccl.chunk<"input"[1] [46 : 1]>, #ccl.chunk<"input"[2] [46 : 1]>, #ccl.chunk<"input"[3] [46 : 1]>, #ccl.chunk<"input"[4] [46 : 1]>]
    ccl.ensure <"input"[4] [47 : 1]> = [#ccl.chunk<"input"[0] [47 : 1]>, #ccl.chunk<"input"[1] [47 : 1]>, #ccl.chunk<"input"[2] [47 : 1]>, #ccl.chunk<"input"[3] [47 : 1]>, #ccl.chunk<"input"[4] [47 : 1]>]
    ccl.ensure <"input"[4] [48 : 1]> = [#ccl.chunk<"input"[0] [48 : 1]>, #ccl.chunk<"input"[1] [48 : 1]>, #ccl.chunk<"input"[2] [48 : 1]>, #ccl.chunk<"input"[3] [48 : 1]>, #ccl.chunk<"input"[4] [48 : 1]>]
    ccl.ensure <"input"[4] [49 : 1]> = [#ccl.chunk<"input"[0] [49 : 1]>, #ccl.chunk<"input"[1] [49 : 1]>, #ccl.chunk<"input"[2] [49 : 1]>, #ccl.chunk<"input"[3] [49 : 1]>, #ccl.chunk<"input"[4] [49 : 1]>]
  }
}
