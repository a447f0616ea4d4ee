ccl.algorithm @a_n2 attributes {name = "a", collective = #ccl.collective<custom>, nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<LL>} {
}
