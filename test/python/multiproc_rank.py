"""One rank of a job started by ccl-run (python_test.sh): its communicator
from the environment, K AllReduces back to back without synchronisation,
its own results checked, the ranks' counts of wrong values gathered over
the bootstrap. Rank 0 prints one line. Usage: multiproc_rank.py LIB.so"""
import array
import struct
import sys

import cclc

lib = cclc.load(sys.argv[1])
rank, nranks = cclc.env_rank()
comm = cclc.init_from_env(target="host")
assert (comm.rank, comm.nranks) == (rank, nranks), (comm, rank, nranks)
calls, count = 10, 1001
bufs = [array.array("f", [float((rank + 1) * ((i + k) % 7)) for i in range(count)])
        for k in range(calls)]
for k in range(calls):
    lib.ring(comm, bufs[k])
comm.synchronize()
total = nranks * (nranks + 1) // 2
wrong = sum(x != total * ((i + k) % 7) for k in range(calls) for i, x in enumerate(bufs[k]))
all_wrong = [struct.unpack("<q", w)[0]
             for w in comm.bootstrap_all_gather(struct.pack("<q", wrong))]
comm.destroy()
if rank == 0:
    print("ring AllReduce, %d processes, %d calls of %d floats back to back: %d wrong"
          % (nranks, calls, count, sum(all_wrong)))
sys.exit(1 if sum(all_wrong) else 0)
