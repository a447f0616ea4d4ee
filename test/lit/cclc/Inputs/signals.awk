# For each 64-bit atomic add of an AMDGCN listing (a Simple-protocol
# signal, semaphore release or barrier arrival), prints "SIGNAL" and the
# lines from the last block barrier (s_barrier) up to the add
# (amdgpu-simple.ccl).
/s_barrier/ { buf = "" }
{ buf = buf $0 "\n" }
/global_atomic_add_x2/ { printf "SIGNAL\n%s", buf; buf = "" }
