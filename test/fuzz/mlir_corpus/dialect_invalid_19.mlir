ccl.algorithm @a_n0 attributes {name = "a", collective = #ccl.collective<AllReduce>, nranks = 0 : i64, chunks = 1 : i64, protocol = #ccl.protocol<LL>} {
}
