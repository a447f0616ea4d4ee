module {
  ccl.algorithm @ring_n2 attributes {chunks = 2 : i64, collective = "AllReduce", inplace = true, name = "ring", nranks = 2 : i64, protocol = "Simple"} {
    ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
    ccl.require <"input"[0] [1 : 1]> holds <"input"[0] [1 : 1]>
    ccl.require <"input"[1] [0 : 1]> holds <"input"[1] [0 : 1]>
    ccl.require <"input"[1] [1 : 1]> holds <"input"[1] [1 : 1]>
    ccl.reduce <"input"[0] [0 : 1]> from <"input"[1] [0 : 1]>
    ccl.copy <"input"[1] [0 : 1]> = <"input"[0] [0 : 1]>
    ccl.reduce <"input"[1] [1 : 1]> from <"input"[0] [1 : 1]>
    ccl.copy <"input"[0] [1 : 1]> = <"input"[1] [1 : 1]>
    ccl.ensure <"input"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>]
    ccl.ensure <"input"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>]
    ccl.ensure <"input"[0] [1 : 1]> = [#ccl.chunk<"input"[0] [1 : 1]>, #ccl.chunk<"input"[1] [1 : 1]>]
    ccl.ensure <"input"[1] [1 : 1]> = [#ccl.chunk<"input"[0] [1 : 1]>, #ccl.chunk<"input"[1] [1 : 1]>]
  }
  ccl.algorithm @ring_n3 attributes {chunks = 3 : i64, collective = "AllReduce", inplace = true, name = "ring", nranks = 3 : i64, protocol = "Simple"} {
    ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
    ccl.require <"input"[0] [1 : 1]> holds <"input"[0] [1 : 1]>
    ccl.require <"input"[0] [2 : 1]> holds <"input"[0] [2 : 1]>
    ccl.require <"input"[1] [0 : 1]> holds <"input"[1] [0 : 1]>
    ccl.require <"input"[1] [1 : 1]> holds <"input"[1] [1 : 1]>
    ccl.require <"input"[1] [2 : 1]> holds <"input"[1] [2 : 1]>
    ccl.require <"input"[2] [0 : 1]> holds <"input"[2] [0 : 1]>
    ccl.require <"input"[2] [1 : 1]> holds <"input"[2] [1 : 1]>
    ccl.require <"input"[2] [2 : 1]> holds <"input"[2] [2 : 1]>
    ccl.reduce <"input"[2] [0 : 1]> from <"input"[1] [0 : 1]>
    ccl.reduce <"input"[0] [0 : 1]> from <"input"[2] [0 : 1]>
    ccl.copy <"input"[1] [0 : 1]> = <"input"[0] [0 : 1]>
    ccl.copy <"input"[2] [0 : 1]> = <"input"[1] [0 : 1]>
    ccl.reduce <"input"[0] [1 : 1]> from <"input"[2] [1 : 1]>
    ccl.reduce <"input"[1] [1 : 1]> from <"input"[0] [1 : 1]>
    ccl.copy <"input"[2] [1 : 1]> = <"input"[1] [1 : 1]>
    ccl.copy <"input"[0] [1 : 1]> = <"input"[2] [1 : 1]>
    ccl.reduce <"input"[1] [2 : 1]> from <"input"[0] [2 : 1]>
    ccl.reduce <"input"[2] [2 : 1]> from <"input"[1] [2 : 1]>
    ccl.copy <"input"[0] [2 : 1]> = <"input"[2] [2 : 1]>
    ccl.copy <"input"[1] [2 : 1]> = <"input"[0] [2 : 1]>
    ccl.ensure <"input"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>, #ccl.chunk<"input"[2] [0 : 1]>]
    ccl.ensure <"input"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>, #ccl.chunk<"input"[2] [0 : 1]>]
    ccl.ensure <"input"[2] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>, #ccl.chunk<"input"[2] [0 : 1]>]
    ccl.ensure <"input"[0] [1 : 1]> = [#ccl.chunk<"input"[0] [1 : 1]>, #ccl.chunk<"input"[1] [1 : 1]>, #ccl.chunk<"input"[2] [1 : 1]>]
    ccl.ensure <"input"[1] [1 : 1]> = [#ccl.chunk<"input"[0] [1 : 1]>, #ccl.chunk<"input"[1] [1 : 1]>, #ccl.chunk<"input"[2] [1 : 1]>]
    ccl.ensure <"input"[2] [1 : 1]> = [#ccl.chunk<"input"[0] [1 : 1]>, #ccl.chunk<"input"[1] [1 : 1]>, #ccl.chunk<"input"[2] [1 : 1]>]
    ccl.ensure <"input"[0] [2 : 1]> = [#ccl.chunk<"input"[0] [2 : 1]>, #ccl.chunk<"input"[1] [2 : 1]>, #ccl.chunk<"input"[2] [2 : 1]>]
    ccl.ensure <"input"[1] [2 : 1]> = [#ccl.chunk<"input"[0] [2 : 1]>, #ccl.chunk<"input"[1] [2 : 1]>, #ccl.chunk<"input"[2] [2 : 1]>]
    ccl.ensure <"input"[2] [2 : 1]> = [#ccl.chunk<"input"[0] [2 : 1]>, #ccl.chunk<"input"[1] [2 : 1]>, #ccl.chunk<"input"[2] [2 : 1]>]
  }
  ccl.algorithm @ring_n4 attributes {chunks = 4 : i64, collective = "AllReduce", inplace = true, name = "ring", nranks = 4 : i64, protocol = "Simple"} {
    ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
    ccl.require <"input"[0] [1 : 1]> holds <"input"[0] [1 : 1]>
    ccl.require <"input"[0] [2 : 1]> holds <"input"[0] [2 : 1]>
    ccl.require <"input"[0] [3 : 1]> holds <"input"[0] [3 : 1]>
    ccl.require <"input"[1] [0 : 1]> holds <"input"[1] [0 : 1]>
    ccl.require <"input"[1] [1 : 1]> holds <"input"[1] [1 : 1]>
    ccl.require <"input"[1] [2 : 1]> holds <"input"[1] [2 : 1]>
    ccl.require <"input"[1] [3 : 1]> holds <"input"[1] [3 : 1]>
    ccl.require <"input"[2] [0 : 1]> holds <"input"[2] [0 : 1]>
    ccl.require <"input"[2] [1 : 1]> holds <"input"[2] [1 : 1]>
    ccl.require <"input"[2] [2 : 1]> holds <"input"[2] [2 : 1]>
    ccl.require <"input"[2] [3 : 1]> holds <"input"[2] [3 : 1]>
    ccl.require <"input"[3] [0 : 1]> holds <"input"[3] [0 : 1]>
    ccl.require <"input"[3] [1 : 1]> holds <"input"[3] [1 : 1]>
    ccl.require <"input"[3] [2 : 1]> holds <"input"[3] [2 : 1]>
    ccl.require <"input"[3] [3 : 1]> holds <"input"[3] [3 : 1]>
    ccl.reduce <"input"[2] [0 : 1]> from <"input"[1] [0 : 1]>
    ccl.reduce <"input"[3] [0 : 1]> from <"input"[2] [0 : 1]>
    ccl.reduce <"input"[0] [0 : 1]> from <"input"[3] [0 : 1]>
    ccl.copy <"input"[1] [0 : 1]> = <"input"[0] [0 : 1]>
    ccl.copy <"input"[2] [0 : 1]> = <"input"[1] [0 : 1]>
    ccl.copy <"input"[3] [0 : 1]> = <"input"[2] [0 : 1]>
    ccl.reduce <"input"[3] [1 : 1]> from <"input"[2] [1 : 1]>
    ccl.reduce <"input"[0] [1 : 1]> from <"input"[3] [1 : 1]>
    ccl.reduce <"input"[1] [1 : 1]> from <"input"[0] [1 : 1]>
    ccl.copy <"input"[2] [1 : 1]> = <"input"[1] [1 : 1]>
    ccl.copy <"input"[3] [1 : 1]> = <"input"[2] [1 : 1]>
    ccl.copy <"input"[0] [1 : 1]> = <"input"[3] [1 : 1]>
    ccl.reduce <"input"[0] [2 : 1]> from <"input"[3] [2 : 1]>
    ccl.reduce <"input"[1] [2 : 1]> from <"input"[0] [2 : 1]>
    ccl.reduce <"input"[2] [2 : 1]> from <"input"[1] [2 : 1]>
    ccl.copy <"input"[3] [2 : 1]> = <"input"[2] [2 : 1]>
    ccl.copy <"input"[0] [2 : 1]> = <"input"[3] [2 : 1]>
    ccl.copy <"input"[1] [2 : 1]> = <"input"[0] [2 : 1]>
    ccl.reduce <"input"[1] [3 : 1]> from <"input"[0] [3 : 1]>
    ccl.reduce <"input"[2] [3 : 1]> from <"input"[1] [3 : 1]>
    ccl.reduce <"input"[3] [3 : 1]> from <"input"[2] [3 : 1]>
    ccl.copy <"input"[0] [3 : 1]> = <"input"[3] [3 : 1]>
    ccl.copy <"input"[1] [3 : 1]> = <"input"[0] [3 : 1]>
    ccl.copy <"input"[2] [3 : 1]> = <"input"[1] [3 : 1]>
    ccl.ensure <"input"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>, #ccl.chunk<"input"[2] [0 : 1]>, #ccl.chunk<"input"[3] [0 : 1]>]
    ccl.ensure <"input"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>, #ccl.chunk<"input"[2] [0 : 1]>, #ccl.chunk<"input"[3] [0 : 1]>]
    ccl.ensure <"input"[2] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>, #ccl.chunk<"input"[2] [0 : 1]>, #ccl.chunk<"input"[3] [0 : 1]>]
    ccl.ensure <"input"[3] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>, #ccl.chunk<"input"[2] [0 : 1]>, #ccl.chunk<"input"[3] [0 : 1]>]
    ccl.ensure <"input"[0] [1 : 1]> = [#ccl.chunk<"input"[0] [1 : 1]>, #ccl.chunk<"input"[1] [1 : 1]>, #ccl.chunk<"input"[2] [1 : 1]>, #ccl.chunk<"input"[3] [1 : 1]>]
    ccl.ensure <"input"[1] [1 : 1]> = [#ccl.chunk<"input"[0] [1 : 1]>, #ccl.chunk<"input"[1] [1 : 1]>, #ccl.chunk<"input"[2] [1 : 1]>, #ccl.chunk<"input"[3] [1 : 1]>]
    ccl.ensure <"input"[2] [1 : 1]> = [#ccl.chunk<"input"[0] [1 : 1]>, #ccl.chunk<"input"[1] [1 : 1]>, #ccl.chunk<"input"[2] [1 : 1]>, #ccl.chunk<"input"[3] [1 : 1]>]
    ccl.ensure <"input"[3] [1 : 1]> = [#ccl.chunk<"input"[0] [1 : 1]>, #ccl.chunk<"input"[1] [1 : 1]>, #ccl.chunk<"input"[2] [1 : 1]>, #ccl.chunk<"input"[3] [1 : 1]>]
    ccl.ensure <"input"[0] [2 : 1]> = [#ccl.chunk<"input"[0] [2 : 1]>, #ccl.chunk<"input"[1] [2 : 1]>, #ccl.chunk<"input"[2] [2 : 1]>, #ccl.chunk<"input"[3] [2 : 1]>]
    ccl.ensure <"input"[1] [2 : 1]> = [#ccl.chunk<"input"[0] [2 : 1]>, #ccl.chunk<"input"[1] [2 : 1]>, #ccl.chunk<"input"[2] [2 : 1]>, #ccl.chunk<"input"[3] [2 : 1]>]
    ccl.ensure <"input"[2] [2 : 1]> = [#ccl.chunk<"input"[0] [2 : 1]>, #ccl.chunk<"input"[1] [2 : 1]>, #ccl.chunk<"input"[2] [2 : 1]>, #ccl.chunk<"input"[3] [2 : 1]>]
    ccl.ensure <"input"[3] [2 : 1]> = [#ccl.chunk<"input"[0] [2 : 1]>, #ccl.chunk<"input"[1] [2 : 1]>, #ccl.chunk<"input"[2] [2 : 1]>, #ccl.chunk<"input"[3] [2 : 1]>]
    ccl.ensure <"input"[0] [3 : 1]> = [#ccl.chunk<"input"[0] [3 : 1]>, #ccl.chunk<"input"[1] [3 : 1]>, #ccl.chunk<"input"[2] [3 : 1]>, #ccl.chunk<"input"[3] [3 : 1]>]
    ccl.ensure <"input"[1] [3 : 1]> = [#ccl.chunk<"input"[0] [3 : 1]>, #ccl.chunk<"input"[1] [3 : 1]>, #ccl.chunk<"input"[2] [3 : 1]>, #ccl.chunk<"input"[3] [3 : 1]>]
    ccl.ensure <"input"[2] [3 : 1]> = [#ccl.chunk<"input"[0] [3 : 1]>, #ccl.chunk<"input"[1] [3 : 1]>, #ccl.chunk<"input"[2] [3 : 1]>, #ccl.chunk<"input"[3] [3 : 1]>]
    ccl.ensure <"input"[3] [3 : 1]> = [#ccl.chunk<"input"[0] [3 : 1]>, #ccl.chunk<"input"[1] [3 : 1]>, #ccl.chunk<"input"[2] [3 : 1]>, #ccl.chunk<"input"[3] [3 : 1]>]
  }
  ccl.algorithm @ring_n5 attributes {chunks = 5 : i64, collective = "AllReduce", inplace = true, name = "ring", nranks = 5 : i64, protocol = "Simple"} {
    ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
    ccl.require <"input"[0] [1 : 1]> holds <"input"[0] [1 : 1]>
    ccl.require <"input"[0] [2 : 1]> holds <"input"[0] [2 : 1]>
    ccl.require <"input"[0] [3 : 1]> holds <"input"[0] [3 : 1]>
    ccl.require <"input"[0] [4 : 1]> holds <"input"[0] [4 : 1]>
    ccl.require <"input"[1] [0 : 1]> holds <"input"[1] [0 : 1]>
    ccl.require <"input"[1] [1 : 1]> holds <"input"[1] [1 : 1]>
    ccl.require <"input"[1] [2 : 1]> holds <"input"[1] [2 : 1]>
    ccl.require <"input"[1] [3 : 1]> holds <"input"[1] [3 : 1]>
    ccl.require <"input"[1] [4 : 1]> holds <"input"[1] [4 : 1]>
    ccl.require <"input"[2] [0 : 1]> holds <"input"[2] [0 : 1]>
    ccl.require <"input"[2] [1 : 1]> holds <"input"[2] [1 : 1]>
    ccl.require <"input"[2] [2 : 1]> holds <"input"[2] [2 : 1]>
    ccl.require <"input"[2] [3 : 1]> holds <"input"[2] [3 : 1]>
    ccl.require <"input"[2] [4 : 1]> holds <"input"[2] [4 : 1]>
    ccl.require <"input"[3] [0 : 1]> holds <"input"[3] [0 : 1]>
    ccl.require <"input"[3] [1 : 1]> holds <"input"[3] [1 : 1]>
    ccl.require <"input"[3] [2 : 1]> holds <"input"[3] [2 : 1]>
    ccl.require <"input"[3] [3 : 1]> holds <"input"[3] [3 : 1]>
    ccl.require <"input"[3] [4 : 1]> holds <"input"[3] [4 : 1]>
    ccl.require <"input"[4] [0 : 1]> holds <"input"[4] [0 : 1]>
    ccl.require <"input"[4] [1 : 1]> holds <"input"[4] [1 : 1]>
    ccl.require <"input"[4] [2 : 1]> holds <"input"[4] [2 : 1]>
    ccl.require <"input"[4] [3 : 1]> holds <"input"[4] [3 : 1]>
    ccl.require <"input"[4] [4 : 1]> holds <"input"[4] [4 : 1]>
    ccl.reduce <"input"[2] [0 : 1]> from <"input"[1] [0 : 1]>
    ccl.reduce <"input"[3] [0 : 1]> from <"input"[2] [0 : 1]>
    ccl.reduce <"input"[4] [0 : 1]> from <"input"[3] [0 : 1]>
    ccl.reduce <"input"[0] [0 : 1]> from <"input"[4] [0 : 1]>
    ccl.copy <"input"[1] [0 : 1]> = <"input"[0] [0 : 1]>
    ccl.copy <"input"[2] [0 : 1]> = <"input"[1] [0 : 1]>
    ccl.copy <"input"[3] [0 : 1]> = <"input"[2] [0 : 1]>
    ccl.copy <"input"[4] [0 : 1]> = <"input"[3] [0 : 1]>
    ccl.reduce <"input"[3] [1 : 1]> from <"input"[2] [1 : 1]>
    ccl.reduce <"input"[4] [1 : 1]> from <"input"[3] [1 : 1]>
    ccl.reduce <"input"[0] [1 : 1]> from <"input"[4] [1 : 1]>
    ccl.reduce <"input"[1] [1 : 1]> from <"input"[0] [1 : 1]>
    ccl.copy <"input"[2] [1 : 1]> = <"input"[1] [1 : 1]>
    ccl.copy <"input"[3] [1 : 1]> = <"input"[2] [1 : 1]>
    ccl.copy <"input"[4] [1 : 1]> = <"input"[3] [1 : 1]>
    ccl.copy <"input"[0] [1 : 1]> = <"input"[4] [1 : 1]>
    ccl.reduce <"input"[4] [2 : 1]> from <"input"[3] [2 : 1]>
    ccl.reduce <"input"[0] [2 : 1]> from <"input"[4] [2 : 1]>
    ccl.reduce <"input"[1] [2 : 1]> from <"input"[0] [2 : 1]>
    ccl.reduce <"input"[2] [2 : 1]> from <"input"[1] [2 : 1]>
    ccl.copy <"input"[3] [2 : 1]> = <"input"[2] [2 : 1]>
    ccl.copy <"input"[4] [2 : 1]> = <"input"[3] [2 : 1]>
    ccl.copy <"input"[0] [2 : 1]> = <"input"[4] [2 : 1]>
    ccl.copy <"input"[1] [2 : 1]> = <"input"[0] [2 : 1]>
    ccl.reduce <"input"[0] [3 : 1]> from <"input"[4] [3 : 1]>
    ccl.reduce <"input"[1] [3 : 1]> from <"input"[0] [3 : 1]>
    ccl.reduce <"input"[2] [3 : 1]> from <"input"[1] [3 : 1]>
    ccl.reduce <"input"[3] [3 : 1]> from <"input"[2] [3 : 1]>
    ccl.copy <"input"[4] [3 : 1]> = <"input"[3] [3 : 1]>
    ccl.copy <"input"[0] [3 : 1]> = <"input"[4] [3 : 1]>
    ccl.copy <"input"[1] [3 : 1]> = <"input"[0] [3 : 1]>
    ccl.copy <"input"[2] [3 : 1]> = <"input"[1] [3 : 1]>
    ccl.reduce <"input"[1] [4 : 1]> from <"input"[0] [4 : 1]>
    ccl.reduce <"input"[2] [4 : 1]> from <"input"[1] [4 : 1]>
    ccl.reduce <"input"[3] [4 : 1]> from <"input"[2] [4 : 1]>
    ccl.reduce <"input"[4] [4 : 1]> from <"input"[3] [4 : 1]>
    ccl.copy <"input"[0] [4 : 1]> = <"input"[4] [4 : 1]>
    ccl.copy <"input"[1] [4 : 1]> = <"input"[0] [4 : 1]>
    ccl.copy <"input"[2] [4 : 1]> = <"input"[1] [4 : 1]>
    ccl.copy <"input"[3] [4 : 1]> = <"input"[2] [4 : 1]>
    ccl.ensure <"input"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>, #ccl.chunk<"input"[2] [0 : 1]>, #ccl.chunk<"input"[3] [0 : 1]>, #ccl.chunk<"input"[4] [0 : 1]>]
    ccl.ensure <"input"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>, #ccl.chunk<"input"[2] [0 : 1]>, #ccl.chunk<"input"[3] [0 : 1]>, #ccl.chunk<"input"[4] [0 : 1]>]
    ccl.ensure <"input"[2] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>, #ccl.chunk<"input"[2] [0 : 1]>, #ccl.chunk<"input"[3] [0 : 1]>, #ccl.chunk<"input"[4] [0 : 1]>]
    ccl.ensure <"input"[3] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>, #ccl.chunk<"input"[2] [0 : 1]>, #ccl.chunk<"input"[3] [0 : 1]>, #ccl.chunk<"input"[4] [0 : 1]>]
    ccl.ensure <"input"[4] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>, #ccl.chunk<"input"[2] [0 : 1]>, #ccl.chunk<"input"[3] [0 : 1]>, #ccl.chunk<"input"[4] [0 : 1]>]
    ccl.ensure <"input"[0] [1 : 1]> = [#ccl.chunk<"input"[0] [1 : 1]>, #ccl.chunk<"input"[1] [1 : 1]>, #ccl.chunk<"input"[2] [1 : 1]>, #ccl.chunk<"input"[3] [1 : 1]>, #ccl.chunk<"input"[4] [1 : 1]>]
    ccl.ensure <"input"[1] [1 : 1]> = [#ccl.chunk<"input"[0] [1 : 1]>, #ccl.chunk<"input"[1] [1 : 1]>, #ccl.chunk<"input"[2] [1 : 1]>, #ccl.chunk<"input"[3] [1 : 1]>, #ccl.chunk<"input"[4] [1 : 1]>]
    ccl.ensure <"input"[2] [1 : 1]> = [#ccl.chunk<"input"[0] [1 : 1]>, #ccl.chunk<"input"[1] [1 : 1]>, #ccl.chunk<"input"[2] [1 : 1]>, #ccl.chunk<"input"[3] [1 : 1]>, #ccl.chunk<"input"[4] [1 : 1]>]
    ccl.ensure <"input"[3] [1 : 1]> = [#ccl.chunk<"input"[0] [1 : 1]>, #ccl.chunk<"input"[1] [1 : 1]>, #ccl.chunk<"input"[2] [1 : 1]>, #ccl.chunk<"input"[3] [1 : 1]>, #ccl.chunk<"input"[4] [1 : 1]>]
    ccl.ensure <"input"[4] [1 : 1]> = [#ccl.chunk<"input"[0] [1 : 1]>, #ccl.chunk<"input"[1] [1 : 1]>, #ccl.chunk<"input"[2] [1 : 1]>, #ccl.chunk<"input"[3] [1 : 1]>, #ccl.chunk<"input"[4] [1 : 1]>]
    ccl.ensure <"input"[0] [2 : 1]> = [#ccl.chunk<"input"[0] [2 : 1]>, #ccl.chunk<"input"[1] [2 : 1]>, #ccl.chunk<"input"[2] [2 : 1]>, #ccl.chunk<"input"[3] [2 : 1]>, #ccl.chunk<"input"[4] [2 : 1]>]
    ccl.ensure <"input"[1] [2 : 1]> = [#ccl.chunk<"input"[0] [2 : 1]>, #ccl.chunk<"input"[1] [2 : 1]>, #ccl.chunk<"input"[2] [2 : 1]>, #ccl.chunk<"input"[3] [2 : 1]>, #ccl.chunk<"input"[4] [2 : 1]>]
    ccl.ensure <"input"[2] [2 : 1]> = [#ccl.chunk<"input"[0] [2 : 1]>, #ccl.chunk<"input"[1] [2 : 1]>, #ccl.chunk<"input"[2] [2 : 1]>, #ccl.chunk<"input"[3] [2 : 1]>, #ccl.chunk<"input"[4] [2 : 1]>]
    ccl.ensure <"input"[3] [2 : 1]> = [#ccl.chunk<"input"[0] [2 : 1]>, #ccl.chunk<"input"[1] [2 : 1]>, #ccl.chunk<"input"[2] [2 : 1]>, #ccl.chunk<"input"[3] [2 : 1]>, #ccl.chunk<"input"[4] [2 : 1]>]
    ccl.ensure <"input"[4] [2 : 1]> = [#ccl.chunk<"input"[0] [2 : 1]>, #ccl.chunk<"input"[1] [2 : 1]>, #ccl.chunk<"input"[2] [2 : 1]>, #ccl.chunk<"input"[3] [2 : 1]>, #ccl.chunk<"input"[4] [2 : 1]>]
    ccl.ensure <"input"[0] [3 : 1]> = [#ccl.chunk<"input"[0] [3 : 1]>, #ccl.chunk<"input"[1] [3 : 1]>, #ccl.chunk<"input"[2] [3 : 1]>, #ccl.chunk<"input"[3] [3 : 1]>, #ccl.chunk<"input"[4] [3 : 1]>]
    ccl.ensure <"input"[1] [3 : 1]> = [#ccl.chunk<"input"[0] [3 : 1]>, #ccl.chunk<"input"[1] [3 : 1]>, #ccl.chunk<"input"[2] [3 : 1]>, #ccl.chunk<"input"[3] [3 : 1]>, #ccl.chunk<"input"[4] [3 : 1]>]
    ccl.ensure <"input"[2] [3 : 1]> = [#ccl.chunk<"input"[0] [3 : 1]>, #ccl.chunk<"input"[1] [3 : 1]>, #ccl.chunk<"input"[2] [3 : 1]>, #ccl.chunk<"input"[3] [3 : 1]>, #ccl.chunk<"input"[4] [3 : 1]>]
    ccl.ensure <"input"[3] [3 : 1]> = [#ccl.chunk<"input"[0] [3 : 1]>, #ccl.chunk<"input"[1] [3 : 1]>, #ccl.chunk<"input"[2] [3 : 1]>, #ccl.chunk<"input"[3] [3 : 1]>, #ccl.chunk<"input"[4] [3 : 1]>]
    ccl.ensure <"input"[4] [3 : 1]> = [#ccl.chunk<"input"[0] [3 : 1]>, #ccl.chunk<"input"[1] [3 : 1]>, #ccl.chunk<"input"[2] [3 : 1]>, #ccl.chunk<"input"[3] [3 : 1]>, #ccl.chunk<"input"[4] [3 : 1]>]
    ccl.ensure <"input"[0] [4 : 1]> = [#ccl.chunk<"input"[0] [4 : 1]>, #ccl.chunk<"input"[1] [4 : 1]>, #ccl.chunk<"input"[2] [4 : 1]>, #ccl.chunk<"input"[3] [4 : 1]>, #ccl.chunk<"input"[4] [4 : 1]>]
    ccl.ensure <"input"[1] [4 : 1]> = [#ccl.chunk<"input"[0] [4 : 1]>, #ccl.chunk<"input"[1] [4 : 1]>, #ccl.chunk<"input"[2] [4 : 1]>, #ccl.chunk<"input"[3] [4 : 1]>, #ccl.chunk<"input"[4] [4 : 1]>]
    ccl.ensure <"input"[2] [4 : 1]> = [#ccl.chunk<"input"[0] [4 : 1]>, #ccl.chunk<"input"[1] [4 : 1]>, #ccl.chunk<"input"[2] [4 : 1]>, #ccl.chunk<"input"[3] [4 : 1]>, #ccl.chunk<"input"[4] [4 : 1]>]
    ccl.ensure <"input"[3] [4 : 1]> = [#ccl.chunk<"input"[0] [4 : 1]>, #ccl.chunk<"input"[1] [4 : 1]>, #ccl.chunk<"input"[2] [4 : 1]>, #ccl.chunk<"input"[3] [4 : 1]>, #ccl.chunk<"input"[4] [4 : 1]>]
    ccl.ensure <"input"[4] [4 : 1]> = [#ccl.chunk<"input"[0] [4 : 1]>, #ccl.chunk<"input"[1] [4 : 1]>, #ccl.chunk<"input"[2] [4 : 1]>, #ccl.chunk<"input"[3] [4 : 1]>, #ccl.chunk<"input"[4] [4 : 1]>]
  }
}
