"""AllReduce from Python: compile a stdlib algorithm for the host target,
run it on N ranks of one process, several calls back to back, and check the
sums.

    pip install ./tools/python                 # once (docs/python.md)
    python examples/python/allreduce.py 4      # from the repository root

The ranks' buffers are NumPy arrays when NumPy is installed, else
array.array; on GPUs the same calls take CUDA tensors (docs/python.md).
"""
import argparse
import array
import os
import sys

import cclc

try:
    import numpy
except ImportError:
    numpy = None

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("nranks", type=int, nargs="?", default=4)
    p.add_argument("--calls", type=int, default=4, help="calls back to back")
    p.add_argument("--count", type=int, default=1000, help="float32 elements per rank")
    args = p.parse_args()
    n, calls, count = args.nranks, args.calls, args.count

    # cclc writes libring.so and libring.h into a temporary directory.
    so = cclc.compile(os.path.join(REPO, "stdlib", "allreduce", "ring.ccl"),
                      target="host", nranks=n, dtype="float32")
    lib = cclc.load(so)  # before the communicator: it prepares the plans

    def values(rank, call):  # integer-valued floats: the sums are exact
        return [float((rank + 1) * ((i + call) % 7)) for i in range(count)]

    if numpy is not None:
        bufs = [[numpy.array(values(r, k), dtype=numpy.float32) for r in range(n)]
                for k in range(calls)]
    else:
        bufs = [[array.array("f", values(r, k)) for r in range(n)] for k in range(calls)]

    with cclc.init_all(n, target="host") as comms:
        for k in range(calls):
            comms.run(lib.ring, bufs[k])  # ccl_ring on every rank, in place
        comms.synchronize()               # all calls done: read the results

    total = n * (n + 1) // 2
    wrong = sum(float(x) != total * ((i + k) % 7)
                for k in range(calls) for r in range(n)
                for i, x in enumerate(bufs[k][r]))
    print("ring AllReduce on %d host ranks from Python, %d calls of %d float32 back to "
          "back (%s): %d wrong" % (n, calls, count,
                                   "NumPy" if numpy is not None else "array.array", wrong))
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
